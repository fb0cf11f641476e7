#!/bin/bash
# Stop 42, call H: HEAD's release binary: wavebrot verify, bench --quick (every suite, every
# backend), bench wave --file-size 0 (wgpu and CUDA).
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
O=/tmp/o; mkdir -p $O
gunzip -c .carry/wb_new.gz > /tmp/wb; chmod +x /tmp/wb
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== verify"; timeout 240 /tmp/wb verify > $O/verify.txt 2>&1; echo "rc=$? FAIL=$(grep -c FAIL $O/verify.txt) ok=$(grep -c '^ok' $O/verify.txt)"; grep -m3 -E 'NVIDIA' $O/verify.txt | cut -c1-160; tail -3 $O/verify.txt | cut -c1-160
echo "== bench --quick at ${SECONDS}s"; timeout 150 /tmp/wb bench --quick > $O/bench_quick.txt 2>&1; echo "rc=$? $(grep -c 'Check result: OK!' $O/bench_quick.txt) x OK, $(grep -c MISMATCH $O/bench_quick.txt) mismatch"
echo "== bench wave --file-size 0 --backend wgpu --backend cuda at ${SECONDS}s"; timeout 150 /tmp/wb bench wave --file-size 0 --backend wgpu --backend cuda > $O/bench_wave.txt 2>&1; echo rc=$?
grep -E '^wave2d|^  (wgpu|cuda)' $O/bench_wave.txt | sed -E 's/ +effective.*//; s/ +[0-9.]+ Gcell\/s//' | cut -c1-150; tail -1 $O/bench_wave.txt
tar czf $OUT/h.tgz -C $O .
echo "done at ${SECONDS}s"
