//! Big Mandelbrot pictures in tiles: horizontal strips of the image rendered one after the
//! other on any backend, so a picture larger than the device holds at once (an 8K or 16K
//! export, a GPU with little memory) still renders. A strip the device refuses for memory
//! ([`BackendError::OutOfMemory`]) is tried again at half the rows.
//!
//! A strip of rows `y0..y0+n` is the same view cut down: for the direct rule its bounds are
//! `miny + y0*py .. miny + (y0+n)*py` (the seed's pixel rule inside the strip, so a pixel's `c`
//! can differ from the one-piece picture's by the rounding of those bounds, an ulp of `f64`);
//! for perturbation it is the same reference orbit with the grid's first row moved to `y0`.

use super::{Backend, BackendError, MandelbrotRun, Timing};
use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::mandelbrot::{Bounds, MandelbrotParams};

/// Largest tile tried first when none is asked for: 2^28 pixels (a 16384 x 16384 picture),
/// 1 GiB of counts, within every backend's limits on a large device.
pub const DEFAULT_TILE_PIXELS: usize = 1 << 28;

/// A whole picture to render.
#[derive(Clone, Copy, Debug)]
pub enum Picture<'a> {
    /// The seed's rule in `f32` or `f64`.
    Direct(&'a MandelbrotParams),
    /// Perturbation around a reference orbit.
    Deep(&'a DeepJob),
}

impl Picture<'_> {
    /// `(width, height)`.
    #[must_use]
    pub fn size(&self) -> (usize, usize) {
        match self {
            Self::Direct(p) => (p.width, p.height),
            Self::Deep(j) => (j.width, j.height),
        }
    }
}

/// The rows `y0..y0+rows` of `p` as a picture of their own.
#[must_use]
pub fn direct_strip(p: &MandelbrotParams, y0: usize, rows: usize) -> MandelbrotParams {
    let py = (p.bounds.maxy - p.bounds.miny) / p.height as f64;
    let bounds =
        Bounds { miny: p.bounds.miny + y0 as f64 * py, maxy: p.bounds.miny + (y0 + rows) as f64 * py, ..p.bounds };
    MandelbrotParams { height: rows, bounds, ..*p }
}

/// The rows `y0..y0+rows` of `job` as a job of their own (the same orbit).
#[must_use]
pub fn deep_strip(job: &DeepJob, y0: usize, rows: usize) -> DeepJob {
    let mut strip = job.clone();
    strip.height = rows;
    strip.grid.ay = job.grid.ay + y0 as f64 * job.grid.by;
    strip
}

/// How a tiled render ended.
#[derive(Debug)]
pub struct Tiled {
    /// The summed run (`None` when `progress` asked to stop).
    pub run: Option<MandelbrotRun>,
    /// Strips rendered.
    pub tiles: usize,
}

/// Renders `picture` into `counts` (`width*height`, row 0 at the bottom), and the smooth escape
/// values into `smooth` when given ([`Backend::mandelbrot_smooth`]), in strips of at most
/// `max_tile_pixels` pixels (whole rows, at least one), halving a strip the device refuses for
/// memory. `progress(rows_done, rows)` is called after each strip; it returns false to stop.
///
/// # Errors
/// A strip of one row refused, or any other failure of the backend.
pub fn render_tiled(
    backend: &mut dyn Backend,
    picture: Picture<'_>,
    max_tile_pixels: usize,
    counts: &mut [i32],
    smooth: Option<&mut [f32]>,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Tiled, BackendError> {
    render_tiled_de(backend, picture, max_tile_pixels, counts, smooth, None, progress)
}

/// [`render_tiled`] that also writes the distance estimates into `de` when given
/// ([`Backend::mandelbrot_distance`], [`Backend::mandelbrot_deep_distance`]; `smooth` is then
/// needed too, [`crate::sim::fractal::distance::DE_VALUES`] numbers a pixel).
///
/// # Errors
/// As [`render_tiled`]; `de` without `smooth`, or of the wrong length.
pub fn render_tiled_de(
    backend: &mut dyn Backend,
    picture: Picture<'_>,
    max_tile_pixels: usize,
    counts: &mut [i32],
    mut smooth: Option<&mut [f32]>,
    mut de: Option<&mut [f32]>,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Tiled, BackendError> {
    use crate::sim::fractal::distance::DE_VALUES;
    let (width, height) = picture.size();
    if let Some(d) = de.as_deref() {
        super::check_de_len(d, width * height)?;
        if smooth.is_none() {
            return Err(BackendError::Invalid("distance estimates need the smooth values' buffer too".to_owned()));
        }
    }
    if counts.len() != width * height {
        return Err(BackendError::Invalid(format!(
            "counts hold {} values, image has {}",
            counts.len(),
            width * height
        )));
    }
    let mut rows = (max_tile_pixels / width.max(1)).clamp(1, height.max(1));
    let mut total =
        MandelbrotRun { total_iters: 0, executed_iters: None, timing: Timing::wall(std::time::Duration::ZERO) };
    let mut device = Some(std::time::Duration::ZERO);
    let mut y0 = 0;
    let mut tiles = 0;
    while y0 < height {
        let n = rows.min(height - y0);
        let span = y0 * width..(y0 + n) * width;
        let out = &mut counts[span.clone()];
        let sm = smooth.as_deref_mut().map(|s| &mut s[span.clone()]);
        let dd = de.as_deref_mut().map(|d| &mut d[span.start * DE_VALUES..span.end * DE_VALUES]);
        let r = match (picture, sm, dd) {
            (Picture::Direct(p), Some(sm), Some(d)) if n == height => backend.mandelbrot_distance(p, out, sm, d),
            (Picture::Direct(p), Some(sm), Some(d)) => backend.mandelbrot_distance(&direct_strip(p, y0, n), out, sm, d),
            (Picture::Deep(j), Some(sm), Some(d)) if n == height => backend.mandelbrot_deep_distance(j, out, sm, d),
            (Picture::Deep(j), Some(sm), Some(d)) => {
                backend.mandelbrot_deep_distance(&deep_strip(j, y0, n), out, sm, d)
            }
            (_, None, Some(_)) => Err(BackendError::Invalid("distance estimates need smooth values".to_owned())),
            (Picture::Direct(p), None, None) if n == height => backend.mandelbrot(p, out),
            (Picture::Direct(p), None, None) => backend.mandelbrot(&direct_strip(p, y0, n), out),
            (Picture::Deep(j), None, None) if n == height => backend.mandelbrot_deep(j, out),
            (Picture::Deep(j), None, None) => backend.mandelbrot_deep(&deep_strip(j, y0, n), out),
            (Picture::Direct(p), Some(sm), None) if n == height => backend.mandelbrot_smooth(p, out, sm),
            (Picture::Direct(p), Some(sm), None) => backend.mandelbrot_smooth(&direct_strip(p, y0, n), out, sm),
            (Picture::Deep(j), Some(sm), None) if n == height => backend.mandelbrot_deep_smooth(j, out, sm),
            (Picture::Deep(j), Some(sm), None) => backend.mandelbrot_deep_smooth(&deep_strip(j, y0, n), out, sm),
        };
        match r {
            Ok(run) => {
                total.total_iters += run.total_iters;
                // Executed iterations are summed once any strip reports them (the others count as
                // their rule's).
                total.executed_iters = match (total.executed_iters, run.executed_iters) {
                    (None, None) => None,
                    (a, b) => Some(a.unwrap_or(total.total_iters - run.total_iters) + b.unwrap_or(run.total_iters)),
                };
                total.timing.wall += run.timing.wall;
                total.timing.source = run.timing.source;
                device = device.zip(run.timing.device).map(|(a, b)| a + b);
                y0 += n;
                tiles += 1;
                if !progress(y0, height) {
                    return Ok(Tiled { run: None, tiles });
                }
            }
            Err(BackendError::OutOfMemory { .. }) if n > 1 => rows = n / 2,
            Err(e) => return Err(e),
        }
    }
    total.timing.device = device;
    Ok(Tiled { run: Some(total), tiles })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::{CpuBackend, Threads};
    use crate::backend::{BackendKind, DeviceInfo, WaveSim, WaveVariant, check_fits};
    use crate::sim::fractal::deep::View;
    use crate::sim::fractal::mandelbrot::Precision;
    use crate::sim::wave::WaveParams;

    /// The CPU with room for the counts of at most `max_pixels` pixels.
    struct Small {
        cpu: CpuBackend,
        max_pixels: usize,
        calls: usize,
    }

    impl Backend for Small {
        fn kind(&self) -> BackendKind {
            BackendKind::Cpu
        }
        fn device_info(&self) -> DeviceInfo {
            DeviceInfo::default()
        }
        fn new_wave_variant(&self, p: &WaveParams, v: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
            self.cpu.new_wave_variant(p, v)
        }
        fn mandelbrot(&mut self, p: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
            self.calls += 1;
            check_fits(BackendKind::Cpu, "counts", 4 * p.pixels() as u64, Some(4 * self.max_pixels as u64))?;
            self.cpu.mandelbrot(p, counts)
        }
    }

    #[test]
    fn a_picture_too_big_for_the_device_is_cut_until_it_fits() {
        let p = MandelbrotParams { width: 50, height: 40, iters: 50, bounds: Bounds::SEED, precision: Precision::F64 };
        let mut small = Small { cpu: CpuBackend::new(Threads::One), max_pixels: 50 * 7, calls: 0 };
        let mut counts = vec![0; 2000];
        let t = render_tiled(&mut small, Picture::Direct(&p), DEFAULT_TILE_PIXELS, &mut counts, None, &mut |_, _| true)
            .unwrap();
        // 40 rows refused, then 20, 10; strips of 5 fit: 8 of them.
        assert_eq!(t.tiles, 8);
        assert_eq!(small.calls, 3 + 8);
        let mut whole = vec![0; 2000];
        CpuBackend::new(Threads::One).mandelbrot(&p, &mut whole).unwrap();
        let bad = crate::sim::fractal::mandelbrot::mismatch_frac(&counts, &whole);
        assert!(bad <= 5e-3, "{:.4}% of the pixels differ (budget 0.5%)", bad * 100.0);
        small.max_pixels = 10;
        let e = render_tiled(&mut small, Picture::Direct(&p), DEFAULT_TILE_PIXELS, &mut counts, None, &mut |_, _| true);
        assert!(matches!(e, Err(BackendError::OutOfMemory { .. })), "one row that does not fit: {e:?}");
    }

    #[test]
    fn strips_give_the_one_piece_picture() {
        let mut cpu = CpuBackend::new(Threads::One);
        let p = MandelbrotParams { width: 64, height: 48, iters: 200, bounds: Bounds::SEED, precision: Precision::F64 };
        let mut whole = vec![0; 64 * 48];
        cpu.mandelbrot(&p, &mut whole).unwrap();
        let mut tiled = vec![0; 64 * 48];
        let mut calls = 0;
        let t = render_tiled(&mut cpu, Picture::Direct(&p), 64 * 5, &mut tiled, None, &mut |_, _| {
            calls += 1;
            true
        })
        .unwrap();
        assert_eq!((t.tiles, calls), (10, 10), "48 rows in strips of 5");
        // The strips' bounds round differently from the whole picture's: a pixel's c moves by
        // an ulp, which changes the count of a few pixels on the boundary (measured: 8 of 3072).
        let bad = crate::sim::fractal::mandelbrot::mismatch_frac(&tiled, &whole);
        assert!(bad <= 5e-3, "{:.4}% of the pixels differ (budget 0.5%)", bad * 100.0);

        let view = View::parse("-0.743643887037151,0.131825904205330", "1e15").unwrap();
        let job = DeepJob::prepare(&view, 64, 48, 1000).unwrap();
        let mut whole = vec![0; 64 * 48];
        cpu.mandelbrot_deep(&job, &mut whole).unwrap();
        let mut tiled = vec![0; 64 * 48];
        let t = render_tiled(&mut cpu, Picture::Deep(&job), 64 * 7, &mut tiled, None, &mut |_, _| true).unwrap();
        assert_eq!(t.tiles, 7);
        let bad = crate::sim::fractal::mandelbrot::mismatch_frac(&tiled, &whole);
        assert!(bad <= 1e-3, "deep: {:.4}% of the pixels differ", bad * 100.0);
        // Stopping after the first strip.
        let t = render_tiled(&mut cpu, Picture::Deep(&job), 64 * 7, &mut tiled, None, &mut |_, _| false).unwrap();
        assert!(t.run.is_none() && t.tiles == 1);
    }
}
