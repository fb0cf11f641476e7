//! The Mandelbrot view: where the camera is ([`MandelView`]), its controls and the picture
//! with wheel zoom about the cursor and drag to pan.

use serde::{Deserialize, Serialize};

use crate::sim::mandelbrot::{Bounds, MandelbrotParams, Precision};

/// Largest image side rendered (the picture is drawn at the panel's pixel size).
pub const MAX_IMAGE_SIDE: usize = 4096;
/// Smallest half-height of the view: far below what `f64` resolves, so the note shows first.
const MIN_SCALE: f64 = 1e-300;
/// Largest half-height of the view.
const MAX_SCALE: f64 = 8.0;

/// Which precision to compute in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PrecisionMode {
    /// `f32` while it resolves the pixels, `f64` deeper.
    Auto,
    F32,
    F64,
}

/// The camera and settings of the Mandelbrot view.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MandelView {
    /// Centre of the picture in the complex plane.
    pub center: [f64; 2],
    /// Half the picture's height in the complex plane (the seed's view has 1).
    pub scale: f64,
    /// Maximum iterations per pixel.
    pub iters: u32,
    pub precision: PrecisionMode,
}

impl Default for MandelView {
    fn default() -> Self {
        Self { center: [-0.5, 0.0], scale: 1.0, iters: 64, precision: PrecisionMode::Auto }
    }
}

impl MandelView {
    /// Magnification against the seed's view.
    #[must_use]
    pub fn zoom(&self) -> f64 {
        1.0 / self.scale
    }

    /// The image of `width x height` pixels this view shows, in the precision it needs.
    #[must_use]
    pub fn params(&self, width: usize, height: usize) -> MandelbrotParams {
        let (w, h) = (width.max(1), height.max(1));
        let half_w = self.scale * w as f64 / h as f64;
        let bounds = Bounds {
            minx: self.center[0] - half_w,
            maxx: self.center[0] + half_w,
            miny: self.center[1] - self.scale,
            maxy: self.center[1] + self.scale,
        };
        let mut p =
            MandelbrotParams { width: w, height: h, iters: self.iters.max(1), bounds, precision: Precision::F32 };
        p.precision = match self.precision {
            PrecisionMode::F32 => Precision::F32,
            PrecisionMode::F64 => Precision::F64,
            PrecisionMode::Auto if p.precision_exhausted() => Precision::F64,
            PrecisionMode::Auto => Precision::F32,
        };
        p
    }

    /// Zooms by `factor` (> 1 in) keeping the point under `at` fixed; `at` is the position in the
    /// picture as fractions of its width and height from the top-left, `aspect` is width/height.
    pub fn zoom_about(&mut self, factor: f64, at: [f64; 2], aspect: f64) {
        let p = self.point_at(at, aspect);
        let new_scale = (self.scale / factor).clamp(MIN_SCALE, MAX_SCALE);
        let f = new_scale / self.scale;
        self.center = [p[0] + (self.center[0] - p[0]) * f, p[1] + (self.center[1] - p[1]) * f];
        self.scale = new_scale;
    }

    /// The complex point at a fractional position of the picture.
    #[must_use]
    pub fn point_at(&self, at: [f64; 2], aspect: f64) -> [f64; 2] {
        let half_w = self.scale * aspect;
        [self.center[0] + (at[0] * 2.0 - 1.0) * half_w, self.center[1] - (at[1] * 2.0 - 1.0) * self.scale]
    }

    /// Moves the picture by a drag of `delta` pixels in a picture `height` pixels high.
    pub fn pan_pixels(&mut self, delta: [f64; 2], height: f64) {
        let per_pixel = 2.0 * self.scale / height.max(1.0);
        self.center[0] -= delta[0] * per_pixel;
        self.center[1] += delta[1] * per_pixel;
    }

    /// Back to the seed's view (iterations and precision kept).
    pub fn reset_camera(&mut self) {
        let d = Self::default();
        self.center = d.center;
        self.scale = d.scale;
    }
}

/// The controls of the Mandelbrot view; true when something changed.
pub fn mandelbrot_controls_ui(ui: &mut egui::Ui, view: &mut MandelView, shown: Option<&MandelbrotParams>) -> bool {
    let mut changed = false;
    ui.heading("Mandelbrot");
    changed |=
        ui.add(egui::Slider::new(&mut view.iters, 1..=100_000).logarithmic(true).text("max iterations")).changed();
    ui.horizontal(|ui| {
        ui.label("precision");
        for (mode, name) in [(PrecisionMode::Auto, "auto"), (PrecisionMode::F32, "f32"), (PrecisionMode::F64, "f64")] {
            changed |= ui.selectable_value(&mut view.precision, mode, name).changed();
        }
    });
    if ui.button("Reset view (R)").clicked() {
        view.reset_camera();
        changed = true;
    }
    ui.separator();
    ui.label(format!("centre  {:+.15}", view.center[0]));
    ui.label(format!("        {:+.15} i", view.center[1]));
    ui.label(format!("zoom    {:.3e} x", view.zoom()));
    ui.label(format!("iterations  {}", view.iters));
    if let Some(p) = shown {
        let auto = if view.precision == PrecisionMode::Auto { " (auto)" } else { "" };
        ui.label(format!("computing in {}{auto}, {}x{} px", p.precision.name(), p.width, p.height));
        if p.precision_exhausted() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "Warning: precision exhausted: at this zoom {} cannot tell neighbouring pixels apart{}",
                    p.precision.name(),
                    if p.precision == Precision::F32 { "; switch to f64" } else { "; the picture turns blocky" }
                ),
            );
        }
    }
    ui.label("Wheel: zoom about the cursor. Drag: pan.");
    changed
}

/// Draws the picture into all of `ui`'s space and handles zoom and pan; returns the pixel size
/// the image should be rendered at and whether the camera moved.
pub fn mandelbrot_image_ui(
    ui: &mut egui::Ui,
    texture: Option<egui::TextureId>,
    view: &mut MandelView,
) -> ([usize; 2], bool) {
    let rect = ui.available_rect_before_wrap();
    let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
    if let Some(t) = texture {
        let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
        ui.painter().image(t, rect, uv, egui::Color32::WHITE);
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
    let mut moved = false;
    if response.dragged() {
        let d = response.drag_delta();
        if d != egui::Vec2::ZERO {
            view.pan_pixels([f64::from(d.x), f64::from(d.y)], f64::from(rect.height()));
            moved = true;
        }
    }
    if let Some(pos) = response.hover_pos() {
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
            let at = [
                f64::from((pos.x - rect.min.x) / rect.width().max(1.0)),
                f64::from((pos.y - rect.min.y) / rect.height().max(1.0)),
            ];
            view.zoom_about(factor, at, aspect);
            moved = true;
        }
    }
    let ppp = ui.ctx().pixels_per_point();
    let px = |v: f32| ((v * ppp).round() as usize).clamp(1, MAX_IMAGE_SIDE);
    ([px(rect.width()), px(rect.height())], moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_keeps_the_point_under_the_cursor() {
        let mut v = MandelView::default();
        let at = [0.25, 0.75];
        let before = v.point_at(at, 1.5);
        v.zoom_about(4.0, at, 1.5);
        let after = v.point_at(at, 1.5);
        assert!((before[0] - after[0]).abs() < 1e-12 && (before[1] - after[1]).abs() < 1e-12);
        assert!((v.zoom() - 4.0).abs() < 1e-12);
    }

    #[test]
    fn auto_precision_switches_to_f64_when_deep() {
        let mut v = MandelView::default();
        assert_eq!(v.params(600, 400).precision, Precision::F32);
        v.scale = 1e-7;
        assert_eq!(v.params(600, 400).precision, Precision::F64);
        v.scale = 1e-16;
        assert!(v.params(600, 400).precision_exhausted());
    }

    #[test]
    fn default_view_is_the_seeds() {
        let p = MandelView::default().params(1536, 1024);
        assert_eq!(p.bounds, Bounds::SEED);
    }
}
