#!/bin/bash
# Stop 38, call J: the final binary (HEAD), the whole `bench` (every family) and verify.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s38j; mkdir -p $O
gunzip -c .carry/wb_h.gz > /tmp/wb; chmod +x /tmp/wb
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== verify"; timeout 200 /tmp/wb verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench (full)"; timeout 420 /tmp/wb bench > $O/bench.txt 2>&1; echo rc=$?
grep -E "Check result" $O/bench.txt | sort | uniq -c
tail -25 $O/bench.txt | cut -c1-150
