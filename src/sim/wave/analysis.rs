//! What the wave lab measures on a field besides drawing it: the time-averaged intensity (the
//! mean of `f²`, where interference fringes are plain to see) and the colour range that keeps
//! a field readable as its amplitude changes (auto contrast).

use std::f64::consts::TAU;

/// The running time average of `f²`: an exponential moving average over about `window` time
/// steps, fed with fields sampled every few steps (each sample weighted by the steps since the
/// previous one, so uneven sampling still averages over time, not over samples).
#[derive(Clone, Debug, Default)]
pub struct Intensity {
    mean: Vec<f32>,
    /// Time steps covered so far (the average is over `min(covered, window)` steps).
    covered: f64,
    last_tstep: Option<u32>,
}

impl Intensity {
    /// Forgets everything (a new grid, a reset, a changed scene).
    pub fn clear(&mut self) {
        self.mean.clear();
        self.covered = 0.0;
        self.last_tstep = None;
    }

    /// Adds the field `f` of time step `tstep`, averaging over about `window` steps.
    pub fn add(&mut self, f: &[f32], tstep: u32, window: f64) {
        if self.mean.len() != f.len() || self.last_tstep.is_none_or(|t| tstep <= t) {
            self.mean.clear();
            self.mean.resize(f.len(), 0.0);
            self.covered = 0.0;
            self.last_tstep = Some(tstep);
            // The first sample stands for one step.
            self.blend(f, 1.0);
            self.covered = 1.0;
            return;
        }
        let dt = f64::from(tstep - self.last_tstep.unwrap_or(tstep));
        self.last_tstep = Some(tstep);
        self.covered += dt;
        // Weight of the new sample: a plain running mean until the window is full, then
        // exponential with time constant `window`.
        let alpha = if self.covered <= window { dt / self.covered } else { 1.0 - (-dt / window.max(1.0)).exp() };
        self.blend(f, alpha as f32);
    }

    fn blend(&mut self, f: &[f32], alpha: f32) {
        for (m, &v) in self.mean.iter_mut().zip(f) {
            *m += alpha * (v * v - *m);
        }
    }

    /// The averaged `f²` per cell (empty before the first sample).
    #[must_use]
    pub fn mean(&self) -> &[f32] {
        &self.mean
    }

    /// Time steps the average covers so far.
    #[must_use]
    pub fn covered_steps(&self) -> f64 {
        self.covered
    }
}

/// The period in time steps of a source of `freq` radians per step.
#[must_use]
pub fn period_steps(freq: f64) -> f64 {
    TAU / freq
}

/// The `q`-quantile (0..=1) of `|v|` over about 64 k evenly spaced samples of `values`: a robust
/// amplitude (one hot source cell does not set the scale). 0 for an empty slice.
#[must_use]
pub fn abs_quantile(values: &[f32], q: f64) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    let stride = (values.len() / 65_536).max(1);
    let mut s: Vec<f32> = values.iter().step_by(stride).map(|v| v.abs()).filter(|v| v.is_finite()).collect();
    if s.is_empty() {
        return 0.0;
    }
    let k = ((s.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    let (_, v, _) = s.select_nth_unstable_by(k, f32::total_cmp);
    *v
}

/// Auto contrast: follows the field's robust amplitude (99.5th percentile of `|f|`), rising at
/// once and falling slowly (so the picture does not pump), never below `floor`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoRange {
    pub vmax: f32,
}

impl AutoRange {
    /// The quantile of `|f|` that sets the scale.
    pub const QUANTILE: f64 = 0.995;
    /// The smallest scale (a field at rest is drawn black-to-white around 0, not as noise).
    pub const FLOOR: f32 = 1e-4;

    /// Starts at `vmax`.
    #[must_use]
    pub fn new(vmax: f32) -> Self {
        Self { vmax: vmax.max(Self::FLOOR) }
    }

    /// Takes in a new field; returns the symmetric range `(-vmax, vmax)` to draw it with.
    pub fn update(&mut self, f: &[f32]) -> (f32, f32) {
        let target = abs_quantile(f, Self::QUANTILE).max(Self::FLOOR);
        self.vmax = if target > self.vmax { target } else { self.vmax + 0.1 * (target - self.vmax) };
        (-self.vmax, self.vmax)
    }

    /// A range for non-negative values such as the intensity: `(0, quantile)`.
    #[must_use]
    pub fn of_positive(values: &[f32]) -> (f32, f32) {
        (0.0, abs_quantile(values, Self::QUANTILE).max(Self::FLOOR * Self::FLOOR))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intensity_of_a_sine_is_half_its_amplitude_squared() {
        // One cell with amplitude 2, sampled every 3 steps over many periods: mean f² = 2.
        let freq = 0.2;
        let mut acc = Intensity::default();
        for t in (1..2000).step_by(3) {
            let v = 2.0 * (freq * f64::from(t)).sin() as f32;
            acc.add(&[v, 0.0], t, 4.0 * period_steps(freq));
        }
        let m = acc.mean()[0];
        assert!((m - 2.0).abs() < 0.15, "mean of (2 sin)² = {m}, want 2");
        assert_eq!(acc.mean()[1], 0.0);
        // A reset of the step counter starts over.
        acc.add(&[1.0, 1.0], 5, 10.0);
        assert_eq!(acc.mean(), &[1.0, 1.0]);
    }

    #[test]
    fn auto_range_follows_the_bulk_not_one_hot_cell() {
        let mut f = vec![0.01f32; 10_000];
        f[17] = 5.0;
        for (k, v) in f.iter_mut().enumerate().skip(100).take(200) {
            *v = if k % 2 == 0 { 0.3 } else { -0.3 };
        }
        let q = abs_quantile(&f, AutoRange::QUANTILE);
        assert!((q - 0.3).abs() < 1e-6, "quantile {q}");
        let mut r = AutoRange::new(0.1);
        assert_eq!(r.update(&f), (-0.3, 0.3), "rises at once");
        let quiet = vec![0.01f32; 100];
        let (_, v) = r.update(&quiet);
        assert!(v < 0.3 && v > 0.2, "falls slowly: {v}");
        assert_eq!(AutoRange::new(0.0).update(&[0.0; 4]), (-AutoRange::FLOOR, AutoRange::FLOOR));
    }
}
