#!/bin/bash
# Stop 33, call B: 3D vs 2D (app_frames), app_surface on NVIDIA Vulkan, scenes old vs new (cuda+wgpu), CUDA scene/layer tests.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s33b; mkdir -p $O
for b in wb_new wb_old app_frames app_surface kernels; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== app 2D/3D at 1024²"; timeout 120 /tmp/app_frames --backend cuda,wgpu --grid 1024 --view 2d,3d --steps 100 --frames 300 --warmup 30 > $O/app_3d.txt 2>&1; echo rc=$?; grep -E "^\|" $O/app_3d.txt | cut -c1-200
mkdir -p /work/main/target/release && cp /tmp/wb_new /work/main/target/release/wavebrot
for d in tests assets kernels shaders tools; do [ -e /work/main/$d ] || ln -s $PWD/$d /work/main/$d; done
echo "== app_surface"; timeout 100 /tmp/app_surface --nocapture > $O/tests.txt 2>&1; grep -E "test result|panicked|median" $O/tests.txt | head
echo "== CUDA scene/layer tests"; WAVEBROT_REQUIRE_CUDA=1 timeout 120 /tmp/kernels --include-ignored --test-threads=4 pml scene > $O/tests_cuda.txt 2>&1; grep -E "FAILED|test result|panicked" $O/tests_cuda.txt | head
cat $O/tests_cuda.txt >> $O/tests.txt; rm $O/tests_cuda.txt
for r in 1 2; do for b in wb_old wb_new; do
timeout 80 /tmp/$b bench wave --file-size 0 --backend cuda --backend wgpu > $O/full_${b}_$r.txt 2>&1; echo "$b rc=$?"
grep -A3 -E "^wave2d scene" $O/full_${b}_$r.txt | grep -E "^  (cuda|wgpu)" | sed -E 's/NVIDIA H100 80GB HBM3 +//; s/Gcell.*kernels/kernels/' | cut -c1-100
done; done
