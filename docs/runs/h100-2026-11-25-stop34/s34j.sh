#!/bin/bash
# Stop 34, call J: the deep kernels as SPIR-V made here with NoContraction (wb_D, kernels_D): the deep tests against the CPU twin, and the deep bench row beside the final binary.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34j; mkdir -p $O
for b in wb_final34 wb_D kernels_D; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p target/release && cp /tmp/wb_D target/release/wavebrot
timeout 200 /tmp/kernels_D --nocapture --test-threads=2 mandelbrot_deep:: --skip cli_ > $O/tests_D.txt 2>&1; echo rc=$?; grep -E "wgpu deep smooth|FAILED|test result" $O/tests_D.txt | cut -c1-200
for r in 1 2; do for b in wb_final34 wb_D; do
timeout 100 /tmp/$b bench mandelbrot --file-size 0 --backend wgpu >> $O/mandel_${b}.txt 2>&1; echo "$b rc=$?"
grep -A3 -E "^mandelbrot deep  1920x1080, iters=50000" $O/mandel_${b}.txt | grep -E "^  wgpu" | tail -1 | sed -E 's/NVIDIA H100 80GB HBM3 +//' | cut -c1-200
done; done
