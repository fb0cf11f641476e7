#!/usr/bin/env python3
"""The exterior distance estimate of the Mandelbrot set at given points, in mpmath, independent
of wavebrot's code (tests/kernels/distance.rs compares the backends with it).

Reads lines `RE IM ITERS DIGITS` (decimal strings, any length) on stdin; for each, iterates
z_{k+1} = z_k^2 + c with dz_{k+1} = 2 z_k dz_k + 1 (z_0 = dz_0 = 0) at DIGITS decimal digits
until |z|^2 >= 4 (the escape: count k, else ITERS and the line `inside`), then on for at most 32
more iterations until |z|^2 >= 65536 (the radius of wavebrot's smooth value), and prints
`COUNT DISTANCE UX UY`: the count, |z| ln|z| / |dz| in units of c (%.17e) and the unit vector of
z / dz.
"""
import sys

import mpmath


def estimate(re, im, iters, digits):
    mpmath.mp.dps = digits
    c = mpmath.mpc(mpmath.mpf(re), mpmath.mpf(im))
    z = mpmath.mpc(0)
    dz = mpmath.mpc(0)
    for k in range(iters):
        dz = 2 * z * dz + 1
        z = z * z + c
        if abs(z) ** 2 >= 4:
            for _ in range(32):
                if abs(z) ** 2 >= 65536:
                    break
                dz = 2 * z * dz + 1
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
        re, im, iters, digits = line.split()
        print(estimate(re, im, int(iters), int(digits)))


if __name__ == "__main__":
    main()
