#!/bin/bash
# Stop 37, call D: wb_cuda3, tile_in_registers computing everything its stores need again after
# the steps (the span, the thread's first cell, the float2 test) from a fresh read of the block
# index: its registers and local memory, the CUDA wave bench against call A's binary (wb_tile, the
# old CUDA tiles) and call B's (wb_cuda1), a warm-up quick run each, two rounds; then its verify,
# bench --quick and the GPU tests of the wave, scene, layer and blocked-scene families.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s37d; mkdir -p $O
B="wb_tile wb_cuda1 wb_cuda3"
for b in $B kernels_v3; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "wb_cuda3: $(/tmp/wb_cuda3 info 2>&1 | grep -E 'scene kernels|wave kernel:' | sed -E 's/ +/ /g' | cut -c1-170 | tr '\n' ' ')"
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend cuda --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; done
for r in 1 2; do for b in $B; do
  timeout 100 /tmp/$b bench wave --file-size 0 --backend cuda --variant blocked > $O/full_${b}_r$r.txt 2>&1
  echo "$b r=$r rc=$?: $(grep -A1 -E '^wave2d (scene|  nx=4096|  nx=8192)' $O/full_${b}_r$r.txt | grep -E '^  cuda' | sed -E "$X" | awk '{for(i=1;i<=NF;i++) if($i=="µs/update") print $(i-1)}' | tr '\n' ' ')"
done; done
echo "(columns: plain 4096, Mur 4096, layer 4096, plain 8192, Mur 8192; µs per update)"
B=/tmp/wb_cuda3
echo "== verify"; timeout 200 $B verify > $O/verify.txt 2>&1; echo "verify rc=$? FAIL-lines=$(grep -c FAIL $O/verify.txt)"; tail -2 $O/verify.txt | cut -c1-200
echo "== bench --quick"; timeout 150 $B bench --quick > $O/bench_quick.txt 2>&1; echo rc=$?; grep -E "Check result" $O/bench_quick.txt | sort | uniq -c
grep -A2 -E "^wave2d (scene|  nx)" $O/bench_quick.txt | grep -E "^  (wgpu|cuda)" | sed -E "$X" | cut -c1-80
mkdir -p target/release && cp $B target/release/wavebrot
echo "== GPU tests"; WAVEBROT_REQUIRE_CUDA=1 timeout 240 /tmp/kernels_v3 --include-ignored --test-threads=4 wave:: scene pml --skip cli_ --skip sponge_scan --skip scene_blocked::cost > $O/tests.txt 2>&1; echo rc=$?; grep -E "FAILED|test result|panicked" $O/tests.txt | head
