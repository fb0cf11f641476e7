#!/bin/bash
# Stop 42, call F: the layer tiles reading their auxiliary values two layer rows ahead (one
# before): `bench wave --backend wgpu` alternated old (de6678d) / new, three rounds.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=/tmp/o; mkdir -p $O
for b in wb_old wb_new; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "rows µs/update: 1000x800, plain 4096², Mur 4096², layer 4096², plain 8192², Mur 8192², layer 8192² | quick: 1000x800, plain 2048², Mur 2048², layer 2048²"
for round in 1 2 3; do
  for b in wb_old wb_new; do
    [ $SECONDS -gt 400 ] && break 2
    timeout 60 /tmp/$b bench wave --file-size 0 --backend wgpu > $O/full_${b}_$round.txt 2>&1
    q=$(timeout 30 /tmp/$b bench wave --quick --backend wgpu 2>&1 | tee $O/quick_${b}_$round.txt | grep -A1 -E '^wave2d' | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')
    echo "$b $round: $(grep -A1 -E '^wave2d' $O/full_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')| $q; $(grep -o 'max|diff| [0-9.e+-]*' $O/full_${b}_$round.txt $O/quick_${b}_$round.txt | cut -d: -f2 | sort | uniq -c | tr -s ' ' | tr '\n' ' ') (${SECONDS}s)"
  done
done
tar czf $OUT/f.tgz -C $O .
echo "done at ${SECONDS}s"
