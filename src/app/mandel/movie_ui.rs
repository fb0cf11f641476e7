//! Record dive: the zoom movie of the Mandelbrot view from the whole set to it, as `render
//! mandelbrot --video` makes it, from the panel: its length, frame rate, size and file, the
//! progress with the time left and Cancel while the `wavebrot-movie` thread renders it
//! ([`crate::app::worker::movie`]); without ffmpeg, where the PNG frames went and the command
//! that encodes them.

use std::path::PathBuf;
use std::time::Duration;

use crate::app::WavebrotApp;
use crate::app::worker::movie::{MovieJob, MovieRun, MovieStatus};
use crate::backend::BackendChoice;

/// Largest side of a movie from the app (8K).
pub const MAX_MOVIE_SIDE: usize = 7680;

/// The movie controls' settings and the movie under way.
#[derive(Debug)]
pub struct MovieState {
    pub seconds: f64,
    pub fps: u32,
    /// Width and height in pixels.
    pub size: [usize; 2],
    pub path: String,
    /// The movie being made.
    pub run: Option<MovieRun>,
    /// Frames and keyframes done, of all, and the time it has taken so far.
    pub progress: Option<(u32, u32, u32, u32, Duration)>,
    /// The last movie's PNG frames and the command that encodes them (no ffmpeg was found).
    pub pngs: Option<(PathBuf, String)>,
    /// Finds ffmpeg (test seam: a run without it).
    pub find_ffmpeg: fn() -> Option<PathBuf>,
}

impl Default for MovieState {
    fn default() -> Self {
        Self {
            seconds: 10.0,
            fps: 30,
            size: [640, 360],
            path: "dive.mp4".to_owned(),
            run: None,
            progress: None,
            pngs: None,
            find_ffmpeg: || crate::video::find_on_path("ffmpeg"),
        }
    }
}

/// Seconds left of a run that has done `done` of `all` in `elapsed` (`None` before the first).
#[must_use]
pub fn time_left(done: u32, all: u32, elapsed: Duration) -> Option<f64> {
    (done > 0).then(|| elapsed.as_secs_f64() * f64::from(all.saturating_sub(done)) / f64::from(done))
}

/// What the user asked of the movie controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MovieAction {
    Start,
    Cancel,
}

fn movie_controls_ui(ui: &mut egui::Ui, state: &mut MovieState) -> Option<MovieAction> {
    let mut action = None;
    ui.label("Movie of the dive");
    ui.horizontal(|ui| {
        ui.add(egui::DragValue::new(&mut state.seconds).range(0.1..=3600.0).speed(0.5).suffix(" s"))
            .on_hover_text("the movie's length");
        ui.add(egui::DragValue::new(&mut state.fps).range(1..=240).suffix(" fps"));
        ui.add(egui::DragValue::new(&mut state.size[0]).range(2..=MAX_MOVIE_SIDE).suffix(" wide"));
        ui.add(egui::DragValue::new(&mut state.size[1]).range(2..=MAX_MOVIE_SIDE).suffix(" high"));
    });
    ui.horizontal(|ui| {
        let label = ui.label("Movie file");
        ui.add(egui::TextEdit::singleline(&mut state.path).desired_width(140.0))
            .labelled_by(label.id)
            .on_hover_text(".mp4, .mkv or .mov (ffmpeg; without it a PNG sequence), .rgb for raw frames");
    });
    if state.run.is_some() {
        ui.horizontal(|ui| {
            let (frames, of, keys, of_keys, elapsed) = state.progress.unwrap_or((0, 1, 0, 1, Duration::ZERO));
            let left = time_left(frames, of, elapsed).map_or_else(|| "…".to_owned(), |s| format!("{s:.0} s left"));
            ui.add(
                egui::ProgressBar::new(frames as f32 / of.max(1) as f32)
                    .text(format!("{frames}/{of} frames, key {keys}/{of_keys}, {left}"))
                    .desired_width(150.0),
            );
            if ui.button("Cancel movie").clicked() {
                action = Some(MovieAction::Cancel);
            }
        });
    } else {
        let [w, h] = state.size;
        let frames = (state.seconds * f64::from(state.fps)).round();
        let b = ui.button(format!("Record dive {w}x{h}, {frames} frames")).on_hover_text(
            "render the zoom movie from the whole set to this view (as `render mandelbrot --video`), on a backend of its own: the view stays live",
        );
        if b.clicked() {
            action = Some(MovieAction::Start);
        }
    }
    if let Some((dir, command)) = &state.pngs {
        ui.label(format!("ffmpeg was not found: the frames are in {}; make the movie with:", dir.display()));
        ui.add(egui::Label::new(egui::RichText::new(command).monospace()).wrap()).on_hover_text("select it to copy it");
    }
    action
}

impl WavebrotApp {
    /// The movie controls in the Mandelbrot panel.
    pub(crate) fn movie_ui(&mut self, ui: &mut egui::Ui) {
        match movie_controls_ui(ui, &mut self.mandel.movie) {
            Some(MovieAction::Start) => self.start_movie(),
            Some(MovieAction::Cancel) => self.cancel_movie(),
            None => {}
        }
    }

    /// Starts the movie of the current view with the settings shown (nothing when one runs).
    pub fn start_movie(&mut self) {
        let m = &self.mandel.movie;
        if m.run.is_some() {
            self.say("a movie is already being made".to_owned());
            return;
        }
        if self.settings.mandelbrot.julia.is_some() {
            self.say("the movie dives into the Mandelbrot set: leave the Julia set first (J)".to_owned());
            return;
        }
        let [w, h] = m.size;
        let req = self.settings.mandelbrot.request(w, h);
        let backend = match self.active.as_ref().map(|(k, _)| *k) {
            Some(k) => BackendChoice::of(k),
            None => self.settings.backend,
        };
        let job = MovieJob {
            view: req.view,
            iters: req.iters,
            arith: req.arith,
            colour: req.colour,
            width: w,
            height: h,
            seconds: m.seconds,
            fps: m.fps,
            path: PathBuf::from(m.path.trim()),
            backend,
            ffmpeg: (m.find_ffmpeg)(),
        };
        match MovieRun::start(job) {
            Ok(run) => {
                let m = &mut self.mandel.movie;
                m.run = Some(run);
                m.progress = None;
                m.pngs = None;
            }
            Err(e) => self.say(format!("no movie: {e}")),
        }
    }

    /// Stops the movie under way; nothing of it is left.
    pub fn cancel_movie(&mut self) {
        if let Some(r) = &self.mandel.movie.run {
            r.cancel();
        }
    }

    /// Takes the movie thread's reports in (every frame, in any view).
    pub(crate) fn poll_movie(&mut self, ctx: &egui::Context) {
        let Some(run) = &mut self.mandel.movie.run else { return };
        ctx.request_repaint_after(Duration::from_millis(100));
        let mut said = None;
        let statuses: Vec<MovieStatus> = std::iter::from_fn(|| run.poll()).collect();
        for s in statuses {
            let m = &mut self.mandel.movie;
            match s {
                MovieStatus::Progress { frames, of_frames, keyframes, of_keyframes, elapsed } => {
                    m.progress = Some((frames, of_frames, keyframes, of_keyframes, elapsed));
                }
                MovieStatus::Done { path, pngs, frames, elapsed, backend } => {
                    said = Some(match &pngs {
                        Some((dir, _)) => format!(
                            "movie: {frames} PNG frames in {} ({:.1} s, {backend}); ffmpeg was not found",
                            dir.display(),
                            elapsed.as_secs_f64()
                        ),
                        None => format!(
                            "movie: wrote {} ({frames} frames, {:.1} s, {backend})",
                            path.display(),
                            elapsed.as_secs_f64()
                        ),
                    });
                    m.pngs = pngs;
                }
                MovieStatus::Cancelled => said = Some("movie cancelled: nothing written".to_owned()),
                MovieStatus::Failed(e) => said = Some(format!("the movie failed, nothing written: {e}")),
            }
        }
        if let Some(s) = said {
            self.mandel.movie.run = None;
            self.mandel.movie.progress = None;
            self.say(s);
        }
    }

    /// The movie's settings and state (length, rate, size, file, the run).
    pub fn movie_state_mut(&mut self) -> &mut MovieState {
        &mut self.mandel.movie
    }

    /// True while a movie is being made.
    #[must_use]
    pub fn movie_running(&self) -> bool {
        self.mandel.movie.run.is_some()
    }

    /// The movie's progress: frames done and all frames.
    #[must_use]
    pub fn movie_progress(&self) -> Option<(u32, u32)> {
        self.mandel.movie.progress.map(|p| (p.0, p.1))
    }
}
