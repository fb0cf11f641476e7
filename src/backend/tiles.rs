//! Big Mandelbrot pictures in tiles: horizontal strips of the image rendered one after the
//! other on any backend, so a picture larger than the device holds at once (an 8K or 16K
//! export, a GPU with little memory) still renders. A strip the device refuses for memory
//! ([`BackendError::OutOfMemory`]) is tried again at half the rows.
//!
//! A strip of rows `y0..y0+n` is the same view cut down: for the direct rule its bounds are
//! `miny + y0*py .. miny + (y0+n)*py` (the seed's pixel rule inside the strip, so a pixel's `c`
//! can differ from the one-piece picture's by the rounding of those bounds, an ulp of `f64`);
//! for perturbation it is the same reference orbit with the grid's first row moved to `y0`.
//!
//! Strips may be paced ([`Strips::paced`]): each one cut from the time the one before took, so
//! that a caller that stops between strips (an export's Cancel, a newer view) is answered within
//! about that time whatever the picture holds and however busy the machine is.

use web_time::{Duration, Instant};

use super::{Backend, BackendError, MandelbrotRun, Timing};
use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::mandelbrot::{Bounds, MandelbrotParams};

/// Largest tile tried first when none is asked for: 2^28 pixels (a 16384 x 16384 picture),
/// 1 GiB of counts, within every backend's limits on a large device.
pub const DEFAULT_TILE_PIXELS: usize = 1 << 28;

/// How a picture is cut into strips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strips {
    /// The first strip's pixels (whole rows, at least one), and unless paced every strip's most.
    pub max_pixels: usize,
    /// When set, each strip after the first is cut to take about this long: the rows the strip
    /// before would have done in it (wall time, so a busy machine makes strips smaller), at most
    /// twice its rows, and no more than would take this long if every pixel ran all the
    /// iterations at the fastest rate measured so far (so the strip that reaches into the set's
    /// costly interior is not many times longer than those of the light rows below it).
    pub pace: Option<Duration>,
}

impl Strips {
    /// Strips of `max_pixels` each, the last one smaller.
    #[must_use]
    pub const fn pixels(max_pixels: usize) -> Self {
        Self { max_pixels, pace: None }
    }

    /// A first strip of `first_pixels`, then strips of about `target` each.
    #[must_use]
    pub const fn paced(first_pixels: usize, target: Duration) -> Self {
        Self { max_pixels: first_pixels, pace: Some(target) }
    }

    /// The strips `render mandelbrot` draws a `width`-pixel-wide picture in on `kind` (the browser
    /// build's `renderMandelbrot` too, so its counts are the command line's): on the CPU, where a
    /// picture can take minutes, a first strip of 8 rows, then strips of about half a second each
    /// (a progress bar between them); on a GPU one piece as large as the device holds.
    #[must_use]
    pub fn for_picture(kind: super::BackendKind, width: usize) -> Self {
        if matches!(kind, super::BackendKind::Cpu | super::BackendKind::Cpu1) {
            Self::paced(width.max(1) * 8, Duration::from_millis(500))
        } else {
            Self::pixels(DEFAULT_TILE_PIXELS)
        }
    }

    /// The rows of the strip after one of `rows` rows that took `took`, at most `max_rows`, where
    /// a row may cost `row_iters` iterations and the fastest strip so far ran `fastest` a second.
    #[must_use]
    pub fn next_rows(&self, rows: usize, took: Duration, row_iters: f64, fastest: f64, max_rows: usize) -> usize {
        let Some(target) = self.pace else { return rows.min(max_rows).max(1) };
        let target = target.as_secs_f64();
        let paced = (target * rows as f64 / took.as_secs_f64().max(1e-6)).floor() as usize;
        let worst =
            if fastest > 0.0 && row_iters > 0.0 { (target * fastest / row_iters).floor() as usize } else { usize::MAX };
        paced.min(rows.saturating_mul(2)).min(worst).min(max_rows).max(1)
    }
}

impl From<usize> for Strips {
    fn from(max_pixels: usize) -> Self {
        Self::pixels(max_pixels)
    }
}

/// A whole picture to render.
#[derive(Clone, Copy, Debug)]
pub enum Picture<'a> {
    /// The seed's rule in `f32` or `f64`.
    Direct(&'a MandelbrotParams),
    /// Perturbation around a reference orbit.
    Deep(&'a DeepJob),
}

impl Picture<'_> {
    /// The most iterations of a pixel.
    #[must_use]
    pub fn iters(&self) -> u32 {
        match self {
            Self::Direct(p) => p.iters,
            Self::Deep(j) => j.iters,
        }
    }

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
/// values into `smooth` when given ([`Backend::mandelbrot_smooth`]), in `strips` (a number of
/// pixels: strips of at most that many, whole rows, at least one), halving a strip the device
/// refuses for memory (and every strip after it). `progress(rows_done, rows)` is called after
/// each strip; it returns false to stop.
///
/// # Errors
/// A strip of one row refused, or any other failure of the backend.
pub fn render_tiled(
    backend: &mut dyn Backend,
    picture: Picture<'_>,
    strips: impl Into<Strips>,
    counts: &mut [i32],
    smooth: Option<&mut [f32]>,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Tiled, BackendError> {
    render_tiled_de(backend, picture, strips, counts, smooth, None, progress)
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
    strips: impl Into<Strips>,
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
    let mut pace = Pace::new(strips.into(), width, height, picture.iters());
    let mut total =
        MandelbrotRun { total_iters: 0, executed_iters: None, timing: Timing::wall(std::time::Duration::ZERO) };
    let mut device = Some(std::time::Duration::ZERO);
    let mut y0 = 0;
    let mut tiles = 0;
    while y0 < height {
        let n = pace.rows.min(height - y0);
        let span = y0 * width..(y0 + n) * width;
        let out = &mut counts[span.clone()];
        let sm = smooth.as_deref_mut().map(|s| &mut s[span.clone()]);
        let dd = de.as_deref_mut().map(|d| &mut d[span.start * DE_VALUES..span.end * DE_VALUES]);
        let began = Instant::now();
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
                pace.done(n, began.elapsed(), run.total_iters);
                if !progress(y0, height) {
                    return Ok(Tiled { run: None, tiles });
                }
            }
            Err(BackendError::OutOfMemory { .. }) if n > 1 => pace.refused(n),
            Err(e) => return Err(e),
        }
    }
    total.timing.device = device;
    Ok(Tiled { run: Some(total), tiles })
}

/// The rows of the next strip, from the strips asked for and the strips done so far.
struct Pace {
    strips: Strips,
    /// The next strip's rows.
    rows: usize,
    /// The most rows a strip may have: the first strip's unless paced; fewer once the device
    /// refused a strip for memory.
    max_rows: usize,
    /// A row's most iterations.
    row_iters: f64,
    /// The most iterations a second a strip ran.
    fastest: f64,
}

impl Pace {
    fn new(strips: Strips, width: usize, height: usize, iters: u32) -> Self {
        let rows = (strips.max_pixels / width.max(1)).clamp(1, height.max(1));
        let max_rows = if strips.pace.is_some() { height.max(1) } else { rows };
        Self { strips, rows, max_rows, row_iters: width as f64 * f64::from(iters), fastest: 0.0 }
    }

    /// A strip of `n` rows took `took` and ran `iters` iterations.
    fn done(&mut self, n: usize, took: Duration, iters: u64) {
        self.fastest = self.fastest.max(iters as f64 / took.as_secs_f64().max(1e-6));
        self.rows = self.strips.next_rows(n, took, self.row_iters, self.fastest, self.max_rows);
    }

    /// The device refused a strip of `n` rows for memory: this one and every one after it get half.
    fn refused(&mut self, n: usize) {
        self.max_rows = n / 2;
        self.rows = self.max_rows;
    }
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

    /// A picture whose upper half is the set's interior: 10 pixels a row, 500 iterations, one
    /// iteration a pixel below row `heavy_from` and all of them from it.
    struct Costly {
        heavy_from: usize,
        y0: usize,
        strips: Vec<usize>,
    }

    impl Costly {
        /// The iterations of the next `rows` rows.
        fn iters(&self, rows: usize) -> usize {
            let heavy = (self.y0 + rows).saturating_sub(self.heavy_from.max(self.y0));
            (rows - heavy) * 10 + heavy * 10 * 500
        }
    }

    impl Backend for Costly {
        fn kind(&self) -> BackendKind {
            BackendKind::Cpu
        }
        fn device_info(&self) -> DeviceInfo {
            DeviceInfo::default()
        }
        fn new_wave_variant(&self, p: &WaveParams, v: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
            CpuBackend::new(Threads::One).new_wave_variant(p, v)
        }
        fn mandelbrot(&mut self, p: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
            let iters = self.iters(p.height);
            counts.fill(0);
            self.y0 += p.height;
            self.strips.push(p.height);
            Ok(MandelbrotRun { total_iters: iters as u64, executed_iters: None, timing: Timing::wall(Duration::ZERO) })
        }
    }

    #[test]
    fn paced_strips_stay_near_their_time_where_the_picture_turns_costly() {
        // At 1 µs an iteration and 1 ms a strip, a light row takes 10 µs, a heavy one 5 ms. A
        // first strip of 100 light rows (2 ms) would let plain pacing double the rows into the
        // interior (a strip of 200 rows, half of them heavy: 0.5 s); the bound on a row's most
        // iterations at the fastest rate seen keeps every strip near the 50 ms asked. The times
        // are the model's, not slept (a loaded machine's oversleeping is not the pacing's).
        let target = Duration::from_millis(50);
        let mut picture = Costly { heavy_from: 200, y0: 0, strips: Vec::new() };
        let mut pace = Pace::new(Strips::paced(10 * 100, target), 10, 400, 500);
        let mut took = Vec::new();
        while picture.y0 < 400 {
            let n = pace.rows.min(400 - picture.y0);
            let iters = picture.iters(n);
            let t = Duration::from_millis(1) + Duration::from_micros(iters as u64);
            picture.y0 += n;
            took.push((n, t));
            pace.done(n, t, iters as u64);
        }
        // A strip up to 1.5 times the time asked is the pacing's own (its light rows, then
        // heavy ones); measured: at most 46 ms.
        let longest = took.iter().map(|s| s.1).max().unwrap();
        assert!(longest <= target * 3 / 2, "a strip took {longest:?} ({target:?} asked): {took:?}");
        // Not one-row strips: a heavy strip is about the time asked (10 rows at 5 ms each; 9
        // measured). The last strip is what is left.
        let heavy_rows = took[took.len() - 2].0;
        assert!(heavy_rows >= 9, "the last strip has {heavy_rows} rows: {took:?}");

        // The tiled render asks the backend for every row once, in paced strips or, unpaced, in
        // the strips asked.
        picture.y0 = 0;
        let p =
            MandelbrotParams { width: 10, height: 400, iters: 500, bounds: Bounds::SEED, precision: Precision::F64 };
        let mut counts = vec![0; 4000];
        let t = render_tiled(
            &mut picture,
            Picture::Direct(&p),
            Strips::paced(10 * 100, target),
            &mut counts,
            None,
            &mut |_, _| true,
        )
        .unwrap();
        assert!(t.run.is_some());
        assert_eq!(picture.strips.iter().sum::<usize>(), 400, "every row once: {:?}", picture.strips);
        picture.y0 = 0;
        let t = render_tiled(&mut picture, Picture::Direct(&p), 10 * 100, &mut counts, None, &mut |_, _| true).unwrap();
        assert_eq!(t.tiles, 4);
    }

    #[test]
    fn the_pace_shrinks_a_slow_strip_grows_a_quick_one_at_most_twofold_and_never_past_the_worst_case() {
        let pace = Strips::paced(1000, Duration::from_millis(100));
        let ms = Duration::from_millis;
        // 10 rows in 400 ms: 2 rows make 100 ms.
        assert_eq!(pace.next_rows(10, ms(400), 0.0, 0.0, 1000), 2);
        // 10 rows in 10 ms: 100 would make 100 ms, but at most 20.
        assert_eq!(pace.next_rows(10, ms(10), 0.0, 0.0, 1000), 20);
        // A row may cost 1e6 iterations at 2e7 a second: 50 ms, so 2 rows.
        assert_eq!(pace.next_rows(10, ms(10), 1e6, 2e7, 1000), 2);
        // Never fewer than one row, nor more than the device holds.
        assert_eq!(pace.next_rows(10, ms(10_000), 1e6, 2e7, 1000), 1);
        assert_eq!(pace.next_rows(10, ms(1), 0.0, 0.0, 15), 15);
        // Unpaced: the rows asked.
        assert_eq!(Strips::pixels(1000).next_rows(10, ms(400), 1e6, 2e7, 1000), 10);
    }
}
