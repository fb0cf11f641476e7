#!/bin/bash
# Stop 35, call A: the layer tiles spread through the dispatch's start (one every S workgroups, S = 1 is stop 34's order), 4096² and 8192² scenes, 2048² (--quick); two rounds alternating.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s35a; mkdir -p $O
for S in 1 2 3 5 8; do gunzip -c .carry/wb_s$S.gz > /tmp/wb_s$S; chmod +x /tmp/wb_s$S; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for r in 1 2; do for S in 1 2 3 5 8; do
  t0=$(date +%s)
  timeout 100 /tmp/wb_s$S bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_s${S}_r$r.txt 2>&1
  echo "S=$S r=$r rc=$? $(( $(date +%s) - t0 )) s"
  grep -A1 -E "^wave2d scene" $O/full_s${S}_r$r.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75
  grep -A1 -E "^wave2d  nx=4096" $O/full_s${S}_r$r.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75
done; done
for S in 1 3 5; do timeout 60 /tmp/wb_s$S bench wave --quick --backend wgpu --variant blocked > $O/quick_s$S.txt 2>&1; echo "quick S=$S rc=$?"; grep -A1 -E "^wave2d scene" $O/quick_s$S.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75; done
