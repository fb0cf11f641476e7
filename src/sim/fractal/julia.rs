//! The Julia set of `z^2 + c`: the seed's Mandelbrot pixel rule ([`crate::sim::fractal::mandelbrot`]) with the
//! roles swapped. The point of a pixel is the orbit's **start**, `c` is fixed for the image.
//!
//! For an image of `height x width` over `bounds`, `px = (maxx-minx)/width`,
//! `py = (maxy-miny)/height`, pixel `(row y, col x)` starts at `z_0 = (minx + x*px) + i(miny + y*py)`;
//! `z_{k+1} = z_k^2 + c`; the count is the first `k` in `0..iters` with `|z_{k+1}|^2 >= 4`, else
//! `iters`. Row 0 is at `miny`. With `c = 0` the filled Julia set is the closed unit disc.
//!
//! Precision: `f64` (and `f32`) only, no perturbation: Julia views are shallow. Beyond a zoom of
//! about 1e13 (`f64`) or 1e5 (`f32`) neighbouring pixels start at the same point
//! ([`JuliaParams::precision_exhausted`]).

use serde::{Deserialize, Serialize};

use crate::sim::ParamsError;

use crate::sim::fractal::mandelbrot::{
    Bounds, MandelbrotParams, Precision, escape_smooth_f32, escape_smooth_f64, iterations_executed,
};

/// Everything that defines one Julia image.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JuliaParams {
    pub width: usize,
    pub height: usize,
    pub iters: u32,
    pub bounds: Bounds,
    pub precision: Precision,
    /// The fixed `c = c[0] + i c[1]`.
    pub c: [f64; 2],
}

impl JuliaParams {
    /// The default view: `[-1.8, 1.8] x [-1.2, 1.2]` (3:2, like the seed's image), which holds
    /// every Julia set of a `c` in the Mandelbrot set's main parts.
    pub const DEFAULT_BOUNDS: Bounds = Bounds { minx: -1.8, maxx: 1.8, miny: -1.2, maxy: 1.2 };

    /// The image grid as Mandelbrot parameters (same size, bounds, iterations, precision): the
    /// pixel points are computed the same way.
    #[must_use]
    pub fn grid(&self) -> MandelbrotParams {
        MandelbrotParams {
            width: self.width,
            height: self.height,
            iters: self.iters,
            bounds: self.bounds,
            precision: self.precision,
        }
    }

    /// Pixels in the image.
    #[must_use]
    pub fn pixels(&self) -> usize {
        self.width * self.height
    }

    /// As [`MandelbrotParams::precision_exhausted`].
    #[must_use]
    pub fn precision_exhausted(&self) -> bool {
        self.grid().precision_exhausted()
    }

    /// Checks sizes, iterations, bounds and `c`.
    ///
    /// # Errors
    /// A message naming the bad value.
    pub fn validate(&self) -> Result<(), ParamsError> {
        self.grid().validate()?;
        if let Some(v) = self.c.iter().find(|v| !v.is_finite()) {
            return Err(ParamsError::Value(format!("c component {v} is not a finite number")));
        }
        if self.precision == Precision::F32
            && let Some(v) = self.c.iter().find(|v| v.abs() > f64::from(f32::MAX))
        {
            return Err(ParamsError::Precision(format!(
                "c component {v:?} is beyond f32's range (3.4e38); use --precision f64"
            )));
        }
        Ok(())
    }
}

/// Count and smooth value of the orbit from `z_0 = (zr, zi)` at `p`'s precision (`z_0` and `c`
/// rounded to `f32` for `f32`).
#[inline]
#[must_use]
pub fn julia_point(p: &JuliaParams, zr: f64, zi: f64) -> (u32, f32) {
    match p.precision {
        Precision::F64 => escape_smooth_f64(zr, zi, p.c[0], p.c[1], p.iters),
        Precision::F32 => escape_smooth_f32(zr as f32, zi as f32, p.c[0] as f32, p.c[1] as f32, p.iters),
    }
}

/// Row `y` of the image into `row` and, when given, the smooth values into `smooth` (both of
/// length `width`); returns the iterations executed by the rule. The CPU twin of
/// `kernels/julia.cu` and `shaders/julia.wgsl`.
pub fn julia_row(p: &JuliaParams, y: usize, row: &mut [i32], mut smooth: Option<&mut [f32]>) -> u64 {
    let (px, py) = p.grid().pixel_size();
    let b = &p.bounds;
    let zi = b.miny + y as f64 * py;
    let mut total = 0;
    for (x, out) in row.iter_mut().enumerate() {
        let (count, nu) = julia_point(p, b.minx + x as f64 * px, zi);
        total += iterations_executed(count, p.iters);
        *out = count as i32;
        if let Some(s) = smooth.as_deref_mut() {
            s[x] = nu;
        }
    }
    total
}

/// The single-thread reference: counts and smooth values of the whole image, and the
/// iterations executed.
#[must_use]
pub fn reference(p: &JuliaParams) -> (Vec<i32>, Vec<f32>, u64) {
    let mut counts = vec![0; p.pixels()];
    let mut smooth = vec![0.0; p.pixels()];
    let mut total = 0;
    for (y, (row, s)) in counts.chunks_exact_mut(p.width).zip(smooth.chunks_exact_mut(p.width)).enumerate() {
        total += julia_row(p, y, row, Some(s));
    }
    (counts, smooth, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_points() {
        let p = JuliaParams {
            width: 1,
            height: 1,
            iters: 100,
            bounds: JuliaParams::DEFAULT_BOUNDS,
            precision: Precision::F64,
            c: [0.0, 0.0],
        };
        // c = 0: z_k = z_0^(2^k). |z_0| = 1.1: 1.21, 1.4641, 2.1436 -> escapes at k = 2.
        assert_eq!(julia_point(&p, 1.1, 0.0).0, 2);
        assert_eq!(julia_point(&p, 0.0, 1.5).0, 0);
        assert_eq!(julia_point(&p, 0.6, 0.79).0, 100);
        // From z_0 = 0 the orbit is the Mandelbrot orbit of c: c = 1 escapes at k = 1.
        let p1 = JuliaParams { c: [1.0, 0.0], ..p };
        assert_eq!(julia_point(&p1, 0.0, 0.0).0, 1);
    }
}
