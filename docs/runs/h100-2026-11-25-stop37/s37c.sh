#!/bin/bash
# Stop 37, call C: CUDA's Mur scene went 18.5 -> 20.8 µs (4096²) and 63.3 -> 72.0 (8192²) on the
# middle-short tiles (call B). The registers and local memory of the blocked scene kernels for the
# old kernel (wb_oldinfo: call A's wave.cu with the new host, for `info` only), the span passed by
# reference (wb_cuda1, call B's kernel) and the span computed again after the steps from a fresh
# read of the block index (wb_cuda2); then the CUDA wave bench, call A's binary (wb_tile, the old
# CUDA tiles) against wb_cuda1 and wb_cuda2, a warm-up quick run each, two rounds.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s37c; mkdir -p $O
B="wb_tile wb_cuda1 wb_cuda2"
for b in $B wb_oldinfo; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in wb_oldinfo wb_cuda1 wb_cuda2; do echo "$b: $(/tmp/$b info 2>&1 | grep -E 'scene kernels|wave kernel' | sed -E 's/ +/ /g' | cut -c1-200 | tr '\n' ' ')"; done
X='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend cuda --variant blocked > $O/quick_$b.txt 2>&1; echo "warm-up quick $b rc=$?"; done
for r in 1 2; do for b in $B; do
  timeout 100 /tmp/$b bench wave --file-size 0 --backend cuda --variant blocked > $O/full_${b}_r$r.txt 2>&1
  echo "$b r=$r rc=$?: $(grep -A1 -E '^wave2d (scene|  nx=4096|  nx=8192)' $O/full_${b}_r$r.txt | grep -E '^  cuda' | sed -E "$X" | awk '{print $4}' | tr '\n' ' ')"
done; done
echo "(columns: plain 4096, Mur 4096, layer 4096, plain 8192, Mur 8192; µs per update)"
