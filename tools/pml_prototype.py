#!/usr/bin/env python3
"""Prototype of the perfectly matched layer (PML) of wave scenes, on the seed's exact scheme.

The scheme (src/sim/wave/mod.rs, src/sim/wave/scene_cells.rs): two f32 fields f, g; each time step
writes the sources into g, then update(f, g), then update(g, f); update sets every interior cell to
``c2*(((up + down) + left) + right - 4g) + 2g - f``; the border stays 0.

The layer (split field, second-order form, with the sigma' term): in the outer ``w`` cells the
field is split into ``u = ux + uy``, each part damped along its own axis. The stretch
``d/dx -> (1/s) d/dx``, ``s = 1 + sigma/p`` (p: Laplace variable of time) of ``(1/s) d/dx((1/s) du/dx)``
gives, exactly,

    (d/dt + sx)^2 ux = c2 (Dxx u - sx' phix),   (d/dt + sx) phix = Dx u    (and the same in y)

Leapfrog with centred damping, per update (the rule src/sim/wave/pml.rs states, same order):

    gx  = (down - up)*0.5;  phix' = alx*phix + (w1x*gx + w0x*gx_prev)   (phi integrated exactly
                             over one update with G linear between updates; TRAP=0: G held)
    ux+ = bx*((c2*(Dxx - dsx*phix') + ex*ux) - ax*ux-),  ax = 1 - sx, bx = 1/(1 + sx), ex = 2 - sx^2
    uy+ = by*((c2*(Dyy - dsy*phiy') + ey*uy) - ay*uy-),  uy = g - ux, uy- = f - ux-
    f+  = ux+ + uy+

``Dxx = (up + down) - 2g``, ``Dyy = (left + right) - 2g``. Stored per layer cell: ``ux`` at two levels,
``phix``, ``phiy`` and the last ``gx``, ``gy``; ``uy`` is the rest. Outside the layer nothing changes.
``sigma(level) = smax*(level/w)^p`` with level 1 at the layer's inner edge and ``w`` next to the
border (which stays 0); ``dsx`` its derivative along ``i`` (negative on the low side).

The measurement is the one of tests/kernels/scene.rs (``EdgeProbe``): a Hann pulse (freq 0.2,
one cycle of sin under sin^2) from a point 100 cells from the left edge of a 400 x 800 grid; the
echo ``max|A - B|`` at a probe, where A runs the edge under test and B a grid padded by 260 cells
(nothing returns in time), over a mirror's ``max|C - B|`` (C: the same grid, reflecting). Probes: on
the normal 60 cells from the edge (340 steps), where the echo leaving at 45 degrees passes
(100, 400) and at 60 degrees (100, 546) (470 steps; the 60-degree echo travels 400 cells).

Measured (python3 tools/pml_prototype.py, numpy float32, 14:40-14:58 UTC 2026-11-24; echo in % of
a mirror's, normal / 45 / 60 degrees; `--scan W,.. SMAX,.. P,..` prints a scan at freq 0.2):

    phi integrated with G held at the update's end (TRAP=0):
    w 16 smax 0.1 p 2:   7.818 / 16.539 / 27.850      w 16 smax 0.3 p 2:   1.113 /  1.824 /  3.913
    w 24 smax 0.3 p 2:   0.665 /  1.056 /  1.842      w 24 smax 0.6 p 2:   1.095 /  1.610 /  2.308
    w 24 smax 0.3 p 3:   0.674 /  1.173 /  2.785      w 32 smax 0.25 p 2:  0.398 /  0.675 /  1.180
    w 40 smax 0.25 p 2:  0.301 /  0.534 /  0.928      w 40 smax 0.35 p 2:  0.394 /  0.694 /  1.180
    phi integrated with G linear between updates (TRAP=1, the default, what the scenes run):
    w 24 smax 0.3 p 2:   0.088 /  0.094 /  0.524      w 24 smax 0.25 p 2:  0.071 /  0.193 /  1.192
    w 32 smax 0.3 p 2:   0.048 /  0.054 /  0.116   <- the choice
    the choice at freq 0.1:  0.128 / 0.123 / 0.135;  at freq 0.4:  0.025 / 0.025 / 0.112
    the textbook split form without the sigma' term (an earlier version of this file):
    w 16 smax 0.1 p 2: 21.1 / 34.8 / 58.3,  w 16 smax 0.5 p 2: 42.3 / 51.0 / 61.3 (worse with sigma)

A pulse left in a 120 x 90 box with the chosen layer dies away (max|u| every 500 steps, 4000
steps: 4.3e-4 7.7e-5 3.7e-5 2.5e-5 1.2e-5 1.4e-5 1.1e-5 7.0e-6): no late growth.
(First-order Mur, tests/kernels/scene.rs: 1.5 / 16.8 / -.)
"""

import sys

import os

import numpy as np

TRAP = os.environ.get("TRAP", "1") == "1"

F = np.float32
GRID = (400, 800)
SOURCE = (100, 200)
PROBES = [(60, 200), (100, 400), (100, 546)]
WINDOWS = [340, 470, 470]
STEPS = 470
PAD = 260


def pulse(freq, t):
    n = int(np.floor(2 * np.pi / freq))
    if 1 <= t <= n:
        x = freq * t
        return F(np.sin(x) * np.sin(x / 2) ** 2)
    return None


def layer(nx, ny, w, smax, p):
    """Per-cell coefficients of the layer (f32 arrays over the grid) and its mask."""
    i = np.arange(nx)[:, None]
    j = np.arange(ny)[None, :]
    di = np.minimum(i, nx - 1 - i)  # 1 next to the border
    dj = np.minimum(j, ny - 1 - j)
    lx = np.where(di <= w, w + 1 - np.maximum(di, 1), 0)
    ly = np.where(dj <= w, w + 1 - np.maximum(dj, 1), 0)
    # d sigma / d i: sigma grows outwards, so it falls with i on the low side.
    gx = np.where(i < nx / 2, -1.0, 1.0)
    gy = np.where(j < ny / 2, -1.0, 1.0)
    lx, ly, gx, gy = np.broadcast_arrays(lx, ly, gx, gy)
    co = {"in": (lx > 0) | (ly > 0)}
    for name, lv, sg in (("x", lx, gx), ("y", ly, gy)):
        s = smax * (lv / w) ** p
        ds = np.where(lv > 0, sg * smax * p * lv ** (p - 1) / w ** p, 0.0)
        al = np.exp(-s)
        be = np.where(s > 0, (1 - al) / np.where(s > 0, s, 1), 1.0)
        co["a" + name] = (1 - s).astype(F)
        co["b" + name] = (1 / (1 + s)).astype(F)
        co["e" + name] = (2 - s * s).astype(F)
        co["d" + name] = ds.astype(F)
        co["al" + name] = al.astype(F)
        co["be" + name] = be.astype(F)
        # Linear interpolation of G between updates (TRAP=1): weights of G^n-1 and G^n.
        w0 = np.where(s > 0, (1 - al * (1 + s)) / np.where(s > 0, s * s, 1), 0.5)
        co["w0" + name] = w0.astype(F)
        co["w1" + name] = (be - w0).astype(F)
    return co


def update(f, g, c2, co, aux):
    """update(f, g) in place; aux = [px (ux at n-1, becomes n+1), qx (ux at n), phix, phiy]."""
    up, down = g[:-2, 1:-1], g[2:, 1:-1]
    left, right = g[1:-1, :-2], g[1:-1, 2:]
    mid = g[1:-1, 1:-1]
    old = f[1:-1, 1:-1]
    plain = c2 * (((up + down) + left) + right - F(4) * mid) + F(2) * mid - old
    if co is None:
        f[1:-1, 1:-1] = plain
        return
    px, qx, phx, phy = (a[1:-1, 1:-1] for a in aux[:4])
    c = {k: v[1:-1, 1:-1] for k, v in co.items()}
    dxx = (up + down) - F(2) * mid
    dyy = (left + right) - F(2) * mid
    gx = (down - up) * F(0.5)
    gy = (right - left) * F(0.5)
    if TRAP:
        gxo, gyo = aux[4][1:-1, 1:-1], aux[5][1:-1, 1:-1]
        phx[...] = c["alx"] * phx + (c["w1x"] * gx + c["w0x"] * gxo)
        phy[...] = c["aly"] * phy + (c["w1y"] * gy + c["w0y"] * gyo)
        gxo[...] = gx
        gyo[...] = gy
    else:
        phx[...] = c["alx"] * phx + c["bex"] * gx
        phy[...] = c["aly"] * phy + c["bey"] * gy
    uxn = c["bx"] * ((c2 * (dxx - c["dx"] * phx) + c["ex"] * qx) - c["ax"] * px)
    uyn = c["by"] * ((c2 * (dyy - c["dy"] * phy) + c["ey"] * (mid - qx)) - c["ay"] * (old - px))
    new = np.where(c["in"], uxn + uyn, plain)
    px[...] = np.where(c["in"], uxn, F(0))
    f[1:-1, 1:-1] = new


def run(nx, ny, src, probes, freq, co=None, c2=F(0.25), steps=STEPS):
    f = np.zeros((nx, ny), F)
    g = np.zeros((nx, ny), F)
    px, qx, phx, phy, gxo, gyo = (np.zeros((nx, ny), F) for _ in range(6))
    out = np.zeros((len(probes), steps), F)
    for t in range(1, steps + 1):
        v = pulse(freq, t)
        if v is not None:
            g[src] = v
        update(f, g, c2, co, [px, qx, phx, phy, gxo, gyo])
        update(g, f, c2, co, [qx, px, phx, phy, gxo, gyo])
        for k, pr in enumerate(probes):
            out[k, t - 1] = f[pr]
    return out


def echoes(freq, configs):
    nx, ny = GRID
    cache = f"/tmp/pml_prototype_{freq}.npz"
    if os.path.exists(cache):
        z = np.load(cache)
        far, mirror = z["far"], z["mirror"]
    else:
        far = run(nx + 2 * PAD, ny + 2 * PAD, (SOURCE[0] + PAD, SOURCE[1] + PAD),
                  [(x + PAD, y + PAD) for x, y in PROBES], freq)
        mirror = run(nx, ny, SOURCE, PROBES, freq)
        np.savez(cache, far=far, mirror=mirror)
    m = [np.abs(mirror[k, :WINDOWS[k]] - far[k, :WINDOWS[k]]).max() for k in range(3)]
    rows = []
    for w, smax, p in configs:
        a = run(nx, ny, SOURCE, PROBES, freq, layer(nx, ny, w, smax, p))
        r = [float(np.abs(a[k, :WINDOWS[k]] - far[k, :WINDOWS[k]]).max() / m[k]) for k in range(3)]
        rows.append(((w, smax, p), r))
        print(f"freq {freq}  w {w:3d} smax {smax:5.3f} p {p}:  "
              + " / ".join(f"{100 * x:6.3f}" for x in r) + " %", flush=True)
    return rows


def long_run(w, smax, p, steps=4000):
    """Energy-like check: a pulse in a small box with the layer; the field must die away."""
    nx, ny = 120, 90
    co = layer(nx, ny, w, smax, p)
    f = np.zeros((nx, ny), F)
    g = np.zeros((nx, ny), F)
    px, qx, phx, phy, gxo, gyo = (np.zeros((nx, ny), F) for _ in range(6))
    peaks = []
    for t in range(1, steps + 1):
        v = pulse(0.2, t)
        if v is not None:
            g[40, 30] = v
        update(f, g, F(0.25), co, [px, qx, phx, phy, gxo, gyo])
        update(g, f, F(0.25), co, [qx, px, phx, phy, gxo, gyo])
        if t % 500 == 0:
            peaks.append(float(np.abs(g).max()))
    print(f"long run w {w} smax {smax} p {p}: max|u| every 500 steps", " ".join(f"{x:.2e}" for x in peaks))


if __name__ == "__main__":
    if "--scan" in sys.argv:
        configs = [(w, s, p) for w in map(int, sys.argv[2].split(",")) for p in map(int, sys.argv[4].split(",")) for s in map(float, sys.argv[3].split(","))]
        echoes(0.2, configs)
    else:
        best = [(32, 0.3, 2)]
        for freq in (0.2, 0.1, 0.4):
            echoes(freq, best)
        long_run(32, 0.3, 2)
