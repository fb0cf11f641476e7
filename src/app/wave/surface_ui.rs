//! The wave view's 3D surface, UI side: the 2D/3D toggle (with the reason where 3D cannot be
//! drawn), the camera (drag to rotate, wheel to zoom) and its matrix, and the paint callback
//! handed to egui (the GPU side is `surface_gpu.rs`).

use crate::app::wave::surface_gpu::{self, SurfaceCallback};

/// Why the 3D view cannot be drawn: eframe draws with glow, or without wgpu.
pub const NEEDS_WGPU: &str = "3D needs the wgpu renderer: this window draws without it (glow or software)";
/// The picture is not a texture the surface can read yet.
pub const NO_PICTURE: &str = "3D: waiting for the first picture";
/// Why the 3D view cannot be drawn: the adapter lacks what the surface's compute pass and
/// vertex stage need ([`surface_gpu::NEEDS`]).
pub const NEEDS_STORAGE: &str =
    "3D needs compute shaders and storage buffers in the vertex stage: this graphics adapter lacks them";

/// Why the 3D view cannot be drawn with eframe's `render_state` (none: it can).
#[must_use]
pub fn unavailable(render_state: Option<&egui_wgpu::RenderState>) -> Option<&'static str> {
    why_unavailable(render_state.map(|rs| rs.adapter.get_downlevel_capabilities().flags))
}

/// Why the 3D view cannot be drawn on an adapter with downlevel `flags` (`None`: no wgpu at all).
#[must_use]
pub fn why_unavailable(flags: Option<wgpu::DownlevelFlags>) -> Option<&'static str> {
    match flags {
        None => Some(NEEDS_WGPU),
        Some(f) if !f.contains(surface_gpu::NEEDS) => Some(NEEDS_STORAGE),
        Some(_) => None,
    }
}

/// The lowest the camera goes, radians above the surface: about 9°, where a wave's crests
/// still read as a surface (at the 3° it allowed before, the field collapsed to a line).
pub const MIN_PITCH: f32 = 0.15;

/// The camera and the surface's height.
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceView {
    /// Show the surface instead of the flat picture.
    pub on: bool,
    /// Turn about the vertical axis, radians.
    pub yaw: f32,
    /// Elevation above the surface's plane, radians.
    pub pitch: f32,
    /// Eye's distance from the centre, in widths of the surface.
    pub distance: f32,
    /// Height of the whole colour range, in widths of the surface.
    pub height: f32,
}

impl Default for SurfaceView {
    fn default() -> Self {
        Self { on: false, yaw: 0.5, pitch: 0.6, distance: 1.7, height: 0.25 }
    }
}

/// A column-major 4×4 matrix, as WGSL's `mat4x4<f32>` takes it.
pub type Mat4 = [[f32; 4]; 4];

fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut m = [[0.0; 4]; 4];
    for (c, col) in m.iter_mut().enumerate() {
        for (r, v) in col.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    m
}

/// Right-handed perspective with depth in `[0, 1]` (wgpu's clip space).
fn perspective(fovy: f32, aspect: f32, near: f32, far: f32) -> Mat4 {
    let f = 1.0 / (fovy / 2.0).tan();
    let r = far / (near - far);
    [[f / aspect, 0.0, 0.0, 0.0], [0.0, f, 0.0, 0.0], [0.0, 0.0, r, -1.0], [0.0, 0.0, r * near, 0.0]]
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalize(a: [f32; 3]) -> [f32; 3] {
    let n = dot(a, a).sqrt().max(f32::MIN_POSITIVE);
    [a[0] / n, a[1] / n, a[2] / n]
}

/// Right-handed view from `eye` towards `at`, `y` up.
fn look_at(eye: [f32; 3], at: [f32; 3]) -> Mat4 {
    let f = normalize(sub(at, eye));
    let s = normalize(cross(f, [0.0, 1.0, 0.0]));
    let u = cross(s, f);
    [
        [s[0], u[0], -f[0], 0.0],
        [s[1], u[1], -f[1], 0.0],
        [s[2], u[2], -f[2], 0.0],
        [-dot(s, eye), -dot(u, eye), dot(f, eye), 1.0],
    ]
}

impl SurfaceView {
    /// The eye's position: `distance` from the centre at `yaw` and `pitch`.
    #[must_use]
    pub fn eye(&self) -> [f32; 3] {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        [self.distance * cp * sy, self.distance * sp, self.distance * cp * cy]
    }

    /// Clip space from world space for a viewport of `aspect` (width over height).
    #[must_use]
    pub fn mvp(&self, aspect: f32) -> Mat4 {
        // 40° across the narrower side of the viewport, so the surface fits a tall one too.
        let aspect = aspect.max(1e-3);
        let half = 20f32.to_radians().tan();
        let fovy = 2.0 * if aspect < 1.0 { (half / aspect).atan() } else { half.atan() };
        let proj = perspective(fovy, aspect, 0.02, 20.0);
        mul(&proj, &look_at(self.eye(), [0.0, 0.0, 0.0]))
    }

    /// A drag of `delta` points turns the camera (its height above the surface from
    /// [`MIN_PITCH`], never edge-on, to just under overhead); the wheel's `scroll` points zoom it.
    pub fn steer(&mut self, delta: egui::Vec2, scroll: f32) {
        self.yaw -= delta.x * 0.01;
        self.pitch = (self.pitch + delta.y * 0.01).clamp(MIN_PITCH, 1.5);
        self.distance = (self.distance * (-scroll * 0.002).exp()).clamp(0.4, 6.0);
    }

    /// The 2D/3D toggle and, with 3D on, the height slider; `unavailable` says why 3D cannot be
    /// drawn (the toggle is then off and disabled).
    pub fn toggle_ui(&mut self, ui: &mut egui::Ui, unavailable: Option<&str>) {
        ui.horizontal(|ui| {
            ui.label("view:");
            if ui.add(egui::Button::selectable(!self.on, "2D")).clicked() {
                self.on = false;
            }
            let three = ui.add_enabled(unavailable.is_none(), egui::Button::selectable(self.on, "3D"));
            let three = match unavailable {
                Some(why) => three.on_disabled_hover_text(why),
                None => three.on_hover_text("the field as a height surface: drag to turn, wheel to zoom"),
            };
            if three.clicked() {
                self.on = true;
            }
        });
        if let Some(why) = unavailable {
            self.on = false;
            ui.weak(why);
        } else if self.on {
            ui.add(egui::Slider::new(&mut self.height, 0.02..=1.0).logarithmic(true).text("height"))
                .on_hover_text("the surface's height for the whole colour range, in widths of the field");
        }
    }

    /// The surface in `rect`, drawn from the picture `field` (the 2D view's texture) by eframe's
    /// wgpu paint callback; drags and the wheel over it steer the camera. `target` is egui's
    /// target format.
    pub fn surface_ui(
        &mut self,
        ui: &mut egui::Ui,
        rect: egui::Rect,
        field: Option<wgpu::Texture>,
        target: wgpu::TextureFormat,
    ) {
        let response = ui.interact(rect, ui.make_persistent_id("wave_surface"), egui::Sense::drag());
        let scroll = if response.hovered() { ui.input(|i| i.smooth_scroll_delta.y) } else { 0.0 };
        self.steer(response.drag_delta(), scroll);
        let Some(field) = field else {
            ui.painter().text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                NO_PICTURE,
                egui::FontId::default(),
                ui.visuals().weak_text_color(),
            );
            return;
        };
        let ppp = ui.ctx().pixels_per_point();
        let size_px = [(rect.width() * ppp).round().max(1.0) as u32, (rect.height() * ppp).round().max(1.0) as u32];
        let callback = SurfaceCallback {
            field,
            mvp: self.mvp(rect.width() / rect.height().max(1.0)),
            height: self.height,
            size_px,
            target,
        };
        ui.painter().add(egui_wgpu::Callback::new_paint_callback(rect, callback));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(m: &Mat4, p: [f32; 3]) -> [f32; 3] {
        let v = [p[0], p[1], p[2], 1.0];
        let c: Vec<f32> = (0..4).map(|r| (0..4).map(|k| m[k][r] * v[k]).sum()).collect();
        [c[0] / c[3], c[1] / c[3], c[2] / c[3]]
    }

    #[test]
    fn the_centre_is_in_the_middle_and_a_raised_point_is_higher_on_screen() {
        let v = SurfaceView::default();
        let m = v.mvp(1.5);
        let c = project(&m, [0.0, 0.0, 0.0]);
        assert!(c[0].abs() < 1e-5 && c[1].abs() < 1e-5, "centre at {c:?}");
        assert!((0.0..1.0).contains(&c[2]), "depth {} inside wgpu's [0, 1]", c[2]);
        let up = project(&m, [0.0, 0.1, 0.0]);
        assert!(up[1] > 0.05, "a bump 0.1 high is drawn at y {} (clip), above the centre", up[1]);
        // The near corner is nearer than the far one.
        let eye = v.eye();
        let near = [0.5f32.copysign(eye[0]), 0.0, 0.5f32.copysign(eye[2])];
        assert!(project(&m, near)[2] < project(&m, [-near[0], 0.0, -near[2]])[2]);
    }

    #[test]
    fn an_adapter_without_vertex_storage_or_compute_is_refused_with_its_reason() {
        use wgpu::DownlevelFlags as F;
        assert_eq!(why_unavailable(None), Some(NEEDS_WGPU));
        assert_eq!(why_unavailable(Some(F::all())), None);
        assert_eq!(why_unavailable(Some(F::all() - F::VERTEX_STORAGE)), Some(NEEDS_STORAGE));
        assert_eq!(why_unavailable(Some(F::all() - F::COMPUTE_SHADERS)), Some(NEEDS_STORAGE));
        assert_eq!(why_unavailable(Some(F::empty())), Some(NEEDS_STORAGE));
    }

    #[test]
    fn dragging_turns_and_the_wheel_zooms_within_limits() {
        let mut v = SurfaceView::default();
        let before = v.clone();
        v.steer(egui::vec2(50.0, 0.0), 0.0);
        assert!((v.yaw - (before.yaw - 0.5)).abs() < 1e-6);
        v.steer(egui::vec2(0.0, 10_000.0), 0.0);
        assert!(v.pitch <= 1.5, "never over the top: {}", v.pitch);
        v.steer(egui::vec2(0.0, -10_000.0), 0.0);
        assert!(v.pitch >= MIN_PITCH, "never edge-on: {}", v.pitch);
        v.steer(egui::Vec2::ZERO, 100.0);
        assert!(v.distance < before.distance, "the wheel up zooms in");
        v.steer(egui::Vec2::ZERO, -1e6);
        assert!(v.distance <= 6.0);
    }
}
