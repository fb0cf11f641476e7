//! The wave picture saved as the window shows it: the field or intensity resampled to a size in
//! pixels, the overlay of the wave view over it (the scene's outline, probes, the theory's rays
//! and their `m=` labels, the screen's line, the ruler) and the colour bar with its labels,
//! drawn into a bitmap with `plotters` (its text through `ab_glyph` and egui's embedded font, as
//! the sweep's plot). The view hands plain data ([`PictureLook`]); nothing here touches egui.
//!
//! Lengths are the wave view's, in screen points, times [`PictureLook::scale`] pixels per point,
//! so a picture at the window's size looks as the window does and a larger one is the same
//! picture enlarged.

use plotters::prelude::{BitMapBackend, DrawingBackend, IntoFont as _, RGBAColor, RGBColor, ShapeStyle, TextStyle};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{Color as _, FontTransform};

use crate::app::wave::view::INTENSITY_DECADES;
use crate::sim::colour::colormap::{HOT_LUT, LUT_SIZE};
use crate::sim::wave::scene::{Medium, Scene, Source};
use crate::sim::wave::sources::Moving;
use crate::sim::wave::theory::Theory;

/// The largest side of a saved picture, in pixels (a 8192² picture takes 256 MiB while drawn).
pub const MAX_SIDE: u32 = 8192;

/// The smallest side: room for the colour bar and a picture beside it.
pub const MIN_SIDE: u32 = 128;

/// The colour bar's column in screen points, as the wave view lays it out.
pub const BAR_POINTS: f32 = 84.0;

/// How big the saved wave picture is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PictureSize {
    /// One pixel per cell, the field alone (no overlay, no colour bar).
    Cells,
    /// `(width, height)` pixels for the picture and its colour bar, with the overlay.
    Pixels(u32, u32),
}

/// A typed size that is not `WIDTHxHEIGHT` within [`MIN_SIDE`]..=[`MAX_SIDE`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SizeError {
    #[error("type the size as WIDTHxHEIGHT, e.g. 1920x1080 (got \"{0}\")")]
    Form(String),
    #[error("each side of the picture is {MIN_SIDE} to {MAX_SIDE} pixels (got {0}x{1})")]
    Range(u32, u32),
}

/// Reads `1920x1080` (also `1920 x 1080`, `1920×1080`, `1920*1080`).
///
/// # Errors
/// [`SizeError`] when it is not two whole numbers or a side is out of range.
pub fn parse_size(text: &str) -> Result<(u32, u32), SizeError> {
    let form = || SizeError::Form(text.trim().to_owned());
    let lower = text.trim().to_lowercase();
    let (w, h) = lower.split_once(['x', '×', '*']).ok_or_else(form)?;
    let (w, h) = (w.trim().parse::<u32>().map_err(|_| form())?, h.trim().parse::<u32>().map_err(|_| form())?);
    let side = MIN_SIDE..=MAX_SIDE;
    if side.contains(&w) && side.contains(&h) { Ok((w, h)) } else { Err(SizeError::Range(w, h)) }
}

/// What the saved picture shows besides the field: plain data from the wave view.
#[derive(Clone, Debug, PartialEq)]
pub struct PictureLook {
    pub size: PictureSize,
    /// Pixels per screen point of the overlay's lines, marks and text.
    pub scale: f32,
    /// Draw the theory's rays (the view's "theory" box).
    pub theory: bool,
    pub probes: Vec<(usize, usize)>,
    pub selected_source: Option<usize>,
    pub screen: Option<usize>,
    /// The ruler's ends in cells.
    pub ruler: Option<((f64, f64), (f64, f64))>,
    /// The window's background and text colours.
    pub background: [u8; 3],
    pub text: [u8; 3],
}

/// The colour bar's end labels and title for a picture coloured over `range` (the intensity's
/// range is the mean of `f²`, its log scale spanning [`INTENSITY_DECADES`] below the top).
#[must_use]
pub fn bar_labels(range: (f32, f32), intensity: bool, log: bool) -> (String, String, &'static str) {
    match (intensity, log) {
        (true, true) => {
            let hi = range.1;
            (format!("{:.1e}", hi * 10f32.powf(-INTENSITY_DECADES)), format!("{hi:.1e}"), "mean f² (log)")
        }
        (true, false) => (format!("{:.3}", range.0), format!("{:.1e}", range.1), "mean f²"),
        (false, _) => (format!("{:.3}", range.0), format!("{:.3}", range.1), "field"),
    }
}

/// A picture in pixels, RGBA, rows from the top.
pub struct Rgba {
    pub pixels: Vec<u8>,
    pub width: usize,
    pub height: usize,
}

/// Where the field lies in the picture, in pixels (`x0, y0, x1, y1`), and the grid it shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldRect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
    pub grid: (usize, usize),
}

impl FieldRect {
    /// The pixel of cell coordinates `(x, y)` (`y` upwards, as the view shows the field).
    #[must_use]
    pub fn point(&self, x: f64, y: f64) -> (f64, f64) {
        (self.x0 + x / self.grid.0 as f64 * (self.x1 - self.x0), self.y1 - y / self.grid.1 as f64 * (self.y1 - self.y0))
    }

    /// The rectangle of `grid` fitted into the area left of the colour bar, centred, as the
    /// view's `fit_rect` places it.
    #[must_use]
    pub fn fit(width: u32, height: u32, bar: u32, grid: (usize, usize)) -> Self {
        let (aw, ah) = (f64::from(width.saturating_sub(bar)), f64::from(height));
        let (gw, gh) = (grid.0.max(1) as f64, grid.1.max(1) as f64);
        let k = (aw / gw).min(ah / gh);
        let (w, h) = ((gw * k).round(), (gh * k).round());
        let (x0, y0) = (((aw - w) / 2.0).round(), ((ah - h) / 2.0).round());
        Self { x0, y0, x1: x0 + w, y1: y0 + h, grid }
    }
}

/// The field's picture (`rgba`, one pixel per cell, rows from the top) at `look.size` with the
/// overlay of `scene` and the colour bar labelled `bar` (low, high, title).
///
/// # Errors
/// The font could not be read or plotters failed to draw.
pub fn compose(
    rgba: &[u8],
    grid: (usize, usize),
    scene: &Scene,
    look: &PictureLook,
    bar: &(String, String, &str),
) -> anyhow::Result<(Rgba, FieldRect)> {
    let (w, h) = match look.size {
        PictureSize::Cells => {
            let all = FieldRect { x0: 0.0, y0: 0.0, x1: grid.0 as f64, y1: grid.1 as f64, grid };
            return Ok((Rgba { pixels: rgba.to_vec(), width: grid.0, height: grid.1 }, all));
        }
        PictureSize::Pixels(w, h) => (w, h),
    };
    crate::bench::sweep::register_font()?;
    let s = look.scale.max(0.25);
    let bar_px = ((BAR_POINTS * s).round() as u32).min(w / 2);
    let field = FieldRect::fit(w, h, bar_px, grid);
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    for px in rgb.chunks_exact_mut(3) {
        px.copy_from_slice(&look.background);
    }
    blit_field(&mut rgb, w, rgba, grid, &field);
    {
        let mut b = BitMapBackend::with_buffer(&mut rgb, (w, h));
        let mut d = Draw { b: &mut b, s, field };
        d.scene(scene, look)?;
        d.colour_bar(w, h, bar_px, look, bar)?;
        b.present().map_err(|e| anyhow::anyhow!("drawing the picture: {e}"))?;
    }
    let mut pixels = Vec::with_capacity(rgb.len() / 3 * 4);
    for px in rgb.chunks_exact(3) {
        pixels.extend_from_slice(&[px[0], px[1], px[2], 255]);
    }
    Ok((Rgba { pixels, width: w as usize, height: h as usize }, field))
}

/// The field resampled into `field` of the `width`-wide RGB picture: each pixel takes the cell
/// under its centre (the cells' colours as they are, enlarged or thinned).
fn blit_field(rgb: &mut [u8], width: u32, rgba: &[u8], grid: (usize, usize), field: &FieldRect) {
    let (fw, fh) = (field.x1 - field.x0, field.y1 - field.y0);
    if fw < 1.0 || fh < 1.0 || grid.0 == 0 || grid.1 == 0 {
        return;
    }
    let (x0, y0) = (field.x0 as usize, field.y0 as usize);
    let cols: Vec<usize> =
        (0..fw as usize).map(|i| (((i as f64 + 0.5) / fw * grid.0 as f64) as usize).min(grid.0 - 1)).collect();
    for j in 0..fh as usize {
        let row = (((j as f64 + 0.5) / fh * grid.1 as f64) as usize).min(grid.1 - 1);
        let out = &mut rgb[((y0 + j) * width as usize + x0) * 3..];
        for (i, &c) in cols.iter().enumerate() {
            let from = (row * grid.0 + c) * 4;
            out[i * 3..i * 3 + 3].copy_from_slice(&rgba[from..from + 3]);
        }
    }
}

type DrawResult = anyhow::Result<()>;

/// Drawing on the bitmap in the view's points.
struct Draw<'a, 'b> {
    b: &'a mut BitMapBackend<'b>,
    /// Pixels per point.
    s: f32,
    field: FieldRect,
}

/// Black at the view's casing opacity (190 of 255).
fn casing() -> RGBAColor {
    RGBAColor(0, 0, 0, 190.0 / 255.0)
}

fn rgb(c: [u8; 3]) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing the picture: {e:?}")
}

impl Draw<'_, '_> {
    /// Points to whole pixels, at least one.
    fn px(&self, points: f32) -> u32 {
        (points * self.s).round().max(1.0) as u32
    }

    fn at(&self, p: (f64, f64)) -> (i32, i32) {
        (p.0.round() as i32, p.1.round() as i32)
    }

    /// A segment `width` points wide, cut to the field's rectangle.
    fn line(&mut self, a: (f64, f64), b: (f64, f64), width: f32, colour: RGBAColor) -> DrawResult {
        let f = self.field;
        let Some((a, b)) = clip(a, b, (f.x0, f.y0, f.x1 - 1.0, f.y1 - 1.0)) else { return Ok(()) };
        let style = ShapeStyle { color: colour, filled: false, stroke_width: self.px(width) };
        let (a, b) = (self.at(a), self.at(b));
        self.b.draw_line(a, b, &style).map_err(err)
    }

    /// A dashed segment, dashes and gaps in points (as egui's `dashed_line`).
    fn dashed(
        &mut self,
        a: (f64, f64),
        b: (f64, f64),
        width: f32,
        colour: RGBAColor,
        dash: f32,
        gap: f32,
    ) -> DrawResult {
        let f = self.field;
        let Some((a, b)) = clip(a, b, (f.x0, f.y0, f.x1 - 1.0, f.y1 - 1.0)) else { return Ok(()) };
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let (dash, period) = (f64::from(dash * self.s), f64::from((dash + gap) * self.s));
        let mut t = 0.0;
        while t < len {
            let e = (t + dash).min(len);
            let p = |u: f64| (a.0 + (b.0 - a.0) * u / len, a.1 + (b.1 - a.1) * u / len);
            self.line(p(t), p(e), width, colour)?;
            t += period;
        }
        Ok(())
    }

    fn circle(&mut self, c: (f64, f64), radius: f32, width: f32, colour: RGBAColor) -> DrawResult {
        let style = ShapeStyle { color: colour, filled: false, stroke_width: self.px(width) };
        let r = self.px(radius);
        let c = self.at(c);
        self.b.draw_circle(c, r, &style, false).map_err(err)
    }

    fn rect(&mut self, a: (f64, f64), b: (f64, f64), colour: RGBAColor, filled: bool) -> DrawResult {
        let style = ShapeStyle { color: colour, filled, stroke_width: self.px(1.5) };
        let (a, b) = (self.at(a), self.at(b));
        self.b.draw_rect((a.0.min(b.0), a.1.min(b.1)), (a.0.max(b.0), a.1.max(b.1)), &style, filled).map_err(err)
    }

    fn font(&self, points: f32, colour: RGBColor) -> TextStyle<'static> {
        ("sans-serif", f64::from(points * self.s)).into_font().color(&colour)
    }

    /// Text with its box's `anchor` at `p`. Plotters' `ab_glyph` text puts the baseline half
    /// a font size below the box's top, so the ink of digits and capitals starts about a quarter
    /// size above it: moved down by that much (a tenth for the bottom, its descent), the ink
    /// sits where egui puts it.
    fn text(&mut self, text: &str, p: (f64, f64), style: &TextStyle<'_>, h: HPos, v: VPos) -> DrawResult {
        let size = style.font.get_size();
        let down = if matches!(v, VPos::Bottom) { 0.1 * size } else { 0.25 * size };
        let style = style.pos(Pos::new(h, v));
        let p = self.at((p.0, p.1 + down));
        self.b.draw_text(text, &style, p).map_err(err)
    }

    /// The cell centre `(x, y)`'s pixel.
    fn cell(&self, x: i64, y: i64) -> (f64, f64) {
        self.field.point(x as f64 + 0.5, y as f64 + 0.5)
    }

    /// Walls, media, sources, probes, the theory's rays, the screen and the ruler, in the
    /// view's order, colours and widths (`wave::view::draw_overlay`, `tools_overlay_ui`).
    fn scene(&mut self, scene: &Scene, look: &PictureLook) -> DrawResult {
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
                    self.circle(self.cell(x, y), 6.0, width, colour)?
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
            let c = crate::app::wave::view::PROBE_COLOURS[k % crate::app::wave::view::MAX_PROBES];
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
            let c = crate::app::wave::view::SCREEN_COLOUR;
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
    fn theory(&mut self, t: &Theory) -> DrawResult {
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

    /// The `hot` bar from the low label (bottom) to the high one (top), its title along its
    /// right side reading upwards (`shell::controls::colour_bar_ui`).
    fn colour_bar(
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

/// The part of segment `a`–`b` inside the box `(x0, y0, x1, y1)` (Liang–Barsky), if any.
fn clip(a: (f64, f64), b: (f64, f64), r: (f64, f64, f64, f64)) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-dx, a.0 - r.0), (dx, r.2 - a.0), (-dy, a.1 - r.1), (dy, r.3 - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    (t0 <= t1).then_some(((a.0 + t0 * dx, a.1 + t0 * dy), (a.0 + t1 * dx, a.1 + t1 * dy)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_and_bad_ones_named() {
        assert_eq!(parse_size("1920x1080"), Ok((1920, 1080)));
        assert_eq!(parse_size(" 800 X 600 "), Ok((800, 600)));
        assert_eq!(parse_size("640×480"), Ok((640, 480)));
        assert_eq!(parse_size("1920"), Err(SizeError::Form("1920".to_owned())));
        assert_eq!(parse_size("axb"), Err(SizeError::Form("axb".to_owned())));
        assert_eq!(parse_size("100x9000"), Err(SizeError::Range(100, 9000)));
    }

    #[test]
    fn a_clipped_segment_stays_inside_and_one_outside_is_dropped() {
        let r = (0.0, 0.0, 10.0, 10.0);
        let (a, b) = clip((-5.0, 5.0), (15.0, 5.0), r).unwrap();
        assert_eq!((a, b), ((0.0, 5.0), (10.0, 5.0)));
        assert_eq!(clip((-5.0, -5.0), (-1.0, 20.0), r), None);
        assert_eq!(clip((2.0, 2.0), (3.0, 3.0), r), Some(((2.0, 2.0), (3.0, 3.0))));
    }

    #[test]
    fn the_field_is_fitted_left_of_the_bar_keeping_its_aspect() {
        let f = FieldRect::fit(1084, 800, 84, (1000, 400));
        assert_eq!((f.x0, f.x1), (0.0, 1000.0));
        assert_eq!((f.y0, f.y1), (200.0, 600.0));
        // Cell (0, 0) is at the bottom left, y upwards.
        assert_eq!(f.point(0.0, 0.0), (0.0, 600.0));
    }
}
