#!/bin/bash
# Stop 38, call B: where the 3D view's paint goes, from a measurement build of 82b597c (not
# committed: `WB_EXP_QUAD` sets QUAD_PIXELS, `WB_EXP_SKIP` leaves out the compute pass, the draw,
# the whole offscreen pass or the blit). app_frames, wgpu, 1024², 2D then 3D per variant, two rounds.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s38b; mkdir -p $O
gunzip -c .carry/af_exp.gz > /tmp/af_exp; chmod +x /tmp/af_exp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 /tmp/af_exp --backend wgpu --grid 1024 --view 3d --steps 100 --frames 60 --warmup 10 > /dev/null 2>&1
run() { # name quad skip
  WB_EXP_QUAD=$2 WB_EXP_SKIP=$3 timeout 100 /tmp/af_exp --backend wgpu --grid 1024 --view 2d,3d --steps 100 --frames 300 --warmup 30 > $O/$1_$round.txt 2>&1
  echo "$1 (quad $2, skip '$3') rc=$?: $(grep -E '^\| wgpu' $O/$1_$round.txt | cut -d'|' -f4,6,16 | tr '\n' ' ')"
}
for round in 1 2; do
  run q4 4 ""
  run q2 2 ""
  run q8 8 ""
  run q16 16 ""
  run nodraw 4 draw
  run nocompute_nodraw 4 compute,draw
  run nopass 4 compute,pass
  run noblit 4 blit
  run nothing 4 compute,pass,blit
done
