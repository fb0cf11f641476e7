#!/bin/bash
# Stop 39, call B: the final binary (HEAD: the screen's graph, the paused Step's steps; kernels as
# stop 38's): info, verify and bench --quick on the GPU machine.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
gunzip -c .carry/wb_head.gz > /tmp/wb; chmod +x /tmp/wb
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== info"; timeout 30 /tmp/wb info > $OUT/info.txt 2>&1; grep -E 'adapter|scene kernels|cuda|CUDA' $OUT/info.txt | head -6 | cut -c1-200
echo "== verify"; timeout 110 /tmp/wb verify > $OUT/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $OUT/verify.txt) ok-lines=$(grep -c '^ok' $OUT/verify.txt)"; tail -1 $OUT/verify.txt
echo "== bench --quick (${SECONDS}s)"; timeout 100 /tmp/wb bench --quick --json $OUT/bench.json > $OUT/bench.txt 2>&1; echo rc=$?
grep -E "Check result" $OUT/bench.txt | sort | uniq -c
grep -E '^wave2d|^  (wgpu|cuda)' $OUT/bench.txt | cut -c1-150 | head -24
echo "done at ${SECONDS}s"
