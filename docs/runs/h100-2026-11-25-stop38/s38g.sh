#!/bin/bash
# Stop 38, call G: (1) wgpu's layer tiles with the layer's rule specialised per tile (wb_spec: the
# top and bottom tiles skip y's phi, the band tiles x's, the same bits) against the final binary
# (wb_final); three rounds alternated after a warm-up each. (2) Where the 3D draw's fixed cost
# goes: a measurement build of the app (`WB_EXP_FS`: the fragment shader without the picture's
# sample, with a texel load instead, or a flat colour); app_frames, wgpu, 1024², two rounds.
# (3) The GPU tests of the wave, scene, layer and blocked-scene families with wb_spec's source.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s38g; mkdir -p $O
B="wb_final wb_spec"
for b in $B af_exp2 kernels; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/warm_$b.txt 2>&1; echo "warm-up $b rc=$?"; done
for round in 1 2 3; do
  for b in $B; do
    timeout 120 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_$round.txt 2>&1
    echo "$b full $round rc=$?: $(grep -A1 -E '^wave2d' $O/full_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')"
    timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > $O/quick_${b}_$round.txt 2>&1
    echo "$b quick $round rc=$?: $(grep -A1 -E '^wave2d' $O/quick_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')"
  done
done
timeout 60 /tmp/af_exp2 --backend wgpu --grid 1024 --view 3d --steps 100 --frames 60 --warmup 10 > /dev/null 2>&1
for round in 1 2; do
  for fs in sample nosample load flat; do
    WB_EXP_FS=$fs timeout 100 /tmp/af_exp2 --backend wgpu --grid 1024 --view 2d,3d --steps 100 --frames 300 --warmup 30 > $O/fs_${fs}_$round.txt 2>&1
    echo "fs $fs round $round rc=$?: $(grep -E '^\| wgpu' $O/fs_${fs}_$round.txt | cut -d'|' -f4,6,16 | tr '\n' ' ')"
  done
done
mkdir -p target/release; cp /tmp/wb_spec target/release/wavebrot
echo "== GPU tests (wb_spec's source)"
WAVEBROT_REQUIRE_CUDA=1 timeout 240 /tmp/kernels --include-ignored wave:: scene pml --skip cli_ --skip sponge_scan --skip scene_blocked::cost > $O/tests.txt 2>&1; echo rc=$?
grep -E "test result|FAILED|panicked" $O/tests.txt | head
