#!/bin/bash
# Stop 37, call H: the last commit (enter_tile: a tile's output ends set by one helper, the same
# rule) against call G's binary: a warm-up quick run each, one round of the full wgpu wave bench,
# then the new binary's verify and bench --quick.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s37h; mkdir -p $O
B="wb_final37g wb_h"
for b in $B; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; done
for b in $B; do
  timeout 100 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_$b.txt 2>&1
  echo "$b rc=$?"; grep -A1 -E "^wave2d scene" $O/full_$b.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75
done
B=/tmp/wb_h
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
grep -A2 -E "^wave2d (scene|  nx)" $O/bench_quick.txt | grep -E "^  (wgpu|cuda)" | sed -E "$X" | cut -c1-80
