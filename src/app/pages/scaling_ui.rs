//! The Scaling view's UI: what to sweep, Run/Cancel with progress, and the log-log plot (egui_plot)
//! of time per update (waves; and per displayed frame, dashed) or per image (Mandelbrot) against
//! cells for every backend, with the crossover and the cache marks of `wavebrot sweep`'s PNG.
//! The measuring thread is `scaling.rs`.

use std::sync::Arc;

use egui_plot::{GridMark, Legend, Line, LineStyle, Plot, PlotPoints, Points, VLine};

use crate::backend::BackendKind;
use crate::bench::sweep::{self, SweepKernel};

use crate::app::pages::scaling::{SweepProgress, SweepRun};
use crate::app::parts::controls::Probes;

/// The largest sides offered (the sweep stops sooner where a device refuses or is slow).
const MAX_SIDES: [usize; 8] = [128, 256, 512, 1024, 2048, 4096, 8192, 16_384];
/// The smallest side swept.
pub const MIN_SIDE: usize = 64;

/// The Scaling view's settings and its sweep.
pub struct ScalingView {
    pub kernel: SweepKernel,
    /// Backends to sweep (those available are ticked at first).
    pub kinds: Vec<BackendKind>,
    pub max_side: usize,
    pub quick: bool,
    pub run: Option<SweepRun>,
}

impl Default for ScalingView {
    fn default() -> Self {
        Self { kernel: SweepKernel::Wave, kinds: Vec::new(), max_side: 1024, quick: true, run: None }
    }
}

/// The colour of a backend's line.
fn colour(backend: &str) -> egui::Color32 {
    match backend {
        "cuda" => egui::Color32::from_rgb(118, 185, 0),
        "wgpu" => egui::Color32::from_rgb(90, 160, 255),
        "cpu" => egui::Color32::from_rgb(255, 150, 60),
        _ => egui::Color32::from_rgb(200, 110, 200),
    }
}

/// `10^x` written as a time or a count, for the log axes.
fn pow10_label(x: f64, seconds: bool) -> String {
    let v = 10f64.powf(x);
    if seconds {
        crate::bench::report::fmt_time(v)
    } else if v >= 1e6 {
        format!("{:.0}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.0}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

impl ScalingView {
    /// Ticks every available backend (once, when none is ticked yet).
    pub fn pick_defaults(&mut self, probes: &Probes) {
        if self.kinds.is_empty() {
            self.kinds = probes.iter().filter(|(_, p)| p.is_ok()).map(|(k, _)| *k).collect();
        }
    }

    /// Starts a sweep with the settings shown.
    ///
    /// # Errors
    /// The thread could not be started.
    pub fn start(&mut self, wake: Arc<dyn Fn() + Send + Sync>) -> std::io::Result<()> {
        self.run = None;
        let sides = sweep::sides(MIN_SIDE, self.max_side);
        self.run = Some(SweepRun::start(self.kernel, self.kinds.clone(), sides, self.quick, wake)?);
        Ok(())
    }

    /// The progress of the current (or last) sweep.
    #[must_use]
    pub fn progress(&self) -> Option<SweepProgress> {
        self.run.as_ref().map(SweepRun::progress)
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, probes: &Probes, wake: &Arc<dyn Fn() + Send + Sync>) {
        let progress = self.progress();
        let busy = progress.as_ref().is_some_and(|p| !p.finished);
        ui.horizontal_wrapped(|ui| {
            ui.heading("Scaling");
            ui.label("time against grid size on every backend: where a GPU starts to pay, and where the data leaves the cache");
        });
        ui.add_enabled_ui(!busy, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.selectable_value(&mut self.kernel, SweepKernel::Wave, "wave");
                ui.selectable_value(&mut self.kernel, SweepKernel::Mandelbrot, "mandelbrot");
                ui.separator();
                for (k, p) in probes {
                    let mut on = self.kinds.contains(k);
                    let r = ui.add_enabled(p.is_ok(), egui::Checkbox::new(&mut on, k.name()));
                    if let Err(why) = p {
                        r.on_disabled_hover_text(format!("unavailable: {why}"));
                    } else if r.changed() {
                        if on {
                            self.kinds.push(*k);
                        } else {
                            self.kinds.retain(|x| x != k);
                        }
                    }
                }
                ui.separator();
                egui::ComboBox::from_label("largest side").selected_text(format!("{0}×{0}", self.max_side)).show_ui(
                    ui,
                    |ui| {
                        for n in MAX_SIDES {
                            ui.selectable_value(&mut self.max_side, n, format!("{n}×{n}"));
                        }
                    },
                );
                ui.checkbox(&mut self.quick, "quick (fewer repeats)");
            });
        });
        ui.horizontal(|ui| {
            if busy {
                if ui.button("Cancel").clicked()
                    && let Some(r) = &self.run
                {
                    r.cancel();
                }
            } else if ui.add_enabled(!self.kinds.is_empty(), egui::Button::new("Run sweep")).clicked()
                && let Err(e) = self.start(Arc::clone(wake))
            {
                ui.colored_label(ui.visuals().error_fg_color, format!("cannot start the sweep: {e}"));
            }
            if let Some(p) = &progress {
                let frac = if p.total == 0 { 1.0 } else { p.done as f32 / p.total as f32 };
                let text = match &p.current {
                    Some(c) => format!("{}/{} points, measuring {c}", p.done, p.total),
                    None if p.finished => format!("done: {} points measured", p.records.len()),
                    None => format!("{}/{} points", p.done, p.total),
                };
                ui.add(egui::ProgressBar::new(frac).text(text).desired_width(360.0));
            }
        });
        let Some(p) = progress else {
            ui.label("Run the sweep to measure: each point is checked against the CPU up to 1024×1024.");
            return;
        };
        if let Some(m) = &p.marks {
            for l in m.lines() {
                ui.strong(l);
            }
        }
        for f in &p.failures {
            ui.colored_label(ui.visuals().error_fg_color, f);
        }
        let kernel = self.run.as_ref().map_or(self.kernel, |r| r.kernel);
        egui::CollapsingHeader::new("table").default_open(false).show(ui, |ui| {
            for l in &p.lines {
                ui.monospace(l);
            }
        });
        plot_ui(ui, &p, kernel);
        if busy {
            ui.ctx().request_repaint_after(std::time::Duration::from_millis(200));
        }
    }
}

/// The log-log plot of the records so far.
fn plot_ui(ui: &mut egui::Ui, p: &SweepProgress, kernel: SweepKernel) {
    let mut backends: Vec<&str> = p.records.iter().map(|r| r.backend.as_str()).collect();
    backends.dedup();
    let what = match kernel {
        SweepKernel::Wave => "time per update",
        SweepKernel::Mandelbrot => "time per image",
    };
    Plot::new("scaling_plot")
        .legend(Legend::default())
        .x_axis_label("cells (log)")
        .y_axis_label(format!("{what} (log)"))
        .x_grid_spacer(egui_plot::log_grid_spacer(10))
        .y_grid_spacer(egui_plot::log_grid_spacer(10))
        .x_axis_formatter(|m: GridMark, _| pow10_label(m.value, false))
        .y_axis_formatter(|m: GridMark, _| pow10_label(m.value, true))
        .show(ui, |plot| {
            for b in &backends {
                let of_b = || p.records.iter().filter(move |r| r.backend == *b);
                let pts: Vec<[f64; 2]> = of_b()
                    .filter_map(|r| Some([((r.nx? * r.ny?) as f64).log10(), sweep::plotted_secs(r)?.log10()]))
                    .collect();
                let c = colour(b);
                plot.line(Line::new(b.to_string(), PlotPoints::from(pts.clone())).color(c).width(2.0));
                plot.points(Points::new(b.to_string(), PlotPoints::from(pts)).color(c).radius(3.0));
                if kernel == SweepKernel::Wave {
                    let frame: Vec<[f64; 2]> = of_b()
                        .filter_map(|r| Some([((r.nx? * r.ny?) as f64).log10(), (r.per_frame_ms? * 1e-3).log10()]))
                        .collect();
                    plot.line(
                        Line::new(format!("{b} per frame (1 step + colour + copy)"), PlotPoints::from(frame))
                            .color(c)
                            .style(LineStyle::dashed_loose()),
                    );
                }
            }
            if let Some(m) = &p.marks {
                if let Some(n) = m.crossover {
                    let cells = (n * n) as f64;
                    plot.vline(
                        VLine::new(format!("GPU beats CPU from {n}×{n}"), cells.log10())
                            .color(egui::Color32::from_rgb(90, 210, 90))
                            .width(2.0),
                    );
                }
                for (label, side) in &m.caches {
                    plot.vline(
                        VLine::new(label.clone(), (side * side).log10())
                            .color(egui::Color32::GRAY)
                            .style(LineStyle::dotted_dense()),
                    );
                }
            }
        });
}
