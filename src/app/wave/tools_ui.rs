//! The wave lab's measuring tools: the medium the readouts are given in (units), the readouts
//! of the scene (wavelength, frequency, speed, slit spacing), the ruler, the angle from the slits
//! to the pointer, the stopwatch, and the screen's intensity plot with the theory's curve and
//! the maxima listed. The math is in `sim::wave::{units, screen, theory}`; the screen's average
//! comes from the worker ([`ScreenMeasure`]).

use egui_plot::{Line, LineStyle, Plot, PlotPoints, VLine};

use crate::sim::wave::scene::Scene;
use crate::sim::wave::screen;
use crate::sim::wave::theory::{Pattern, Theory, wavelength};
use crate::sim::wave::units::{Medium, Scale};

use crate::app::wave::lab::LabState;
use crate::app::wave::view::{CellMap, SCREEN_COLOUR, WaveSettings};
use crate::app::worker::messages::ScreenMeasure;

/// The theory curve's colour (the overlay's green).
const THEORY_COLOUR: egui::Color32 = egui::Color32::from_rgb(120, 255, 160);

/// `12.0 cells = 1.20 cm`, or just the cells without a medium.
#[must_use]
pub fn length_text(cells: f64, scale: Option<&Scale>) -> String {
    match scale {
        Some(s) => format!("{cells:.1} cells = {}", s.length(cells)),
        None => format!("{cells:.1} cells"),
    }
}

impl LabState {
    /// The units picker, the scene's readouts, the ruler, the angle and the stopwatch. `tstep`
    /// is the running time step.
    pub fn measure_ui(&mut self, ui: &mut egui::Ui, s: &mut WaveSettings, tstep: Option<u32>) {
        egui::ComboBox::from_label("units").selected_text(s.medium.name()).show_ui(ui, |ui| {
            for m in Medium::ALL {
                ui.selectable_value(&mut s.medium, m, m.name());
            }
        });
        let scale = Scale::new(s.medium, s.scene.c2);
        let sc = scale.as_ref();
        let freq = s.scene.sources.first().map_or(s.freq, crate::sim::wave::scene::Source::freq);
        let lambda = wavelength(s.scene.c2, freq);
        ui.label(format!("λ = {}", length_text(lambda, sc)));
        let speed = 2.0 * s.scene.c2.sqrt();
        match sc {
            Some(k) => ui.label(format!(
                "f = {freq:.3} rad/step = {} · speed {speed:.2} cells/step = {}",
                k.frequency(freq),
                k.speed(speed)
            )),
            None => ui.label(format!("f = {freq:.3} rad/step · speed {speed:.2} cells/step")),
        };
        let theory = Theory::of(&s.scene);
        if let Some(t) = &theory {
            let what = if t.pattern == Pattern::SingleSlit { "slit width a" } else { "spacing d" };
            ui.label(format!("{what} = {}", length_text(t.d, sc)));
        }
        if let Some((a, b)) = self.ruler {
            let cells = (b.0 - a.0).hypot(b.1 - a.1);
            ui.label(format!("ruler: {} = {:.2} λ", length_text(cells, sc), cells / lambda));
        }
        if let (Some(t), Some((x, y))) = (&theory, self.hover)
            && let Some(sin) = screen::sin_theta_at(t, x, y)
        {
            let deg = sin.asin().to_degrees();
            ui.label(format!(
                "pointer: θ = {deg:+.1}° from the slits' axis (d·sin θ/λ = {:+.2})",
                t.d * sin / t.lambda
            ));
        }
        self.stopwatch_ui(ui, sc, tstep);
    }

    fn stopwatch_ui(&mut self, ui: &mut egui::Ui, scale: Option<&Scale>, tstep: Option<u32>) {
        ui.horizontal(|ui| {
            ui.label("stopwatch");
            let now = tstep.unwrap_or(0);
            let running = matches!(self.stopwatch, Some((_, None)));
            if ui.button(if running { "Stop" } else { "Start" }).clicked() {
                self.stopwatch = match self.stopwatch {
                    Some((start, None)) => Some((start, Some(now))),
                    _ => Some((now, None)),
                };
            }
            if self.stopwatch.is_some() && ui.small_button("clear").clicked() {
                self.stopwatch = None;
            }
            if let Some((start, stop)) = self.stopwatch {
                let steps = stop.unwrap_or(now).saturating_sub(start);
                let time = scale.map_or(String::new(), |k| format!(" = {}", k.time(f64::from(steps))));
                ui.label(format!("{steps} steps{time}"));
            }
        });
    }

    /// Draws the ruler on the field.
    pub fn tools_overlay_ui(&self, ui: &egui::Ui, map: &CellMap) {
        let Some((a, b)) = self.ruler else { return };
        let painter = ui.painter_at(map.rect);
        let (pa, pb) = (map.point(a.0, a.1), map.point(b.0, b.1));
        painter.line_segment([pa, pb], egui::Stroke::new(4.0, egui::Color32::from_rgba_unmultiplied(0, 0, 0, 190)));
        painter.line_segment([pa, pb], egui::Stroke::new(2.0, egui::Color32::WHITE));
        for p in [pa, pb] {
            painter.circle_filled(p, 3.5, egui::Color32::WHITE);
        }
    }
}

/// The screen's intensity against `y` with the theory's curve on the same axes (scaled to the
/// measured peak) and the theory's orders as vertical lines; below, the maxima measured and
/// predicted.
pub fn screen_plot_ui(ui: &mut egui::Ui, m: &ScreenMeasure, scene: &Scene, medium: Medium) {
    let scale = Scale::new(medium, scene.c2);
    let x_text = scale.as_ref().map_or(String::new(), |s| format!(" ({})", s.length(m.x as f64)));
    ui.label(format!("Screen at x = {}{x_text}: mean f² over {:.0} steps", m.x, m.averaged_steps))
        .on_hover_text("the time-averaged intensity along the screen's column; Screen tool: click or drag to move it");
    let values: Vec<f64> = m.intensity.iter().map(|&v| f64::from(v)).collect();
    let top = values.iter().copied().fold(0.0, f64::max);
    let theory = if scene.nx > m.x { Theory::of(scene) } else { None };
    let curve = theory.as_ref().and_then(|t| screen::theory_on_column(t, m.x, values.len()));
    let marks = theory.as_ref().map_or_else(Vec::new, |t| screen::theory_marks_on_column(t, m.x, values.len()));
    Plot::new("screen")
        .height(160.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .x_axis_label("y (cells)")
        .show(ui, |p| {
            let pts: PlotPoints<'_> = values.iter().enumerate().map(|(y, &v)| [y as f64, v]).collect();
            p.line(Line::new("measured", pts).color(SCREEN_COLOUR));
            if let Some(c) = &curve {
                let pts: PlotPoints<'_> =
                    c.iter().enumerate().filter(|(_, v)| v.is_finite()).map(|(y, &v)| [y as f64, v * top]).collect();
                p.line(Line::new("theory", pts).color(THEORY_COLOUR).style(LineStyle::dashed_loose()));
            }
            for &(order, y) in &marks {
                p.vline(VLine::new(format!("m={order}"), y).color(THEORY_COLOUR.gamma_multiply(0.5)));
            }
        });
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(SCREEN_COLOUR, "— measured");
        if curve.is_some() {
            ui.colored_label(THEORY_COLOUR, "- - theory (far field I(θ), scaled to the measured peak)");
        }
    });
    let peaks: Vec<String> = screen::maxima(&values, 0.1).iter().map(|y| format!("{y:.1}")).collect();
    ui.label(format!("maxima at y = {}", if peaks.is_empty() { "—".to_owned() } else { peaks.join(", ") }));
    if let Some(t) = &theory
        && !marks.is_empty()
    {
        let what = if t.pattern == Pattern::SingleSlit { "minima" } else { "maxima" };
        let list: Vec<String> = marks.iter().map(|(order, y)| format!("m={order}: {y:.1}")).collect();
        ui.label(format!("theory's {what} at y = {}", list.join(", ")));
    }
}
