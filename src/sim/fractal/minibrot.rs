//! Finding the minibrot: the period of the lowest-period atom near a view (the ball method
//! along the centre's reference orbit) and its nucleus by Newton's method in arbitrary
//! precision, with the minibrot's size estimate. Kalles Fraktaler, Fraktaler 3 and
//! fractalshades do the same; the formulas are mathr's (Claude Heiland-Allen's
//! mandelbrot-numerics: `m_d_nucleus`, `m_d_size`).
//!
//! - **Period (ball method).** A disk of radius `R` (the view's half-diagonal) around the centre
//!   `C` is iterated as a ball: `Z_{n+1} = Z_n^2 + C`, `r_{n+1} = r_n (2 |Z_n| + r_n) + R`. The
//!   first `n` whose ball holds 0 (`|Z_n| < r_n`) is the period of an atom in the disk.
//! - **Nucleus (Newton).** `z_p(c) = 0` solved by `c <- c - z_p(c) / z_p'(c)`, `z' <- 2 z z' + 1`.
//!   `z` runs in fixed point at full precision ([`super::orbit_fixed::iterate`], the threaded
//!   orbit); `z'` in `f64` with an extended exponent, which makes each step gain about as many
//!   digits as `f64` holds once the square term is small (quasi-Newton), so the steps needed
//!   grow with the digits between the view and the minibrot's size, not with the precision.
//! - **Size.** `l = prod 2 z_i`, `b = sum 1 / (prod_{j<=i} 2 z_j)` over `i < p` at the
//!   nucleus; `size = 1 / (b l^2)`: about the width of the minibrot's cardioid (1 for the whole
//!   set's, 0.5 for the period-2 disk); its argument is the minibrot's rotation.
//!
//! Pure: no clocks, no files; the caller times it.

use astro_float::BigFloat;

use super::bla::{Cx, FloatExp};
use super::orbit_fixed::{Fixed, iterate, orbit_threads};
use super::perturb::{RM, ReferenceOrbit, mant_exp};
use super::real::ldexp64;

/// Newton steps tried before giving up on a nucleus.
pub const MAX_NEWTON_STEPS: u32 = 64;

/// A minibrot: its nucleus, period and size.
#[derive(Clone, Debug)]
pub struct Minibrot {
    pub re: BigFloat,
    pub im: BigFloat,
    pub period: u32,
    /// The size estimate `1 / (b l^2)`: about the width of its cardioid (complex: its
    /// argument is the minibrot's rotation).
    pub size: Cx,
    /// Newton steps taken.
    pub newton_steps: u32,
    /// Bits the nucleus was computed in.
    pub bits: usize,
}

impl Minibrot {
    /// `|size|` with an extended exponent.
    #[must_use]
    pub fn size_abs(&self) -> FloatExp {
        cx_abs(self.size)
    }

    /// `log10 |size|`.
    #[must_use]
    pub fn size_log10(&self) -> f64 {
        log10(self.size_abs())
    }

    /// The zoom (wavebrot's, 2 / the view's height) that frames the minibrot so it fills
    /// about a third of a 16:9 picture: the view 4 sizes high (the minibrot, antenna included,
    /// is about 2.5 sizes wide), i.e. `zoom = 1 / (2 |size|)`, as `log10`.
    #[must_use]
    pub fn framing_zoom_log10(&self) -> f64 {
        -(2f64.log10() + self.size_log10())
    }
}

/// Why no minibrot was found.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MinibrotError {
    #[error("no period found within {iters} iterations: the centre's orbit {how}; raise --iters or zoom elsewhere")]
    NoPeriod { iters: u32, how: &'static str },
    #[error("Newton's method for the period-{period} nucleus did not converge in {steps} steps ({why})")]
    NoConvergence { period: u32, steps: u32, why: &'static str },
}

pub(crate) fn cx_abs(c: Cx) -> FloatExp {
    // `Cx` keeps its larger part in [1, 2): the squares neither overflow nor underflow.
    FloatExp::new((c.re * c.re + c.im * c.im).sqrt(), c.e)
}

fn log10(v: FloatExp) -> f64 {
    if v.m == 0.0 { f64::NEG_INFINITY } else { v.m.log10() + f64::from(v.e) * std::f64::consts::LOG10_2 }
}

fn fe_add(a: FloatExp, b: FloatExp) -> FloatExp {
    if a.m == 0.0 {
        return b;
    }
    if b.m == 0.0 {
        return a;
    }
    let e = a.e.max(b.e);
    FloatExp::new(ldexp64(a.m, i64::from(a.e - e)) + ldexp64(b.m, i64::from(b.e - e)), e)
}

pub(crate) fn fe_mul(a: FloatExp, b: FloatExp) -> FloatExp {
    FloatExp::new(a.m * b.m, a.e.saturating_add(b.e))
}

pub(crate) fn fe_less(a: FloatExp, b: FloatExp) -> bool {
    if b.m == 0.0 {
        return false;
    }
    a.m == 0.0 || a.e < b.e || (a.e == b.e && a.m < b.m)
}

pub(crate) fn cx_mul(a: Cx, b: Cx) -> Cx {
    Cx::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re, a.e.saturating_add(b.e))
}

pub(crate) fn cx_add(a: Cx, b: Cx) -> Cx {
    if a.re == 0.0 && a.im == 0.0 {
        return b;
    }
    if b.re == 0.0 && b.im == 0.0 {
        return a;
    }
    let e = a.e.max(b.e);
    let (s, t) = (i64::from(a.e - e), i64::from(b.e - e));
    Cx::new(ldexp64(a.re, s) + ldexp64(b.re, t), ldexp64(a.im, s) + ldexp64(b.im, t), e)
}

fn cx_recip(a: Cx) -> Cx {
    let d = a.re * a.re + a.im * a.im;
    Cx::new(a.re / d, -a.im / d, -a.e)
}

/// `re + i im` of fixed-point values as an extended-exponent complex (their top 53 bits).
#[must_use]
pub fn cx_of(zr: &Fixed, zi: &Fixed) -> Cx {
    let k = match (zr.ilogb(), zi.ilogb()) {
        (Some(a), Some(b)) => a.max(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return Cx::default(),
    };
    Cx::new(zr.split(k).0, zi.split(k).0, k as i32)
}

/// The ball method along an orbit: fed `Z_0, Z_1, ...` of the centre, it finds the period of
/// the lowest-period atom in the disk of radius `radius` around the centre.
#[derive(Clone, Debug)]
pub struct Ball {
    radius: FloatExp,
    r: FloatExp,
    n: u32,
    /// The period, once found.
    pub period: Option<u32>,
}

impl Ball {
    /// A ball of `radius` around the centre, before `Z_0`.
    #[must_use]
    pub fn new(radius: FloatExp) -> Self {
        Self { radius, r: FloatExp::ZERO, n: 0, period: None }
    }

    /// Takes the next orbit value; `false` once the period is found (the orbit may stop).
    pub fn step(&mut self, z: Cx) -> bool {
        if self.period.is_some() {
            return false;
        }
        let z = cx_abs(z);
        if self.n > 0 && fe_less(z, self.r) {
            self.period = Some(self.n);
            return false;
        }
        // r <- r (2 |Z| + r) + R
        self.r = fe_add(fe_mul(self.r, fe_add(fe_mul(FloatExp::new(2.0, 0), z), self.r)), self.radius);
        self.n += 1;
        true
    }
}

/// The ball method's period along a computed orbit ([`Ball`]), or `None` when the orbit ends
/// (escapes or reaches its iterations) first.
#[must_use]
pub fn ball_period(orbit: &ReferenceOrbit, radius: FloatExp) -> Option<u32> {
    let mut ball = Ball::new(radius);
    for n in 0..orbit.re.len() {
        if !ball.step(Cx::new(orbit.re[n], orbit.im[n], orbit.exp[n])) {
            break;
        }
    }
    ball.period
}

/// The derivative `z_p'(c)` along an orbit of `c` fed its values `z_0, z_1, ...`, and
/// `z_p`: one Newton step for the nucleus of period `p` from the orbit itself.
#[derive(Clone, Copy, Debug)]
pub struct Derivative {
    d: Cx,
    n: u32,
    /// `z_p` once fed.
    pub z_p: Option<Cx>,
    period: u32,
}

impl Derivative {
    /// Before `z_0`, for period `period` (`u32::MAX`: not known yet, see [`Self::close`]).
    #[must_use]
    pub fn new(period: u32) -> Self {
        Self { d: Cx::default(), n: 0, z_p: None, period }
    }

    /// Takes `z_n`.
    pub fn step(&mut self, z: Cx) {
        if self.n == self.period {
            self.z_p = Some(z);
        } else if self.n < self.period {
            // z'_{n+1} = 2 z_n z'_n + 1
            self.d = cx_add(cx_mul(Cx::new(2.0 * z.re, 2.0 * z.im, z.e), self.d), Cx::new(1.0, 0.0, 0));
        }
        self.n = self.n.saturating_add(1);
    }

    /// `z_n` is `z_p`: the period ends here (the ball found it).
    pub fn close(&mut self, z: Cx) {
        self.period = self.n;
        self.step(z);
    }

    /// Newton's step `z_p / z_p'` (`None`: no `z_p` yet, or a vanishing derivative).
    #[must_use]
    pub fn newton_step(&self) -> Option<Cx> {
        let delta = cx_mul(self.z_p?, cx_recip(self.d));
        (delta.re.is_finite() && delta.im.is_finite()).then_some(delta)
    }
}

/// `|delta| < than`.
#[must_use]
pub fn shorter(delta: Cx, than: FloatExp) -> bool {
    fe_less(cx_abs(delta), than)
}

/// `c - delta` in `bits`.
#[must_use]
pub fn stepped(c: (&BigFloat, &BigFloat), delta: Cx, bits: usize) -> (BigFloat, BigFloat) {
    (c.0.sub(&big_of(delta.re, delta.e, bits), bits, RM), c.1.sub(&big_of(delta.im, delta.e, bits), bits, RM))
}

/// `v * 2^e` exactly (`v` an `f64`), in `bits`.
fn big_of(v: f64, e: i32, bits: usize) -> BigFloat {
    let mut b = BigFloat::from_f64(v, bits);
    if let Some(x) = b.exponent().filter(|_| !b.is_zero()) {
        b.set_exponent(x.saturating_add(e));
    }
    b
}

/// One pass of the period-`period` orbit of `c`: `(z_p, z_p', size)`, or `None` if it escapes.
fn newton_pass(cr: &BigFloat, ci: &BigFloat, period: u32, bits: usize, threads: usize) -> Option<(Cx, Cx, Cx)> {
    let n = Fixed::limbs_for(bits);
    let (fcr, fci) = (Fixed::from_big(cr, n)?, Fixed::from_big(ci, n)?);
    let one = Cx::new(1.0, 0.0, 0);
    let (mut dz, mut l, mut b) = (Cx::default(), one, one);
    let (mut zp, mut k) = (Cx::default(), 0u32);
    let mut push = |zr: &Fixed, zi: &Fixed, _mag4: &Fixed| {
        let z = cx_of(zr, zi);
        if k == period {
            zp = z;
        } else {
            // z' <- 2 z z' + 1 (from z_k to z_{k+1}); the size's l and b over 1 <= k < p.
            dz = cx_add(cx_mul(Cx::new(2.0 * z.re, 2.0 * z.im, z.e), dz), one);
            if k >= 1 {
                l = cx_mul(Cx::new(2.0 * z.re, 2.0 * z.im, z.e), l);
                b = cx_add(b, cx_recip(l));
            }
        }
        k += 1;
        true
    };
    iterate(&fcr, &fci, period, usize::MAX, threads, &mut push).ok()?;
    if k != period + 1 {
        return None; // escaped before the period
    }
    Some((zp, dz, cx_recip(cx_mul(b, cx_mul(l, l)))))
}

/// mathr's shape estimate of an atom at its nucleus (`m_d_shape`): about 0 for a cardioid (a
/// minibrot), about 1 for a disk (a bulb).
#[derive(Clone, Copy, Debug)]
pub struct Shape(pub Cx);

impl Shape {
    /// The estimate in `f64` (it is of order 1).
    #[must_use]
    pub fn value(&self) -> (f64, f64) {
        let k = i64::from(self.0.e);
        (ldexp64(self.0.re, k), ldexp64(self.0.im, k))
    }

    /// Nearer 0 (a cardioid) than 1 (a disk): mathr's `m_d_shape_discriminant`.
    #[must_use]
    pub fn is_cardioid(&self) -> bool {
        let (re, im) = self.value();
        re * re + im * im < (re - 1.0) * (re - 1.0) + im * im
    }
}

/// The shape estimate of the atom of `m` (its nucleus and period): along `z_1 .. z_{p-1}`,
/// `dcdc <- 2 (z dcdc + dc^2)`, `dcdz <- 2 (z dcdz + dc dz)`, `dc <- 2 z dc + 1`, `dz <- 2 z dz`
/// from `dc = dz = 1`, then `e = -(dcdc / (2 dc) + dcdz / dz) / (dc dz)`. A nucleus whose orbit
/// escapes (never for a nucleus) gives a disk.
#[must_use]
pub fn shape_of(m: &Minibrot) -> Shape {
    let n = Fixed::limbs_for(m.bits);
    let disk = Shape(Cx::new(1.0, 0.0, 0));
    let (Some(fcr), Some(fci)) = (Fixed::from_big(&m.re, n), Fixed::from_big(&m.im, n)) else { return disk };
    let one = Cx::new(1.0, 0.0, 0);
    let (mut dc, mut dz, mut dcdc, mut dcdz) = (one, one, Cx::default(), Cx::default());
    let mut k = 0u32;
    let two = |c: Cx| Cx::new(2.0 * c.re, 2.0 * c.im, c.e);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let mut push = |zr: &Fixed, zi: &Fixed, _mag4: &Fixed| {
        if k >= 1 && k < m.period {
            let z = cx_of(zr, zi);
            dcdc = two(cx_add(cx_mul(z, dcdc), cx_mul(dc, dc)));
            dcdz = two(cx_add(cx_mul(z, dcdz), cx_mul(dc, dz)));
            dc = cx_add(cx_mul(two(z), dc), one);
            dz = cx_mul(two(z), dz);
        }
        k += 1;
        true
    };
    if iterate(&fcr, &fci, m.period, usize::MAX, orbit_threads(n, cores), &mut push).is_err() || k < m.period {
        return disk;
    }
    let sum = cx_add(cx_mul(dcdc, cx_recip(two(dc))), cx_mul(dcdz, cx_recip(dz)));
    let e = cx_mul(sum, cx_recip(cx_mul(dc, dz)));
    Shape(Cx::new(-e.re, -e.im, e.e))
}

/// When Newton's method stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Goal {
    /// The step below `2^-64` of the minibrot's size, the precision raised as the size asks
    /// (`find-minibrot`: the nucleus to print).
    Size,
    /// The step below this distance, in the precision given (a reference for rendering: a
    /// fraction of a pixel is enough, since the pixels rebase at the period's end).
    Within(FloatExp),
}

/// Bits for a nucleus whose minibrot is `size` wide, in a view computed in `view_bits`: the
/// size's own bits and 64 more (so the nucleus is known to 2^-64 of its size).
fn bits_for(size: FloatExp, view_bits: usize) -> usize {
    let need = if size.m == 0.0 { 0.0 } else { -(log10(size) / std::f64::consts::LOG10_2) + 96.0 };
    view_bits.max((need.max(0.0).ceil() as usize).div_ceil(64) * 64)
}

/// The nucleus of the period-`period` atom nearest `c0` by Newton's method, starting in
/// `bits`, until `goal`, its steps no longer than `max_move` (a step beyond it has left the
/// view's neighbourhood: no convergence).
///
/// # Errors
/// [`MinibrotError::NoConvergence`].
pub fn newton_nucleus(
    c0: (&BigFloat, &BigFloat),
    period: u32,
    bits: usize,
    max_move: FloatExp,
    goal: Goal,
) -> Result<Minibrot, MinibrotError> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let fail = |steps, why| MinibrotError::NoConvergence { period, steps, why };
    let (mut cr, mut ci) = (c0.0.clone(), c0.1.clone());
    let mut bits = bits;
    for step in 1..=MAX_NEWTON_STEPS {
        let threads = orbit_threads(Fixed::limbs_for(bits), cores);
        let (zp, dz, size) = newton_pass(&cr, &ci, period, bits, threads).ok_or(fail(step, "the orbit escaped"))?;
        let delta = cx_mul(zp, cx_recip(dz));
        if !(delta.re.is_finite() && delta.im.is_finite()) {
            return Err(fail(step, "the derivative vanished"));
        }
        if fe_less(max_move, cx_abs(delta)) {
            return Err(fail(step, "a step left the view"));
        }
        cr = cr.sub(&big_of(delta.re, delta.e, bits), bits, RM);
        ci = ci.sub(&big_of(delta.im, delta.e, bits), bits, RM);
        let size_abs = cx_abs(size);
        let (wanted, within) = match goal {
            // The step below 2^-64 of the minibrot's size (and the precision holds it).
            Goal::Size => (bits_for(size_abs, bits), fe_mul(size_abs, FloatExp::new(1.0, -64))),
            Goal::Within(d) => (bits, d),
        };
        if fe_less(cx_abs(delta), within) && wanted <= bits {
            let (cr, ci) = (cr.clone(), ci.clone());
            return Ok(Minibrot { re: cr, im: ci, period, size, newton_steps: step, bits });
        }
        if wanted > bits {
            cr.set_precision(wanted, RM).ok();
            ci.set_precision(wanted, RM).ok();
            bits = wanted;
        }
    }
    Err(fail(MAX_NEWTON_STEPS, "still moving"))
}

/// `|C|` below 4 (the fixed-point orbit's range; no minibrot lies beyond 2).
#[must_use]
pub fn near_set(cr: &BigFloat, ci: &BigFloat) -> bool {
    let small = |v: &BigFloat| v.is_zero() || mant_exp(v).1 <= 2;
    small(cr) && small(ci)
}

/// The lowest-period minibrot in or near the view of centre `(cr, ci)` and half-diagonal
/// `radius`: the ball period along the centre's orbit (in `bits`, at most `iters` steps), then
/// its nucleus by Newton from the centre, in `bits` or more.
///
/// # Errors
/// No period within the orbit, or Newton did not converge.
pub fn find_minibrot(
    cr: &BigFloat,
    ci: &BigFloat,
    radius: FloatExp,
    iters: u32,
    bits: usize,
) -> Result<Minibrot, MinibrotError> {
    let mut ball = Ball::new(radius);
    let orbit = if near_set(cr, ci) {
        ReferenceOrbit::compute_threads(cr, ci, iters, bits, usize::MAX, None, &mut |z| ball.step(z)).ok()
    } else {
        None
    };
    let period = ball.period.ok_or(MinibrotError::NoPeriod {
        iters,
        how: match orbit {
            Some(o) if o.mag4.last().is_some_and(|&m| m < 0.0) => "reached the iterations",
            _ => "escaped first",
        },
    })?;
    nucleus_near(cr, ci, period, radius, bits)
}

/// The nucleus of period `period` nearest the centre `(cr, ci)` of a view of half-diagonal
/// `radius`: Newton's steps may go no further than 8 radii (a nucleus further away is
/// another atom's; the ball only says one of period `period` is in the disk).
///
/// # Errors
/// Newton did not converge.
pub fn nucleus_near(
    cr: &BigFloat,
    ci: &BigFloat,
    period: u32,
    radius: FloatExp,
    bits: usize,
) -> Result<Minibrot, MinibrotError> {
    newton_nucleus((cr, ci), period, bits, fe_mul(radius, FloatExp::new(1.0, 3)), Goal::Size)
}

impl Minibrot {
    /// The nucleus's parts in decimal: digits to place it to about `1e-14` of its size.
    ///
    /// # Errors
    /// A number that cannot be formatted.
    pub fn decimals(&self) -> Result<(String, String), super::decimal::DecimalError> {
        let keep = (-self.size_log10() + 14.0).max(17.0).ceil() as usize;
        Ok((super::decimal::decimal(&self.re, keep)?, super::decimal::decimal(&self.im, keep)?))
    }
}

/// The size as text: `1.23e-456`.
#[must_use]
pub fn format_size(v: FloatExp) -> String {
    let l = log10(v);
    if !l.is_finite() {
        return "0".into();
    }
    let e = l.floor();
    format!("{:.3}e{e}", 10f64.powf(l - e))
}

/// `|Z|` of an extended complex for tests and readouts.
#[must_use]
pub fn abs_log10(c: Cx) -> f64 {
    log10(cx_abs(c))
}

/// `log2` helper for callers scaling a view: the value `m 2^e` as `f64` when in range.
#[must_use]
pub fn to_f64(v: FloatExp) -> f64 {
    ldexp64(v.m, i64::from(v.e))
}

#[cfg(test)]
#[path = "minibrot_tests.rs"]
mod tests;
