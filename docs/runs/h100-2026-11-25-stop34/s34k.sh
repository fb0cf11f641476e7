#!/bin/bash
# Stop 34, call K: the last binary (deep kernels NoContraction too): verify, bench --quick, full Mandelbrot beside CUDA, every GPU test of the kernels crate (gmpy2 for the MPFR references).
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
python3 -m pip install -q --no-index --no-deps --target /tmp/site .peers/wheels/gmpy2-*.whl 2>&1 | tail -1; export PYTHONPATH=/tmp/site
O=$OUT/s34k; mkdir -p $O
for b in wb_k kernels_k; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done; B=/tmp/wb_k
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B info 2>&1 | grep -i "roundings\|products\|adapter:"
S='s/NVIDIA H100 80GB HBM3 +//; s/Giter.s +mismatch/mism/'
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
grep -A3 -E "^wave2d scene" $O/bench_quick.txt | grep -E "^  wgpu" | sed -E "$S" | cut -c1-100
echo "== bench mandelbrot (full)"; timeout 120 $B bench mandelbrot --file-size 0 --backend cuda --backend wgpu > $O/mandel_full.txt 2>&1; echo rc=$?
grep -A3 -E "^mandelbrot  4096|^mandelbrot deep  1920x1080, iters=50000" $O/mandel_full.txt | grep -E "^  (cuda|wgpu)" | sed -E "$S" | cut -c1-160
mkdir -p target/release && cp $B target/release/wavebrot
echo "== GPU tests"; WAVEBROT_REQUIRE_CUDA=1 timeout 280 /tmp/kernels_k --include-ignored --test-threads=4 --skip cli_ --skip cost_beside > $O/tests.txt 2>&1; echo rc=$?; grep -E "FAILED|test result|panicked|wgpu deep smooth" $O/tests.txt | cut -c1-200 | head -12
