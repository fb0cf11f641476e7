#!/bin/bash
# Stop 33, call D: where the wgpu layer tiles' time goes (diagnostic builds, wrong bits on purpose):
# F1 scene rule instead of pml_rule; F2 pml_rule's products without the tie path; F3 no scratch traffic.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s33d; mkdir -p $O
for b in wb_new wb_F1 wb_F2 wb_F3; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
for b in wb_new wb_F1 wb_F2 wb_F3; do
timeout 80 /tmp/$b bench wave --file-size 0 --backend wgpu > $O/full_${b}.txt 2>&1; echo "$b rc=$?"
grep -A1 -E "^wave2d scene" $O/full_${b}.txt | grep -E "^  wgpu" | sed -E 's/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/' | cut -c1-120
done
