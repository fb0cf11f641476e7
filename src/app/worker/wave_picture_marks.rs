//! The marks drawn over and beside the saved wave picture, as the wave view draws them: the
//! scene's outline (walls, media, sources, probes), the theory's rays and their labels, the
//! screen's intensity graph and the colour bar. A part of [`super`], drawing with its `Draw`.

use plotters::prelude::{DrawingBackend, RGBColor, ShapeStyle};
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::{Color as _, FontTransform};

use super::{Draw, DrawResult, FieldRect, GRAPH_PAD, PictureLook, THEORY_RGB, casing, err, rgb};
use crate::sim::colour::colormap::{HOT_LUT, LUT_SIZE};
use crate::sim::wave::scene::{Medium, Scene, Source};
use crate::sim::wave::sources::Moving;
use crate::sim::wave::theory::Theory;

impl Draw<'_, '_> {
    /// Walls, media, sources, probes, the theory's rays, the screen and the ruler, in the
    /// view's order, colours and widths (`wave::view::draw_overlay`, `tools_overlay_ui`).
    pub(super) fn scene(&mut self, scene: &Scene, look: &PictureLook) -> DrawResult {
        let medium = RGBColor(90, 200, 255).to_rgba();
        for m in &scene.media {
            match *m {
                Medium::Rect { x0, y0, x1, y1, .. } => {
                    let (a, b) =
                        (self.field.point(x0 as f64, y0 as f64), self.field.point((x1 + 1) as f64, (y1 + 1) as f64));
                    self.rect(a, b, medium, false)?;
                }
                Medium::Circle { x, y, r, .. } => {
                    let rad = (r / self.field.grid.0 as f64 * (self.field.x1 - self.field.x0)) as f32 / self.s;
                    self.circle(self.cell(x, y), rad, 1.5, medium)?;
                }
            }
        }
        for w in &scene.walls {
            let (a, b) =
                (self.field.point(w.x0 as f64, w.y0 as f64), self.field.point((w.x1 + 1) as f64, (w.y1 + 1) as f64));
            self.rect(a, b, RGBColor(70, 110, 160).to_rgba(), true)?;
        }
        for (k, src) in scene.sources.iter().enumerate() {
            let selected = look.selected_source == Some(k);
            let colour = if selected { RGBColor(80, 255, 80) } else { RGBColor(255, 255, 255) }.to_rgba();
            let width = if selected { 2.5 } else { 1.5 };
            match *src {
                Source::Point { x, y, .. } | Source::Pulse { x, y, .. } => {
                    self.circle(self.cell(x, y), 6.0, width, colour)?;
                }
                Source::Line { x0, y0, x1, y1, .. } | Source::Moving(Moving { x0, y0, x1, y1, .. }) => {
                    let (a, b) = (self.cell(x0, y0), self.cell(x1, y1));
                    self.line(a, b, width, colour)?;
                    self.circle(a, 5.0, width, colour)?;
                }
                Source::Array(_) | Source::Multipole(_) => {
                    for (x, y) in src.cells() {
                        self.circle(self.cell(x, y), 4.0, width, colour)?;
                    }
                }
            }
        }
        for (k, &(x, y)) in look.probes.iter().enumerate() {
            let c = crate::app::worker::look::PROBE_COLOURS[k % crate::app::worker::look::MAX_PROBES];
            let colour = RGBColor(c.r(), c.g(), c.b()).to_rgba();
            let p = self.cell(x as i64, y as i64);
            let d = f64::from(6.0 * self.s);
            self.line((p.0 - d, p.1), (p.0 + d, p.1), 2.0, colour)?;
            self.line((p.0, p.1 - d), (p.0, p.1 + d), 2.0, colour)?;
        }
        if look.theory
            && let Some(t) = Theory::of(scene)
        {
            self.theory(&t)?;
        }
        if let Some(x) = look.screen {
            let (a, b) =
                (self.field.point(x as f64 + 0.5, 0.0), self.field.point(x as f64 + 0.5, self.field.grid.1 as f64));
            self.line(a, b, 4.0, casing())?;
            let c = crate::app::worker::look::SCREEN_COLOUR;
            self.line(a, b, 2.0, RGBColor(c.r(), c.g(), c.b()).to_rgba())?;
        }
        if let Some((a, b)) = look.ruler {
            let (pa, pb) = (self.field.point(a.0, a.1), self.field.point(b.0, b.1));
            self.line(pa, pb, 4.0, casing())?;
            let white = RGBColor(255, 255, 255);
            self.line(pa, pb, 2.0, white.to_rgba())?;
            for p in [pa, pb] {
                let style = ShapeStyle { color: white.to_rgba(), filled: true, stroke_width: 1 };
                let p = self.at(p);
                self.b.draw_circle(p, self.px(3.5), &style, true).map_err(err)?;
            }
        }
        Ok(())
    }

    /// The directions `θ_m`: green dashes over a dark casing, `m=` labels on a dark plate
    /// (`wave::view::draw_theory`).
    pub(super) fn theory(&mut self, t: &Theory) -> DrawResult {
        let colour = RGBColor(120, 255, 160);
        let reach = (self.field.grid.0 + self.field.grid.1) as f64;
        let from = self.field.point(t.origin.0, t.origin.1);
        let font = self.font(12.0, colour);
        for &axis in &t.axes {
            for (m, theta) in t.angles() {
                let (dx, dy) = t.direction(axis, theta);
                let to = self.field.point(t.origin.0 + dx * reach, t.origin.1 + dy * reach);
                self.dashed(from, to, 4.0, casing(), 6.0, 5.0)?;
                self.dashed(from, to, 1.5, colour.to_rgba(), 6.0, 5.0)?;
                let at = self.field.point(t.origin.0 + dx * reach * 0.12, t.origin.1 + dy * reach * 0.12);
                let label = format!("m={m}");
                let (w, h) = self.b.estimate_text_size(&label, &font).map_err(err)?;
                let pad = f64::from(2.0 * self.s);
                let (hw, hh) = (f64::from(w) / 2.0 + pad, f64::from(h) / 2.0 + pad);
                let inside = |p: (f64, f64), f: &FieldRect| p.0 >= f.x0 && p.0 < f.x1 && p.1 >= f.y0 && p.1 < f.y1;
                if inside(at, &self.field) {
                    self.rect((at.0 - hw, at.1 - hh), (at.0 + hw, at.1 + hh), casing(), true)?;
                    self.text(&label, at, &font, HPos::Center, VPos::Center)?;
                }
            }
        }
        Ok(())
    }

    /// The screen's graph in `r` (the window's `tools_ui::screen_graph_ui`, in its colours, widths
    /// and places): row `y` of `mean` at the height of the field's row `y`, growing to the right;
    /// the theory's far-field curve dashed and scaled to the measured peak, its orders as ticks on
    /// the right edge; the column above the graph and the legend below it where the picture (`h`
    /// pixels tall) has room, else inside. Without a measure: "averaging…".
    pub(super) fn screen_graph(
        &mut self,
        r: (f64, f64, f64, f64),
        column: usize,
        mean: Option<&[f32]>,
        scene: &Scene,
        h: u32,
    ) -> DrawResult {
        let s = f64::from(self.s);
        let (x0, y0, x1, y1) = r;
        let inside = (x0, y0, x1 - 1.0, y1 - 1.0);
        self.rect((x0, y0), (x1 - 1.0, y1 - 1.0), RGBColor(18, 18, 18).to_rgba(), true)?;
        let frame = ShapeStyle { color: RGBColor(70, 70, 70).to_rgba(), filled: false, stroke_width: self.px(1.0) };
        let (a, b) = (self.at((x0, y0)), self.at((x1 - 1.0, y1 - 1.0)));
        self.b.draw_rect(a, b, &frame, false).map_err(err)?;
        let text = RGBColor(200, 200, 200);
        let font = self.font(11.0, text);
        let line = 14.0 * s;
        let title = format!("screen x = {column}");
        if y0 >= line {
            self.text(&title, (x0, y0 - 2.0 * s), &font, HPos::Left, VPos::Bottom)?;
        } else {
            self.text(&title, (x0 + f64::from(GRAPH_PAD) * s, y0 + 2.0 * s), &font, HPos::Left, VPos::Top)?;
        }
        let Some(mean) = mean else {
            return self.text("averaging…", ((x0 + x1) / 2.0, (y0 + y1) / 2.0), &font, HPos::Center, VPos::Center);
        };
        let values: Vec<f64> = mean.iter().map(|&v| f64::from(v)).collect();
        let top = values.iter().copied().fold(0.0, f64::max);
        let top = if top > 0.0 { top } else { 1.0 };
        let zero = x0 + f64::from(GRAPH_PAD) * s;
        let span = (x1 - x0 - 2.0 * f64::from(GRAPH_PAD) * s).max(1.0);
        let field = self.field;
        let row = move |y: f64| field.point(0.0, y + 0.5).1;
        let points = |v: &[f64]| -> Vec<(f64, f64)> {
            v.iter()
                .enumerate()
                .map(|(y, &v)| (if v.is_finite() { zero + v.max(0.0) / top * span } else { f64::NAN }, row(y as f64)))
                .collect()
        };
        self.line_in(inside, (zero, y0), (zero, y1 - 1.0), 1.0, RGBColor(90, 90, 90).to_rgba())?;
        let theory = if scene.nx > column { Theory::of(scene) } else { None };
        let green = rgb(THEORY_RGB);
        if let Some(t) = &theory {
            for (_, y) in crate::sim::wave::screen::theory_marks_on_column(t, column, values.len()) {
                let py = row(y);
                self.line_in(inside, (x1 - 8.0 * s, py), (x1 - 1.0 * s, py), 2.0, green.to_rgba())?;
            }
            if let Some(curve) = crate::sim::wave::screen::theory_on_column(t, column, values.len()) {
                let scaled: Vec<f64> = curve.iter().map(|v| if v.is_finite() { v * top } else { f64::NAN }).collect();
                for run in points(&scaled).split(|p| !p.0.is_finite()).filter(|r| r.len() > 1) {
                    self.dashed_path(inside, run, 1.5, green.to_rgba(), 5.0, 4.0)?;
                }
            }
        }
        let c = crate::app::worker::look::SCREEN_COLOUR;
        let screen = RGBColor(c.r(), c.g(), c.b());
        let yellow = screen.to_rgba();
        for w in points(&values).windows(2) {
            self.line_in(inside, w[0], w[1], 2.0, yellow)?;
        }
        let mut legend = vec![("— measured", screen)];
        if theory.is_some() {
            legend.push(("- - theory", green));
        }
        let below = f64::from(h) - y1 >= line * legend.len() as f64;
        for (k, (what, colour)) in legend.into_iter().enumerate() {
            let k = k as f64;
            let font = self.font(11.0, colour);
            if below {
                self.text(what, (x0, y1 + 2.0 * s + line * k), &font, HPos::Left, VPos::Top)?;
            } else {
                self.text(what, (zero, y1 - 2.0 * s - line * k), &font, HPos::Left, VPos::Bottom)?;
            }
        }
        Ok(())
    }

    /// The `hot` bar from the low label (bottom) to the high one (top), its title along its
    /// right side reading upwards (`parts::controls::colour_bar_ui`).
    pub(super) fn colour_bar(
        &mut self,
        w: u32,
        h: u32,
        bar_px: u32,
        look: &PictureLook,
        labels: &(String, String, &str),
    ) -> DrawResult {
        let s = f64::from(self.s);
        let left = f64::from(w - bar_px) + 6.0 * s;
        let (x0, x1) = ((left + 4.0 * s).round() as i32, (left + 20.0 * s).round() as i32);
        let (y0, y1) = ((16.0 * s).round() as i32, (f64::from(h) - 16.0 * s).round() as i32);
        let n = LUT_SIZE as f64;
        for y in y0..y1 {
            // The bar's bottom is the LUT's first colour.
            let k = (((f64::from(y1 - 1 - y) + 0.5) / f64::from((y1 - y0).max(1)) * n) as usize).min(LUT_SIZE - 1);
            let c = HOT_LUT[k];
            let style = ShapeStyle { color: RGBColor(c[0], c[1], c[2]).to_rgba(), filled: true, stroke_width: 1 };
            self.b.draw_line((x0, y), (x1 - 1, y), &style).map_err(err)?;
        }
        let text = rgb(look.text);
        let outline = ShapeStyle { color: text.to_rgba(), filled: false, stroke_width: 1 };
        self.b.draw_rect((x0 - 1, y0 - 1), (x1, y1), &outline, false).map_err(err)?;
        let font = self.font(11.0, text);
        let (lo, hi, title) = labels;
        self.text(hi, (f64::from(x0), 2.0 * s), &font, HPos::Left, VPos::Top)?;
        self.text(lo, (f64::from(x0), f64::from(h) - 2.0 * s), &font, HPos::Left, VPos::Bottom)?;
        let up = font.transform(FontTransform::Rotate270);
        let (tw, _) = self.b.estimate_text_size(title, &font).map_err(err)?;
        let mid = f64::from(y0 + y1) / 2.0 + f64::from(tw) / 2.0;
        self.text(title, (f64::from(x1) + 4.0 * s, mid), &up, HPos::Left, VPos::Top)?;
        Ok(())
    }
}
