//! The live timing panel: the active backend against the CPU on the same problem, measured as
//! it runs, with the speedup, throughput, share of the device's peak, what each time includes
//! and where it came from, and a rolling plot of the last 30 s.

use std::collections::VecDeque;
use std::time::Instant;

use crate::backend::{BackendKind, DeviceInfo, Timing, TimingSource};
use crate::sim::wave::BYTES_PER_CELL_UPDATE;

use super::messages::{CompareJob, CompareSample, FrameSource, MandelbrotFrame, WaveFrame};
use super::options::Demo;

/// Seconds of history the plot keeps.
pub const HISTORY_SECS: f64 = 30.0;
/// Weight of a new measurement in the smoothed value.
const SMOOTHING: f64 = 0.2;

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
    /// The UI's own frame rate, smoothed.
    pub ui_fps: Option<f64>,
    /// False when the user switched the CPU comparison off.
    pub cpu_enabled: bool,
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
            ui_fps: None,
            cpu_enabled: true,
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

    /// A wave frame from the active backend.
    pub fn record_wave(&mut self, kind: BackendKind, device: &str, f: &WaveFrame) {
        if f.steps == 0 || self.demo != Demo::Wave {
            return;
        }
        let updates = 2.0 * f64::from(f.steps);
        let secs = f.advance.best().as_secs_f64() / updates;
        let problem = (f.params.nx, f.params.ny);
        Self::record(&mut self.active, kind, device, secs, (f.params.nx * f.params.ny) as f64, &f.advance, problem);
        self.render_secs = Some(f.render.wall.as_secs_f64());
        self.zero_copy = matches!(f.pixels, FrameSource::Native { .. });
        self.push_history();
    }

    /// A Mandelbrot image from the active backend.
    pub fn record_mandelbrot(&mut self, kind: BackendKind, device: &str, f: &MandelbrotFrame) {
        if self.demo != Demo::Mandelbrot {
            return;
        }
        let secs = f.timing.best().as_secs_f64();
        let problem = (f.params.width, f.params.height);
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

    /// The speedup of the active backend over the CPU, where both are measured.
    #[must_use]
    pub fn speedup(&self) -> Option<f64> {
        match (&self.active, &self.cpu) {
            (Some(a), Some(c)) if a.problem == c.problem => Some(c.secs / a.secs),
            _ => None,
        }
    }
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
pub fn timing_panel_ui(ui: &mut egui::Ui, stats: &TimingStats) {
    ui.heading("Timing");
    let hidden = stats.frozen;
    let num = |s: String| if hidden { "—".to_owned() } else { s };
    let (unit, per) = match stats.demo {
        Demo::Wave => ("Gcell/s", "per update (2 a step)"),
        Demo::Mandelbrot => ("Giter/s", "per image"),
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
                        ui.label(num(format!("{} {per}", fmt_secs(r.secs))));
                        let mut line = num(format!("{:.3} {unit}", r.giga_per_s()));
                        if stats.demo == Demo::Wave && !hidden {
                            let gbps = r.giga_per_s() * BYTES_PER_CELL_UPDATE as f64;
                            line.push_str(&format!(", {gbps:.1} GB/s"));
                            if name == "active"
                                && let Some(peak) = stats.peak_gbps
                            {
                                line.push_str(&format!(" ({:.0}% of {peak:.0} GB/s peak)", 100.0 * gbps / peak));
                            }
                        }
                        ui.label(line);
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
    if stats.demo == Demo::Wave {
        ui.weak("12 B moved per cell update (read f and g, write f).");
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
