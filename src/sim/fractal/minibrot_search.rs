//! Find minibrot as a user means it: an island — a small copy of the set with its own cardioid —
//! in or near the view and smaller than it, never a disk-shaped bulb and never a zoom out.
//!
//! The lowest-period atom in the view's disk ([`super::minibrot::find_minibrot`]) is often not
//! that: near the main cardioid or a bulb it is a bulb (a disk), and once zoomed in past an atom
//! it is the atom the view lies in (framing it zooms out). So, as Kalles Fraktaler's and
//! Fraktaler 3's Newton zooms let the user aim, and with mathr's estimates to judge:
//! - **Periods at several radii.** Balls of radius 2R, R, R/2 … R/256 (R the view's
//!   half-diagonal) ride the centre's one orbit; each finds the lowest period in its disk, so
//!   the smaller disks give the higher periods of the smaller atoms nearer the centre. Where
//!   none of those is an island, the same about each point of a 5 x 5 grid over the view (balls
//!   of R/4 and R/16), Newton starting there: the airship beside the whole set.
//! - **Each candidate, lowest period first:** its nucleus by Newton from the centre (and, if
//!   that leaves the disk, from four points half a radius out), then kept only if it lies within
//!   two radii of the centre, its framing zoom is deeper than the view's, and mathr's shape
//!   estimate says cardioid, not disk (`m_d_shape`: `e ≈ 0` a cardioid, `e ≈ 1` a disk).
//!
//! Pure: no clocks, no files.

use astro_float::BigFloat;

use super::bla::{Cx, FloatExp};
use super::minibrot::{
    Ball, Goal, Minibrot, MinibrotError, cx_abs, cx_add, cx_mul, fe_less, fe_mul, near_set, newton_nucleus, shape_of,
    shorter, stepped,
};
use super::perturb::{RM, ReferenceOrbit, mant_exp};

/// The balls' radii, as powers of two of the view's half-diagonal: 2R, R, R/2 … R/256 (the
/// period a ball finds jumps with its radius: at the seahorse point at 1e17, R finds 1996 and
/// R/2 the island of period 7982).
const RADII_LOG2: [i32; 10] = [1, 0, -1, -2, -3, -4, -5, -6, -7, -8];

/// The balls of each point of the grid searched when the centre's disks hold no island.
const GRID_RADII_LOG2: [i32; 2] = [-2, -4];

/// A candidate's orbit is followed at most this many times the first period found (past it a
/// smaller disk's period would be far deeper than the view shows).
const PERIOD_REACH: u32 = 16;

/// What was found instead of a minibrot, for the one-line message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rejected {
    pub bulbs: Vec<u32>,
    pub larger: Vec<u32>,
    pub unconverged: Vec<u32>,
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        let mut parts = Vec::new();
        if !self.bulbs.is_empty() {
            parts.push(format!("bulbs (disks) of period {}", list(&self.bulbs)));
        }
        if !self.larger.is_empty() {
            parts.push(format!(
                "atoms larger than the view (period {}): framing them would zoom out",
                list(&self.larger)
            ));
        }
        if !self.unconverged.is_empty() {
            parts.push(format!(
                "period {} whose nucleus Newton's method did not find in the view",
                list(&self.unconverged)
            ));
        }
        write!(f, "{}", parts.join("; "))
    }
}

/// Why no island was framed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Minibrot(#[from] MinibrotError),
    #[error("no minibrot in or near the view: found {0}; zoom in towards the boundary, or pan")]
    OnlyRejected(Rejected),
}

/// The lowest-period island in or near the view of centre `(cr, ci)` and half-diagonal `radius`
/// whose framing zoom is deeper than `min_zoom_log10`; each orbit in `bits`, at most `iters`
/// steps.
///
/// # Errors
/// No period in any disk within the iterations, or every candidate rejected (said which).
pub fn find_island(
    cr: &BigFloat,
    ci: &BigFloat,
    radius: FloatExp,
    iters: u32,
    bits: usize,
    min_zoom_log10: f64,
) -> Result<Minibrot, SearchError> {
    let centre = (cr.clone(), ci.clone());
    let mut rejected = Rejected::default();
    let (periods, orbit_end) = ball_periods(cr, ci, radius, &RADII_LOG2, iters, bits);
    let from_centre: Vec<(u32, (BigFloat, BigFloat))> = periods.into_iter().map(|p| (p, centre.clone())).collect();
    if let Some(m) = first_island(&centre, from_centre, radius, bits, min_zoom_log10, &mut rejected) {
        return Ok(m);
    }
    // The centre's disks hold no island: the lowest period about each point of a 5 x 5 grid over
    // the view (an airship beside the whole set, a minibrot in a corner), Newton from that point.
    let mut from_grid = Vec::new();
    for gy in -2i32..=2 {
        for gx in -2i32..=2 {
            if gx == 0 && gy == 0 {
                continue;
            }
            // The view's box is within the disk of the half-diagonal: steps of 0.3 R.
            let d = Cx::new(f64::from(gx) * 0.3 * radius.m, f64::from(gy) * 0.3 * radius.m, radius.e);
            let at = stepped((cr, ci), d, bits);
            for p in ball_periods(&at.0, &at.1, radius, &GRID_RADII_LOG2, iters, bits).0 {
                from_grid.push((p, at.clone()));
            }
        }
    }
    if periods_empty(&rejected) && from_grid.is_empty() {
        return Err(MinibrotError::NoPeriod { iters, how: orbit_end }.into());
    }
    from_grid.sort_by_key(|(p, _)| *p);
    first_island(&centre, from_grid, radius, bits, min_zoom_log10, &mut rejected)
        .ok_or(SearchError::OnlyRejected(rejected))
}

fn periods_empty(r: &Rejected) -> bool {
    r.bulbs.is_empty() && r.larger.is_empty() && r.unconverged.is_empty()
}

/// The first-order ball (mathr's `m_d_ball_period` in its derivative form): the first `n` with
/// `|Z_n| < |dZ_n/dC| r`, where the orbit's linear image of the disk of radius `r` holds 0. Less
/// cautious than [`Ball`] (which bounds the square term too), it finds the higher periods of the
/// small atoms close to the centre that [`Ball`]'s growing radius passes over.
struct LinearBall {
    r: FloatExp,
    dz: Cx,
    n: u32,
    period: Option<u32>,
}

impl LinearBall {
    fn new(r: FloatExp) -> Self {
        Self { r, dz: Cx::default(), n: 0, period: None }
    }

    fn step(&mut self, z: Cx) -> bool {
        if self.period.is_some() {
            return false;
        }
        if self.n > 0 && fe_less(cx_abs(z), fe_mul(cx_abs(self.dz), self.r)) {
            self.period = Some(self.n);
            return false;
        }
        // dZ_{n+1} = 2 Z_n dZ_n + 1
        self.dz = cx_add(cx_mul(Cx::new(2.0 * z.re, 2.0 * z.im, z.e), self.dz), Cx::new(1.0, 0.0, 0));
        self.n += 1;
        true
    }
}

/// The periods the balls of radius `radius * 2^k` (each `k` of `radii_log2`) find along the
/// orbit of `(cr, ci)`, lowest first, each once; and how the orbit ended where none did.
fn ball_periods(
    cr: &BigFloat,
    ci: &BigFloat,
    radius: FloatExp,
    radii_log2: &[i32],
    iters: u32,
    bits: usize,
) -> (Vec<u32>, &'static str) {
    let r = |k: i32| FloatExp::new(radius.m, radius.e.saturating_add(k));
    let mut balls: Vec<Ball> = radii_log2.iter().map(|&k| Ball::new(r(k))).collect();
    let mut linear: Vec<LinearBall> = radii_log2.iter().map(|&k| LinearBall::new(r(k))).collect();
    let mut steps = 0u32;
    let mut orbit_end = "escaped first";
    if near_set(cr, ci) {
        let o = ReferenceOrbit::compute_threads(cr, ci, iters, bits, usize::MAX, None, &mut |z| {
            steps += 1;
            let mut open = false;
            for b in &mut balls {
                open |= b.step(z);
            }
            for b in &mut linear {
                open |= b.step(z);
            }
            let first = balls.iter().filter_map(|b| b.period).min();
            open && first.is_none_or(|p| steps <= p.saturating_mul(PERIOD_REACH))
        });
        if o.as_ref().is_ok_and(|o| o.mag4.last().is_some_and(|&m| m < 0.0)) {
            orbit_end = "reached the iterations";
        }
    }
    let mut periods: Vec<u32> =
        balls.iter().map(|b| b.period).chain(linear.iter().map(|b| b.period)).flatten().collect();
    periods.sort_unstable();
    periods.dedup();
    (periods, orbit_end)
}

/// The first island among `candidates` (period, where Newton starts), tried in order; what was
/// not one is noted in `rejected`.
fn first_island(
    centre: &(BigFloat, BigFloat),
    candidates: Vec<(u32, (BigFloat, BigFloat))>,
    radius: FloatExp,
    bits: usize,
    min_zoom_log10: f64,
    rejected: &mut Rejected,
) -> Option<Minibrot> {
    let mut tried: Vec<(u32, BigFloat, BigFloat)> = Vec::new();
    for (period, start) in candidates {
        let Some(m) = nucleus_near_view(centre, &start, period, radius, bits) else {
            if !rejected.unconverged.contains(&period) {
                rejected.unconverged.push(period);
            }
            continue;
        };
        // The same nucleus from another start: judged already.
        if tried.iter().any(|(p, re, im)| {
            *p == period && close(re, &m.re, m.size_abs(), bits) && close(im, &m.im, m.size_abs(), bits)
        }) {
            continue;
        }
        tried.push((period, m.re.clone(), m.im.clone()));
        let size = m.size_abs();
        let list = if !(size.m > 0.0 && size.m.is_finite()) {
            // Newton found the nucleus of a divisor of the period (its orbit meets 0 earlier).
            &mut rejected.unconverged
        } else if m.framing_zoom_log10() <= min_zoom_log10 {
            &mut rejected.larger
        } else if !shape_of(&m).is_cardioid() {
            &mut rejected.bulbs
        } else {
            return Some(m);
        };
        if !list.contains(&period) {
            list.push(period);
        }
    }
    None
}

/// `|a - b|` below `size / 1000`.
fn close(a: &BigFloat, b: &BigFloat, size: FloatExp, bits: usize) -> bool {
    let (mant, e) = mant_exp(&a.sub(b, bits, RM));
    mant == 0.0
        || shorter(Cx::new(mant.abs(), 0.0, i32::try_from(e).unwrap_or(i32::MAX)), FloatExp::new(size.m, size.e - 10))
}

/// The period-`period` nucleus by Newton from `start`, its steps within 8 view radii, kept if it
/// lies within two view radii of the view's centre.
fn nucleus_near_view(
    centre: &(BigFloat, BigFloat),
    start: &(BigFloat, BigFloat),
    period: u32,
    radius: FloatExp,
    bits: usize,
) -> Option<Minibrot> {
    let leash = FloatExp::new(radius.m, radius.e.saturating_add(3));
    let two_r = FloatExp::new(radius.m, radius.e.saturating_add(1));
    let m = newton_nucleus((&start.0, &start.1), period, bits, leash, Goal::Size).ok()?;
    let within = |a: &BigFloat, b: &BigFloat| {
        let (mant, e) = mant_exp(&a.sub(b, bits.max(m.bits), RM));
        mant == 0.0 || shorter(Cx::new(mant.abs(), 0.0, i32::try_from(e).unwrap_or(i32::MAX)), two_r)
    };
    (within(&m.re, &centre.0) && within(&m.im, &centre.1)).then_some(m)
}
