//! Small shared widgets: the backend picker, the `hot` colour bar and the colour bar of a
//! palette colouring (Mandelbrot and Julia views).

use crate::backend::{BackendChoice, BackendKind, DeviceInfo, NotAvailable};
use crate::sim::colour::colormap::{HOT_LUT, LUT_SIZE};
use crate::sim::colour::palette::{ColourBy, ColourSettings, Colouring, DISTANCE_RANGE_PX};

/// Whether each backend can run here: its device or the reason it cannot.
pub type Probes = Vec<(BackendKind, Result<DeviceInfo, NotAvailable>)>;

/// Whether `kind` can run here by `probes` (cpu1 whenever the CPU backend can), or why not.
///
/// # Errors
/// The probe's reason, or "not probed".
pub fn available(kind: BackendKind, probes: &Probes) -> Result<(), NotAvailable> {
    let k = if kind == BackendKind::Cpu1 { BackendKind::Cpu } else { kind };
    match probes.iter().find(|(p, _)| *p == k) {
        Some((_, Ok(_))) => Ok(()),
        Some((_, Err(why))) => Err(why.clone()),
        None => Err(NotAvailable("not probed".to_owned())),
    }
}

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
            Some(Err(why)) => (false, why.to_string()),
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
    bar_title(&painter, bar, title, font, text);
}

/// A bar's title along its right side, reading upwards, so a long one ("mean f² (log)") fits in
/// the bar's narrow column instead of being clipped.
fn bar_title(painter: &egui::Painter, bar: egui::Rect, title: &str, font: egui::FontId, colour: egui::Color32) {
    let galley = painter.layout_no_wrap(title.to_owned(), font, colour);
    let size = galley.size();
    let pos = egui::pos2(bar.max.x + 4.0, bar.center().y + size.x / 2.0);
    painter.add(egui::epaint::TextShape::new(pos, galley, colour).with_angle(-std::f32::consts::FRAC_PI_2));
}

/// A vertical colour bar of `colouring` over its range of values (`0` to `iters`, or the
/// picture's own counts with the automatic range) in `rect`, labelled at its ends: it follows
/// the palette, scale, range, offset and cycles, so a histogram scale shows where the image's
/// counts lie; coloured by distance ([`ColourBy::Distance`]), the distance in pixels from 0 (the
/// boundary, at the top) to the 64 pixels over which the palette runs (the lighting, which only
/// shades, is left out). A square at the top shows the colour of the points that never escape.
pub fn palette_bar_ui(ui: &egui::Ui, rect: egui::Rect, colouring: &Colouring, title: &str) {
    if colouring.settings().by == ColourBy::Distance {
        let unlit = Colouring::new(&ColourSettings { light: None, ..*colouring.settings() }, &[], 1);
        let colour = |d: f64| unlit.colour_de(0, None, Some([d as f32, 0.0, 0.0]));
        bar_ui(ui, rect, (DISTANCE_RANGE_PX, 0.0), colour, colouring.interior(), "distance (pixels)");
    } else {
        bar_ui(ui, rect, colouring.range(), |v| colouring.colour_of_value(v), colouring.interior(), title);
    }
}

/// The bar of [`palette_bar_ui`]: the values from `bottom` to `top`, `colour` of each.
fn bar_ui(
    ui: &egui::Ui,
    rect: egui::Rect,
    (bottom, top): (f64, f64),
    colour: impl Fn(f64) -> [u8; 4],
    interior: [u8; 4],
    title: &str,
) {
    let painter = ui.painter_at(rect.expand(2.0));
    let text = ui.visuals().text_color();
    let font = egui::FontId::proportional(11.0);
    let bar = egui::Rect::from_min_max(
        egui::pos2(rect.min.x + 4.0, rect.min.y + 32.0),
        egui::pos2(rect.min.x + 20.0, rect.max.y - 16.0),
    );
    let strips = (bar.height().max(1.0) as usize).min(1024);
    let step = bar.height() / strips as f32;
    for k in 0..strips {
        let v = bottom + (k as f64 + 0.5) / strips as f64 * (top - bottom);
        let c = colour(v);
        let y1 = bar.max.y - k as f32 * step;
        let r = egui::Rect::from_min_max(egui::pos2(bar.min.x, y1 - step - 0.5), egui::pos2(bar.max.x, y1));
        painter.rect_filled(r, 0.0, egui::Color32::from_rgb(c[0], c[1], c[2]));
    }
    painter.rect_stroke(bar, 0.0, egui::Stroke::new(1.0, text), egui::StrokeKind::Outside);
    let inside = egui::Rect::from_min_size(egui::pos2(bar.min.x, rect.min.y + 14.0), egui::vec2(bar.width(), 12.0));
    let c = interior;
    painter.rect_filled(inside, 0.0, egui::Color32::from_rgb(c[0], c[1], c[2]));
    painter.rect_stroke(inside, 0.0, egui::Stroke::new(1.0, text), egui::StrokeKind::Outside);
    painter.text(
        egui::pos2(bar.max.x + 4.0, inside.center().y),
        egui::Align2::LEFT_CENTER,
        "inside",
        font.clone(),
        text,
    );
    painter.text(egui::pos2(bar.min.x, rect.min.y), egui::Align2::LEFT_TOP, format!("{top:.0}"), font.clone(), text);
    painter.text(
        egui::pos2(bar.min.x, rect.max.y),
        egui::Align2::LEFT_BOTTOM,
        format!("{bottom:.0}"),
        font.clone(),
        text,
    );
    bar_title(&painter, bar, title, font, text);
}
