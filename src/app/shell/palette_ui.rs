//! The colour settings of the Mandelbrot and Julia views as a widget: palette, smooth colouring,
//! scaling, offset and cycles ([`crate::sim::colour::palette::ColourSettings`]). Self-contained: the
//! view places it and recolours when it says something changed.

use crate::sim::colour::palette::{ColourSettings, Palette, Scale};

/// Palette, "smooth", scale, offset and cycles; true when the user changed any of them.
pub fn palette_ui(ui: &mut egui::Ui, c: &mut ColourSettings) -> bool {
    let before = *c;
    ui.horizontal_wrapped(|ui| {
        ui.label("palette");
        for p in Palette::ALL {
            let tip = match p {
                Palette::Hot => "matplotlib's hot: the seed's",
                Palette::Viridis => "matplotlib's viridis: perceptually uniform",
                Palette::Magma => "matplotlib's magma: perceptually uniform",
                Palette::Twilight => "matplotlib's twilight: cyclic, for repeating colours",
            };
            ui.selectable_value(&mut c.palette, p, p.name()).on_hover_text(tip);
        }
    });
    ui.checkbox(&mut c.smooth, "smooth")
        .on_hover_text("colour by the continuous escape value, so the bands between counts disappear");
    ui.horizontal(|ui| {
        ui.label("scale");
        for s in Scale::ALL {
            let tip = match s {
                Scale::Linear => "counts 0..iters spread evenly (the seed's)",
                Scale::Log => "low counts get more of the palette: for many iterations",
                Scale::Histogram => "each colour covers about as many pixels",
            };
            ui.selectable_value(&mut c.scale, s, s.name()).on_hover_text(tip);
        }
    });
    ui.add(egui::Slider::new(&mut c.offset, 0.0..=0.999).text("colour offset"))
        .on_hover_text("shift along the palette (a fraction of it); colours wrap around");
    ui.add(egui::Slider::new(&mut c.cycles, 1.0..=ColourSettings::MAX_CYCLES).logarithmic(true).text("colour cycles"))
        .on_hover_text("how many times the palette repeats over the range (twilight repeats without a seam)");
    if ui.button("Seed colours").on_hover_text("hot, integer counts, linear: the seed's picture").clicked() {
        *c = ColourSettings::SEED;
    }
    *c != before
}
