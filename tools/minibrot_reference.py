#!/usr/bin/env python3
"""Independent reference for `wavebrot find-minibrot`: the period (ball method) and the
nucleus (Newton's method with the full-precision derivative) of the lowest-period minibrot
near a view, in mpmath alone (no code shared with wavebrot).

    minibrot_reference.py RE IM ZOOM [--iters N] [--width W --height H]
    minibrot_reference.py RE IM ZOOM --check-period P   (RE, IM: a nucleus to check)

prints one JSON object: {"period": p, "re": "...", "im": "...", "size": "1.2e-34",
"z_period_log10": log10 |z_p(nucleus)|, "newton_steps": k}; exit 1 when no period is found.

With --check-period, RE + i IM is a nucleus found by someone else: prints {"step_log10":
log10 |z_p(c) / z_p'(c)|, "size": ..., "shape_re", "shape_im", "cardioid"}: how far Newton
would still move it (its distance to the true nucleus), to compare with the size, and mathr's
shape estimate (m_d_shape: about 0 for a cardioid, a minibrot; about 1 for a disk, a bulb).

The view is wavebrot's (DESIGN.md: 2/zoom high, width/height wide); the ball's radius is its
half-diagonal. Newton: c <- c - z_p(c) / z_p'(c), z' <- 2 z z' + 1, until the step is below
2^-64 of the size estimate 1 / (b l^2) (mathr's m_d_size); precision: the zoom's digits or the
size's, whichever is finer, plus 40 digits.
"""

import argparse
import json
import sys

import mpmath
from mpmath import mp, mpf, mpc


def ball_period(c, radius, iters):
    z = mpc(0)
    r = mpf(0)
    for n in range(iters + 1):
        if n > 0 and abs(z) < r:
            return n
        if abs(z) >= 2:
            return None
        r = r * (2 * abs(z) + r) + radius
        z = z * z + c
    return None


def newton(c, period, max_move, digits):
    mp.dps = digits
    size = None
    for step in range(1, 200):
        z = mpc(0)
        dz = mpc(0)
        l = mpc(1)
        b = mpc(1)
        for i in range(period):
            dz = 2 * z * dz + 1
            z = z * z + c
            if i + 1 < period:
                l = 2 * z * l
                b = b + 1 / l
        delta = z / dz
        if abs(delta) > max_move:
            return None
        c = c - delta
        size = 1 / (b * l * l)
        need = int(-mpmath.log10(abs(size))) + 40
        if abs(delta) < abs(size) * mpf(2) ** -64 and need <= mp.dps:
            z = mpc(0)
            for _ in range(period):
                z = z * z + c
            return c, size, step, z
        if need > mp.dps:
            mp.dps = need
    return None


def shape(c, period):
    """mathr's shape estimate at a nucleus (mandelbrot-numerics m_d_shape): about 0 for a
    cardioid, about 1 for a disk."""
    z, dc, dz, dcdc, dcdz = c, mpc(1), mpc(1), mpc(0), mpc(0)
    for _ in range(1, period):
        dcdc = 2 * (z * dcdc + dc * dc)
        dcdz = 2 * (z * dcdz + dc * dz)
        dc = 2 * z * dc + 1
        dz = 2 * z * dz
        z = z * z + c
    return -(dcdc / (2 * dc) + dcdz / dz) / (dc * dz)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("re")
    ap.add_argument("im")
    ap.add_argument("zoom")
    ap.add_argument("--iters", type=int, default=100000)
    ap.add_argument("--width", type=int, default=1920)
    ap.add_argument("--height", type=int, default=1080)
    ap.add_argument("--check-period", type=int)
    ap.add_argument("--from", dest="from_", nargs=2, metavar=("RE", "IM"),
                    help="with --check-period: also the nucleus's distance from this view centre, in view half-heights (1/zoom)")
    a = ap.parse_args()
    zoom_digits = int(abs(mpmath.log10(mpmath.mpf(a.zoom)))) if mpf(a.zoom) > 1 else 0
    mp.dps = zoom_digits + 40
    if a.check_period:
        mp.dps = max(zoom_digits, len(a.re), len(a.im), *(len(x) for x in (a.from_ or []))) + 40
        c = mpc(mpf(a.re), mpf(a.im))
        z, dz, l, b = mpc(0), mpc(0), mpc(1), mpc(1)
        for i in range(a.check_period):
            dz = 2 * z * dz + 1
            z = z * z + c
            if i + 1 < a.check_period:
                l = 2 * z * l
                b = b + 1 / l
        step = abs(z / dz)
        e = shape(c, a.check_period)
        out = {
            "step_log10": float(mpmath.log10(step)) if step != 0 else -1e9,
            "size": mpmath.nstr(abs(1 / (b * l * l)), 6),
            "shape_re": float(e.real),
            "shape_im": float(e.imag),
            "cardioid": bool(abs(e) < abs(e - 1)),
        }
        if a.from_:
            centre = mpc(mpf(a.from_[0]), mpf(a.from_[1]))
            out["distance_half_heights"] = float(abs(c - centre) * mpf(a.zoom))
        print(json.dumps(out))
        return 0
    c = mpc(mpf(a.re), mpf(a.im))
    half_h = 1 / mpf(a.zoom)
    half_w = half_h * a.width / a.height
    radius = mpmath.sqrt(half_w**2 + half_h**2)
    period = ball_period(c, radius, a.iters)
    if period is None:
        print("no period within the iterations", file=sys.stderr)
        return 1
    found = newton(c, period, radius * 8, mp.dps)
    if found is None:
        print(f"Newton did not converge for period {period}", file=sys.stderr)
        return 1
    nucleus, size, steps, zp = found
    digits = mp.dps
    out = {
        "period": period,
        "re": mpmath.nstr(nucleus.real, digits, strip_zeros=False),
        "im": mpmath.nstr(nucleus.imag, digits, strip_zeros=False),
        "size": mpmath.nstr(abs(size), 6),
        "z_period_log10": float(mpmath.log10(abs(zp))) if zp != 0 else -1e9,
        "newton_steps": steps,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
