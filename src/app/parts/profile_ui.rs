//! The frame profile drawn: a stacked bar of a frame's time per stage (compute, colour, copy,
//! upload, UI, measure) under the timing panel, and a flame view window of the last frame's scopes per
//! thread. The data comes from `profile.rs`.

use crate::app::parts::profile::{FrameProfile, STAGES, StageSecs};

/// The colour of each stage.
const COLOURS: [egui::Color32; 6] = [
    egui::Color32::from_rgb(230, 90, 60),
    egui::Color32::from_rgb(240, 190, 60),
    egui::Color32::from_rgb(90, 160, 255),
    egui::Color32::from_rgb(170, 110, 230),
    egui::Color32::from_rgb(120, 200, 120),
    egui::Color32::from_rgb(160, 160, 160),
];

/// The stacked bar and its legend; `flame` toggles the flame view. `frozen` hides the numbers.
pub fn stage_bar_ui(ui: &mut egui::Ui, profile: &FrameProfile, flame: &mut bool, frozen: bool) {
    ui.separator();
    ui.horizontal(|ui| {
        ui.strong("Frame profile");
        ui.checkbox(flame, "flame view");
    });
    let Some(avg) = profile.average().filter(|_| !frozen) else {
        ui.weak("where a frame's time goes: measuring…");
        return;
    };
    let total: f64 = avg.iter().sum();
    let (rect, resp) = ui.allocate_exact_size(egui::vec2(ui.available_width(), 18.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    let mut x = rect.min.x;
    for (i, secs) in avg.iter().enumerate() {
        let w = if total > 0.0 { (secs / total) as f32 * rect.width() } else { 0.0 };
        painter.rect_filled(
            egui::Rect::from_min_size(egui::pos2(x, rect.min.y), egui::vec2(w, rect.height())),
            0.0,
            COLOURS[i],
        );
        x += w;
    }
    resp.on_hover_text(legend_text(&avg));
    ui.horizontal_wrapped(|ui| {
        for (i, name) in STAGES.iter().enumerate() {
            let (r, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(r, 1.0, COLOURS[i]);
            ui.label(format!("{name} {:.2} ms", avg[i] * 1e3));
        }
    });
    ui.weak(format!(
        "{:.2} ms per frame in these stages, mean of the last {} frames (upload: the picture handed to egui; \
         the GPU upload itself happens when egui paints)",
        total * 1e3,
        profile.frames()
    ));
}

fn legend_text(avg: &StageSecs) -> String {
    STAGES.iter().zip(avg).map(|(n, s)| format!("{n}: {:.3} ms", s * 1e3)).collect::<Vec<_>>().join("\n")
}

/// The flame view: the last frame's scopes, one row per depth, grouped by thread.
pub fn flame_window(ctx: &egui::Context, profile: &FrameProfile, open: &mut bool) {
    egui::Window::new("Frame profile: flame view").open(open).default_size([640.0, 260.0]).show(ctx, |ui| {
        let scopes = profile.flame();
        if scopes.is_empty() {
            ui.label("no scopes in the last frame yet");
            return;
        }
        let end = scopes.iter().map(|s| s.start + s.secs).fold(0.0, f64::max).max(1e-6);
        ui.label(format!("last frame's scopes over {:.2} ms (puffin)", end * 1e3));
        let mut threads: Vec<&str> = scopes.iter().map(|s| s.thread.as_str()).collect();
        threads.sort_unstable();
        threads.dedup();
        let row = 18.0;
        let width = ui.available_width();
        for t in threads {
            ui.strong(t);
            let depth = scopes.iter().filter(|s| s.thread == t).map(|s| s.depth).max().unwrap_or(0) + 1;
            let (rect, _) = ui.allocate_exact_size(egui::vec2(width, row * depth as f32), egui::Sense::hover());
            let painter = ui.painter_at(rect);
            for s in scopes.iter().filter(|s| s.thread == t) {
                let x0 = rect.min.x + (s.start / end) as f32 * width;
                let w = ((s.secs / end) as f32 * width).max(1.0);
                let r = egui::Rect::from_min_size(
                    egui::pos2(x0, rect.min.y + row * s.depth as f32),
                    egui::vec2(w, row - 2.0),
                );
                let c = STAGES.iter().position(|n| *n == s.name).map_or(egui::Color32::GRAY, |i| COLOURS[i]);
                painter.rect_filled(r, 2.0, c);
                if w > 40.0 {
                    painter.text(
                        r.left_center() + egui::vec2(3.0, 0.0),
                        egui::Align2::LEFT_CENTER,
                        format!("{} {:.2} ms", s.name, s.secs * 1e3),
                        egui::FontId::proportional(11.0),
                        egui::Color32::BLACK,
                    );
                }
            }
        }
    });
}
