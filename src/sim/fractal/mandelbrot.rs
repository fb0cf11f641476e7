//! The Mandelbrot escape count exactly as the seed's Numba kernel computes it.
//!
//! For an image of `height x width`, `px = (maxx-minx)/width`, `py = (maxy-miny)/height`,
//! pixel `(row y, col x)` has `c = (minx + x*px) + i*(miny + y*py)`; `z0 = 0`,
//! `z_{k+1} = z_k^2 + c`; the count is the first `k` in `0..iters` with `|z_{k+1}|^2 >= 4`,
//! else `iters`. Row 0 is at `miny`.
//!
//! Beside the count, every backend can return a continuous escape value ([`smooth_value`]) for
//! smooth colouring; the counts stay exactly the rule's.

use serde::{Deserialize, Serialize};

use crate::sim::ParamsError;

/// Floating-point precision of a Mandelbrot computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
pub enum Precision {
    /// Single precision: fast on every GPU, runs out near a zoom of 1e5.
    F32,
    /// Double precision: exact counts on the CPU, runs out near a zoom of 1e13.
    F64,
}

impl Precision {
    /// `"f32"` or `"f64"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F64 => "f64",
        }
    }

    /// Relative pixel size under which this precision can no longer tell neighbours apart.
    #[must_use]
    pub fn resolution_limit(self) -> f64 {
        match self {
            Self::F32 => 2.0 * f64::from(f32::EPSILON),
            Self::F64 => 2.0 * f64::EPSILON,
        }
    }
}

/// The region of the complex plane shown: `[minx, maxx] x [miny, maxy]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    pub minx: f64,
    pub maxx: f64,
    pub miny: f64,
    pub maxy: f64,
}

impl Bounds {
    /// The seed's view, `[-2, 1] x [-1, 1]`.
    pub const SEED: Self = Self { minx: -2.0, maxx: 1.0, miny: -1.0, maxy: 1.0 };

    /// Checks that every value is finite and each min is below its max.
    ///
    /// # Errors
    /// A message naming the bad bound.
    pub fn validate(&self) -> Result<(), ParamsError> {
        let all = [self.minx, self.maxx, self.miny, self.maxy];
        if let Some(v) = all.iter().find(|v| !v.is_finite()) {
            return Err(ParamsError::Value(format!("bound {v} is not a finite number")));
        }
        if self.minx >= self.maxx {
            return Err(ParamsError::Value(format!("minx {} must be below maxx {}", self.minx, self.maxx)));
        }
        if self.miny >= self.maxy {
            return Err(ParamsError::Value(format!("miny {} must be below maxy {}", self.miny, self.maxy)));
        }
        Ok(())
    }
}

impl std::str::FromStr for Bounds {
    type Err = ParamsError;

    /// Parses `MINX,MAXX,MINY,MAXY`.
    fn from_str(s: &str) -> Result<Self, ParamsError> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() != 4 {
            return Err(ParamsError::Value(format!(
                "'{s}' has {} values; expected 4: MINX,MAXX,MINY,MAXY",
                parts.len()
            )));
        }
        let mut v = [0.0f64; 4];
        for (slot, part) in v.iter_mut().zip(&parts) {
            *slot = part.parse().map_err(|_| ParamsError::Value(format!("'{part}' in '{s}' is not a number")))?;
        }
        let b = Self { minx: v[0], maxx: v[1], miny: v[2], maxy: v[3] };
        b.validate()?;
        Ok(b)
    }
}

/// Everything that defines one Mandelbrot image.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MandelbrotParams {
    pub width: usize,
    pub height: usize,
    pub iters: u32,
    pub bounds: Bounds,
    pub precision: Precision,
}

impl MandelbrotParams {
    /// The seed's image: 1536 x 1024, 20 iterations, `[-2, 1] x [-1, 1]`, `f64`.
    pub const SEED: Self =
        Self { width: 1536, height: 1024, iters: 20, bounds: Bounds::SEED, precision: Precision::F64 };

    /// Pixels in the image.
    #[must_use]
    pub fn pixels(&self) -> usize {
        self.width * self.height
    }

    /// `(px, py)`: the pixel size in `f64`, as the seed computes it.
    #[must_use]
    pub fn pixel_size(&self) -> (f64, f64) {
        let b = &self.bounds;
        ((b.maxx - b.minx) / self.width as f64, (b.maxy - b.miny) / self.height as f64)
    }

    /// True when the pixel size is below what `precision` can resolve at this view: along
    /// either axis, a pixel is smaller than a few units in the last place of that axis's
    /// coordinates. (Each axis against its own coordinates: a view millions wide along x
    /// but 2 high along y has huge pixels, not tiny ones.)
    #[must_use]
    pub fn precision_exhausted(&self) -> bool {
        let (px, py) = self.pixel_size();
        let b = &self.bounds;
        let relative = |pixel: f64, lo: f64, hi: f64| pixel / lo.abs().max(hi.abs()).max(f64::MIN_POSITIVE);
        relative(px, b.minx, b.maxx).min(relative(py, b.miny, b.maxy)) < self.precision.resolution_limit() * 4.0
    }

    /// True when every count is 0: no pixel of the view lies within distance 2 of 0, so every
    /// point escapes at the first iteration and the picture is one colour.
    #[must_use]
    pub fn all_escape_at_once(counts: &[i32]) -> bool {
        !counts.is_empty() && counts.iter().all(|&c| c == 0)
    }

    /// Checks sizes, iterations and bounds.
    ///
    /// # Errors
    /// A message naming the bad value.
    pub fn validate(&self) -> Result<(), ParamsError> {
        if self.width == 0 || self.height == 0 {
            return Err(ParamsError::Size(format!(
                "image {}x{} must have at least 1 pixel a side",
                self.width, self.height
            )));
        }
        if self.width.checked_mul(self.height).and_then(|p| p.checked_mul(8)).is_none() {
            return Err(ParamsError::Size(format!("image {}x{} is too large to address", self.width, self.height)));
        }
        if self.iters == 0 || self.iters > i32::MAX as u32 {
            return Err(ParamsError::Value(format!("iterations {} must be in 1..={}", self.iters, i32::MAX)));
        }
        self.bounds.validate()?;
        let (px, py) = self.pixel_size();
        if !px.is_finite() || !py.is_finite() {
            let b = &self.bounds;
            return Err(ParamsError::Value(format!(
                "the view {:?},{:?},{:?},{:?} is wider than f64 can hold (maxx-minx or maxy-miny overflows)",
                b.minx, b.maxx, b.miny, b.maxy
            )));
        }
        if self.precision == Precision::F32 {
            let b = &self.bounds;
            if let Some(v) = [b.minx, b.maxx, b.miny, b.maxy].into_iter().find(|v| v.abs() > f64::from(f32::MAX)) {
                return Err(ParamsError::Precision(format!(
                    "bound {v:?} is beyond f32's range (3.4e38); use --precision f64"
                )));
            }
        }
        Ok(())
    }
}

macro_rules! escape_count {
    ($name:ident, $t:ty, $doc:literal) => {
        #[doc = $doc]
        #[inline]
        #[must_use]
        pub fn $name(cr: $t, ci: $t, iters: u32) -> u32 {
            let (mut zr, mut zi): ($t, $t) = (0.0, 0.0);
            for k in 0..iters {
                // (zr + i zi)^2 + c, as numpy/Numba multiply complex numbers.
                let nr = zr * zr - zi * zi + cr;
                let ni = zr * zi + zi * zr + ci;
                zr = nr;
                zi = ni;
                if zr * zr + zi * zi >= 4.0 {
                    return k;
                }
            }
            iters
        }
    };
}

escape_count!(escape_count_f64, f64, "Escape count of one point in `f64`, in the seed's order of operations.");
escape_count!(
    escape_count_f32,
    f32,
    "Escape count of one point in `f32` (the point itself is computed in `f64`, then rounded)."
);

/// Squared escape radius of the smooth value's extra iterations: `R = 2^8`. At that radius the
/// continuous count below is within about `|c| / R^2` of its limit for `R → ∞` (Vepstas), far
/// below what a colour can show; `f32` still holds `R^4` without overflow.
pub const SMOOTH_RADIUS_SQ: f64 = 65_536.0;

/// The most iterations run past the escape for the smooth value (from `|z| = 2` to `R` takes
/// 3 or 4 except for points that sit on the escape circle, such as `c = -2`; there the value
/// uses the last `z` reached).
pub const SMOOTH_EXTRA_ITERS: u32 = 32;

/// The continuous escape value ("smooth iteration count", "normalized iteration count") of a
/// pixel whose orbit reached `z_n` with `|z_n|^2 = mag2 >= 4`:
/// `ν = n - log2(log2 |z_n|)`, clamped to `[0, iters]` (NaN, from an orbit that overflowed,
/// gives 0).
///
/// This is the renormalised count `μ = n + 1 - log(log |z_n|) / log 2` of Linas Vepstas,
/// "Renormalizing the Mandelbrot Escape" (1997; also Wikipedia, "Plotting algorithms for the
/// Mandelbrot set", continuous colouring) less 1, so that with the seed's bailout it lands
/// near the integer count: a pixel of count `k` (`|z_{k+1}| >= 2` first) has `ν ≈ k + 1 -
/// log2(log2 |z_{k+1}|)`, mostly in `[k, k + 1)` (within 1 of `k + 1/2` along the lines of
/// `tests/kernels/mandelbrot.rs`; larger near the tip `c = -2`, where `|c| >= 2` ends the count at 0
/// although the point lies close to the set). Since `log |z|`
/// nearly doubles at each iteration once `|z|` is large, `ν` hardly depends on `n` when it
/// is taken far enough out: the caller runs up to [`SMOOTH_EXTRA_ITERS`] more iterations,
/// until `|z|^2 >= SMOOTH_RADIUS_SQ`, *after* the integer count is fixed (the count itself
/// is the seed's rule, unchanged). That makes `ν` continuous across the edges of the count's
/// bands (measured in `tests/kernels/mandelbrot.rs`).
#[inline]
#[must_use]
pub fn smooth_value(n: u32, mag2: f64, iters: u32) -> f32 {
    let nu = f64::from(n) - (0.5 * mag2.log2()).log2();
    if nu.is_nan() { 0.0 } else { nu.clamp(0.0, f64::from(iters)) as f32 }
}

macro_rules! smooth_tail {
    ($name:ident, $t:ty) => {
        /// The smooth value of an orbit that escaped at `z_n = (zr, zi)` (`|z_n|^2 >= 4`) for
        /// the map `z^2 + c`: iterates on, in this precision and in the rule's order of
        /// operations, until `|z|^2 >= SMOOTH_RADIUS_SQ` or [`SMOOTH_EXTRA_ITERS`] more steps,
        /// then [`smooth_value`]. The GPU kernels run the same steps.
        #[inline]
        #[must_use]
        pub fn $name(mut zr: $t, mut zi: $t, cr: $t, ci: $t, n: u32, iters: u32) -> f32 {
            let mut n = n;
            let mut mag2 = zr * zr + zi * zi;
            for _ in 0..SMOOTH_EXTRA_ITERS {
                if mag2 >= SMOOTH_RADIUS_SQ as $t {
                    break;
                }
                let nr = zr * zr - zi * zi + cr;
                let ni = zr * zi + zi * zr + ci;
                zr = nr;
                zi = ni;
                mag2 = zr * zr + zi * zi;
                n += 1;
            }
            smooth_value(n, f64::from(mag2), iters)
        }
    };
}

smooth_tail!(smooth_tail_f64, f64);
smooth_tail!(smooth_tail_f32, f32);

macro_rules! escape_smooth {
    ($name:ident, $tail:ident, $t:ty) => {
        /// The escape count of the orbit of `z^2 + c` from `z_0 = (zr, zi)` (the seed's rule:
        /// the first `k` in `0..iters` with `|z_{k+1}|^2 >= 4`, else `iters`) and its smooth
        /// value ([`smooth_value`]; `iters` for a point that never escaped). Mandelbrot:
        /// `z_0 = 0`; Julia: `z_0` = the pixel.
        #[inline]
        #[must_use]
        pub fn $name(mut zr: $t, mut zi: $t, cr: $t, ci: $t, iters: u32) -> (u32, f32) {
            for k in 0..iters {
                let nr = zr * zr - zi * zi + cr;
                let ni = zr * zi + zi * zr + ci;
                zr = nr;
                zi = ni;
                if zr * zr + zi * zi >= 4.0 {
                    return (k, $tail(zr, zi, cr, ci, k + 1, iters));
                }
            }
            (iters, iters as f32)
        }
    };
}

escape_smooth!(escape_smooth_f64, smooth_tail_f64, f64);
escape_smooth!(escape_smooth_f32, smooth_tail_f32, f32);

/// Iterations actually executed for a pixel whose count is `count`
/// (`count + 1` when it escaped, `iters` when it did not), as the peers count them.
#[inline]
#[must_use]
pub fn iterations_executed(count: u32, iters: u32) -> u64 {
    u64::from((count + 1).min(iters))
}

/// Pixels computed side by side in [`mandelbrot_row`]: one vector register of `f64` on AVX-512.
pub const LANES: usize = 8;

macro_rules! escape_counts_lanes {
    ($name:ident, $t:ty) => {
        /// Escape counts of [`LANES`] points of one row at once, in lockstep, each with exactly
        /// the operations of the scalar rule; a lane that escaped keeps its count and the
        /// loop stops when all have. Written so the compiler keeps the lanes in vector registers.
        #[multiversion::multiversion(targets("x86_64+avx512f+avx512vl", "x86_64+avx2+avx", "x86_64+sse4.1"))]
        fn $name(cr: &[$t; LANES], ci: $t, iters: u32) -> [u32; LANES] {
            let mut zr = [0.0 as $t; LANES];
            let mut zi = [0.0 as $t; LANES];
            let mut count = [iters; LANES];
            for k in 0..iters {
                let mut running = 0u32;
                for l in 0..LANES {
                    let nr = zr[l] * zr[l] - zi[l] * zi[l] + cr[l];
                    let ni = zr[l] * zi[l] + zi[l] * zr[l] + ci;
                    zr[l] = nr;
                    zi[l] = ni;
                    let escaped_now = nr * nr + ni * ni >= 4.0 && count[l] == iters;
                    count[l] = if escaped_now { k } else { count[l] };
                    running += u32::from(count[l] == iters);
                }
                if running == 0 {
                    break;
                }
            }
            count
        }
    };
}

escape_counts_lanes!(escape_counts_f64, f64);
escape_counts_lanes!(escape_counts_f32, f32);

/// Computes row `y` of the image into `row` (length `width`) and returns the iterations executed.
///
/// The CPU twin of the GPU kernels: [`LANES`] pixels at a time, the rest one by one, each
/// with the counts of [`escape_count_f64`] / [`escape_count_f32`].
pub fn mandelbrot_row(p: &MandelbrotParams, y: usize, row: &mut [i32]) -> u64 {
    let (px, py) = p.pixel_size();
    let b = &p.bounds;
    let ci = b.miny + y as f64 * py;
    let cr = |x: usize| b.minx + x as f64 * px;
    let mut total = 0u64;
    let x0 = row.len() - row.len() % LANES;
    let mut chunks = row.chunks_exact_mut(LANES);
    for (c, out) in (&mut chunks).enumerate() {
        let x0 = c * LANES;
        let counts = match p.precision {
            Precision::F64 => escape_counts_f64(&std::array::from_fn(|l| cr(x0 + l)), ci, p.iters),
            Precision::F32 => escape_counts_f32(&std::array::from_fn(|l| cr(x0 + l) as f32), ci as f32, p.iters),
        };
        for (o, &k) in out.iter_mut().zip(&counts) {
            total += iterations_executed(k, p.iters);
            *o = k as i32;
        }
    }
    let rest = chunks.into_remainder();
    for (x, out) in rest.iter_mut().enumerate() {
        let count = escape_count(p, cr(x0 + x), ci);
        total += iterations_executed(count, p.iters);
        *out = count as i32;
    }
    total
}

/// Row `y` of the image: counts into `row` and smooth values ([`smooth_value`]) into `smooth`
/// (both of length `width`); returns the iterations executed by the rule (the smooth value's
/// extra iterations are not counted). The counts are exactly [`mandelbrot_row`]'s.
pub fn mandelbrot_row_smooth(p: &MandelbrotParams, y: usize, row: &mut [i32], smooth: &mut [f32]) -> u64 {
    let (px, py) = p.pixel_size();
    let b = &p.bounds;
    let ci = b.miny + y as f64 * py;
    let mut total = 0u64;
    for (x, (out, s)) in row.iter_mut().zip(smooth.iter_mut()).enumerate() {
        let cr = b.minx + x as f64 * px;
        let (count, nu) = match p.precision {
            Precision::F64 => escape_smooth_f64(0.0, 0.0, cr, ci, p.iters),
            Precision::F32 => escape_smooth_f32(0.0, 0.0, cr as f32, ci as f32, p.iters),
        };
        total += iterations_executed(count, p.iters);
        *out = count as i32;
        *s = nu;
    }
    total
}

/// The scalar count of one point at `p`'s precision.
fn escape_count(p: &MandelbrotParams, cr: f64, ci: f64) -> u32 {
    match p.precision {
        Precision::F64 => escape_count_f64(cr, ci, p.iters),
        Precision::F32 => escape_count_f32(cr as f32, ci as f32, p.iters),
    }
}

/// The scalar single-thread reference: counts for the whole image, row 0 at `miny`.
#[must_use]
pub fn reference(p: &MandelbrotParams) -> (Vec<i32>, u64) {
    let (px, py) = p.pixel_size();
    let b = &p.bounds;
    let mut counts = vec![0i32; p.pixels()];
    let mut total = 0;
    for (y, row) in counts.chunks_exact_mut(p.width).enumerate() {
        for (x, out) in row.iter_mut().enumerate() {
            let count = escape_count(p, b.minx + x as f64 * px, b.miny + y as f64 * py);
            total += iterations_executed(count, p.iters);
            *out = count as i32;
        }
    }
    (counts, total)
}

/// Fraction of pixels whose counts differ.
#[must_use]
pub fn mismatch_frac(a: &[i32], b: &[i32]) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    let bad = a.iter().zip(b).filter(|(x, y)| x != y).count() + a.len().abs_diff(b.len());
    bad as f64 / a.len() as f64
}

/// Largest share of pixels a GPU may count differently from the CPU reference.
#[must_use]
pub fn mismatch_tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => 1e-4,
        Precision::F32 => 1e-2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_points() {
        // Inside the main cardioid and the period-2 bulb: never escapes.
        assert_eq!(escape_count_f64(0.0, 0.0, 1000), 1000);
        assert_eq!(escape_count_f64(-0.1, 0.1, 1000), 1000);
        assert_eq!(escape_count_f64(-1.0, 0.0, 1000), 1000);
        // c = 1: z = 1, 2 (|z|^2 = 4 >= 4) escapes at k = 1.
        assert_eq!(escape_count_f64(1.0, 0.0, 100), 1);
        // c = 2: z1 = 2, |z1|^2 = 4 escapes at k = 0.
        assert_eq!(escape_count_f64(2.0, 0.0, 100), 0);
        // c = -2 is on the boundary and stays at z = 2: |z|^2 = 4 escapes at k = 0.
        assert_eq!(escape_count_f64(-2.0, 0.0, 100), 0);
        // c = i: z = i, -1+i, -i, -1+i, ... bounded.
        assert_eq!(escape_count_f64(0.0, 1.0, 500), 500);
        assert_eq!(escape_count_f32(0.0, 1.0, 500), 500);
        assert_eq!(escape_count_f32(1.0, 0.0, 100), 1);
    }

    #[test]
    fn iterations_executed_counts_like_the_peers() {
        assert_eq!(iterations_executed(0, 20), 1);
        assert_eq!(iterations_executed(19, 20), 20);
        assert_eq!(iterations_executed(20, 20), 20);
    }

    #[test]
    fn bounds_parse_and_reject() {
        let b: Bounds = "-2,1,-1,1".parse().unwrap();
        assert_eq!(b, Bounds::SEED);
        assert!("1,-2,-1,1".parse::<Bounds>().unwrap_err().to_string().contains("minx"));
        assert!("-2,1,-1".parse::<Bounds>().unwrap_err().to_string().contains("3 values"));
        assert!("-2,1,x,1".parse::<Bounds>().unwrap_err().to_string().contains("'x'"));
        assert!("-2,1,-1,inf".parse::<Bounds>().unwrap_err().to_string().contains("inf"));
    }

    #[test]
    fn reference_is_symmetric_about_the_real_axis() {
        // Pixel sizes that are powers of two make rows y and height-y exact mirror points.
        let p = MandelbrotParams { width: 48, height: 32, iters: 50, ..MandelbrotParams::SEED };
        let (c, total) = reference(&p);
        for y in 1..p.height {
            for x in 0..p.width {
                assert_eq!(c[y * p.width + x], c[(p.height - y) * p.width + x], "row {y} col {x}");
            }
        }
        assert!(total >= p.pixels() as u64);
    }
}
