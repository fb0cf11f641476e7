#!/bin/bash
# Stop 36, call L: the binary of the final commit (662e257; its kernels are ea98e69's, a WGSL comment apart): verify, bench --quick, the full wave bench.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s36l; mkdir -p $O
gunzip -c .carry/wb_head.gz > /tmp/wb_head; chmod +x /tmp/wb_head; B=/tmp/wb_head
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; grep -E "wave.*scene|Check result" $O/verify.txt | tail -4 | cut -c1-150
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
echo "== bench wave (full)"; timeout 150 $B bench wave --file-size 0 --backend cuda --backend wgpu > $O/wave_full.txt 2>&1; echo rc=$?
grep -E "^wave2d|^  (cuda|wgpu)" $O/wave_full.txt | sed -E "$X" | cut -c1-110
