#!/bin/bash
# Stop 36, call K: rot (ea98e69) against ref (the same kernels with shared helpers: column loads and forced
# cells with a row stride, one store), warm-up, two rounds; then verify and bench --quick of ref.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s36k; mkdir -p $O
B="wb_rot wb_ref"
for b in $B; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; done
for r in 1 2; do for b in $B; do
  timeout 120 /tmp/$b bench wave --file-size 0 --backend wgpu --backend cuda --variant blocked > $O/full_${b}_r$r.txt 2>&1
  echo "$b r=$r rc=$?"
  grep -A2 -E "^wave2d (scene|  nx=4096)" $O/full_${b}_r$r.txt | grep -E "^  (wgpu|cuda)" | sed -E "$X" | cut -c1-75
done; done
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick2_$b.txt 2>&1; echo "quick $b rc=$?"; grep -A1 -E "^wave2d scene" $O/quick2_$b.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75; done
echo "== verify (ref)"; timeout 200 /tmp/wb_ref verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick (ref)"; timeout 150 /tmp/wb_ref bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
