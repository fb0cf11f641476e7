//! The exterior distance estimate and slope normal of deep (perturbation) views: the twin of
//! [`super::distance`] for [`super::perturb`]'s pixels, and the rule the CUDA kernel
//! (`kernels/mandelbrot_deep.cu`, `mandelbrot_deep_de_f64`) follows operation for operation.
//!
//! Beside the perturbed orbit runs the derivative of the pixel's own `z = Z + dz` with respect
//! to `c` (Kalles Fraktaler's, Fraktaler 3's and fractalshades' derivative perturbation),
//! measured in pixels: `S = (dz/dc) h` with `h` the pixel spacing, so that at the escape
//! `d = |z| ln|z| / |S|` is the distance in pixels with no huge number in sight:
//! - a single step (plain, extended exponent, or the one after a rebase) of `z' = z^2 + c`:
//!   `S' = 2 z S + h`, with the pixel's full `z` (at a tiny reference value, in its exponent);
//! - a BLA step `dz' = A dz + B dc`: `S' = A S + B h` (`Z` does not depend on `c`);
//! - a rebase changes nothing: `S` is the derivative of `z`, not of the delta.
//!
//! `|dz/dc|` reaches about `1 / h` at the escape, past `f64`'s range beyond a zoom of 1e308,
//! and starts at 1; `S` starts at `h` (1e-533 at 2e533). So `S` is held as a complex mantissa
//! and an `i32` exponent, `S = (sr + i si) 2^se`, the mantissa brought back near 1 only when it
//! leaves `[2^-32, 2^32]` ([`Slope::renorm`]); between those, a step costs what the shallow
//! derivative does (`h 2^-se` is kept, [`Slope::h`]).

use super::deep::DeepJob;
use super::distance::{DE_VALUES, distance_and_normal};
use super::mandelbrot::iterations_executed;
use super::perturb::{Deltas, Iterations, Real, ldexp64, perturb_escape_tracked, smooth_tail_tracked};
use super::track::Track;

/// The mantissa of [`Slope`] is renormalised when its larger part leaves `[2^-R, 2^R]`.
pub const SLOPE_RENORM_EXP: i32 = 32;

/// The derivative `S = (dz/dc) h = (sr + i si) 2^se` of a pixel's orbit in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slope<T> {
    pub sr: T,
    pub si: T,
    pub se: i32,
    /// The pixel spacing `h = hm 2^he`.
    pub hm: T,
    pub he: i32,
    /// `h 2^-se`: the `+ h` of a step in the mantissa's scale.
    pub h: T,
}

impl<T: Real> Slope<T> {
    /// `S_1 = h` (`z_1 = c`, `dz_1/dc = 1`) for the spacing `hm 2^he`.
    #[must_use]
    pub fn start(hm: T, he: i32) -> Self {
        Self { sr: hm, si: T::ZERO, se: he, hm, he, h: hm }
    }

    /// The mantissa brought back to `[1, 2)` when it has left `[2^-R, 2^R]`.
    #[inline]
    pub fn renorm(&mut self) {
        let q = self.sr.abs().max(self.si.abs());
        let big = T::ONE.ldexp(SLOPE_RENORM_EXP);
        let small = T::ONE.ldexp(-SLOPE_RENORM_EXP);
        if q > big || (q < small && q > T::ZERO) {
            let s = q.ilogb();
            self.sr = self.sr.ldexp(-s);
            self.si = self.si.ldexp(-s);
            self.se += s;
            self.h = self.hm.ldexp(self.he - self.se);
        }
    }

    /// `[distance in pixels, ux, uy]` at the escaped `z = (zr, zi)` ([`distance_and_normal`]
    /// of the mantissa, the distance then scaled by `2^-se`).
    #[must_use]
    pub fn distance(&self, zr: T, zi: T) -> [f64; 3] {
        let [d, ux, uy] = distance_and_normal(zr.to_f64(), zi.to_f64(), self.sr.to_f64(), self.si.to_f64());
        [ldexp64(d, -i64::from(self.se)), ux, uy]
    }
}

impl<T: Real> Track<T> for Slope<T> {
    #[inline]
    fn step(&mut self, zr: T, zi: T, ze: i32) {
        let nr = T::TWO * (zr * self.sr - zi * self.si);
        let ni = T::TWO * (zr * self.si + zi * self.sr);
        if ze != 0 {
            self.se += ze;
            self.h = self.hm.ldexp(self.he - self.se);
        }
        self.sr = nr + self.h;
        self.si = ni;
        self.renorm();
    }

    #[inline]
    fn bla(&mut self, ab: &[f64], ea: i32, eb: i32) {
        let (ar, ai, br, bi) = (T::from_f64(ab[0]), T::from_f64(ab[1]), T::from_f64(ab[2]), T::from_f64(ab[3]));
        // A S in 2^(ea + se), B h in 2^(eb + he), both brought to the larger exponent.
        let (e1, e2) = (ea + self.se, eb + self.he);
        let r = e1.max(e2);
        let nr = (ar * self.sr - ai * self.si).ldexp(e1 - r) + (br * self.hm).ldexp(e2 - r);
        let ni = (ar * self.si + ai * self.sr).ldexp(e1 - r) + (bi * self.hm).ldexp(e2 - r);
        self.sr = nr;
        self.si = ni;
        self.se = r;
        self.h = self.hm.ldexp(self.he - r);
        self.renorm();
    }
}

/// The count, smooth value and `[distance in pixels, ux, uy]` of the pixel `C + dc`,
/// `dc = (dcr + i dci) 2^dce`, with pixel spacing `hm 2^dce`, and the iterations executed. The
/// count and smooth value are exactly [`super::perturb::perturb_smooth_executed`]'s; a pixel
/// that never escaped gets `[0, 0, 0]`.
#[inline]
#[must_use]
pub fn perturb_distance<T: Real>(
    d: &Deltas<'_, T>,
    (dcr, dci, dce): (T, T, i32),
    hm: T,
    iters: u32,
) -> (u32, f32, [f64; 3], u64) {
    let mut slope = Slope::start(hm, dce);
    let (k, fr, fi, executed) = perturb_escape_tracked(d, dcr, dci, dce, iters, &mut slope);
    if k == iters {
        return (iters, iters as f32, [0.0; DE_VALUES], executed);
    }
    let cr = d.zr[1].ldexp(d.zexp[1]) + dcr.ldexp(dce);
    let ci = d.zi[1].ldexp(d.zexp[1]) + dci.ldexp(dce);
    let (nu, zr, zi) = smooth_tail_tracked(fr, fi, cr, ci, k + 1, iters, &mut slope);
    (k, nu, slope.distance(zr, zi), executed)
}

/// Row `y` of `job`: counts (exactly [`super::deep::perturb_row`]'s), smooth values and
/// [`DE_VALUES`] numbers a pixel (distance in pixels, normal) into `de`.
pub fn perturb_row_distance<T: Real>(
    job: &DeepJob,
    d: &Deltas<'_, T>,
    y: usize,
    row: &mut [i32],
    smooth: &mut [f32],
    de: &mut [f32],
) -> Iterations {
    let g = &job.grid;
    let dci = T::from_f64(g.ay) + T::from_f64(y as f64) * T::from_f64(g.by);
    let hm = T::from_f64(g.bx);
    let mut total = Iterations::default();
    for (x, ((out, s), px)) in row.iter_mut().zip(smooth.iter_mut()).zip(de.chunks_exact_mut(DE_VALUES)).enumerate() {
        let dcr = T::from_f64(g.ax) + T::from_f64(x as f64) * T::from_f64(g.bx);
        let (count, nu, [dist, ux, uy], executed) = perturb_distance(d, (dcr, dci, g.exp), hm, job.iters);
        total.rule += iterations_executed(count, job.iters);
        total.executed += executed;
        *out = count as i32;
        *s = nu;
        px.copy_from_slice(&[dist as f32, ux as f32, uy as f32]);
    }
    total
}

#[cfg(test)]
#[path = "deep_distance_tests.rs"]
mod tests;
