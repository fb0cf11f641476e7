//! What the timing panel knows: the active backend's rate and the CPU copy's, each tagged with
//! the problem it was measured on ([`Problem`]) and when, and the comparison of the two — a
//! speedup only when both are of the same problem and fresh, otherwise what it waits for
//! ([`Comparison`]).

use std::collections::VecDeque;
use std::sync::Arc;
use web_time::{Duration, Instant};

use crate::backend::bandwidth::Bandwidth;
use crate::backend::{BackendKind, DeviceInfo, Timing, TimingSource};
use crate::sim::fractal::deep::View;
use crate::sim::fractal::mandelbrot::MandelbrotParams;
use crate::sim::wave::scene::Scene;

use crate::app::options::Demo;
pub use crate::app::parts::timing_words::{LAUNCH_BOUND_RATIO, fmt_count, fmt_secs, launch_bound_hint, who};
use crate::app::parts::timing_words::{capitalise, fmt_times, lower_first, plain_who};
use crate::app::worker::messages::{CompareJob, CompareSample, FrameSource, MandelbrotFrame, WaveFrame};

/// Seconds of history the plot keeps.
pub const HISTORY_SECS: f64 = 30.0;
/// Weight of a new measurement in the smoothed value.
const SMOOTHING: f64 = 0.2;
/// A wave figure older than this (or than four of its own measurements) is stale: the problem
/// stopped running, or the comparison was switched off.
pub const STALE: Duration = Duration::from_secs(3);
/// The comparison thread's figures are the best of its measurements within this long (about
/// five of them beside an active `cpu`, one a second): a sample that a frame of the window or
/// another program shared the cores with loses to its neighbours, and the figure holds still
/// enough to be read aloud (seen: a smoothed figure went 370 … 1 180 steps a second).
pub const BEST_OF: Duration = Duration::from_secs(5);

/// What a measurement was of. Two figures are compared only when their problems are equal.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// A wave scene: grid, sources, walls, media, boundary (a rate per update does not depend
    /// on the steps per call).
    Wave(Arc<Scene>),
    /// A Mandelbrot picture computed directly: bounds, size, iterations, precision.
    Mandelbrot(MandelbrotParams),
    /// A Mandelbrot picture computed by perturbation (the CPU copy does not run these).
    Deep { view: View, width: usize, height: usize, iters: u32 },
    /// A Julia picture (the CPU copy runs Mandelbrot pictures only).
    Julia { c: [f64; 2], view: View, width: usize, height: usize, iters: u32 },
}

impl Problem {
    /// The problem in a few words, for "waiting for …".
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Self::Wave(s) => format!("the {}x{} scene", s.nx, s.ny),
            Self::Mandelbrot(p) => {
                format!("this {}x{} view at {} iterations ({})", p.width, p.height, p.iters, p.precision.name())
            }
            Self::Deep { width, height, iters, .. } => {
                format!("this {width}x{height} view at {iters} iterations (perturbation)")
            }
            Self::Julia { width, height, iters, .. } => {
                format!("this {width}x{height} Julia set at {iters} iterations")
            }
        }
    }
}

/// A measured rate: seconds per unit (one cell-array update for waves, one image for Mandelbrot).
#[derive(Clone, Debug)]
pub struct Rate {
    pub kind: BackendKind,
    pub device: String,
    /// Smoothed seconds per unit.
    pub secs: f64,
    /// Work per unit: cells per update, or iterations per image.
    pub work: f64,
    pub source: TimingSource,
    /// True when `secs` covers the kernels alone (device timers).
    pub kernel_only: bool,
    /// The problem the rate was measured on.
    pub problem: Problem,
    /// When the last measurement came, and how long it took.
    pub at: Instant,
    pub took: Duration,
    /// Measurements taken in: the first of a new backend or problem holds its warm-up (a wgpu
    /// pipeline built, caches cold) and is replaced by the second, not averaged with it.
    pub samples: u32,
    /// The comparison thread's recent measurements `(when, secs)`: its figures are the best of
    /// the last [`BEST_OF`] (each side alike), not a smoothed mean that a frame drawn during one
    /// sample drags down.
    pub recent: VecDeque<(Instant, f64)>,
}

impl Rate {
    /// Giga cells (waves) or iterations (Mandelbrot) per second.
    #[must_use]
    pub fn giga_per_s(&self) -> f64 {
        self.work / self.secs / 1e9
    }

    /// Time since the last measurement.
    #[must_use]
    pub fn age(&self) -> Duration {
        self.at.elapsed()
    }

    /// True while measurements keep coming: the last is younger than [`STALE`] or four of its
    /// own durations.
    #[must_use]
    pub fn fresh(&self) -> bool {
        self.age() <= STALE.max(self.took * 4)
    }

    /// Takes `secs` into the recent measurements and makes the figure their best.
    fn best_of_recent(&mut self, secs: f64) {
        let now = Instant::now();
        self.recent.push_back((now, secs));
        while self.recent.front().is_some_and(|&(t, _)| now.duration_since(t) > BEST_OF) {
            self.recent.pop_front();
        }
        self.secs = self.recent.iter().map(|&(_, s)| s).fold(f64::INFINITY, f64::min);
    }

    fn update(&mut self, secs: f64, work: f64) {
        if (work - self.work).abs() > 0.5 {
            self.secs = secs;
        } else {
            self.secs += SMOOTHING * (secs - self.secs);
        }
        self.work = work;
    }

    /// What the time includes (a tooltip-sized note).
    #[must_use]
    pub fn includes(&self) -> String {
        if self.kernel_only {
            format!("kernels only, timed by {}", self.source.label())
        } else {
            format!("whole call incl. launches, sync, copies; {}", self.source.label())
        }
    }
}

/// The two figures compared, or what the comparison waits for.
#[derive(Clone, Debug, PartialEq)]
pub enum Comparison {
    /// The CPU copy's time over the active backend's, both of the same problem and fresh.
    Speedup(f64),
    /// No speedup is shown; the sentence says why.
    Waiting(String),
}

/// Everything the panel shows, fed by the frames and the CPU samples.
pub struct TimingStats {
    pub demo: Demo,
    pub active: Option<Rate>,
    pub cpu: Option<Rate>,
    /// The active backend, when it is `cpu` (every core), measured by the comparison thread
    /// beside `cpu1` in the same conditions (the simulation paused, the window idle, taking
    /// turns): the figure the comparison uses, as the live one shares the cores with the
    /// window's drawing and lost to one core on a 2-core machine.
    pub active_alike: Option<Rate>,
    /// Seconds to colour and hand over the last frame (waves).
    pub render_secs: Option<f64>,
    /// True when the last frame was coloured into the display texture on the GPU (no copy).
    pub zero_copy: bool,
    pub cpu_error: Option<String>,
    pub peak_gbps: Option<f64>,
    /// The device eframe draws with (adapter name and graphics API).
    pub display_adapter: Option<String>,
    history: VecDeque<[f64; 3]>,
    last_push: f64,
    t0: Instant,
    /// Hide every number (snapshot tests).
    pub frozen: bool,
    /// The rule's iterations of the last Mandelbrot image (`min(count + 1, iters)` a pixel).
    pub rule_iters: Option<f64>,
    /// The UI's own frame rate, smoothed.
    pub ui_fps: Option<f64>,
    /// False when the user switched the CPU comparison off.
    pub cpu_enabled: bool,
    /// Bytes the active wave kernel moves per update at the frame's call size, from its design
    /// (`WaveSim::dram_bytes_per_update(steps)`), set by whoever owns the problem. Without it
    /// the panel shows no DRAM figure and no share of the peak.
    pub dram_bytes_per_update: Option<f64>,
    /// The active backend's time per update in one large call (the bench's figure, measured on
    /// this problem), for the launch-bound hint.
    pub large_call_update_secs: Option<f64>,
    /// Time steps the last wave frame advanced in its call(s).
    pub steps_per_frame: u32,
    /// "fastest" is ticked: the worker already fills the frame budget with steps.
    pub fastest: bool,
    /// The class view: one plain sentence, the numbers behind it folded away.
    pub class_view: bool,
    /// What the app's own threads take of the cores while things are measured.
    pub load: crate::app::parts::load::AppLoad,
    /// The machine's cores, for the load note.
    pub cores: usize,
    /// A Mandelbrot view is being drawn (its coarse passes are shown) that no figure is of yet:
    /// the figures held are of the picture before it, and nothing is compared until it is done.
    pub drawing: bool,
    /// What is timed on those cores now (set every frame), for the load note.
    pub measured: crate::app::parts::load::Measured,
}

impl TimingStats {
    #[must_use]
    pub fn new(frozen: bool) -> Self {
        Self {
            demo: Demo::Wave,
            active: None,
            cpu: None,
            active_alike: None,
            render_secs: None,
            zero_copy: false,
            cpu_error: None,
            peak_gbps: None,
            display_adapter: None,
            history: VecDeque::new(),
            last_push: f64::NEG_INFINITY,
            t0: Instant::now(),
            frozen,
            rule_iters: None,
            ui_fps: None,
            cpu_enabled: true,
            dram_bytes_per_update: None,
            large_call_update_secs: None,
            steps_per_frame: 0,
            fastest: false,
            class_view: true,
            load: crate::app::parts::load::AppLoad::default(),
            cores: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            drawing: false,
            measured: crate::app::parts::load::Measured::default(),
        }
    }

    /// Takes the time between two UI frames into the frame-rate readout.
    pub fn record_ui_frame(&mut self, dt_secs: f64) {
        if dt_secs > 0.0 && dt_secs.is_finite() {
            let fps = 1.0 / dt_secs;
            self.ui_fps = Some(self.ui_fps.map_or(fps, |f| f + 0.1 * (fps - f)));
        }
    }

    /// Forgets every measurement (another view, backend or problem).
    pub fn clear(&mut self, demo: Demo) {
        self.demo = demo;
        self.active = None;
        self.cpu = None;
        self.active_alike = None;
        self.render_secs = None;
        self.cpu_error = None;
        self.drawing = false;
        self.history.clear();
    }

    /// The CPU comparison switched on or off; off forgets its figure at once.
    pub fn set_cpu_enabled(&mut self, on: bool) {
        self.cpu_enabled = on;
        if !on {
            self.cpu = None;
            self.cpu_error = None;
        }
    }

    /// Sets the active backend's device facts.
    pub fn set_device(&mut self, device: &DeviceInfo) {
        self.peak_gbps = device.peak_gbps;
    }

    pub(crate) fn record(
        slot: &mut Option<Rate>,
        kind: BackendKind,
        device: &str,
        secs: f64,
        work: f64,
        t: &Timing,
        problem: Problem,
    ) {
        if !(secs.is_finite() && secs > 0.0) {
            return;
        }
        let (at, took) = (Instant::now(), t.wall);
        match slot {
            Some(r) if r.kind == kind && r.problem == problem => {
                if r.samples == 1 {
                    (r.secs, r.work) = (secs, work);
                } else {
                    r.update(secs, work);
                }
                r.samples = r.samples.saturating_add(1);
                r.source = t.source;
                r.kernel_only = t.device.is_some();
                (r.at, r.took) = (at, took);
            }
            _ => {
                *slot = Some(Rate {
                    kind,
                    device: device.to_owned(),
                    secs,
                    work,
                    source: t.source,
                    kernel_only: t.device.is_some(),
                    problem,
                    at,
                    took,
                    samples: 1,
                    recent: VecDeque::new(),
                });
            }
        }
    }

    /// The rule's iterations of the last Mandelbrot image where they differ from the executed
    /// ones (a kernel that skips iterations by approximation, or runs extra ones).
    pub fn set_rule_iters(&mut self, rule: u64) {
        self.rule_iters = Some(rule as f64);
    }

    /// A wave frame from the active backend.
    pub fn record_wave(&mut self, kind: BackendKind, device: &str, f: &WaveFrame) {
        if f.steps == 0 || self.demo != Demo::Wave {
            return;
        }
        let updates = 2.0 * f64::from(f.steps);
        let secs = f.advance.best().as_secs_f64() / updates;
        let problem = Problem::Wave(Arc::clone(&f.scene));
        Self::record(&mut self.active, kind, device, secs, (f.params.nx * f.params.ny) as f64, &f.advance, problem);
        self.steps_per_frame = f.steps;
        self.render_secs = Some(f.render.wall.as_secs_f64());
        self.zero_copy = matches!(f.pixels, FrameSource::Native { .. });
        self.push_history();
    }

    /// A Mandelbrot image from the active backend. Its executed iterations are the rule's
    /// (`min(count + 1, iters)` a pixel) until [`Self::set_rule_iters`] says otherwise. A
    /// picture only coloured again (no time) keeps the figure of the one it recolours.
    pub fn record_mandelbrot(&mut self, kind: BackendKind, device: &str, f: &MandelbrotFrame) {
        if self.demo != Demo::Mandelbrot || f.timing.best().is_zero() {
            return;
        }
        self.rule_iters = Some(f.total_iters as f64);
        let secs = f.timing.best().as_secs_f64();
        let problem = match (f.params, f.request.julia) {
            (_, Some(c)) => Problem::Julia {
                c,
                view: f.request.view.clone(),
                width: f.width,
                height: f.height,
                iters: f.request.iters,
            },
            (Some(p), None) => Problem::Mandelbrot(p),
            (None, None) => {
                Problem::Deep { view: f.request.view.clone(), width: f.width, height: f.height, iters: f.request.iters }
            }
        };
        // Each image is its own problem: no smoothing across different views.
        self.active = None;
        self.drawing = false;
        Self::record(&mut self.active, kind, device, secs, f.total_iters as f64, &f.timing, problem);
        self.push_history();
    }

    /// A coarse pass of a Mandelbrot view is shown: until its full picture is measured, the
    /// figures held are of the picture before (said so, never compared as this one's).
    pub fn drawing_a_new_view(&mut self) {
        if self.demo == Demo::Mandelbrot {
            self.drawing = true;
        }
    }

    /// What a figure is of, for its line in the panel: "this …" only while it is the picture shown.
    #[must_use]
    pub fn of_what(&self, r: &Rate) -> String {
        let what = r.problem.describe();
        if self.drawing { format!("the picture before this one ({})", what.trim_start_matches("this ")) } else { what }
    }

    /// A measurement of the CPU comparison thread.
    pub fn record_cpu(&mut self, s: &CompareSample) {
        if !self.cpu_enabled {
            return;
        }
        if let Some(e) = &s.error {
            self.cpu_error = Some(e.clone());
            return;
        }
        self.cpu_error = None;
        // Beside an active `cpu`, the comparison thread measures `cpu` too: that sample is the
        // active side's figure taken alike, not the CPU copy's.
        let alike = s.kind == BackendKind::Cpu && self.active.as_ref().is_some_and(|a| a.kind == BackendKind::Cpu);
        let slot = if alike { &mut self.active_alike } else { &mut self.cpu };
        match &s.job {
            CompareJob::Wave(p) if self.demo == Demo::Wave && s.steps > 0 => {
                let secs = s.timing.wall.as_secs_f64() / (2.0 * f64::from(s.steps));
                let problem = Problem::Wave(Arc::clone(p));
                Self::record(slot, s.kind, &s.device, secs, p.cells() as f64, &s.timing, problem);
                if let Some(r) = slot.as_mut() {
                    r.best_of_recent(secs);
                }
            }
            CompareJob::Mandelbrot(p) if self.demo == Demo::Mandelbrot => {
                *slot = None;
                let secs = s.timing.wall.as_secs_f64();
                let problem = Problem::Mandelbrot(*p);
                Self::record(slot, s.kind, &s.device, secs, s.total_iters as f64, &s.timing, problem);
            }
            _ => return,
        }
        self.push_history();
    }

    /// Drops a CPU rate measured on another problem than the active one.
    pub fn drop_stale_cpu(&mut self) {
        if let (Some(a), Some(c)) = (&self.active, &self.cpu)
            && a.problem != c.problem
        {
            self.cpu = None;
        }
    }

    fn push_history(&mut self) {
        let t = self.t0.elapsed().as_secs_f64();
        if t - self.last_push < 0.2 {
            return;
        }
        self.last_push = t;
        let speedup = self.speedup();
        let g = |r: &Option<Rate>| r.as_ref().map_or(f64::NAN, Rate::giga_per_s);
        // The CPU line only where its figure may be compared with the active one.
        let cpu = if speedup.is_some() { g(&self.cpu) } else { f64::NAN };
        self.history.push_back([t, g(&self.active), cpu]);
        while self.history.front().is_some_and(|h| t - h[0] > HISTORY_SECS) {
            self.history.pop_front();
        }
    }

    /// The plot's points: `[time, active, cpu]` in G/s (NaN where none).
    pub fn history(&self) -> impl Iterator<Item = &[f64; 3]> {
        self.history.iter()
    }

    /// The bandwidth figures of a wave rate (the DRAM one only for the active backend, whose
    /// kernel design is known).
    #[must_use]
    pub fn bandwidth(&self, r: &Rate, active: bool) -> Bandwidth {
        let (dram, peak) = if active { (self.dram_bytes_per_update, self.peak_gbps) } else { (None, None) };
        Bandwidth::new(r.secs, r.work, dram, peak)
    }

    /// The launch-bound hint for the active wave backend, when it applies.
    #[must_use]
    pub fn launch_hint(&self) -> Option<String> {
        let a = self.active.as_ref().filter(|_| self.demo == Demo::Wave)?;
        launch_bound_hint(a.secs, self.large_call_update_secs?, self.steps_per_frame, self.fastest)
    }

    /// The active figure is current: waves keep measuring while they play; a Mandelbrot
    /// picture is measured once, and its figure holds while it is shown.
    fn current(&self, r: &Rate) -> bool {
        self.demo == Demo::Mandelbrot || r.fresh()
    }

    /// The speedup of the active backend over the CPU copy, or what it waits for.
    #[must_use]
    pub fn comparison(&self) -> Comparison {
        let wait = |s: String| Comparison::Waiting(s);
        if self.drawing && self.demo == Demo::Mandelbrot {
            return wait("drawing this view: the comparison comes when its picture is complete".to_owned());
        }
        let Some(a) = &self.active else {
            return wait("waiting for the first measured frame".to_owned());
        };
        if !self.current(a) {
            return wait(format!(
                "paused: nothing is measured now (last frame {:.0} s ago); press Play to compare",
                a.age().as_secs_f64()
            ));
        }
        if !self.cpu_enabled {
            return wait("the CPU comparison is off: tick \"CPU comparison\" to compare".to_owned());
        }
        if let Some(e) = &self.cpu_error {
            return wait(format!("the CPU copy could not run: {e}"));
        }
        if matches!(a.problem, Problem::Julia { .. }) {
            return wait("the CPU copy runs pictures of the Mandelbrot set: no comparison on a Julia set".to_owned());
        }
        if matches!(a.problem, Problem::Deep { .. }) {
            return wait(
                "the CPU copy runs pictures computed directly (f32, f64), not by perturbation: no comparison at this depth"
                    .to_owned(),
            );
        }
        if self.demo == Demo::Wave && a.samples < 2 && self.current(a) {
            // Seen after a switch of backend: "speedup 0.0 x" from the new one's first frame.
            return wait(format!("measuring {}: its first frame warms it up", a.kind));
        }
        let Some(c) = &self.cpu else {
            return wait(format!("waiting for the CPU copy to measure {}", a.problem.describe()));
        };
        if c.problem != a.problem {
            return wait(format!("waiting for the CPU copy to measure {} (it has another one)", a.problem.describe()));
        }
        if !self.current(c) {
            return wait(format!("waiting for a fresh CPU figure (the last is {:.0} s old)", c.age().as_secs_f64()));
        }
        Comparison::Speedup(c.secs / self.compared(a).secs)
    }

    /// The figure of the active backend the comparison uses: its alike one (measured beside the
    /// CPU copy, [`Self::active_alike`]) where that is of the same problem and fresh, else `a`.
    #[must_use]
    pub fn compared<'a>(&'a self, a: &'a Rate) -> &'a Rate {
        match &self.active_alike {
            Some(x) if x.kind == a.kind && x.problem == a.problem && self.current(x) => x,
            _ => a,
        }
    }

    /// True when the comparison's two figures were taken alike, by the comparison thread.
    #[must_use]
    pub fn compared_alike(&self) -> bool {
        self.active.as_ref().is_some_and(|a| !std::ptr::eq(self.compared(a), a))
    }

    /// The speedup of the active backend over the CPU, where both figures are of the same
    /// problem and fresh.
    #[must_use]
    pub fn speedup(&self) -> Option<f64> {
        match self.comparison() {
            Comparison::Speedup(s) => Some(s),
            Comparison::Waiting(_) => None,
        }
    }

    /// The class view's sentence: what each side did in plain words and how many times faster,
    /// or what the comparison waits for.
    #[must_use]
    pub fn sentence(&self) -> String {
        let (a, c, x) = match (self.comparison(), &self.active, &self.cpu) {
            (Comparison::Speedup(x), Some(a), Some(c)) => (self.compared(a), c, x),
            (Comparison::Waiting(why), _, _) => return capitalise(&why),
            _ => return "Waiting for the first measured frame".to_owned(),
        };
        // The faster side named, never "the CPU copy": a class reads it aloud.
        let faster = if x >= 1.0 {
            format!("{} times faster", fmt_times(x))
        } else {
            format!("{} was {} times faster", plain_who(c.kind), fmt_times(1.0 / x))
        };
        match self.demo {
            Demo::Wave => {
                let (nx, ny) = match &a.problem {
                    Problem::Wave(s) => (s.nx, s.ny),
                    _ => (0, 0),
                };
                // Steps in one second (two updates a step).
                let steps = |r: &Rate| 1.0 / (2.0 * r.secs);
                format!(
                    "In one second {} did {} steps of the {nx}x{ny} grid while {} did {}: {faster}.",
                    lower_first(&who(a.kind)),
                    fmt_count(steps(a)),
                    lower_first(&who(c.kind)),
                    fmt_count(steps(c)),
                )
            }
            Demo::Mandelbrot => format!(
                "{} drew this picture in {} while {} took {}: {faster}.",
                who(a.kind),
                fmt_secs(a.secs),
                lower_first(&who(c.kind)),
                fmt_secs(c.secs),
            ),
        }
    }
}
