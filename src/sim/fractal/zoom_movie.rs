//! Zoom movies from keyframes (the way zoomasm and Kalles Fraktaler's movie maker make them):
//! an exponential zoom from the whole set (zoom 1) to a view, about the view's centre. Pictures
//! are rendered only at each factor of two of zoom (the **keyframes**: keyframe `k` is the view
//! at zoom `Z / 2^k`, `k = 0..=K`, the last one at a zoom of 1 or just below), and every video
//! frame is resampled from the two keyframes around its zoom: the deeper one (zoom `r` times the
//! frame's, `1 <= r < 2`) for the centre it covers, the shallower one (zoom `r/2` times the
//! frame's) around it, the two blended over a band at the deeper one's edge. So a 60 s movie to
//! 1e100 renders 333 keyframes, not 3 600 pictures.
//!
//! Keyframes share the view's centre, so one reference orbit serves every perturbation keyframe
//! ([`shallower_job`]: the final view's [`DeepJob`] with its pixel grid scaled and a BLA table for
//! the new pixel size).
//!
//! What is resampled is the escape value (count and smooth value) and, for distance colouring
//! and lighting, the distance estimate (rescaled to the frame's pixels) and its normal, not
//! colours: each frame is
//! then coloured as one picture with the colour settings, so the automatic colour range moves
//! smoothly from frame to frame and the last frame, which is keyframe 0 itself (`r = 1`, no
//! resampling), has exactly the bytes `render --png` gives that view at that size.

use std::sync::Arc;

use super::deep::DeepJob;
use super::distance::DE_VALUES;

/// `log10(2)`.
const LOG10_2: f64 = std::f64::consts::LOG10_2;

/// `x` rounded to the nearest integer where it is within `1e-9` of it: a zoom given as `1024`
/// or a frame on a keyframe's zoom is that power of two exactly, not a rounding of it, so its
/// frame is the keyframe itself.
fn snap(x: f64) -> f64 {
    if (x - x.round()).abs() < 1e-9 { x.round() } else { x }
}

/// The frames and keyframes of a zoom movie to a view of zoom `2^zoom_log2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// `log2` of the final view's zoom (at least 0: the movie starts at zoom 1).
    pub zoom_log2: f64,
    /// Video frames (at least 1).
    pub frames: u32,
}

/// Which keyframes make frame `j` and how: `deep` (zoom `scale` times the frame's) and, where
/// `scale > 1`, `deep + 1` (zoom `scale / 2` times the frame's) around it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FramePair {
    pub deep: u32,
    pub scale: f64,
}

impl Schedule {
    /// The movie of `frames` frames to a view of zoom `10^zoom_log10` (clamped at 1 from below:
    /// the caller refuses wider views).
    #[must_use]
    pub fn new(zoom_log10: f64, frames: u32) -> Self {
        Self { zoom_log2: snap(zoom_log10 / LOG10_2).max(0.0), frames: frames.max(1) }
    }

    /// The last keyframe's index `K`: keyframes `0..=K`, keyframe `K` at zoom `2^(L-K) <= 1`.
    #[must_use]
    pub fn last_keyframe(&self) -> u32 {
        self.zoom_log2.ceil().max(0.0) as u32
    }

    /// `log2` of the zoom of frame `j` (frame 0 at zoom 1, the last at the view's zoom exactly).
    #[must_use]
    pub fn frame_zoom_log2(&self, j: u32) -> f64 {
        if j + 1 >= self.frames {
            return self.zoom_log2;
        }
        self.zoom_log2 * f64::from(j) / f64::from(self.frames - 1)
    }

    /// `log10` of keyframe `k`'s zoom.
    #[must_use]
    pub fn keyframe_zoom_log10(&self, k: u32) -> f64 {
        (self.zoom_log2 - f64::from(k)) * LOG10_2
    }

    /// The keyframes of frame `j`.
    #[must_use]
    pub fn pair(&self, j: u32) -> FramePair {
        let gap = snap(self.zoom_log2 - self.frame_zoom_log2(j));
        let deep = (gap.floor().max(0.0) as u32).min(self.last_keyframe());
        let scale = (gap - f64::from(deep)).exp2();
        // The last keyframe has no shallower one: only a frame at its own zoom uses it as `deep`.
        let scale = if deep == self.last_keyframe() { 1.0 } else { scale };
        FramePair { deep, scale }
    }

    /// The frames `j` whose deeper keyframe is `k` (consecutive: frames zoom in as keyframes go
    /// deeper), as a range.
    #[must_use]
    pub fn frames_of(&self, k: u32) -> std::ops::Range<u32> {
        let first = (0..self.frames).find(|&j| self.pair(j).deep <= k).unwrap_or(self.frames);
        let end = (first..self.frames).find(|&j| self.pair(j).deep < k).unwrap_or(self.frames);
        if first < self.frames && self.pair(first).deep == k { first..end } else { first..first }
    }
}

/// The iterations of keyframe `k` of a movie whose view gets `final_iters`: the app's choice by
/// depth (`100 + 150 log10(zoom)`) scaled so that the view itself gets `final_iters`, at least
/// `min(100, final_iters)`, at most `final_iters`. Shallow keyframes need far fewer iterations
/// than the view (the points of their pictures escape sooner), and a deep location's
/// iterations (rust-fractal's 1e50: 263 010) on the whole set would cost seconds a keyframe.
#[must_use]
pub fn keyframe_iters(schedule: &Schedule, k: u32, final_iters: u32) -> u32 {
    if k == 0 {
        return final_iters;
    }
    let by_depth = |log10: f64| 100.0 + 150.0 * log10.max(0.0);
    let ratio = by_depth(schedule.keyframe_zoom_log10(k)) / by_depth(schedule.keyframe_zoom_log10(0));
    let n = (f64::from(final_iters) * ratio).ceil();
    n.clamp(f64::from(final_iters.min(100)), f64::from(final_iters)) as u32
}

/// The view's perturbation job zoomed out by `2^k` about the same centre, with `iters`
/// iterations (at most the orbit's): the same reference orbit, the pixel grid `2^k` times
/// coarser, and the BLA table for its pixels.
#[must_use]
pub fn shallower_job(job: &DeepJob, k: u32, iters: u32) -> DeepJob {
    let (w, h) = (job.width as f64 / 2.0, job.height as f64 / 2.0);
    let g = job.grid;
    // The centre's offset from the reference point, in units of 2^exp (pixel x = width/2 is the
    // centre: the seed's pixel rule puts it there), then in the new units 2^(exp + k).
    let (cx, cy) = (g.ax + w * g.bx, g.ay + h * g.by);
    let shrink = (-f64::from(k)).exp2();
    let mut grid = g;
    grid.exp = g.exp + k as i32;
    grid.ax = cx * shrink - w * g.bx;
    grid.ay = cy * shrink - h * g.by;
    let bla = Arc::new(job.orbit.bla_table(grid.dc_max(job.width, job.height)));
    DeepJob { iters, grid, bla, zoom_log10: job.zoom_log10 - f64::from(k) * LOG10_2, millis: None, ..job.clone() }
}

/// One rendered keyframe: its counts (row 0 at the bottom) and, when the colours want them,
/// smooth values and distance estimates ([`DE_VALUES`] numbers a pixel: the distance in the
/// keyframe's pixels and the unit normal, as [`crate::sim::fractal::distance`] gives them).
#[derive(Clone, Debug, Default)]
pub struct Keyframe {
    pub iters: u32,
    pub counts: Vec<i32>,
    pub smooth: Option<Vec<f32>>,
    pub de: Option<Vec<f32>>,
}

/// A value read from a keyframe: the count, the smooth value (the count where there is none)
/// and the distance estimate (distance in the *frame's* pixels, normal; zero where there is
/// none), or inside the set.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sample {
    Inside,
    Outside { count: f64, smooth: f64, de: [f64; 3] },
}

/// The normal `(ux, uy)` made a unit vector again after blending (zero stays zero).
fn unit(ux: f64, uy: f64) -> (f64, f64) {
    let n = ux.hypot(uy);
    if n > 0.0 { (ux / n, uy / n) } else { (0.0, 0.0) }
}

impl Keyframe {
    /// The value at the fractional pixel `(fx, fy)` (inside `0..=width-1`, `0..=height-1`):
    /// bilinear between the four pixels around it where all four escaped (the normal then
    /// renormalised), else the nearest pixel's (the set's edge stays sharp). `px`: the frame's
    /// pixels in one of this keyframe's pixels (the distance is given in the frame's pixels).
    fn sample(&self, width: usize, height: usize, fx: f64, fy: f64, px: f64) -> Sample {
        let x0 = (fx.floor().max(0.0) as usize).min(width - 1);
        let y0 = (fy.floor().max(0.0) as usize).min(height - 1);
        let (x1, y1) = ((x0 + 1).min(width - 1), (y0 + 1).min(height - 1));
        let (tx, ty) = ((fx - x0 as f64).clamp(0.0, 1.0), (fy - y0 as f64).clamp(0.0, 1.0));
        let at = |x: usize, y: usize| y * width + x;
        let idx = [at(x0, y0), at(x1, y0), at(x0, y1), at(x1, y1)];
        let inside = |i: usize| i64::from(self.counts[i]) >= i64::from(self.iters);
        let value = |i: usize| {
            let c = f64::from(self.counts[i]);
            let de = self.de.as_ref().map_or([0.0; 3], |d| {
                let j = DE_VALUES * i;
                [f64::from(d[j]) * px, f64::from(d[j + 1]), f64::from(d[j + 2])]
            });
            (c, self.smooth.as_ref().map_or(c, |s| f64::from(s[i])), de)
        };
        let weights = [(1.0 - tx) * (1.0 - ty), tx * (1.0 - ty), (1.0 - tx) * ty, tx * ty];
        let single = weights.iter().filter(|&&w| w != 0.0).count() == 1;
        if idx.iter().any(|&i| inside(i)) || single {
            let i = at(if tx < 0.5 { x0 } else { x1 }, if ty < 0.5 { y0 } else { y1 });
            if inside(i) {
                return Sample::Inside;
            }
            let (count, smooth, de) = value(i);
            return Sample::Outside { count, smooth, de };
        }
        let (mut count, mut smooth, mut de) = (0.0, 0.0, [0.0; 3]);
        for (&i, &wt) in idx.iter().zip(&weights) {
            if wt != 0.0 {
                let (c, s, d) = value(i);
                count += wt * c;
                smooth += wt * s;
                for (a, b) in de.iter_mut().zip(d) {
                    *a += wt * b;
                }
            }
        }
        let (ux, uy) = unit(de[1], de[2]);
        Sample::Outside { count, smooth, de: [de[0], ux, uy] }
    }
}

/// Width of the band over which the deeper keyframe fades into the shallower one, in the deeper
/// one's pixels, as a fraction of its larger side, at `scale = 2` (it narrows to nothing as
/// `scale` goes to 1, where the deeper keyframe fills the frame alone).
const BLEND_BAND: f64 = 1.0 / 8.0;

/// The buffers of one resampled frame: counts, and smooth values and distance estimates
/// ([`DE_VALUES`] numbers a pixel, distance in the frame's pixels) where given.
pub struct FrameBuffers<'a> {
    pub counts: &'a mut [i32],
    pub smooth: Option<&'a mut [f32]>,
    pub de: Option<&'a mut [f32]>,
}

/// Frame `pair` of a `width x height` movie from its keyframes `deep` and `shallow`
/// (`pair.deep + 1`; needed where `pair.scale > 1`) into `out`, with `deep.iters` iterations
/// (a pixel inside the set in either keyframe gets that count). Distances are rescaled to the
/// frame's pixels (one pixel of `deep` is `1/scale` of the frame's, one of `shallow` `2/scale`),
/// normals blended and renormalised. At `scale = 1` the frame is `deep`'s values exactly.
pub fn resample(
    pair: FramePair,
    deep: &Keyframe,
    shallow: Option<&Keyframe>,
    (width, height): (usize, usize),
    out: FrameBuffers<'_>,
) {
    use rayon::prelude::*;
    let iters = deep.iters;
    let (cx, cy) = (width as f64 / 2.0, height as f64 / 2.0);
    let r = pair.scale;
    let band = BLEND_BAND * width.max(height) as f64 * (r - 1.0);
    let (wmax, hmax) = ((width - 1) as f64, (height - 1) as f64);
    let pixel = |x: usize, y: usize| -> (i32, f32, [f32; 3]) {
        let (dx, dy) = (x as f64 - cx, y as f64 - cy);
        let (fx, fy) = (cx + dx * r, cy + dy * r);
        let edge = fx.min(wmax - fx).min(fy).min(hmax - fy);
        let weight = match shallow {
            _ if edge < 0.0 => 0.0,
            None => 1.0,
            _ if band <= 0.0 => 1.0,
            Some(_) => {
                let t = (edge / band).clamp(0.0, 1.0);
                t * t * (3.0 - 2.0 * t)
            }
        };
        let d = (weight > 0.0).then(|| deep.sample(width, height, fx, fy, 1.0 / r));
        let s = match shallow {
            Some(s) if weight < 1.0 => Some(s.sample(width, height, cx + dx * r / 2.0, cy + dy * r / 2.0, 2.0 / r)),
            _ => None,
        };
        let v = match (d, s) {
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (
                Some(Sample::Outside { count: c1, smooth: s1, de: d1 }),
                Some(Sample::Outside { count: c2, smooth: s2, de: d2 }),
            ) => {
                let mix = |a: f64, b: f64| weight * a + (1.0 - weight) * b;
                let (ux, uy) = unit(mix(d1[1], d2[1]), mix(d1[2], d2[2]));
                Sample::Outside { count: mix(c1, c2), smooth: mix(s1, s2), de: [mix(d1[0], d2[0]), ux, uy] }
            }
            (Some(a), Some(b)) => {
                if weight >= 0.5 {
                    a
                } else {
                    b
                }
            }
            // Outside the deeper keyframe with no shallower one: cannot happen (scale 1 covers
            // the frame); the nearest edge pixel of the deeper one.
            (None, None) => deep.sample(width, height, fx.clamp(0.0, wmax), fy.clamp(0.0, hmax), 1.0 / r),
        };
        match v {
            Sample::Inside => (iters as i32, iters as f32, [0.0; 3]),
            Sample::Outside { count, smooth, de } => (
                (count.round() as i32).min(iters as i32 - 1),
                smooth as f32,
                [de[0] as f32, de[1] as f32, de[2] as f32],
            ),
        }
    };
    let FrameBuffers { counts, smooth, de } = out;
    let smooth_rows: Vec<Option<&mut [f32]>> = match smooth {
        Some(s) => s.chunks_exact_mut(width).map(Some).collect(),
        None => (0..height).map(|_| None).collect(),
    };
    let de_rows: Vec<Option<&mut [f32]>> = match de {
        Some(d) => d.chunks_exact_mut(width * DE_VALUES).map(Some).collect(),
        None => (0..height).map(|_| None).collect(),
    };
    counts
        .par_chunks_exact_mut(width)
        .zip(smooth_rows.into_par_iter())
        .zip(de_rows.into_par_iter())
        .enumerate()
        .for_each(|(y, ((row, mut srow), mut drow))| {
            for (x, c) in row.iter_mut().enumerate() {
                let (n, s, d) = pixel(x, y);
                *c = n;
                if let Some(sr) = srow.as_deref_mut() {
                    sr[x] = s;
                }
                if let Some(dr) = drow.as_deref_mut() {
                    dr[DE_VALUES * x..DE_VALUES * (x + 1)].copy_from_slice(&d);
                }
            }
        });
}

/// Where one column (or row) of a frame reads a keyframe, as [`Keyframe::sample`] finds it from
/// the fractional position: the pixels below and above it, the weight `t` of the one above,
/// and the nearer of the two.
#[derive(Clone, Copy, Debug)]
struct Tap {
    lo: usize,
    hi: usize,
    t: f64,
    near: usize,
}

impl Tap {
    /// The tap of position `f` along a side of `n` pixels (`Keyframe::sample`'s operations).
    fn new(f: f64, n: usize) -> Self {
        let lo = (f.floor().max(0.0) as usize).min(n - 1);
        let hi = (lo + 1).min(n - 1);
        let t = (f - lo as f64).clamp(0.0, 1.0);
        Self { lo, hi, t, near: if t < 0.5 { lo } else { hi } }
    }
}

/// The positions along one side of a frame (`n` pixels about the centre `c`) in its deeper
/// keyframe (`c + (x - c) r`) and its shallower one (`c + (x - c) r / 2`), as [`resample`]
/// computes them for every pixel: the same for every row (columns) or column (rows).
struct Side {
    deep: Vec<f64>,
    deep_taps: Vec<Tap>,
    shallow_taps: Vec<Tap>,
}

impl Side {
    fn new(n: usize, r: f64) -> Self {
        let c = n as f64 / 2.0;
        let deep: Vec<f64> = (0..n).map(|x| c + (x as f64 - c) * r).collect();
        let deep_taps = deep.iter().map(|&f| Tap::new(f, n)).collect();
        let shallow_taps = (0..n).map(|x| Tap::new(c + (x as f64 - c) * r / 2.0, n)).collect();
        Self { deep, deep_taps, shallow_taps }
    }
}

impl Keyframe {
    /// [`Keyframe::sample`] at the taps `tx`, `ty` (a keyframe `width` pixels wide): the same
    /// operations in the same order, so the same value bit for bit.
    #[inline]
    fn sample_at(&self, width: usize, tx: &Tap, ty: &Tap, px: f64) -> Sample {
        let (r0, r1) = (ty.lo * width, ty.hi * width);
        let idx = [r0 + tx.lo, r0 + tx.hi, r1 + tx.lo, r1 + tx.hi];
        let iters = i64::from(self.iters);
        let inside = |i: usize| i64::from(self.counts[i]) >= iters;
        let weights = [(1.0 - tx.t) * (1.0 - ty.t), tx.t * (1.0 - ty.t), (1.0 - tx.t) * ty.t, tx.t * ty.t];
        let single = weights.iter().filter(|&&w| w != 0.0).count() == 1;
        if single || idx.iter().any(|&i| inside(i)) {
            let i = ty.near * width + tx.near;
            if inside(i) {
                return Sample::Inside;
            }
            let count = f64::from(self.counts[i]);
            let smooth = self.smooth.as_ref().map_or(count, |s| f64::from(s[i]));
            let de = self.de.as_ref().map_or([0.0; 3], |d| {
                let j = DE_VALUES * i;
                [f64::from(d[j]) * px, f64::from(d[j + 1]), f64::from(d[j + 2])]
            });
            return Sample::Outside { count, smooth, de };
        }
        let (mut count, mut smooth, mut de) = (0.0, 0.0, [0.0; 3]);
        for (&i, &wt) in idx.iter().zip(&weights) {
            if wt != 0.0 {
                let c = f64::from(self.counts[i]);
                count += wt * c;
                smooth += wt * self.smooth.as_ref().map_or(c, |s| f64::from(s[i]));
                if let Some(d) = &self.de {
                    let j = DE_VALUES * i;
                    de[0] += wt * (f64::from(d[j]) * px);
                    de[1] += wt * f64::from(d[j + 1]);
                    de[2] += wt * f64::from(d[j + 2]);
                }
            }
        }
        if self.de.is_none() {
            // No distances: the normal is zero, as `unit` leaves it.
            return Sample::Outside { count, smooth, de };
        }
        let (ux, uy) = unit(de[1], de[2]);
        Sample::Outside { count, smooth, de: [de[0], ux, uy] }
    }
}

/// [`resample`]'s frame made faster, the same values bit for bit (tested against it): the
/// positions in both keyframes computed once per column and once per row instead of once per
/// pixel, no normal renormalised where the keyframes carry none, and the rows compiled for
/// the CPU's instruction set (`floor` and `round` as one instruction with SSE4.1; no fused
/// multiply-adds, so the same roundings). A movie makes every frame with it; [`resample`] is the
/// reference it is held to.
pub fn resample_fast(
    pair: FramePair,
    deep: &Keyframe,
    shallow: Option<&Keyframe>,
    (width, height): (usize, usize),
    out: FrameBuffers<'_>,
) {
    use rayon::prelude::*;
    let r = pair.scale;
    let (wmax, hmax) = ((width - 1) as f64, (height - 1) as f64);
    let cols = Side::new(width, r);
    let frame = Frame {
        deep,
        shallow,
        width,
        height,
        r,
        band: BLEND_BAND * width.max(height) as f64 * (r - 1.0),
        wmax,
        hmax,
        with_de: deep.de.is_some() || shallow.is_some_and(|s| s.de.is_some()),
        col_edge: cols.deep.iter().map(|&fx| fx.min(wmax - fx)).collect(),
        cols,
        rows: Side::new(height, r),
    };
    let FrameBuffers { counts, smooth, de } = out;
    let smooth_rows: Vec<Option<&mut [f32]>> = match smooth {
        Some(s) => s.chunks_exact_mut(width).map(Some).collect(),
        None => (0..height).map(|_| None).collect(),
    };
    let de_rows: Vec<Option<&mut [f32]>> = match de {
        Some(d) => d.chunks_exact_mut(width * DE_VALUES).map(Some).collect(),
        None => (0..height).map(|_| None).collect(),
    };
    counts
        .par_chunks_exact_mut(width)
        .zip(smooth_rows.into_par_iter())
        .zip(de_rows.into_par_iter())
        .enumerate()
        .for_each(|(y, ((row, srow), drow))| resample_row(&frame, y, row, srow, drow));
}

/// What every row of [`resample_fast`]'s frame shares.
struct Frame<'a> {
    deep: &'a Keyframe,
    shallow: Option<&'a Keyframe>,
    width: usize,
    height: usize,
    r: f64,
    band: f64,
    wmax: f64,
    hmax: f64,
    with_de: bool,
    cols: Side,
    /// `min(fx, wmax - fx)` of each column (the horizontal part of [`resample`]'s `edge`).
    col_edge: Vec<f64>,
    rows: Side,
}

/// Row `y` of [`resample_fast`]'s frame: [`resample`]'s `pixel` for each of its pixels, the
/// same operations in the same order.
#[multiversion::multiversion(targets("x86_64+avx2+avx", "x86_64+sse4.1"))]
fn resample_row(f: &Frame<'_>, y: usize, row: &mut [i32], mut srow: Option<&mut [f32]>, mut drow: Option<&mut [f32]>) {
    let (deep, shallow, width, r, band) = (f.deep, f.shallow, f.width, f.r, f.band);
    let iters = deep.iters;
    let fy = f.rows.deep[y];
    let (ty, sy) = (&f.rows.deep_taps[y], &f.rows.shallow_taps[y]);
    let row_edge = (fy, f.hmax - fy);
    for (x, c) in row.iter_mut().enumerate() {
        let edge = f.col_edge[x].min(row_edge.0).min(row_edge.1);
        let weight = match shallow {
            _ if edge < 0.0 => 0.0,
            None => 1.0,
            _ if band <= 0.0 => 1.0,
            Some(_) => {
                let t = (edge / band).clamp(0.0, 1.0);
                t * t * (3.0 - 2.0 * t)
            }
        };
        let d = (weight > 0.0).then(|| deep.sample_at(width, &f.cols.deep_taps[x], ty, 1.0 / r));
        let s = match shallow {
            Some(s) if weight < 1.0 => Some(s.sample_at(width, &f.cols.shallow_taps[x], sy, 2.0 / r)),
            _ => None,
        };
        let v = match (d, s) {
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (
                Some(Sample::Outside { count: c1, smooth: s1, de: d1 }),
                Some(Sample::Outside { count: c2, smooth: s2, de: d2 }),
            ) => {
                let mix = |a: f64, b: f64| weight * a + (1.0 - weight) * b;
                let (ux, uy) = if f.with_de { unit(mix(d1[1], d2[1]), mix(d1[2], d2[2])) } else { (0.0, 0.0) };
                Sample::Outside { count: mix(c1, c2), smooth: mix(s1, s2), de: [mix(d1[0], d2[0]), ux, uy] }
            }
            (Some(a), Some(b)) => {
                if weight >= 0.5 {
                    a
                } else {
                    b
                }
            }
            // As `resample`: cannot happen; the nearest edge pixel of the deeper one.
            (None, None) => {
                let fx = f.cols.deep[x];
                deep.sample(width, f.height, fx.clamp(0.0, f.wmax), fy.clamp(0.0, f.hmax), 1.0 / r)
            }
        };
        let (n, sv, d) = match v {
            Sample::Inside => (iters as i32, iters as f32, [0.0; 3]),
            Sample::Outside { count, smooth, de } => (
                (count.round() as i32).min(iters as i32 - 1),
                smooth as f32,
                [de[0] as f32, de[1] as f32, de[2] as f32],
            ),
        };
        *c = n;
        if let Some(sr) = srow.as_deref_mut() {
            sr[x] = sv;
        }
        if let Some(dr) = drow.as_deref_mut() {
            dr[DE_VALUES * x..DE_VALUES * (x + 1)].copy_from_slice(&d);
        }
    }
}

#[cfg(test)]
#[path = "zoom_movie_tests.rs"]
mod tests;
