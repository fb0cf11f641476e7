//! The app's zoom movie of the Mandelbrot view (Record dive): the movie `render mandelbrot
//! --video` makes ([`crate::backend::zoom_movie`], [`crate::video`]), rendered on the
//! `wavebrot-movie` thread on a backend of its own (so the view stays live while it runs), with
//! progress and the time left reported over a channel and a cancel that leaves no file.
//! Nothing here draws: the panel is the Mandelbrot view's movie panel (`app::mandel::movie_ui`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use web_time::{Duration, Instant};

use crate::backend::zoom_movie::{MovieError, MoviePlan, PlanError, make_movie};
use crate::backend::{BackendChoice, probe};
use crate::sim::colour::palette::ColourSettings;
use crate::sim::fractal::deep::{Arith, View};
use crate::sim::fractal::reference::ReferenceChoice;
use crate::video::{self, VideoError, VideoTarget, VideoWriter};

/// Most frames a movie from the app may have (an hour at 60 fps, as the CLI).
pub const MAX_FRAMES: u32 = 216_000;

/// A movie to make: the view it ends on, its size, length and file.
#[derive(Clone, Debug)]
pub struct MovieJob {
    pub view: View,
    pub iters: u32,
    /// The arithmetic asked for (`None`: as `render --png` chooses).
    pub arith: Option<Arith>,
    pub colour: ColourSettings,
    pub width: usize,
    pub height: usize,
    pub seconds: f64,
    pub fps: u32,
    pub path: PathBuf,
    /// The backend to render on (the app's own kind; a device of its own).
    pub backend: BackendChoice,
    /// The ffmpeg to encode with (`None`: a PNG sequence and the command to encode it).
    pub ffmpeg: Option<PathBuf>,
}

/// Why a movie does not start.
#[derive(Debug, thiserror::Error)]
pub enum MovieStartError {
    #[error("the movie zooms in from the whole set (zoom 1): zoom {0} is wider than that")]
    Wider(String),
    #[error("{seconds} s at {fps} frames/s makes {frames} frames: give 1 to {MAX_FRAMES}")]
    Length { seconds: f64, fps: u32, frames: f64 },
    #[error("{0}x{1}: H.264 in yuv420p needs an even width and height")]
    Odd(usize, usize),
    #[error(transparent)]
    Target(#[from] VideoError),
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error("cannot write the movie: {0:#}")]
    Output(anyhow::Error),
    #[error("starting the movie thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// What the movie thread reports.
#[derive(Debug)]
pub enum MovieStatus {
    /// Frames and keyframes done, of all, and the time since the start.
    Progress { frames: u32, of_frames: u32, keyframes: u32, of_keyframes: u32, elapsed: Duration },
    /// The movie is written: at `path`, or as PNG frames in `pngs` with `command` to encode them.
    Done { path: PathBuf, pngs: Option<(PathBuf, String)>, frames: u32, elapsed: Duration, backend: String },
    /// Cancelled: nothing is left of it.
    Cancelled,
    /// It failed: nothing is left of it.
    Failed(String),
}

/// A movie being made.
#[derive(Debug)]
pub struct MovieRun {
    cancel: Arc<AtomicBool>,
    rx: Receiver<MovieStatus>,
    finished: bool,
}

impl MovieRun {
    /// Checks the job and starts it on the `wavebrot-movie` thread.
    ///
    /// # Errors
    /// A view wider than the whole set, a length out of range, an odd size for H.264, a file
    /// that is not a movie's or cannot be written, or a view that cannot be prepared.
    pub fn start(job: MovieJob) -> Result<Self, MovieStartError> {
        let (w, h) = (job.width, job.height);
        let zoom_log10 = job.view.zoom_log10();
        if zoom_log10 < 0.0 {
            return Err(MovieStartError::Wider(job.view.zoom.clone()));
        }
        let frames = (job.seconds * f64::from(job.fps)).round();
        if !(1.0..=f64::from(MAX_FRAMES)).contains(&frames) {
            return Err(MovieStartError::Length { seconds: job.seconds, fps: job.fps, frames });
        }
        let target = video::choose(&job.path, job.ffmpeg.clone())?;
        if !matches!(target, VideoTarget::Raw) {
            if w % 2 == 1 || h % 2 == 1 {
                return Err(MovieStartError::Odd(w, h));
            }
            crate::output::check_writable(&job.path).map_err(MovieStartError::Output)?;
        }
        // A deep view's reference orbit takes a while: prepared on the movie thread.
        if let Some(a) = job.arith {
            job.view.check_arith(a, w, h, job.iters).map_err(PlanError::View)?;
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let stop = cancel.clone();
        std::thread::Builder::new().name("wavebrot-movie".into()).spawn(move || {
            let status = run(&job, frames as u32, &target, &stop, &tx);
            let _ = tx.send(status);
        })?;
        Ok(Self { cancel, rx, finished: false })
    }

    /// Asks the movie to stop; [`MovieStatus::Cancelled`] comes once its files are removed.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// The next report, if one came; the last is `Done`, `Cancelled` or `Failed`.
    pub fn poll(&mut self) -> Option<MovieStatus> {
        match self.rx.try_recv() {
            Ok(s) => {
                self.finished |= !matches!(s, MovieStatus::Progress { .. });
                Some(s)
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) if !self.finished => {
                self.finished = true;
                Some(MovieStatus::Failed("the movie thread stopped without a word".to_owned()))
            }
            Err(TryRecvError::Disconnected) => None,
        }
    }
}

impl Drop for MovieRun {
    /// An app closed while a movie runs stops it (its files removed).
    fn drop(&mut self) {
        self.cancel();
    }
}

/// The movie thread: opens the backend (every device of its kind), renders, writes; on a
/// cancel or a failure the writer leaves nothing.
fn run(job: &MovieJob, frames: u32, target: &VideoTarget, stop: &AtomicBool, tx: &Sender<MovieStatus>) -> MovieStatus {
    let start = Instant::now();
    let plan = MoviePlan::prepare(
        &job.view,
        job.width,
        job.height,
        frames,
        job.iters,
        job.arith,
        job.colour,
        ReferenceChoice::Auto,
    );
    let plan = match plan {
        Ok(p) => p,
        Err(e) => return MovieStatus::Failed(e.to_string()),
    };
    let plan = &plan;
    let first = match probe::open_choice(job.backend) {
        Ok((b, _)) => b,
        Err(e) => return MovieStatus::Failed(format!("no backend for the movie: {e}")),
    };
    let backend = format!("{} on {}", first.kind(), first.device_info().name);
    let (devices, _) = probe::every_device(first);
    let mut writer = match VideoWriter::open(target, &job.path, plan.width, plan.height, job.fps) {
        Ok(w) => w,
        Err(e) => return MovieStatus::Failed(format!("{e:#}")),
    };
    let of_frames = plan.schedule.frames;
    let of_keyframes = plan.schedule.last_keyframe() + 1;
    let made = make_movie(
        plan,
        devices,
        &mut |first, batch| writer.push(first, batch).map_err(MovieError::Output),
        &mut |frames, keyframes| {
            let _ =
                tx.send(MovieStatus::Progress { frames, of_frames, keyframes, of_keyframes, elapsed: start.elapsed() });
            !stop.load(Ordering::Relaxed)
        },
    );
    match made {
        Ok(_) if stop.load(Ordering::Relaxed) => {
            writer.abandon();
            MovieStatus::Cancelled
        }
        Ok(_) => match writer.finish() {
            Ok(()) => MovieStatus::Done {
                path: job.path.clone(),
                pngs: match target {
                    VideoTarget::Pngs { dir } => Some((dir.clone(), video::ffmpeg_command(dir, job.fps, &job.path))),
                    _ => None,
                },
                frames: of_frames,
                elapsed: start.elapsed(),
                backend,
            },
            Err(e) => MovieStatus::Failed(format!("{e:#}")),
        },
        Err(MovieError::Cancelled) => {
            writer.abandon();
            MovieStatus::Cancelled
        }
        Err(e) => {
            writer.abandon();
            MovieStatus::Failed(e.to_string())
        }
    }
}
