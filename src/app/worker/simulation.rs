//! The simulation thread (`wavebrot-sim`), so the window never waits on a computation.
//!
//! [`Worker`] owns the active backend: it steps the wave scene a slider's worth of steps per
//! frame, measures it ([`crate::app::worker::meter`]), colours it ([`crate::app::worker::display`]) and hands the frame to
//! the UI through a one-slot channel (so it runs at most one frame ahead of the window), and
//! renders the Mandelbrot view when it changed (a coarse pass first when the full one would take
//! long, the full one in tiles dropped for a newer view; the arithmetic, orbits and tiles are
//! [`crate::app::worker::mandel`]) and exports Mandelbrot pictures tile by tile with progress and cancel. Scene and grid changes are applied here,
//! off the UI thread: sources are swapped in place, other edits reopen the scene with the waves
//! carried over; a scene or size the backend refuses leaves the previous one running. Frame
//! buffers come back from the UI ([`Worker::recycle`]) so memory stays flat.
//!
//! Size: about 900 lines, 150 of them the tests that drive the thread with a fake backend: the
//! thread's loop, its wave frames and its Mandelbrot passes and exports share its state.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::backend::tiles::DEFAULT_TILE_PIXELS;
use crate::backend::{self, Backend, BackendChoice, Timing, WaveSim};
use crate::sim::wave::scene::Scene;

use crate::app::launch::options::Demo;
use crate::app::wave::view::WaveLook;
use crate::app::worker::display::{Display, Opened, open_backend};
use crate::app::worker::mandel::MandelWork;
use crate::app::worker::messages::{
    CHECK_STEPS, CheckResult, Command, ExportJob, ExportStatus, FrameSource, MandelRequest, MandelbrotFrame, Msg,
    WaveFrame, WorkerInit,
};
use crate::app::worker::meter::Meter;

/// How long the worker may compute before it looks at its commands again.
const SLICE: Duration = Duration::from_millis(40);

/// A Mandelbrot pass expected to take longer than this is preceded by a coarse one (1/2, 1/4 or
/// 1/8 of the size a side) that fits in it, so zooming stays fluid at any depth.
const COARSE_BUDGET: Duration = Duration::from_millis(35);

/// The full Mandelbrot pass is computed in tiles of about this long, and abandoned between
/// two when a newer view is asked for.
const TILE_BUDGET: Duration = Duration::from_millis(120);

/// An export is computed in tiles of about this long (unless a tile size is set), so its
/// progress moves and Cancel acts within a second at any size and depth.
const EXPORT_TILE: Duration = Duration::from_millis(250);

/// The compute time of the one large call that measures a backend without launch overhead.
const LARGE_CALL: Duration = Duration::from_millis(30);

/// Opens the backend a choice names (swapped for a fake one in tests).
type Opener = Box<dyn Fn(BackendChoice) -> Result<Opened, backend::BackendError> + Send>;

/// Handle on the simulation thread.
pub struct Worker {
    commands: Sender<Command>,
    messages: Option<Receiver<Msg>>,
    recycle: Sender<Vec<u8>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the thread; `wake` is called after each message so the UI repaints.
    ///
    /// # Errors
    /// The thread could not be spawned.
    pub fn spawn(init: WorkerInit, wake: impl Fn() + Send + Sync + 'static) -> std::io::Result<Self> {
        let render_state = init.render_state.clone();
        Self::spawn_with(init, Box::new(move |c| open_backend(c, render_state.as_ref())), wake)
    }

    fn spawn_with(init: WorkerInit, open: Opener, wake: impl Fn() + Send + Sync + 'static) -> std::io::Result<Self> {
        let (commands, command_rx) = mpsc::channel();
        let (msg_tx, messages) = mpsc::sync_channel(1);
        let (recycle, recycle_rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("wavebrot-sim".into())
            .spawn(move || SimLoop::new(init, open, command_rx, msg_tx, recycle_rx, Arc::new(wake)).run())?;
        Ok(Self { commands, messages: Some(messages), recycle, thread: Some(thread) })
    }

    /// Sends a command; a dead worker is ignored here and noticed by the UI as silence.
    pub fn send(&self, c: Command) {
        let _ = self.commands.send(c);
    }

    /// The next message, if one is waiting.
    pub fn try_recv(&self) -> Option<Msg> {
        self.messages.as_ref().and_then(|m| m.try_recv().ok())
    }

    /// Waits up to `timeout` for the next message.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<Msg> {
        self.messages.as_ref().and_then(|m| m.recv_timeout(timeout).ok())
    }

    /// Gives a frame buffer back for reuse.
    pub fn recycle(&self, buf: Vec<u8>) {
        let _ = self.recycle.send(buf);
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Quit);
        // Dropping the receiver unblocks a worker waiting to hand over a frame.
        self.messages = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct SimLoop {
    commands: Receiver<Command>,
    inbox: std::collections::VecDeque<Command>,
    out: SyncSender<Msg>,
    wake: Arc<dyn Fn() + Send + Sync>,
    backend: Box<dyn Backend>,
    sim: Option<Box<dyn WaveSim>>,
    /// The scene running (or, before the first open, to run).
    scene: Arc<Scene>,
    /// The last scene asked for and whether to keep the waves (applied between frames).
    pending_scene: Option<(Scene, bool)>,
    look: WaveLook,
    meter: Meter,
    playing: bool,
    steps_per_frame: u32,
    fastest: bool,
    pending_steps: u32,
    vmin: f32,
    vmax: f32,
    view: Demo,
    redraw: bool,
    mandelbrot: Option<MandelRequest>,
    last_mandelbrot: Option<MandelRequest>,
    mandel: MandelWork,
    /// Seconds per pixel of the last full Mandelbrot pass (0: none yet) and its iterations.
    mandel_secs_per_pixel: f64,
    mandel_pass_iters: u32,
    /// Smooth escape values of the last Mandelbrot pass (when its colours asked for them).
    smooth: Vec<f32>,
    /// The last full Mandelbrot pass: its request, arithmetic, direct parameters and whether
    /// `smooth` holds its values, so a change of colours only colours `counts` again.
    mandel_done: Option<(MandelRequest, String, Option<crate::sim::fractal::mandelbrot::MandelbrotParams>, bool)>,
    per_step: Duration,
    counts: Vec<i32>,
    open: Opener,
    display: Display,
    /// Seconds per update in one large call, for `(backend, nx, ny)`.
    large_call: Option<((backend::BackendKind, usize, usize), f64)>,
    turn: crate::app::worker::messages::ComputeTurn,
    /// Test seam: the check's reference is made wrong on purpose.
    check_fault: bool,
    quit: bool,
}

impl SimLoop {
    fn new(
        init: WorkerInit,
        open: Opener,
        commands: Receiver<Command>,
        out: SyncSender<Msg>,
        recycle: Receiver<Vec<u8>>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> Self {
        let (opened, error) = match open(init.backend) {
            Ok(o) => (o, None),
            Err(e) => {
                let cpu = Box::new(backend::cpu::CpuBackend::new(backend::cpu::Threads::All));
                (Opened { backend: cpu, notes: Vec::new(), shares_display: false }, Some(e))
            }
        };
        let Opened { backend, notes, shares_display } = opened;
        let mut s = Self {
            commands,
            inbox: std::collections::VecDeque::new(),
            out,
            wake,
            backend,
            sim: None,
            scene: Arc::new(init.scene.clone()),
            pending_scene: None,
            look: init.look,
            meter: Meter::default(),
            playing: init.playing,
            steps_per_frame: init.steps_per_frame.max(1),
            fastest: init.fastest,
            pending_steps: 0,
            vmin: init.vmin,
            vmax: init.vmax,
            view: init.view,
            redraw: true,
            mandelbrot: None,
            last_mandelbrot: None,
            mandel: MandelWork::default(),
            mandel_secs_per_pixel: 0.0,
            mandel_pass_iters: 1,
            smooth: Vec::new(),
            mandel_done: None,
            per_step: Duration::from_micros(100),
            counts: Vec::new(),
            open,
            display: Display::new(init.render_state.clone(), recycle),
            large_call: None,
            turn: init.turn.clone(),
            check_fault: false,
            quit: false,
        };
        s.display.set_backend(shares_display);
        if let Some(e) = error {
            s.send(Msg::Error(format!("{e}; using the CPU")));
        }
        s.announce_backend(notes);
        s.open_sim(init.scene, None);
        s
    }

    /// Hands a message to the UI (waiting while the previous one is not taken yet).
    fn send(&mut self, m: Msg) {
        if self.out.send(m).is_err() {
            self.quit = true;
        }
        (self.wake)();
    }

    fn announce_backend(&mut self, notes: Vec<String>) {
        let msg = Msg::Backend { kind: self.backend.kind(), device: self.backend.device_info(), notes };
        self.send(msg);
    }

    /// Opens `scene` on the backend, with the waves `carry` (fields `f`, `g` and the time step)
    /// written in where given; on refusal the previous scene keeps running.
    fn open_sim(&mut self, scene: Scene, carry: Option<(Vec<f32>, Vec<f32>, u32)>) {
        let (nx, ny) = (scene.nx, scene.ny);
        let refused = match self.backend.new_scene(&scene) {
            Ok(mut sim) => {
                if let Some((f, g, t)) = carry
                    && let Err(e) = sim.write_fields(&f, &g, t)
                {
                    log::warn!("the waves could not be carried over ({e}); starting from rest");
                    let _ = sim.reset();
                }
                // Free the old fields before the next allocation.
                self.sim = Some(sim);
                self.scene = Arc::new(scene);
                self.meter.clear();
                self.redraw = true;
                false
            }
            Err(e) => {
                let what = if (nx, ny) == (self.scene.nx, self.scene.ny) { "scene" } else { "grid" };
                self.send(Msg::Error(format!("{what} {nx}x{ny} refused: {e}; the previous {what} keeps running")));
                true
            }
        };
        if self.sim.is_none() {
            // A new backend without room for the scene: start it on the default preset.
            if let Ok(p) = crate::sim::wave::scene::preset(crate::sim::wave::scene::DEFAULT_PRESET)
                && let Ok(sim) = self.backend.new_scene(&p)
            {
                self.sim = Some(sim);
                self.scene = Arc::new(p);
                self.meter.clear();
                self.redraw = true;
            }
        }
        self.send(Msg::Grid { nx: self.scene.nx, ny: self.scene.ny, refused });
    }

    /// Runs `scene`: its sources swapped in place when only they changed (the waves go on),
    /// otherwise opened anew with the waves carried over when asked and the grid is the same.
    fn apply_scene(&mut self, scene: Scene, keep_waves: bool) {
        // From rest (a file opened, a preset picked) even where it is the scene running.
        if keep_waves && *self.scene == scene && self.sim.is_some() {
            return;
        }
        if let Err(e) = scene.validate() {
            self.send(Msg::Error(format!("scene refused: {e}; the previous scene keeps running")));
            self.send(Msg::Grid { nx: self.scene.nx, ny: self.scene.ny, refused: true });
            return;
        }
        let only_sources = {
            let mut same = scene.clone();
            same.sources.clone_from(&self.scene.sources);
            same == *self.scene && scene.sources.len() == self.scene.sources.len()
        };
        if keep_waves && only_sources && let Some(sim) = self.sim.as_mut() {
            match sim.set_sources(&scene.sources) {
                Ok(()) => {
                    self.scene = Arc::new(scene);
                    self.redraw = true;
                    return;
                }
                // A plain problem, or buffers that cannot hold the change: reopen below.
                Err(e) => log::debug!("sources not swapped in place: {e}"),
            }
        }
        let same_grid = (scene.nx, scene.ny) == (self.scene.nx, self.scene.ny);
        let carry = if keep_waves && same_grid { self.sim.as_mut().and_then(|s| read_waves(s.as_mut())) } else { None };
        self.open_sim(scene, carry);
    }

    fn run(mut self) {
        while !self.quit {
            if !self.has_work() && self.inbox.is_empty() {
                match self.commands.recv_timeout(Duration::from_millis(250)) {
                    Ok(c) => self.apply(c),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            while let Some(c) = self.inbox.pop_front() {
                self.apply(c);
            }
            loop {
                match self.commands.try_recv() {
                    Ok(c) => self.apply(c),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
            if self.quit {
                return;
            }
            self.work();
        }
    }

    fn has_work(&self) -> bool {
        self.pending_scene.is_some()
            || match self.view {
                Demo::Wave => self.playing || self.pending_steps > 0 || self.redraw,
                Demo::Mandelbrot => self.mandelbrot.is_some(),
            }
    }

    fn work(&mut self) {
        if let Some((scene, keep)) = self.pending_scene.take() {
            self.apply_scene(scene, keep);
        }
        match self.view {
            Demo::Wave => self.wave_frame(),
            Demo::Mandelbrot => self.mandelbrot_frame(),
        }
    }

    fn apply(&mut self, c: Command) {
        match c {
            Command::SetBackend(choice) => match (self.open)(choice) {
                Ok(Opened { backend, notes, shares_display }) => {
                    // Free the old problem and picture before allocating on the new device.
                    self.sim = None;
                    self.display.set_backend(shares_display);
                    self.backend = backend;
                    self.announce_backend(notes);
                    self.open_sim((*self.scene).clone(), None);
                    self.mandelbrot.clone_from(&self.last_mandelbrot);
                    self.mandel_secs_per_pixel = 0.0;
                }
                Err(e) => self.send(Msg::Error(format!("{e}; staying on {}", self.backend.kind()))),
            },
            Command::SetScene { scene, keep_waves } => {
                // Coalesced: a burst of edits that all keep the waves still keeps them.
                let keep = keep_waves && self.pending_scene.as_ref().is_none_or(|(_, k)| *k);
                self.pending_scene = Some((*scene, keep));
            }
            Command::SetLook(look) => {
                if look.intensity != self.look.intensity || look.probes != self.look.probes {
                    self.meter.clear();
                }
                self.look = look;
                self.redraw = true;
            }
            Command::SetPlaying(p) => self.playing = p,
            Command::SetStepsPerFrame(n) => self.steps_per_frame = n.max(1),
            Command::SetFastest(f) => self.fastest = f,
            Command::SetContrast { vmin, vmax } => {
                self.vmin = vmin;
                self.vmax = vmax;
                self.redraw = true;
            }
            Command::Step => self.pending_steps = self.pending_steps.saturating_add(self.steps_per_frame),
            Command::Check => {
                if let Some((scene, keep)) = self.pending_scene.take() {
                    self.apply_scene(scene, keep);
                }
                self.check();
            }
            Command::InjectCheckFault(on) => self.check_fault = on,
            Command::Reset => {
                if let Some((scene, keep)) = self.pending_scene.take() {
                    self.apply_scene(scene, keep);
                }
                let r = self.sim.as_mut().map(|s| s.reset());
                if let Some(Err(e)) = r {
                    self.send(Msg::Error(e.to_string()));
                }
                self.meter.clear();
                self.redraw = true;
            }
            Command::SetView(v) => {
                self.view = v;
                self.redraw = true;
                if v == Demo::Mandelbrot && self.mandelbrot.is_none() {
                    self.mandelbrot.clone_from(&self.last_mandelbrot);
                }
            }
            Command::Mandelbrot(r) => {
                self.last_mandelbrot = Some(r.clone());
                self.mandelbrot = Some(r);
            }
            Command::Export(job) => self.export(&job),
            // Only meaningful while an export runs (see `export`).
            Command::CancelExport => {}
            Command::Ping(n) => {
                // Everything asked before the ping is done before the answer.
                while let Some(c) = self.inbox.pop_front() {
                    self.apply(c);
                }
                if self.pending_scene.is_some() || self.pending_steps > 0 || self.redraw || self.mandelbrot.is_some() {
                    let playing = std::mem::replace(&mut self.playing, false);
                    self.work();
                    self.playing = playing;
                }
                self.send(Msg::Pong(n));
            }
            Command::Quit => self.quit = true,
        }
    }

    /// Runs [`CHECK_STEPS`] steps on the active backend from its current state, and the same on
    /// the CPU reference (`cpu1`, one core, whatever the active backend is) from the same state
    /// in a thread of its own, then reports `max |diff|` of both fields against what the backend
    /// promises.
    fn check(&mut self) {
        let backend = self.backend.kind();
        let against = backend::BackendKind::Cpu1;
        let fault = self.check_fault;
        let tolerance =
            if backend == backend::BackendKind::Wgpu { f64::from(crate::sim::wave::WAVE_TOLERANCE) } else { 0.0 };
        let fail = move |from, e: String| CheckResult {
            backend,
            against,
            from,
            steps: 0,
            max_diff: f64::NAN,
            tolerance,
            error: Some(e),
        };
        let Some(mut sim) = self.sim.take() else { return };
        let from = sim.tstep();
        let start = read_waves(sim.as_mut());
        let advanced = {
            let turn = Arc::clone(&self.turn);
            let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            sim.advance(CHECK_STEPS)
        };
        let end = if advanced.is_ok() { read_waves(sim.as_mut()) } else { None };
        self.sim = Some(sim);
        self.redraw = true;
        let (Some((f0, g0, _)), Some((f1, g1, _))) = (start, end) else {
            let why = advanced.err().map_or_else(|| "the fields could not be read back".to_owned(), |e| e.to_string());
            self.send(Msg::Check(fail(from, why)));
            return;
        };
        let scene = (*self.scene).clone();
        let out = self.out.clone();
        let wake = Arc::clone(&self.wake);
        let spawned = std::thread::Builder::new().name("wavebrot-check".into()).spawn(move || {
            let cpu = backend::cpu::CpuBackend::new(backend::cpu::Threads::One);
            let run = || -> Result<f64, backend::BackendError> {
                let mut s = cpu.new_scene(&scene)?;
                s.write_fields(&f0, &g0, from)?;
                s.advance(CHECK_STEPS)?;
                let (mut f, mut g) = (vec![0.0; f1.len()], vec![0.0; g1.len()]);
                s.read_fields(&mut f, &mut g)?;
                if fault && let Some(v) = f.get_mut(f1.len() / 2) {
                    *v += 1.0;
                }
                let d = crate::sim::wave::max_abs_diff(&f, &f1).max(crate::sim::wave::max_abs_diff(&g, &g1));
                Ok(f64::from(d))
            };
            let r = match run() {
                Ok(max_diff) => {
                    CheckResult { backend, against, from, steps: CHECK_STEPS, max_diff, tolerance, error: None }
                }
                Err(e) => fail(from, e.to_string()),
            };
            let _ = out.send(Msg::Check(r));
            wake();
        });
        if let Err(e) = spawned {
            self.send(Msg::Check(fail(from, format!("cannot start the check: {e}"))));
        }
    }

    /// Times one large call (about [`LARGE_CALL`] of compute) on a copy of the running scene,
    /// once per backend and grid, so the panel can tell launch overhead from compute. Skipped on
    /// grids too large to hold twice comfortably.
    fn probe_large_call(&mut self) {
        let key = (self.backend.kind(), self.scene.nx, self.scene.ny);
        if self.large_call.is_some_and(|(k, _)| k == key) || self.scene.cells() > 1 << 24 || !self.playing {
            return;
        }
        let mut steps = (LARGE_CALL.as_secs_f64() / self.per_step.as_secs_f64().max(1e-9)).clamp(2.0, 1e6) as u32;
        let Ok(mut copy) = self.backend.new_scene(&self.scene) else { return };
        let turn = Arc::clone(&self.turn);
        let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // The small calls' rate overstates a step's cost: grow the call until it is long enough.
        for _ in 0..4 {
            let Ok(t) = copy.advance(steps) else { return };
            let secs = t.best().as_secs_f64();
            self.large_call = Some((key, secs / (2.0 * f64::from(steps))));
            if secs >= LARGE_CALL.as_secs_f64() / 3.0 || steps >= 1_000_000 {
                return;
            }
            steps = (steps.saturating_mul(4)).min(1_000_000);
        }
    }

    fn wave_frame(&mut self) {
        let steps = match (self.playing, self.fastest) {
            // As many steps as fill the frame budget at the last measured rate.
            (true, true) => {
                let fit = crate::app::wave::view::FASTEST_BUDGET.as_secs_f64() / self.per_step.as_secs_f64().max(1e-9);
                (fit as u32).clamp(1, 1_000_000)
            }
            (true, false) => self.steps_per_frame,
            (false, _) => std::mem::take(&mut self.pending_steps),
        };
        if steps == 0 && !self.redraw {
            return;
        }
        self.redraw = false;
        let Some(mut sim) = self.sim.take() else { return };
        let msg = self.wave_frame_on(sim.as_mut(), steps);
        self.sim = Some(sim);
        self.send(msg);
        self.probe_large_call();
    }

    /// Advances `sim` by `steps` (in slices, and in samples where the look needs them), measures
    /// and draws it: the frame, or what failed.
    fn wave_frame_on(&mut self, sim: &mut dyn WaveSim, steps: u32) -> Msg {
        let start = Instant::now();
        let mut advance =
            Timing { wall: Duration::ZERO, device: Some(Duration::ZERO), source: backend::TimingSource::WallClock };
        let every = Meter::sample_every(&self.look, &self.scene);
        if let Some(e) = every
            && self.meter.next_sample() <= sim.tstep()
            && let Err(m) = self.meter.sample(sim, &self.look, e)
        {
            return Msg::Error(m);
        }
        let mut done = 0;
        while done < steps {
            let fit = (SLICE.as_secs_f64() / self.per_step.as_secs_f64().max(1e-9)) as u32;
            let mut chunk = fit.clamp(1, steps - done);
            if every.is_some() {
                chunk = chunk.min(self.meter.next_sample().saturating_sub(sim.tstep()).max(1));
            }
            let turn = std::sync::Arc::clone(&self.turn);
            let advanced = {
                let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                puffin::profile_scope!("compute");
                sim.advance(chunk)
            };
            match advanced {
                Ok(t) => {
                    advance.wall += t.wall;
                    advance.device = advance.device.zip(t.device).map(|(a, b)| a + b);
                    advance.source = t.source;
                    self.per_step = t.wall / chunk;
                }
                Err(e) => {
                    self.playing = false;
                    return Msg::Error(format!("step failed: {e}"));
                }
            }
            done += chunk;
            if let Some(e) = every
                && sim.tstep() >= self.meter.next_sample()
                && let Err(m) = self.meter.sample(sim, &self.look, e)
            {
                return Msg::Error(m);
            }
            if done < steps && start.elapsed() > SLICE {
                // Look at the commands between slices so a long frame never locks the controls.
                if let Ok(c) = self.commands.try_recv() {
                    self.inbox.push_back(c);
                    break;
                }
            }
        }
        if advance.source == backend::TimingSource::WallClock {
            advance.device = None;
        }
        let tstep = sim.tstep();
        let manual = (self.vmin, self.vmax);
        let measured = match self.meter.finish(sim, &self.scene, &self.look, manual, every.unwrap_or(0), !self.playing)
        {
            Ok(m) => m,
            Err(e) => return Msg::Error(e),
        };
        let (lo, hi) = measured.range;
        let shown = if measured.intensity && !self.meter.intensity().is_empty() {
            let (nx, ny) = (self.scene.nx, self.scene.ny);
            let (values, (lo, hi)) = self.meter.intensity_picture(self.look.intensity_log, (lo, hi));
            Ok(self.display.host_frame(values, nx, ny, lo, hi))
        } else {
            self.display.wave_frame(sim, lo, hi)
        };
        match shown {
            Ok((pixels, render)) => Msg::Wave(WaveFrame {
                pixels,
                scene: Arc::clone(&self.scene),
                params: *sim.params(),
                tstep,
                steps: done,
                advance,
                render,
                measured,
                dram_bytes_per_update: sim.dram_bytes_per_update(done.max(1)),
                large_call_update_secs: self.large_call.map(|(_, s)| s),
            }),
            Err(e) => Msg::Error(e),
        }
    }

    /// Renders the Mandelbrot view asked for last: a coarse pass first when the full one would
    /// take longer than [`COARSE_BUDGET`], then the full picture in tiles of about
    /// [`TILE_BUDGET`], abandoned when a newer view is waiting.
    fn mandelbrot_frame(&mut self) {
        let Some(req) = self.mandelbrot.take() else { return };
        if let Some((done, arith, params, smooth)) = self.mandel_done.clone()
            && done.same_counts(&req)
        {
            // Only the colours changed: colour the counts again.
            let (w, h) = (req.width, req.height);
            let mut rgba = self.display.buffer(w * h * 4);
            let sm = smooth.then_some(self.smooth.as_slice());
            crate::sim::colour::palette::colour_rgba(&self.counts, sm, w, h, req.iters, &req.colour, &mut rgba);
            self.mandel_done = Some((req.clone(), arith.clone(), params, smooth));
            let frame = MandelbrotFrame {
                pixels: FrameSource::Rgba { rgba, width: w, height: h },
                request: req,
                width: w,
                height: h,
                coarse: 1,
                params,
                arith,
                counts: self.counts.clone(),
                total_iters: 0,
                timing: backend::Timing::wall(Duration::ZERO),
            };
            self.send(Msg::Mandelbrot(frame));
            return;
        }
        let estimate = self.mandel_secs_per_pixel * (req.width * req.height) as f64;
        let mut coarse = 1;
        while coarse < 8 && estimate / (coarse * coarse) as f64 > COARSE_BUDGET.as_secs_f64() {
            coarse *= 2;
        }
        if coarse > 1 {
            self.mandelbrot_pass(&req, coarse);
            if self.newer_view_waiting() {
                return;
            }
        }
        self.mandelbrot_pass(&req, 1);
    }

    /// Moves the commands sent so far into the inbox; true when one of them replaces the view
    /// being drawn.
    fn newer_view_waiting(&mut self) -> bool {
        while let Ok(c) = self.commands.try_recv() {
            self.inbox.push_back(c);
        }
        self.inbox.iter().any(|c| {
            matches!(
                c,
                Command::Mandelbrot(_)
                    | Command::SetView(_)
                    | Command::SetBackend(_)
                    | Command::Export(_)
                    | Command::Quit
            )
        })
    }

    /// One pass of `req` at `1/coarse` of its size a side.
    fn mandelbrot_pass(&mut self, req: &MandelRequest, coarse: usize) {
        let (w, h) = (req.width.div_ceil(coarse).max(1), req.height.div_ceil(coarse).max(1));
        let tile = if coarse == 1 && self.mandel_secs_per_pixel > 0.0 {
            ((TILE_BUDGET.as_secs_f64() / self.mandel_secs_per_pixel) as usize).clamp(w * 8, DEFAULT_TILE_PIXELS)
        } else {
            DEFAULT_TILE_PIXELS
        };
        let start = Instant::now();
        let mut counts = std::mem::take(&mut self.counts);
        self.mandel_done = None;
        let computed = {
            let Self { backend, mandel, commands, inbox, turn, smooth, .. } = self;
            let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            // Between tiles of the full pass: stop when a newer view is waiting.
            let mut progress = |done: usize, total: usize| {
                if coarse > 1 || done == total {
                    return true;
                }
                while let Ok(c) = commands.try_recv() {
                    inbox.push_back(c);
                }
                !inbox.iter().any(|c| matches!(c, Command::Mandelbrot(_) | Command::SetBackend(_) | Command::Quit))
            };
            mandel.compute(backend.as_mut(), req, (w, h), tile, &mut counts, smooth, &mut progress)
        };
        let result = match computed {
            Ok(c) => {
                for n in &c.notes {
                    self.send(Msg::Error(n.clone()));
                }
                // No run: abandoned for a newer view.
                c.run.map(|run| (c, run))
            }
            Err(e) => {
                self.send(Msg::Error(e));
                None
            }
        };
        if let Some((c, run)) = result {
            if coarse == 1 {
                self.mandel_secs_per_pixel = start.elapsed().as_secs_f64() / (w * h) as f64;
                self.mandel_pass_iters = req.iters.max(1);
            }
            let mut rgba = self.display.buffer(w * h * 4);
            let sm = c.smooth.then_some(self.smooth.as_slice());
            crate::sim::colour::palette::colour_rgba(&counts, sm, w, h, req.iters, &req.colour, &mut rgba);
            if coarse == 1 {
                self.mandel_done = Some((req.clone(), c.arith.clone(), c.params, c.smooth));
            }
            let frame = MandelbrotFrame {
                pixels: FrameSource::Rgba { rgba, width: w, height: h },
                request: req.clone(),
                width: w,
                height: h,
                coarse,
                params: c.params,
                arith: c.arith,
                counts: counts.clone(),
                // Executed: fewer than the rule's where BLA skipped some (the UI takes the rule's
                // from the counts).
                total_iters: run.executed(),
                timing: run.timing,
            };
            self.send(Msg::Mandelbrot(frame));
        }
        self.counts = counts;
    }

    /// Pixels in an export tile of about [`EXPORT_TILE`] of compute, at the last full pass's
    /// rate scaled to the export's iterations (a pixel inside the set costs all of them); 16
    /// rows while nothing was measured yet. At least one row.
    fn export_tile(&self, req: &MandelRequest) -> usize {
        if self.mandel_secs_per_pixel <= 0.0 {
            return req.width * 16;
        }
        let deeper = (f64::from(req.iters) / f64::from(self.mandel_pass_iters)).max(1.0);
        let per_pixel = self.mandel_secs_per_pixel * deeper;
        ((EXPORT_TILE.as_secs_f64() / per_pixel) as usize).clamp(req.width, DEFAULT_TILE_PIXELS)
    }

    /// Renders `job` in tiles and writes it as PNG (atomically), reporting progress; a
    /// [`Command::CancelExport`] between two tiles stops it with nothing written. Other commands
    /// that arrive meanwhile wait in the inbox.
    fn export(&mut self, job: &ExportJob) {
        let req = &job.request;
        let start = Instant::now();
        let pixels = req.width * req.height;
        let (_, avail, _) = backend::cpu::host_facts();
        if let Err(e) = backend::check_fits(backend::BackendKind::Cpu, "the picture", pixels as u64 * 8, avail) {
            self.send(Msg::Export(ExportStatus::Failed(e.to_string())));
            return;
        }
        if let Err(e) = crate::output::check_writable(&job.path) {
            self.send(Msg::Export(ExportStatus::Failed(format!("{e:#}"))));
            return;
        }
        let (mut counts, mut smooth) = (Vec::new(), Vec::new());
        let mut cancelled = false;
        let tile = job.tile_pixels.unwrap_or_else(|| self.export_tile(req)).max(1);
        let computed = {
            let Self { backend, mandel, commands, inbox, out, wake, turn, quit, .. } = self;
            let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut progress = |done: usize, total: usize| {
                if out.send(Msg::Export(ExportStatus::Progress { done, total })).is_err() {
                    *quit = true;
                }
                wake();
                while let Ok(c) = commands.try_recv() {
                    inbox.push_back(c);
                }
                let before = inbox.len();
                inbox.retain(|c| !matches!(c, Command::CancelExport));
                cancelled |= inbox.len() != before || inbox.iter().any(|c| matches!(c, Command::Quit));
                !cancelled && !*quit
            };
            mandel.compute(
                backend.as_mut(),
                req,
                (req.width, req.height),
                tile,
                &mut counts,
                &mut smooth,
                &mut progress,
            )
        };
        let status = match computed {
            Ok(c) if c.run.is_none() || cancelled => ExportStatus::Cancelled,
            Ok(c) => {
                let mut rgba = vec![0u8; pixels * 4];
                let sm = c.smooth.then_some(smooth.as_slice());
                crate::sim::colour::palette::colour_rgba(
                    &counts,
                    sm,
                    req.width,
                    req.height,
                    req.iters,
                    &req.colour,
                    &mut rgba,
                );
                match crate::output::write_png(&job.path, &rgba, req.width, req.height) {
                    Ok(()) => ExportStatus::Done {
                        path: job.path.clone(),
                        width: req.width,
                        height: req.height,
                        tiles: c.tiles,
                        millis: start.elapsed().as_secs_f64() * 1e3,
                    },
                    Err(e) => ExportStatus::Failed(format!("{e:#}")),
                }
            }
            Err(e) => ExportStatus::Failed(e),
        };
        self.send(Msg::Export(status));
    }
}

/// Both fields of `sim` and its time step, to carry into a reopened scene (`None` when they
/// cannot be read: the new scene then starts from rest).
fn read_waves(sim: &mut dyn WaveSim) -> Option<(Vec<f32>, Vec<f32>, u32)> {
    let n = sim.params().cells();
    let (mut f, mut g) = (vec![0.0; n], vec![0.0; n]);
    match sim.read_fields(&mut f, &mut g) {
        Ok(_) => Some((f, g, sim.tstep())),
        Err(e) => {
            log::warn!("the waves could not be read back ({e}); the new scene starts from rest");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::worker::messages::ComputeTurn;
    use crate::backend::{BackendError, BackendKind, DeviceInfo, MandelbrotRun};
    use crate::sim::fractal::mandelbrot::MandelbrotParams;
    use crate::sim::wave::WaveParams;

    /// The CPU backend with room for at most `max_cells` cells.
    struct Small {
        cpu: backend::cpu::CpuBackend,
        max_cells: usize,
    }

    impl Backend for Small {
        fn kind(&self) -> BackendKind {
            BackendKind::Cpu
        }
        fn device_info(&self) -> DeviceInfo {
            DeviceInfo { name: "small".into(), ..DeviceInfo::default() }
        }
        fn new_wave_variant(
            &self,
            p: &WaveParams,
            variant: backend::WaveVariant,
        ) -> Result<Box<dyn WaveSim>, BackendError> {
            backend::check_fits(BackendKind::Cpu, "the fields", p.field_bytes(), Some(8 * self.max_cells as u64))?;
            self.cpu.new_wave_variant(p, variant)
        }
        fn new_scene(&self, scene: &Scene) -> Result<Box<dyn WaveSim>, BackendError> {
            backend::check_fits(
                BackendKind::Cpu,
                "the fields",
                8 * scene.cells() as u64,
                Some(8 * self.max_cells as u64),
            )?;
            self.cpu.new_scene(scene)
        }
        fn mandelbrot(&mut self, p: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
            self.cpu.mandelbrot(p, counts)
        }
    }

    fn worker(max_cells: usize) -> Worker {
        let init = WorkerInit {
            backend: BackendChoice::Cpu,
            scene: Scene::seed(100, 80, 0.1),
            look: WaveLook::default(),
            playing: false,
            steps_per_frame: 10,
            fastest: false,
            vmin: -0.1,
            vmax: 0.1,
            view: Demo::Wave,
            render_state: None,
            turn: ComputeTurn::default(),
        };
        let open: Opener = Box::new(move |_| {
            let b: Box<dyn Backend> =
                Box::new(Small { cpu: backend::cpu::CpuBackend::new(backend::cpu::Threads::One), max_cells });
            Ok(Opened { backend: b, notes: Vec::new(), shares_display: false })
        });
        Worker::spawn_with(init, open, || {}).expect("thread")
    }

    /// Every message up to the answer to a ping.
    fn until_pong(w: &Worker, n: u64) -> Vec<Msg> {
        w.send(Command::Ping(n));
        let mut out = Vec::new();
        while let Some(m) = w.recv_timeout(Duration::from_secs(20)) {
            if matches!(m, Msg::Pong(k) if k == n) {
                return out;
            }
            out.push(m);
        }
        panic!("no answer from the worker");
    }

    #[test]
    fn a_grid_too_big_is_refused_and_the_previous_keeps_running() {
        let w = worker(200 * 200);
        until_pong(&w, 1);
        w.send(Command::SetScene { scene: Box::new(Scene::seed(400, 400, 0.1)), keep_waves: false });
        let msgs = until_pong(&w, 2);
        assert!(msgs.iter().any(|m| matches!(m, Msg::Error(e) if e.contains("refused"))), "{msgs:?}");
        assert!(msgs.iter().all(|m| !matches!(m, Msg::Wave(_))), "no frame of a grid that is not there");
        assert!(msgs.iter().any(|m| matches!(m, Msg::Grid { nx: 100, ny: 80, refused: true })), "{msgs:?}");
        w.send(Command::Step);
        let msgs = until_pong(&w, 3);
        let frame = msgs.iter().find_map(|m| if let Msg::Wave(f) = m { Some(f) } else { None });
        let f = frame.expect("a frame of the old grid");
        assert_eq!((f.params.nx, f.params.ny, f.tstep), (100, 80, 10));
        assert_eq!(f.pixels.size(), (100, 80));
    }

    #[test]
    fn big_grids_are_shown_subsampled() {
        let w = worker(usize::MAX / 16);
        until_pong(&w, 1);
        w.send(Command::SetScene { scene: Box::new(Scene::seed(4100, 64, 0.1)), keep_waves: false });
        let msgs = until_pong(&w, 2);
        let f = msgs.iter().rev().find_map(|m| if let Msg::Wave(f) = m { Some(f) } else { None }).expect("frame");
        assert_eq!((f.params.nx, f.params.ny), (4100, 64));
        assert_eq!(f.pixels.size(), (4100_usize.div_ceil(3), 64_usize.div_ceil(3)));
    }

    #[test]
    fn fastest_fills_the_frame_budget_with_steps() {
        let w = worker(usize::MAX / 16);
        until_pong(&w, 1);
        w.send(Command::SetFastest(true));
        w.send(Command::SetPlaying(true));
        let mut steps = Vec::new();
        while steps.len() < 6 {
            match w.recv_timeout(Duration::from_secs(20)) {
                Some(Msg::Wave(f)) if f.steps > 0 => steps.push(f.steps),
                Some(_) => {}
                None => panic!("no frames while playing"),
            }
        }
        // A 100x80 grid steps in microseconds: a frame's budget holds far more than the slider's 10.
        assert!(steps[5] > 10 * 10, "steps per frame with fastest: {steps:?}");
    }

    #[test]
    fn scene_edits_keep_the_waves_and_a_bad_scene_is_refused() {
        let w = worker(usize::MAX / 16);
        until_pong(&w, 1);
        w.send(Command::Step);
        let frame =
            |msgs: Vec<Msg>| msgs.into_iter().rev().find_map(|m| if let Msg::Wave(f) = m { Some(f) } else { None });
        let f = frame(until_pong(&w, 2)).expect("a frame");
        assert_eq!(f.tstep, 10);
        let mut walled = (*f.scene).clone();
        assert!(walled.paint_wall(70, 0, 72, 79));
        w.send(Command::SetScene { scene: Box::new(walled.clone()), keep_waves: true });
        w.send(Command::Step);
        let f = frame(until_pong(&w, 3)).expect("a frame");
        assert_eq!((f.tstep, &*f.scene), (20, &walled), "the wall runs and the time step goes on");
        let mut bad = walled.clone();
        bad.c2 = 0.9;
        w.send(Command::SetScene { scene: Box::new(bad), keep_waves: true });
        let msgs = until_pong(&w, 4);
        assert!(msgs.iter().any(|m| matches!(m, Msg::Error(e) if e.contains("c2"))), "{msgs:?}");
        w.send(Command::Step);
        let f = frame(until_pong(&w, 5)).expect("a frame");
        assert_eq!((f.tstep, &*f.scene), (30, &walled), "the last good scene keeps running");
    }
}
