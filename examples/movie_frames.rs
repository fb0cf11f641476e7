//! Times a zoom movie's per-frame CPU work alone: resampling a frame from its two keyframes and
//! colouring it (what `render mandelbrot --video` does for each of its frames while the devices
//! render keyframes), on two real keyframes of seahorse valley rendered once by the CPU backend.
//! Two paths: `reference`, the per-frame `resample` + `colour_rgba_de` of issue 25's first
//! movies, and `movie`, the path `make_movie` takes (`FrameMaker`: a batch of frames at once);
//! the bytes of each frame are checked equal between the two. Printed: ns a pixel of wall time
//! (and of core time: wall x threads) on each thread count, the minimum of `--repeats` runs.
//!
//! ```text
//! cargo run --release --example movie_frames -- [--width 1920] [--height 1080] [--frames 32]
//!     [--threads 1,0] [--repeats 3] [--distance] [--light 135,45] [--no-smooth]
//! ```
//!
//! `--threads 0` is every core. docs/PERFORMANCE.md ("Zoom movies") has the runs.

#![allow(clippy::unwrap_used, reason = "a measuring tool: a failure is its message")]

use web_time::Instant;

use wavebrot::backend::zoom_movie::{FrameMaker, MoviePlan};
use wavebrot::backend::{BackendKind, open};
use wavebrot::sim::colour::palette::{ColourBy, ColourSettings, Light, colour_rgba_de};
use wavebrot::sim::fractal::deep::{ReferenceChoice, View};
use wavebrot::sim::fractal::distance::DE_VALUES;
use wavebrot::sim::fractal::zoom_movie::{FrameBuffers, FramePair, Keyframe, resample, resample_fast};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str, default: &str| {
        args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map_or(default.to_owned(), Clone::clone)
    };
    let width: usize = value("--width", "1920").parse().unwrap();
    let height: usize = value("--height", "1080").parse().unwrap();
    let frames: u32 = value("--frames", "32").parse().unwrap();
    let repeats: usize = value("--repeats", "3").parse().unwrap();
    let threads: Vec<usize> = value("--threads", "1,0").split(',').map(|t| t.parse().unwrap()).collect();
    let mut settings = ColourSettings { smooth: !args.iter().any(|a| a == "--no-smooth"), ..ColourSettings::DEFAULT };
    if args.iter().any(|a| a == "--distance") {
        settings.by = ColourBy::Distance;
    }
    if args.iter().any(|a| a == "--light") {
        let l: Vec<f32> = value("--light", "135,45").split(',').map(|v| v.parse().unwrap()).collect();
        settings.light = Some(Light { azimuth: l[0], elevation: l[1] });
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);

    // Seahorse valley at 2^12: keyframe 1 (zoom 2^11) is the deeper one of the frames timed,
    // keyframe 2 (2^10) the shallower; both hold the set's edge, escaped and inside pixels.
    let view = View::parse("-0.743643887037151,0.131825904205330", "4096").unwrap();
    let plan = MoviePlan::prepare(&view, width, height, 100, 1500, None, settings, ReferenceChoice::Centre).unwrap();
    let mut cpu = open(BackendKind::Cpu).unwrap();
    let t = Instant::now();
    let deep = plan.render_keyframe(cpu.as_mut(), 1).unwrap();
    let shallow = plan.render_keyframe(cpu.as_mut(), 2).unwrap();
    println!(
        "{cores} hardware threads; {width}x{height}, {frames} frames at scales 1..2 between two keyframes \
         ({:.1} s to render them), {} iterations; colours {settings:?}",
        t.elapsed().as_secs_f64(),
        deep.iters
    );
    let pairs: Vec<FramePair> =
        (0..frames).map(|j| FramePair { deep: 1, scale: (f64::from(j) / f64::from(frames)).exp2() }).collect();
    let pixels = (width * height) as f64 * f64::from(frames);
    for &n in &threads {
        let n = if n == 0 { cores } else { n };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        let (mut old_best, mut new_best) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..repeats {
            let (old, t_old) = pool.install(|| time(|| reference_frames(&plan, &pairs, &deep, &shallow)));
            let (new, t_new) = pool.install(|| time(|| movie_frames(&plan, &pairs, &deep, &shallow)));
            assert!(old == new, "the movie's frames differ from the reference path's");
            old_best = old_best.min(t_old);
            new_best = new_best.min(t_new);
        }
        let ns = |t: f64| t * 1e9 / pixels;
        let (resampling, colouring) = pool.install(|| split(&plan, &pairs, &deep, &shallow));
        println!(
            "{n:>3} threads: the movie's path alone, frame by frame: resample_fast {:.2} ns/pixel, colour_rgba_de {:.2} ns/pixel",
            ns(resampling),
            ns(colouring)
        );
        println!(
            "{n:>3} threads: reference {:7.2} ns/pixel ({:7.1} core-ns), {:6.2} ms/frame | movie {:7.2} ns/pixel \
             ({:7.1} core-ns), {:6.2} ms/frame | {:.2}x; frames equal",
            ns(old_best),
            ns(old_best) * n as f64,
            old_best * 1e3 / f64::from(frames),
            ns(new_best),
            ns(new_best) * n as f64,
            new_best * 1e3 / f64::from(frames),
            old_best / new_best
        );
    }
}

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let v = f();
    (v, t.elapsed().as_secs_f64())
}

/// The frames as issue 25's first movies made them: one at a time, resampled then coloured.
fn reference_frames(plan: &MoviePlan, pairs: &[FramePair], deep: &Keyframe, shallow: &Keyframe) -> Vec<Vec<u8>> {
    let (w, h) = (plan.width, plan.height);
    let want_de = plan.settings.needs_distance();
    let mut counts = vec![0i32; w * h];
    let mut smooth = (plan.settings.smooth || want_de).then(|| vec![0.0f32; w * h]);
    let mut de = want_de.then(|| vec![0.0f32; w * h * DE_VALUES]);
    pairs
        .iter()
        .map(|&pair| {
            let out = FrameBuffers { counts: &mut counts, smooth: smooth.as_deref_mut(), de: de.as_deref_mut() };
            resample(pair, deep, Some(shallow), (w, h), out);
            let mut rgba = vec![0u8; w * h * 4];
            colour_rgba_de(&counts, smooth.as_deref(), de.as_deref(), w, h, deep.iters, &plan.settings, &mut rgba);
            rgba
        })
        .collect()
}

/// The frames as `make_movie` makes them now.
fn movie_frames(plan: &MoviePlan, pairs: &[FramePair], deep: &Keyframe, shallow: &Keyframe) -> Vec<Vec<u8>> {
    let mut maker = FrameMaker::new(plan);
    let mut out = Vec::new();
    maker.frames(pairs, deep, Some(shallow), &mut out);
    out
}

/// The time of `resample_fast` and of `colour_rgba_de` over the frames, one frame at a time.
fn split(plan: &MoviePlan, pairs: &[FramePair], deep: &Keyframe, shallow: &Keyframe) -> (f64, f64) {
    let (w, h) = (plan.width, plan.height);
    let want_de = plan.settings.needs_distance();
    let mut counts = vec![0i32; w * h];
    let mut smooth = (plan.settings.smooth || want_de).then(|| vec![0.0f32; w * h]);
    let mut de = want_de.then(|| vec![0.0f32; w * h * DE_VALUES]);
    let mut rgba = vec![0u8; w * h * 4];
    let (mut a, mut b) = (0.0, 0.0);
    for &pair in pairs {
        let out = FrameBuffers { counts: &mut counts, smooth: smooth.as_deref_mut(), de: de.as_deref_mut() };
        a += time(|| resample_fast(pair, deep, Some(shallow), (w, h), out)).1;
        let (sm, dd) = (smooth.as_deref(), de.as_deref());
        b += time(|| colour_rgba_de(&counts, sm, dd, w, h, deep.iters, &plan.settings, &mut rgba)).1;
    }
    (a, b)
}
