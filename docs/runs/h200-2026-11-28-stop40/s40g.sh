#!/bin/bash
# Stop 40, call G: two variants of the rotated layer loop against HEAD (wb_head, 65d4b0e's kernels):
# wb_M reads a layer cell's phi and last difference along an axis only where the cell is in the
# layer along it (2 of 6 reads fewer on most layer cells; the same bits); wb_R keeps the row loop
# rolled (its bound not a constant to the driver: the column's rotation then costs 16 moves a
# row, the binary stays small).
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT; B="wb_head wb_M wb_R"
for b in $B; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "(µs/update; rows: 1000x800, plain 4096², Mur 4096², layer 4096², plain 8192², Mur 8192² | quick: 1000x800, plain 2048², Mur 2048², layer 2048²)"
for b in $B; do timeout 60 /tmp/$b bench wave --quick --backend wgpu --variant blocked > /dev/null 2>&1; done
for round in 1 2; do
  for b in $B; do
    [ $SECONDS -gt 200 ] && break 2
    timeout 90 /tmp/$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_$round.txt 2>&1
    q=$(timeout 40 /tmp/$b bench wave --quick --backend wgpu --variant blocked 2>&1 | tee $O/quick_${b}_$round.txt | grep -A1 -E '^wave2d' | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')
    echo "$b $round: $(grep -A1 -E '^wave2d' $O/full_${b}_$round.txt | grep -E '^  wgpu' | grep -o '[0-9.]* µs/update' | awk '{print $1}' | tr '\n' ' ')| $q; $(grep -o 'max|diff| [0-9.e+-]*' $O/full_${b}_$round.txt $O/quick_${b}_$round.txt | awk '{print $2}' | sort | uniq -c | tr -s ' ' | tr '\n' ' ') (${SECONDS}s)"
  done
done
tar czf $O/rows.tgz $O/*.txt 2>/dev/null; rm -f $O/full_* $O/quick_*
echo "done at ${SECONDS}s"
