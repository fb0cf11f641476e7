#!/bin/bash
# Stop 33, call C: layer tiles spread through the dispatch (E) against first (new), wgpu scenes.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s33c; mkdir -p $O
for b in wb_new wb_E; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
for r in 1 2; do for b in wb_new wb_E; do
timeout 60 /tmp/$b bench wave --quick --backend wgpu >> $O/quick_${b}.txt 2>&1; echo "$b quick rc=$?"
timeout 90 /tmp/$b bench wave --file-size 0 --backend wgpu >> $O/full_${b}.txt 2>&1; echo "$b full rc=$?"
grep -A1 -E "^wave2d scene" $O/full_${b}.txt | grep -E "^  wgpu" | tail -3 | sed -E 's/NVIDIA H100 80GB HBM3 +//; s/Gcell.*kernels/kernels/' | cut -c1-100
done; done
