#!/bin/bash
# Stop 38, call C: CUDA's layer tiles with their auxiliary values in a global scratch instead of
# registers: wb_s2 (__launch_bounds__(256, 2)), wb_s3 (256, 3), against wb_base (registers, 251 a
# thread): `bench wave --backend cuda` (full), two rounds alternated after a warm-up; registers;
# the CUDA GPU tests of the layer and scene families with wb_s2's source.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s38c; mkdir -p $O
B="wb_base wb_s2 wb_s3"
for b in $B kernels; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in $B; do /tmp/$b info 2>&1 | grep -E "scene kernels"; done
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend cuda --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; grep -A1 -E "^wave2d scene" $O/quick_$b.txt | grep -E "^  cuda" | sed -E "$X" | cut -c1-75; done
for round in 1 2; do
  for b in $B; do
    timeout 120 /tmp/$b bench wave --file-size 0 --backend cuda --variant blocked > $O/full_${b}_$round.txt 2>&1
    echo "$b round $round rc=$?"; grep -A1 -E "^wave2d" $O/full_${b}_$round.txt | grep -E "^(wave2d|  cuda)" | sed -E "$X" | cut -c1-90
  done
done
mkdir -p target/release; cp /tmp/wb_s2 target/release/wavebrot
echo "== GPU tests (wb_s2's source)"
WAVEBROT_REQUIRE_CUDA=1 timeout 240 /tmp/kernels --include-ignored pml_cuda scene --skip cli_ --skip sponge_scan --skip scene_blocked::cost > $O/tests.txt 2>&1; echo rc=$?
grep -E "test result|FAILED|panicked" $O/tests.txt | head; grep -E "echo|returns" $O/tests.txt | head -8
