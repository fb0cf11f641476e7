// Deep-zoom Mandelbrot by perturbation: the CUDA twin of `perturb_count` in
// src/sim/perturb.rs (run by src/backend/cpu/mandelbrot_deep.rs) and of
// shaders/mandelbrot_deep.wgsl. Compiled by NVRTC with --fmad=false and written operation for
// operation like the CPU twin, so the counts are the CPU's, bit for bit.
//
// The reference orbit Z_0..Z_last (the view's centre, iterated on the host in arbitrary
// precision) is shared by all pixels; a pixel iterates only its delta
// dz_{m+1} = 2 Z_m dz_m + dz_m^2 + dc, with dc = ((ax + x*bx) + i(ay + y*by)) * 2^exp.
// Deltas below 2^PLAIN_MIN_EXP are held as mantissa * 2^e (extended exponent); when
// |Z_m + dz| < |dz| or the reference ends, the pixel rebases: dz = z, m = 0 (Zhuoran).
// Reference values below 2^TINY_EXP (Z_m passing close to 0 near a minibrot) are stored as a
// mantissa and zexp[m]; their iterations, and the one after each rebase, are extended-exponent
// steps (`extended_step`), so no term that matters underflows.
// Plain deltas skip iterations by bilinear approximation (BLA) where the table built on the
// host (src/sim/bla.rs, which argues why a step never jumps over an escape or a rebase) has a
// valid step: dz_{m+2^l} = A dz_m + B dc.
// mandelbrot_deep_de_f64 also carries the derivative of the pixel's z in pixels,
// S = (dz/dc) h = (sr + i si) 2^se (src/sim/fractal/deep_distance.rs): S' = 2 z S + h a step,
// S' = A S + B h a BLA step, unchanged by a rebase; at the escape the distance |z| ln|z| / |S|.

#define PLAIN_MIN_EXP (-560)
// The exponent of a zero term in `extended_step`: below any value's.
#define ZERO_EXP (-(1 << 24))

// 2^n built from bits (n in -1022..=1023), for `ldexp_twin`, the CPU twin's `Real::ldexp`.
__device__ __forceinline__ double pow2i(int n) { return __longlong_as_double((long long)(n + 1023) << 52); }

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// n clamped to three times the exponent range (beyond it the result is 0 or infinity anyway),
// then three exact multiplications by powers of two in range.
__device__ __forceinline__ double ldexp_twin(double x, int n) {
    n = clampi(n, -3 * 1022, 3 * 1023);
    const int n1 = clampi(n, -1022, 1023);
    const int n2 = clampi(n - n1, -1022, 1023);
    return x * pow2i(n1) * pow2i(n2) * pow2i(n - n1 - n2);
}

// The exponent k with 2^k <= |x| < 2^(k+1) of a normal x.
__device__ __forceinline__ int ilogb_twin(double x) {
    return (int)((__double_as_longlong(x) >> 52) & 0x7ff) - 1023;
}

// `normalise` of src/sim/perturb.rs: (nr + i ni) 2^r as a delta, plain at or above
// 2^PLAIN_MIN_EXP, else a mantissa in [1, 2) and an exponent.
__device__ __forceinline__ void normalise(double nr, double ni, int r, double* wr, double* wi, int* e, bool* scaled) {
    const double q = fmax(fabs(nr), fabs(ni));
    if (!(q > 0.0)) {
        *wr = nr; *wi = ni; *e = 0; *scaled = false;
        return;
    }
    const int s = ilogb_twin(q);
    if (r + s >= PLAIN_MIN_EXP) {
        *wr = ldexp_twin(nr, r); *wi = ldexp_twin(ni, r); *e = 0; *scaled = false;
    } else {
        *wr = ldexp_twin(nr, -s); *wi = ldexp_twin(ni, -s); *e = r + s; *scaled = true;
    }
}

// `extended_step` of src/sim/perturb.rs: dz' = 2 Z dz + dz^2 + dc with Z = (zr + i zi) 2^ze,
// dz = (ur + i ui) 2^ue, dc = (dcr + i dci) 2^dce, each term brought to the largest's exponent.
__device__ __forceinline__ void extended_step(double zr, double zi, int ze, double ur, double ui, int ue, double dcr,
                                              double dci, int dce, double* wr, double* wi, int* e, bool* scaled) {
    const double q = fmax(fabs(ur), fabs(ui));
    if (q > 0.0) {
        const int s = ilogb_twin(q);
        ur = ldexp_twin(ur, -s); ui = ldexp_twin(ui, -s); ue = ue + s;
    } else {
        ur = 0.0; ui = 0.0; ue = ZERO_EXP;
    }
    const int e1 = fmax(fabs(zr), fabs(zi)) > 0.0 ? ze + ue : ZERO_EXP;
    const int e2 = ue + ue;
    const int e3 = fmax(fabs(dcr), fabs(dci)) > 0.0 ? dce : ZERO_EXP;
    const int r = max(max(e1, e2), e3);
    const double nr = ldexp_twin(2.0 * (zr * ur - zi * ui), e1 - r) + ldexp_twin(ur * ur - ui * ui, e2 - r) +
                      ldexp_twin(dcr, e3 - r);
    const double ni = ldexp_twin(2.0 * (zr * ui + zi * ur), e1 - r) + ldexp_twin(2.0 * ur * ui, e2 - r) +
                      ldexp_twin(dci, e3 - r);
    normalise(nr, ni, r, wr, wi, e, scaled);
}

// The derivative S = (sr + i si) 2^se in pixels, the spacing h = hm 2^he and h 2^-se
// (`Slope` of src/sim/fractal/deep_distance.rs, operation for operation).
#define SLOPE_RENORM_EXP 32
struct Slope {
    double sr, si;
    int se;
    double hm;
    int he;
    double h;
};

// The mantissa brought back to [1, 2) when it has left [2^-32, 2^32].
__device__ __forceinline__ void slope_renorm(Slope& s) {
    const double q = fmax(fabs(s.sr), fabs(s.si));
    if (q > pow2i(SLOPE_RENORM_EXP) || (q < pow2i(-SLOPE_RENORM_EXP) && q > 0.0)) {
        const int t = ilogb_twin(q);
        s.sr = ldexp_twin(s.sr, -t); s.si = ldexp_twin(s.si, -t); s.se += t;
        s.h = ldexp_twin(s.hm, s.he - s.se);
    }
}

// One step z' = z^2 + c of the pixel's z = (zr + i zi) 2^ze: S' = 2 z S + h.
__device__ __forceinline__ void slope_step(Slope& s, double zr, double zi, int ze) {
    const double nr = 2.0 * (zr * s.sr - zi * s.si);
    const double ni = 2.0 * (zr * s.si + zi * s.sr);
    if (ze != 0) {
        s.se += ze;
        s.h = ldexp_twin(s.hm, s.he - s.se);
    }
    s.sr = nr + s.h; s.si = ni;
    slope_renorm(s);
}

// A BLA step: S' = A S + B h, A = (ab[0] + i ab[1]) 2^ea, B = (ab[2] + i ab[3]) 2^eb.
__device__ __forceinline__ void slope_bla(Slope& s, const double* ab, int ea, int eb) {
    const double ar = ab[0], ai = ab[1], br = ab[2], bi = ab[3];
    const int e1 = ea + s.se, e2 = eb + s.he;
    const int r = max(e1, e2);
    const double nr = ldexp_twin(ar * s.sr - ai * s.si, e1 - r) + ldexp_twin(br * s.hm, e2 - r);
    const double ni = ldexp_twin(ar * s.si + ai * s.sr, e1 - r) + ldexp_twin(bi * s.hm, e2 - r);
    s.sr = nr; s.si = ni; s.se = r;
    s.h = ldexp_twin(s.hm, s.he - r);
    slope_renorm(s);
}

__device__ __forceinline__ bool deep_finite(double x) { return x - x == 0.0; }

// `Slope::distance`: `distance_and_normal` of src/sim/fractal/distance.rs on the mantissa, the
// distance scaled by 2^-se: [distance in pixels, ux, uy].
__device__ __forceinline__ void slope_out(const Slope& s, double zr, double zi, float* out) {
    const double mag = hypot(zr, zi);
    const double d = mag * log(mag) / hypot(s.sr, s.si);
    const double ur = zr * s.sr + zi * s.si, ui = zi * s.sr - zr * s.si;
    const double norm = hypot(ur, ui);
    const bool ok = norm > 0.0 && deep_finite(norm);
    out[0] = (float)ldexp_twin(deep_finite(d) ? d : 0.0, -s.se);
    out[1] = ok ? (float)(ur / norm) : 0.0f;
    out[2] = ok ? (float)(ui / norm) : 0.0f;
}

// The reference: Z (zr, zi), what rounding Z to double left out (zr_lo, zi_lo, used when a
// pixel rebases) and |Z|^2 - 4 (mag4, for an escape test that keeps its precision near |z| = 2).
struct Orbit {
    const double* __restrict__ zr;
    const double* __restrict__ zi;
    const double* __restrict__ zr_lo;
    const double* __restrict__ zi_lo;
    const double* __restrict__ mag4;
    const int* __restrict__ zexp;
    int last;
    // The BLA table: the mantissas of A and B (4 doubles an entry), squared radii for plain
    // deltas, the radii's mantissas, the exponents (A's, B's, the radius's, 0: 4 ints an entry);
    // levels (0 or 1: none) and n = last - 1 (level l holds n >> l entries).
    const double* __restrict__ bla_ab;
    const double* __restrict__ bla_r2;
    const double* __restrict__ bla_rm;
    const int* __restrict__ bla_exps;
    int bla_levels;
    unsigned bla_n;
};

// `level_offset` of src/sim/bla.rs: the first entry of level l.
__device__ __forceinline__ unsigned bla_offset(unsigned n, int l) {
    const unsigned h = n >> l;
    return 2u * n - (unsigned)__popc(n) - 2u * h + (unsigned)__popc(h);
}

// Inside entry j's radius: |dz|^2 = dd < r2 (plain), or |w|^2 = dd with dz = w 2^e (ext):
// dd 2^(2(e - er)) < rm^2.
__device__ __forceinline__ bool bla_inside(const Orbit& o, unsigned j, double dd, bool ext, int e) {
    return ext ? ldexp_twin(dd, 2 * (e - o.bla_exps[4ull * j + 2])) < o.bla_rm[j] * o.bla_rm[j] : dd < o.bla_r2[j];
}

// `BlaTable::lookup`: the longest valid step at m after k iterations (its level, or 0) and its
// entry, for |dz|^2 = dd (plain) or |w|^2 = dd, dz = w 2^e (ext).
__device__ __forceinline__ int bla_lookup(const Orbit& o, int m, int k, int iters, double dd, bool ext, int e,
                                          unsigned* entry) {
    if (o.bla_levels < 2 || m == 0) return 0;
    const unsigned mm = (unsigned)(m - 1);
    const int tz = mm == 0u ? 32 : __ffs((int)mm) - 1;
    const int cap = tz < o.bla_levels - 1 ? tz : o.bla_levels - 1;
    int l = 1;
#define BLA_VALID(L) ((L) <= cap && (long long)m + (1ll << (L)) <= (long long)o.last && \
                      (long long)k + (1ll << (L)) <= (long long)iters && \
                      bla_inside(o, bla_offset(o.bla_n, (L)) + (mm >> (L)), dd, ext, e))
    if (!BLA_VALID(1)) return 0;
    if (BLA_VALID(l + 16)) l += 16;
    if (BLA_VALID(l + 8)) l += 8;
    if (BLA_VALID(l + 4)) l += 4;
    if (BLA_VALID(l + 2)) l += 2;
    if (BLA_VALID(l + 1)) l += 1;
#undef BLA_VALID
    *entry = bla_offset(o.bla_n, l) + (mm >> l);
    return l;
}

// `smooth_tail` of src/sim/perturb.rs: from the escaped z_n = (zr, zi), up to 32 more
// iterations of z^2 + c until |z|^2 >= 65536, then nu = n - log2(log2 |z_n|) clamped to [0, iters]
// (`smooth_value` in src/sim/mandelbrot.rs).
// With DE, S follows each step and `de` gets the distance and normal (`slope_out`).
template <bool DE>
__device__ __forceinline__ float deep_smooth_tail(double zr, double zi, double cr, double ci, unsigned n, int iters,
                                                  Slope* sl, float* de) {
    double mag2 = zr * zr + zi * zi;
    for (int j = 0; j < 32; ++j) {
        if (mag2 >= 65536.0) break;
        if (DE) slope_step(*sl, zr, zi, 0);
        const double nr = zr * zr - zi * zi + cr;
        const double ni = zr * zi + zi * zr + ci;
        zr = nr;
        zi = ni;
        mag2 = zr * zr + zi * zi;
        ++n;
    }
    if (DE) slope_out(*sl, zr, zi, de);
    const double nu = (double)n - log2(0.5 * log2(mag2));
    if (!(nu >= 0.0)) return 0.0f;  // NaN too, as the CPU
    return (float)fmin(nu, (double)iters);
}

// The general loop's plain path (`perturb_count` below) for a plain delta while Z_m is plain:
// iterates until the pixel escapes (returns its count, with the smooth value in *nu), or Z_m is
// tiny, or the delta became scaled, or k reached iters (returns -1 with the state updated).
__device__ __forceinline__ int plain_run(const Orbit& o, double plain_dcr, double plain_dci, double dcr, double dci,
                                         int dce, double plain_min, int iters, double c1r, double c1i, double* pwr,
                                         double* pwi, int* pe, bool* pscaled, int* pm, int* pk,
                                         unsigned long long* pran, float* nu) {
    const double* __restrict__ zr = o.zr;
    const double* __restrict__ zi = o.zi;
    const int last = o.last;
    double wr = *pwr, wi = *pwi;
    int m = *pm, k = *pk;
    unsigned long long ran = *pran;
    int result = -1;
    while (k < iters) {
        if (o.zexp[m] != 0) break;
        ++ran;
        const double rr = zr[m], ri = zi[m];
        const double fr = rr + wr;
        const double fi = ri + wi;
        const double dd = wr * wr + wi * wi;
        if (o.mag4[m] + (2.0 * (rr * wr + ri * wi) + dd) >= 0.0) {
            if (nu) *nu = deep_smooth_tail<false>(fr, fi, c1r, c1i, (unsigned)k + 1u, iters, nullptr, nullptr);
            result = k;
            break;
        }
        const double mag = fr * fr + fi * fi;
        if (m == last || mag < dd) {
            const double gr = fr + o.zr_lo[m];
            const double gi = fi + o.zi_lo[m];
            extended_step(0.0, 0.0, 0, gr, gi, 0, dcr, dci, dce, &wr, &wi, pe, pscaled);
            m = 1;
            ++k;
            if (*pscaled) break;
            continue;
        }
        unsigned j = 0;
        const int l = bla_lookup(o, m, k, iters, dd, false, 0, &j);
        if (l > 0) {
            const double* ab = o.bla_ab + 4ull * j;
            const int ea = o.bla_exps[4ull * j], eb = o.bla_exps[4ull * j + 1];
            const double ar = ldexp_twin(ab[0], ea), ai = ldexp_twin(ab[1], ea);
            const double br = ldexp_twin(ab[2], eb), bi = ldexp_twin(ab[3], eb);
            const double nr = (ar * wr - ai * wi) + (br * plain_dcr - bi * plain_dci);
            const double ni = (ar * wi + ai * wr) + (br * plain_dci + bi * plain_dcr);
            wr = nr; wi = ni;
            m += 1 << l;
            k += 1 << l;
            const double q = fmax(fabs(nr), fabs(ni));
            if (q < plain_min && q > 0.0) {
                const int t = ilogb_twin(q);
                wr = ldexp_twin(nr, -t); wi = ldexp_twin(ni, -t); *pe = t; *pscaled = true;
                break;
            }
            continue;
        }
        const double tr = rr + rr + wr;
        const double ti = ri + ri + wi;
        const double nr = tr * wr - ti * wi + plain_dcr;
        const double ni = tr * wi + ti * wr + plain_dci;
        wr = nr; wi = ni;
        ++m;
        ++k;
        const double q = fmax(fabs(nr), fabs(ni));
        if (q < plain_min && q > 0.0) {
            const int t = ilogb_twin(q);
            wr = ldexp_twin(nr, -t); wi = ldexp_twin(ni, -t); *pe = t; *pscaled = true;
            break;
        }
    }
    *pwr = wr; *pwi = wi; *pm = m; *pk = k; *pran = ran;
    return result;
}

// The count; when nu is not null, also the smooth value (`perturb_count_smooth`): the orbit
// goes on from the escaped z = Z_m + dz with c = Z_1 + dc. *executed gets the iterations
// executed (one per escape test, whether a single or a BLA step followed). With DE (nu then
// given), the derivative S rides along (`perturb_escape_tracked` with a `Slope`) and `de` gets
// the distance and normal of an escaped pixel.
template <bool DE>
__device__ int perturb_count(const Orbit& o, double dcr, double dci, int dce, int iters, float* nu,
                             unsigned long long* executed, Slope* sl, float* de) {
    const double* __restrict__ zr = o.zr;
    const double* __restrict__ zi = o.zi;
    const int last = o.last;
    const double plain_dcr = ldexp_twin(dcr, dce);
    const double plain_dci = ldexp_twin(dci, dce);
    const double plain_min = pow2i(PLAIN_MIN_EXP);
    // c = Z_1 + dc, for the smooth value.
    const double c1r = ldexp_twin(zr[1], o.zexp[1]) + plain_dcr;
    const double c1i = ldexp_twin(zi[1], o.zexp[1]) + plain_dci;
    bool scaled = dce < PLAIN_MIN_EXP;
    double wr = scaled ? dcr : plain_dcr, wi = scaled ? dci : plain_dci;
    int e = scaled ? dce : 0;
    int m = 1;
    unsigned long long ran = 0;
    for (int k = 0; k < iters;) {
        if (!DE && !scaled) {
            // The common case in its own loop: a plain delta against a plain Z_m. The same
            // operations as the general loop's plain path below (which it leaves to for a tiny
            // Z_m, and after a step that scales the delta), without its branches for the other
            // forms: fewer instructions an iteration where every pixel is plain (zooms to about
            // 1e160), same bits.
            const int got = plain_run(o, plain_dcr, plain_dci, dcr, dci, dce, plain_min, iters, c1r, c1i, &wr, &wi,
                                      &e, &scaled, &m, &k, &ran, nu);
            if (got >= 0) {
                *executed = ran;
                return got;
            }
            if (k >= iters) break;
            if (!scaled && o.zexp[m] == 0) continue;
        }
        ++ran;
        const int ze = o.zexp[m];
        if (ze != 0) {
            // A tiny reference value Z_m = (zr + i zi) 2^ze: only a large dz escapes; the rebase
            // test |Z_m + dz| < |dz| in their common exponent.
            const double zmr = zr[m], zmi = zi[m];
            const int ue = scaled ? e : 0;
            const double pr = ldexp_twin(zmr, ze) + ldexp_twin(wr, ue);
            const double pi = ldexp_twin(zmi, ze) + ldexp_twin(wi, ue);
            if (pr * pr + pi * pi >= 4.0) {
                if (nu) *nu = deep_smooth_tail<DE>(pr, pi, c1r, c1i, (unsigned)k + 1u, iters, sl, de);
                *executed = ran;
                return k;
            }
            const double q = fmax(fabs(wr), fabs(wi));
            const int big = q > 0.0 ? max(ze, ue + ilogb_twin(q)) : ze;
            const double ar = ldexp_twin(wr, ue - big);
            const double ai = ldexp_twin(wi, ue - big);
            const double fr = ldexp_twin(zmr, ze - big) + ar;
            const double fi = ldexp_twin(zmi, ze - big) + ai;
            if (DE) slope_step(*sl, fr, fi, big);
            if (m == last || fr * fr + fi * fi < ar * ar + ai * ai) {
                const double gr = fr + ldexp_twin(o.zr_lo[m], ze - big);
                const double gi = fi + ldexp_twin(o.zi_lo[m], ze - big);
                extended_step(0.0, 0.0, 0, gr, gi, big, dcr, dci, dce, &wr, &wi, &e, &scaled);
                m = 1;
            } else {
                extended_step(zmr, zmi, ze, wr, wi, ue, dcr, dci, dce, &wr, &wi, &e, &scaled);
                ++m;
            }
            ++k;
            continue;
        }
        const double rr = zr[m], ri = zi[m];
        const double dr = scaled ? ldexp_twin(wr, e) : wr;
        const double di = scaled ? ldexp_twin(wi, e) : wi;
        const double fr = rr + dr;
        const double fi = ri + di;
        const double dd = dr * dr + di * di;
        if (o.mag4[m] + (2.0 * (rr * dr + ri * di) + dd) >= 0.0) {
            if (nu) *nu = deep_smooth_tail<DE>(fr, fi, c1r, c1i, (unsigned)k + 1u, iters, sl, de);
            *executed = ran;
            return k;
        }
        const double mag = fr * fr + fi * fi;
        if (m == last || mag < dd) {
            // Rebase: on from the reference's start, Z_0 = 0, dz = z (with what rounding Z left out).
            const double gr = fr + o.zr_lo[m];
            const double gi = fi + o.zi_lo[m];
            if (DE) slope_step(*sl, fr, fi, 0);
            extended_step(0.0, 0.0, 0, gr, gi, 0, dcr, dci, dce, &wr, &wi, &e, &scaled);
            m = 1;
            ++k;
            continue;
        }
        // A BLA step where one is valid (m >= 1, Z_m not tiny, so dd is |dz|^2): plainly, or
        // in extended exponent for a scaled delta.
        unsigned j = 0;
        const double ww = wr * wr + wi * wi;
        const int l = bla_lookup(o, m, k, iters, scaled ? ww : dd, scaled, e, &j);
        if (l > 0) {
            const double* ab = o.bla_ab + 4ull * j;
            const int ea = o.bla_exps[4ull * j], eb = o.bla_exps[4ull * j + 1];
            if (DE) slope_bla(*sl, ab, ea, eb);
            if (scaled) {
                const double ar = ab[0], ai = ab[1], br = ab[2], bi = ab[3];
                const int e1 = ea + e, e2 = eb + dce;
                const int r = max(e1, e2);
                const double nr = ldexp_twin(ar * wr - ai * wi, e1 - r) + ldexp_twin(br * dcr - bi * dci, e2 - r);
                const double ni = ldexp_twin(ar * wi + ai * wr, e1 - r) + ldexp_twin(br * dci + bi * dcr, e2 - r);
                normalise(nr, ni, r, &wr, &wi, &e, &scaled);
            } else {
                const double ar = ldexp_twin(ab[0], ea), ai = ldexp_twin(ab[1], ea);
                const double br = ldexp_twin(ab[2], eb), bi = ldexp_twin(ab[3], eb);
                const double nr = (ar * wr - ai * wi) + (br * plain_dcr - bi * plain_dci);
                const double ni = (ar * wi + ai * wr) + (br * plain_dci + bi * plain_dcr);
                wr = nr; wi = ni;
                const double q = fmax(fabs(nr), fabs(ni));
                if (q < plain_min && q > 0.0) {
                    const int t = ilogb_twin(q);
                    wr = ldexp_twin(nr, -t); wi = ldexp_twin(ni, -t); e = t; scaled = true;
                }
            }
            m += 1 << l;
            k += 1 << l;
            continue;
        }
        if (DE) slope_step(*sl, fr, fi, 0);
        if (scaled) {
            const double s = ldexp_twin(1.0, e);
            const double cr = ldexp_twin(dcr, dce - e);
            const double ci = ldexp_twin(dci, dce - e);
            const double nr = 2.0 * (rr * wr - ri * wi) + (wr * wr - wi * wi) * s + cr;
            const double ni = 2.0 * (rr * wi + ri * wr) + 2.0 * wr * wi * s + ci;
            wr = nr; wi = ni;
            const double q = fmax(fabs(nr), fabs(ni));
            if (q > 0.0) {
                const int t = ilogb_twin(q);
                if (e + t >= PLAIN_MIN_EXP) {
                    wr = ldexp_twin(nr, e); wi = ldexp_twin(ni, e); e = 0; scaled = false;
                } else if (t < -8 || t > 8) {
                    wr = ldexp_twin(nr, -t); wi = ldexp_twin(ni, -t); e = e + t;
                }
            }
        } else {
            const double tr = rr + rr + wr;
            const double ti = ri + ri + wi;
            const double nr = tr * wr - ti * wi + plain_dcr;
            const double ni = tr * wi + ti * wr + plain_dci;
            wr = nr; wi = ni;
            const double q = fmax(fabs(nr), fabs(ni));
            if (q < plain_min && q > 0.0) {
                const int t = ilogb_twin(q);
                wr = ldexp_twin(nr, -t); wi = ldexp_twin(ni, -t); e = t; scaled = true;
            }
        }
        ++m;
        ++k;
    }
    if (nu) *nu = (float)iters;
    *executed = ran;
    return iters;
}

// The block's sums of the rule's iterations and those executed, added to total[0] and total[1]
// (one atomicAdd each).
__device__ __forceinline__ void deep_totals(unsigned long long rule, unsigned long long executed,
                                            unsigned long long* __restrict__ total) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        rule += __shfl_down_sync(0xffffffffu, rule, o);
        executed += __shfl_down_sync(0xffffffffu, executed, o);
    }
    __shared__ unsigned long long warp_sums[8][2];
    if (threadIdx.x == 0) {
        warp_sums[threadIdx.y][0] = rule;
        warp_sums[threadIdx.y][1] = executed;
    }
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        unsigned long long s = 0, t = 0;
#pragma unroll
        for (int w = 0; w < 8; ++w) {
            s += warp_sums[w][0];
            t += warp_sums[w][1];
        }
        atomicAdd(&total[0], s);
        atomicAdd(&total[1], t);
    }
}

// A block is 16x16 pixels and each warp (threadIdx.y) an 8x4 tile of them: neighbours in a
// square run more alike than along a row of 32, so fewer of a warp's threads idle.
__device__ __forceinline__ int deep_pixel_x() { return blockIdx.x * 16 + (threadIdx.y & 1) * 8 + (threadIdx.x & 7); }
__device__ __forceinline__ int deep_pixel_y() { return blockIdx.y * 16 + (threadIdx.y >> 1) * 4 + (threadIdx.x >> 3); }

// Grid (ceil(width/16), ceil(height/16)), block (32, 8), one pixel a thread. Each block adds the
// rule's iterations, min(count + 1, iters) per pixel, to total[0] and the iterations executed
// (fewer where BLA skipped) to total[1], one atomicAdd each. With want_smooth, smooth
// (width*height floats; any valid pointer otherwise) gets the smooth values. The BLA arrays
// hold at least one entry (bla_levels 0: unused).
extern "C" __global__ void __launch_bounds__(256)
    mandelbrot_deep_f64(int width, int height, const double* __restrict__ zr, const double* __restrict__ zi,
                        const double* __restrict__ zr_lo, const double* __restrict__ zi_lo,
                        const double* __restrict__ mag4, const int* __restrict__ zexp, int last,
                        const double* __restrict__ bla_ab, const double* __restrict__ bla_r2,
                        const double* __restrict__ bla_rm, const int* __restrict__ bla_exps, int bla_levels, unsigned bla_n, int exp, double ax,
                        double bx, double ay, double by, int iters, int* __restrict__ counts,
                        float* __restrict__ smooth, int want_smooth, unsigned long long* __restrict__ total) {
    const int x = deep_pixel_x();
    const int y = deep_pixel_y();
    unsigned long long rule = 0, executed = 0;
    if (x < width && y < height) {
        const double dcr = ax + (double)x * bx;
        const double dci = ay + (double)y * by;
        const Orbit o = {zr, zi, zr_lo, zi_lo, mag4, zexp, last, bla_ab, bla_r2, bla_rm, bla_exps, bla_levels, bla_n};
        float nu = 0.0f;
        const int count =
            perturb_count<false>(o, dcr, dci, exp, iters, want_smooth ? &nu : nullptr, &executed, nullptr, nullptr);
        counts[(long long)y * width + x] = count;
        if (want_smooth) smooth[(long long)y * width + x] = nu;
        rule = (unsigned long long)(count < iters ? count + 1 : iters);
    }
    deep_totals(rule, executed, total);
}

// mandelbrot_deep_f64 with the smooth values and, 3 floats a pixel into de, the distance
// estimate in pixels (of spacing bx 2^exp) and the normal; [0, 0, 0] for a pixel inside. The
// counts and smooth values are mandelbrot_deep_f64's.
extern "C" __global__ void __launch_bounds__(256)
    mandelbrot_deep_de_f64(int width, int height, const double* __restrict__ zr, const double* __restrict__ zi,
                           const double* __restrict__ zr_lo, const double* __restrict__ zi_lo,
                           const double* __restrict__ mag4, const int* __restrict__ zexp, int last,
                           const double* __restrict__ bla_ab, const double* __restrict__ bla_r2,
                           const double* __restrict__ bla_rm, const int* __restrict__ bla_exps, int bla_levels,
                           unsigned bla_n, int exp, double ax, double bx, double ay, double by, int iters,
                           int* __restrict__ counts, float* __restrict__ smooth, float* __restrict__ de,
                           unsigned long long* __restrict__ total) {
    const int x = deep_pixel_x();
    const int y = deep_pixel_y();
    unsigned long long rule = 0, executed = 0;
    if (x < width && y < height) {
        const double dcr = ax + (double)x * bx;
        const double dci = ay + (double)y * by;
        const Orbit o = {zr, zi, zr_lo, zi_lo, mag4, zexp, last, bla_ab, bla_r2, bla_rm, bla_exps, bla_levels, bla_n};
        const long long i = (long long)y * width + x;
        float nu = 0.0f;
        Slope sl = {bx, 0.0, exp, bx, exp, bx};
        float* out = de + 3 * i;
        out[0] = 0.0f; out[1] = 0.0f; out[2] = 0.0f;
        const int count = perturb_count<true>(o, dcr, dci, exp, iters, &nu, &executed, &sl, out);
        counts[i] = count;
        smooth[i] = nu;
        rule = (unsigned long long)(count < iters ? count + 1 : iters);
    }
    deep_totals(rule, executed, total);
}
