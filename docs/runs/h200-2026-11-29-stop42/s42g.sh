#!/bin/bash
# Stop 42, call G: the app (headless, egui_kittest on the H200's Vulkan) on wgpu alone, then with
# CUDA's backend in the same process first, the SM clock sampled every 100 ms: does the app's
# GPU figure see the clocks the bench now settles?
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=/tmp/o; mkdir -p $O
gunzip -c .carry/app_frames.gz > /tmp/app_frames; chmod +x /tmp/app_frames
for run in wgpu cuda,wgpu; do
  tag=$(echo $run | tr , _)
  nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,utilization.gpu --format=csv,noheader -lms 100 > $O/smi_$tag.csv &
  P=$!
  XDG_RUNTIME_DIR=/tmp timeout 150 /tmp/app_frames --backend $run --grid 1024,4096 --steps 10 --frames 200 --warmup 30 > $O/app_$tag.txt 2>&1
  echo "== $run rc=$?"; kill $P; wait $P 2>/dev/null
  grep -E '^\|' $O/app_$tag.txt | head -12
  echo "   sm clocks: $(cut -d, -f3 $O/smi_$tag.csv | sort | uniq -c | sort -rn | head -5 | tr -s ' ' | tr '\n' ' ') util: $(cut -d, -f5 $O/smi_$tag.csv | sort | uniq -c | sort -rn | head -4 | tr -s ' ' | tr '\n' ' ') (${SECONDS}s)"
done
tar czf $OUT/g.tgz -C $O .
echo "done at ${SECONDS}s"
