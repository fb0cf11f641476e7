#!/bin/bash
# Stop 34, call D: the kept code's GPU tests (wgpu and CUDA kernels on the H100), the app headless at 4096² and 8192², blocked vs one-update layer scene at 2048².
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34d; mkdir -p $O
for b in wb_G kernels app_frames; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p target/release && cp /tmp/wb_G target/release/wavebrot
echo "== kernels tests (wgpu + CUDA on the H100)"; WAVEBROT_REQUIRE_CUDA=1 timeout 300 /tmp/kernels --include-ignored --test-threads=4 wave:: scene_blocked pml mandelbrot:: julia wgpu:: cuda:: > $O/tests.txt 2>&1; echo rc=$?; grep -E "FAILED|test result|panicked" $O/tests.txt | head
echo "== app at 4096² and 8192²"; timeout 150 /tmp/app_frames --backend cuda,wgpu --grid 4096,8192 --steps 100 --frames 200 --warmup 30 > $O/app_frames.txt 2>&1; echo rc=$?; grep -E "^\|" $O/app_frames.txt | cut -c1-200
echo "== 2048² layer scene blocked vs simple"; timeout 80 /tmp/wb_G bench wave --quick --backend wgpu --variant blocked --variant simple > $O/quick_variants.txt 2>&1; echo rc=$?
grep -A3 -E "^wave2d scene" $O/quick_variants.txt | grep -E "^wave2d|^  wgpu" | sed -E 's/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/' | cut -c1-120
