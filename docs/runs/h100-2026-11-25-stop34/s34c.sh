#!/bin/bash
# Stop 34, call C: the kept binary (wb_G: loop counters off everywhere, index clamps off in the blocked wave kernels): verify, bench --quick, full wave and Mandelbrot beside CUDA.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34c; mkdir -p $O
gunzip -c .carry/wb_G.gz > /tmp/wb; chmod +x /tmp/wb; B=/tmp/wb
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/; s/Giter.s +mismatch/mism/'
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
grep -A3 -E "^wave2d scene|^wave2d  nx=2048" $O/bench_quick.txt | grep -E "^  (cuda|wgpu)" | sed -E "$S" | cut -c1-120
echo "== bench wave (full)"; timeout 120 $B bench wave --file-size 0 --backend cuda --backend wgpu > $O/wave_full.txt 2>&1; echo rc=$?
grep -E "^wave2d|^  (cuda|wgpu)" $O/wave_full.txt | sed -E "$S" | cut -c1-120
echo "== bench mandelbrot (full)"; timeout 120 $B bench mandelbrot --file-size 0 --backend cuda --backend wgpu > $O/mandel_full.txt 2>&1; echo rc=$?
grep -A3 -E "^mandelbrot  (4096|1024|1536)" $O/mandel_full.txt | grep -E "^mandelbrot|^  (cuda|wgpu)" | sed -E "$S" | cut -c1-140
