#!/bin/bash
# Stop 37, call F: the layer tiles skipping, at each update of a dispatch, the rows that go wrong
# there (tile rows <= h and >= 63 - h; wb_live) against the final binary of call E (wb_final37), a
# warm-up quick run each, then two rounds of the full wgpu wave bench and a quick run each.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s37f; mkdir -p $O
B="wb_final37 wb_live"
for b in $B; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; done
for r in 1 2; do for b in $B; do
  timeout 100 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_r$r.txt 2>&1
  echo "$b r=$r rc=$?"
  grep -A1 -E "^wave2d scene" $O/full_${b}_r$r.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75
done; done
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick2_$b.txt 2>&1; echo "quick $b rc=$?"; grep -A1 -E "^wave2d scene" $O/quick2_$b.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75; done
