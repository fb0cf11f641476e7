//! The eframe desktop app: a live wave view and a Mandelbrot explorer, a backend picker and a
//! live CPU-vs-active-backend timing panel.
//!
//! The UI thread only draws and sends [`worker::messages::Command`]s: the active backend runs on the
//! `wavebrot-sim` thread ([`worker::simulation::Worker`]) and the CPU comparison on
//! `wavebrot-cpu-compare` ([`worker::compare::CpuCompare`]), so the window stays responsive whatever a
//! backend does.
//!
//! The rooms, one folder each:
//! - [`launch`]: how the app starts (options shared with the CLI, settings saved between runs,
//!   the window in a guarded child process, the headless harness).
//! - [`shell`]: what every view shares (top bar and keys, timing panel, frame profile, colour
//!   widgets).
//! - [`worker`]: everything off the UI thread (the simulation loop, frames to the screen,
//!   Mandelbrot passes, the CPU comparison, meters, the GIF recorder, the messages).
//! - [`wave`]: the wave view, its lab tools and meters.
//! - [`mandel`]: the Mandelbrot explorer (camera, moves, panels, bookmarks, export).
//! - [`pages`]: the classroom pages (Race, Scaling, Lessons), each a thread file and a `_ui` file.
//!
//! UI code lives in functions and files named `*_ui` or in the views; nothing under `worker/`
//! draws.

pub mod launch;
pub mod mandel;
pub mod pages;
pub mod shell;
pub mod wave;
pub mod worker;

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::backend::{BackendChoice, BackendKind, DeviceInfo};
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::Scene;

pub use launch::options::{Demo, GuiArgs};
pub use launch::settings::Settings;
use mandel::state::MandelUi;
use mandel::view::MandelView;
use shell::controls::Probes;
use shell::timing_panel::TimingStats;
use wave::lab::LabState;
use wave::meters::Meters;
use wave::view::WaveSettings;
use worker::compare::CpuCompare;
use worker::messages::{Command, CompareJob, FrameSource, Msg, WorkerInit};
use worker::simulation::Worker;

/// Where the screenshot run reports how it went (`None` while not taken).
pub type Outcome = Arc<Mutex<Option<Result<(), String>>>>;

/// How the app was started.
#[derive(Clone, Debug, Default)]
pub struct StartOptions {
    /// Ignore saved settings and do not save (screenshots, tests).
    pub ephemeral: bool,
    /// Hide every timing number and the plot (snapshot tests).
    pub freeze_timings: bool,
    /// Take a screenshot to this file after `frames` frames, then quit.
    pub screenshot: Option<(PathBuf, u32)>,
    /// Where a screenshot's outcome is reported.
    pub outcome: Option<Outcome>,
    /// Print [`launch::window_process::WINDOW_UP_LINE`] on stdout once the first frame is on screen
    /// (the window process tells its parent).
    pub report_window_up: bool,
    /// Why the window is on another display adapter than asked (shown in the top bar).
    pub display_note: Option<String>,
}

/// A displayed picture: an egui-managed texture (uploaded RGBA) or one registered by the
/// worker on eframe's wgpu device (zero-copy).
struct Shown {
    id: egui::TextureId,
    /// Set for uploaded pictures; `None` for native ones.
    handle: Option<egui::TextureHandle>,
}

/// The app.
pub struct WavebrotApp {
    settings: Settings,
    start: StartOptions,
    worker: Worker,
    compare: Option<CpuCompare>,
    compare_job: CompareJob,
    compare_kind: BackendKind,
    probes: Probes,
    active: Option<(BackendKind, DeviceInfo)>,
    notes: Vec<String>,
    message: Option<(String, Instant)>,
    wave_tex: Option<Shown>,
    wave_running: Option<(WaveParams, u32)>,
    /// The scene of the last wave frame (what the worker runs).
    wave_scene: Option<Arc<Scene>>,
    lab: LabState,
    meters: Meters,
    /// The turn to compute that the simulation thread and the CPU comparison share.
    turn: worker::messages::ComputeTurn,
    /// Presenter mode: the side panels hidden (H).
    panels_hidden: bool,
    /// The key list is shown (F1 or ?).
    help: bool,
    /// A classroom page shown instead of the demos, and their states.
    page: Option<pages::Page>,
    race: pages::race_ui::RaceView,
    scaling: pages::scaling_ui::ScalingView,
    lessons: pages::lessons_ui::LessonsView,
    /// The waves were playing when a page opened (they play again when it closes).
    resume_play: bool,
    /// The GIF recording under way, where the next one goes, and the size of the last wave picture.
    recorder: Option<worker::recorder::Recorder>,
    /// The view the recording under way takes its pictures from.
    recording_view: Demo,
    record_path: String,
    wave_size: Option<(usize, usize)>,
    /// Where each frame's time goes (puffin), and whether the flame view is open.
    profile: shell::profile::FrameProfile,
    flame: bool,
    /// Time steps the last computed frame advanced.
    last_steps: Option<u32>,
    /// The last check against the CPU and when it came; when the last one was asked.
    check: Option<(worker::messages::CheckResult, Instant)>,
    check_asked: Option<Instant>,
    /// The Mandelbrot check: the last result and the one running.
    mandel_check: Option<worker::compare::MandelCheck>,
    mandel_check_rx: Option<Receiver<worker::compare::MandelCheck>>,
    /// Test seam: the next checks get a wrong reference, so a mismatch can be shown.
    check_fault: bool,
    /// Where the wave field was drawn last (for tests that point at cells).
    field_map: Option<wave::view::CellMap>,
    grid: (usize, usize),
    mandel_tex: Option<Shown>,
    mandel: MandelUi,
    timing: TimingStats,
    frames: u64,
    content_frames: u64,
    ping: u64,
    screenshot_rx: Option<Receiver<Arc<egui::ColorImage>>>,
    screenshot_tx: Sender<Arc<egui::ColorImage>>,
    screenshot_requested: bool,
    ctx: egui::Context,
    /// eframe's wgpu device, queue and renderer: where wgpu's zero-copy frames will be registered.
    render_state: Option<egui_wgpu::RenderState>,
}

impl WavebrotApp {
    /// The app as `wavebrot` opens it.
    ///
    /// # Errors
    /// A thread could not be started.
    pub fn new(cc: &eframe::CreationContext<'_>, args: &GuiArgs, start: StartOptions) -> anyhow::Result<Self> {
        let mut settings: Settings = if start.ephemeral {
            Settings::default()
        } else {
            cc.storage.and_then(|s| eframe::get_value(s, eframe::APP_KEY)).unwrap_or_default()
        };
        // Waves ripple from the first frame, whatever was saved.
        settings.wave.playing = true;
        if let Some(b) = args.backend {
            settings.backend = b;
        }
        if let Some(d) = args.demo {
            settings.view = d;
        }
        // The CLI checked the scene before the window opened; a file gone since is said and skipped.
        let mut start_note = None;
        match args.start_scene() {
            Ok(Some((scene, name))) => settings.wave.load_scene(scene, &name),
            Ok(None) => {}
            Err(e) => start_note = Some(format!("scene not opened: {e}")),
        }
        match args.start_location() {
            Ok(Some(loc)) => {
                mandel::bookmarks_ui::go_to(&mut settings.mandelbrot, &loc);
                if args.demo.is_none() {
                    settings.view = Demo::Mandelbrot;
                }
            }
            Ok(None) => {}
            Err(e) => start_note = Some(format!("location not opened: {e}")),
        }
        let probes = crate::backend::probe_all();
        let mut app = Self::with_settings(&cc.egui_ctx, settings, probes, start, cc.wgpu_render_state.clone())?;
        if let Some(n) = start_note {
            app.say(n);
        }
        Ok(app)
    }

    /// The app on the CPU backend with a small grid, paused, timing numbers hidden and
    /// nothing saved: for tests. Call [`Self::sync`] to wait for the worker.
    ///
    /// # Errors
    /// A thread could not be started.
    pub fn new_for_test(cc: &eframe::CreationContext<'_>, view: Demo) -> anyhow::Result<Self> {
        let settings = Settings {
            view,
            backend: BackendChoice::Cpu,
            wave: WaveSettings {
                steps_per_frame: 40,
                playing: false,
                ..WaveSettings::for_scene(Scene::seed(160, 120, crate::sim::wave::DEFAULT_FREQ), "seed")
            },
            mandelbrot: MandelView::default(),
            cpu_compare: false,
        };
        let start = StartOptions { ephemeral: true, freeze_timings: true, ..StartOptions::default() };
        // Fixed probes, so pictures do not depend on the machine's GPUs.
        let probes = vec![
            (BackendKind::Cuda, Err("not probed in tests".to_owned())),
            (BackendKind::Wgpu, Err("not probed in tests".to_owned())),
            (BackendKind::Cpu, Ok(DeviceInfo { name: "CPU".to_owned(), ..DeviceInfo::default() })),
        ];
        let rs = cc.wgpu_render_state.clone();
        let mut app = Self::with_settings(&cc.egui_ctx, settings, probes, start, rs)?;
        // A deterministic first picture: two frames of steps.
        app.worker.send(Command::Step);
        app.worker.send(Command::Step);
        app.sync();
        Ok(app)
    }

    fn with_settings(
        ctx: &egui::Context,
        settings: Settings,
        probes: Probes,
        start: StartOptions,
        render_state: Option<egui_wgpu::RenderState>,
    ) -> anyhow::Result<Self> {
        let w = &settings.wave;
        let init = WorkerInit {
            backend: settings.backend,
            scene: w.scene.clone(),
            look: w.look.clone(),
            playing: w.playing,
            steps_per_frame: w.steps_per_frame,
            fastest: w.fastest,
            vmin: w.vmin,
            vmax: w.vmax,
            view: settings.view,
            render_state: render_state.clone(),
            turn: worker::messages::ComputeTurn::default(),
        };
        let turn = init.turn.clone();
        let wake_ctx = ctx.clone();
        let worker =
            Worker::spawn(init, move || wake_ctx.request_repaint()).context("cannot start the simulation thread")?;
        let mut timing = TimingStats::new(start.freeze_timings);
        timing.clear(settings.view);
        timing.display_adapter = render_state.as_ref().map(|rs| {
            let i = rs.adapter.get_info();
            format!("{} ({:?})", i.name, i.backend)
        });
        let (screenshot_tx, screenshot_rx) = mpsc::channel();
        let grid = (settings.wave.scene.nx, settings.wave.scene.ny);
        Ok(Self {
            settings,
            start,
            worker,
            compare: None,
            compare_job: CompareJob::Off,
            compare_kind: BackendKind::Cpu,
            probes,
            active: None,
            notes: Vec::new(),
            message: None,
            wave_tex: None,
            wave_running: None,
            wave_scene: None,
            lab: LabState::default(),
            meters: Meters::default(),
            turn,
            field_map: None,
            check: None,
            check_asked: None,
            last_steps: None,
            mandel_check: None,
            mandel_check_rx: None,
            check_fault: false,
            panels_hidden: false,
            help: false,
            page: None,
            race: pages::race_ui::RaceView::default(),
            scaling: pages::scaling_ui::ScalingView::default(),
            lessons: pages::lessons_ui::LessonsView::default(),
            resume_play: false,
            recorder: None,
            recording_view: Demo::Wave,
            record_path: "wavebrot.gif".to_owned(),
            wave_size: None,
            profile: shell::profile::FrameProfile::start(),
            flame: false,
            grid,
            mandel_tex: None,
            mandel: MandelUi::default(),
            timing,
            frames: 0,
            content_frames: 0,
            ping: 0,
            screenshot_rx: Some(screenshot_rx),
            screenshot_tx,
            screenshot_requested: false,
            ctx: ctx.clone(),
            render_state,
        })
    }

    /// The user's settings (what the controls show).
    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The backend running now and its device.
    #[must_use]
    pub fn active_backend(&self) -> Option<BackendKind> {
        self.active.as_ref().map(|(k, _)| *k)
    }

    /// The wave problem of the last frame shown and its time step.
    #[must_use]
    pub fn wave_running(&self) -> Option<(WaveParams, u32)> {
        self.wave_running
    }

    /// The scene of the last wave frame: what the simulation thread runs.
    #[must_use]
    pub fn wave_scene(&self) -> Option<&Scene> {
        self.wave_scene.as_deref()
    }

    /// The screen point of cell coordinates `(x, y)` in the wave picture drawn last.
    #[must_use]
    pub fn field_point(&self, x: f64, y: f64) -> Option<egui::Pos2> {
        self.field_map.map(|m| m.point(x, y))
    }

    /// The last Mandelbrot check of the active backend against the CPU.
    #[must_use]
    pub fn last_mandelbrot_check(&self) -> Option<&worker::compare::MandelCheck> {
        self.mandel_check.as_ref()
    }

    /// The last check of the active backend against the CPU.
    #[must_use]
    pub fn last_check(&self) -> Option<&worker::messages::CheckResult> {
        self.check.as_ref().map(|(r, _)| r)
    }

    /// What the timing panel knows: both rates, their problems and the comparison.
    #[must_use]
    pub fn timing(&self) -> &TimingStats {
        &self.timing
    }

    /// Test seam: from now on the checks (waves and Mandelbrot) compare with a reference made
    /// wrong on purpose, so the red MISMATCH line can be seen and tested.
    #[doc(hidden)]
    pub fn inject_check_fault(&mut self, on: bool) {
        self.check_fault = on;
        self.worker.send(Command::InjectCheckFault(on));
    }

    /// Forgets the check results: the scene, view or backend they were of changed.
    pub(crate) fn forget_checks(&mut self) {
        self.check = None;
        self.mandel_check = None;
    }

    /// The wave lab's tools (which one is active, the selected source).
    pub fn lab_mut(&mut self) -> &mut LabState {
        &mut self.lab
    }

    /// What the meters measured last (colour range, energy, intensity).
    #[must_use]
    pub fn measured(&self) -> Option<&worker::messages::Measured> {
        self.meters.last.as_ref()
    }

    /// eframe's wgpu state (device, queue, adapter, renderer), where the wgpu backend's
    /// textures get registered for zero-copy display.
    #[must_use]
    pub fn render_state(&self) -> Option<&egui_wgpu::RenderState> {
        self.render_state.as_ref()
    }

    /// Switches the backend, as the picker does.
    pub fn pick_backend(&mut self, choice: BackendChoice) {
        self.settings.backend = choice;
        self.worker.send(Command::SetBackend(choice));
    }

    /// True when the wave picture on screen came straight from the GPU (wgpu, no copy).
    #[must_use]
    pub fn wave_is_zero_copy(&self) -> bool {
        self.wave_tex.as_ref().is_some_and(|s| s.handle.is_none())
    }

    /// Where the app's frames spend their time (puffin scopes per stage).
    #[must_use]
    pub fn frame_profile(&self) -> &shell::profile::FrameProfile {
        &self.profile
    }

    /// The last message shown to the user (a refusal or failure).
    #[must_use]
    pub fn message(&self) -> Option<&str> {
        self.message.as_ref().map(|(m, _)| m.as_str())
    }

    /// Waits (up to 20 s) until the worker has done everything asked so far and its frames are
    /// taken in. For tests; the app itself never waits.
    pub fn sync(&mut self) {
        self.ping += 1;
        let ping = self.ping;
        self.worker.send(Command::Ping(ping));
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(m) = self.worker.recv_timeout(Duration::from_millis(100)) {
                if matches!(m, Msg::Pong(n) if n == ping) {
                    return;
                }
                self.handle(m);
            }
        }
    }

    fn say(&mut self, m: String) {
        log::warn!("{m}");
        self.message = Some((m, Instant::now()));
    }

    /// Takes one worker message in.
    fn handle(&mut self, m: Msg) {
        match m {
            Msg::Backend { kind, device, notes } => {
                self.timing.clear(self.settings.view);
                self.timing.set_device(&device);
                self.forget_checks();
                self.active = Some((kind, device));
                self.notes = notes;
                self.compare_kind = if kind == BackendKind::Cpu { BackendKind::Cpu1 } else { BackendKind::Cpu };
                if let Some(c) = &self.compare {
                    c.set_kind(self.compare_kind);
                }
            }
            Msg::Wave(f) => {
                self.wave_running = Some((f.params, f.tstep));
                if f.steps > 0 {
                    self.last_steps = Some(f.steps);
                }
                self.meters.record(f.tstep, &f.measured);
                self.wave_scene = Some(Arc::clone(&f.scene));
                self.timing.dram_bytes_per_update = f.dram_bytes_per_update;
                self.timing.large_call_update_secs = f.large_call_update_secs;
                if f.steps > 0 {
                    self.timing.steps_per_frame = f.steps;
                }
                if let Some((k, d)) = &self.active {
                    let name = d.name.clone();
                    self.timing.record_wave(*k, &name, &f);
                }
                self.content_frames += 1;
                self.wave_size = Some(f.pixels.size());
                if self.recording_view == Demo::Wave {
                    self.record(&f.pixels);
                }
                Self::show(&mut self.wave_tex, "wave", f.pixels, &self.worker, &self.ctx);
            }
            Msg::Mandelbrot(f) => self.take_mandel_frame(f),
            Msg::Export(s) => self.take_export_status(s),
            Msg::Error(e) => self.say(e),
            Msg::Grid { nx, ny, refused } => {
                self.grid = (nx, ny);
                if refused {
                    // The controls go back to the scene and grid that run.
                    self.settings.wave.nx = nx;
                    self.settings.wave.ny = ny;
                    if let Some(s) = &self.wave_scene {
                        self.settings.wave.scene = (**s).clone();
                    } else {
                        self.settings.wave.scene = self.settings.wave.scene.resized(nx, ny);
                    }
                }
            }
            Msg::Check(r) => self.check = Some((r, Instant::now())),
            Msg::Pong(_) => {}
        }
    }

    /// Hands a picture to the recording, if one is under way.
    fn record(&mut self, pixels: &FrameSource) {
        let Some(rec) = &mut self.recorder else { return };
        let why = match pixels {
            FrameSource::Rgba { rgba, width, height } => {
                if rec.push(rgba, *width, *height) {
                    return;
                }
                "the picture changed size"
            }
            FrameSource::Native { .. } => {
                "wgpu draws the picture straight into the display texture, so it never reaches the host: record on CUDA or the CPU"
            }
        };
        self.stop_recording(Some(why));
    }

    /// Starts recording the view shown to `record_path`: the wave pictures, or the Mandelbrot
    /// pictures as the view moves (a zoom path; full pictures only, not the coarse passes).
    pub fn start_recording(&mut self) {
        if self.recorder.is_some() {
            return;
        }
        let (size, lut) = if self.settings.view == Demo::Mandelbrot {
            let size = self.mandel.shown.as_ref().filter(|s| s.coarse == 1).map(|s| (s.width, s.height));
            (size, self.settings.mandelbrot.colour.palette.lut())
        } else {
            (self.wave_size, &crate::sim::colour::colormap::HOT_LUT[..])
        };
        let Some((w, h)) = size else {
            self.say("nothing to record yet: no full picture has been shown".to_owned());
            return;
        };
        if self.settings.view == Demo::Wave && self.wave_is_zero_copy() {
            self.say("recording needs the picture on the host, and wgpu draws it straight into the display texture: record on CUDA or the CPU".to_owned());
            return;
        }
        match worker::recorder::Recorder::start(std::path::Path::new(&self.record_path), w, h, lut) {
            Ok(r) => {
                self.recording_view = self.settings.view;
                self.recorder = Some(r);
            }
            Err(e) => self.say(format!("cannot record: {e:#}")),
        }
    }

    /// Hands a full Mandelbrot picture to the recording, if one of this view is under way.
    fn record_mandelbrot(&mut self, pixels: &FrameSource, palette_lut: &'static [[u8; 4]]) {
        let Some(rec) = &self.recorder else { return };
        if self.recording_view != Demo::Mandelbrot {
            return;
        }
        if !std::ptr::eq(rec.lut.as_ptr(), palette_lut.as_ptr()) {
            self.stop_recording(Some("the palette changed"));
            return;
        }
        self.record(pixels);
    }

    /// Stops the recording and writes the GIF (`why`: it was stopped for this reason).
    pub fn stop_recording(&mut self, why: Option<&str>) {
        let Some(rec) = self.recorder.take() else { return };
        let (path, dropped) = (rec.path.clone(), rec.dropped);
        let m = match (rec.stop(), why) {
            (Ok(n), None) => {
                format!("wrote {} ({n} frames, {dropped} dropped while the encoder was busy)", path.display())
            }
            (Ok(n), Some(why)) => format!("recording stopped: {why}; wrote {} ({n} frames)", path.display()),
            (Err(e), _) => format!("the recording failed, no file written: {e:#}"),
        };
        self.say(m);
    }

    /// Where the next recording goes (the field beside Record).
    pub fn set_record_path(&mut self, path: &str) {
        path.clone_into(&mut self.record_path);
    }

    /// The recording under way, if any.
    #[must_use]
    pub fn recording(&self) -> Option<&worker::recorder::Recorder> {
        self.recorder.as_ref()
    }

    /// Puts a frame on screen: uploads RGBA once, or uses a registered native texture.
    fn show(slot: &mut Option<Shown>, name: &str, pixels: FrameSource, worker: &Worker, ctx: &egui::Context) {
        puffin::profile_scope!("upload");
        match pixels {
            FrameSource::Rgba { rgba, width, height } => {
                let image = opaque_image([width, height], &rgba);
                worker.recycle(rgba);
                let options = egui::TextureOptions::NEAREST;
                if let Some(Shown { handle: Some(h), .. }) = slot.as_mut() {
                    h.set(image, options);
                    *slot = Some(Shown { id: h.id(), handle: Some(h.clone()) });
                } else {
                    let h = ctx.load_texture(name, image, options);
                    *slot = Some(Shown { id: h.id(), handle: Some(h) });
                }
            }
            FrameSource::Native { id, .. } => *slot = Some(Shown { id, handle: None }),
        }
    }

    fn poll_worker(&mut self) {
        // At most one picture per displayed frame, so "steps / frame" is what one displayed frame
        // advances (the worker waits for its frame to be taken before it computes the next).
        for _ in 0..16 {
            let Some(m) = self.worker.try_recv() else { break };
            let picture = matches!(m, Msg::Wave(_) | Msg::Mandelbrot(_));
            self.handle(m);
            if picture {
                self.ctx.request_repaint();
                break;
            }
        }
        if let Some(rx) = &self.mandel_check_rx
            && let Ok(r) = rx.try_recv()
        {
            self.mandel_check = Some(r);
            self.mandel_check_rx = None;
        }
        if let Some(c) = &self.compare {
            for s in c.drain() {
                self.timing.record_cpu(&s);
            }
        }
        self.timing.drop_stale_cpu();
    }

    /// Keeps the CPU comparison on the problem the active backend runs.
    fn steer_compare(&mut self, ctx: &egui::Context) {
        let job = if !self.settings.cpu_compare || self.page.is_some() {
            CompareJob::Off
        } else {
            match self.settings.view {
                Demo::Wave if self.settings.wave.playing => {
                    self.wave_scene.as_ref().map_or(CompareJob::Off, |s| CompareJob::Wave(Arc::clone(s)))
                }
                Demo::Wave => CompareJob::Off,
                Demo::Mandelbrot => self.mandel_compare_job(),
            }
        };
        if job == self.compare_job {
            return;
        }
        if self.compare.is_none() && job != CompareJob::Off {
            let wake = ctx.clone();
            match CpuCompare::spawn(self.compare_kind, Arc::clone(&self.turn), move || wake.request_repaint()) {
                Ok(c) => self.compare = Some(c),
                Err(e) => {
                    self.say(format!("cannot start the CPU comparison: {e}"));
                    self.settings.cpu_compare = false;
                    return;
                }
            }
        }
        if let Some(c) = &self.compare {
            c.set_job(job.clone());
        }
        self.compare_job = job;
    }

    fn set_view(&mut self, v: Demo) {
        if self.settings.view != v {
            self.settings.view = v;
            self.timing.clear(v);
            self.forget_checks();
            self.worker.send(Command::SetView(v));
        }
    }

    fn toggle_play(&mut self) {
        self.settings.wave.playing = !self.settings.wave.playing;
        self.worker.send(Command::SetPlaying(self.settings.wave.playing));
    }

    fn screenshot(&mut self, ctx: &egui::Context) {
        let Some((path, frames)) = self.start.screenshot.clone() else { return };
        if let Some(rx) = &self.screenshot_rx
            && let Ok(image) = rx.try_recv()
        {
            let rgba: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
            let r = crate::output::write_png(&path, &rgba, image.size[0], image.size[1]);
            let outcome = r.map_err(|e| format!("{e:#}"));
            if let Err(e) = &outcome {
                log::error!("{e}");
            } else {
                eprintln!("screenshot: {}", path.display());
            }
            if let Some(o) = &self.start.outcome
                && let Ok(mut g) = o.lock()
            {
                *g = Some(outcome);
            }
            self.screenshot_rx = None;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        // Wait for the pictures too: at least as many content frames, or give up waiting after 4x.
        let ready = self.frames >= u64::from(frames)
            && (self.content_frames >= u64::from(frames).min(3) || self.frames >= 4 * u64::from(frames));
        if ready && !self.screenshot_requested {
            self.screenshot_requested = true;
            let tx = self.screenshot_tx.clone();
            let wake = ctx.clone();
            ctx.request_screenshot(move |image| {
                let _ = tx.send(image);
                wake.request_repaint();
            });
        }
        ctx.request_repaint();
    }
}

impl WavebrotApp {
    /// In the window process: once the first frame has been presented (this is the second),
    /// tell the parent the window is up; before that, make sure a second frame comes.
    fn report_window_up(&mut self, ctx: &egui::Context) {
        if !self.start.report_window_up {
            return;
        }
        if self.frames < 2 {
            ctx.request_repaint();
            return;
        }
        self.start.report_window_up = false;
        crate::outln!("{}", launch::window_process::WINDOW_UP_LINE);
        if launch::window_process::test_crash_requested("window-up") {
            eprintln!("{}: crashing after the window opened, as asked", launch::window_process::TEST_CRASH_ENV);
            std::process::abort();
        }
    }
}

impl eframe::App for WavebrotApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        shell::profile::FrameProfile::new_frame();
        puffin::profile_scope!("ui");
        self.frames += 1;
        self.report_window_up(&ctx);
        let dt = ui.input(|i| i.unstable_dt);
        self.timing.record_ui_frame(f64::from(dt));
        self.timing.load.sample();
        self.timing.set_cpu_enabled(self.settings.cpu_compare);
        self.timing.fastest = self.settings.wave.fastest;
        self.poll_worker();
        self.keyboard(&ctx);
        self.steer_compare(&ctx);
        egui::Panel::top("top").show(ui, |ui| self.top_bar_ui(ui));
        // One fixed line for what happened (saved, opened, refused): nothing above it moves.
        egui::Panel::bottom("status").exact_size(24.0).show(ui, |ui| self.status_bar_ui(ui));
        if self.help {
            shell::panels::help_window(&ctx, &mut self.help);
        }
        if self.flame {
            shell::profile_ui::flame_window(&ctx, &self.profile, &mut self.flame);
        }
        if let Some(page) = self.page {
            egui::CentralPanel::default().show(ui, |ui| self.page_ui(ui, page));
        } else {
            if !self.panels_hidden {
                self.side_panels_ui(ui);
            }
            egui::CentralPanel::default().show(ui, |ui| self.central_ui(ui));
        }
        self.screenshot(&ctx);
        if self.settings.view == Demo::Wave && self.settings.wave.playing {
            ctx.request_repaint();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if !self.start.ephemeral {
            eframe::set_value(storage, eframe::APP_KEY, &self.settings);
        }
    }
}

impl WavebrotApp {
    /// The controls (left) and the timing panel (right); hidden together in presenter mode (H).
    fn side_panels_ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::left("controls").default_size(250.0).show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| match self.settings.view {
                Demo::Wave => self.wave_controls_ui(ui),
                Demo::Mandelbrot => self.mandel_controls_ui(ui),
            });
        });
        egui::Panel::right("timing").default_size(330.0).show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                shell::timing_panel::timing_panel_ui(ui, &mut self.timing);
                shell::profile_ui::stage_bar_ui(ui, &self.profile, &mut self.flame, self.start.freeze_timings);
            });
        });
    }
}

/// The wgpu device eframe asks for: the adapter's own limits (egui-wgpu would ask for WebGL2
/// limits on GL, with no compute) and the features wavebrot's compute shaders use where present.
#[must_use]
pub fn device_descriptor(adapter: &wgpu::Adapter) -> wgpu::DeviceDescriptor<'static> {
    let wanted = wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::SHADER_F64
        | wgpu::Features::SUBGROUP;
    wgpu::DeviceDescriptor {
        label: Some("wavebrot device"),
        required_features: adapter.features() & wanted,
        required_limits: adapter.limits(),
        ..Default::default()
    }
}

/// eframe's wgpu setup with [`device_descriptor`] on wgpu's own choice of adapter.
#[must_use]
pub fn wgpu_setup() -> egui_wgpu::WgpuSetup {
    launch::window_process::DisplayAdapter::Auto.wgpu_setup()
}

/// Window and renderer options, drawing on `adapter`.
#[must_use]
pub fn native_options(ephemeral: bool, adapter: &launch::window_process::DisplayAdapter) -> eframe::NativeOptions {
    eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("wavebrot")
            .with_inner_size([1280.0, 780.0])
            .with_min_inner_size([640.0, 400.0]),
        renderer: eframe::Renderer::Wgpu,
        wgpu_options: egui_wgpu::WgpuConfiguration { wgpu_setup: adapter.wgpu_setup(), ..Default::default() },
        persist_window: !ephemeral,
        ..Default::default()
    }
}

/// Opens the app window in this process (the window process; `wavebrot gui` starts it through
/// [`launch::window_process::run_guarded`]).
///
/// # Errors
/// The window or its renderer could not be created, or a screenshot could not be saved.
pub fn run(args: &GuiArgs) -> anyhow::Result<()> {
    let outcome = Arc::new(Mutex::new(None));
    let note = std::env::var(launch::window_process::WINDOW_PROCESS_ENV).ok().filter(|v| !v.is_empty() && v != "1");
    let start = StartOptions {
        ephemeral: args.screenshot.is_some(),
        freeze_timings: false,
        screenshot: args.screenshot.clone().map(|p| (p, args.frames)),
        outcome: Some(Arc::clone(&outcome)),
        report_window_up: true,
        display_note: note,
    };
    if let Some((p, _)) = &start.screenshot {
        crate::output::check_writable(p)?;
    }
    let adapter = args.display_adapter.clone().unwrap_or_default();
    if launch::window_process::test_crash_requested(&adapter.to_string()) {
        eprintln!(
            "{}: crashing before the window opens on '{adapter}', as asked",
            launch::window_process::TEST_CRASH_ENV
        );
        std::process::abort();
    }
    let options = native_options(start.ephemeral, &adapter);
    let want_shot = args.screenshot.is_some();
    let args = args.clone();
    eframe::run_native(
        "wavebrot",
        options,
        Box::new(move |cc| {
            let app = WavebrotApp::new(cc, &args, start)?;
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    let result = outcome.lock().map(|mut g| g.take()).unwrap_or(None);
    match result {
        Some(Err(e)) => anyhow::bail!("{e}"),
        Some(Ok(())) => Ok(()),
        None if want_shot => anyhow::bail!("the window closed before the screenshot was taken"),
        None => Ok(()),
    }
}

/// An opaque RGBA8 picture (every alpha 255, as all the worker's pictures are) as egui's image:
/// one copy of the bytes. `ColorImage::from_rgba_unmultiplied` converts pixel by pixel, several
/// ms for the 2048x2048 picture of a big grid; for opaque pixels both give the same bytes.
fn opaque_image(size: [usize; 2], rgba: &[u8]) -> egui::ColorImage {
    debug_assert!(rgba.chunks_exact(4).all(|p| p[3] == 255), "the worker's pictures are opaque");
    egui::ColorImage::new(size, bytemuck::cast_slice::<u8, egui::Color32>(rgba).to_vec())
}

#[cfg(test)]
mod tests {
    /// Every character outside ASCII in the app's sources (labels, units, arrows) has a glyph in
    /// egui's bundled proportional fonts: a missing one is drawn as a box.
    #[test]
    fn every_label_character_has_a_glyph_in_the_bundled_fonts() {
        // Every `.rs` file under src/app/, found by walking the folder (no hand-kept list).
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app");
        let mut sources = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("src/app is readable") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).expect("a source file is UTF-8");
                    sources.push((path.strip_prefix(&root).expect("under src/app").display().to_string(), text));
                }
            }
        }
        assert!(sources.len() > 30, "the walk found only {} files under {}", sources.len(), root.display());
        let ctx = egui::Context::default();
        let _ = ctx.run_ui(egui::RawInput::default(), |_| {});
        let font = egui::FontId::proportional(14.0);
        let mut missing = Vec::new();
        ctx.fonts_mut(|fonts| {
            assert!(!fonts.has_glyph(&font, '\u{17000}'), "the check cannot see a missing glyph");
            for (file, text) in &sources {
                for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                    for c in line.chars().filter(|c| !c.is_ascii() && !fonts.has_glyph(&font, *c)) {
                        missing.push(format!("{file}: {c:?} (U+{:04X})", u32::from(c)));
                    }
                }
            }
        });
        assert!(missing.is_empty(), "characters without a glyph: {missing:?}");
    }
}
