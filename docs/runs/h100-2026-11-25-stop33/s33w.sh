#!/bin/bash
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=$OUT/s33w2; mkdir -p $O
for b in B C D; do gunzip -c .carry/wavebrot_$b.gz > /tmp/wb_$b; chmod +x /tmp/wb_$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do for b in B C D; do
timeout 60 /tmp/wb_$b bench wave --quick --backend wgpu --variant blocked > $O/quick_${b}_$r.txt 2>&1; echo "$b quick rc=$?"
timeout 90 /tmp/wb_$b bench wave --file-size 0 --backend wgpu --variant blocked > $O/full_${b}_$r.txt 2>&1; echo "$b full rc=$?"
done; done
