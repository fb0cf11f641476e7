#!/bin/bash
# Stop 38, call D: wgpu's layer tiles read an axis' phi and last difference only where the cell
# lies in the layer along that axis (wb_x), and also write that difference only at a dispatch's
# last update (wb_x2), against wb_base (all six values read and written every update): `bench
# wave --backend wgpu --variant blocked` (full), two rounds alternated after a warm-up each.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s38d; mkdir -p $O
B="wb_base wb_x wb_x2"
for b in $B; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; grep -A1 -E "^wave2d scene" $O/quick_$b.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75; done
for round in 1 2; do
  for b in $B; do
    timeout 120 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_$round.txt 2>&1
    echo "$b round $round rc=$?"; grep -A1 -E "^wave2d" $O/full_${b}_$round.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75
  done
done
