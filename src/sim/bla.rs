//! Bilinear approximation (BLA, Zhuoran, fractalforums 2021, as Fraktaler 3 and Imagina use
//! it): a table that lets a pixel skip many perturbed iterations at once, built on the host
//! from the reference orbit and used by every `f64` twin (`perturb_escape` in
//! [`super::perturb`], `kernels/mandelbrot_deep.cu`, `shaders/mandelbrot_deep.wgsl`).
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
//! **Choosing a step.** At `m` (`m >= 1`, plain deltas only: the extended-exponent and `f32`
//! paths do not use the table) the levels `l >= 1` with `(m - 1) % 2^l == 0`, `m + 2^l <= last`
//! and `k + 2^l <= iters` are candidates; `r` never grows with `l` at a fixed start (`r` is a
//! `min` over `r_x`, the first half's), so the valid levels are `1..=L` and `L` is found by
//! binary lifting: level 1, then `+16, +8, +4, +2, +1` (no inner loop: llvmpipe stops a
//! shader whose inner loops run more than 65 535 iterations in all).

/// `ε` of the validity radius: `2^-53` (an `f64` rounding), halved for safety. The neglected
/// `dz^2` is then below `2^-54` of the linear term, under the rounding of one plain step.
pub const BLA_EPSILON: f64 = 1.0 / 18_014_398_509_481_984.0; // 2^-54

/// `|Z_m|^2` at and beyond which a single step gets no radius (see the module's argument).
const NEAR_ESCAPE_SQ: f64 = 1.9 * 1.9;

/// Candidate levels are lifted by these many bits at most: `1 + 31` covers any table.
pub const LIFT_BITS: [u32; 5] = [16, 8, 4, 2, 1];

/// The BLA table of one image (its `|dc|max`) and one reference orbit.
#[derive(Clone, Debug, Default)]
pub struct BlaTable {
    /// `A` and `B` of every step, four values an entry (`Re A, Im A, Re B, Im B`), level 0 first.
    pub ab: Vec<f64>,
    /// The squared validity radius of every entry (`0`: never valid).
    pub r2: Vec<f64>,
    /// Levels stored (level 0 = single steps); 0 or 1 means no step can be skipped.
    pub levels: u32,
    /// `last - 1`: level `l` holds `n >> l` entries.
    pub n: u32,
    /// Wall time of the build.
    pub millis: f64,
}

/// First entry of level `l` in a table whose level 0 holds `n` entries:
/// `sum_{i<l} (n >> i) = 2n - popcount(n) - 2 (n >> l) + popcount(n >> l)`, loop-free as the
/// kernels compute it.
#[inline]
#[must_use]
pub fn level_offset(n: u32, l: u32) -> u32 {
    let h = n >> l;
    2 * n - n.count_ones() - 2 * h + h.count_ones()
}

impl BlaTable {
    /// Builds the table for the orbit `(re, im)` usable up to `last`, its `|Z|^2 - 4` in
    /// `mag4`, and pixels with `|dc| <= dc_max` (plain `f64`).
    #[must_use]
    pub fn build(re: &[f64], im: &[f64], exp: &[i32], mag4: &[f64], last: usize, dc_max: f64) -> Self {
        let start = std::time::Instant::now();
        let n = last.saturating_sub(1).min(u32::MAX as usize / 2) as u32;
        if n < 2 {
            return Self::default();
        }
        let levels = 32 - n.leading_zeros(); // the top level holds n >> (levels - 1) = 1 entry
        let total = level_offset(n, levels) as usize;
        let mut ab = Vec::with_capacity(4 * total);
        let mut r = Vec::with_capacity(total);
        for m in 1..=n as usize {
            // A tiny value (held with its exponent) gets no radius: no step starts at it or
            // jumps over it, its iteration is done as an extended-exponent one.
            let tiny = exp[m] != 0;
            let (zr, zi) = if tiny { (0.0, 0.0) } else { (re[m], im[m]) };
            ab.extend_from_slice(&[2.0 * zr, 2.0 * zi, 1.0, 0.0]);
            let near_escape = mag4[m] + 4.0 >= NEAR_ESCAPE_SQ;
            r.push(if near_escape || tiny { 0.0 } else { BLA_EPSILON * zr.hypot(zi) });
        }
        for l in 1..levels {
            let (below, here) = (level_offset(n, l - 1) as usize, level_offset(n, l) as usize);
            for j in 0..(n >> l) as usize {
                let (x, y) = (below + 2 * j, below + 2 * j + 1);
                let (axr, axi, bxr, bxi) = (ab[4 * x], ab[4 * x + 1], ab[4 * x + 2], ab[4 * x + 3]);
                let (ayr, ayi, byr, byi) = (ab[4 * y], ab[4 * y + 1], ab[4 * y + 2], ab[4 * y + 3]);
                let a = [ayr * axr - ayi * axi, ayr * axi + ayi * axr];
                let b = [ayr * bxr - ayi * bxi + byr, ayr * bxi + ayi * bxr + byi];
                let through = (r[y] - bxr.hypot(bxi) * dc_max) / axr.hypot(axi);
                let mut rr = r[x].min(through.max(0.0));
                if !(rr.is_finite() && a.iter().chain(&b).all(|v| v.is_finite())) {
                    rr = 0.0;
                }
                debug_assert_eq!(ab.len(), 4 * (here + j));
                ab.extend_from_slice(&[a[0], a[1], b[0], b[1]]);
                r.push(rr);
            }
        }
        let r2 = r.iter().map(|v| v * v).collect();
        Self { ab, r2, levels, n, millis: start.elapsed().as_secs_f64() * 1e3 }
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

    /// The longest valid step at `m` after `k` iterations of `iters`, for `|dz|^2 = dd`, with
    /// the reference usable up to `last`: `(level, entry)`, or `None`.
    #[inline]
    #[must_use]
    pub fn lookup(&self, m: usize, k: u32, iters: u32, last: usize, dd: f64) -> Option<(u32, usize)> {
        if self.levels < 2 || m == 0 {
            return None;
        }
        let cap = ((m - 1) as u32).trailing_zeros().min(self.levels - 1);
        let entry = |l: u32| (level_offset(self.n, l) + ((m - 1) as u32 >> l)) as usize;
        let valid = |l: u32| {
            l <= cap && m + (1 << l) <= last && u64::from(k) + (1 << l) <= u64::from(iters) && dd < self.r2[entry(l)]
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
        let t = BlaTable::build(&re, &im, &[0; 41], &mag4, 40, 1e-29);
        let (mut dr, mut di) = (1e-28, 2e-28);
        let (l, e) = t.lookup(9, 8, 1000, 40, dr * dr + di * di).unwrap();
        assert!(l >= 3, "level {l}");
        let ab = &t.ab[4 * e..4 * e + 4];
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
}
