//! The reference point of a deep view: the centre, or the nucleus of a minibrot in or near
//! the view (issue 21's periodic reference): the ball method watches the centre's orbit as it
//! is computed; where it finds a period (and the iterations are many periods), Newton's method
//! goes on from the centre's derivative, each pass an orbit one period long, and the pass that
//! converges (its step below `2^-32` of a pixel) is the reference; else the centre's orbit.
//! Pixels rebase at the periodic orbit's end, so only `period` steps are ever computed in
//! arbitrary precision, however many iterations the pixels run.

use astro_float::BigFloat;

use super::bla::FloatExp;
use super::minibrot::{Ball, Derivative, cx_of, near_set, shorter, stepped};
use super::perturb::{OrbitTooLong, ReferenceOrbit};

/// The point a `DeepJob`'s orbit is computed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reference {
    /// The view's centre (`period`: the ball method's, where one was found; `fallback`:
    /// Newton did not converge for it).
    Centre { period: Option<u32>, fallback: bool },
    /// The nucleus of a minibrot of `period` in or near the view
    /// ([`super::minibrot`]): its orbit is periodic, so only `period` steps are computed in
    /// arbitrary precision and pixels rebase at its end (`Z_period` is 0 to the precision).
    Nucleus { period: u32, newton_steps: u32 },
}

impl Reference {
    /// In words, for readouts: `centre`, `centre (Newton did not converge)`, `nucleus of period 11380`.
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            Self::Centre { period: None, .. } => "centre".to_owned(),
            Self::Centre { period: Some(p), fallback: true } => {
                format!("centre (Newton did not converge for the period-{p} nucleus)")
            }
            Self::Centre { period: Some(p), fallback: false } => {
                format!("centre (the period-{p} nucleus would not pay: under {NUCLEUS_PAYS} periods or a cheap orbit)")
            }
            Self::Nucleus { period, newton_steps } => {
                format!("nucleus of period {period} ({newton_steps} Newton steps)")
            }
        }
    }
}

/// Which reference a `DeepJob` may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ReferenceChoice {
    /// A minibrot's nucleus where one is found in or near the view and it pays ([`pays`]:
    /// a period of at least [`NUCLEUS_MIN_PERIOD`], the iterations at least [`NUCLEUS_PAYS`]
    /// periods and the orbit not cheap), else the centre.
    #[default]
    Auto,
    /// Always the view's centre.
    Centre,
    /// A minibrot's nucleus wherever one is found, else the centre.
    Nucleus,
}

/// Iterations, in periods, from which the nucleus pays: it costs the centre's orbit up to the
/// ball's period (which gives Newton's first step too) and one orbit of `period` steps per
/// further Newton step (1 or 2 on rust-fractal's four locations; the last pass's orbit is the
/// reference), against the centre's orbit of up to `iters` steps.
pub const NUCLEUS_PAYS: u64 = 3;

/// Work (iterations times 64-bit limbs) below which the centre's orbit is cheap enough (a
/// few ms) that `Auto` keeps it: at shallow depths the periodic reference saves nothing, and
/// with `f64` deltas rebasing every short period moved pixels of seahorse valley at 1e6
/// (period 39, 2000 iterations, 40x30: 2 of 1200 counts differ from the direct rule against
/// at most 1 with the centre, `deep_tests.rs`' 0.1% budget; the nucleus and centre counts
/// differ on 2).
pub const NUCLEUS_MIN_WORK: u64 = 1 << 22;

/// `Auto`'s rule: the nucleus of `period` pays for `iters` at `bits`.
#[must_use]
pub fn pays(iters: u32, period: u64, bits: usize) -> bool {
    let limbs = super::orbit_fixed::Fixed::limbs_for(bits) as u64;
    period >= NUCLEUS_MIN_PERIOD
        && u64::from(iters) >= NUCLEUS_PAYS * period
        && u64::from(iters) * limbs >= NUCLEUS_MIN_WORK
}

/// Shortest period `Auto` takes: a pixel rebases at every period's end and BLA cannot skip
/// across it, so a short period (a view inside a large component, such as `c = 0`'s) costs the
/// pixels more than the centre's orbit saves.
pub const NUCLEUS_MIN_PERIOD: u64 = 64;

/// A reference orbit and the point it is of.
#[derive(Clone, Debug)]
pub struct Referenced {
    pub orbit: ReferenceOrbit,
    pub reference: Reference,
    /// The nucleus (`None`: the centre).
    pub point: Option<(BigFloat, BigFloat)>,
}

/// The reference orbit of the view of centre `c`, half-diagonal `radius` and pixel spacing
/// `pixel` (`DeepJob::prepare_with`), and the point it is of (`None`: the centre).
///
/// # Errors
/// The orbit outgrows `max_steps`.
pub fn reference_orbit(
    c: (&BigFloat, &BigFloat),
    (radius, pixel): (FloatExp, FloatExp),
    iters: u32,
    bits: usize,
    max_steps: usize,
    choice: ReferenceChoice,
) -> Result<Referenced, OrbitTooLong> {
    let (re, im) = c;
    let centre = Reference::Centre { period: None, fallback: false };
    // `Auto` skips the ball where no period could pay (a cheap orbit or too few iterations for
    // any period): watching costs ~25% of the orbit (5e49 on the H100: 74 ms alone, 94 ms
    // watched) and would find a period only to say the nucleus does not pay.
    let hopeless = choice == ReferenceChoice::Auto && !pays(iters, NUCLEUS_MIN_PERIOD, bits);
    if choice == ReferenceChoice::Centre || hopeless || !near_set(re, im) {
        let orbit = ReferenceOrbit::compute_limited(re, im, iters, bits, max_steps)?;
        return Ok(Referenced { orbit, reference: centre, point: None });
    }
    // The centre's orbit, watched by the ball; its derivative kept for Newton's first step.
    let mut ball = Ball::new(radius);
    let mut deriv = Derivative::new(u32::MAX);
    let (mut watching, mut stopped) = (true, false);
    let orbit = ReferenceOrbit::compute_threads(re, im, iters, bits, max_steps, None, &mut |zr, zi| {
        if !watching {
            return true;
        }
        let z = cx_of(zr, zi);
        if ball.step(z) {
            deriv.step(z);
            return true;
        }
        deriv.close(z);
        // The period: stop here if the nucleus pays, else go on with the centre's orbit.
        watching = false;
        let p = u64::from(ball.period.unwrap_or(1));
        stopped = choice == ReferenceChoice::Nucleus || pays(iters, p, bits);
        !stopped
    })?;
    let Some(period) = ball.period.filter(|_| stopped) else {
        // The orbit ran to its end: it is the centre's whole orbit.
        return Ok(Referenced {
            orbit,
            reference: Reference::Centre { period: ball.period, fallback: false },
            point: None,
        });
    };
    // Newton: each pass is the orbit of the point, one period long, with its derivative; the
    // pass whose step is below 2^-32 of a pixel is the reference (the nucleus to that much:
    // its Z_period is far below every pixel's, so rebasing there keeps their digits).
    let (goal, leash) = (FloatExp::new(pixel.m, pixel.e - 32), FloatExp::new(radius.m, radius.e + 3));
    let mut point = (re.clone(), im.clone());
    let mut delta = deriv.newton_step();
    for pass in 1..=MAX_PASSES {
        let Some(d) = delta.filter(|&d| shorter(d, leash)) else { break };
        point = stepped((&point.0, &point.1), d, bits);
        let mut deriv = Derivative::new(period);
        let orbit =
            ReferenceOrbit::compute_threads(&point.0, &point.1, period, bits, max_steps, None, &mut |zr, zi| {
                deriv.step(cx_of(zr, zi));
                true
            })?;
        delta = deriv.newton_step();
        if orbit.steps() == period as usize && delta.is_some_and(|d| shorter(d, goal)) {
            return Ok(Referenced {
                orbit,
                reference: Reference::Nucleus { period, newton_steps: pass },
                point: Some(point),
            });
        }
    }
    let orbit = ReferenceOrbit::compute_limited(re, im, iters, bits, max_steps)?;
    Ok(Referenced { orbit, reference: Reference::Centre { period: Some(period), fallback: true }, point: None })
}

/// Newton passes (each an orbit of one period) tried before falling back to the centre.
const MAX_PASSES: u32 = 8;
