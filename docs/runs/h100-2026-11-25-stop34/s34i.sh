#!/bin/bash
# Stop 34, call I: the plain blocked-workgroup kernel without zeroing its workgroup memory (B5: wgpu compile; B4: SPIR-V made here with NoContraction), beside the final binary.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s34i; mkdir -p $O
for b in wb_final34 wb_B4 wb_B5; do gunzip -c .carry/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S='s/NVIDIA H100 80GB HBM3 +//; s/Gcell.*max/max/'
for r in 1 2; do for b in wb_final34 wb_B4 wb_B5; do
timeout 80 /tmp/$b bench wave --file-size 0 --backend wgpu >> $O/wave_${b}.txt 2>&1; echo "$b rc=$?"
grep -A1 -E "^wave2d  nx=(4096|8192)" $O/wave_${b}.txt | grep -E "^  wgpu" | tail -2 | sed -E "$S" | cut -c1-100
done; done
