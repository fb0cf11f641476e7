#!/bin/bash
# Stop 34, call F: the final binary: verify, bench --quick, full wave and Mandelbrot beside CUDA, the GPU tests (wgpu and CUDA), 2048² layer scene blocked vs one update per dispatch.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34f; mkdir -p $O
for b in wb_final34 kernels34; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done; B=/tmp/wb_final34
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B info 2>&1 | grep -i "roundings\|products\|adapter"
S='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/; s/Giter.s +mismatch/mism/'
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
echo "== bench wave (full)"; timeout 120 $B bench wave --file-size 0 --backend cuda --backend wgpu > $O/wave_full.txt 2>&1; echo rc=$?
grep -E "^wave2d|^  (cuda|wgpu)" $O/wave_full.txt | sed -E "$S" | cut -c1-110
echo "== bench mandelbrot (full)"; timeout 120 $B bench mandelbrot --file-size 0 --backend cuda --backend wgpu > $O/mandel_full.txt 2>&1; echo rc=$?
grep -A3 -E "^mandelbrot  (4096|1024|1536)" $O/mandel_full.txt | grep -E "^mandelbrot|^  (cuda|wgpu)" | sed -E "$S" | cut -c1-140
mkdir -p target/release && cp $B target/release/wavebrot
echo "== GPU tests"; WAVEBROT_REQUIRE_CUDA=1 timeout 240 /tmp/kernels34 --include-ignored --test-threads=4 wave:: scene_blocked pml mandelbrot:: julia wgpu:: cuda:: --skip cli_ > $O/tests.txt 2>&1; echo rc=$?; grep -E "FAILED|test result|panicked" $O/tests.txt | head
echo "== 2048² layer: blocked vs simple, three rounds"
for r in 1 2 3; do timeout 60 $B bench wave --quick --backend wgpu --variant blocked --variant simple >> $O/quick_variants.txt 2>&1; done
grep -A3 -E "^wave2d scene.*absorbing" $O/quick_variants.txt | grep -E "^  wgpu" | sed -E "$S" | cut -c1-100
