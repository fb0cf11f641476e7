#!/bin/bash
# Stop 36, call C: p1c (committed 7074714) against e1 (the next layer row's auxiliary values read
# one row ahead), wgpu, warm-up then two rounds; CUDA v0 (ca214c1) against p1c, two rounds.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s36c; mkdir -p $O
B="wb_v0 wb_p1c wb_e1"
for b in $B; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in wb_p1c wb_e1; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; done
for r in 1 2; do for b in wb_p1c wb_e1; do
  timeout 90 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_r$r.txt 2>&1
  echo "$b r=$r rc=$?"
  grep -A1 -E "^wave2d (scene|  nx=4096)" $O/full_${b}_r$r.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75
done; done
for b in wb_p1c wb_e1; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick2_$b.txt 2>&1; echo "quick $b rc=$?"; grep -A1 -E "^wave2d scene" $O/quick2_$b.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75; done
for r in 1 2; do for b in wb_v0 wb_p1c; do
  timeout 90 /tmp/$b bench wave --file-size 0 --backend cuda > $O/cuda_${b}_r$r.txt 2>&1; echo "cuda $b r=$r rc=$?"
  grep -A1 -E "^wave2d (scene|  nx=4096)" $O/cuda_${b}_r$r.txt | grep -E "^  cuda" | sed -E "$X" | cut -c1-75
done; done
