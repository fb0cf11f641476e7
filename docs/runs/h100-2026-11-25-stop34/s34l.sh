#!/bin/bash
# Stop 34, call L: break check of the deep smooth test's 0 budget: the deep kernels NOT decorated (Guards::DEEP with unfenced_too false), budget still 0: the test must fail on the H100.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34l; mkdir -p $O
gunzip -c .carry/kernels_break.gz > /tmp/k; chmod +x /tmp/k
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 /tmp/k --nocapture mandelbrot_deep::wgpu_deep_smooth > $O/break.txt 2>&1; echo rc=$?
grep -E "wgpu deep smooth|panicked|budget|test result" -A1 $O/break.txt | cut -c1-220 | head -8
