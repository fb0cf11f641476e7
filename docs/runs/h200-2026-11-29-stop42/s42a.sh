#!/bin/bash
# Stop 42, call A: the general tiles' OWN_C2 cells on the unrolled plain path (ids in registers),
# the scene-rule loop rotated, and each invocation scanning its own forced cells: `bench wave
# --backend wgpu` (auto) alternated old (HEAD a628328's kernels) / new; verify, bench --quick and
# the blocked-scene and layer GPU tests of the new source.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT
for b in wb_old wb_new kernels_new; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in wb_old wb_new; do timeout 40 /tmp/$b bench wave --quick --backend wgpu > $O/warm_$b.txt 2>&1; done
echo "warm-ups done at ${SECONDS}s (rows µs/update: 1000x800, plain 4096², Mur 4096², layer 4096², plain 8192², Mur 8192² | quick: 1000x800, plain 2048², Mur 2048², layer 2048²)"
for round in 1 2 3; do
  for b in wb_old wb_new; do
    [ $SECONDS -gt 300 ] && break 2
    timeout 40 /tmp/$b bench wave --file-size 0 --backend wgpu > $O/full_${b}_$round.txt 2>&1
    q=$(timeout 20 /tmp/$b bench wave --quick --backend wgpu 2>&1 | tee $O/quick_${b}_$round.txt | grep -A1 -E '^wave2d' | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')
    echo "$b $round: $(grep -A1 -E '^wave2d' $O/full_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')| $q; $(grep -o 'max|diff| [0-9.e+-]*' $O/full_${b}_$round.txt $O/quick_${b}_$round.txt | cut -d: -f2 | sort | uniq -c | tr -s ' ' | tr '\n' ' ') (${SECONDS}s)"
  done
done
echo "== verify (wb_new) at ${SECONDS}s"; timeout 60 /tmp/wb_new verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt) ok-lines=$(grep -c ' ok' $O/verify.txt)"; grep -E 'NVIDIA' $O/verify.txt | head -2 | cut -c1-160; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick (wb_new) at ${SECONDS}s"; timeout 90 /tmp/wb_new bench --quick > $O/bench_quick.txt 2>&1; echo "rc=$? $(grep -c 'Check result: OK!' $O/bench_quick.txt) x OK, $(grep -c MISMATCH $O/bench_quick.txt) mismatch"; grep -m2 -E 'NVIDIA|device' $O/bench_quick.txt | cut -c1-160
echo "== GPU tests (new source: scene_blocked, pml) at ${SECONDS}s"
WAVEBROT_REQUIRE_CUDA=1 WAVEBROT_REQUIRE_WGPU=1 timeout 60 /tmp/kernels_new --include-ignored scene_blocked pml --skip scene_blocked::cost --skip sponge > $O/tests.txt 2>&1; echo rc=$?; grep -E "test result|FAILED|panicked" $O/tests.txt | head
echo "done at ${SECONDS}s"
