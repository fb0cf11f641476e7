//! A deep view's pixels: its bounds in arbitrary precision (`BigBounds`) and where each pixel
//! lies from the reference point as scaled `f64` (`PixelGrid`); `deep.rs` re-exports both.

use astro_float::BigFloat;

use super::bla::FloatExp;
use super::perturb::{RM, ldexp64, mant_exp};

/// A view's centre and bounds in arbitrary precision.
#[derive(Clone, Debug)]
pub struct BigBounds {
    pub re: BigFloat,
    pub im: BigFloat,
    pub minx: BigFloat,
    pub maxx: BigFloat,
    pub miny: BigFloat,
    pub maxy: BigFloat,
    pub bits: usize,
}

impl BigBounds {
    /// `c` of pixel `(x, y)`: `minx + x*px`, `miny + y*py` with `px`, `py` as the seed computes
    /// them, in arbitrary precision.
    #[must_use]
    pub fn pixel(&self, width: usize, height: usize, x: usize, y: usize) -> (BigFloat, BigFloat) {
        let p = self.bits;
        let px = self.maxx.sub(&self.minx, p, RM).div(&BigFloat::from_u64(width as u64, p), p, RM);
        let py = self.maxy.sub(&self.miny, p, RM).div(&BigFloat::from_u64(height as u64, p), p, RM);
        let cr = self.minx.add(&px.mul(&BigFloat::from_u64(x as u64, p), p, RM), p, RM);
        let ci = self.miny.add(&py.mul(&BigFloat::from_u64(y as u64, p), p, RM), p, RM);
        (cr, ci)
    }
}

/// Where each pixel lies relative to the reference (the centre), as scaled `f64`:
/// `dc = ((ax + x*bx) + i(ay + y*by)) * 2^exp`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PixelGrid {
    pub exp: i32,
    pub ax: f64,
    pub bx: f64,
    pub ay: f64,
    pub by: f64,
}

impl PixelGrid {
    /// The grid of `b` for a `width x height` image, around its centre.
    #[must_use]
    pub fn new(b: &BigBounds, width: usize, height: usize) -> Self {
        Self::around(b, width, height, (&b.re, &b.im))
    }

    /// The grid of `b` for a `width x height` image around the reference point `c` (the
    /// centre, or a minibrot's nucleus in or near the view).
    #[must_use]
    pub fn around(b: &BigBounds, width: usize, height: usize, c: (&BigFloat, &BigFloat)) -> Self {
        let p = b.bits;
        let px = b.maxx.sub(&b.minx, p, RM).div(&BigFloat::from_u64(width as u64, p), p, RM);
        let py = b.maxy.sub(&b.miny, p, RM).div(&BigFloat::from_u64(height as u64, p), p, RM);
        let offx = b.minx.sub(c.0, p, RM);
        let offy = b.miny.sub(c.1, p, RM);
        let (_, e) = mant_exp(&py);
        let scaled = |v: &BigFloat| {
            let (m, ve) = mant_exp(v);
            ldexp64(m, ve - e)
        };
        Self { exp: e as i32, ax: scaled(&offx), bx: scaled(&px), ay: scaled(&offy), by: scaled(&py) }
    }

    /// The largest `|dc|` of a `width x height` image over its four corners, with an extended
    /// exponent (it is below `f64`'s range past a zoom of 1e308).
    #[must_use]
    pub fn dc_max(&self, width: usize, height: usize) -> FloatExp {
        let (w, h) = (width.saturating_sub(1), height.saturating_sub(1));
        let m = [(0, 0), (w, 0), (0, h), (w, h)]
            .into_iter()
            .map(|(x, y)| {
                let (a, b) = self.dc(x, y);
                a.hypot(b)
            })
            .fold(0.0, f64::max);
        FloatExp::new(m, self.exp)
    }

    /// `dc` of pixel `(x, y)` as scaled `f64`: `(dcr, dci)` times `2^exp`.
    #[inline]
    #[must_use]
    pub fn dc(&self, x: usize, y: usize) -> (f64, f64) {
        (self.ax + x as f64 * self.bx, self.ay + y as f64 * self.by)
    }
}
