#!/bin/bash
# Stop 38, call F: the final binary (this stop's last code commit): info, verify, bench --quick,
# bench wave (full, every backend, the variants `auto` picks), the surface's tests on NVIDIA's Vulkan.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s38f; mkdir -p $O
for b in wb_final app_surface; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=/tmp/wb_final
$B info > $O/info.txt 2>&1; grep -E "adapter:|scene kernels" $O/info.txt | head -3
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
grep -A2 -E "^wave2d (scene|  nx)" $O/bench_quick.txt | grep -E "^  (wgpu|cuda)" | sed -E "$X" | cut -c1-80
echo "== bench wave (full)"; timeout 200 $B bench wave --file-size 0 > $O/bench_wave.txt 2>&1; echo rc=$?
grep -A3 -E "^wave2d" $O/bench_wave.txt | grep -E "^(wave2d|  (cuda|wgpu|cpu))" | sed -E "$X" | cut -c1-90
echo "== app_surface"; timeout 100 /tmp/app_surface --nocapture > $O/app_surface.txt 2>&1; echo rc=$?; grep -E "test result|panicked|median|^mesh" $O/app_surface.txt | head
