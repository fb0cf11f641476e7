#!/bin/bash
# Stop 34, call G: the scene kernels' cost at 512², 1024², 2048² (Mur and the matched layer), blocked vs one update per dispatch, for auto's rule.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34g; mkdir -p $O
gunzip -c .carry/kernels34g.gz > /tmp/k; chmod +x /tmp/k
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do timeout 120 /tmp/k --ignored --nocapture scene_blocked::cost >> $O/cost.txt 2>&1; echo rc=$?; done
grep -E "µs|test result" $O/cost.txt
