//! The wave picture saved as the window shows it: the field or intensity resampled to a size in
//! pixels, the overlay of the wave view over it (the scene's outline, probes, the theory's rays
//! and their `m=` labels, the screen's line, the ruler), the screen's intensity graph beside the
//! field where a screen is placed, and the colour bar with its labels,
//! drawn into a bitmap with `plotters` (its text through `ab_glyph` and egui's embedded font, as
//! the sweep's plot). The view hands plain data ([`PictureLook`]); nothing here touches egui.
//!
//! Lengths are the wave view's, in screen points, times [`PictureLook::scale`] pixels per point,
//! so a picture at the window's size looks as the window does and a larger one is the same
//! picture enlarged.

use plotters::prelude::{BitMapBackend, DrawingBackend, IntoFont as _, RGBAColor, RGBColor, ShapeStyle, TextStyle};
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::app::worker::look::INTENSITY_DECADES;
use crate::sim::wave::scene::Scene;

#[path = "wave_picture_marks.rs"]
mod marks;

/// The largest side of a saved picture, in pixels (a 8192² picture takes 256 MiB while drawn).
pub const MAX_SIDE: u32 = 8192;

/// The smallest side: room for the colour bar and a picture beside it.
pub const MIN_SIDE: u32 = 128;

/// The colour bar's column in screen points, as the wave view lays it out.
pub const BAR_POINTS: f32 = 84.0;

/// The gap between the picture and the screen's graph beside it, in points.
pub const SCREEN_GRAPH_GAP: f32 = 8.0;

/// The width of the screen's graph beside a picture drawn in `avail` points across (the window's
/// and the saved picture's).
#[must_use]
pub fn screen_graph_width(avail: f32) -> f32 {
    (avail * 0.2).clamp(90.0, 220.0)
}

/// Inner margin of the screen's graph, in points: the curve's zero and its peak stay off the frame.
pub const GRAPH_PAD: f32 = 6.0;

/// The theory's curve and marks on the screen's graph.
pub const THEORY_RGB: [u8; 3] = [120, 255, 160];

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
            (bar_value(hi * 10f32.powf(-INTENSITY_DECADES)), bar_value(hi), "mean f² (log)")
        }
        (true, false) => (format!("{:.3}", range.0), bar_value(range.1), "mean f²"),
        (false, _) => (format!("{:.3}", range.0), format!("{:.3}", range.1), "field"),
    }
}

/// A colour bar's end value in two significant digits: plain from 0.1 to 1000 ("1.1", "0.52",
/// "120"), else as a power of ten ("1.1e-2"); seen before: "1.1e0" under a saved picture.
#[must_use]
pub fn bar_value(v: f32) -> String {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() {
        return format!("{v}");
    }
    if (0.1..1000.0).contains(&a) {
        let decimals = (1 - a.log10().floor() as i32).max(0) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.1e}")
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

/// Where a saved picture of `width x height` pixels at `scale` pixels per point puts the field,
/// the screen's graph (with `graph`: a screen is placed) and the colour bar, as the wave view lays
/// them out: the bar's column on the right, the graph as tall as the field and right of it, the
/// field fitted into what is left. The graph is left out where it would leave the field less than
/// half of the room.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    pub field: FieldRect,
    /// `(x0, y0, x1, y1)` in pixels.
    pub graph: Option<(f64, f64, f64, f64)>,
    /// The colour bar's column, in pixels.
    pub bar: u32,
}

impl Layout {
    #[must_use]
    pub fn of(width: u32, height: u32, scale: f32, graph: bool, grid: (usize, usize)) -> Self {
        let s = scale.max(0.25);
        let bar = ((BAR_POINTS * s).round() as u32).min(width / 2);
        let avail = width.saturating_sub(bar);
        let room = graph.then(|| {
            let g = (screen_graph_width(avail as f32 / s) * s).round() as u32;
            (g, (SCREEN_GRAPH_GAP * s).round() as u32)
        });
        match room {
            Some((g, gap)) if 2 * (g + gap) <= avail => {
                let field = FieldRect::fit(width - g - gap, height, bar, grid);
                let x0 = field.x1 + f64::from(gap);
                Self { field, graph: Some((x0, field.y0, x0 + f64::from(g), field.y1)), bar }
            }
            _ => Self { field: FieldRect::fit(width, height, bar, grid), graph: None, bar },
        }
    }
}

/// The field's picture (`rgba`, one pixel per cell, rows from the top) at `look.size` with the
/// overlay of `scene`, the colour bar labelled `bar` (low, high, title) and, where a screen is
/// placed, its graph beside the field: `screen_mean` the time-averaged intensity along its column
/// (one value a row; `None` while none is averaged: the graph says so).
///
/// # Errors
/// The font could not be read or plotters failed to draw.
pub fn compose(
    rgba: &[u8],
    grid: (usize, usize),
    scene: &Scene,
    look: &PictureLook,
    bar: &(String, String, &str),
    screen_mean: Option<&[f32]>,
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
    let column = look.screen.filter(|&x| x < grid.0);
    let layout = Layout::of(w, h, s, column.is_some(), grid);
    let (bar_px, field) = (layout.bar, layout.field);
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    for px in rgb.chunks_exact_mut(3) {
        px.copy_from_slice(&look.background);
    }
    blit_field(&mut rgb, w, rgba, grid, &field);
    {
        let mut b = BitMapBackend::with_buffer(&mut rgb, (w, h));
        let mut d = Draw { b: &mut b, s, field };
        d.scene(scene, look)?;
        if let (Some(rect), Some(x)) = (layout.graph, column) {
            let mean = screen_mean.filter(|m| m.len() == grid.1);
            d.screen_graph(rect, x, mean, scene, h)?;
        }
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

    /// The field's rectangle, to clip to.
    fn field_box(&self) -> (f64, f64, f64, f64) {
        let f = self.field;
        (f.x0, f.y0, f.x1 - 1.0, f.y1 - 1.0)
    }

    /// A segment `width` points wide, cut to the field's rectangle.
    fn line(&mut self, a: (f64, f64), b: (f64, f64), width: f32, colour: RGBAColor) -> DrawResult {
        self.line_in(self.field_box(), a, b, width, colour)
    }

    /// A segment `width` points wide, cut to the box `(x0, y0, x1, y1)`.
    fn line_in(
        &mut self,
        r: (f64, f64, f64, f64),
        a: (f64, f64),
        b: (f64, f64),
        width: f32,
        colour: RGBAColor,
    ) -> DrawResult {
        let Some((a, b)) = clip(a, b, r) else { return Ok(()) };
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
        let f = self.field_box();
        // Clipped first, so that the dashes start where the segment enters the field.
        let Some((a, b)) = clip(a, b, f) else { return Ok(()) };
        self.dashed_path(f, &[a, b], width, colour, dash, gap)
    }

    /// A dashed polyline in the box `r`, dashes and gaps in points measured along the line (as
    /// egui's `Shape::dashed_line`).
    fn dashed_path(
        &mut self,
        r: (f64, f64, f64, f64),
        pts: &[(f64, f64)],
        width: f32,
        colour: RGBAColor,
        dash: f32,
        gap: f32,
    ) -> DrawResult {
        let (dash, period) = (f64::from(dash * self.s), f64::from((dash + gap) * self.s));
        // `t`: the length along the line where the segment starts.
        let mut t = 0.0;
        for w in pts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
            let p = |u: f64| if len > 0.0 { (a.0 + (b.0 - a.0) * u / len, a.1 + (b.1 - a.1) * u / len) } else { a };
            // The dashes that fall on this segment: [k*period, k*period + dash] against [t, t + len].
            let mut k = (t / period).floor();
            while k * period < t + len {
                let (d0, d1) = ((k * period).max(t), (k * period + dash).min(t + len));
                if d1 > d0 {
                    self.line_in(r, p(d0 - t), p(d1 - t), width, colour)?;
                }
                k += 1.0;
            }
            t += len;
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
    fn bar_labels_read_plainly() {
        assert_eq!(bar_value(1.1), "1.1");
        assert_eq!(bar_value(0.52), "0.52");
        assert_eq!(bar_value(0.0114), "1.1e-2");
        assert_eq!(bar_value(123.4), "123");
        assert_eq!(bar_value(1.1e-6), "1.1e-6");
        assert_eq!(bar_value(2.5e4), "2.5e4");
        assert_eq!(bar_value(0.0), "0");
        // The intensity's log bar topped at 1.1: "1.1", not "1.1e0".
        let (lo, hi, _) = bar_labels((0.0, 1.1), true, true);
        assert_eq!((lo.as_str(), hi.as_str()), ("1.1e-4", "1.1"));
    }

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

    #[test]
    fn the_screen_s_graph_takes_the_window_s_room_beside_the_field_or_none_when_too_narrow() {
        // 1084 = 1000 + the bar's 84: the graph 200 points (a fifth of 1000), the gap 8.
        let l = Layout::of(1084, 800, 1.0, true, (1000, 400));
        let f = l.field;
        assert_eq!((f.x1 - f.x0, f.y1 - f.y0), (792.0, 316.8_f64.round()), "the field fitted into 1000 - 208");
        let (x0, y0, x1, y1) = l.graph.expect("room for the graph");
        assert_eq!((x0, x1 - x0, y0, y1), (f.x1 + 8.0, 200.0, f.y0, f.y1));
        // Twice the scale: the same layout, twice the pixels.
        let l2 = Layout::of(2168, 1600, 2.0, true, (1000, 400));
        assert_eq!(l2.graph.map(|g| g.2 - g.0), Some(400.0));
        assert_eq!(l2.field.x1 - l2.field.x0, 2.0 * (f.x1 - f.x0));
        // 128 pixels wide leaves 64 for the field and the graph: no graph, the field whole.
        let narrow = Layout::of(128, 128, 1.0, true, (100, 100));
        assert_eq!(narrow.graph, None);
        assert_eq!(narrow.field, Layout::of(128, 128, 1.0, false, (100, 100)).field);
    }

    #[test]
    fn the_saved_screen_graph_peaks_at_the_field_s_row_of_the_measured_peak() {
        let scene = Scene::seed(200, 100, 0.25);
        let grid = (scene.nx, scene.ny);
        let rgba = vec![0u8; grid.0 * grid.1 * 4];
        let look = PictureLook {
            size: PictureSize::Pixels(700, 400),
            scale: 1.0,
            theory: false,
            probes: Vec::new(),
            selected_source: None,
            screen: Some(120),
            ruler: None,
            background: [27, 27, 27],
            text: [200, 200, 200],
        };
        let bar = ("0".to_owned(), "1".to_owned(), "field");
        // One bright row: 70 (from the bottom).
        let mean: Vec<f32> = (0..grid.1).map(|y| if y == 70 { 1.0 } else { 0.01 }).collect();
        let (pic, field) = compose(&rgba, grid, &scene, &look, &bar, Some(&mean)).unwrap();
        let l = Layout::of(700, 400, 1.0, true, grid);
        assert_eq!(field, l.field);
        let (x0, y0, x1, y1) = l.graph.unwrap();
        let yellow = |x: usize, y: usize| {
            let p = &pic.pixels[(y * pic.width + x) * 4..][..3];
            p[0] > 200 && p[1] > 160 && p[2] < 120
        };
        // The rightmost yellow pixel of the graph, and its row.
        let (mut best, mut at) = (0, 0);
        for y in y0 as usize..y1 as usize {
            for x in (x0 as usize..x1 as usize).rev() {
                if yellow(x, y) {
                    if x > best {
                        (best, at) = (x, y);
                    }
                    break;
                }
            }
        }
        let row70 = field.point(0.0, 70.5).1;
        assert!((at as f64 - row70).abs() <= 2.0, "the peak drawn at pixel row {at}, the field's row 70 at {row70:.1}");
        assert!(best as f64 > x1 - 12.0, "the peak reaches {best} of the graph's right edge {x1}");
        // Without a measure the graph is drawn empty: no yellow curve in it.
        let (empty, _) = compose(&rgba, grid, &scene, &look, &bar, None).unwrap();
        let any = (y0 as usize..y1 as usize).any(|y| {
            (x0 as usize + 8..x1 as usize).any(|x| {
                let p = &empty.pixels[(y * empty.width + x) * 4..][..3];
                p[0] > 200 && p[1] > 160 && p[2] < 120
            })
        });
        assert!(!any, "a graph without a measure shows no curve");
    }
}
