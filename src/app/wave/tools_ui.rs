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
use crate::app::worker::wave_picture;

/// The theory curve's colour (the overlay's green).
const THEORY_COLOUR: egui::Color32 =
    egui::Color32::from_rgb(wave_picture::THEORY_RGB[0], wave_picture::THEORY_RGB[1], wave_picture::THEORY_RGB[2]);

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
    ui.label(format!("Screen at x = {}{x_text}: mean f² over the last {:.0} steps", m.x, m.averaged_steps))
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

// The graph's width, gap and margin are the saved picture's too (`wave_picture`).
use crate::app::worker::wave_picture::GRAPH_PAD;
pub use crate::app::worker::wave_picture::{SCREEN_GRAPH_GAP, screen_graph_width};

/// The curve of `values` (one per row `y = 0..`, from 0 to `top`) in `rect` beside the picture
/// of `map`: row `y` at the height of the field's row `y` (its centre), the value growing to the
/// right, so that each bright fringe of the field lines up with its peak.
#[must_use]
pub fn screen_graph_points(values: &[f64], top: f64, rect: egui::Rect, map: &CellMap) -> Vec<egui::Pos2> {
    let span = f64::from((rect.width() - 2.0 * GRAPH_PAD).max(1.0));
    let top = if top > 0.0 { top } else { 1.0 };
    values
        .iter()
        .enumerate()
        .map(|(y, &v)| {
            // A value the theory has none for (NaN) keeps its NaN: the caller breaks the line there.
            let x = if v.is_finite() { rect.min.x + GRAPH_PAD + (v.max(0.0) / top * span) as f32 } else { f32::NAN };
            egui::pos2(x, map.point(0.0, y as f64 + 0.5).y)
        })
        .collect()
}

/// The graph's room while the Screen tool is chosen and no screen is placed: where the graph
/// will be, and how to place one.
pub fn screen_graph_hint(ui: &egui::Ui, rect: egui::Rect) {
    let painter = ui.painter_at(rect);
    painter.rect_stroke(rect, 2.0, egui::Stroke::new(1.0, egui::Color32::from_gray(60)), egui::StrokeKind::Inside);
    let text = egui::Color32::from_gray(160);
    let font = egui::FontId::proportional(11.0);
    painter.text(rect.center(), egui::Align2::CENTER_BOTTOM, "click the field:", font.clone(), text);
    painter.text(rect.center(), egui::Align2::CENTER_TOP, "the screen's graph", font, text);
}

/// The screen's intensity beside the picture (PhET's screen chart), in `rect` (as tall as the
/// picture `map`, right of it, within `room`): the measured curve, the theory's dashed and scaled
/// to the measured peak, its orders as ticks on the right edge (the field names them), the column
/// above and the legend below where `room` has space for them, else inside. Shown in presenter
/// mode too, where the side panel's plot is hidden. A measure of another column (the screen just
/// moved) or grid is not drawn: the graph says it is averaging. Returns the measured curve's
/// points as drawn.
pub fn screen_graph_ui(
    ui: &egui::Ui,
    rect: egui::Rect,
    room: egui::Rect,
    map: &CellMap,
    column: usize,
    m: Option<&ScreenMeasure>,
    scene: &Scene,
) -> Vec<egui::Pos2> {
    let painter = ui.painter_at(room);
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(18));
    painter.rect_stroke(rect, 2.0, egui::Stroke::new(1.0, egui::Color32::from_gray(70)), egui::StrokeKind::Inside);
    let small = egui::FontId::proportional(11.0);
    let line = 14.0;
    let text = egui::Color32::from_gray(200);
    let (title_at, title_align) = if rect.min.y - room.min.y >= line {
        (egui::pos2(rect.min.x, rect.min.y - 2.0), egui::Align2::LEFT_BOTTOM)
    } else {
        (rect.min + egui::vec2(GRAPH_PAD, 2.0), egui::Align2::LEFT_TOP)
    };
    painter.text(title_at, title_align, format!("screen x = {column}"), small.clone(), text);
    let fresh = m.filter(|m| m.x == column && m.intensity.len() == map.grid.1 && m.averaged_steps > 0.0);
    let Some(m) = fresh else {
        painter.text(rect.center(), egui::Align2::CENTER_CENTER, "averaging…", small, text);
        return Vec::new();
    };
    let values: Vec<f64> = m.intensity.iter().map(|&v| f64::from(v)).collect();
    let top = values.iter().copied().fold(0.0, f64::max);
    let zero = rect.min.x + GRAPH_PAD;
    painter.line_segment(
        [egui::pos2(zero, rect.min.y), egui::pos2(zero, rect.max.y)],
        egui::Stroke::new(1.0, egui::Color32::from_gray(90)),
    );
    let theory = if scene.nx > column { Theory::of(scene) } else { None };
    if let Some(t) = &theory {
        for (_, y) in screen::theory_marks_on_column(t, column, values.len()) {
            let py = map.point(0.0, y + 0.5).y;
            let tick = [egui::pos2(rect.max.x - 8.0, py), egui::pos2(rect.max.x - 1.0, py)];
            painter.line_segment(tick, egui::Stroke::new(2.0, THEORY_COLOUR));
        }
        if let Some(curve) = screen::theory_on_column(t, column, values.len()) {
            let scaled: Vec<f64> = curve.iter().map(|v| if v.is_finite() { v * top } else { f64::NAN }).collect();
            let pts = screen_graph_points(&scaled, top, rect, map);
            // Dashes along each finite run of the curve.
            for run in pts.split(|p| !p.x.is_finite()).filter(|r| r.len() > 1) {
                painter.extend(egui::Shape::dashed_line(run, egui::Stroke::new(1.5, THEORY_COLOUR), 5.0, 4.0));
            }
        }
    }
    let pts = screen_graph_points(&values, top, rect, map);
    painter.add(egui::Shape::line(pts.clone(), egui::Stroke::new(2.0, SCREEN_COLOUR)));
    let mut legend = vec![("— measured", SCREEN_COLOUR)];
    if theory.is_some() {
        legend.push(("- - theory", THEORY_COLOUR));
    }
    let below = room.max.y - rect.max.y >= line * legend.len() as f32;
    for (k, (what, colour)) in legend.into_iter().enumerate() {
        let k = k as f32;
        let (at, align) = if below {
            (egui::pos2(rect.min.x, rect.max.y + 2.0 + line * k), egui::Align2::LEFT_TOP)
        } else {
            (egui::pos2(rect.min.x + GRAPH_PAD, rect.max.y - 2.0 - line * k), egui::Align2::LEFT_BOTTOM)
        };
        painter.text(at, align, what, small.clone(), colour);
    }
    pts
}
