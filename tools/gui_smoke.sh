#!/usr/bin/env bash
# Smoke test of the real app window under Xvfb.
#
#   tools/gui_smoke.sh [BINARY]        (default: target/release/wavebrot)
#
# Starts `BINARY gui --screenshot FILE --frames N` on a private Xvfb display, grabs the whole
# X screen with ImageMagick's `import -window root` while the window is up, lets the app save
# its own viewport screenshot and close itself, then checks that:
#   - the app exited with status 0 and wrote its screenshot,
#   - both pictures show the wave in `hot` colours: enough red/orange/yellow pixels, with
#     bright crests and dark troughs (so it is a ripple, not a flat fill).
# Needs: Xvfb, ImageMagick (import), xdotool, python3 with Pillow or ImageMagick's convert,
# and a Vulkan or GL driver (mesa-vulkan-drivers gives lavapipe on machines with no GPU).
# Exits non-zero on any failure, saying why.
set -euo pipefail

BIN=${1:-target/release/wavebrot}
FRAMES=${GUI_SMOKE_FRAMES:-90}
[[ -x "$BIN" ]] || { echo "gui_smoke: no executable at $BIN" >&2; exit 1; }
for tool in Xvfb import xdotool convert python3; do
    command -v "$tool" >/dev/null || { echo "gui_smoke: $tool is missing (apt-get install -y xvfb imagemagick xdotool)" >&2; exit 1; }
done

WORK=$(mktemp -d)
XVFB_PID=""
APP_PID=""
cleanup() {
    [[ -n "$APP_PID" ]] && kill "$APP_PID" 2>/dev/null || true
    [[ -n "$XVFB_PID" ]] && kill "$XVFB_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# A free display number.
DISP=""
for n in $(seq 90 140); do
    if [[ ! -e /tmp/.X$n-lock && ! -e /tmp/.X11-unix/X$n ]]; then DISP=":$n"; break; fi
done
[[ -n "$DISP" ]] || { echo "gui_smoke: no free X display number" >&2; exit 1; }
Xvfb "$DISP" -screen 0 1280x800x24 -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
XVFB_PID=$!
for _ in $(seq 50); do
    DISPLAY=$DISP xdotool getdisplaygeometry >/dev/null 2>&1 && break
    sleep 0.1
done
DISPLAY=$DISP xdotool getdisplaygeometry >/dev/null 2>&1 || { echo "gui_smoke: Xvfb did not start:" >&2; cat "$WORK/xvfb.log" >&2; exit 1; }

mkdir -m 700 "$WORK/xdg"
export DISPLAY=$DISP XDG_RUNTIME_DIR=$WORK/xdg
"$BIN" gui --screenshot "$WORK/app.png" --frames "$FRAMES" >"$WORK/app.log" 2>&1 &
APP_PID=$!

# Wait for the window, then grab the real screen while the app runs.
found=""
for _ in $(seq 300); do
    if xdotool search --name '^wavebrot$' >/dev/null 2>&1; then found=1; break; fi
    kill -0 "$APP_PID" 2>/dev/null || break
    sleep 0.1
done
if [[ -z "$found" ]]; then
    echo "gui_smoke: no wavebrot window appeared; app output:" >&2
    cat "$WORK/app.log" >&2
    exit 1
fi
sleep 3
import -window root "$WORK/root.png" || { echo "gui_smoke: import -window root failed" >&2; exit 1; }

# The app saves its own screenshot and closes itself; give it at most 120 s.
rc=0
for _ in $(seq 1200); do
    kill -0 "$APP_PID" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$APP_PID" 2>/dev/null; then
    echo "gui_smoke: the app did not close itself within 120 s; output:" >&2
    cat "$WORK/app.log" >&2
    exit 1
fi
wait "$APP_PID" || rc=$?
APP_PID=""
if [[ $rc -ne 0 ]]; then
    echo "gui_smoke: the app exited with status $rc; output:" >&2
    cat "$WORK/app.log" >&2
    exit 1
fi
[[ -s "$WORK/app.png" ]] || { echo "gui_smoke: the app wrote no screenshot" >&2; exit 1; }

# Hot colours in the middle of the window (where the wave view draws).
check() {
    local png=$1 what=$2
    convert "$png" -gravity center -crop 50%x60%+0+0 +repage -depth 8 rgb:"$WORK/px.rgb"
    python3 - "$WORK/px.rgb" "$what" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
n = len(data) // 3
hot = bright = dark = 0
for k in range(0, n * 3, 3):
    r, g, b = data[k], data[k + 1], data[k + 2]
    if r >= 120 and g <= r and b <= 0.6 * r + 10 and (r - b) >= 60:
        hot += 1
    if r >= 240 and g >= 200:
        bright += 1
    if r <= 110 and g <= 40 and b <= 40:
        dark += 1
print(f"gui_smoke: {sys.argv[2]}: {n} px, hot {100 * hot / n:.1f}%, bright {100 * bright / n:.1f}%, dark {100 * dark / n:.1f}%")
ok = n > 0 and hot / n >= 0.25 and bright / n >= 0.01 and dark / n >= 0.01
if not ok:
    print(f"gui_smoke: {sys.argv[2]} does not show a rippling wave in hot colours", file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}
check "$WORK/root.png" "X screen (import -window root)"
check "$WORK/app.png" "app screenshot (--screenshot)"
if [[ -n "${GUI_SMOKE_KEEP:-}" ]]; then
    cp "$WORK/root.png" "$GUI_SMOKE_KEEP-root.png"
    cp "$WORK/app.png" "$GUI_SMOKE_KEEP-app.png"
fi
echo "gui_smoke: OK"
