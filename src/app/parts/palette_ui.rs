//! The colour settings of the Mandelbrot and Julia views as a widget: palette (and the custom
//! palette's stop editor), smooth colouring,
//! scaling, range, offset, cycles, the interior colour, distance colouring and slope lighting
//! ([`crate::sim::colour::palette::ColourSettings`]). Self-contained: the
//! view places it and recolours when it says something changed.

use crate::sim::colour::palette::{ColourBy, ColourSettings, CountRange, Light, Palette, Scale};
use crate::sim::colour::stops::{MAX_STOPS, Stops};

/// Palette, "smooth", scale, offset and cycles; true when the user changed any of them.
pub fn palette_ui(ui: &mut egui::Ui, c: &mut ColourSettings) -> bool {
    let before = *c;
    palette_row_ui(ui, c);
    // Smooth and the interior colour share a row, the range and the seed's colours another, so
    // the panel keeps its height.
    ui.horizontal(|ui| {
        ui.checkbox(&mut c.smooth, "smooth")
            .on_hover_text("colour by the continuous escape value, so the bands between counts disappear");
        let mut own = c.interior.is_some();
        if ui
            .checkbox(&mut own, "interior colour")
            .on_hover_text("the points that never escape in a colour of their own, not the palette's last")
            .changed()
        {
            c.interior = own.then_some([0, 0, 0]);
        }
        if let Some(rgb) = &mut c.interior {
            ui.color_edit_button_srgb(rgb).on_hover_text("the interior's colour");
        }
    });
    ui.horizontal(|ui| {
        ui.label("colour by");
        for by in ColourBy::ALL {
            let tip = match by {
                ColourBy::Escape => "the escape count (or the smooth value): the seed's",
                ColourBy::Distance => {
                    "the distance estimate |z| ln|z| / |dz| in pixels (dz/dc, or dz/dz0 on a Julia set): \
                     a crisp boundary at any zoom"
                }
            };
            ui.selectable_value(&mut c.by, by, by.name()).on_hover_text(tip);
        }
        let mut lit = c.light.is_some();
        if ui
            .checkbox(&mut lit, "light")
            .on_hover_text("slope lighting: the outside shaded as a surface rising away from the set")
            .changed()
        {
            c.light = lit.then_some(Light::DEFAULT);
        }
    });
    // One slider a row: side by side they widened the panel and shrank the picture (seen:
    // 499 -> 399 px, "elevation °" clipped).
    if let Some(light) = &mut c.light {
        ui.add(egui::Slider::new(&mut light.azimuth, 0.0..=360.0).text("azimuth °"))
            .on_hover_text("where the light comes from, anticlockwise from the right");
        ui.add(egui::Slider::new(&mut light.elevation, 0.0..=90.0).text("elevation °"))
            .on_hover_text("the light's height above the picture (90: straight above, flat)");
    }
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
    ui.horizontal(|ui| {
        ui.label("range");
        for r in CountRange::ALL {
            let tip = match r {
                CountRange::Auto => "the picture's own escaped counts: a deep view uses the whole palette",
                CountRange::Full => "0..iters (the seed's): a deep view's narrow band of counts shows one colour",
            };
            ui.selectable_value(&mut c.range, r, r.name()).on_hover_text(tip);
        }
        if ui
            .button("Classic colours")
            .on_hover_text("hot, integer counts, linear over 0..iters: the tutorial's (the seed program's) picture")
            .clicked()
        {
            *c = ColourSettings::SEED;
        }
    });
    *c != before
}

/// The custom palette's editor: each stop's position (kept between its neighbours) and colour,
/// a button to remove it (2 stay), and one to add a stop in the widest gap.
fn stops_ui(ui: &mut egui::Ui, stops: &mut Stops) {
    let mut remove = None;
    for i in 0..stops.len() {
        ui.horizontal(|ui| {
            let label = ui.label(format!("stop {}", i + 1));
            let (lo, hi) = stops.room(i);
            let mut at = stops.at(i);
            if ui
                .add(egui::DragValue::new(&mut at).range(lo..=hi).speed(0.005).max_decimals(3))
                .labelled_by(label.id)
                .on_hover_text("where the stop sits along the palette (0: lowest values, 1: highest)")
                .changed()
            {
                stops.set_at(i, at);
            }
            ui.color_edit_button_srgb(stops.colour_mut(i)).on_hover_text("the stop's colour");
            if ui.add_enabled(stops.len() > 2, egui::Button::new("remove").small()).clicked() {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove {
        stops.remove(i);
    }
    if ui
        .add_enabled(stops.len() < MAX_STOPS, egui::Button::new("add stop"))
        .on_hover_text("a stop in the middle of the widest gap, of the colour there")
        .clicked()
    {
        stops.insert_midway();
    }
}

/// The palette row (the built-in tables and "custom") and, for a custom palette, its editor.
fn palette_row_ui(ui: &mut egui::Ui, c: &mut ColourSettings) {
    ui.horizontal_wrapped(|ui| {
        ui.label("palette");
        for p in Palette::ALL {
            let tip = match p {
                Palette::Hot => "matplotlib's hot: the seed's",
                Palette::Viridis => "matplotlib's viridis: perceptually uniform",
                Palette::Magma => "matplotlib's magma: perceptually uniform",
                Palette::Twilight => "matplotlib's twilight: cyclic, for repeating colours",
                Palette::Custom => "your own colour stops",
            };
            ui.selectable_value(&mut c.palette, p, p.name()).on_hover_text(tip);
        }
        if ui
            .selectable_label(c.palette == Palette::Custom, "custom")
            .on_hover_text("your own palette of colour stops (saved in the location file)")
            .clicked()
        {
            c.palette = Palette::Custom;
            c.stops = c.stops.or(Some(Stops::STARTER));
        }
    });
    if c.palette == Palette::Custom {
        stops_ui(ui, c.stops.get_or_insert(Stops::STARTER));
    }
}
