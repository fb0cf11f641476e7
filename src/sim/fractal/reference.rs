//! The reference point of a deep view (issue 21's periodic reference): the ball method
//! watches the centre's orbit as it is computed; where it finds the period `p` of an atom in or
//! near the view, the orbit may stop there: pixels rebase at an orbit's end onto `Z_0 = 0`
//! (exact for any orbit), and at the end of this one every pixel near the atom has come back
//! near 0, so only `p` steps are computed in arbitrary precision however many iterations the
//! pixels run ([`Reference::Period`], `Auto`'s choice). `Nucleus` goes on with Newton's method
//! from the centre's derivative, each pass an orbit one period long, and takes the pass that
//! converges (its step below `2^-32` of a pixel): its `Z_p` is 0 to that much, at the cost of
//! one or two more periods of orbit. Measured: the same counts from either (docs/PERFORMANCE.md,
//! deep-zoom section), so `Auto` cuts the centre's orbit.

use astro_float::BigFloat;

use super::bla::FloatExp;
use super::minibrot::{Ball, Derivative, near_set, shorter, stepped};
use super::perturb::{OrbitTooLong, ReferenceOrbit};

/// The point a `DeepJob`'s orbit is computed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reference {
    /// The view's centre (`period`: the ball method's, where one was found; `fallback`:
    /// Newton did not converge for it).
    Centre { period: Option<u32>, fallback: bool },
    /// The view's centre, its orbit cut at the `period` of the atom the ball method found in
    /// or near the view: pixels rebase at its end as at any orbit's (`Z_p` is small there,
    /// within the ball's radius), so only `period` steps are computed in arbitrary precision
    /// and no Newton pass is needed.
    Period { period: u32 },
    /// The nucleus of a minibrot of `period` in or near the view
    /// ([`super::minibrot`]): its orbit is periodic, so only `period` steps are computed in
    /// arbitrary precision and pixels rebase at its end (`Z_period` is 0 to the precision).
    Nucleus { period: u32, newton_steps: u32 },
}

impl Reference {
    /// In words, for readouts: `centre`, `centre, cut at period 86614`, `nucleus of period 11380 (1 Newton steps)`.
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            Self::Centre { period: None, .. } => "centre".to_owned(),
            Self::Centre { period: Some(p), fallback: true } => {
                format!("centre (Newton did not converge for the period-{p} nucleus)")
            }
            Self::Centre { period: Some(p), fallback: false } => {
                format!("centre (a cut at period {p} would not pay: a period under {CUT_MIN_PERIOD} or a cheap orbit)")
            }
            Self::Period { period } => format!("centre, cut at period {period}"),
            Self::Nucleus { period, newton_steps } => {
                format!("nucleus of period {period} ({newton_steps} Newton steps)")
            }
        }
    }
}

/// Which reference a `DeepJob` may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ReferenceChoice {
    /// The centre's orbit cut at the ball's period where it pays ([`pays`]: a period of at
    /// least [`CUT_MIN_PERIOD`] and an orbit that is not cheap), else the centre's whole
    /// orbit.
    #[default]
    Auto,
    /// Always the view's centre.
    Centre,
    /// A minibrot's nucleus wherever one is found, else the centre.
    Nucleus,
    /// The centre's orbit cut at the period the ball method finds ([`Reference::Period`]),
    /// else the centre's whole orbit.
    Period,
}

/// Work (iterations times 64-bit limbs) below which the centre's orbit is cheap enough (a
/// few ms at most) that `Auto` keeps it whole: there the cut saves nothing worth a rebase a
/// period. (With Newton's passes, when `Auto` took the nucleus, this was `1 << 22`; the cut
/// costs no pass, so rust-fractal's 5e49 (1.3 M) and 2e533 (3.6 M) now take it too.)
pub const CUT_MIN_WORK: u64 = 1 << 18;

/// `Auto`'s rule: cutting the centre's orbit at `period` pays for `iters` at `bits` (it
/// saves the orbit's steps past the period; the pixels pay a rebase a period, and BLA cannot
/// skip across one).
#[must_use]
pub fn pays(iters: u32, period: u64, bits: usize) -> bool {
    let limbs = super::orbit_fixed::Fixed::limbs_for(bits) as u64;
    period >= CUT_MIN_PERIOD && u64::from(iters) > period && u64::from(iters) * limbs >= CUT_MIN_WORK
}

/// Shortest period `Auto` takes: a pixel rebases at every period's end and BLA cannot skip
/// across it, so a short period (a view inside a large component, such as `c = 0`'s) costs the
/// pixels more than the centre's orbit saves.
pub const CUT_MIN_PERIOD: u64 = 64;

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
    // any period): watching costs a little (a few per cent: the stored values compared with
    // the ball's radius) and would find a period only to say the cut does not pay.
    let hopeless = choice == ReferenceChoice::Auto && !pays(iters, CUT_MIN_PERIOD, bits);
    if choice == ReferenceChoice::Centre || hopeless || !near_set(re, im) {
        let orbit = ReferenceOrbit::compute_limited(re, im, iters, bits, max_steps)?;
        return Ok(Referenced { orbit, reference: centre, point: None });
    }
    // The centre's orbit, watched by the ball; its derivative kept for Newton's first step.
    let mut ball = Ball::new(radius);
    let mut deriv = Derivative::new(u32::MAX);
    let (mut watching, mut stopped) = (true, false);
    // The cut orbit needs no derivative (no Newton step follows).
    let newton = choice == ReferenceChoice::Nucleus;
    let orbit = ReferenceOrbit::compute_threads(re, im, iters, bits, max_steps, None, &mut |z| {
        if !watching {
            return true;
        }
        if ball.step(z) {
            if newton {
                deriv.step(z);
            }
            return true;
        }
        if newton {
            deriv.close(z);
        }
        // The period: stop here if the cut (or Newton) pays, else go on with the centre's orbit.
        watching = false;
        let p = u64::from(ball.period.unwrap_or(1));
        stopped = matches!(choice, ReferenceChoice::Nucleus | ReferenceChoice::Period) || pays(iters, p, bits);
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
    if choice != ReferenceChoice::Nucleus {
        return Ok(Referenced { orbit, reference: Reference::Period { period }, point: None });
    }
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
        let orbit = ReferenceOrbit::compute_threads(&point.0, &point.1, period, bits, max_steps, None, &mut |z| {
            deriv.step(z);
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
