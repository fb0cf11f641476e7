//! How a case is timed: one warm-up run (compiles, caches, page faults and GPU clock ramp-up
//! happen there), then as many repeats as fit a time budget, reduced to medians. Cases say
//! what one run is; the runner knows nothing of kernels.

use web_time::{Duration, Instant};

use anyhow::Result;

use crate::backend::{Timing, TimingSource, WaveSim};

/// How many repeats a case wants and how long it may take.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Repeats at least (when the budget is short, still this many).
    pub min: usize,
    /// Repeats at most.
    pub max: usize,
    /// Time the repeats may take, judged from the warm-up run.
    pub budget: Duration,
}

impl Plan {
    /// A plan of up to `quick_max` / `full_max` repeats in `quick_secs` / `full_secs`.
    #[must_use]
    pub fn new(quick: bool, (quick_max, full_max): (usize, usize), (quick_secs, full_secs): (u64, u64)) -> Self {
        let (max, secs) = if quick { (quick_max, quick_secs) } else { (full_max, full_secs) };
        Self { min: 1, max, budget: Duration::from_secs(secs) }
    }

    /// How many repeats fit the budget after a warm-up run took `first`.
    #[must_use]
    pub fn repeats(&self, first: Duration) -> usize {
        let fit = (self.budget.as_secs_f64() / first.as_secs_f64().max(1e-9)) as usize;
        fit.clamp(self.min.max(1), self.max.max(self.min).max(1))
    }
}

/// The medians of a case's repeats.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Median wall time of one run, in seconds.
    pub seconds: f64,
    /// Median device time of one run, where the backend measures one.
    pub kernel_seconds: Option<f64>,
    /// Where `kernel_seconds` came from.
    pub source: TimingSource,
    pub repeats: usize,
}

impl Measured {
    /// The device time where known, else the wall time.
    #[must_use]
    pub fn best_seconds(&self) -> f64 {
        self.kernel_seconds.unwrap_or(self.seconds)
    }
}

/// Runs `run` once to warm up, then `plan.repeats(..)` times, and returns the warm-up's timing
/// and the medians of the repeats.
///
/// # Errors
/// The first failure of `run`.
pub fn measure(plan: Plan, mut run: impl FnMut() -> Result<Timing>) -> Result<(Timing, Measured)> {
    let warm = run()?;
    let n = plan.repeats(warm.wall);
    let (mut walls, mut devs) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut source = warm.source;
    for _ in 0..n {
        let t = run()?;
        walls.push(t.wall.as_secs_f64());
        devs.extend(t.device.map(|d| d.as_secs_f64()));
        source = t.source;
    }
    let kernel_seconds = (devs.len() == walls.len() && !devs.is_empty()).then(|| median(devs));
    Ok((warm, Measured { seconds: median(walls), kernel_seconds, source, repeats: n }))
}

/// The median (the mean of the middle two for an even count); NaN for none.
#[must_use]
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) }
}

/// Runs `tmax` steps from zero on `sim` and copies `f` into `field`, timing it as the seed
/// does (its timer includes the final `cp.asnumpy`). `field` is the caller's, reused from run
/// to run as an application would, so the copy is not charged for first-touch page faults.
/// The device time is that of the steps alone.
///
/// # Errors
/// A device failure.
pub fn time_wave(sim: &mut dyn WaveSim, tmax: u32, field: &mut [f32]) -> Result<Timing> {
    sim.reset()?;
    let start = Instant::now();
    let t = sim.advance(tmax)?;
    sim.read_field(field)?;
    Ok(Timing { wall: start.elapsed(), device: t.device, source: t.source })
}

/// How long a GPU wave case runs its updates back to back before its timed runs. A GPU's clocks
/// follow its load: on the H200 with wgpu alone (no CUDA context in the process, which holds
/// them at the top), the SM clock fell to 345-825 MHz during the bench's CPU phases and its
/// copies, against 1980 MHz under steady load, and the 8192² rows read 2-4x slow (307 against
/// 108 µs an update; docs/PERFORMANCE.md, stop 42). The first timed run's warm-up alone, with its
/// upload and copy back, kept the load near half and the clock near 800 MHz.
pub const SETTLE: Duration = Duration::from_millis(600);

/// Runs `sim`'s updates back to back, `tmax` steps a call (no reset, no copy to the host), until
/// `min` of wall time has passed (at least one call), so that a GPU's clocks are up when the timed
/// runs start; the timed runs reset the field. Returns the calls made.
///
/// # Errors
/// The first failure of `advance`.
pub fn settle(sim: &mut dyn WaveSim, tmax: u32, min: Duration) -> Result<usize> {
    let start = Instant::now();
    let mut calls = 0;
    while calls == 0 || start.elapsed() < min {
        sim.advance(tmax)?;
        calls += 1;
    }
    Ok(calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `settle` keeps advancing for the time asked and at least once, and leaves a field that the
    /// timed runs' reset puts back to zero.
    #[test]
    fn settle_runs_the_updates_for_the_time_asked_and_at_least_once() {
        use crate::backend::{Backend, WaveVariant};
        let cpu = crate::backend::cpu::CpuBackend::new(crate::backend::cpu::Threads::One);
        let mut sim = cpu.new_wave_variant(&crate::sim::wave::WaveParams::new(64, 48, 0.1), WaveVariant::Auto).unwrap();
        let start = Instant::now();
        let calls = settle(sim.as_mut(), 20, Duration::from_millis(40)).unwrap();
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(40) && calls >= 2, "settled {calls} calls in {took:?} (40 ms asked)");
        assert_eq!(settle(sim.as_mut(), 20, Duration::ZERO).unwrap(), 1, "no time asked: one call");
        let mut field = vec![0.0f32; 64 * 48];
        sim.read_field(&mut field).unwrap();
        assert!(field.iter().any(|&v| v != 0.0), "the settled field moved");
        sim.reset().unwrap();
        sim.read_field(&mut field).unwrap();
        assert!(field.iter().all(|&v| v == 0.0), "reset after settling");
    }

    #[test]
    fn medians_and_repeats() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(Vec::new()).is_nan());
        let plan = Plan { min: 2, max: 7, budget: Duration::from_secs(1) };
        assert_eq!(plan.repeats(Duration::from_millis(100)), 7);
        assert_eq!(plan.repeats(Duration::from_millis(400)), 2);
        assert_eq!(plan.repeats(Duration::from_secs(5)), 2);
    }

    #[test]
    fn measure_warms_up_then_repeats() {
        let mut calls = 0;
        let plan = Plan { min: 3, max: 3, budget: Duration::from_secs(1) };
        let (_, m) = measure(plan, || {
            calls += 1;
            Ok(Timing::wall(Duration::from_millis(calls)))
        })
        .unwrap();
        assert_eq!((calls, m.repeats), (4, 3));
        assert!((m.seconds - 0.003).abs() < 1e-12, "{}", m.seconds);
        assert!(m.kernel_seconds.is_none());
    }
}
