//! Bilinear approximation (BLA, Zhuoran, fractalforums 2021, as Fraktaler 3 and Imagina use
//! it): a table that lets a pixel skip many perturbed iterations at once, built on the host
//! from the reference orbit and used by every `f64` twin (`perturb_escape` in
//! [`crate::sim::fractal::perturb`], `kernels/mandelbrot_deep.cu`, `shaders/mandelbrot_deep.wgsl`).
//!
//! One perturbed step `dz' = 2 Z_m dz + dz^2 + dc` is `dz' ≈ A dz + B dc` with `A = 2 Z_m`,
//! `B = 1` while the neglected `dz^2` is below `ε |2 Z_m dz|`, i.e. `|dz| < r_m = ε |Z_m|`
//! (with a factor 2 of safety). Two steps `x` then `y` merge into one: `A = A_y A_x`,
//! `B = A_y B_x + B_y`, `r = min(r_x, max(0, (r_y - |B_x| |dc|max) / |A_x|))` (the `dz` that
//! `x` hands to `y` stays inside `y`'s radius). Level `l` holds the steps of `2^l` iterations
//! that start at `m = 1 + j 2^l`, `j = 0, 1, ...` (ending at or before `last`).
//!
//! **No escape and no rebase inside a step.** A step is valid only if `|dz| < r` at its start;
//! then every `dz_j` it passes over is below `r_j = ε |Z_j|`, and `r_j = 0` wherever
//! `|Z_j| >= 1.9`, so every skipped `z_j = Z_j + dz_j` has `|z_j| <= 1.9 (1 + ε) < 2` (no
//! escape test would have fired) and `|z_j| >= |Z_j| (1 - ε) > |dz_j|` (no rebase would have
//! happened). The step's end is tested as usual by the next iteration.
//!
//! **Extended exponent.** `A`, `B` and `r` are built in extended exponent (a mantissa and an
//! `i32` exponent: [`Cx`], [`FloatExp`]), so nothing underflows or overflows however deep the
//! view: a radius of 1e-700 (`r_y / |A_x|` with `|A_x|` of 1e500) is kept, not flushed to 0, and
//! `|dc|max` of 1e-533 still shrinks the radii as it must. The table stores the mantissas (`ab`),
//! the exponents (`exps`: `A`'s, `B`'s, `r`'s) and the radius's mantissa (`rm`); a pixel whose
//! delta carries an extended exponent (`w 2^e`) tests `|w|^2 2^(2(e - er)) < rm^2` and steps
//! `A dz + B dc` term by term in extended exponent, as [`super::perturb::extended_step`] does.
//! Plain deltas use `r2 = r^2` in `f64` (0 where `r`, `A` or `B` is outside `f64`'s range,
//! so such a step is never taken plainly) and `A`, `B` rebuilt with `ldexp`: exactly the
//! plain table's values.
//!
//! **Choosing a step.** At `m` (`m >= 1`, `Z_m` not tiny; `f32` deltas get no table) the levels `l >= 1` with `(m - 1) % 2^l == 0`, `m + 2^l <= last`
//! and `k + 2^l <= iters` are candidates; `r` never grows with `l` at a fixed start (`r` is a
//! `min` over `r_x`, the first half's), so the valid levels are `1..=L` and `L` is found by
//! binary lifting: level 1, then `+16, +8, +4, +2, +1` (no inner loop: llvmpipe stops a
//! shader whose inner loops run more than 65 535 iterations in all).

use rayon::prelude::*;

use super::real::Real;

/// `ε` of the validity radius: `2^-53` (an `f64` rounding), halved for safety. The neglected
/// `dz^2` is then below `2^-54` of the linear term, under the rounding of one plain step.
pub const BLA_EPSILON: f64 = 1.0 / 18_014_398_509_481_984.0; // 2^-54

/// `|Z_m|^2` at and beyond which a single step gets no radius (see the module's argument).
const NEAR_ESCAPE_SQ: f64 = 1.9 * 1.9;

/// Candidate levels are lifted by these many bits at most: `1 + 31` covers any table.
pub const LIFT_BITS: [u32; 5] = [16, 8, 4, 2, 1];

/// A non-negative real `m 2^e` with `m` in `[1, 2)` (or `m = 0`): a magnitude beyond `f64`'s range.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FloatExp {
    pub m: f64,
    pub e: i32,
}

impl FloatExp {
    pub const ZERO: Self = Self { m: 0.0, e: 0 };

    /// `m 2^e`, normalised (`m >= 0`; NaN and infinity give 0, i.e. "no radius").
    #[must_use]
    pub fn new(m: f64, e: i32) -> Self {
        if !(m > 0.0 && m.is_finite()) {
            return Self::ZERO;
        }
        let s = m.ilogb();
        Self { m: m.ldexp(-s), e: e.saturating_add(s) }
    }

    /// The value in `f64` (0 below its range, infinity above).
    #[must_use]
    pub fn to_f64(self) -> f64 {
        self.m.ldexp(self.e)
    }

    fn mul(self, o: Self) -> Self {
        Self::new(self.m * o.m, self.e.saturating_add(o.e))
    }

    fn div(self, o: Self) -> Self {
        if o.m == 0.0 { Self::ZERO } else { Self::new(self.m / o.m, self.e.saturating_sub(o.e)) }
    }

    /// `max(0, self - o)`.
    fn sub_pos(self, o: Self) -> Self {
        if o.m == 0.0 {
            return self;
        }
        if self.m == 0.0 {
            return Self::ZERO;
        }
        let e = self.e.max(o.e);
        Self::new(self.m.ldexp(self.e - e) - o.m.ldexp(o.e - e), e)
    }

    fn min(self, o: Self) -> Self {
        let less = |a: Self, b: Self| a.m == 0.0 || (b.m != 0.0 && (a.e < b.e || (a.e == b.e && a.m < b.m)));
        if less(o, self) { o } else { self }
    }
}

/// A complex number `(re + i im) 2^e` with `max(|re|, |im|)` in `[1, 2)` (or 0).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cx {
    pub re: f64,
    pub im: f64,
    pub e: i32,
}

impl Cx {
    /// `(re + i im) 2^e`, normalised (non-finite parts give a non-finite result).
    #[must_use]
    pub fn new(re: f64, im: f64, e: i32) -> Self {
        let q = re.abs().max(im.abs());
        if q.is_nan() || q <= 0.0 || q.is_infinite() {
            return Self { re, im, e: if q > 0.0 { e } else { 0 } };
        }
        let s = q.ilogb();
        Self { re: re.ldexp(-s), im: im.ldexp(-s), e: e.saturating_add(s) }
    }

    fn is_zero(self) -> bool {
        self.re == 0.0 && self.im == 0.0
    }

    fn is_finite(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }

    fn mul(self, o: Self) -> Self {
        Self::new(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re, self.e.saturating_add(o.e))
    }

    fn add(self, o: Self) -> Self {
        if self.is_zero() {
            return o;
        }
        if o.is_zero() {
            return self;
        }
        let e = self.e.max(o.e);
        let (s, t) = (self.e - e, o.e - e);
        Self::new(self.re.ldexp(s) + o.re.ldexp(t), self.im.ldexp(s) + o.im.ldexp(t), e)
    }

    fn abs(self) -> FloatExp {
        FloatExp::new(self.re.hypot(self.im), self.e)
    }

    /// The parts in `f64`, if both are within its normal range (or 0).
    fn plain(self) -> Option<(f64, f64)> {
        let q = self.re.abs().max(self.im.abs());
        let ok = q == 0.0 || (-1000..=1000).contains(&self.e);
        ok.then(|| (self.re.ldexp(self.e), self.im.ldexp(self.e)))
    }
}

/// Entries a parallel task takes at least (an entry costs tens of nanoseconds).
const PAR_MIN: usize = 4096;

/// The BLA table of one image (its `|dc|max`) and one reference orbit.
#[derive(Clone, Debug, Default)]
pub struct BlaTable {
    /// The mantissas of `A` and `B` of every step, four values an entry (`Re A, Im A, Re B,
    /// Im B`, each pair scaled by its exponent in `exps`), level 0 first.
    pub ab: Vec<f64>,
    /// The squared validity radius of every entry for plain deltas (`0`: never valid plainly).
    pub r2: Vec<f64>,
    /// The validity radius's mantissa (`[1, 2)`, or 0: never valid).
    pub rm: Vec<f64>,
    /// Four exponents an entry: `A`'s, `B`'s, the radius's, and 0.
    pub exps: Vec<i32>,
    /// Levels stored (level 0 = single steps); 0 or 1 means no step can be skipped.
    pub levels: u32,
    /// `last - 1`: level `l` holds `n >> l` entries.
    pub n: u32,
}

/// First entry of level `l` in a table whose level 0 holds `n` entries:
/// `sum_{i<l} (n >> i) = 2n - popcount(n) - 2 (n >> l) + popcount(n >> l)`, loop-free as the
/// kernels compute it.
#[inline]
#[must_use]
pub fn level_offset(n: u32, l: u32) -> u32 {
    let h = n >> l;
    // In this order no partial sum goes below 0 (the other order wraps, as the kernels' u32
    // does, to the same value, but a debug build stops on it).
    2 * n - 2 * h + h.count_ones() - n.count_ones()
}

/// Entries of a table being built: `count` entries from the slices' start (`ab` and `exps`
/// four values an entry).
struct Entries<'a> {
    ab: &'a mut [f64],
    exps: &'a mut [i32],
    rm: &'a mut [f64],
    r2: &'a mut [f64],
    count: usize,
}

/// Entries already built, read back as the values they were made from (the stored mantissas
/// and exponents are exactly those of [`Cx`] and [`FloatExp`]).
struct Built<'a> {
    ab: &'a [f64],
    exps: &'a [i32],
    rm: &'a [f64],
}

impl Built<'_> {
    fn get(&self, j: usize) -> (Cx, Cx, FloatExp) {
        let (ab, x) = (&self.ab[4 * j..4 * j + 4], &self.exps[4 * j..4 * j + 4]);
        (
            Cx { re: ab[0], im: ab[1], e: x[0] },
            Cx { re: ab[2], im: ab[3], e: x[1] },
            FloatExp { m: self.rm[j], e: x[2] },
        )
    }
}

impl<'a> Entries<'a> {
    /// `count` entries of `t` from entry `from`.
    fn of(t: &'a mut BlaTable, from: usize, count: usize) -> Self {
        Entries {
            ab: &mut t.ab[4 * from..],
            exps: &mut t.exps[4 * from..],
            rm: &mut t.rm[from..],
            r2: &mut t.r2[from..],
            count,
        }
    }

    /// Stores `make(j)` as entry `j`, `j < count`, in parallel.
    fn fill(self, make: impl Fn(usize) -> (Cx, Cx, FloatExp) + Sync) {
        let n = self.count;
        (
            self.ab[..4 * n].par_chunks_mut(4),
            self.exps[..4 * n].par_chunks_mut(4),
            &mut self.rm[..n],
            &mut self.r2[..n],
        )
            .into_par_iter()
            .enumerate()
            .with_min_len(PAR_MIN)
            .for_each(|(j, (ab, ex, rm, r2))| {
                let (a, b, r) = make(j);
                ab.copy_from_slice(&[a.re, a.im, b.re, b.im]);
                ex.copy_from_slice(&[a.e, b.e, r.e, 0]);
                *rm = r.m;
                let plain = a.plain().is_some() && b.plain().is_some() && (-500..=500).contains(&r.e);
                *r2 = if plain { r.to_f64() * r.to_f64() } else { 0.0 };
            });
    }
}

impl BlaTable {
    /// The entries before `at` (built) and from `at` on (to build).
    fn split_at(&mut self, at: usize) -> (Built<'_>, Entries<'_>) {
        let (ab0, ab1) = self.ab.split_at_mut(4 * at);
        let (ex0, ex1) = self.exps.split_at_mut(4 * at);
        let (rm0, rm1) = self.rm.split_at_mut(at);
        let r2 = &mut self.r2[at..];
        let count = r2.len();
        (Built { ab: ab0, exps: ex0, rm: rm0 }, Entries { ab: ab1, exps: ex1, rm: rm1, r2, count })
    }

    /// Builds the table for the orbit `(re, im)` (tiny values, `exp != 0`, get no step) usable
    /// up to `last`, its `|Z|^2 - 4` in `mag4`, and pixels with `|dc| <= dc_max`.
    #[must_use]
    pub fn build(re: &[f64], im: &[f64], exp: &[i32], mag4: &[f64], last: usize, dc_max: FloatExp) -> Self {
        let n = last.saturating_sub(1).min(u32::MAX as usize / 2) as u32;
        if n < 2 {
            return Self::default();
        }
        let levels = 32 - n.leading_zeros(); // the top level holds n >> (levels - 1) = 1 entry
        let total = level_offset(n, levels) as usize;
        // Each entry depends only on the orbit (level 0) or on two entries of the level below,
        // so every level is built in parallel, straight into the stored arrays (no copy: most
        // of a one-thread build was the first touch of fresh pages). An entry's operations are
        // the same as one thread's, so the table is bit for bit the same on any number of threads.
        let mut t = Self {
            levels,
            n,
            ab: vec![0.0; 4 * total],
            exps: vec![0; 4 * total],
            rm: vec![0.0; total],
            r2: vec![0.0; total],
        };
        let single = |m: usize| {
            // A tiny value (held with its exponent) gets no radius: no step starts at it or
            // jumps over it, its iteration is done as an extended-exponent one.
            let tiny = exp[m] != 0;
            let (zr, zi) = if tiny { (0.0, 0.0) } else { (re[m], im[m]) };
            let near_escape = mag4[m] + 4.0 >= NEAR_ESCAPE_SQ;
            let rr = if near_escape || tiny { FloatExp::ZERO } else { FloatExp::new(BLA_EPSILON * zr.hypot(zi), 0) };
            (Cx::new(2.0 * zr, 2.0 * zi, 0), Cx::new(1.0, 0.0, 0), rr)
        };
        Entries::of(&mut t, 0, n as usize).fill(|j| single(j + 1));
        for l in 1..levels {
            let (below, here) = (level_offset(n, l - 1) as usize, level_offset(n, l) as usize);
            let (lower, upper) = t.split_at(here);
            let merge = |j: usize| {
                let (ax, bx, rx) = lower.get(below + 2 * j);
                let (ay, by, ry) = lower.get(below + 2 * j + 1);
                let ab = ay.mul(ax);
                let bb = ay.mul(bx).add(by);
                let through = ry.sub_pos(bx.abs().mul(dc_max)).div(ax.abs());
                let mut rr = rx.min(through);
                if !(ab.is_finite() && bb.is_finite()) {
                    rr = FloatExp::ZERO;
                }
                (ab, bb, rr)
            };
            Entries { count: (n >> l) as usize, ..upper }.fill(merge);
        }
        t
    }

    /// Entries stored.
    #[must_use]
    pub fn len(&self) -> usize {
        self.r2.len()
    }

    /// True for a table that skips nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.levels < 2
    }

    /// `A` and `B` of entry `j` in `f64` (plain deltas: where its `r2` is above 0).
    #[inline]
    #[must_use]
    pub fn plain_ab(&self, j: usize) -> [f64; 4] {
        let (ab, x) = (&self.ab[4 * j..4 * j + 4], &self.exps[4 * j..4 * j + 4]);
        [ab[0].ldexp(x[0]), ab[1].ldexp(x[0]), ab[2].ldexp(x[1]), ab[3].ldexp(x[1])]
    }

    /// The longest valid step at `m` after `k` iterations of `iters`, for a delta with
    /// `|dz|^2 = dd` (plain) or `|w|^2 = dd` and exponent `e` (`Some(e)`: extended), with the
    /// reference usable up to `last`: `(level, entry)`, or `None`.
    #[inline]
    #[must_use]
    pub fn lookup(&self, m: usize, k: u32, iters: u32, last: usize, dd: f64, ext: Option<i32>) -> Option<(u32, usize)> {
        if self.levels < 2 || m == 0 {
            return None;
        }
        let cap = ((m - 1) as u32).trailing_zeros().min(self.levels - 1);
        let entry = |l: u32| (level_offset(self.n, l) + ((m - 1) as u32 >> l)) as usize;
        let inside = |j: usize| match ext {
            None => dd < self.r2[j],
            Some(e) => dd.ldexp(2 * (e - self.exps[4 * j + 2])) < self.rm[j] * self.rm[j],
        };
        let valid = |l: u32| {
            l <= cap && m + (1 << l) <= last && u64::from(k) + (1 << l) <= u64::from(iters) && inside(entry(l))
        };
        if !valid(1) {
            return None;
        }
        let mut l = 1;
        for bit in LIFT_BITS {
            if valid(l + bit) {
                l += bit;
            }
        }
        Some((l, entry(l)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_the_sums_of_the_levels() {
        for n in [2u32, 3, 7, 8, 49_998, 100_000] {
            let mut sum = 0;
            for l in 0..=(32 - n.leading_zeros()) {
                assert_eq!(level_offset(n, l), sum, "n {n} level {l}");
                sum += n >> l;
            }
        }
    }

    #[test]
    fn a_step_is_the_iterations_it_replaces() {
        // A short orbit of c = -0.1 + 0.6i: a level-3 step against 8 perturbed iterations.
        let (cr, ci) = (-0.1f64, 0.6f64);
        let (mut re, mut im, mut mag4) = (vec![0.0], vec![0.0], vec![-4.0]);
        for _ in 0..40 {
            let (zr, zi) = (re[re.len() - 1], im[im.len() - 1]);
            let (nr, ni) = (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci);
            re.push(nr);
            im.push(ni);
            mag4.push(nr * nr + ni * ni - 4.0);
        }
        let dc = (3e-30, -2e-30);
        let t = BlaTable::build(&re, &im, &[0; 41], &mag4, 40, FloatExp::new(1e-29, 0));
        let (mut dr, mut di) = (1e-28, 2e-28);
        let (l, e) = t.lookup(9, 8, 1000, 40, dr * dr + di * di, None).unwrap();
        assert!(l >= 3, "level {l}");
        let ab = t.plain_ab(e);
        let (sr, si) = (
            ab[0] * dr - ab[1] * di + ab[2] * dc.0 - ab[3] * dc.1,
            ab[0] * di + ab[1] * dr + ab[2] * dc.1 + ab[3] * dc.0,
        );
        for m in 9..9 + (1 << l) {
            let (tr, ti) = (2.0 * re[m] + dr, 2.0 * im[m] + di);
            (dr, di) = (tr * dr - ti * di + dc.0, tr * di + ti * dr + dc.1);
        }
        let err = (sr - dr).hypot(si - di) / dr.hypot(di);
        assert!(err < 1e-13, "relative error {err:e} over {} iterations", 1 << l);
    }

    #[test]
    fn the_table_is_the_same_on_one_thread_and_on_many() {
        // An orbit of c = -0.75 + 0.1i long enough (20 000 entries) that every level is split
        // between tasks; a merge's operations are one entry's, so the bits cannot depend on the
        // number of threads.
        let (cr, ci) = (-0.75f64, 0.1f64);
        let (mut re, mut im, mut mag4) = (vec![0.0], vec![0.0], vec![-4.0]);
        for _ in 0..20_000 {
            let (zr, zi) = (re[re.len() - 1], im[im.len() - 1]);
            let (nr, ni) = (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci);
            re.push(nr);
            im.push(ni);
            mag4.push(nr * nr + ni * ni - 4.0);
        }
        let exp = vec![0; re.len()];
        let build = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| BlaTable::build(&re, &im, &exp, &mag4, 20_000, FloatExp::new(1e-40, 0)))
        };
        let (one, many) = (build(1), build(5));
        assert!(one.levels > 10, "levels {}", one.levels);
        assert_eq!(one.ab.len(), 4 * level_offset(one.n, one.levels) as usize);
        let same =
            |a: &[f64], b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same(&one.ab, &many.ab) && same(&one.r2, &many.r2) && same(&one.rm, &many.rm));
        assert_eq!(one.exps, many.exps);
    }
}
