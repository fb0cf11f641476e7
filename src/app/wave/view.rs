//! The wave view: its settings ([`WaveSettings`], [`WaveLook`]), the run controls, and the field
//! drawn with the right aspect under the scene's outline (walls, media, sources, probes, the
//! theory overlay), reporting where the pointer is in cells ([`FieldPointer`]).
//!
//! The wave lab's editing tools that act on the pointer live in `wave_lab.rs`; the energy and
//! probe plots in [`crate::app::wave::meters`].

use serde::{Deserialize, Serialize};

use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::{self, Medium, Scene, Source};
use crate::sim::wave::sources::Moving;
use crate::sim::wave::theory::Theory;
use crate::sim::wave::units;

use crate::app::widgets::stepped_slider;
pub use crate::app::worker::look::{
    FASTEST_BUDGET, INTENSITY_DECADES, MAX_PROBES, PROBE_COLOURS, SCREEN_COLOUR, WaveLook,
};

/// Grid sides the slider offers.
pub const GRID_SIDES: std::ops::RangeInclusive<usize> = 64..=8192;

/// What the user set for the wave simulation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WaveSettings {
    /// The grid the sliders show (the scene's, once applied).
    pub nx: usize,
    pub ny: usize,
    /// The frequency slider: every source's frequency when moved.
    pub freq: f64,
    pub steps_per_frame: u32,
    /// Steps per frame chosen to fill a frame's compute budget ("fastest").
    pub fastest: bool,
    pub vmin: f32,
    pub vmax: f32,
    pub playing: bool,
    /// The scene the user edits; what the simulation runs.
    pub scene: Scene,
    /// The preset the scene came from (empty after opening a file).
    pub preset: String,
    pub look: WaveLook,
    /// Draw the directions theory predicts over the picture, where the scene has them.
    pub theory: bool,
    /// Check the active backend against the CPU every 10 s while running.
    pub check_often: bool,
    /// The grid sliders keep the grid's shape: moving one moves the other.
    pub keep_aspect: bool,
    /// The medium the readouts are also given in (centimetres and hertz beside cells and steps).
    pub medium: units::Medium,
}

impl Default for WaveSettings {
    fn default() -> Self {
        let scene = scene::preset(scene::DEFAULT_PRESET).unwrap_or_else(|_| Scene::seed(640, 480, 0.2));
        Self::for_scene(scene, scene::DEFAULT_PRESET)
    }
}

impl WaveSettings {
    /// The settings of a freshly picked scene: its grid and frequency on the sliders, auto
    /// contrast on with absorbing edges (their amplitude falls with distance and never builds
    /// up), the energy measured, and, where theory predicts the pattern (slits, a grating, two
    /// sources), the intensity view with the theory overlay.
    #[must_use]
    pub fn for_scene(scene: Scene, preset: &str) -> Self {
        let absorbing = scene.boundary != scene::Boundary::Reflecting;
        let freq = scene.sources.first().map_or(crate::sim::wave::DEFAULT_FREQ, Source::freq);
        let theory = Theory::of(&scene).is_some();
        Self {
            nx: scene.nx,
            ny: scene.ny,
            freq,
            steps_per_frame: 5,
            fastest: false,
            vmin: -0.1,
            vmax: 0.1,
            playing: true,
            look: WaveLook { auto_contrast: absorbing, energy: true, intensity: theory, ..WaveLook::default() },
            theory,
            check_often: false,
            keep_aspect: false,
            medium: units::Medium::default(),
            preset: preset.to_owned(),
            scene,
        }
    }

    /// The share link of the scene: the preset by name while it is the preset unchanged, else
    /// the whole scene.
    #[must_use]
    pub fn link(&self) -> crate::link::Link {
        let unchanged =
            !self.preset.is_empty() && crate::sim::wave::scene::preset(&self.preset).is_ok_and(|p| p == self.scene);
        if unchanged {
            crate::link::Link::Preset(self.preset.clone())
        } else {
            crate::link::Link::Scene(Box::new(self.scene.clone()))
        }
    }

    /// Takes a new scene in (a preset or a file), keeping the run settings and the view.
    pub fn load_scene(&mut self, scene: Scene, preset: &str) {
        let fresh = Self::for_scene(scene, preset);
        let look = WaveLook { average_periods: self.look.average_periods, ..fresh.look };
        *self = Self {
            steps_per_frame: self.steps_per_frame,
            fastest: self.fastest,
            playing: self.playing,
            check_often: self.check_often,
            keep_aspect: self.keep_aspect,
            medium: self.medium,
            look,
            ..fresh
        };
    }
}

/// The frequency slider's range, linear: wavelengths from 10 cells (0.6) to 630 (0.02), where a
/// drag of 25 points moves the frequency by about 0.1 (seen on the old logarithmic 0.005..1:
/// 0.200 -> 0.52, the diffraction orders' labels piling up). A scene's own frequency outside it
/// is kept as it is.
pub const FREQ_RANGE: std::ops::RangeInclusive<f64> = 0.02..=0.6;

/// What the user did in the run controls this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WaveActions {
    pub resize: bool,
    pub freq: bool,
    pub steps: bool,
    pub contrast: bool,
    pub play_toggled: bool,
    pub step: bool,
    pub reset: bool,
}

/// The run controls: play, step, reset, grid, frequency, steps per frame and contrast.
/// `running` is the problem in place now (it differs from the settings while a new grid is
/// allocated or after a refusal); `memory` is the backend's, if known.
pub fn wave_controls_ui(
    ui: &mut egui::Ui,
    s: &mut WaveSettings,
    running: Option<(&WaveParams, u32)>,
    last_steps: Option<u32>,
    memory_bytes: Option<u64>,
) -> WaveActions {
    let mut a = WaveActions::default();
    ui.horizontal(|ui| {
        let label = if s.playing { "Pause" } else { "Play" };
        if ui.button(label).on_hover_text("Space").clicked() {
            s.playing = !s.playing;
            a.play_toggled = true;
        }
        if ui.add_enabled(!s.playing, egui::Button::new("Step")).on_hover_text("S: one frame of steps").clicked() {
            a.step = true;
        }
        if ui.button("Reset").on_hover_text("R: zero the field").clicked() {
            a.reset = true;
        }
    });
    if let Some((p, tstep)) = running {
        ui.label(format!("time step {tstep} on {} x {} cells", p.nx, p.ny));
    }
    ui.label("Grid (cells)");
    // Wider than egui's 100 px, so a drag moves the logarithmic scale gently; the number beside
    // each slider takes a typed value.
    ui.spacing_mut().slider_width = 150.0;
    let (nx0, ny0) = (s.nx, s.ny);
    let typed = "drag (steps of two significant digits), or type any number in the field";
    let moved_x = stepped_slider(ui, &mut s.nx, GRID_SIDES, "nx").on_hover_text(typed).changed();
    let moved_y = stepped_slider(ui, &mut s.ny, GRID_SIDES, "ny").on_hover_text(typed).changed();
    if s.keep_aspect {
        let follow = |v: usize, from: usize, to: usize| {
            ((v as f64 * to as f64 / from.max(1) as f64).round() as usize).clamp(*GRID_SIDES.start(), *GRID_SIDES.end())
        };
        if moved_x {
            s.ny = follow(s.nx, nx0, ny0);
        } else if moved_y {
            s.nx = follow(s.ny, ny0, nx0);
        }
    }
    a.resize |= moved_x || moved_y;
    // One row for both, so the panel keeps its height.
    ui.horizontal(|ui| {
        ui.checkbox(&mut s.keep_aspect, "keep aspect").on_hover_text("moving nx or ny moves the other with it");
        let needed = 8 * s.nx as u64 * s.ny as u64;
        let mem = memory_bytes.map_or(String::new(), |m| format!(" of {}", bytes(m)));
        ui.weak(format!("needs {}{mem}", bytes(needed)));
    });
    a.freq |= ui
        .add(egui::Slider::new(&mut s.freq, FREQ_RANGE).clamping(egui::SliderClamping::Edits).text("frequency"))
        .on_hover_text("how fast every source swings: higher is a shorter wavelength (in radians per time step)")
        .changed();
    ui.add_enabled_ui(!s.fastest, |ui| {
        a.steps |= stepped_slider(ui, &mut s.steps_per_frame, 1..=1000, "steps / frame")
            .on_hover_text("time steps (two updates each) advanced for every displayed frame; drag in steps of two significant digits or type any number")
            .changed();
    });
    // Both boxes on one row, so the panel keeps its height.
    ui.horizontal(|ui| {
        a.steps |= ui
            .checkbox(&mut s.fastest, "fastest")
            .on_hover_text(format!(
                "as many steps per frame as fill {} ms of compute: the backend's full speed, not its launch overhead",
                FASTEST_BUDGET.as_millis()
            ))
            .changed();
        a.contrast |= ui
            .checkbox(&mut s.look.auto_contrast, "auto contrast")
            .on_hover_text("the colour scale follows the field's amplitude (99.5th percentile of |f|)")
            .changed();
    });
    if s.fastest
        && let Some(n) = last_steps
    {
        ui.weak(format!("{n} steps in the last frame"));
    }
    ui.add_enabled_ui(!s.look.auto_contrast, |ui| {
        a.contrast |= ui.add(egui::Slider::new(&mut s.vmin, -1.0..=-0.001).logarithmic(true).text("vmin")).changed();
        a.contrast |= ui.add(egui::Slider::new(&mut s.vmax, 0.001..=1.0).logarithmic(true).text("vmax")).changed();
    });
    a
}

/// `12.3 MiB`-style size.
#[must_use]
pub fn bytes(b: u64) -> String {
    let b = b as f64;
    if b >= f64::from(1u32 << 30) {
        format!("{:.2} GiB", b / f64::from(1u32 << 30))
    } else {
        format!("{:.1} MiB", b / f64::from(1u32 << 20))
    }
}

/// The rectangle of `size` (width, height) fitted into `avail`, centred, keeping its aspect.
#[must_use]
pub fn fit_rect(avail: egui::Rect, size: (usize, usize)) -> egui::Rect {
    let (w, h) = (size.0.max(1) as f32, size.1.max(1) as f32);
    let k = (avail.width() / w).min(avail.height() / h);
    egui::Rect::from_center_size(avail.center(), egui::vec2(w * k, h * k))
}

/// Where the pointer is and what it did on the field this frame, in cell coordinates
/// (`x` to the right, `y` upwards, as the picture shows the seed's array; cell `(i, j)` covers
/// `i..i+1`, `j..j+1`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FieldPointer {
    pub hover: Option<(f64, f64)>,
    /// A primary click (press and release without a drag).
    pub clicked: Option<(f64, f64)>,
    /// A secondary (right) click.
    pub secondary: Option<(f64, f64)>,
    /// A primary drag began here this frame.
    pub drag_started: Option<(f64, f64)>,
    /// The pointer while a primary drag goes on (including its first frame).
    pub dragging: Option<(f64, f64)>,
    /// A primary drag ended this frame, here.
    pub drag_stopped: Option<(f64, f64)>,
    /// Cells per screen point (for pick radii in cells).
    pub cells_per_point: f64,
    /// The time step the field shows: a pulse added now starts on the next one.
    pub step: u32,
}

impl FieldPointer {
    /// The integer cell under a position, clamped to the grid.
    #[must_use]
    pub fn cell(p: (f64, f64), grid: (usize, usize)) -> (i64, i64) {
        let clamp = |v: f64, n: usize| (v.floor() as i64).clamp(0, n.saturating_sub(1) as i64);
        (clamp(p.0, grid.0), clamp(p.1, grid.1))
    }
}

/// Maps cells to screen points for one drawn picture.
#[derive(Clone, Copy, Debug)]
pub struct CellMap {
    pub rect: egui::Rect,
    pub grid: (usize, usize),
}

impl CellMap {
    /// The screen point of cell coordinates `(x, y)` (a cell's centre is `(i + 0.5, j + 0.5)`).
    #[must_use]
    pub fn point(&self, x: f64, y: f64) -> egui::Pos2 {
        let (w, h) = (f64::from(self.rect.width()), f64::from(self.rect.height()));
        egui::pos2(
            self.rect.min.x + (x / self.grid.0 as f64 * w) as f32,
            self.rect.max.y - (y / self.grid.1 as f64 * h) as f32,
        )
    }

    /// Cell coordinates of a screen point.
    #[must_use]
    pub fn cell(&self, p: egui::Pos2) -> (f64, f64) {
        let fx = f64::from((p.x - self.rect.min.x) / self.rect.width());
        let fy = f64::from((self.rect.max.y - p.y) / self.rect.height());
        (fx * self.grid.0 as f64, fy * self.grid.1 as f64)
    }

    /// The screen rectangle of cells `x0..=x1`, `y0..=y1`.
    #[must_use]
    pub fn cells_rect(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> egui::Rect {
        egui::Rect::from_two_pos(self.point(x0 as f64, y0 as f64), self.point((x1 + 1) as f64, (y1 + 1) as f64))
    }
}

/// What to draw over the field.
pub struct Overlay<'a> {
    /// The scene running (its outline is drawn over the picture).
    pub scene: Option<&'a Scene>,
    pub probes: &'a [(usize, usize)],
    pub selected_source: Option<usize>,
    pub theory: Option<&'a Theory>,
    /// The screen's column.
    pub screen: Option<usize>,
    /// The probe heard through the speakers ("listen to a probe"), marked with rings.
    pub heard: Option<usize>,
}

/// Draws the field (or a placeholder) fitted into the space left, with the overlay; returns
/// what the pointer did and where the picture lies.
pub fn wave_image_ui(
    ui: &mut egui::Ui,
    texture: Option<egui::TextureId>,
    grid: (usize, usize),
    overlay: &Overlay<'_>,
) -> (FieldPointer, CellMap) {
    let avail = ui.available_rect_before_wrap();
    let rect = fit_rect(avail, grid);
    let map = CellMap { rect, grid };
    let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
    match texture {
        Some(t) => {
            let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            ui.painter().image(t, rect, uv, egui::Color32::WHITE);
        }
        None => {
            ui.painter().rect_filled(rect, 0.0, egui::Color32::BLACK);
        }
    }
    draw_overlay(ui, &map, overlay);
    let at = |p: Option<egui::Pos2>| p.map(|p| map.cell(p));
    let pointer = response.interact_pointer_pos();
    let hover = response.hover_pos().or(if response.dragged() { pointer } else { None });
    let fp = FieldPointer {
        hover: at(hover),
        clicked: at(pointer.filter(|_| response.clicked())),
        secondary: at(pointer.filter(|_| response.secondary_clicked())),
        // Where the button went down, not where the pointer had moved to when egui saw a drag.
        drag_started: at(ui
            .input(|i| i.pointer.press_origin())
            .or(pointer)
            .filter(|_| response.drag_started_by(egui::PointerButton::Primary))),
        dragging: at(pointer.filter(|_| response.dragged_by(egui::PointerButton::Primary))),
        drag_stopped: at(pointer.or(hover).filter(|_| response.drag_stopped_by(egui::PointerButton::Primary))),
        cells_per_point: grid.0 as f64 / f64::from(rect.width().max(1.0)),
        step: 0,
    };
    (fp, map)
}

/// Walls, media, sources, probes and the theory's directions over the picture.
fn draw_overlay(ui: &egui::Ui, map: &CellMap, o: &Overlay<'_>) {
    let painter = ui.painter_at(map.rect);
    if let Some(scene) = o.scene {
        let medium = egui::Stroke::new(1.5, egui::Color32::from_rgb(90, 200, 255));
        for m in &scene.media {
            match *m {
                Medium::Rect { x0, y0, x1, y1, .. } => {
                    painter.rect_stroke(map.cells_rect(x0, y0, x1, y1), 0.0, medium, egui::StrokeKind::Inside);
                }
                Medium::Circle { x, y, r, .. } => {
                    let c = map.point(x as f64 + 0.5, y as f64 + 0.5);
                    let rad = (r / map.grid.0 as f64 * f64::from(map.rect.width())) as f32;
                    painter.circle_stroke(c, rad, medium);
                }
            }
        }
        let wall = egui::Color32::from_rgb(70, 110, 160);
        for w in &scene.walls {
            painter.rect_filled(map.cells_rect(w.x0, w.y0, w.x1, w.y1), 0.0, wall);
        }
        for (k, s) in scene.sources.iter().enumerate() {
            let selected = o.selected_source == Some(k);
            let colour = if selected { egui::Color32::from_rgb(80, 255, 80) } else { egui::Color32::WHITE };
            let stroke = egui::Stroke::new(if selected { 2.5 } else { 1.5 }, colour);
            match *s {
                Source::Point { x, y, .. } | Source::Pulse { x, y, .. } => {
                    painter.circle_stroke(map.point(x as f64 + 0.5, y as f64 + 0.5), 6.0, stroke);
                }
                Source::Line { x0, y0, x1, y1, .. } | Source::Moving(Moving { x0, y0, x1, y1, .. }) => {
                    let a = map.point(x0 as f64 + 0.5, y0 as f64 + 0.5);
                    let b = map.point(x1 as f64 + 0.5, y1 as f64 + 0.5);
                    painter.line_segment([a, b], stroke);
                    painter.circle_stroke(a, 5.0, stroke);
                }
                Source::Array(_) | Source::Multipole(_) => {
                    for (x, y) in s.cells() {
                        painter.circle_stroke(map.point(x as f64 + 0.5, y as f64 + 0.5), 4.0, stroke);
                    }
                }
            }
        }
    }
    for (k, &(x, y)) in o.probes.iter().enumerate() {
        let c = map.point(x as f64 + 0.5, y as f64 + 0.5);
        let stroke = egui::Stroke::new(2.0, PROBE_COLOURS[k % MAX_PROBES]);
        painter.line_segment([c - egui::vec2(6.0, 0.0), c + egui::vec2(6.0, 0.0)], stroke);
        painter.line_segment([c - egui::vec2(0.0, 6.0), c + egui::vec2(0.0, 6.0)], stroke);
        if o.heard == Some(k) {
            draw_heard(&painter, c, PROBE_COLOURS[k % MAX_PROBES], k);
        }
    }
    if let Some(t) = o.theory {
        draw_theory(&painter, map, t);
    }
    if let Some(x) = o.screen {
        let (a, b) = (map.point(x as f64 + 0.5, 0.0), map.point(x as f64 + 0.5, map.grid.1 as f64));
        painter.line_segment([a, b], egui::Stroke::new(4.0, egui::Color32::from_rgba_unmultiplied(0, 0, 0, 190)));
        painter.line_segment([a, b], egui::Stroke::new(2.0, SCREEN_COLOUR));
    }
}

/// The mark of the probe heard: three rings about it and "listening" on a dark plate, so a
/// class sees which point of the field the speakers play.
fn draw_heard(painter: &egui::Painter, c: egui::Pos2, colour: egui::Color32, k: usize) {
    for (r, a) in [(11.0, 230), (16.0, 160), (21.0, 90)] {
        let ring = egui::Color32::from_rgba_unmultiplied(colour.r(), colour.g(), colour.b(), a);
        painter.circle_stroke(c, r, egui::Stroke::new(2.0, ring));
    }
    let text = format!("listening to probe {}", k + 1);
    let galley = painter.layout_no_wrap(text, egui::FontId::proportional(13.0), colour);
    let at = c + egui::vec2(26.0, -galley.size().y / 2.0);
    let plate = egui::Rect::from_min_size(at, galley.size()).expand(3.0);
    painter.rect_filled(plate, 3.0, egui::Color32::from_rgba_unmultiplied(0, 0, 0, 190));
    painter.galley(at, galley, colour);
}

/// The directions `θ_m` as dashed rays from the theory's origin to the picture's edge: green
/// dashes over a dark casing and labels on a dark plate, so they read on a bright intensity
/// view as well as on a dark field.
fn draw_theory(painter: &egui::Painter, map: &CellMap, t: &Theory) {
    let colour = egui::Color32::from_rgb(120, 255, 160);
    let casing = egui::Color32::from_rgba_unmultiplied(0, 0, 0, 190);
    let stroke = egui::Stroke::new(1.5, colour);
    let under = egui::Stroke::new(4.0, casing);
    let reach = (map.grid.0 + map.grid.1) as f64;
    let from = map.point(t.origin.0, t.origin.1);
    let font = egui::FontId::proportional(12.0);
    for &axis in &t.axes {
        for (m, theta) in t.angles() {
            let (dx, dy) = t.direction(axis, theta);
            let to = map.point(t.origin.0 + dx * reach, t.origin.1 + dy * reach);
            painter.extend(egui::Shape::dashed_line(&[from, to], under, 6.0, 5.0));
            painter.extend(egui::Shape::dashed_line(&[from, to], stroke, 6.0, 5.0));
            // The order's label a little way out along its ray.
            let at = map.point(t.origin.0 + dx * reach * 0.12, t.origin.1 + dy * reach * 0.12);
            let galley = painter.layout_no_wrap(format!("m={m}"), font.clone(), colour);
            let rect = egui::Align2::CENTER_CENTER.anchor_size(at, galley.size()).expand(2.0);
            painter.rect_filled(rect, 3.0, casing);
            painter.galley(rect.min + egui::vec2(2.0, 2.0), galley, colour);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_keeps_aspect_and_centres() {
        let avail = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(400.0, 400.0));
        let r = fit_rect(avail, (1000, 500));
        assert!((r.width() - 400.0).abs() < 1e-3 && (r.height() - 200.0).abs() < 1e-3);
        assert!((r.center().y - 200.0).abs() < 1e-3);
    }

    #[test]
    fn cell_map_round_trips_and_puts_y_upwards() {
        let rect = egui::Rect::from_min_size(egui::pos2(10.0, 20.0), egui::vec2(200.0, 100.0));
        let map = CellMap { rect, grid: (400, 200) };
        let p = map.point(100.0, 50.0);
        assert_eq!(p, egui::pos2(60.0, 95.0));
        let (x, y) = map.cell(p);
        assert!((x - 100.0).abs() < 1e-4 && (y - 50.0).abs() < 1e-4);
        assert_eq!(FieldPointer::cell((399.9, -3.0), (400, 200)), (399, 0));
    }
}
