#!/bin/bash
# Stop 40, call C: does workgroup memory alone slow the scene kernel? The base kernel with an
# unused workgroup array of 4, 8, 12 KiB (referenced where no workgroup goes).
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT; B="wb_base wb_mpad2048 wb_mpad3072 wb_newsmall"
for b in $B; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for p in mpad2048 mpad3072 newsmall; do echo "$p: $(.carry/pipestats .carry/spv_$p/scene.spv scene_mixed dsssssssss 2>&1 | grep -E 'Register Count|Shared Memory' | tr '\n' ' ')"; done
echo "(µs/update; full: 1000x800, plain 4096², Mur 4096², layer 4096², plain 8192², Mur 8192² | quick: 1000x800, plain 2048², Mur 2048², layer 2048²)"
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > /dev/null 2>&1; done
for round in 1 2; do
  for b in $B; do
    [ $SECONDS -gt 200 ] && break 2
    timeout 90 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_$round.txt 2>&1
    q=$(timeout 40 /tmp/$b bench wave --quick --backend wgpu --variant blocked 2>&1 | grep -A1 -E '^wave2d' | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')
    echo "$b $round: $(grep -A1 -E '^wave2d' $O/full_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')| $q (${SECONDS}s)"
  done
done
rm -f $O/full_*
echo "done at ${SECONDS}s"
