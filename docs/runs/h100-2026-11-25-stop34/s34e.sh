#!/bin/bash
# Stop 34, call E: SPIR-V made here with NoContraction instead of exact's fences (wb_P) against the kept binary (wb_G); P's GPU tests and verify.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34e; mkdir -p $O
for b in wb_G wb_P kernels_P; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/tmp/wb_P info 2>&1 | grep -i "roundings\|products"
S='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/; s/Giter.s +mismatch/mism/'
for r in 1 2; do for b in wb_G wb_P; do
timeout 80 /tmp/$b bench wave --file-size 0 --backend wgpu >> $O/wave_${b}.txt 2>&1; echo "$b wave rc=$?"
grep -A1 -E "^wave2d " $O/wave_${b}.txt | grep -E "^  wgpu" | tail -6 | sed -E "$S" | cut -c1-110
timeout 100 /tmp/$b bench mandelbrot --file-size 0 --backend wgpu >> $O/mandel_${b}.txt 2>&1; echo "$b mandel rc=$?"
grep -A4 -E "^mandelbrot  4096" $O/mandel_${b}.txt | grep -E "^  wgpu" | tail -2 | sed -E "$S" | cut -c1-130
done; done
echo "== P verify"; timeout 200 /tmp/wb_P verify > $O/verify_P.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify_P.txt)"; tail -2 $O/verify_P.txt | cut -c1-200
mkdir -p target/release && cp /tmp/wb_P target/release/wavebrot
echo "== P tests (wgpu on the H100)"; timeout 200 /tmp/kernels_P --test-threads=4 wave::wgpu scene_blocked pml:: mandelbrot:: julia wgpu:: --skip cli_ > $O/tests_P.txt 2>&1; echo rc=$?; grep -E "FAILED|test result|panicked" $O/tests_P.txt | head
