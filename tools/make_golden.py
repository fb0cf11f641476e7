"""Make the golden reference data in tests/data/ with the seed programs' own numpy code.

Run from the repository root:  python3 tools/make_golden.py
Needs numpy and matplotlib (pip install numpy matplotlib). The outputs are small and
committed; the tests compare wavebrot's CPU paths with them.

- wave_{nx}x{ny}_t{tmax}.npy   the seed's wave2d (numpy), f after the loop, <f4 (nx, ny)
- mandel_{w}x{h}_i{iters}.npy  the Mandelbrot counts (numpy, complex128), <i4 (h, w)
- hot_lut.npy                   matplotlib's hot colormap as bytes, uint8 (256, 4)
- wave_41x29_t40_hot.npy        imshow(f.T, cmap='hot', origin='lower', vmin=-.1, vmax=.1)
                                as matplotlib colours it, uint8 (ny, nx, 4), top row first
- palette_{name}_lut.npy         matplotlib's viridis, magma (256) and twilight (510) as bytes,
                                every entry: cmap(np.arange(N), bytes=True), uint8 (N, 4)
- palette_{name}_data.npy        the same colormaps' float tables (cmap.colors), <f8 (N, 3)

Only the palette files need matplotlib's tables; `--palettes` makes just those.
"""
import os
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'data')


def update(f, g):  # the seed's update, unchanged
    sl = slice(1, -1)
    f[sl, sl] = 0.25 * (g[:-2, sl] + g[2:, sl] + g[sl, :-2] + g[sl, 2:] - 4 * g[sl, sl]) + 2 * g[sl, sl] - f[sl, sl]


def wave2d(nx, ny, tmax, freq=0.1):  # the seed's loop, unchanged
    f = np.zeros((nx, ny), 'f4')
    g = np.zeros((nx, ny), 'f4')
    for tstep in range(1, tmax + 1):
        g[nx // 2, ny // 2] = np.sin(freq * tstep)
        update(f, g)
        update(g, f)
    return f


def mandel(w, h, iters, minx=-2.0, maxx=1.0, miny=-1.0, maxy=1.0):
    """The seed kernel's rule, vectorised: c = (minx + x*px) + i(miny + y*py)."""
    px = (maxx - minx) / w
    py = (maxy - miny) / h
    x = minx + np.arange(w) * px
    y = miny + np.arange(h) * py
    c = x[None, :] + 1j * y[:, None]
    z = np.zeros_like(c)
    out = np.full(c.shape, iters, np.int32)
    alive = np.ones(c.shape, bool)
    for i in range(iters):
        z[alive] = z[alive] * z[alive] + c[alive]
        esc = alive & ((z.real ** 2 + z.imag ** 2) >= 4)
        out[esc] = i
        alive &= ~esc
    return out


def palettes():
    """matplotlib's listed colormaps, every entry, as bytes and as the float tables."""
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import colormaps
    for name in ['viridis', 'magma', 'twilight']:
        cmap = colormaps[name]
        n = cmap.N
        np.save(os.path.join(OUT, f'palette_{name}_lut.npy'), cmap(np.arange(n), bytes=True).astype(np.uint8))
        np.save(os.path.join(OUT, f'palette_{name}_data.npy'), np.asarray(cmap.colors, dtype='<f8'))


def main():
    os.makedirs(OUT, exist_ok=True)
    import sys
    if '--palettes' in sys.argv:
        palettes()
        return
    palettes()
    for nx, ny, tmax in [(37, 53, 300), (64, 64, 100), (101, 40, 250), (200, 160, 500)]:
        np.save(os.path.join(OUT, f'wave_{nx}x{ny}_t{tmax}.npy'), wave2d(nx, ny, tmax))
    for w, h, iters in [(96, 64, 20), (77, 51, 200)]:
        np.save(os.path.join(OUT, f'mandel_{w}x{h}_i{iters}.npy'), mandel(w, h, iters))
    np.save(os.path.join(OUT, 'mandel_60x40_i500_zoom.npy'), mandel(60, 40, 500, -0.7530, -0.7490, 0.0990, 0.1020))

    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import colormaps
    import matplotlib.colors as mcolors
    hot = colormaps['hot']
    np.save(os.path.join(OUT, 'hot_lut.npy'), hot(np.arange(256), bytes=True).astype(np.uint8))
    f = wave2d(41, 29, 40, freq=0.3)
    np.save(os.path.join(OUT, 'wave_41x29_t40_f0.3.npy'), f)
    # imshow(f.T, origin='lower') puts j upwards: the picture's top row is j = ny-1.
    rgba = hot(mcolors.Normalize(vmin=-0.1, vmax=0.1)(f.T[::-1, :]), bytes=True)
    np.save(os.path.join(OUT, 'wave_41x29_t40_hot.npy'), rgba.astype(np.uint8))


if __name__ == '__main__':
    main()
