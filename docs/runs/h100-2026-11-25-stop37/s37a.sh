#!/bin/bash
# Stop 37, call A: the middle tile short (tiles from both ends, so the far layer lies in one tile
# row and column: 340 layer tiles at 4096² instead of 507) against stop 36's final binary (base),
# a warm-up quick run each, then two rounds of the full wgpu wave bench; the cost measurement
# (512²-2048², blocked against one update a dispatch: `auto`'s layer share) and the blocked-scene
# and layer GPU tests of the new binary.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s37a; mkdir -p $O
B="wb_base wb_tile"
for b in $B kernels_tile; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; done
for r in 1 2; do for b in $B; do
  timeout 100 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_r$r.txt 2>&1
  echo "$b r=$r rc=$?"
  grep -A1 -E "^wave2d (scene|  nx=4096)" $O/full_${b}_r$r.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75
done; done
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick2_$b.txt 2>&1; echo "quick $b rc=$?"; grep -A1 -E "^wave2d scene" $O/quick2_$b.txt | grep -E "^  wgpu" | sed -E "$X" | cut -c1-75; done
mkdir -p target/release && cp /tmp/wb_tile target/release/wavebrot
echo "== cost (new)"; timeout 120 /tmp/kernels_tile --ignored scene_blocked::cost --nocapture > $O/cost.txt 2>&1; echo rc=$?; grep -E "µs" $O/cost.txt
echo "== GPU tests (new)"; WAVEBROT_REQUIRE_CUDA=1 timeout 150 /tmp/kernels_tile --include-ignored --test-threads=4 scene_blocked pml --skip cli_ --skip scene_blocked::cost > $O/tests.txt 2>&1; echo rc=$?; grep -E "FAILED|test result|panicked" $O/tests.txt | head
