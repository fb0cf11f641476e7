//! The live timing panel: the active backend against the CPU on the same problem, measured as
//! it runs, with the speedup, throughput, share of the device's peak, what each time includes
//! and where it came from, and a rolling plot of the last 30 s.

use std::collections::VecDeque;
use std::time::Instant;

use crate::backend::bandwidth::Bandwidth;
use crate::backend::{BackendKind, DeviceInfo, Timing, TimingSource};

use crate::app::launch::options::Demo;
use crate::app::worker::messages::{CompareJob, CompareSample, FrameSource, MandelbrotFrame, WaveFrame};

/// Seconds of history the plot keeps.
pub const HISTORY_SECS: f64 = 30.0;
/// Weight of a new measurement in the smoothed value.
const SMOOTHING: f64 = 0.2;
/// A call is launch-bound when its time per update is this many times the large-call one.
pub const LAUNCH_BOUND_RATIO: f64 = 2.0;

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
    /// Problem the rate was measured on, to drop stale ones.
    pub problem: (usize, usize),
}

impl Rate {
    /// Giga cells (waves) or iterations (Mandelbrot) per second.
    #[must_use]
    pub fn giga_per_s(&self) -> f64 {
        self.work / self.secs / 1e9
    }

    fn update(&mut self, secs: f64, work: f64) {
        if (work - self.work).abs() > 0.5 {
            self.secs = secs;
        } else {
            self.secs += SMOOTHING * (secs - self.secs);
        }
        self.work = work;
    }

    fn includes(&self) -> String {
        if self.kernel_only {
            format!("kernels only, timed by {}", self.source.label())
        } else {
            format!("whole call incl. launches, sync, copies; {}", self.source.label())
        }
    }
}

/// Everything the panel shows, fed by the frames and the CPU samples.
pub struct TimingStats {
    pub demo: Demo,
    pub active: Option<Rate>,
    pub cpu: Option<Rate>,
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
}

impl TimingStats {
    #[must_use]
    pub fn new(frozen: bool) -> Self {
        Self {
            demo: Demo::Wave,
            active: None,
            cpu: None,
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
        self.render_secs = None;
        self.cpu_error = None;
        self.history.clear();
    }

    /// Sets the active backend's device facts.
    pub fn set_device(&mut self, device: &DeviceInfo) {
        self.peak_gbps = device.peak_gbps;
    }

    fn record(
        slot: &mut Option<Rate>,
        kind: BackendKind,
        device: &str,
        secs: f64,
        work: f64,
        t: &Timing,
        problem: (usize, usize),
    ) {
        if !(secs.is_finite() && secs > 0.0) {
            return;
        }
        match slot {
            Some(r) if r.kind == kind && r.problem == problem => {
                r.update(secs, work);
                r.source = t.source;
                r.kernel_only = t.device.is_some();
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
        let problem = (f.params.nx, f.params.ny);
        Self::record(&mut self.active, kind, device, secs, (f.params.nx * f.params.ny) as f64, &f.advance, problem);
        self.steps_per_frame = f.steps;
        self.render_secs = Some(f.render.wall.as_secs_f64());
        self.zero_copy = matches!(f.pixels, FrameSource::Native { .. });
        self.push_history();
    }

    /// A Mandelbrot image from the active backend. Its executed iterations are the rule's
    /// (`min(count + 1, iters)` a pixel) until [`Self::set_rule_iters`] says otherwise.
    pub fn record_mandelbrot(&mut self, kind: BackendKind, device: &str, f: &MandelbrotFrame) {
        if self.demo != Demo::Mandelbrot {
            return;
        }
        self.rule_iters = Some(f.total_iters as f64);
        let secs = f.timing.best().as_secs_f64();
        let problem = (f.width, f.height);
        // Each image is its own problem: no smoothing across different views.
        self.active = None;
        Self::record(&mut self.active, kind, device, secs, f.total_iters as f64, &f.timing, problem);
        self.push_history();
    }

    /// A measurement of the CPU comparison thread.
    pub fn record_cpu(&mut self, s: &CompareSample) {
        if let Some(e) = &s.error {
            self.cpu_error = Some(e.clone());
            return;
        }
        self.cpu_error = None;
        match &s.job {
            CompareJob::Wave(p) if self.demo == Demo::Wave && s.steps > 0 => {
                let secs = s.timing.wall.as_secs_f64() / (2.0 * f64::from(s.steps));
                Self::record(&mut self.cpu, s.kind, &s.device, secs, p.cells() as f64, &s.timing, (p.nx, p.ny));
            }
            CompareJob::Mandelbrot(p) if self.demo == Demo::Mandelbrot => {
                self.cpu = None;
                let secs = s.timing.wall.as_secs_f64();
                Self::record(
                    &mut self.cpu,
                    s.kind,
                    &s.device,
                    secs,
                    s.total_iters as f64,
                    &s.timing,
                    (p.width, p.height),
                );
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
        let g = |r: &Option<Rate>| r.as_ref().map_or(f64::NAN, Rate::giga_per_s);
        self.history.push_back([t, g(&self.active), g(&self.cpu)]);
        while self.history.front().is_some_and(|h| t - h[0] > HISTORY_SECS) {
            self.history.pop_front();
        }
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
        launch_bound_hint(a.secs, self.large_call_update_secs?, self.steps_per_frame)
    }

    /// The speedup of the active backend over the CPU, where both are measured.
    #[must_use]
    pub fn speedup(&self) -> Option<f64> {
        match (&self.active, &self.cpu) {
            (Some(a), Some(c)) if a.problem == c.problem => Some(c.secs / a.secs),
            _ => None,
        }
    }
}

/// Whether calls of `steps` time steps are launch-bound: their time per update
/// (`call_update_secs`) is [`LAUNCH_BOUND_RATIO`] or more times the time per update of one large
/// call (`large_update_secs`), so most of a frame's compute time is launching and waiting, not
/// computing. Returns the line the panel shows.
#[must_use]
pub fn launch_bound_hint(call_update_secs: f64, large_update_secs: f64, steps: u32) -> Option<String> {
    if !(call_update_secs.is_finite() && large_update_secs.is_finite() && large_update_secs > 0.0) || steps == 0 {
        return None;
    }
    let ratio = call_update_secs / large_update_secs;
    (ratio >= LAUNCH_BOUND_RATIO).then(|| {
        format!(
            "launch-bound at {steps} steps/frame: {} per update here against {} in one large call ({ratio:.1} x): raise the steps per frame or tick \"fastest\"",
            fmt_secs(call_update_secs),
            fmt_secs(large_update_secs),
        )
    })
}

/// The lines the panel shows under a rate: its time, its throughput and (waves) its bandwidth,
/// effective and DRAM, with the reason when a figure is above the peak.
#[must_use]
pub fn rate_lines(stats: &TimingStats, r: &Rate, active: bool) -> Vec<String> {
    let (unit, per) = match stats.demo {
        Demo::Wave => ("Gcell/s", "per update (2 a step)"),
        Demo::Mandelbrot => ("Giter/s", "per image"),
    };
    let mut lines = vec![format!("{} {per}", fmt_secs(r.secs)), format!("{:.3} {unit}", r.giga_per_s())];
    if stats.demo == Demo::Mandelbrot {
        lines[1].push_str(" executed");
        // The CPU comparison runs the rule exactly; the active backend's rule count is its frame's.
        let rule = if active { stats.rule_iters.unwrap_or(r.work) } else { r.work };
        let same = (rule - r.work).abs() < 0.5;
        lines.push(format!(
            "{:.3} {unit} of the rule's iterations (min(count+1, iters) a pixel){}",
            rule / r.secs / 1e9,
            if same { ": the same, every iteration the rule asks is run" } else { "" }
        ));
        if !same {
            lines.push(format!("executed {:.0} of the rule's {:.0} iterations per image", r.work, rule));
        }
        return lines;
    }
    let bw = stats.bandwidth(r, active);
    lines.push(format!("effective {:.1} GB/s (nominal 12 B/update)", bw.effective_gbps));
    if let Some(n) = bw.effective_note() {
        lines.push(n);
    }
    if let (Some(d), Some(b)) = (bw.dram_gbps, bw.dram_bytes_per_update) {
        let mut line = format!("DRAM {d:.1} GB/s ({b:.2} B/update by the kernel's design)");
        if let (Some(pct), Some(peak)) = (bw.dram_percent_of_peak(), bw.peak_gbps) {
            line.push_str(&format!(", {pct:.0}% of {peak:.0} GB/s peak"));
        }
        lines.push(line);
        if let Some(n) = bw.dram_note() {
            lines.push(n);
        }
    }
    lines
}

fn fmt_secs(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.2} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

/// Draws the panel.
#[allow(clippy::too_many_lines, reason = "read whole; allow, not expect: a later split may shrink it")]
pub fn timing_panel_ui(ui: &mut egui::Ui, stats: &TimingStats) {
    ui.heading("Timing");
    let hidden = stats.frozen;
    let num = |s: String| if hidden { "—".to_owned() } else { s };
    let unit = match stats.demo {
        Demo::Wave => "Gcell/s",
        Demo::Mandelbrot => "Giter/s",
    };
    let rows = [("active", &stats.active), ("CPU copy", &stats.cpu)];
    egui::Grid::new("timing_grid").num_columns(2).striped(true).show(ui, |ui| {
        for (name, rate) in rows {
            ui.strong(name);
            match rate {
                Some(r) => {
                    ui.vertical(|ui| {
                        if hidden {
                            ui.label(r.kind.to_string());
                        } else {
                            ui.label(format!("{} on {}", r.kind, r.device));
                        }
                        for line in rate_lines(stats, r, name == "active") {
                            ui.label(num(line));
                        }
                        ui.weak(r.includes());
                    });
                }
                None => {
                    let why = match (name, stats.cpu_enabled) {
                        ("CPU copy", false) => "off",
                        ("CPU copy", true) => stats.cpu_error.as_deref().unwrap_or("measuring…"),
                        _ => "waiting…",
                    };
                    ui.weak(why);
                }
            }
            ui.end_row();
        }
    });
    let speed = stats.speedup().map_or_else(|| "—".to_owned(), |s| num(format!("{s:.1} x")));
    let over = stats.cpu.as_ref().map_or("CPU".to_owned(), |c| c.kind.to_string());
    ui.label(egui::RichText::new(format!("speedup over {over}: {speed}")).strong().size(16.0));
    if let Some(r) = stats.render_secs
        && stats.demo == Demo::Wave
    {
        if stats.zero_copy {
            ui.weak(num(format!(
                "frame coloured on the GPU into the display texture, no copy: {} to submit",
                fmt_secs(r)
            )));
        } else {
            ui.weak(num(format!("colour + copy of a frame to the host: {}", fmt_secs(r))));
        }
    }
    if let Some(hint) = stats.launch_hint().filter(|_| !hidden) {
        ui.colored_label(ui.visuals().warn_fg_color, hint);
    }
    if stats.demo == Demo::Wave {
        ui.weak(
            "Effective bandwidth counts the seed kernel's 12 B per update (read f and g, write f); DRAM counts \
             what this kernel moves: fewer bytes where it keeps several updates on chip.",
        );
    } else {
        ui.weak(
            "Rates count iterations per pixel: those the kernel executed and the rule's, min(count+1, iters) \
             (the same for the plain kernels; fewer executed where iterations are skipped by approximation). \
             A GPU's lanes also sit idle while a warp waits for its slowest pixel; that is not counted.",
        );
    }
    ui.weak(
        "The CPU runs a copy of the same problem in its own thread, at half duty, so it lags on big problems. \
         It takes turns with the active backend, never computing at the same time, so neither figure includes \
         the other's load.",
    );
    if let Some(f) = stats.ui_fps
        && !hidden
    {
        ui.weak(format!("window: {f:.0} frames/s"));
    }
    if let Some(a) = stats.display_adapter.as_ref().filter(|_| !hidden) {
        ui.weak(format!("display: {a}"));
    }
    let line = |name: &str, k: usize| {
        let pts: Vec<[f64; 2]> = if hidden {
            Vec::new()
        } else {
            stats.history.iter().filter(|h| h[k].is_finite()).map(|h| [h[0], h[k]]).collect()
        };
        egui_plot::Line::new(name.to_owned(), pts)
    };
    egui_plot::Plot::new("timing_plot")
        .legend(egui_plot::Legend::default())
        .height(ui.available_height().clamp(80.0, 220.0))
        .y_axis_label(unit)
        .x_axis_label("s")
        .include_y(0.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .show(ui, |p| {
            p.line(line("active", 1));
            p.line(line("CPU", 2));
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wave_stats(secs_per_update: f64, cells: f64, dram: Option<f64>, peak: Option<f64>) -> TimingStats {
        let mut s = TimingStats::new(false);
        s.clear(Demo::Wave);
        s.peak_gbps = peak;
        s.dram_bytes_per_update = dram;
        s.active = Some(Rate {
            kind: BackendKind::Cuda,
            device: "fake GPU".into(),
            secs: secs_per_update,
            work: cells,
            source: TimingSource::CudaEvents,
            kernel_only: true,
            problem: (1000, 800),
        });
        s
    }

    #[test]
    fn the_issue_h100_frame_shows_effective_above_peak_with_its_reason_and_dram_below() {
        // 1.1 µs per update of 1000 x 800 cells: 8.7 TB/s nominal on a 3352 GB/s device.
        let s = wave_stats(1.1e-6, 8e5, Some(2.78), Some(3352.0));
        let lines = rate_lines(&s, s.active.as_ref().unwrap(), true);
        let text = lines.join("\n");
        assert!(text.contains("effective"), "{text}");
        assert!(text.contains("temporal blocking"), "{text}");
        let pct_lines: Vec<&String> = lines.iter().filter(|l| l.contains("% of")).collect();
        assert_eq!(pct_lines.len(), 1, "{text}");
        assert!(pct_lines[0].starts_with("DRAM"), "{text}");
    }

    #[test]
    fn share_of_peak_never_above_100_percent() {
        for secs in [1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5] {
            for dram in [None, Some(2.78), Some(8.0), Some(12.0)] {
                let s = wave_stats(secs, 8e5, dram, Some(3352.0));
                for line in rate_lines(&s, s.active.as_ref().unwrap(), true) {
                    if let Some(i) = line.find("% of") {
                        let num: String =
                            line[..i].chars().rev().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
                        let pct: f64 = num.chars().rev().collect::<String>().parse().unwrap();
                        assert!(pct <= 100.0, "{secs} {dram:?}: {line}");
                    }
                }
            }
        }
    }

    #[test]
    fn without_a_kernel_design_no_share_of_peak_is_given() {
        let s = wave_stats(1e-5, 8e5, None, Some(3352.0));
        let lines = rate_lines(&s, s.active.as_ref().unwrap(), true);
        assert!(lines.iter().all(|l| !l.contains("% of")), "{lines:?}");
    }

    #[test]
    fn launch_bound_hint_appears_when_calls_are_much_slower_per_update() {
        // The issue: 2.62 µs per update at 5 steps/frame against 1.1 µs in large calls.
        let mut s = wave_stats(2.62e-6, 8e5, None, None);
        s.steps_per_frame = 5;
        assert!(s.launch_hint().is_none(), "no large-call figure yet");
        s.large_call_update_secs = Some(1.1e-6);
        let hint = s.launch_hint().expect("launch-bound");
        assert!(hint.contains("5 steps/frame"), "{hint}");
        // Close to the large-call rate: not launch-bound.
        s.active.as_mut().unwrap().secs = 1.3e-6;
        assert!(s.launch_hint().is_none());
        assert!(launch_bound_hint(2.3e-6, 1.1e-6, 5).is_some());
        assert!(launch_bound_hint(2.1e-6, 1.1e-6, 5).is_none());
        assert!(launch_bound_hint(f64::NAN, 1.1e-6, 5).is_none());
        assert!(launch_bound_hint(5e-6, 1.1e-6, 0).is_none());
        s.demo = Demo::Mandelbrot;
        assert!(s.launch_hint().is_none());
    }
}

#[cfg(test)]
mod mandelbrot_tests {
    use super::*;

    fn frame(total_iters: u64, secs: f64) -> MandelbrotFrame {
        let view = crate::sim::fractal::deep::View { re: "-0.5".into(), im: "0".into(), zoom: "1".into() };
        let request = crate::app::worker::messages::MandelRequest {
            view,
            width: 100,
            height: 50,
            iters: 200,
            arith: None,
            colour: Default::default(),
            julia: None,
        };
        MandelbrotFrame {
            pixels: FrameSource::Rgba { rgba: Vec::new(), width: 100, height: 50 },
            request,
            width: 100,
            height: 50,
            coarse: 1,
            params: Some(crate::sim::fractal::mandelbrot::MandelbrotParams {
                width: 100,
                height: 50,
                iters: 200,
                bounds: crate::sim::fractal::mandelbrot::Bounds::SEED,
                precision: crate::sim::fractal::mandelbrot::Precision::F32,
            }),
            arith: "f32".into(),
            counts: Vec::new(),
            total_iters,
            timing: Timing::wall(std::time::Duration::from_secs_f64(secs)),
        }
    }

    #[test]
    fn mandelbrot_rates_say_executed_and_rule_iterations() {
        let mut s = TimingStats::new(false);
        s.clear(Demo::Mandelbrot);
        // 3e9 iterations in 1.5 s: 2 Giter/s, executed and by the rule.
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &frame(3_000_000_000, 1.5));
        let text = rate_lines(&s, s.active.as_ref().unwrap(), true).join("\n");
        assert!(text.contains("2.000 Giter/s executed"), "{text}");
        assert!(text.contains("2.000 Giter/s of the rule's iterations") && text.contains("the same"), "{text}");
        // A kernel that skips a third of the rule's iterations: the rule's rate is higher.
        s.set_rule_iters(4_500_000_000);
        let text = rate_lines(&s, s.active.as_ref().unwrap(), true).join("\n");
        assert!(text.contains("2.000 Giter/s executed"), "{text}");
        assert!(text.contains("3.000 Giter/s of the rule's iterations"), "{text}");
        assert!(text.contains("executed 3000000000 of the rule's 4500000000"), "{text}");
    }
}
