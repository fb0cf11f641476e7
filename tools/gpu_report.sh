#!/usr/bin/env bash
# The GPU machine's report: wavebrot info, verify and bench beside the seed programs, in one run.
#
# Usage (on the GPU machine, from the repository root, with the release binary carried):
#   bash tools/gpu_report.sh BINARY [bench args...]
# Writes logs and JSON under $OUT (or ./gpu-report). Vulkan loaders carried in .gl/*.deb
# (see the device tool's README) are unpacked first so wgpu can find the NVIDIA driver.
set -uo pipefail
bin=${1:?usage: gpu_report.sh BINARY [bench args...]}
shift
out=${OUT:-gpu-report}
mkdir -p "$out"
if compgen -G ".gl/*.deb" >/dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  fi
fi
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee "$out/nvidia-smi.txt"
echo "== wavebrot info"
"$bin" info 2>&1 | tee "$out/info.txt"
echo "== wavebrot verify"
"$bin" verify 2>&1 | tee "$out/verify.txt"
echo "== wavebrot bench $*"
"$bin" bench --json "$out/bench.json" "$@" 2>&1 | tee "$out/bench.txt"
if [ -f .peers/peers.py ]; then
  echo "== seed programs (peers.py)"
  PYTHONUNBUFFERED=1 python3 .peers/peers.py 2>&1 | tail -25 | tee "$out/peers.txt"
fi
