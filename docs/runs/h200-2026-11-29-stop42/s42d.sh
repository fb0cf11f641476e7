#!/bin/bash
# Stop 42, call D: why the 8192² wgpu rows swing between calls (108-243 µs plain, 126-665 Mur):
# the GPU's performance state and clocks sampled every 100 ms while `bench wave --file-size 0`
# runs with wgpu alone, then with wgpu and CUDA in one process, then wgpu alone again.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=/tmp/o; mkdir -p $O
gunzip -c .carry/wb_new.gz > /tmp/wb; chmod +x /tmp/wb
nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.max.sm,clocks.max.mem --format=csv,noheader
rows() { grep -A2 -E '^wave2d( scene)?  nx=8192' $1 | grep -E '^  (wgpu|cuda)' | grep -o '[a-z/]*  *NVIDIA H200 .*µs/update' | sed -E 's/NVIDIA H200 +//; s/ +[0-9.]+ ms +/ /' | tr '\n' ';'; }
for run in wgpu_1 both_1 wgpu_2 both_2; do
  nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,power.draw,utilization.gpu --format=csv,noheader -lms 100 > $O/smi_$run.csv &
  P=$!
  case $run in wgpu*) args="--backend wgpu";; *) args="--backend wgpu --backend cuda";; esac
  timeout 120 /tmp/wb bench wave --file-size 0 $args > $O/bench_$run.txt 2>&1
  kill $P; wait $P 2>/dev/null
  echo "$run: $(rows $O/bench_$run.txt)"
  echo "   states: $(cut -d, -f2 $O/smi_$run.csv | sort | uniq -c | tr -s ' ' | tr '\n' ' ') mem clocks: $(cut -d, -f4 $O/smi_$run.csv | sort | uniq -c | tr -s ' ' | tr '\n' ' ') sm clocks (top): $(cut -d, -f3 $O/smi_$run.csv | sort | uniq -c | sort -rn | head -3 | tr -s ' ' | tr '\n' ' ') (${SECONDS}s)"
done
tar czf $OUT/d.tgz -C $O .
echo "done at ${SECONDS}s"
