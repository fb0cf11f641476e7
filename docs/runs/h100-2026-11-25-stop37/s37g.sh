#!/bin/bash
# Stop 37, call G: the final binary (cef6aed: call E's, and the layer tiles skipping the rows that go wrong; CUDA's tiles from the
# near end): info, verify, bench --quick, the full wave bench beside CUDA, the cost of the scene
# kernels at 512²-2048² (`auto`'s layer share), the GPU tests of the wave, scene, layer and
# blocked-scene families with CUDA required.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s37g; mkdir -p $O
for b in wb_final37g kernels37g; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done; B=/tmp/wb_final37g
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B info > $O/info.txt 2>&1; grep -iE "roundings|products|adapter|scene kernels|wave kernel:" $O/info.txt | sed -E 's/ +/ /g' | cut -c1-170
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
grep -A2 -E "^wave2d (scene|  nx)" $O/bench_quick.txt | grep -E "^  (wgpu|cuda)" | sed -E "$X" | cut -c1-80
echo "== bench wave (full)"; timeout 150 $B bench wave --file-size 0 --backend cuda --backend wgpu > $O/wave_full.txt 2>&1; echo rc=$?
grep -E "^wave2d|^  (cuda|wgpu)" $O/wave_full.txt | sed -E "$X" | cut -c1-110
mkdir -p target/release && cp $B target/release/wavebrot
echo "== cost"; timeout 120 /tmp/kernels37g --ignored scene_blocked::cost --nocapture > $O/cost.txt 2>&1; echo rc=$?; grep -E "µs" $O/cost.txt
echo "== GPU tests"; WAVEBROT_REQUIRE_CUDA=1 timeout 240 /tmp/kernels37g --include-ignored --test-threads=4 wave:: scene pml --skip cli_ --skip sponge_scan --skip scene_blocked::cost > $O/tests.txt 2>&1; echo rc=$?; grep -E "FAILED|test result|panicked" $O/tests.txt | head
