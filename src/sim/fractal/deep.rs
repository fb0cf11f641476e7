//! Deep-zoom views: a centre held in arbitrary precision and a zoom, the exact bounds they
//! mean, the arithmetic a view needs, and a view prepared for perturbation rendering
//! ([`DeepJob`]: the reference orbit of [`super::perturb`] plus the pixel grid).
//!
//! A view is a centre `RE + i IM` (decimal strings of any length) and a zoom `Z` (`Z = 1` is
//! the seed's view, 2 high). For a `width x height` image it is exactly the bounds
//! `minx = RE - (2/Z)*(width/height)/2`, `maxx = RE + (2/Z)*(width/height)/2`,
//! `miny = IM - 1/Z`, `maxy = IM + 1/Z`, computed in arbitrary precision, then the seed's
//! pixel rule `c = minx + x*px + i(miny + y*py)` with `px = (maxx-minx)/width`,
//! `py = (maxy-miny)/height`, row 0 at `miny`.
//!
//! Arbitrary precision comes from `astro-float` (pure Rust, MIT): it builds with rustc alone
//! (no GMP, unlike `rug`, which is also LGPL), parses decimal strings directly, and iterated a
//! 400-bit reference orbit 2.5x faster than `dashu-float` here (25 ms against 63 ms for
//! 50 000 steps; builds took 26 s and 36 s).
//!
//! Over 500 lines because a view, the arithmetic it needs, its bookmark file and the job made
//! from it are one subject; about a fifth is tests.

use std::sync::Arc;

use astro_float::{BigFloat, Consts, Radix};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::bla::{BlaTable, FloatExp};
use super::decimal::decimal_digits;
pub use super::decimal::{format_zoom, log10_abs};
pub use super::location::{Location, LocationError};
use super::mandelbrot::{Bounds, MandelbrotParams, Precision};
use super::perturb::{Deltas, Iterations, Real, ReferenceOrbit, perturb_escape, perturb_smooth_executed};
pub use super::perturb::{RM, ldexp64, mant_exp, to_f64};
pub use super::pixel_grid::{BigBounds, PixelGrid};
pub use super::reference::{Reference, ReferenceChoice};
use super::reference::{Referenced, reference_orbit};
pub use super::view_error::{MAX_ZOOM_LOG10, OrbitTooLong, ValueNames, ViewError};

/// Bits added to what the view's pixels need, for the rounding of long orbits.
const GUARD_BITS: usize = 64;

/// Bytes a reference-orbit step takes on the host: the orbit in `f64` and `f32` (68) and its
/// BLA table (two entries a step, 64 bytes each), with the table's build beside it.
pub const ORBIT_BYTES_PER_STEP: u64 = 400;

/// The arithmetic an image is computed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
pub enum Arith {
    /// The seed's rule in `f32`: resolves pixels down to a zoom of about 1e5.
    F32,
    /// The seed's rule in `f64` (exact counts): resolves pixels down to a zoom of about 1e13.
    F64,
    /// Perturbation around a reference orbit in arbitrary precision: any zoom.
    Perturbation,
}

impl Arith {
    /// `"f32"`, `"f64"` or `"perturbation"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::Perturbation => "perturbation",
        }
    }

    /// The direct precision, or `None` for perturbation.
    #[must_use]
    pub fn direct(self) -> Option<Precision> {
        match self {
            Self::F32 => Some(Precision::F32),
            Self::F64 => Some(Precision::F64),
            Self::Perturbation => None,
        }
    }
}

/// Parses a decimal number `[+-]digits[.digits][e[+-]digits]` (digits on at least one side of
/// the point) into `bits` of precision.
///
/// # Errors
/// A one-line message naming `what` and the text.
pub fn parse_decimal(text: &str, what: &str, bits: usize) -> Result<BigFloat, ViewError> {
    let t = text.trim();
    let bad = || ViewError::NotDecimal { what: what.to_owned(), text: text.to_owned() };
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let digits = mant.strip_prefix(['+', '-']).unwrap_or(mant);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !all_digits(int) || !all_digits(frac) {
        return Err(bad());
    }
    if let Some(e) = exp {
        let e_digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e_digits.is_empty() || !all_digits(e_digits) || e_digits.len() > 9 {
            return Err(bad());
        }
    }
    let mut cc = Consts::new().map_err(|e| ViewError::Precision(e.to_string()))?;
    let v = BigFloat::parse(t, Radix::Dec, bits.max(64), RM, &mut cc);
    if v.is_nan() || v.is_inf() {
        return Err(ViewError::OutOfRange { what: what.to_owned(), text: text.to_owned() });
    }
    Ok(v)
}

/// A view: centre and zoom, held as given (text) and in arbitrary precision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct View {
    /// Real part of the centre, as given.
    pub re: String,
    /// Imaginary part of the centre, as given.
    pub im: String,
    /// Zoom, as given (`1` is the seed's view, 2 high).
    pub zoom: String,
}

impl View {
    /// The seed's height at its centre: `-0.5, 0`, zoom 1.
    #[must_use]
    pub fn seed() -> Self {
        Self { re: "-0.5".into(), im: "0".into(), zoom: "1".into() }
    }

    /// Checks and builds a view from `RE,IM` and a zoom.
    ///
    /// # Errors
    /// A one-line message naming the bad value.
    pub fn parse(center: &str, zoom: &str) -> Result<Self, ViewError> {
        let parts: Vec<&str> = center.split(',').map(str::trim).collect();
        if parts.len() != 2 {
            return Err(ViewError::Centre { center: center.to_owned(), count: parts.len() });
        }
        let v = Self { re: parts[0].to_owned(), im: parts[1].to_owned(), zoom: zoom.trim().to_owned() };
        v.validate()?;
        Ok(v)
    }

    /// Checks that the centre and zoom are numbers and the zoom is positive.
    ///
    /// # Errors
    /// A one-line message naming the bad value.
    pub fn validate(&self) -> Result<(), ViewError> {
        self.validate_named(ValueNames::WORDS)
    }

    /// [`Self::validate`] with the values called by `names` in the messages (a location file's
    /// keys).
    ///
    /// # Errors
    /// A one-line message naming the bad value.
    pub fn validate_named(&self, names: ValueNames) -> Result<(), ViewError> {
        parse_decimal(&self.re, names.re, 64)?;
        parse_decimal(&self.im, names.im, 64)?;
        let z = parse_decimal(&self.zoom, names.zoom, 64)?;
        if z.is_zero() || z.is_negative() {
            return Err(ViewError::ZoomNotPositive { what: names.zoom.to_owned(), zoom: self.zoom.clone() });
        }
        if log10_abs(&z) > MAX_ZOOM_LOG10 {
            return Err(ViewError::TooDeep {
                what: names.zoom.to_owned(),
                zoom: self.zoom.clone(),
                million_bits: log10_abs(&z) / std::f64::consts::LOG10_2 / 1e6,
            });
        }
        Ok(())
    }

    /// A warning when the centre's digits stop short of what the zoom shows: a part with many
    /// digits (8 or more significant ones, so not an exact short value such as `-2` or `0.25`)
    /// whose last digit is worth more than the view's height. The view is still computed (the
    /// digits left out are zeros), but it is likely a location cut short, showing another place.
    #[must_use]
    pub fn digits_warning(&self) -> Option<String> {
        let zoom_log10 = self.zoom_log10();
        // The view is 2/zoom high.
        let height_log10 = std::f64::consts::LOG10_2 - zoom_log10;
        for (part, what) in [(&self.re, "real part"), (&self.im, "imaginary part")] {
            let Some((significant, last_place)) = decimal_digits(part) else { continue };
            if significant >= 8 && (last_place as f64) > height_log10 {
                return Some(format!(
                    "the centre's {what} has {significant} significant digits, the last worth 1e{last_place}, but \
                     the view at zoom {} is {} high: the digits it needs are taken as 0, so this may show another \
                     place than the location meant (a location cut short?)",
                    format_zoom(zoom_log10),
                    format_zoom(height_log10)
                ));
            }
        }
        None
    }

    /// Half the diagonal of the view in a `width x height` picture, `sqrt(1 + (w/h)^2) / zoom`,
    /// with an extended exponent (the ball the minibrot search starts from).
    #[must_use]
    pub fn radius(&self, width: usize, height: usize) -> FloatExp {
        let aspect = width as f64 / height.max(1) as f64;
        let log2 = (1.0 + aspect * aspect).sqrt().log2() - self.zoom_log10() / std::f64::consts::LOG10_2;
        let e = log2.floor();
        FloatExp::new((log2 - e).exp2(), e as i32)
    }

    /// `log10` of the zoom.
    #[must_use]
    pub fn zoom_log10(&self) -> f64 {
        parse_decimal(&self.zoom, "zoom", 64).map_or(0.0, |z| log10_abs(&z))
    }

    /// Bits of precision the view's coordinates need at `height` pixels: enough to tell
    /// neighbouring pixels apart anywhere in the view, and enough for every digit of the centre
    /// ([`Self::centre_bits`]), plus guard bits. A centre given with more digits than the zoom
    /// needs is a point the user meant to the last digit (a view zoomed out from a nucleus, on
    /// a benchmark's path): rounded to the zoom's bits, the centre pixel of a view centred
    /// within 1e-1086 of a period-179 301 nucleus escapes after 186 189 iterations, where the
    /// point itself never does (issue 47; `tests/kernels/mandelbrot_deep_reference.rs`).
    #[must_use]
    pub fn bits(&self, height: usize) -> usize {
        let zoom_bits = (self.zoom_log10() / std::f64::consts::LOG10_2).max(0.0);
        let pixel_bits = (height.max(1) as f64).log2();
        let view_bits = zoom_bits + pixel_bits + 4.0;
        let bits = view_bits.max(self.centre_bits() as f64) + GUARD_BITS as f64;
        (bits.ceil() as usize).div_ceil(64) * 64
    }

    /// Bits below the unit the centre's digits reach: its last digit's place (`1e-1104` for the
    /// 1e1086 benchmark's centre: 3 668 bits), the larger of its two parts; 0 for a centre of
    /// whole numbers.
    #[must_use]
    pub fn centre_bits(&self) -> usize {
        [&self.re, &self.im]
            .into_iter()
            .filter_map(|part| decimal_digits(part))
            .map(|(_, last_place)| (-(last_place as f64) / std::f64::consts::LOG10_2).max(0.0).ceil() as usize)
            .max()
            .unwrap_or(0)
    }

    /// The centre and the bounds `[minx, maxx, miny, maxy]` in `bits` of precision.
    ///
    /// # Errors
    /// A bad centre or zoom.
    pub fn bounds_big(&self, width: usize, height: usize, bits: usize) -> Result<BigBounds, ViewError> {
        let re = parse_decimal(&self.re, "centre's real part", bits)?;
        let im = parse_decimal(&self.im, "centre's imaginary part", bits)?;
        let zoom = parse_decimal(&self.zoom, "zoom", bits)?;
        let one = BigFloat::from_u64(1, bits);
        let half_h = one.div(&zoom, bits, RM); // 1/Z
        // (2/Z)*(width/height)/2 = (1/Z)*width/height
        let half_w = half_h.mul(&BigFloat::from_u64(width as u64, bits), bits, RM).div(
            &BigFloat::from_u64(height as u64, bits),
            bits,
            RM,
        );
        Ok(BigBounds {
            minx: re.sub(&half_w, bits, RM),
            maxx: re.add(&half_w, bits, RM),
            miny: im.sub(&half_h, bits, RM),
            maxy: im.add(&half_h, bits, RM),
            re,
            im,
            bits,
        })
    }

    /// The view's bounds rounded to `f64` (exact for the seed's own views).
    ///
    /// # Errors
    /// A bad centre or zoom, or bounds beyond `f64`.
    pub fn bounds_f64(&self, width: usize, height: usize) -> Result<Bounds, ViewError> {
        let b = self.bounds_big(width, height, self.bits(height))?;
        let bounds =
            Bounds { minx: to_f64(&b.minx), maxx: to_f64(&b.maxx), miny: to_f64(&b.miny), maxy: to_f64(&b.maxy) };
        if bounds.validate().is_err() {
            return Err(ViewError::TooWide(format_zoom(self.zoom_log10())));
        }
        Ok(bounds)
    }

    /// The weakest arithmetic that resolves this view's pixels: `f64` (the seed's exact rule)
    /// where it can, perturbation beyond.
    #[must_use]
    pub fn auto_arith(&self, width: usize, height: usize, iters: u32) -> Arith {
        if self.direct_resolves(Precision::F64, width, height, iters) { Arith::F64 } else { Arith::Perturbation }
    }

    /// True when `precision` tells this view's pixels apart.
    #[must_use]
    pub fn direct_resolves(&self, precision: Precision, width: usize, height: usize, iters: u32) -> bool {
        match self.bounds_f64(width, height) {
            Ok(bounds) => !MandelbrotParams { width, height, iters, bounds, precision }.precision_exhausted(),
            Err(_) => false,
        }
    }

    /// Checks that `arith` resolves this view.
    ///
    /// # Errors
    /// A one-line message saying what would work.
    pub fn check_arith(&self, arith: Arith, width: usize, height: usize, iters: u32) -> Result<(), ViewError> {
        let Some(precision) = arith.direct() else { return Ok(()) };
        if self.direct_resolves(precision, width, height, iters) {
            return Ok(());
        }
        let better = if precision == Precision::F32 && self.direct_resolves(Precision::F64, width, height, iters) {
            "--precision f64 or perturbation"
        } else {
            "--precision perturbation"
        };
        Err(ViewError::ArithTooWeak {
            zoom: format_zoom(self.zoom_log10()),
            width,
            height,
            precision: precision.name(),
            better,
        })
    }
}

/// The most reference-orbit steps the host's memory holds: half of the memory available, at
/// [`ORBIT_BYTES_PER_STEP`] a step (no limit where the memory is unknown).
/// `WAVEBROT_MAX_ORBIT_STEPS` sets it instead (tests: a small memory without filling one).
#[must_use]
pub fn max_orbit_steps() -> usize {
    if let Some(n) = std::env::var("WAVEBROT_MAX_ORBIT_STEPS").ok().and_then(|v| v.parse().ok()) {
        return n;
    }
    let mut sys = sysinfo::System::new();
    sys.refresh_memory();
    match sys.available_memory() {
        0 => usize::MAX,
        avail => usize::try_from(avail / 2 / ORBIT_BYTES_PER_STEP).unwrap_or(usize::MAX),
    }
}

/// A view ready to render by perturbation on any backend.
#[derive(Clone, Debug)]
pub struct DeepJob {
    pub width: usize,
    pub height: usize,
    pub iters: u32,
    pub orbit: Arc<ReferenceOrbit>,
    /// The BLA table of the orbit for this grid's `|dc|max` (`f64` deltas; empty: no skipping).
    pub bla: Arc<BlaTable>,
    pub grid: PixelGrid,
    /// `log10` of the zoom, for readouts.
    pub zoom_log10: f64,
    /// How long the orbit and the table took, where the caller gave a clock
    /// ([`DeepJob::prepare_timed`]).
    pub millis: Option<PrepareMillis>,
    /// The reference point used: the centre, or a minibrot's nucleus.
    pub reference: Reference,
}

/// A monotonic clock in milliseconds from any fixed start, given by the caller: `sim` reads no
/// clock itself (`backend::timing::monotonic_millis` is the program's).
pub type Clock = fn() -> f64;

/// Wall times of a job's preparation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PrepareMillis {
    /// The arbitrary-precision reference orbit.
    pub orbit: f64,
    /// The BLA table.
    pub bla: f64,
}

impl DeepJob {
    /// Computes the reference orbit of `view`'s centre (on its own named thread) and the pixel
    /// grid.
    ///
    /// # Errors
    /// A bad view or size.
    pub fn prepare(view: &View, width: usize, height: usize, iters: u32) -> Result<Self, ViewError> {
        Self::prepare_with(view, width, height, iters, ReferenceChoice::Auto, None)
    }

    /// [`Self::prepare`], timing the orbit and the table with `clock` ([`DeepJob::millis`]).
    ///
    /// # Errors
    /// A bad view or size.
    pub fn prepare_timed(
        view: &View,
        width: usize,
        height: usize,
        iters: u32,
        clock: Clock,
    ) -> Result<Self, ViewError> {
        Self::prepare_with(view, width, height, iters, ReferenceChoice::Auto, Some(clock))
    }

    /// [`Self::prepare`] with the reference chosen by `choice`: the centre's orbit is watched
    /// by the ball method (`minibrot::Ball`); where it finds a period (and, with `Auto`, the
    /// iterations are many periods) and Newton's method its nucleus, the orbit is the
    /// nucleus's, `period` steps long; else the centre's (`super::reference`). With a `clock`,
    /// the reference (its search included) and the table are timed ([`DeepJob::millis`]).
    ///
    /// # Errors
    /// A bad view or size.
    pub fn prepare_with(
        view: &View,
        width: usize,
        height: usize,
        iters: u32,
        choice: ReferenceChoice,
        clock: Option<Clock>,
    ) -> Result<Self, ViewError> {
        if width == 0 || height == 0 || width > 1 << 16 || height > 1 << 16 {
            return Err(ViewError::ImageSize { width, height });
        }
        if iters == 0 || iters > i32::MAX as u32 {
            return Err(ViewError::Iterations(iters));
        }
        view.validate()?;
        let bits = view.bits(height);
        let b = view.bounds_big(width, height, bits)?;
        let radius = view.radius(width, height);
        // The pixels' spacing: 2 / (zoom height) = radius 2 / (height sqrt(1 + aspect^2)).
        let aspect = width as f64 / height as f64;
        let pixel = FloatExp::new(radius.m * 2.0 / (height as f64 * (1.0 + aspect * aspect).sqrt()), radius.e);
        // The orbit stops with an error rather than outgrow the memory (it ends early where the
        // centre escapes, so only the steps it takes count).
        let max_steps = max_orbit_steps();
        let (orbit, bla, grid, reference, millis) =
            crate::sim::own_thread::run_on_own_thread("wavebrot-reference", move || {
                let t0 = clock.map(|c| c());
                let Referenced { orbit, reference, point } =
                    reference_orbit((&b.re, &b.im), (radius, pixel), iters, bits, max_steps, choice)?;
                let t1 = clock.map(|c| c());
                let grid = match &point {
                    Some((r, i)) => PixelGrid::around(&b, width, height, (r, i)),
                    None => PixelGrid::new(&b, width, height),
                };
                let bla = orbit.bla_table(grid.dc_max(width, height));
                let millis = clock.zip(t0.zip(t1)).map(|(c, (t0, t1))| PrepareMillis { orbit: t1 - t0, bla: c() - t1 });
                Ok::<_, ViewError>((orbit, bla, grid, reference, millis))
            })
            .map_err(|e| ViewError::Thread(e.0))??;
        Ok(Self {
            width,
            height,
            iters,
            orbit: Arc::new(orbit),
            bla: Arc::new(bla),
            grid,
            zoom_log10: view.zoom_log10(),
            millis,
            reference,
        })
    }

    /// The job of `view` at this job's size and `iters` iterations on this job's reference
    /// orbit (no new orbit): `view` must share this job's centre and be no deeper (a frame of a
    /// zoom into this view), and the reference be the centre; its own pixel grid (from its
    /// bounds in arbitrary precision, as [`Self::prepare`] makes it) and BLA table. `None` when
    /// the orbit cannot serve it: a nucleus reference, a deeper view, or more iterations than
    /// an orbit that ran to its iterations holds.
    ///
    /// # Errors
    /// The view's bounds cannot be computed.
    pub fn reframed(&self, view: &View, iters: u32) -> Result<Option<Self>, ViewError> {
        let (w, h) = (self.width, self.height);
        let orbit_ran_out =
            self.orbit.steps() >= self.iters as usize && matches!(self.reference, Reference::Centre { .. });
        if matches!(self.reference, Reference::Nucleus { .. })
            || view.zoom_log10() > self.zoom_log10 + 1e-6
            || (iters > self.iters && orbit_ran_out)
        {
            return Ok(None);
        }
        let b = view.bounds_big(w, h, view.bits(h))?;
        let grid = PixelGrid::new(&b, w, h);
        let bla = Arc::new(self.orbit.bla_table(grid.dc_max(w, h)));
        Ok(Some(Self { iters, bla, grid, zoom_log10: view.zoom_log10(), millis: None, ..self.clone() }))
    }

    /// This job without its BLA table: every iteration a single step (for comparisons).
    #[must_use]
    pub fn without_bla(&self) -> Self {
        Self { bla: Arc::new(BlaTable::default()), ..self.clone() }
    }

    /// Pixels in the image.
    #[must_use]
    pub fn pixels(&self) -> usize {
        self.width * self.height
    }

    /// True when the pixels' offsets are beyond `f64`'s plain range, so the deltas start with
    /// an extended exponent (mantissa and integer exponent).
    #[must_use]
    pub fn extended(&self) -> bool {
        self.grid.exp < <f64 as super::perturb::Real>::PLAIN_MIN_EXP
    }

    /// The arithmetic in words, for readouts: `perturbation f64` or `perturbation f64,
    /// extended exponent` (`f32` for the wgpu kernels).
    #[must_use]
    pub fn arith_label(&self, mantissa: &str) -> String {
        let ext = match mantissa {
            "f32" => self.grid.exp < <f32 as super::perturb::Real>::PLAIN_MIN_EXP,
            _ => self.extended(),
        };
        if ext { format!("perturbation {mantissa}, extended exponent") } else { format!("perturbation {mantissa}") }
    }
}

impl DeepJob {
    /// The orbit in `f64`.
    #[must_use]
    pub fn deltas_f64(&self) -> Deltas<'_, f64> {
        let o = &self.orbit;
        Deltas {
            zr: &o.re,
            zi: &o.im,
            zr_lo: &o.re_lo,
            zi_lo: &o.im_lo,
            mag4: &o.mag4,
            zexp: &o.exp,
            last: o.last_f64,
            bla: Some(&self.bla),
        }
    }

    /// The orbit in `f32`.
    #[must_use]
    pub fn deltas_f32(&self) -> Deltas<'_, f32> {
        let o = &self.orbit;
        Deltas {
            zr: &o.re32,
            zi: &o.im32,
            zr_lo: &o.re32_lo,
            zi_lo: &o.im32_lo,
            mag4: &o.mag4_32,
            zexp: &o.exp32,
            last: o.last_f32,
            bla: None,
        }
    }
}

/// Row `y` of `job` by perturbation in `T` into `row`; returns the iterations.
pub fn perturb_row<T: Real>(job: &DeepJob, d: &Deltas<'_, T>, y: usize, row: &mut [i32]) -> Iterations {
    let g = &job.grid;
    // In T, as the kernels compute it.
    let dci = T::from_f64(g.ay) + T::from_f64(y as f64) * T::from_f64(g.by);
    let mut total = Iterations::default();
    for (x, out) in row.iter_mut().enumerate() {
        let dcr = T::from_f64(g.ax) + T::from_f64(x as f64) * T::from_f64(g.bx);
        let (count, _, _, executed) = perturb_escape(d, dcr, dci, g.exp, job.iters);
        total.rule += super::mandelbrot::iterations_executed(count, job.iters);
        total.executed += executed;
        *out = count as i32;
    }
    total
}

/// [`perturb_row`] with the smooth values ([`super::perturb::perturb_count_smooth`]) into `smooth`.
pub fn perturb_row_smooth<T: Real>(
    job: &DeepJob,
    d: &Deltas<'_, T>,
    y: usize,
    row: &mut [i32],
    smooth: &mut [f32],
) -> Iterations {
    let g = &job.grid;
    let dci = T::from_f64(g.ay) + T::from_f64(y as f64) * T::from_f64(g.by);
    let mut total = Iterations::default();
    for (x, (out, s)) in row.iter_mut().zip(smooth.iter_mut()).enumerate() {
        let dcr = T::from_f64(g.ax) + T::from_f64(x as f64) * T::from_f64(g.bx);
        let (count, nu, executed) = perturb_smooth_executed(d, dcr, dci, g.exp, job.iters);
        total.rule += super::mandelbrot::iterations_executed(count, job.iters);
        total.executed += executed;
        *out = count as i32;
        *s = nu;
    }
    total
}

/// Counts of a whole view iterated directly in arbitrary precision (all cores): the slow,
/// sure reference the perturbation counts are tested against.
///
/// # Errors
/// A bad view.
pub fn reference_big(view: &View, width: usize, height: usize, iters: u32) -> Result<Vec<i32>, ViewError> {
    let bits = view.bits(height);
    let b = view.bounds_big(width, height, bits)?;
    Ok((0..width * height)
        .into_par_iter()
        .map(|i| {
            let (cr, ci) = b.pixel(width, height, i % width, i / width);
            escape_count_big(&cr, &ci, iters, bits) as i32
        })
        .collect())
}

/// The count of `c = cr + i ci` iterated directly in `bits` of precision (the seed's rule).
#[must_use]
pub fn escape_count_big(cr: &BigFloat, ci: &BigFloat, iters: u32, bits: usize) -> u32 {
    let p = bits;
    let (mut zr, mut zi) = (BigFloat::from_u64(0, p), BigFloat::from_u64(0, p));
    let four = BigFloat::from_u64(4, p);
    for k in 0..iters {
        let zr2 = zr.mul(&zr, p, RM);
        let zi2 = zi.mul(&zi, p, RM);
        let prod = zr.mul(&zi, p, RM);
        zr = zr2.sub(&zi2, p, RM).add(cr, p, RM);
        zi = prod.add(&prod, p, RM).add(ci, p, RM);
        let mag = zr.mul(&zr, p, RM).add(&zi.mul(&zi, p, RM), p, RM);
        if mag.cmp(&four).is_none_or(|c| c >= 0) {
            return k;
        }
    }
    iters
}

#[cfg(test)]
#[path = "deep_tests.rs"]
mod tests;
