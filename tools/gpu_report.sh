#!/usr/bin/env bash
# The GPU machine's report: wavebrot info, verify and bench beside the seed programs, and every
# test binary carried with it run with --include-ignored and WAVEBROT_REQUIRE_CUDA=1 (the CUDA
# tests that CI can only list as ignored), in one run.
#
# Usage (on the GPU machine, from the repository root, with the release binary carried):
#   bash tools/gpu_report.sh BINARY [bench args...]
# Tests: TEST_BIN_DIR=folder of carried test binaries (or cargo on the machine), TEST_FILTER=cuda
# to run only those; see the tests section below.
# Writes logs and JSON under $OUT (or ./gpu-report). Vulkan loaders and libasound2 carried in .gl/*.deb
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
# The #[ignore]d GPU tests, with CUDA required (a missing CUDA fails each one), each test binary
# run with --include-ignored: carried binaries in $TEST_BIN_DIR (built here with
# `cargo test --release --no-run`; tests that read tests/data need the same checkout path), else
# `cargo test` where cargo exists. $TEST_FILTER (say `cuda`) narrows the tests run.
echo "== tests with CUDA required (WAVEBROT_REQUIRE_CUDA=1, --include-ignored)"
: >"$out/tests.txt"
export WAVEBROT_REQUIRE_CUDA=1 WAVEBROT_SKIP_LOG="$PWD/$out/skips.log"
: >"$WAVEBROT_SKIP_LOG"
if [ -n "${TEST_BIN_DIR:-}" ]; then
  for t in "$TEST_BIN_DIR"/*; do
    # Test binaries only: executables named NAME-HASH (cargo's deps), not libraries or scripts.
    [ -x "$t" ] && [ -f "$t" ] && [[ "$(basename "$t")" =~ ^[a-z_]+-[0-9a-f]{16}$ ]] || continue
    echo "-- $(basename "$t")" >>"$out/tests.txt"
    "$t" --include-ignored --test-threads=1 ${TEST_FILTER:-} >>"$out/tests.txt" 2>&1
  done
elif command -v cargo >/dev/null; then
  cargo test --release --no-fail-fast -- --include-ignored --test-threads=1 ${TEST_FILTER:-} >>"$out/tests.txt" 2>&1
else
  echo "no test binaries (TEST_BIN_DIR) and no cargo: the ignored tests did not run" | tee -a "$out/tests.txt"
fi
passed=$(grep -cE '^test .* \.\.\. ok$' "$out/tests.txt" || true)
failed=$(grep -cE '^test .* \.\.\. FAILED$' "$out/tests.txt" || true)
cuda=$(grep -cE '^test .*cuda.* \.\.\. ok$' "$out/tests.txt" || true)
ignored=$(grep -cE '^test .* \.\.\. ignored' "$out/tests.txt" || true)
skipped=$(wc -l <"$WAVEBROT_SKIP_LOG")
echo "tests: $passed passed ($cuda named cuda), $failed failed, $skipped skipped, $ignored ignored" \
  "(measurements)" | tee -a "$out/tests.txt"
grep -E '^test .* \.\.\. FAILED$' "$out/tests.txt" || true
cat "$WAVEBROT_SKIP_LOG"
if [ -f .peers/peers.py ]; then
  echo "== seed programs (peers.py)"
  PYTHONUNBUFFERED=1 python3 .peers/peers.py 2>&1 | tail -25 | tee "$out/peers.txt"
fi
