//! The eframe desktop app: a live wave view and a Mandelbrot explorer, a backend picker and a
//! live CPU-vs-active-backend timing panel.
//!
//! The UI thread only draws and sends [`worker::messages::Command`]s: the active backend runs on the
//! `wavebrot-sim` thread ([`worker::simulation::Worker`]) and the CPU comparison on
//! `wavebrot-cpu-compare` ([`worker::compare::CpuCompare`]), so the window stays responsive whatever a
//! backend does.
//!
//! The rooms, from the ground up; each imports only the rooms before it (`APP_ROOMS`, checked
//! by `src/house_rules.rs`), and this file holds [`WavebrotApp`], which the views' panels
//! implement:
//! - [`widgets`]: small widgets any room uses.
//! - [`options`]: how the app starts (the view to open on, `wavebrot gui`'s flags), shared with
//!   the CLI.
//! - [`worker`]: everything off the UI thread (the simulation loop, frames to the screen,
//!   Mandelbrot passes, the CPU comparison, meters, the GIF recorder, the messages); the plain
//!   data it takes from the views is in `worker/look.rs`.
//! - [`parts`]: what every view shares (the backend picker, colour widgets and bars, the timing
//!   panel and its figures, the CPU load meter, the frame profile).
//! - [`wave`]: the wave view, its lab tools, meters and panel (`wave/panel.rs`).
//! - [`pages`]: the classroom pages (Race, Scaling, Lessons), each a thread file and a `_ui` file.
//! - [`mandel`]: the Mandelbrot explorer (camera, panels, bookmarks, export, movie, find).
//! - [`shell`]: the arrangement of the window (top bar, panels, keys, help, recording).
//! - `inbox`: what comes back from the app's threads.
//! - [`launch`]: settings saved between runs, the window in a guarded child process, the
//!   headless harness.
//!
//! UI code lives in functions and files named `*_ui` or in the views; nothing under `worker/`
//! draws.

mod inbox;
pub mod launch;
pub mod mandel;
pub mod options;
pub mod pages;
pub mod parts;
pub mod shell;
pub mod wave;
pub mod widgets;
pub mod worker;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use web_time::Instant;

use anyhow::Context as _;

use crate::backend::{BackendChoice, BackendKind, DeviceInfo};
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::Scene;

#[cfg(not(target_arch = "wasm32"))]
pub use launch::run::{native_options, run, wgpu_setup};
pub use launch::settings::Settings;
use mandel::state::MandelUi;
use mandel::view::MandelView;
pub use options::{Demo, GuiArgs};
use parts::controls::Probes;
use parts::timing_panel::TimingStats;
use wave::lab::LabState;
use wave::view::WaveSettings;
use worker::messages::{Command, WorkerInit};
use worker::simulation::Worker;

/// Where the screenshot run reports how it went (`None` while not taken).
pub type Outcome = Arc<Mutex<Option<anyhow::Result<()>>>>;

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
pub(crate) struct Shown {
    pub(crate) id: egui::TextureId,
    /// Set for uploaded pictures; `None` for native ones.
    pub(crate) handle: Option<egui::TextureHandle>,
    /// The texture of a native picture (uploaded ones are found through egui-wgpu's renderer).
    pub(crate) texture: Option<wgpu::Texture>,
}

impl std::fmt::Debug for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shown").field("id", &self.id).field("uploaded", &self.handle.is_some()).finish()
    }
}

/// The app: what every view shares here, each view's own state in its room's struct
/// ([`wave::state::WaveUi`], [`MandelUi`], [`pages::PagesUi`]), the CPU comparison's handle
/// ([`worker::compare::Comparing`]), the recording ([`shell::recording::Recording`]).
pub struct WavebrotApp {
    settings: Settings,
    start: StartOptions,
    worker: Worker,
    probes: Probes,
    active: Option<(BackendKind, DeviceInfo)>,
    notes: Vec<String>,
    /// The status bar's message and when it came.
    message: Option<(String, Instant)>,
    /// The CPU comparison thread, its job and the compute turn it shares.
    compare: worker::compare::Comparing,
    /// The wave view: picture, problem running, lab, meters, check.
    wave: wave::state::WaveUi,
    /// The Mandelbrot view: pictures shown and asked, bookmarks, export, check.
    mandel: MandelUi,
    /// The classroom pages.
    pages: pages::PagesUi,
    /// Record (G).
    recording: shell::recording::Recording,
    /// Presenter mode: the side panels hidden (H).
    panels_hidden: bool,
    /// The key list is shown (F1 or ?).
    help: bool,
    /// The getting-started page is shown (the top bar's button).
    getting_started: bool,
    /// Where each frame's time goes (puffin), and whether the flame view is open.
    profile: parts::profile::FrameProfile,
    flame: bool,
    /// Test seam: the next checks get a wrong reference, so a mismatch can be shown.
    check_fault: bool,
    timing: TimingStats,
    frames: u64,
    content_frames: u64,
    ping: u64,
    /// The screenshot run's channel and whether it was asked.
    shot: launch::screenshot::Shot,
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
        if let Some(link) = &args.link
            && let Err(e) = app.open_link(link)
        {
            app.say_link_error(&e);
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
            (BackendKind::Cuda, Err(crate::backend::NotAvailable("not probed in tests".to_owned()))),
            (BackendKind::Wgpu, Err(crate::backend::NotAvailable("not probed in tests".to_owned()))),
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
        // While the CPU sides are measured alike the window is held still: a new picture's wake
        // then waits for the measurement's own, which follows it.
        let hush = Arc::new(worker::hush::Hush::default());
        let held = Arc::clone(&hush);
        let worker = Worker::spawn(init, move || {
            if !held.asked() {
                wake_ctx.request_repaint();
            }
        })
        .context("cannot start the simulation thread")?;
        let mut timing = TimingStats::new(start.freeze_timings);
        timing.clear(settings.view);
        timing.display_adapter = render_state.as_ref().map(|rs| {
            let i = rs.adapter.get_info();
            format!("{} ({:?})", i.name, i.backend)
        });
        let grid = (settings.wave.scene.nx, settings.wave.scene.ny);
        Ok(Self {
            settings,
            start,
            worker,
            probes,
            active: None,
            notes: Vec::new(),
            message: None,
            compare: worker::compare::Comparing::new(turn, hush),
            wave: wave::state::WaveUi::new(grid),
            mandel: MandelUi::default(),
            pages: pages::PagesUi::default(),
            recording: shell::recording::Recording::default(),
            panels_hidden: false,
            help: false,
            getting_started: false,
            profile: parts::profile::FrameProfile::start(),
            flame: false,
            check_fault: false,
            timing,
            frames: 0,
            content_frames: 0,
            ping: 0,
            shot: launch::screenshot::Shot::default(),
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
        self.wave.running
    }

    /// The scene of the last wave frame: what the simulation thread runs.
    #[must_use]
    pub fn wave_scene(&self) -> Option<&Scene> {
        self.wave.scene.as_deref()
    }

    /// The 3D view's camera and toggle (tests set the height as the slider does).
    pub fn wave_surface_mut(&mut self) -> &mut wave::surface_ui::SurfaceView {
        &mut self.wave.surface
    }

    /// The screen point of cell coordinates `(x, y)` in the wave picture drawn last.
    #[must_use]
    pub fn field_point(&self, x: f64, y: f64) -> Option<egui::Pos2> {
        self.wave.field_map.map(|m| m.point(x, y))
    }

    /// The screen's intensity graph beside the wave picture as drawn last: its measured curve,
    /// a point per row of the grid (empty while it averages); `None` without a screen.
    #[must_use]
    pub fn screen_graph(&self) -> Option<&[egui::Pos2]> {
        self.wave.screen_graph.as_deref()
    }

    /// The last Mandelbrot check of the active backend against the CPU.
    #[must_use]
    pub fn last_mandelbrot_check(&self) -> Option<&worker::compare::MandelCheck> {
        self.mandel.check.as_ref()
    }

    /// The last check of the active backend against the CPU.
    #[must_use]
    pub fn last_check(&self) -> Option<&worker::messages::CheckResult> {
        self.wave.check.as_ref().map(|(r, _)| r)
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
        self.wave.check = None;
        self.mandel.check = None;
    }

    /// The wave lab's tools (which one is active, the selected source).
    pub fn lab_mut(&mut self) -> &mut LabState {
        &mut self.wave.lab
    }

    /// What the meters measured last (colour range, energy, intensity).
    #[must_use]
    pub fn measured(&self) -> Option<&worker::messages::Measured> {
        self.wave.meters.last.as_ref()
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
        self.wave.tex.as_ref().is_some_and(|s| s.handle.is_none())
    }

    /// Where the app's frames spend their time (puffin scopes per stage).
    #[must_use]
    pub fn frame_profile(&self) -> &parts::profile::FrameProfile {
        &self.profile
    }

    /// The last message shown to the user (a refusal or failure).
    #[must_use]
    pub fn message(&self) -> Option<&str> {
        self.message.as_ref().map(|(m, _)| m.as_str())
    }

    /// Opens the getting-started page (tests; the top bar has its button).
    pub fn open_getting_started(&mut self) {
        self.getting_started = true;
    }

    /// Whether the getting-started page is shown.
    #[must_use]
    pub fn getting_started_shown(&self) -> bool {
        self.getting_started
    }

    /// Starts one of the getting-started page's guided demos.
    fn guided(&mut self, g: shell::getting_started::Guided) {
        use shell::getting_started::Guided;
        match g {
            Guided::Race => self.set_page(Some(pages::Page::Race)),
            Guided::DoubleSlit => {
                self.set_page(None);
                self.set_view(Demo::Wave);
                match crate::sim::wave::scene::preset("double-slit") {
                    Ok(scene) => {
                        self.settings.wave.load_scene(scene, "double-slit");
                        let mut out = wave::lab::LabOutcome::default();
                        out.fresh();
                        out.look = true;
                        self.apply_lab(out);
                    }
                    Err(e) => self.say(e.to_string()),
                }
            }
            Guided::Dive => {
                self.set_page(None);
                self.set_view(Demo::Mandelbrot);
                let text = mandel::bookmarks_ui::SHIPPED.iter().find(|(n, _)| n.starts_with("spiral-at-i-1e100"));
                match text.map(|(_, t)| crate::sim::fractal::location::Location::from_toml(t)) {
                    Some(Ok(loc)) => mandel::bookmarks_ui::go_to(&mut self.settings.mandelbrot, &loc),
                    Some(Err(e)) => self.say(e.to_string()),
                    None => self.say("the spiral at i is not among the shipped places".to_owned()),
                }
            }
        }
    }

    fn set_view(&mut self, v: Demo) {
        if self.settings.view != v {
            self.settings.view = v;
            self.timing.clear(v);
            self.forget_checks();
            self.worker.send(Command::SetView(v));
        }
    }

    /// What is timed on the machine's cores now, for the load note: the CPU copy when it runs,
    /// and the active backend while the waves run or a picture is being computed, on the cores
    /// when it is `cpu`, `cpu1` or a software renderer (`renderer_computes`).
    fn measured_now(&self, renderer_computes: bool) -> parts::load::Measured {
        let timed = match self.settings.view {
            Demo::Wave => self.settings.wave.playing && self.wave.running.is_some(),
            // A picture asked and not yet shown whole.
            Demo::Mandelbrot => self
                .mandel
                .sent
                .as_ref()
                .is_some_and(|sent| self.mandel.shown.as_ref().is_none_or(|s| s.request != *sent || s.coarse > 1)),
        };
        let on_cpu = renderer_computes || matches!(&self.active, Some((BackendKind::Cpu | BackendKind::Cpu1, _)));
        let copy = self.compare.job != worker::messages::CompareJob::Off;
        parts::load::Measured { copy, timed, on_cpu }
    }

    fn toggle_play(&mut self) {
        self.settings.wave.playing = !self.settings.wave.playing;
        self.worker.send(Command::SetPlaying(self.settings.wave.playing));
    }
}

impl eframe::App for WavebrotApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        parts::profile::FrameProfile::new_frame();
        puffin::profile_scope!("ui");
        // The CPU comparison's measurements wait for this frame (and its paint) to end.
        self.compare.hush.frame_began();
        self.frames += 1;
        self.report_window_up(&ctx);
        let dt = ui.input(|i| i.unstable_dt);
        self.timing.record_ui_frame(f64::from(dt));
        let renderer_computes =
            matches!(&self.active, Some((BackendKind::Wgpu, d)) if parts::load::is_software_renderer(&d.name));
        self.timing.load.sample(renderer_computes, self.timing.cores);
        self.timing.measured = self.measured_now(renderer_computes);
        self.timing.set_cpu_enabled(self.settings.cpu_compare);
        self.timing.fastest = self.settings.wave.fastest;
        self.poll_worker();
        #[cfg(target_arch = "wasm32")]
        self.web_links();
        self.take_dropped_files(&ctx);
        self.keyboard(&ctx);
        self.steer_compare(&ctx);
        egui::Panel::top("top").show(ui, |ui| self.top_bar_ui(ui));
        // One fixed line for what happened (saved, opened, refused): nothing above it moves.
        egui::Panel::bottom("status").exact_size(24.0).show(ui, |ui| self.status_bar_ui(ui));
        if self.help {
            shell::panels::help_window(&ctx, &mut self.help);
        }
        if self.getting_started
            && let Some(g) = shell::getting_started::getting_started_window(&ctx, &mut self.getting_started)
        {
            self.getting_started = false;
            self.guided(g);
        }
        if self.flame {
            parts::profile_ui::flame_window(&ctx, &self.profile, &mut self.flame);
        }
        if let Some(page) = self.pages.page {
            egui::CentralPanel::default().show(ui, |ui| self.page_ui(ui, page));
        } else {
            if !self.panels_hidden {
                self.side_panels_ui(ui);
            }
            egui::CentralPanel::default().show(ui, |ui| self.central_ui(ui));
        }
        self.screenshot(&ctx);
        // While the CPU sides are measured alike the simulation waits, so the picture would not
        // change: the window draws nothing until the measurement wakes it.
        // At most 60 frames a second of its own (the worker wakes it for each new picture): a
        // window without vsync (a software adapter, Xvfb) otherwise redraws as fast as it can and
        // takes the cores the simulation and its comparison are measured on.
        if self.settings.view == Demo::Wave && self.settings.wave.playing && !self.compare.quiet() {
            ctx.request_repaint_after(std::time::Duration::from_millis(16));
        }
        self.compare.hush.frame_ended();
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
                parts::timing_panel::timing_panel_ui(ui, &mut self.timing);
                parts::profile_ui::stage_bar_ui(ui, &self.profile, &mut self.flame, self.start.freeze_timings);
            });
        });
    }
}

/// The wgpu device eframe asks for: the backend's own ([`crate::backend::wgpu::device_descriptor`]),
/// so that the app's device and the CLI's are asked for alike.
pub use crate::backend::wgpu::device_descriptor;

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
        // The first frame builds the font atlas; its texture delta is dropped on purpose.
        let mut out = ctx.run_ui(egui::RawInput::default(), |_| {});
        out.textures_delta.clear();
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
