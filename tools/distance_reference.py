#!/usr/bin/env python3
"""The exterior distance estimate of the Mandelbrot set, or of a Julia set, at given points, in
mpmath, independent of wavebrot's code (tests/kernels/distance.rs and julia_distance.rs compare
the backends with it).

Reads lines `RE IM ITERS DIGITS` (decimal strings, any length) on stdin; for each, iterates
z_{k+1} = z_k^2 + c with dz_{k+1} = 2 z_k dz_k + 1 (z_0 = dz_0 = 0, c = RE + i IM: the
Mandelbrot set's dz/dc) at DIGITS decimal digits. A line `RE IM ITERS DIGITS CR CI` asks for the
Julia set of c = CR + i CI instead: z_0 = RE + i IM, dz_0 = 1, dz_{k+1} = 2 z_k dz_k (dz/dz_0).
Each is iterated until |z|^2 >= 4 (the escape: count k, else ITERS and the line `inside`), then on for at most 32
more iterations until |z|^2 >= 65536 (the radius of wavebrot's smooth value), and prints
`COUNT DISTANCE UX UY`: the count, |z| ln|z| / |dz| in units of the point (%.17e) and the unit vector of
z / dz.
"""
import sys

import mpmath


def estimate(re, im, iters, digits, julia_c=None):
    mpmath.mp.dps = digits
    point = mpmath.mpc(mpmath.mpf(re), mpmath.mpf(im))
    if julia_c is None:
        c, z, dz, add = point, mpmath.mpc(0), mpmath.mpc(0), 1
    else:
        c = mpmath.mpc(mpmath.mpf(julia_c[0]), mpmath.mpf(julia_c[1]))
        z, dz, add = point, mpmath.mpc(1), 0
    for k in range(iters):
        dz = 2 * z * dz + add
        z = z * z + c
        if abs(z) ** 2 >= 4:
            for _ in range(32):
                if abs(z) ** 2 >= 65536:
                    break
                dz = 2 * z * dz + add
                z = z * z + c
            d = abs(z) * mpmath.log(abs(z)) / abs(dz)
            u = z / dz
            u = u / abs(u)
            return f"{k} {mpmath.nstr(d, 17, min_fixed=1, max_fixed=0)} {float(u.real)!r} {float(u.imag)!r}"
    return "inside"


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        fields = line.split()
        re, im, iters, digits = fields[:4]
        julia_c = fields[4:6] if len(fields) == 6 else None
        print(estimate(re, im, int(iters), int(digits), julia_c))


if __name__ == "__main__":
    main()
