//! The Mandelbrot view: where the camera is ([`MandelView`], a deep-zoom [`View`] kept in
//! arbitrary precision), its controls and readouts, and the picture with wheel zoom about the
//! cursor, drag to pan and a zoom-to-box drag (right button, or Ctrl with the left). The moves
//! themselves are [`crate::sim::fractal::nav`]; bookmarks are [`crate::app::mandel::bookmarks_ui`], pictures
//! [`crate::app::mandel::export`].

use serde::{Deserialize, Serialize};

use crate::sim::colour::palette::ColourSettings;
use crate::sim::fractal::auto_iters::{Learned, by_depth, fewer_iterations, more_iterations};
use crate::sim::fractal::deep::{Arith, View, format_zoom};

use crate::app::worker::messages::{FrameSource, MandelRequest, MandelbrotFrame};
use crate::sim::fractal::nav;

/// Largest image side rendered for the view (the picture is drawn at the panel's pixel size).
pub const MAX_IMAGE_SIDE: usize = 4096;

/// Which arithmetic to compute in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PrecisionMode {
    /// `f32` while it resolves the pixels, then `f64`, then perturbation.
    Auto,
    F32,
    F64,
    Perturbation,
}

impl PrecisionMode {
    /// The arithmetic asked of the worker (`None`: its own choice).
    #[must_use]
    pub fn arith(self) -> Option<Arith> {
        match self {
            Self::Auto => None,
            Self::F32 => Some(Arith::F32),
            Self::F64 => Some(Arith::F64),
            Self::Perturbation => Some(Arith::Perturbation),
        }
    }
}

/// The camera and settings of the Mandelbrot view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MandelView {
    /// Where the camera is; `None`: the whole set, fitted to the panel's shape (the start and R).
    pub view: Option<View>,
    /// Iterations chosen by depth ([`nav::auto_iters`]) and raised where a picture's counts are
    /// cut off by the limit ([`Self::learned`]); off: [`Self::iters`].
    pub auto_iters: bool,
    /// Counts the new locations gone to ([`Self::forget_learned`]): what belongs to one place
    /// (a bookmark's name) is dropped when it changes.
    pub place: u64,
    /// What the automatic iterations learned from the pictures of this dive (not saved).
    #[serde(skip)]
    pub learned: Option<Learned>,
    /// Maximum iterations per pixel when not automatic.
    pub iters: u32,
    pub precision: PrecisionMode,
    /// Palette, smooth colouring, scale, offset and cycles.
    pub colour: ColourSettings,
    /// Julia mode: the Julia set of a point, with its own camera (`None`: the Mandelbrot set).
    pub julia: Option<JuliaMode>,
    /// Continuous zoom (held buttons, I and O): factor per second.
    pub zoom_rate: f64,
}

/// The Julia picture shown instead of the Mandelbrot set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JuliaMode {
    /// The set's `c`.
    pub c: [f64; 2],
    /// Its camera (`None`: `[-1.8, 1.8] x [-1.2, 1.2]` fitted to the panel).
    pub view: Option<View>,
}

impl Default for MandelView {
    fn default() -> Self {
        Self {
            view: None,
            auto_iters: true,
            place: 0,
            learned: None,
            iters: 500,
            precision: PrecisionMode::Auto,
            colour: ColourSettings::DEFAULT,
            julia: None,
            zoom_rate: 4.0,
        }
    }
}

impl MandelView {
    /// The view shown in a picture of `aspect` = width/height (the Julia camera in Julia mode).
    #[must_use]
    pub fn current(&self, aspect: f64) -> View {
        match &self.julia {
            Some(j) => j.view.clone().unwrap_or_else(|| nav::fit_julia(aspect)),
            None => self.mandel_view(aspect),
        }
    }

    /// The Mandelbrot camera's view (also in Julia mode).
    #[must_use]
    pub fn mandel_view(&self, aspect: f64) -> View {
        self.view.clone().unwrap_or_else(|| nav::fit_whole_set(aspect))
    }

    /// Flips to the Julia set of the point at `at` (fractions of the picture) and back.
    pub fn toggle_julia(&mut self, at: [f64; 2], aspect: f64) {
        if self.julia.take().is_some() {
            return;
        }
        let v = self.mandel_view(aspect);
        if let Ok((re, im)) = nav::point_at(&v, at, aspect) {
            let f = |s: &str| {
                crate::sim::fractal::deep::parse_decimal(s, "c", 64).map(|b| crate::sim::fractal::deep::to_f64(&b))
            };
            if let (Ok(re), Ok(im)) = (f(&re), f(&im)) {
                self.julia = Some(JuliaMode { c: [re, im], view: None });
            }
        }
    }

    /// The iterations of `view`: by depth and what the dive's pictures taught, or the user's.
    #[must_use]
    pub fn iters_for(&self, view: &View) -> u32 {
        if self.auto_iters { Learned::iters(self.learned.as_ref(), view.zoom_log10()) } else { self.iters.max(1) }
    }

    /// Reads a full picture's counts (computed at `iters` for `view`) when the iterations are
    /// automatic: where its escaping pixels are all past half the limit, or none escaped, raises
    /// the iterations so the picture shows its structure; where they all escaped under a quarter
    /// of it, lowers them to what gives the same picture (the depth rule at least). Returns the
    /// new count.
    pub fn learn_iters(&mut self, view: &View, iters: u32, counts: &[i32]) -> Option<u32> {
        if !self.auto_iters || self.julia.is_some() || iters != self.iters_for(view) {
            return None;
        }
        let z = view.zoom_log10();
        let next = more_iterations(counts, iters, Learned::cap(z), Learned::no_escape_cap(z))
            .or_else(|| fewer_iterations(counts, iters, by_depth(z)))?;
        self.learned = Some(Learned::at(z, next));
        let now = self.iters_for(view);
        (now != iters).then_some(now)
    }

    /// A new location (Go, a bookmark, a Famous place, a typed centre, back to the whole set):
    /// what earlier pictures taught about the iterations is forgotten, and the labels of the last
    /// place (its bookmark name) go with it ([`Self::place`] counts the places).
    pub fn forget_learned(&mut self) {
        self.learned = None;
        self.place = self.place.wrapping_add(1);
    }

    /// The picture of `width x height` pixels to compute.
    #[must_use]
    pub fn request(&self, width: usize, height: usize) -> MandelRequest {
        let (w, h) = (width.max(1), height.max(1));
        let view = self.current(w as f64 / h as f64);
        let iters = self.iters_for(&view);
        let julia = self.julia.as_ref().map(|j| j.c);
        MandelRequest { view, width: w, height: h, iters, arith: self.precision.arith(), colour: self.colour, julia }
    }

    /// Back to the whole set (precision kept, iterations automatic again); in Julia mode, the
    /// whole Julia set.
    pub fn reset_camera(&mut self) {
        match &mut self.julia {
            Some(j) => j.view = None,
            None => self.view = None,
        }
        self.auto_iters = true;
        self.forget_learned();
    }

    /// The camera zoomed by `factor` about `at` (fractions of the picture of `aspect`), in
    /// arbitrary precision (the deep path takes over past `f64` as for the wheel); true when it moved.
    pub fn zoom_by(&mut self, factor: f64, at: [f64; 2], aspect: f64) -> bool {
        if (factor - 1.0).abs() < 1e-12 {
            return false;
        }
        let current = self.current(aspect);
        self.apply(nav::zoomed_about(&current, factor, at, aspect))
    }

    /// Applies a move made by [`mandel_nav`]; a failed one (never expected) leaves the view.
    fn apply(&mut self, moved: Result<View, nav::NavError>) -> bool {
        match moved {
            Ok(v) => {
                match &mut self.julia {
                    Some(j) => j.view = Some(v),
                    None => self.view = Some(v),
                }
                true
            }
            Err(e) => {
                log::warn!("view not moved: {e}");
                false
            }
        }
    }
}

/// What the app keeps of the picture shown last (also for tests).
#[derive(Clone, Debug)]
pub struct MandelShown {
    pub request: MandelRequest,
    /// The picture's size (smaller than the request's for a coarse pass).
    pub width: usize,
    pub height: usize,
    /// 1 for the full picture, 2, 4 or 8 for a coarse pass.
    pub coarse: usize,
    /// The arithmetic used, in words.
    pub arith: String,
    /// Escape counts, row 0 at the bottom.
    pub counts: Vec<i32>,
    /// The direct parameters where it was computed directly.
    pub params: Option<crate::sim::fractal::mandelbrot::MandelbrotParams>,
    /// The picture's colours (RGBA8, row 0 at the top) where the frame came as pixels (`None`:
    /// a texture drawn on the display's device).
    pub rgba: Option<Vec<u8>>,
}

impl MandelShown {
    /// What a frame shows.
    #[must_use]
    pub fn of(f: &MandelbrotFrame) -> Self {
        Self {
            request: f.request.clone(),
            width: f.width,
            height: f.height,
            coarse: f.coarse,
            arith: f.arith.clone(),
            counts: f.counts.clone(),
            params: f.params,
            rgba: match &f.pixels {
                FrameSource::Rgba { rgba, .. } => Some(rgba.clone()),
                FrameSource::Native { .. } => None,
            },
        }
    }
}

/// The first 22 characters of a decimal's mantissa, and its exponent (the strings are ASCII).
fn short(s: &str) -> String {
    let (m, e) = s.split_once(['e', 'E']).map_or((s, String::new()), |(m, e)| (m, format!("e{e}")));
    if m.len() > 22 { format!("{}…{e}", &m[..22]) } else { format!("{m}{e}") }
}

/// The camera's readouts: centre (its first digits), zoom as `1e123`, precision, iterations,
/// and the point under the pointer with its count.
pub fn readouts_ui(
    ui: &mut egui::Ui,
    view: &MandelView,
    shown: Option<&MandelShown>,
    aspect: f64,
    hover: Option<[f64; 2]>,
) {
    let v = view.current(aspect);
    ui.label(format!("centre  {}", short(&v.re)));
    ui.label(format!("        {} i", short(&v.im)));
    ui.label(format!("zoom    {}", format_zoom(v.zoom_log10())));
    let auto = if view.auto_iters { " (auto)" } else { "" };
    ui.label(format!("iterations  {}{auto}", view.iters_for(&v)));
    if let Some(s) = shown {
        let auto = if view.precision == PrecisionMode::Auto { " (auto)" } else { "" };
        ui.label(format!("precision  {}{auto}", s.arith));
        let pass = if s.coarse > 1 { format!(", coarse 1/{}", s.coarse) } else { String::new() };
        ui.label(format!("{}x{} px{pass}", s.width, s.height));
        // The point under the pointer, and its count where the picture shows the current view.
        // The three rows are always there (a dash when the pointer is elsewhere), so nothing
        // under them moves as the pointer enters and leaves the picture.
        let point = hover.and_then(|at| nav::point_at(&v, at, aspect).ok().map(|p| (at, p)));
        let (re, im, count) = match point {
            Some((at, (re, im))) => {
                let x = (at[0] * s.width as f64) as usize;
                let y = ((1.0 - at[1]) * s.height as f64) as usize;
                let count = (s.request.view == v && x < s.width && y < s.height).then(|| s.counts[y * s.width + x]);
                (short(&re), format!("{} i", short(&im)), count.map_or_else(|| "—".to_owned(), |c| c.to_string()))
            }
            None => ("—".to_owned(), String::new(), "—".to_owned()),
        };
        ui.label(format!("pointer  {re}"));
        ui.label(format!("         {im}"));
        ui.label(format!("count    {count}"));
        if let Some(p) = &s.params
            && p.precision_exhausted()
        {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "Warning: precision exhausted: at this zoom {} cannot tell neighbouring pixels apart; \
                     choose auto or perturbation",
                    p.precision.name()
                ),
            );
        }
    } else {
        // Before the first picture: the same rows, empty, so nothing moves when it comes.
        for row in ["precision  —", "— px", "pointer  —", "", "count    —"] {
            ui.label(row);
        }
    }
}

/// The camera controls of the Mandelbrot view; true when something changed.
pub fn mandelbrot_controls_ui(ui: &mut egui::Ui, view: &mut MandelView, aspect: f64) -> bool {
    let mut changed = false;
    ui.heading("Mandelbrot");
    let current = view.current(aspect);
    ui.horizontal(|ui| {
        changed |= ui.checkbox(&mut view.auto_iters, "auto").on_hover_text(
            "100 + 150 log10(zoom), raised where a picture's escaping pixels all took over half the limit (its structure cut off)",
        ).changed();
        if view.auto_iters {
            // The slider shows the automatic value; moving it takes over.
            let mut n = view.iters_for(&current);
            let r = crate::app::widgets::stepped_slider(ui, &mut n, 1..=1_000_000, "max iterations");
            if r.changed() {
                view.auto_iters = false;
                view.iters = n;
                changed = true;
            }
        } else {
            changed |=
                crate::app::widgets::stepped_slider(ui, &mut view.iters, 1..=1_000_000, "max iterations").changed();
        }
    });
    ui.horizontal(|ui| {
        ui.label("precision");
        for (mode, name) in [
            (PrecisionMode::Auto, "auto"),
            (PrecisionMode::F32, "f32"),
            (PrecisionMode::F64, "f64"),
            (PrecisionMode::Perturbation, "perturbation"),
        ] {
            changed |= ui.selectable_value(&mut view.precision, mode, name).changed();
        }
    });
    if ui.button("Reset view (R)").clicked() {
        view.reset_camera();
        changed = true;
    }
    changed |= crate::app::parts::palette_ui::palette_ui(ui, &mut view.colour);
    if let Some(j) = &view.julia {
        ui.label(format!("Julia set of c = {:+.15} {:+.15} i", j.c[0], j.c[1]));
        if ui.button("Back to the Mandelbrot set (J)").clicked() {
            view.julia = None;
            changed = true;
        }
    } else {
        ui.label("Shift+click or J: the Julia set of the point under the pointer.");
    }
    changed
}

impl Default for PictureState {
    fn default() -> Self {
        Self { box_start: None, rect: egui::Rect::NOTHING }
    }
}

/// Per-picture UI state: a zoom box being dragged.
#[derive(Clone, Debug)]
pub struct PictureState {
    box_start: Option<egui::Pos2>,
    /// Where the picture was drawn last (screen points).
    pub rect: egui::Rect,
}

/// Draws the picture into all of `ui`'s space and handles zoom, pan and the zoom box; returns
/// the pixel size the image should be rendered at, whether the camera moved, and where the
/// pointer is (fractions of the picture) when it hovers it.
pub fn mandelbrot_image_ui(
    ui: &mut egui::Ui,
    texture: Option<(egui::TextureId, &View)>,
    view: &mut MandelView,
    state: &mut PictureState,
    held: i8,
) -> ([usize; 2], bool, Option<[f64; 2]>) {
    let rect = ui.available_rect_before_wrap();
    let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
    state.rect = rect;
    if let Some((t, shown)) = texture {
        // The last picture, moved and scaled to where its view lies in the current one until
        // the next picture comes.
        let aspect = f64::from(rect.width() / rect.height().max(1.0));
        let current = view.current(aspect);
        let placed = if *shown == current {
            Some(rect)
        } else {
            nav::relative(shown, &current).map(|(dx, dy, scale)| {
                let (w, h) = (f64::from(rect.width()), f64::from(rect.height()));
                let centre = egui::pos2(
                    (f64::from(rect.center().x) + dx / aspect * w / 2.0) as f32,
                    (f64::from(rect.center().y) - dy * h / 2.0) as f32,
                );
                egui::Rect::from_center_size(centre, egui::vec2((w * scale) as f32, (h * scale) as f32))
            })
        };
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 0.0, egui::Color32::BLACK);
        if let Some(r) = placed.filter(|r| r.width().is_finite() && r.width() < 1e7) {
            let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            painter.image(t, r, uv, egui::Color32::WHITE);
        }
    } else {
        ui.painter().rect_filled(rect, 0.0, egui::Color32::BLACK);
        ui.painter().text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "rendering…",
            egui::FontId::proportional(16.0),
            egui::Color32::GRAY,
        );
    }
    let aspect = f64::from(rect.width() / rect.height().max(1.0));
    let frac = |p: egui::Pos2| {
        [f64::from((p.x - rect.min.x) / rect.width().max(1.0)), f64::from((p.y - rect.min.y) / rect.height().max(1.0))]
    };
    let mut moved = false;
    let ctrl = ui.input(|i| i.modifiers.command);
    // Zoom box: right drag, or Ctrl + left drag.
    if response.drag_started_by(egui::PointerButton::Secondary)
        || (ctrl && response.drag_started_by(egui::PointerButton::Primary))
    {
        state.box_start = ui.input(|i| i.pointer.press_origin()).or_else(|| response.interact_pointer_pos());
    }
    if let Some(a) = state.box_start {
        let b = ui.input(|i| i.pointer.latest_pos()).unwrap_or(a);
        let r = egui::Rect::from_two_pos(a, b).intersect(rect);
        ui.painter().rect_stroke(r, 0.0, egui::Stroke::new(1.5, egui::Color32::WHITE), egui::StrokeKind::Middle);
        if response.drag_stopped() || !ui.input(|i| i.pointer.any_down()) {
            state.box_start = None;
            if r.width() > 4.0 && r.height() > 4.0 {
                let current = view.current(aspect);
                moved |= view.apply(nav::zoomed_to_box(&current, frac(r.min), frac(r.max), aspect));
            }
        }
    } else if response.dragged_by(egui::PointerButton::Primary) {
        let d = response.drag_delta();
        if d != egui::Vec2::ZERO {
            let current = view.current(aspect);
            let delta = [f64::from(d.x), f64::from(d.y)];
            moved |= view.apply(nav::panned(&current, delta, f64::from(rect.height())));
        }
    }
    // Shift + click: the Julia set of the point under the pointer, and back.
    if response.clicked()
        && ui.input(|i| i.modifiers.shift)
        && let Some(p) = response.interact_pointer_pos()
    {
        view.toggle_julia(frac(p), aspect);
        moved = true;
    }
    let hover = response.hover_pos();
    if let Some(pos) = hover {
        let scroll: f32 = ui.input(|i| {
            i.events
                .iter()
                .map(|e| match e {
                    egui::Event::MouseWheel { unit, delta, .. } => {
                        delta.y
                            * match unit {
                                egui::MouseWheelUnit::Point => 1.0,
                                egui::MouseWheelUnit::Line => 40.0,
                                egui::MouseWheelUnit::Page => 400.0,
                            }
                    }
                    _ => 0.0,
                })
                .sum()
        });
        let pinch = ui.input(egui::InputState::zoom_delta);
        let factor = (f64::from(scroll) * 0.004).exp() * f64::from(pinch);
        if (factor - 1.0).abs() > 1e-9 {
            let current = view.current(aspect);
            moved |= view.apply(nav::zoomed_about(&current, factor, frac(pos), aspect));
        }
    }
    moved |= held_zoom(ui, view, held, hover.map(frac), aspect);
    let ppp = ui.ctx().pixels_per_point();
    let px = |v: f32| ((v * ppp).round() as usize).clamp(1, MAX_IMAGE_SIDE);
    ([px(rect.width()), px(rect.height())], moved, hover.map(frac))
}

/// Continuous zoom: a held button (`held`: +1 in, -1 out) or I / O (not while typing), about
/// the pointer `at` over the picture, else the centre; true when the camera moved.
fn held_zoom(ui: &egui::Ui, view: &mut MandelView, held: i8, at: Option<[f64; 2]>, aspect: f64) -> bool {
    let typing = ui.memory(|m| m.focused().is_some());
    let (key_in, key_out, dt) = ui.input(|i| (i.key_down(egui::Key::I), i.key_down(egui::Key::O), i.stable_dt));
    let dir = match (held, !typing && key_in, !typing && key_out) {
        (1, _, _) | (0, true, false) => 1,
        (-1, _, _) | (0, false, true) => -1,
        _ => 0,
    };
    if dir == 0 {
        return false;
    }
    ui.ctx().request_repaint();
    let factor = nav::held_factor(view.zoom_rate, dir, f64::from(dt));
    view.zoom_by(factor, at.unwrap_or([0.5, 0.5]), aspect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_view_fits_the_whole_set_in_a_portrait_panel() {
        let r = MandelView::default().request(400, 900);
        let b = r.view.bounds_f64(400, 900).unwrap();
        assert!(b.minx <= -2.0 && b.maxx >= 0.47 && b.miny <= -1.12 && b.maxy >= 1.12, "{b:?}");
        assert_eq!(r.iters, 100, "automatic iterations at the whole set");
        assert_eq!(r.arith, None);
    }

    #[test]
    fn iterations_follow_depth_unless_set() {
        let mut v = MandelView { view: Some(View::parse("-0.75,0.1", "1e13").unwrap()), ..MandelView::default() };
        assert_eq!(v.request(10, 10).iters, 2050);
        v.auto_iters = false;
        v.iters = 777;
        assert_eq!(v.request(10, 10).iters, 777);
    }
}
