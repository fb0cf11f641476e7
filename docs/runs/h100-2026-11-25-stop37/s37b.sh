#!/bin/bash
# Stop 37, call B: CUDA's blocked scene kernels on the middle-short tiles too (wb_cuda) against
# call A's binary (wb_tile: wgpu's new tiles, CUDA's old), a warm-up quick run each, two rounds of
# the full wave bench (CUDA and wgpu); then wb_cuda's verify, bench --quick and the GPU tests of the
# wave, scene, layer and blocked-scene families with CUDA required.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s37b; mkdir -p $O
B="wb_tile wb_cuda"
for b in $B kernels_cuda; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend cuda --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; done
for r in 1 2; do for b in $B; do
  timeout 120 /tmp/$b bench wave --file-size 0 --backend cuda --backend wgpu --variant blocked > $O/full_${b}_r$r.txt 2>&1
  echo "$b r=$r rc=$?"
  grep -A2 -E "^wave2d (scene|  nx=4096)" $O/full_${b}_r$r.txt | grep -E "^  (wgpu|cuda)" | sed -E "$X" | cut -c1-75
done; done
B=/tmp/wb_cuda
$B info 2>&1 | grep -i "roundings\|products\|adapter" | cut -c1-160
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
grep -A2 -E "^wave2d (scene|  nx)" $O/bench_quick.txt | grep -E "^  (wgpu|cuda)" | sed -E "$X" | cut -c1-80
mkdir -p target/release && cp $B target/release/wavebrot
echo "== GPU tests"; WAVEBROT_REQUIRE_CUDA=1 timeout 240 /tmp/kernels_cuda --include-ignored --test-threads=4 wave:: scene pml --skip cli_ --skip sponge_scan --skip scene_blocked::cost > $O/tests.txt 2>&1; echo rc=$?; grep -E "FAILED|test result|panicked" $O/tests.txt | head
