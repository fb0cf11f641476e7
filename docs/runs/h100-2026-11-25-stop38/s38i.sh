#!/bin/bash
# Stop 38, call I: what the blocked scene kernel's slow paths cost the plain tiles. A measurement
# build of the final code (not committed) whose `WB_EXP_KINDS` changes the entry point: the real
# kernel (""), plain tiles only with the slow tiles left undone ("plain-only": the plain path's
# registers alone), every tile by the plain path ("all-plain": every tile's work a plain one's),
# the layer path left out ("no-layer": the Mur scene's own work without the layer path's code).
# The results of all but "" are wrong by design (max|diff| not 0); only the times count.
# `bench wave --backend wgpu --variant blocked` (full), two rounds, after a warm-up.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s38i; mkdir -p $O
gunzip -c .carry/wb_kinds.gz > /tmp/wb_kinds; chmod +x /tmp/wb_kinds
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for k in "" plain-only all-plain no-layer; do WB_EXP_KINDS=$k timeout 60 /tmp/wb_kinds bench wave --quick --backend wgpu --variant blocked > /dev/null 2>&1; done
for round in 1 2; do
  for k in real plain-only all-plain no-layer; do
    kk=$k; [ $k = real ] && kk=""
    WB_EXP_KINDS=$kk timeout 120 /tmp/wb_kinds bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${k}_$round.txt 2>&1
    echo "$k full $round rc=$?: $(grep -A1 -E '^wave2d' $O/full_${k}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')"
    WB_EXP_KINDS=$kk timeout 60 /tmp/wb_kinds bench wave --quick --backend wgpu --variant blocked > $O/quick_${k}_$round.txt 2>&1
    echo "$k quick $round rc=$?: $(grep -A1 -E '^wave2d' $O/quick_${k}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')"
  done
done
echo "(the plain kernel auto picks, blocked-workgroup:)"; timeout 120 /tmp/wb_kinds bench wave --file-size 0 --backend wgpu > $O/full_auto.txt 2>&1; grep -A1 -E '^wave2d  nx=(4096|8192)' $O/full_auto.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update'
