#!/bin/bash
# Stop 33, call G: the last binary's verify and bench --quick.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
gunzip -c .carry/wb_final.gz > /tmp/wb; chmod +x /tmp/wb; B=/tmp/wb; O=$OUT/s33g; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -3 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 250 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c; grep -A3 -E "^wave2d scene" $O/bench_quick.txt | grep -E "^  (cuda|wgpu)" | sed -E 's/NVIDIA H100 80GB HBM3 +//' | cut -c1-120; grep -A3 -E "^wave2d  nx=2048" $O/bench_quick.txt | grep -E "^  (cuda|wgpu)" | cut -c1-110
