#!/bin/bash
# Stop 42, call C: the commit 1ab9a06 binary: bench wave (wgpu and CUDA, with the new 8192²
# matched-layer row), bench --quick, and the wave, scene, layer and blocked-scene GPU tests with
# CUDA required.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=/tmp/o; mkdir -p $O
for b in wb_new kernels_new; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 40 /tmp/wb_new bench wave --quick --backend wgpu > $O/warm.txt 2>&1
echo "== bench wave --file-size 0 --backend wgpu --backend cuda at ${SECONDS}s"
timeout 150 /tmp/wb_new bench wave --file-size 0 --backend wgpu --backend cuda > $O/bench_wave.txt 2>&1; echo rc=$?
grep -E '^wave2d|^  (wgpu|cuda)' $O/bench_wave.txt | sed -E 's/ +effective.*//; s/ +[0-9.]+ Gcell\/s//' | cut -c1-150
echo "== bench --quick at ${SECONDS}s"; timeout 120 /tmp/wb_new bench --quick > $O/bench_quick.txt 2>&1; echo "rc=$? $(grep -c 'Check result: OK!' $O/bench_quick.txt) x OK, $(grep -c MISMATCH $O/bench_quick.txt) mismatch"
echo "== GPU tests (wave, scene, layer, blocked scenes; CUDA required) at ${SECONDS}s"
WAVEBROT_REQUIRE_CUDA=1 WAVEBROT_REQUIRE_WGPU=1 timeout 200 /tmp/kernels_new --include-ignored scene pml wave --skip scene_blocked::cost --skip sponge > $O/tests.txt 2>&1; echo rc=$?; grep -E "test result|FAILED|panicked" $O/tests.txt | head
tar czf $OUT/c.tgz -C $O .
echo "done at ${SECONDS}s"
