#!/usr/bin/env bash
# Builds wavebrot for the browser into target/web/: index.html, the wasm module and its JS glue
# (wasm-bindgen), an icon and a web-app manifest. Any static host serves it, for example:
#   bash tools/web/build.sh && python3 -m http.server -d target/web 8080   # then open localhost:8080
#
# Needs the wasm32-unknown-unknown target (added with rustup where it is missing) and
# wasm-bindgen-cli at the lockfile's wasm-bindgen version, installed from crates.io into
# target/tools on first use (about 10 minutes on 2 cores; kept after that). wasm-opt is used
# when it is on PATH (not needed).
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${CARGO_TARGET_DIR:-target}
mkdir -p "$target"
target=$(cd "$target" && pwd)

if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

# The wasm-bindgen the module is built with and the CLI that writes its glue must be the same version.
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$version" ] || { echo "error: no wasm-bindgen in Cargo.lock" >&2; exit 1; }
bindgen="$target/tools/bin/wasm-bindgen"
if ! "$bindgen" --version 2>/dev/null | grep -q " $version\$"; then
  echo "== installing wasm-bindgen-cli $version from crates.io into $target/tools"
  # Without its default TLS features: the CLI only writes glue here, it never downloads.
  cargo install wasm-bindgen-cli --version "$version" --no-default-features --root "$target/tools" --quiet
fi

echo "== cargo build -p wavebrot-web --release --target wasm32-unknown-unknown"
cargo build -p wavebrot-web --release --target wasm32-unknown-unknown
wasm="$target/wasm32-unknown-unknown/release/wavebrot_web.wasm"

out="$target/web"
rm -rf "$out"
mkdir -p "$out"
"$bindgen" --target web --no-typescript --out-dir "$out" --out-name wavebrot "$wasm"
if command -v wasm-opt >/dev/null; then
  wasm-opt -O2 --enable-bulk-memory --enable-nontrapping-float-to-int "$out/wavebrot_bg.wasm" -o "$out/wavebrot_bg.wasm"
fi
cp web/index.html web/manifest.json "$out/"
cp packaging/wavebrot.png "$out/icon.png"
echo "== target/web: $(du -b "$out/wavebrot_bg.wasm" | cut -f1) bytes of wasm; serve the folder and open index.html"
