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
# Needs only Xvfb, ImageMagick (import, convert) and awk, and a Vulkan or GL driver
# (mesa-vulkan-drivers gives lavapipe on machines with no GPU).
# Exits non-zero on any failure, saying why.
set -euo pipefail

BIN=${1:-target/release/wavebrot}
FRAMES=${GUI_SMOKE_FRAMES:-240}
[[ -x "$BIN" ]] || { echo "gui_smoke: no executable at $BIN" >&2; exit 1; }
for tool in Xvfb import convert awk; do
    command -v "$tool" >/dev/null || { echo "gui_smoke: $tool is missing (apt-get install -y xvfb imagemagick)" >&2; exit 1; }
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
for _ in $(seq 100); do
    [[ -e /tmp/.X11-unix/X${DISP#:} ]] && break
    sleep 0.1
done
[[ -e /tmp/.X11-unix/X${DISP#:} ]] || { echo "gui_smoke: Xvfb did not start:" >&2; cat "$WORK/xvfb.log" >&2; exit 1; }

# check PNG WHAT: the middle of the picture (where the wave view draws) shows hot colours:
# enough red/orange/yellow pixels, with bright crests and dark troughs.
check() {
    local png=$1 what=$2
    convert "$png" -gravity center -crop 50%x60%+0+0 +repage -depth 8 txt:- | awk -v what="$what" '
        /^#/ { next }
        {
            # "x,y: (r,g,b[,a])  #RRGGBB ..."
            s = $0; sub(/^[^(]*\(/, "", s); sub(/\).*/, "", s)
            split(s, c, ","); r = c[1] + 0; g = c[2] + 0; b = c[3] + 0; n++
            if (r >= 120 && g <= r && b <= 0.6 * r + 10 && r - b >= 60) hot++
            if (r >= 240 && g >= 200) bright++
            if (r <= 110 && g <= 40 && b <= 40) dark++
        }
        END {
            if (n == 0) { print "gui_smoke: " what ": no pixels" > "/dev/stderr"; exit 1 }
            printf "gui_smoke: %s: %d px, hot %.1f%%, bright %.1f%%, dark %.1f%%\n", what, n, 100 * hot / n, 100 * bright / n, 100 * dark / n
            ok = hot / n >= 0.25 && bright / n >= 0.01 && dark / n >= 0.01
            if (!ok) print "gui_smoke: " what " does not show a rippling wave in hot colours" > "/dev/stderr"
            exit ok ? 0 : 1
        }'
}

mkdir -m 700 "$WORK/xdg"
export DISPLAY=$DISP XDG_RUNTIME_DIR=$WORK/xdg
"$BIN" gui --screenshot "$WORK/app.png" --frames "$FRAMES" >"$WORK/app.log" 2>&1 &
APP_PID=$!

# Grab the real X screen (not the app's own picture) until the wave shows, at most 90 s.
seen=""
for _ in $(seq 180); do
    sleep 0.5
    kill -0 "$APP_PID" 2>/dev/null || break
    if import -window root "$WORK/root.png" 2>/dev/null \
        && check "$WORK/root.png" "X screen (import -window root)" >"$WORK/check.txt" 2>&1; then
        cat "$WORK/check.txt"
        seen=1
        break
    fi
done
if [[ -z "$seen" ]]; then
    echo "gui_smoke: the X screen never showed the wave; last check and app output:" >&2
    [[ -s "$WORK/root.png" ]] && check "$WORK/root.png" "X screen (import -window root)" || true
    cat "$WORK/app.log" >&2
    exit 1
fi

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

check "$WORK/app.png" "app screenshot (--screenshot)"
if [[ -n "${GUI_SMOKE_KEEP:-}" ]]; then
    cp "$WORK/root.png" "$GUI_SMOKE_KEEP-root.png"
    cp "$WORK/app.png" "$GUI_SMOKE_KEEP-app.png"
fi
echo "gui_smoke: OK"
