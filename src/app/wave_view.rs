//! The wave view: its settings ([`WaveSettings`]), the control panel and the field drawn
//! with the right aspect, where a click moves the source.

use serde::{Deserialize, Serialize};

use crate::sim::wave::{DEFAULT_FREQ, WaveParams};

/// Grid sides the slider offers.
pub const GRID_SIDES: std::ops::RangeInclusive<usize> = 64..=8192;

/// What the user set for the wave simulation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WaveSettings {
    pub nx: usize,
    pub ny: usize,
    pub freq: f64,
    pub steps_per_frame: u32,
    pub vmin: f32,
    pub vmax: f32,
    pub playing: bool,
}

impl Default for WaveSettings {
    fn default() -> Self {
        Self { nx: 1000, ny: 800, freq: DEFAULT_FREQ, steps_per_frame: 5, vmin: -0.1, vmax: 0.1, playing: true }
    }
}

/// What the user did in the wave controls this frame.
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

/// The wave controls. `running` is the grid in place now (it differs from the settings
/// while a new grid is allocated or after a refusal); `memory` is the backend's, if known.
pub fn wave_controls_ui(
    ui: &mut egui::Ui,
    s: &mut WaveSettings,
    running: Option<(&WaveParams, u32)>,
    memory_bytes: Option<u64>,
) -> WaveActions {
    let mut a = WaveActions::default();
    ui.heading("Waves");
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
    ui.separator();
    ui.label("Grid (cells)");
    a.resize |= ui.add(egui::Slider::new(&mut s.nx, GRID_SIDES).logarithmic(true).text("nx")).changed();
    a.resize |= ui.add(egui::Slider::new(&mut s.ny, GRID_SIDES).logarithmic(true).text("ny")).changed();
    let needed = 8 * s.nx as u64 * s.ny as u64;
    let mem = memory_bytes.map_or(String::new(), |m| format!(" of {}", bytes(m)));
    ui.weak(format!("needs {}{mem}", bytes(needed)));
    a.freq |= ui.add(egui::Slider::new(&mut s.freq, 0.005..=1.0).logarithmic(true).text("frequency")).changed();
    a.steps |=
        ui.add(egui::Slider::new(&mut s.steps_per_frame, 1..=1000).logarithmic(true).text("steps / frame")).changed();
    ui.label("Contrast");
    a.contrast |= ui.add(egui::Slider::new(&mut s.vmin, -1.0..=-0.001).logarithmic(true).text("vmin")).changed();
    a.contrast |= ui.add(egui::Slider::new(&mut s.vmax, 0.001..=1.0).logarithmic(true).text("vmax")).changed();
    ui.separator();
    if let Some((p, tstep)) = running {
        ui.label(format!("running {} x {}", p.nx, p.ny));
        ui.label(format!("time step {tstep}"));
        ui.label(format!("source at ({}, {})", p.source.0, p.source.1));
    }
    ui.label("Click the field to move the source.");
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

/// Draws the field (or a placeholder) fitted into the space left; returns the cell `(i, j)` the
/// user clicked, if any. `grid` is the running grid `(nx, ny)`.
pub fn wave_image_ui(
    ui: &mut egui::Ui,
    texture: Option<egui::TextureId>,
    grid: (usize, usize),
) -> Option<(usize, usize)> {
    let avail = ui.available_rect_before_wrap();
    let rect = fit_rect(avail, grid);
    let response = ui.allocate_rect(rect, egui::Sense::click());
    match texture {
        Some(t) => {
            let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            ui.painter().image(t, rect, uv, egui::Color32::WHITE);
        }
        None => {
            ui.painter().rect_filled(rect, 0.0, egui::Color32::BLACK);
        }
    }
    let pos = response.interact_pointer_pos().filter(|_| response.clicked())?;
    let fx = ((pos.x - rect.min.x) / rect.width()).clamp(0.0, 1.0);
    let fy = ((rect.max.y - pos.y) / rect.height()).clamp(0.0, 1.0);
    let i = ((fx * grid.0 as f32) as usize).min(grid.0.saturating_sub(2)).max(1);
    let j = ((fy * grid.1 as f32) as usize).min(grid.1.saturating_sub(2)).max(1);
    Some((i, j))
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
}
