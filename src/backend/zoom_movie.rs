//! A zoom movie computed on backends: the keyframes of [`crate::sim::fractal::zoom_movie`]
//! rendered over every device given ([`super::spread`]: one backend per device, the view's
//! reference orbit shared by all), each video frame resampled from its two keyframes and
//! coloured as one picture, and the frames handed in order to the caller (an encoder, a PNG
//! sequence: `crate::video`). Shared by `render mandelbrot --video` and the app's Record.

use web_time::{Duration, Instant};

use super::tiles::{DEFAULT_TILE_PIXELS, Picture, render_tiled_de};
use super::{Backend, BackendError};
use crate::sim::ParamsError;
use crate::sim::colour::palette::{ColourSettings, colour_rgba_de};
use crate::sim::fractal::deep::{Arith, DeepJob, View, ViewError};
use crate::sim::fractal::distance::DE_VALUES;
use crate::sim::fractal::mandelbrot::{MandelbrotParams, Precision};
use crate::sim::fractal::reference::ReferenceChoice;
use crate::sim::fractal::zoom_movie::{
    FrameBuffers, FramePair, Keyframe, Schedule, keyframe_iters, resample_fast, shallower_job,
};

/// Why a movie stopped.
#[derive(Debug, thiserror::Error)]
pub enum MovieError {
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error(transparent)]
    View(#[from] ViewError),
    /// The frames could not be written (the encoder or the file system failed).
    #[error("{0:#}")]
    Output(anyhow::Error),
    #[error("starting a device thread: {0}")]
    Thread(#[from] std::io::Error),
    /// The caller's progress asked to stop (Ctrl-C in the app, its Cancel).
    #[error("cancelled")]
    Cancelled,
}

/// Why a movie's final view cannot be prepared (the request's fault, not a device's).
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    View(#[from] ViewError),
    #[error(transparent)]
    Params(#[from] ParamsError),
}

/// What a movie is: its size, frames, colours, and the view it ends on, prepared as
/// `render --png` prepares it (so the last frame is that picture).
#[derive(Clone, Debug)]
pub struct MoviePlan {
    pub width: usize,
    pub height: usize,
    pub schedule: Schedule,
    pub settings: ColourSettings,
    /// The view's centre (every keyframe's) and iterations.
    pub view: View,
    pub iters: u32,
    /// The view itself: the seed's rule in `f32`/`f64`, or its perturbation job (whose orbit
    /// every perturbation keyframe shares).
    pub last: LastView,
}

/// The final view as prepared for its picture.
#[derive(Clone, Debug)]
pub enum LastView {
    Direct(MandelbrotParams),
    Deep(Box<DeepJob>),
}

/// One keyframe's picture to render.
#[derive(Clone, Debug)]
pub enum KeyframeJob {
    Direct(MandelbrotParams),
    Deep(Box<DeepJob>),
}

impl MoviePlan {
    /// The movie of `frames` frames from the whole set to `view` at `width x height`, its last
    /// frame prepared as `render --png` prepares the view: in `arith` (`None`: `f64` where it
    /// resolves the pixels, else perturbation about the `reference` chosen).
    ///
    /// # Errors
    /// The arithmetic cannot show the view, or its bounds or reference orbit cannot be made.
    #[expect(clippy::too_many_arguments, reason = "the movie's size, length, view and colours")]
    pub fn prepare(
        view: &View,
        width: usize,
        height: usize,
        frames: u32,
        iters: u32,
        arith: Option<Arith>,
        settings: ColourSettings,
        reference: ReferenceChoice,
    ) -> Result<Self, PlanError> {
        let (w, h) = (width, height);
        let arith = arith.unwrap_or_else(|| view.auto_arith(w, h, iters));
        view.check_arith(arith, w, h, iters)?;
        let last = match arith.direct() {
            Some(precision) => {
                let bounds = view.bounds_f64(w, h)?;
                let p = MandelbrotParams { width: w, height: h, iters, bounds, precision };
                p.validate()?;
                LastView::Direct(p)
            }
            None => LastView::Deep(Box::new(DeepJob::prepare_with(
                view,
                w,
                h,
                iters,
                reference,
                Some(super::monotonic_millis),
            )?)),
        };
        Ok(Self {
            width: w,
            height: h,
            schedule: Schedule::new(view.zoom_log10(), frames),
            settings,
            view: view.clone(),
            iters,
            last,
        })
    }

    /// Keyframe `k`'s picture: the view itself for `k = 0`; else the view at zoom `Z / 2^k` by the
    /// seed's rule in `f64` where that resolves its pixels, by perturbation on the shared orbit
    /// beyond.
    ///
    /// # Errors
    /// A view `f64` cannot hold (a zoom below `f64`'s range with no perturbation job).
    pub fn keyframe_job(&self, k: u32) -> Result<KeyframeJob, MovieError> {
        let iters = keyframe_iters(&self.schedule, k, self.iters);
        if k == 0 {
            return Ok(match &self.last {
                LastView::Direct(p) => KeyframeJob::Direct(*p),
                LastView::Deep(j) => KeyframeJob::Deep(j.clone()),
            });
        }
        let zoom = zoom_text(self.schedule.keyframe_zoom_log10(k));
        let view = View { zoom, ..self.view.clone() };
        let (w, h) = (self.width, self.height);
        if let LastView::Deep(job) = &self.last
            && !view.direct_resolves(Precision::F64, w, h, iters)
        {
            return Ok(KeyframeJob::Deep(Box::new(shallower_job(job, k, iters))));
        }
        let bounds = view.bounds_f64(w, h)?;
        Ok(KeyframeJob::Direct(MandelbrotParams { width: w, height: h, iters, bounds, precision: Precision::F64 }))
    }

    /// Renders keyframe `k` on `backend`.
    ///
    /// # Errors
    /// The backend failed.
    pub fn render_keyframe(&self, backend: &mut dyn Backend, k: u32) -> Result<Keyframe, MovieError> {
        let job = self.keyframe_job(k)?;
        let pixels = self.width * self.height;
        let mut counts = vec![0i32; pixels];
        // Distance colouring and lighting need the distance estimates, and with them the
        // smooth values (as `render --png` computes them).
        let want_de = self.settings.needs_distance();
        let mut smooth = (self.settings.smooth || want_de).then(|| vec![0.0f32; pixels]);
        let mut de = want_de.then(|| vec![0.0f32; pixels * DE_VALUES]);
        let (picture, iters) = match &job {
            KeyframeJob::Direct(p) => (Picture::Direct(p), p.iters),
            KeyframeJob::Deep(j) => (Picture::Deep(j), j.iters),
        };
        let (sm, dd) = (smooth.as_deref_mut(), de.as_deref_mut());
        render_tiled_de(backend, picture, DEFAULT_TILE_PIXELS, &mut counts, sm, dd, &mut |_, _| true)?;
        Ok(Keyframe { iters, counts, smooth, de })
    }
}

/// A zoom of `10^log10` as decimal text `View` parses: `m.mmmmmmmmmmmmmmeN`.
#[must_use]
pub fn zoom_text(log10: f64) -> String {
    let e = log10.floor();
    format!("{:.15}e{}", 10f64.powf(log10 - e), e as i64)
}

/// Makes a movie's frames, a batch at once: each frame resampled from its two keyframes and
/// coloured as one picture, as many frames in parallel as rayon has threads (each frame's rows
/// on rayon's threads too), in buffers kept from batch to batch (no 8 MB allocation and its
/// page faults per frame).
pub struct FrameMaker<'p> {
    plan: &'p MoviePlan,
    /// One set of resampled buffers per frame made at once.
    scratch: Vec<Scratch>,
}

/// The resampled values of one frame.
struct Scratch {
    counts: Vec<i32>,
    smooth: Option<Vec<f32>>,
    de: Option<Vec<f32>>,
}

impl<'p> FrameMaker<'p> {
    #[must_use]
    pub fn new(plan: &'p MoviePlan) -> Self {
        Self { plan, scratch: Vec::new() }
    }

    /// The frames of `pairs` (all from keyframes `deep` and `shallow`) into `out`, one RGBA
    /// picture each (imaginary axis up), reusing `out`'s buffers.
    pub fn frames(&mut self, pairs: &[FramePair], deep: &Keyframe, shallow: Option<&Keyframe>, out: &mut Vec<Vec<u8>>) {
        use rayon::prelude::*;
        let plan = self.plan;
        let (w, h) = (plan.width, plan.height);
        let want_de = plan.settings.needs_distance();
        // As many frames at once as rayon has threads (each frame's rows in parallel too):
        // enough to keep every core busy, and no more buffers than that (a distance movie's
        // are 40 MB a 1080p frame).
        let at_once = pairs.len().min(rayon::current_num_threads()).max(1);
        while self.scratch.len() < at_once {
            self.scratch.push(Scratch {
                counts: vec![0i32; w * h],
                smooth: (plan.settings.smooth || want_de).then(|| vec![0.0f32; w * h]),
                de: want_de.then(|| vec![0.0f32; w * h * DE_VALUES]),
            });
        }
        out.resize_with(pairs.len(), Vec::new);
        out.iter_mut().for_each(|f| f.resize(w * h * 4, 0));
        for (pairs, out) in pairs.chunks(at_once).zip(out.chunks_mut(at_once)) {
            pairs.par_iter().zip(&mut self.scratch).zip(out.par_iter_mut()).for_each(|((&pair, s), rgba)| {
                let buffers =
                    FrameBuffers { counts: &mut s.counts, smooth: s.smooth.as_deref_mut(), de: s.de.as_deref_mut() };
                resample_fast(pair, deep, shallow, (w, h), buffers);
                let (sm, dd) = (s.smooth.as_deref(), s.de.as_deref());
                colour_rgba_de(&s.counts, sm, dd, w, h, deep.iters, &plan.settings, rgba);
            });
        }
    }
}

/// Hands the pending batch (`ready`'s first frames) to `frames`, then reports progress; `done`
/// becomes the frames handed on, `output` gains the time `frames` took.
fn flush(
    pending: &mut Option<(u32, usize)>,
    ready: &[Vec<u8>],
    output: &mut Duration,
    done: &mut u32,
    keys: u32,
    frames: &mut FrameSink<'_>,
    progress: &mut dyn FnMut(u32, u32) -> bool,
) -> Result<(), MovieError> {
    if let Some((first, n)) = pending.take() {
        let t = Instant::now();
        frames(first, &ready[..n])?;
        *output += t.elapsed();
        *done = first + n as u32;
        if !progress(*done, keys) {
            return Err(MovieError::Cancelled);
        }
    }
    Ok(())
}

/// Where a movie's time went.
#[derive(Clone, Debug, Default)]
pub struct MovieTimes {
    /// Keyframes rendered, summed over the devices (they run at once).
    pub keyframes: Duration,
    /// This thread waiting for the next keyframe (the devices behind).
    pub waiting: Duration,
    /// Resampling and colouring the frames (a batch is made while the one before is handed
    /// on, so this overlaps `output`).
    pub resampling: Duration,
    /// Handing the frames on (encoding, writing).
    pub output: Duration,
    pub total: Duration,
    /// Keyframes per device.
    pub per_device: Vec<usize>,
    pub keyframe_count: u32,
}

/// Where frames go: `(first, batch)`, the batch's frames (RGBA, imaginary axis up) in order.
pub type FrameSink<'a> = dyn FnMut(u32, &[Vec<u8>]) -> Result<(), MovieError> + 'a;

/// Frames made at once and handed on together (so a PNG writer can encode them in parallel).
const BATCH: usize = 16;

/// Makes the movie of `plan` on `devices`: `frames(first, batch)` receives the frames (RGBA,
/// imaginary axis up) in order, `first` the index of the batch's first; `progress(frames_done,
/// keyframes_done)` is called after each batch and returns false to stop.
///
/// # Errors
/// A device or `frames` failed, or `progress` asked to stop ([`MovieError::Cancelled`]).
pub fn make_movie(
    plan: &MoviePlan,
    devices: Vec<Box<dyn Backend>>,
    frames: &mut FrameSink<'_>,
    progress: &mut dyn FnMut(u32, u32) -> bool,
) -> Result<MovieTimes, MovieError> {
    let start = Instant::now();
    let s = plan.schedule;
    let last = s.last_keyframe();
    let window = 2 + 2 * devices.len();
    let render_time = std::sync::Mutex::new(Duration::ZERO);
    // Job i is keyframe K - i: the shallowest first, as the frames need them.
    let render = |b: &mut Box<dyn Backend>, i: usize| -> Result<Keyframe, MovieError> {
        let t = Instant::now();
        let k = plan.render_keyframe(b.as_mut(), last - i as u32);
        *render_time.lock().unwrap_or_else(std::sync::PoisonError::into_inner) += t.elapsed();
        k
    };
    let mut times = MovieTimes { keyframe_count: last + 1, ..MovieTimes::default() };
    let mut shallower: Option<Keyframe> = None;
    let mut maker = FrameMaker::new(plan);
    // The frames are made on a rayon pool of their own: on the global one, a device thread's
    // own parallel work (a keyframe's BLA table, the CPU backend's rows) would queue behind a
    // whole batch of frame rows, and the keyframes are what the frames wait for.
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(cores).thread_name(|i| format!("wavebrot-frames-{i}")).build().ok();
    // Frames made and waiting for `frames` (`pending`: the first's index and how many), and
    // the buffers the next batch is made in: a batch is made while the one before is written.
    let (mut ready, mut spare): (Vec<Vec<u8>>, Vec<Vec<u8>>) = (Vec::new(), Vec::new());
    let mut pending: Option<(u32, usize)> = None;
    let mut waited_since = Instant::now();
    let mut done = 0;
    let mut keys_done = 0;
    let spread = super::spread::spread(devices, last as usize + 1, window, &render, &mut |i, deep, _| {
        times.waiting += waited_since.elapsed();
        let k = last - i as u32;
        let range = s.frames_of(k);
        let mut j = range.start;
        while j < range.end {
            let end = range.end.min(j + BATCH as u32);
            let pairs: Vec<FramePair> = (j..end).map(|f| s.pair(f)).collect();
            let (made, written) = std::thread::scope(|scope| {
                let make = scope.spawn(|| {
                    let t = Instant::now();
                    let mut make = || maker.frames(&pairs, &deep, shallower.as_ref(), &mut spare);
                    match &pool {
                        Some(p) => p.install(make),
                        None => make(),
                    }
                    t.elapsed()
                });
                let written = flush(&mut pending, &ready, &mut times.output, &mut done, keys_done, frames, progress);
                (make.join().unwrap_or_else(|e| std::panic::resume_unwind(e)), written)
            });
            times.resampling += made;
            written?;
            std::mem::swap(&mut ready, &mut spare);
            pending = Some((j, pairs.len()));
            j = end;
        }
        keys_done = i as u32 + 1;
        if range.is_empty() && !progress(done, keys_done) {
            return Err(MovieError::Cancelled);
        }
        shallower = Some(deep);
        waited_since = Instant::now();
        Ok(())
    })?;
    flush(&mut pending, &ready, &mut times.output, &mut done, keys_done, frames, progress)?;
    times.keyframes = *render_time.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    times.per_device = spread.per_device;
    times.total = start.elapsed();
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{BackendKind, open};
    use crate::sim::colour::palette::{ColourBy, Light, Palette, Scale};

    /// The first byte where two batches of frames differ, as `(frame, byte)`.
    fn first_difference(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<(usize, usize)> {
        if a.len() != b.len() {
            return Some((a.len().min(b.len()), 0));
        }
        a.iter().zip(b).enumerate().find_map(|(f, (x, y))| {
            if x.len() != y.len() {
                return Some((f, x.len().min(y.len())));
            }
            x.iter().zip(y).position(|(p, q)| p != q).map(|i| (f, i))
        })
    }

    #[test]
    fn the_movies_frames_are_the_reference_resampling_and_colouring_bit_for_bit() {
        // Seahorse valley at 2^6, 72x46 (the set's edge, escaped and inside pixels): frames
        // between keyframes 1 and 2 (blended, scales 1..2) and on keyframe 2 alone (scale 1,
        // no shallower one), made by `FrameMaker` and by issue 25's first path, `resample`
        // then `colour_rgba_de`, one frame at a time.
        let view = View::parse("-0.743643887037151,0.131825904205330", "64").unwrap_or_else(|e| panic!("{e}"));
        let (w, h) = (72, 46);
        let light = Some(Light { azimuth: 135.0, elevation: 45.0 });
        let smooth = ColourSettings { smooth: true, ..ColourSettings::DEFAULT };
        let lit = ColourSettings { by: ColourBy::Distance, light, ..smooth };
        let histogram =
            ColourSettings { palette: Palette::Twilight, scale: Scale::Histogram, cycles: 3.0, light, ..smooth };
        let mut cpu = open(BackendKind::Cpu).unwrap_or_else(|e| panic!("{e}"));
        for settings in [smooth, lit, histogram] {
            let plan = MoviePlan::prepare(&view, w, h, 40, 300, None, settings, ReferenceChoice::Centre)
                .unwrap_or_else(|e| panic!("{e}"));
            let mut key = |k| plan.render_keyframe(cpu.as_mut(), k).unwrap_or_else(|e| panic!("{e}"));
            let (deep, shallow) = (key(1), key(2));
            let scales = [1.0, 1.05, 1.5, 1.93];
            let pairs: Vec<FramePair> = scales.iter().map(|&scale| FramePair { deep: 1, scale }).collect();
            let mut made = Vec::new();
            let mut maker = FrameMaker::new(&plan);
            maker.frames(&pairs, &deep, Some(&shallow), &mut made);
            let reference = |pair: FramePair, deep: &Keyframe, shallow: Option<&Keyframe>| {
                let mut counts = vec![0; w * h];
                let mut sm = Some(vec![0.0f32; w * h]);
                let mut de = settings.needs_distance().then(|| vec![0.0f32; w * h * DE_VALUES]);
                let out = FrameBuffers { counts: &mut counts, smooth: sm.as_deref_mut(), de: de.as_deref_mut() };
                crate::sim::fractal::zoom_movie::resample(pair, deep, shallow, (w, h), out);
                let mut rgba = vec![0u8; w * h * 4];
                colour_rgba_de(&counts, sm.as_deref(), de.as_deref(), w, h, deep.iters, &settings, &mut rgba);
                rgba
            };
            let want: Vec<Vec<u8>> = pairs.iter().map(|&p| reference(p, &deep, Some(&shallow))).collect();
            assert_eq!(first_difference(&want, &made), None, "{settings:?}");
            // The buffers are kept for the next batch: a shorter one, on one keyframe alone.
            let alone = [FramePair { deep: 2, scale: 1.0 }];
            maker.frames(&alone, &shallow, None, &mut made);
            assert_eq!(first_difference(&[reference(alone[0], &shallow, None)], &made), None, "{settings:?}");
            // The frames differ from each other (the comparison is not of blank pictures), and
            // one byte off is caught.
            assert!(want.windows(2).all(|p| p[0] != p[1]));
            let mut off = want.clone();
            off[2][4 * 333 + 1] ^= 1;
            assert_eq!(first_difference(&want, &off), Some((2, 4 * 333 + 1)));
        }
    }
}
