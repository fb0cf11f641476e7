//! Small shared widgets: the backend picker and the `hot` colour bar.

use crate::backend::{BackendChoice, BackendKind, DeviceInfo};
use crate::sim::colormap::{HOT_LUT, LUT_SIZE};

/// Whether each backend can run here: its device or the reason it cannot.
pub type Probes = Vec<(BackendKind, Result<DeviceInfo, String>)>;

/// The picker's choices and their labels.
pub const CHOICES: [(BackendChoice, &str); 4] = [
    (BackendChoice::Auto, "auto"),
    (BackendChoice::Cuda, "CUDA"),
    (BackendChoice::Wgpu, "wgpu"),
    (BackendChoice::Cpu, "CPU"),
];

/// Auto / CUDA / wgpu / CPU, unavailable ones disabled with the reason as tooltip; true when
/// the user picked another.
pub fn backend_picker_ui(ui: &mut egui::Ui, choice: &mut BackendChoice, probes: &Probes) -> bool {
    let mut changed = false;
    ui.label("Backend:");
    for (c, name) in CHOICES {
        let probe = c.kind().and_then(|k| probes.iter().find(|(pk, _)| *pk == k)).map(|(_, p)| p);
        let (enabled, tip) = match probe {
            None => (true, "the fastest available: CUDA, then wgpu, then the CPU".to_owned()),
            Some(Ok(d)) => (true, d.name.clone()),
            Some(Err(why)) => (false, why.clone()),
        };
        let r = ui.add_enabled(enabled, egui::Button::selectable(*choice == c, name));
        let r = if enabled { r.on_hover_text(tip) } else { r.on_disabled_hover_text(format!("unavailable: {tip}")) };
        if r.clicked() && *choice != c {
            *choice = c;
            changed = true;
        }
    }
    changed
}

/// A vertical `hot` colour bar from `lo` (bottom) to `hi` (top) in `rect`, with its ends labelled.
pub fn colour_bar_ui(ui: &egui::Ui, rect: egui::Rect, lo: &str, hi: &str, title: &str) {
    let painter = ui.painter_at(rect.expand(2.0));
    let text = ui.visuals().text_color();
    let font = egui::FontId::proportional(11.0);
    let bar = egui::Rect::from_min_max(
        egui::pos2(rect.min.x + 4.0, rect.min.y + 16.0),
        egui::pos2(rect.min.x + 20.0, rect.max.y - 16.0),
    );
    let step = bar.height() / LUT_SIZE as f32;
    for (k, c) in HOT_LUT.iter().enumerate() {
        let y1 = bar.max.y - k as f32 * step;
        let r = egui::Rect::from_min_max(egui::pos2(bar.min.x, y1 - step - 0.5), egui::pos2(bar.max.x, y1));
        painter.rect_filled(r, 0.0, egui::Color32::from_rgb(c[0], c[1], c[2]));
    }
    painter.rect_stroke(bar, 0.0, egui::Stroke::new(1.0, text), egui::StrokeKind::Outside);
    painter.text(egui::pos2(bar.min.x, rect.min.y), egui::Align2::LEFT_TOP, hi, font.clone(), text);
    painter.text(egui::pos2(bar.min.x, rect.max.y), egui::Align2::LEFT_BOTTOM, lo, font.clone(), text);
    painter.text(egui::pos2(bar.max.x + 4.0, bar.center().y), egui::Align2::LEFT_CENTER, title, font, text);
}
