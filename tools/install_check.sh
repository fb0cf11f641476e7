#!/usr/bin/env bash
# The doorway, as a newcomer meets it (issue 42), on a clean machine; run by .ci/run after the
# tests, with the release binary already built:
#   1. the binary needs nothing a plain Debian lacks: readelf -d lists only libc's libraries;
#   2. `cargo install --path . --root DIR` gives a wavebrot that works from an empty folder
#      (bundled locations and presets by name; a wrong name lists the names);
#   3. tools/dist.sh makes the archive (checked: it holds what INSTALL.txt names) and the .deb;
#   4. the .deb installs with dpkg -i (twice), works from an empty folder (--version, info, a wave
#      and a Mandelbrot render, man page, completions, desktop entry), and dpkg -r leaves nothing.
# Needs cargo-deb (installed here if missing, from crates.io) and root for dpkg.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
target=${CARGO_TARGET_DIR:-target}
target=$(cd "$target" && pwd)
fail() { echo "install_check: FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "-- 1. what the binary needs"
needed=$(readelf -d "$target/release/wavebrot" | awk '/NEEDED/ {gsub(/[][]/, "", $5); print $5}')
echo "$needed" | sed 's/^/   NEEDED /'
for lib in $needed; do
  case "$lib" in
    libc.so.6 | libm.so.6 | libgcc_s.so.1 | ld-linux-x86-64.so.2 | libdl.so.2 | libpthread.so.0 | librt.so.1) ;;
    *) fail "the binary needs $lib, which a plain Debian install may lack (load it at run time)" ;;
  esac
done

echo "-- 2. cargo install --path . --root DIR, run from an empty folder"
# The same target folder: the install reuses the release build instead of building again.
CARGO_TARGET_DIR=$target cargo install --quiet --locked --path . --root "$work/root"
mkdir "$work/empty" && cd "$work/empty"
w="$work/root/bin/wavebrot"
"$w" render mandelbrot --location rfc-1e50 --width 64 --height 36 --png x.png 2>/dev/null
"$w" render wave --preset double-slit --tmax 100 --png w.png 2>/dev/null
[ -s x.png ] && [ -s w.png ] || fail "the installed binary wrote no pictures"
set +e
msg=$("$w" render mandelbrot --location no-such-place --png y.png 2>&1)
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a wrong location name exited $rc, not 2"
echo "$msg" | grep -q "rfc-1e50" || fail "a wrong location name does not list the bundled names: $msg"
[ "$(echo "$msg" | wc -l)" -eq 1 ] || fail "a wrong location name took more than one line: $msg"
"$w" locations | grep -q "^rfc-5e113 " || fail "wavebrot locations does not list rfc-5e113"
cd "$repo"

echo "-- 3. tools/dist.sh: the archive and the package"
cargo deb --version >/dev/null 2>&1 || env -u PKG_CONFIG cargo install --quiet --locked cargo-deb
bash tools/dist.sh >/dev/null
version=$("$target/release/wavebrot" -V | awk '{print $2}')
archive="$target/dist/wavebrot-$version-$(uname -m)-linux.tar.gz"
[ -s "$archive" ] || fail "no archive at $archive"
listing=$(tar tzf "$archive")
for f in wavebrot README.md LICENSE-MIT LICENSE-APACHE INSTALL.txt share/man/man1/wavebrot.1 \
  share/man/man1/wavebrot-render-wave.1 share/completions/wavebrot.bash share/completions/_wavebrot \
  share/completions/wavebrot.fish share/applications/wavebrot.desktop share/icons/wavebrot.png; do
  echo "$listing" | grep -qx "wavebrot-$version-$(uname -m)-linux/$f" || fail "the archive lacks $f"
done
echo "   archive: $(basename "$archive"), $(echo "$listing" | wc -l) entries, $(du -h "$archive" | cut -f1)"
deb=$(ls "$target"/dist/wavebrot_*.deb)
dpkg-deb -f "$deb" Depends Recommends | sed 's/^/   /'
depends=$(dpkg-deb -f "$deb" Depends)
for d in $(echo "$depends" | tr ',' '\n' | sed -E 's/\(.*\)//; s/ //g'); do
  case "$d" in libc6 | libgcc-s1) ;; *) fail "the package depends on $d (only libc is hard)" ;; esac
done

echo "-- 4. dpkg -i (twice), run from an empty folder, dpkg -r"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
before=$(mktemp)
find /usr -xdev 2>/dev/null | sort >"$before"
$SUDO dpkg -i "$deb" >/dev/null
$SUDO dpkg -i "$deb" >/dev/null
mkdir "$work/empty2" && cd "$work/empty2"
/usr/bin/wavebrot --version | grep -q "^commit: " || fail "wavebrot --version names no commit"
/usr/bin/wavebrot info >/dev/null 2>&1 || fail "wavebrot info failed"
/usr/bin/wavebrot render wave --preset double-slit --tmax 100 --png w.png 2>/dev/null
/usr/bin/wavebrot render mandelbrot --location seahorse-valley --width 96 --height 64 --png m.png 2>/dev/null
[ -s w.png ] && [ -s m.png ] || fail "the installed package wrote no pictures"
for f in /usr/share/applications/wavebrot.desktop /usr/share/icons/hicolor/256x256/apps/wavebrot.png \
  /usr/share/bash-completion/completions/wavebrot /usr/share/zsh/vendor-completions/_wavebrot \
  /usr/share/fish/vendor_completions.d/wavebrot.fish; do
  [ -s "$f" ] || fail "the package did not install $f"
done
ls /usr/share/man/man1/wavebrot.1* >/dev/null 2>&1 || fail "the package did not install the man page"
cd "$repo"
$SUDO dpkg -r wavebrot >/dev/null
after=$(mktemp)
find /usr -xdev 2>/dev/null | sort >"$after"
left=$(comm -13 "$before" "$after" | grep -i wavebrot || true)
[ -z "$left" ] || fail "dpkg -r left behind: $left"
command -v wavebrot >/dev/null && [ "$(command -v wavebrot)" = /usr/bin/wavebrot ] && fail "/usr/bin/wavebrot is still there"
rm -f "$before" "$after"
echo "install_check: OK (readelf, cargo install, archive, .deb installed twice, run, removed)"
