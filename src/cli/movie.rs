//! `render mandelbrot --video FILE.mp4 [--seconds S] [--fps F]`: a zoom movie from the whole set
//! to the view (`--center`/`--zoom` or `--location`), from keyframes at each factor of two of
//! zoom resampled into frames ([`crate::sim::fractal::zoom_movie`], computed by
//! [`crate::backend::zoom_movie`]), encoded with ffmpeg or written as a PNG sequence
//! ([`crate::video`]). The last frame is the picture `render --png` makes of the view at that size
//! with the same flags; the colours are the colour flags'.

use std::path::{Path, PathBuf};

use clap::Args;

use super::args::positive_f64;
use super::{CliError, RenderMandelbrot, announce_backend};
use crate::backend::zoom_movie::{MovieError, MoviePlan, MovieTimes, make_movie};
use crate::progress::Progress;
use crate::sim::fractal::deep::View;
use crate::sim::fractal::nav::auto_iters;
use crate::video::{self, VideoTarget, VideoWriter};

/// The movie flags of `render mandelbrot`.
#[derive(Debug, Clone, Args)]
pub struct MovieArgs {
    /// Write a zoom movie: from the whole set (zoom 1) to the view given by --center and --zoom
    /// (or --location), about its centre, coloured by the colour flags. FILE.mp4 (.mkv, .mov) is
    /// encoded by ffmpeg (H.264) when ffmpeg is on PATH, else written as a PNG sequence in
    /// FILE's stem + `-frames` with the ffmpeg command printed; FILE.rgb (or a device or FIFO)
    /// gets raw rgb24 frames. Without --iters the view gets the app's iterations for its depth
    /// (100 + 150 log10 zoom), or the location's.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["png", "npy", "bounds", "save_location", "gif"])]
    pub video: Option<PathBuf>,
    /// Length of the --video movie in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0, requires = "video", value_parser = positive_f64)]
    pub seconds: f64,
    /// Frames per second of the --video movie.
    #[arg(long, value_name = "F", default_value_t = 30, requires = "video", value_parser = clap::value_parser!(u32).range(1..=240))]
    pub fps: u32,
}

/// Most frames a movie may have (an hour at 60 fps).
const MAX_FRAMES: f64 = 216_000.0;

/// Writes the zoom movie of `view` to `path`. `iters`: the view's iterations, or `None` for the
/// app's choice by depth.
///
/// # Errors
/// A bad size or length (usage), a backend or the encoder failed (no movie file is left then).
pub fn render_movie(a: &RenderMandelbrot, view: &View, iters: Option<u32>, path: &Path) -> Result<(), CliError> {
    let m = &a.movie;
    let (w, h) = (a.width, a.height);
    let settings = a.colour.settings();
    settings.validate().map_err(CliError::usage)?;
    let zoom_log10 = view.zoom_log10();
    if zoom_log10 < 0.0 {
        return Err(CliError::usage(format!(
            "--video zooms in from the whole set (zoom 1): zoom {} is wider than that",
            view.zoom
        )));
    }
    let frames = (m.seconds * f64::from(m.fps)).round();
    if !(1.0..=MAX_FRAMES).contains(&frames) {
        return Err(CliError::usage(format!(
            "--seconds {} at --fps {} makes {frames} frames: give 1 to {MAX_FRAMES}",
            m.seconds, m.fps
        )));
    }
    let target = video::choose(path, video::find_on_path("ffmpeg")).map_err(CliError::usage)?;
    // The PNG sequence is for the same encoder (the printed command), so it is held to it too.
    if !matches!(target, VideoTarget::Raw) && (w % 2 == 1 || h % 2 == 1) {
        return Err(CliError::usage(format!("--video {w}x{h}: H.264 in yuv420p needs an even --width and --height")));
    }
    if !matches!(target, VideoTarget::Raw) {
        crate::output::check_writable(path)?;
    }
    let iters = iters.unwrap_or_else(|| auto_iters(zoom_log10));
    if let Some(w) = view.digits_warning() {
        eprintln!("warning: {w}");
    }
    // The backend opens (CUDA compiles its kernels: seconds) on a thread while the view is
    // prepared (its reference orbit: up to seconds too); a bad view is still reported first,
    // and the backend's lines are said after it, on this thread, as `open_backend` says them.
    let choice = a.backend.backend;
    let opening =
        std::thread::Builder::new().name("wavebrot-open".into()).spawn(move || crate::backend::open_choice(choice));
    // The view as `render --png` prepares it.
    let plan = MoviePlan::prepare(view, w, h, frames as u32, iters, a.precision, settings, a.reference)
        .map_err(CliError::usage)?;
    let opened = match opening {
        Ok(thread) => thread.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
        Err(_) => crate::backend::open_choice(choice),
    };
    let first = announce_backend(opened)?;
    let kind = first.kind();
    let (devices, notes) = crate::backend::probe::every_device(first);
    for n in notes {
        eprintln!("note: {n}");
    }
    let mut writer = VideoWriter::open(&target, path, w, h, m.fps)?;
    let frames = plan.schedule.frames;
    let keyframes = plan.schedule.last_keyframe() + 1;
    let progress = Progress::new(u64::from(frames), "movie");
    let times = make_movie(
        &plan,
        devices,
        &mut |first, batch| writer.push(first, batch).map_err(MovieError::Output),
        &mut |done, keys| {
            progress.set(u64::from(done));
            progress.set_message(format!("key {keys}/{keyframes}"));
            true
        },
    );
    progress.finish();
    let times = times.map_err(|e| CliError::Run(e.into()))?;
    writer.finish()?;
    report(&plan, &times, kind.name(), &target, path, m.fps);
    Ok(())
}

/// The movie's line on stderr (and the ffmpeg command on stdout for a PNG sequence).
fn report(plan: &MoviePlan, t: &MovieTimes, backend: &str, target: &VideoTarget, path: &Path, fps: u32) {
    let s = |d: std::time::Duration| d.as_secs_f64();
    let written = match target {
        VideoTarget::Pngs { dir } => format!("{} (PNG frames)", dir.display()),
        _ => path.display().to_string(),
    };
    eprintln!(
        "{}x{}, {} frames at {fps} fps from zoom 1 to {} ({} keyframes on {} device(s), {backend}: {:?}), {:.2} s: \
         keyframes {:.2} s (waited {:.2} s), resampling and colouring {:.2} s, writing {:.2} s; wrote {written}",
        plan.width,
        plan.height,
        plan.schedule.frames,
        plan.view.zoom,
        t.keyframe_count,
        t.per_device.len(),
        t.per_device,
        s(t.total),
        s(t.keyframes),
        s(t.waiting),
        s(t.resampling),
        s(t.output),
    );
    if let VideoTarget::Pngs { dir } = target {
        eprintln!("note: ffmpeg was not found on PATH; make the movie from the frames with:");
        crate::outln!("{}", video::ffmpeg_command(dir, fps, path));
    }
}
