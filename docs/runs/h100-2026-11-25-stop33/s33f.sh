#!/bin/bash
# Stop 33, call F: OWN_C2 (H, the final binary) against the binary before (new): scenes; then H's verify and bench --quick.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s33f; mkdir -p $O
for b in wb_new wb_H; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2 3; do for b in wb_new wb_H; do
timeout 60 /tmp/$b bench wave --quick --backend wgpu >> $O/quick_${b}.txt 2>&1; echo "$b quick rc=$?"
grep -A1 -E "^wave2d scene.*mur" $O/quick_${b}.txt | grep -E "^  wgpu" | tail -1 | sed -E 's/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/' | cut -c1-110
done; done
for b in wb_new wb_H; do
timeout 80 /tmp/$b bench wave --file-size 0 --backend wgpu >> $O/full_${b}.txt 2>&1; echo "$b full rc=$?"
grep -A1 -E "^wave2d scene" $O/full_${b}.txt | grep -E "^  wgpu" | tail -3 | sed -E 's/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/' | cut -c1-110
done
B=/tmp/wb_H
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 200 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c; grep -A3 -E "^wave2d scene" $O/bench_quick.txt | grep -E "^  (cuda|wgpu)" | sed -E 's/NVIDIA H100 80GB HBM3 +//' | cut -c1-120
