#!/bin/bash
# Stop 40, call F: the final binary (HEAD 65d4b0e's code: the rotated layer column; the saved
# picture's screen graph): verify, bench --quick, bench wave (auto's variants, wgpu and CUDA), the
# GPU tests of the blocked-scene, layer, scene and wave families, and scene_blocked::cost.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT
for b in wb_head kernels_new; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== verify"; timeout 100 /tmp/wb_head verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt) ok-lines=$(grep -c '^ok' $O/verify.txt)"; tail -1 $O/verify.txt
echo "== bench --quick (${SECONDS}s)"; timeout 90 /tmp/wb_head bench --quick --json $O/bench.json > $O/bench.txt 2>&1; echo rc=$?
grep -E "Check result" $O/bench.txt | sort | uniq -c
grep -E '^wave2d|^  (wgpu|cuda)' $O/bench.txt | cut -c1-150 | head -24
echo "== bench wave, auto (${SECONDS}s)"; timeout 100 /tmp/wb_head bench wave --file-size 0 --backend wgpu --backend cuda > $O/bench_wave.txt 2>&1; echo rc=$?
grep -E '^wave2d|^  (wgpu|cuda)' $O/bench_wave.txt | cut -c1-150 | head -30
echo "== GPU tests (${SECONDS}s)"
WAVEBROT_REQUIRE_CUDA=1 WAVEBROT_REQUIRE_WGPU=1 timeout 120 /tmp/kernels_new --include-ignored scene_blocked pml scene:: wave:: --skip scene_blocked::cost --skip sponge > $O/tests.txt 2>&1; echo rc=$?
grep -E "test result|FAILED|panicked" $O/tests.txt | head
echo "== scene_blocked::cost (${SECONDS}s)"
WAVEBROT_REQUIRE_WGPU=1 timeout 50 /tmp/kernels_new --ignored scene_blocked::cost --nocapture > $O/cost.txt 2>&1; echo rc=$?
grep -vE '^\s*$|^running|^test result' $O/cost.txt | tail -14 | cut -c1-160
echo "done at ${SECONDS}s"
