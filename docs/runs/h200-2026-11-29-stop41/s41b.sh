#!/bin/bash
# Stop 41, call B: the plain tiles in a pipeline of their own (`scene_plain`) beside the general
# and layer tiles (`scene_rest`), writing different buffers: registers of both pipelines; `bench
# wave --backend wgpu` (auto) alternated old (HEAD 9ed854e) / new; verify and the blocked-scene
# and layer GPU tests of the new source.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT
for b in wb_old wb_new kernels_new; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for e in scene_rest scene_plain; do echo "$e: $(.carry/pipestats .carry/spv/scene.spv $e dsssssssssss 2>&1 | grep -E 'Register Count' | head -1)"; done
for b in wb_old wb_new; do timeout 40 /tmp/$b bench wave --quick --backend wgpu > $O/warm_$b.txt 2>&1; done
echo "warm-ups done at ${SECONDS}s (rows µs/update: 1000x800, plain 4096², Mur 4096², layer 4096², plain 8192², Mur 8192² | quick: 1000x800, plain 2048², Mur 2048², layer 2048²)"
for round in 1 2; do
  for b in wb_old wb_new; do
    [ $SECONDS -gt 110 ] && break 2
    timeout 40 /tmp/$b bench wave --file-size 0 --backend wgpu > $O/full_${b}_$round.txt 2>&1
    q=$(timeout 20 /tmp/$b bench wave --quick --backend wgpu 2>&1 | tee $O/quick_${b}_$round.txt | grep -A1 -E '^wave2d' | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')
    echo "$b $round: $(grep -A1 -E '^wave2d' $O/full_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')| $q; $(grep -o 'max|diff| [0-9.e+-]*' $O/full_${b}_$round.txt $O/quick_${b}_$round.txt | cut -d: -f2 | sort | uniq -c | tr -s ' ' | tr '\n' ' ') (${SECONDS}s)"
  done
done
grep -E 'kernel: wave_scene' $O/full_wb_new_1.txt | head -3
echo "== verify (wb_new) at ${SECONDS}s"; timeout 60 /tmp/wb_new verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; grep -E 'NVIDIA' $O/verify.txt | head -2 | cut -c1-160; tail -2 $O/verify.txt | cut -c1-200
echo "== GPU tests (new source: scene_blocked, pml) at ${SECONDS}s"
[ $SECONDS -lt 160 ] && { WAVEBROT_REQUIRE_CUDA=1 WAVEBROT_REQUIRE_WGPU=1 timeout 45 /tmp/kernels_new --include-ignored scene_blocked pml --skip scene_blocked::cost --skip sponge > $O/tests.txt 2>&1; echo rc=$?; grep -E "test result|FAILED|panicked" $O/tests.txt | head; }
echo "done at ${SECONDS}s"
