#!/bin/bash
# Stop 34, call B: wgpu shader modules without naga's loop counters (X1), and also without bounds checks (X2), against the committed binary (wb_fma).
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34b; mkdir -p $O
for b in wb_fma wb_X1 wb_X2; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/; s/Giter.s +mismatch/mism/'
timeout 120 /tmp/wb_fma bench mandelbrot --file-size 0 --backend cuda > $O/mandel_cuda.txt 2>&1; echo "cuda mandel rc=$?"
grep -A4 -E "^mandelbrot  (4096|1024)" $O/mandel_cuda.txt | grep -E "^mandelbrot|^  cuda" | sed -E "$S" | cut -c1-150
for r in 1 2; do for b in wb_fma wb_X1 wb_X2; do
timeout 100 /tmp/$b bench mandelbrot --file-size 0 --backend wgpu >> $O/mandel_${b}.txt 2>&1; echo "$b mandel rc=$?"
grep -A4 -E "^mandelbrot  4096|^mandelbrot deep  1920x1080, iters=50000" $O/mandel_${b}.txt | grep -E "^  wgpu" | tail -3 | sed -E "$S" | cut -c1-150
done; done
for r in 1 2; do for b in wb_fma wb_X1 wb_X2; do
timeout 80 /tmp/$b bench wave --file-size 0 --backend wgpu >> $O/wave_${b}.txt 2>&1; echo "$b wave rc=$?"
grep -A1 -E "^wave2d " $O/wave_${b}.txt | grep -E "^  wgpu" | tail -6 | sed -E "$S" | cut -c1-130
done; done
