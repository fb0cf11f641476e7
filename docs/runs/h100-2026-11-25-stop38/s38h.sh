#!/bin/bash
# Stop 38, call H: the last code commit (a vertex's mean height reads at most 8 x 8 texels; the
# stripes test): the surface's tests on NVIDIA's Vulkan; app_frames 2D and 3D at 1024² beside call
# A's binary (af_a, 82b597c), two rounds alternated; verify and bench --quick.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s38h; mkdir -p $O
for b in wb_h af_h af_a app_surface; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== app_surface"; timeout 100 /tmp/app_surface --nocapture > $O/app_surface.txt 2>&1; echo rc=$?; grep -E "test result|panicked|median|^mesh" $O/app_surface.txt | head
for b in af_a af_h; do timeout 60 /tmp/$b --backend wgpu --grid 1024 --view 3d --steps 100 --frames 60 --warmup 10 > /dev/null 2>&1; done
for round in 1 2; do
  for b in af_a af_h; do
    timeout 150 /tmp/$b --backend cuda,wgpu --grid 1024 --view 2d,3d --steps 100 --frames 300 --warmup 30 > $O/app_${b}_$round.txt 2>&1
    echo "== $b round $round rc=$?"; grep -E "^\| (cuda|wgpu)" $O/app_${b}_$round.txt | cut -d'|' -f2,4,6,16
  done
done
B=/tmp/wb_h
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
grep -A2 -E "^wave2d (scene|  nx)" $O/bench_quick.txt | grep -E "^  (wgpu|cuda)" | sed -E "$X" | cut -c1-80
