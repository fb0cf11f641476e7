//! The screen (PhET's): a column of cells `x = X` on which the time-averaged intensity is read,
//! and what theory says it should be there — the far-field intensity `I(θ)` of the scene's
//! slits or sources ([`far_field`]), drawn on the column's cells ([`theory_on_column`]), and
//! where its orders fall ([`theory_marks_on_column`]).
//!
//! Positions are in index coordinates, as [`Theory`] gives them: cell `(i, j)` is the point
//! `(i, j)`. The field is row-major (`f[i*ny + j]`), so a column is `ny` consecutive values.

use std::f64::consts::{PI, TAU};

use crate::sim::wave::theory::{Pattern, Theory};

/// The values of column `x` of a row-major `(nx, ny)` field.
///
/// # Panics
/// `x` is not a column of the field.
#[must_use]
pub fn column(f: &[f32], ny: usize, x: usize) -> &[f32] {
    &f[x * ny..(x + 1) * ny]
}

/// The exact mean of `f²` on a column over the steps added (every step, so the mean over a
/// whole number of periods is the time average, not an estimate).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScreenAverage {
    sum: Vec<f64>,
    samples: u32,
}

impl ScreenAverage {
    /// Adds one time step's values of the column.
    pub fn add_column(&mut self, col: &[f32]) {
        if self.sum.len() != col.len() {
            self.sum = vec![0.0; col.len()];
            self.samples = 0;
        }
        for (s, &v) in self.sum.iter_mut().zip(col) {
            *s += f64::from(v) * f64::from(v);
        }
        self.samples += 1;
    }

    /// The mean of `f²` per cell of the column (empty before the first step).
    #[must_use]
    pub fn mean(&self) -> Vec<f64> {
        let n = f64::from(self.samples.max(1));
        self.sum.iter().map(|s| s / n).collect()
    }

    /// Steps added.
    #[must_use]
    pub fn samples(&self) -> u32 {
        self.samples
    }
}

/// What one averages a scene's intensity over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AveragingPeriod {
    /// The period of the lowest source frequency, in time steps: every source completes at
    /// least one cycle in it.
    pub steps: f64,
    /// With several frequencies, the longest beat period `2π/|f₁ − f₂|` between two of them:
    /// the cross terms of the intensity oscillate with it, so they average out only where the
    /// window is long against it. `None` with one frequency.
    pub beat_steps: Option<f64>,
}

/// The averaging period of sources of `freqs` radians per step (`None` without a positive one).
#[must_use]
pub fn averaging_period(freqs: &[f64]) -> Option<AveragingPeriod> {
    let lowest = freqs.iter().copied().filter(|f| f.is_finite() && *f > 0.0).reduce(f64::min)?;
    let mut beat: Option<f64> = None;
    for (k, &a) in freqs.iter().enumerate() {
        for &b in &freqs[k + 1..] {
            let df = (a - b).abs();
            if df > 1e-12 {
                beat = Some(beat.map_or(TAU / df, |t: f64| t.max(TAU / df)));
            }
        }
    }
    Some(AveragingPeriod { steps: TAU / lowest, beat_steps: beat })
}

/// Whole time steps in `periods` periods of `period_steps` (at least one).
#[must_use]
pub fn averaging_steps(periods: f64, period_steps: f64) -> u32 {
    (periods * period_steps).round().clamp(1.0, f64::from(u32::MAX)) as u32
}

/// The far-field intensity of the theory's geometry in the direction `sin θ`, relative to its
/// value at `θ = 0` (1 there): two point sources `cos²γ`; `N` slits of width `a`, spacing `d`
/// `sinc²β · (sin Nγ / (N sin γ))²` (for two slits the `cos²γ` fringes under the single-slit
/// envelope; for a grating the principal maxima where `d·sin θ = m·λ`); one slit `sinc²β`.
/// `γ = π d sin θ / λ`, `β = π a sin θ / λ`.
#[must_use]
pub fn far_field(t: &Theory, sin_theta: f64) -> f64 {
    let gamma = PI * t.d * sin_theta / t.lambda;
    let envelope = t.slit_width.map_or(1.0, |a| sinc(PI * a * sin_theta / t.lambda).powi(2));
    match t.pattern {
        Pattern::TwoSources => gamma.cos().powi(2),
        Pattern::SingleSlit => envelope,
        Pattern::Slits { count } => {
            let n = count as f64;
            let s = gamma.sin();
            // At a principal maximum (γ = mπ) the array factor's limit is 1.
            let array = if s.abs() < 1e-9 { 1.0 } else { ((n * gamma).sin() / (n * s)).powi(2) };
            envelope * array
        }
    }
}

fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-9 { 1.0 } else { x.sin() / x }
}

/// `sin θ` of the point `(x, y)` seen from the theory's origin (towards [`Theory::across`] is
/// positive); `None` behind a barrier (on the sources' side) or at the origin.
#[must_use]
pub fn sin_theta_at(t: &Theory, x: f64, y: f64) -> Option<f64> {
    let (rx, ry) = (x - t.origin.0, y - t.origin.1);
    let r = rx.hypot(ry);
    if r < 1.0 {
        return None;
    }
    let ahead = t.axes.iter().any(|a| rx * a.0 + ry * a.1 > 0.0);
    if !ahead && t.pattern != Pattern::TwoSources {
        return None;
    }
    Some((rx * t.across.0 + ry * t.across.1) / r)
}

/// The theory's intensity on the cells `y = 0..ny` of column `x`: the far field `I(θ)` times the
/// `1/r` of a wave spreading in two dimensions, scaled to 1 at its largest; NaN where theory says
/// nothing (behind the barrier). `None` where it says nothing on the whole column.
#[must_use]
pub fn theory_on_column(t: &Theory, x: usize, ny: usize) -> Option<Vec<f64>> {
    let raw: Vec<f64> = (0..ny)
        .map(|y| {
            let (rx, ry) = (x as f64 - t.origin.0, y as f64 - t.origin.1);
            sin_theta_at(t, x as f64, y as f64).map_or(f64::NAN, |s| far_field(t, s) / rx.hypot(ry))
        })
        .collect();
    let top = raw.iter().copied().filter(|v| v.is_finite()).fold(0.0, f64::max);
    (top > 0.0).then(|| raw.iter().map(|v| v / top).collect())
}

/// Where the theory's orders `(m, θ_m)` ([`Theory::angles`]: maxima, or a single slit's minima)
/// cross column `x`: `(m, y)` with `y` interpolated between cells, in order of `y`.
#[must_use]
pub fn theory_marks_on_column(t: &Theory, x: usize, ny: usize) -> Vec<(i32, f64)> {
    let s: Vec<Option<f64>> = (0..ny).map(|y| sin_theta_at(t, x as f64, y as f64)).collect();
    let mut out = Vec::new();
    for (m, theta) in t.angles() {
        let want = theta.sin();
        for y in 0..ny.saturating_sub(1) {
            let (Some(a), Some(b)) = (s[y], s[y + 1]) else { continue };
            let (a, b) = (a - want, b - want);
            if a == 0.0 || a * b < 0.0 {
                out.push((m, y as f64 + a / (a - b)));
            }
        }
    }
    out.sort_by(|p, q| p.1.total_cmp(&q.1));
    out
}

/// The local maxima of `v` above `floor` times its largest value, each refined by the parabola
/// through it and its neighbours (positions in cells, fractional).
#[must_use]
pub fn maxima(v: &[f64], floor: f64) -> Vec<f64> {
    let top = v.iter().copied().filter(|x| x.is_finite()).fold(0.0, f64::max);
    if v.len() < 3 || top <= 0.0 {
        return Vec::new();
    }
    (1..v.len() - 1)
        .filter(|&j| v[j] > v[j - 1] && v[j] >= v[j + 1] && v[j] > floor * top)
        .map(|j| {
            let (a, b, c) = (v[j - 1], v[j], v[j + 1]);
            let bend = a - 2.0 * b + c;
            j as f64 + if bend < 0.0 { 0.5 * (a - c) / bend } else { 0.0 }
        })
        .collect()
}

#[cfg(test)]
#[path = "screen_tests.rs"]
mod tests;
