#!/bin/bash
# Stop 38, call E: wgpu's band tiles (layer tiles whose rows are clear of the layer and whose
# columns reach one side's band) with each warp taking the band's cells in every other row
# (wb_band) against wb_base: `bench wave --backend wgpu --variant blocked` (full) and `bench wave
# --quick`, three rounds alternated after a warm-up each; the blocked-scene cost measurement; the
# GPU tests of the wave, scene, layer and blocked-scene families with wb_band's source.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s38e; mkdir -p $O
B="wb_base wb_band"
for b in $B kernels; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/warm_$b.txt 2>&1; echo "warm-up $b rc=$?"; done
for round in 1 2 3; do
  for b in $B; do
    timeout 120 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_$round.txt 2>&1
    echo "$b full $round rc=$?: $(grep -A1 -E '^wave2d' $O/full_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')"
    timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick_${b}_$round.txt 2>&1
    echo "$b quick $round rc=$?: $(grep -A1 -E '^wave2d' $O/quick_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')"
  done
done
mkdir -p target/release; cp /tmp/wb_band target/release/wavebrot
echo "== cost"; timeout 150 /tmp/kernels --ignored scene_blocked::cost --nocapture > $O/cost.txt 2>&1; echo rc=$?; grep -v -E "^(running|test |$)" $O/cost.txt | head -12
echo "== GPU tests (wb_band's source)"
WAVEBROT_REQUIRE_CUDA=1 timeout 240 /tmp/kernels --include-ignored wave:: scene pml --skip cli_ --skip sponge_scan --skip scene_blocked::cost > $O/tests.txt 2>&1; echo rc=$?
grep -E "test result|FAILED|panicked" $O/tests.txt | head
