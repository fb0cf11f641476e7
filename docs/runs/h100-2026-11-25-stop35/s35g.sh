#!/bin/bash
# Stop 35, call G: M1 (a layer tile's left or right band run by the lanes of one warp) against G1 (the committed code).
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s35g; mkdir -p $O
B="wb_G1 wb_M1"
for b in $B; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
for v in M1; do echo "== $v"; .carry/ps/pipestats .carry/ps/$v.spv scene_mixed dssssssssss 2>&1 | grep -E "Register|Binary|Shared" | cut -c1-60; done
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for r in 1 2 3; do for b in $B; do
  timeout 100 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_r$r.txt 2>&1
  echo "$b r=$r rc=$?"
  grep -A1 -E "^wave2d (scene|  nx=4096)" $O/full_${b}_r$r.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75
done; done
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick_$b.txt 2>&1; echo "quick $b rc=$?"; grep -A1 -E "^wave2d scene" $O/quick_$b.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75; done
