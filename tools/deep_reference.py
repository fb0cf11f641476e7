#!/usr/bin/env python3
"""Independent escape counts of deep-zoom Mandelbrot pixels, iterated directly in MPFR (gmpy2).

wavebrot's perturbation counts (src/sim/perturb.rs and its CUDA and WGSL twins) are tested
against this script: another library (MPFR through gmpy2, not the astro-float crate the
reference orbit uses) and its own view -> pixel mapping, written from DESIGN.md alone:

    bounds  RE +- (2/zoom)*(width/height)/2,  IM +- 1/zoom
    px = (maxx - minx)/width, py = (maxy - miny)/height
    pixel (row y, col x) has c = (minx + x*px) + i*(miny + y*py), row 0 at miny
    z_0 = 0, z_{k+1} = z_k^2 + c; the count is the first k in 0..iters with |z_{k+1}|^2 >= 4,
    else iters.

Usage:
    deep_reference.py --re RE --im IM --zoom Z --iters N --width W --height H \
        [--pixels x,y x,y ...] [--samples K] [--bits B] [--jobs J]
    deep_reference.py --location FILE.toml ...   (wavebrot's TOML: re, im, zoom, iters)

Prints one JSON object: {"bits": B, "pixels": [[x, y, count], ...]}. --samples K picks K
pixels spread over the image (the four corners, the centre, then a fixed pseudo-random set).

With --distance, each escaped pixel's entry is [x, y, count, distance, ux, uy]: the derivative
dz_{k+1} = 2 z_k dz_k + 1 (dz_0 = 0) iterated beside z, the orbit taken on past the escape for at
most 32 more iterations until |z|^2 >= 65536 (the radius of wavebrot's smooth value), then the
exterior distance estimate |z| ln|z| / |dz| in pixels (of width px) and the unit vector of z / dz,
all in MPFR; a pixel that never escaped keeps [x, y, iters].
Exit 3 with one line when gmpy2 is missing.
"""

import argparse
import json
import math
import multiprocessing
import random
import re
import sys

try:
    import gmpy2
    from gmpy2 import mpfr
except ImportError:  # pragma: no cover - reported to the caller
    print("deep_reference.py needs gmpy2 (pip install gmpy2; see tools/requirements-ci.txt)", file=sys.stderr)
    sys.exit(3)


def prec(bits):
    """A context manager computing in `bits` of precision (gmpy2 2.2+, and older)."""
    if hasattr(gmpy2, "local_context") and not hasattr(gmpy2.context(), "__enter__"):
        return gmpy2.local_context(gmpy2.context(precision=bits))
    return gmpy2.context(gmpy2.get_context(), precision=bits)


def read_location(path):
    """re, im, zoom (strings) and iters from a wavebrot location TOML (only the keys needed)."""
    vals = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'\s*(re|im|zoom|iters)\s*=\s*"?([^"#\s]+)"?', line)
            if m:
                vals[m.group(1)] = m.group(2)
    return vals["re"], vals["im"], vals["zoom"], int(vals["iters"])


def place_bits(decimal):
    """Bits below the unit that the last digit of `decimal` reaches ("1.25" -> 7, "3e-5" -> 17)."""
    m = re.fullmatch(r"\s*[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?\s*", decimal)
    if not m:
        raise SystemExit(f"not a decimal: {decimal!r}")
    last_place = int(m.group(3) or 0) - len(m.group(2) or "")
    return max(0, math.ceil(-last_place * math.log2(10)))


def precision_bits(re_s, im_s, zoom, height):
    """Bits for the pixels' c: the zoom's and the image's, or every digit of the centre where it
    has more (a view zoomed out from a point given to its last digit), and 128 more for the long
    orbits."""
    with prec(128):
        zbits = max(0.0, float(gmpy2.log2(mpfr(zoom))))
    view = zbits + math.log2(max(height, 1)) + 4
    return int(math.ceil(max(view, place_bits(re_s), place_bits(im_s)) + 128))


def pixel_c(re_s, im_s, zoom_s, width, height, x, y, bits):
    """c of pixel (x, y) as DESIGN.md defines it, computed in `bits`."""
    with prec(bits):
        cre, cim, zoom = mpfr(re_s), mpfr(im_s), mpfr(zoom_s)
        half_h = 1 / zoom
        half_w = (2 / zoom) * (mpfr(width) / height) / 2
        minx, maxx = cre - half_w, cre + half_w
        miny, maxy = cim - half_h, cim + half_h
        px = (maxx - minx) / width
        py = (maxy - miny) / height
        return minx + x * px, miny + y * py


def count(args):
    """The direct escape count of one pixel."""
    re_s, im_s, zoom_s, width, height, iters, bits, x, y = args[:9]
    if len(args) > 9 and args[9]:
        return distance(args[:9])
    cr, ci = pixel_c(re_s, im_s, zoom_s, width, height, x, y, bits)
    with prec(bits):
        zr = mpfr(0)
        zi = mpfr(0)
        zr2 = mpfr(0)
        zi2 = mpfr(0)
        four = mpfr(4)
        for k in range(iters):
            zi = 2 * zr * zi + ci
            zr = zr2 - zi2 + cr
            zr2 = zr * zr
            zi2 = zi * zi
            if zr2 + zi2 >= four:
                return [x, y, k]
        return [x, y, iters]


def distance(args):
    """The count, distance estimate in pixels and normal of one pixel (see --distance)."""
    re_s, im_s, zoom_s, width, height, iters, bits, x, y = args
    cr, ci = pixel_c(re_s, im_s, zoom_s, width, height, x, y, bits)
    with prec(bits):
        zoom = mpfr(zoom_s)
        px = ((2 / zoom) * (mpfr(width) / height)) / width
        zr, zi, dr, di = mpfr(0), mpfr(0), mpfr(0), mpfr(0)
        escaped = None
        for k in range(iters):
            dr, di = 2 * (zr * dr - zi * di) + 1, 2 * (zr * di + zi * dr)
            zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
            if zr * zr + zi * zi >= 4:
                escaped = k
                break
        if escaped is None:
            return [x, y, iters]
        for _ in range(32):
            if zr * zr + zi * zi >= 65536:
                break
            dr, di = 2 * (zr * dr - zi * di) + 1, 2 * (zr * di + zi * dr)
            zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        mag = gmpy2.sqrt(zr * zr + zi * zi)
        dmag = gmpy2.sqrt(dr * dr + di * di)
        d = mag * gmpy2.log(mag) / dmag / px
        ur, ui = zr * dr + zi * di, zi * dr - zr * di
        norm = gmpy2.sqrt(ur * ur + ui * ui)
        return [x, y, escaped, float(d), float(ur / norm), float(ui / norm)]


def sample_pixels(width, height, k):
    """k pixels: the corners, the centre, then a fixed pseudo-random set (no repeats)."""
    fixed = [(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1), (width // 2, height // 2)]
    out = []
    for p in fixed:
        if p not in out:
            out.append(p)
    rng = random.Random(20261124)
    while len(out) < min(k, width * height):
        p = (rng.randrange(width), rng.randrange(height))
        if p not in out:
            out.append(p)
    return out[:k]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--location")
    ap.add_argument("--re")
    ap.add_argument("--im")
    ap.add_argument("--zoom")
    ap.add_argument("--iters", type=int)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--height", type=int, required=True)
    ap.add_argument("--pixels", nargs="*", default=[])
    ap.add_argument("--samples", type=int, default=0)
    ap.add_argument("--bits", type=int)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--distance", action="store_true")
    a = ap.parse_args()
    if a.location:
        re_s, im_s, zoom_s, iters = read_location(a.location)
    else:
        re_s, im_s, zoom_s, iters = a.re, a.im, a.zoom, None
    if a.iters is not None:
        iters = a.iters
    if None in (re_s, im_s, zoom_s, iters):
        ap.error("give --location, or --re, --im, --zoom and --iters")
    pixels = [tuple(int(v) for v in p.split(",")) for p in a.pixels]
    if a.samples:
        pixels += [p for p in sample_pixels(a.width, a.height, a.samples) if p not in pixels]
    bits = a.bits or precision_bits(re_s, im_s, zoom_s, a.height)
    work = [(re_s, im_s, zoom_s, a.width, a.height, iters, bits, x, y, a.distance) for x, y in pixels]
    jobs = a.jobs or multiprocessing.cpu_count()
    if jobs > 1 and len(work) > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(count, work, chunksize=1)
    else:
        results = [count(w) for w in work]
    json.dump({"bits": bits, "iters": iters, "pixels": results}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
