#!/bin/bash
# Stop 40, call E: the layer tiles' row loop over every row in order, the column rotated (old value from the front, new one to the back) instead of two 16-select chains a row; against the base.
# no register columns, no select chains, one barrier an update), against the base (b8d1ff7's
# kernels). NVIDIA's pipeline statistics of the new scene kernel; `bench wave --backend wgpu
# --variant blocked` (full, then quick) alternated after a warm-up; verify and the blocked-scene
# and layer GPU tests of the new source.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT; B="wb_base wb_new"
for b in $B kernels_new; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== pipeline statistics, new (scene_mixed: whole kernel | plain tiles only | layer only | no layer)"
l="wb_new:"; for v in scene scene_plainonly scene_layeronly scene_nolayer; do
  l="$l $(.carry/pipestats .carry/spv_new/$v.spv scene_mixed dsssssssss 2>&1 | grep -E 'Register Count' | head -1 | grep -o '[0-9]*$')"; done
echo "$l"
.carry/pipestats .carry/spv_new/scene.spv scene_mixed dsssssssss 2>&1 | head -14
echo "(µs/update; rows: 1000x800, plain 4096², Mur 4096², layer 4096², plain 8192², Mur 8192² | quick: 1000x800, plain 2048², Mur 2048², layer 2048²)"
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > /dev/null 2>&1; done
echo "warm-ups done at ${SECONDS}s"
for round in 1 2 3; do
  for b in $B; do
    [ $SECONDS -gt 300 ] && break 2
    timeout 90 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_$round.txt 2>&1
    q=$(timeout 40 /tmp/$b bench wave --quick --backend wgpu --variant blocked 2>&1 | tee $O/quick_${b}_$round.txt | grep -A1 -E '^wave2d' | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')
    echo "$b $round: $(grep -A1 -E '^wave2d' $O/full_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')| $q; $(grep -o 'max|diff| [0-9.e+-]*' $O/full_${b}_$round.txt | sort | uniq -c | tr -s ' ' | tr '\n' ' ') (${SECONDS}s)"
  done
done
tar czf $O/rows.tgz $O/*.txt 2>/dev/null; rm -f $O/full_* $O/quick_*
echo "== verify (wb_new)"; timeout 100 /tmp/wb_new verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt) ok-lines=$(grep -c ' ok' $O/verify.txt)"; grep -E 'device|adapter|NVIDIA' $O/verify.txt | head -3 | cut -c1-160; tail -2 $O/verify.txt | cut -c1-200
echo "== GPU tests (new source: scene_blocked, pml) at ${SECONDS}s"
WAVEBROT_REQUIRE_CUDA=1 WAVEBROT_REQUIRE_WGPU=1 timeout 90 /tmp/kernels_new --include-ignored scene_blocked pml --skip scene_blocked::cost --skip sponge > $O/tests.txt 2>&1; echo rc=$?
grep -E "test result|FAILED|panicked" $O/tests.txt | head
echo "done at ${SECONDS}s"
