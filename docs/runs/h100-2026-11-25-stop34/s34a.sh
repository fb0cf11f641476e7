#!/bin/bash
# Stop 34, call A: the scene products' error by one fma (wb_fma) against the binary before (wb_final); scene tests with the fused form.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34a; mkdir -p $O
for b in wb_final wb_fma kernels_fma; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/tmp/wb_fma info 2>&1 | grep -i "products\|adapter" | head -3
for r in 1 2; do for b in wb_final wb_fma; do
timeout 60 /tmp/$b bench wave --quick --backend wgpu >> $O/quick_${b}.txt 2>&1; echo "$b quick rc=$?"
grep -A1 -E "^wave2d scene" $O/quick_${b}.txt | grep -E "^  wgpu" | tail -2 | sed -E 's/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/' | cut -c1-110
done; done
for r in 1 2; do for b in wb_final wb_fma; do
timeout 80 /tmp/$b bench wave --file-size 0 --backend wgpu >> $O/full_${b}.txt 2>&1; echo "$b full rc=$?"
grep -A1 -E "^wave2d scene" $O/full_${b}.txt | grep -E "^  wgpu" | tail -3 | sed -E 's/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/' | cut -c1-110
done; done
mkdir -p target/release; ln -sf /tmp/wb_fma target/release/wavebrot
echo "== scene tests (fused products)"
timeout 200 /tmp/kernels_fma --test-threads 1 wgpu_scenes wgpu_blocked_scenes wgpu_matched scene_blocked pml:: > $O/tests.txt 2>&1; echo "tests rc=$?"; grep -E "^test |test result" $O/tests.txt | cut -c1-150
