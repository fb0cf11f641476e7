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
//! In a browser tab, which has no threads, the same loop lives in the handle and runs a slice at
//! a time on the UI thread ([`SimLoop::slice`]: the commands waiting, then one frame's work)
//! whenever the UI looks for a message; natively the thread runs the same slices back to back.
//!
//! This file holds the handle, the loop and the commands; the loop's state is split into what
//! both views share, `WaveLoop` (its methods in `wave_loop.rs`: scenes, frames, the check) and
//! `MandelLoop` (in `mandel_loop.rs`: passes, recolouring, exports); the tests that drive the
//! thread with a fake backend are `simulation_tests.rs`.

use std::sync::Arc;
#[cfg(not(target_arch = "wasm32"))]
use std::sync::mpsc::RecvTimeoutError;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};
#[cfg(not(target_arch = "wasm32"))]
use std::thread::JoinHandle;
use std::time::Duration;

use crate::backend::{self, Backend, BackendChoice, WaveSim};
use crate::sim::wave::scene::Scene;

use crate::app::options::Demo;
use crate::app::worker::display::{Display, Opened, open_backend};
use crate::app::worker::look::WaveLook;
use crate::app::worker::mandel::MandelWork;
use crate::app::worker::messages::{Command, MandelRequest, Msg, WorkerInit};
use crate::app::worker::meter::Meter;

/// Opens the backend a choice names (swapped for a fake one in tests).
type Opener = Box<dyn Fn(BackendChoice) -> Result<Opened, backend::BackendError> + Send>;

/// Handle on the simulation thread.
pub struct Worker {
    commands: Sender<Command>,
    messages: Option<Receiver<Msg>>,
    recycle: Sender<Vec<u8>>,
    #[cfg(not(target_arch = "wasm32"))]
    thread: Option<JoinHandle<()>>,
    /// The browser build: the loop itself, run a slice at a time by [`Worker::try_recv`], and
    /// the UI's wake-up, called on every command so a frame comes to take it in.
    #[cfg(target_arch = "wasm32")]
    sim: std::cell::RefCell<Option<SimLoop>>,
    #[cfg(target_arch = "wasm32")]
    wake: Arc<dyn Fn() + Send + Sync>,
}

/// Messages the browser build's loop may leave for the UI between two looks (natively the loop
/// waits for each to be taken: one frame ahead at most). A slice sends a few.
#[cfg(target_arch = "wasm32")]
const WEB_MESSAGES: usize = 256;

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
        let (recycle, recycle_rx) = mpsc::channel();
        #[cfg(not(target_arch = "wasm32"))]
        {
            let (msg_tx, messages) = mpsc::sync_channel(1);
            let thread = std::thread::Builder::new()
                .name("wavebrot-sim".into())
                .spawn(move || SimLoop::new(init, open, command_rx, msg_tx, recycle_rx, Arc::new(wake)).run())?;
            Ok(Self { commands, messages: Some(messages), recycle, thread: Some(thread) })
        }
        #[cfg(target_arch = "wasm32")]
        {
            let (msg_tx, messages) = mpsc::sync_channel(WEB_MESSAGES);
            let wake: Arc<dyn Fn() + Send + Sync> = Arc::new(wake);
            let sim = SimLoop::new(init, open, command_rx, msg_tx, recycle_rx, Arc::clone(&wake));
            Ok(Self { commands, messages: Some(messages), recycle, sim: std::cell::RefCell::new(Some(sim)), wake })
        }
    }

    /// Sends a command; a dead worker is ignored here and noticed by the UI as silence.
    pub fn send(&self, c: Command) {
        let _ = self.commands.send(c);
        #[cfg(target_arch = "wasm32")]
        (self.wake)();
    }

    /// The next message, if one is waiting. In the browser build, when none is, the loop first
    /// runs one slice here.
    pub fn try_recv(&self) -> Option<Msg> {
        let m = self.messages.as_ref()?;
        #[cfg(target_arch = "wasm32")]
        if let Ok(msg) = m.try_recv() {
            return Some(msg);
        } else {
            self.run_slice();
        }
        m.try_recv().ok()
    }

    /// The browser build's turn of the loop: one slice, unless the loop has ended.
    #[cfg(target_arch = "wasm32")]
    fn run_slice(&self) {
        let Ok(mut sim) = self.sim.try_borrow_mut() else { return };
        let Some(s) = sim.as_mut() else { return };
        if !s.slice() {
            *sim = None;
        } else if s.has_work() {
            // More to do (the waves play on): another frame comes for the next slice.
            (self.wake)();
        }
    }

    /// Waits up to `timeout` for the next message.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<Msg> {
        #[cfg(not(target_arch = "wasm32"))]
        return self.messages.as_ref().and_then(|m| m.recv_timeout(timeout).ok());
        #[cfg(target_arch = "wasm32")]
        {
            let deadline = web_time::Instant::now() + timeout;
            loop {
                if let Some(m) = self.try_recv() {
                    return Some(m);
                }
                if web_time::Instant::now() >= deadline || self.sim.borrow().is_none() {
                    return None;
                }
            }
        }
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
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The simulation thread's state: what both views share, the wave part and the Mandelbrot part.
pub(super) struct SimLoop {
    pub(super) commands: Receiver<Command>,
    pub(super) inbox: std::collections::VecDeque<Command>,
    pub(super) out: SyncSender<Msg>,
    pub(super) wake: Arc<dyn Fn() + Send + Sync>,
    pub(super) backend: Box<dyn Backend>,
    pub(super) open: Opener,
    pub(super) display: Display,
    /// The compute turn shared with the CPU comparison.
    pub(super) turn: crate::app::worker::messages::ComputeTurn,
    /// Which view is shown: the other one is not computed.
    pub(super) view: Demo,
    pub(super) wave: WaveLoop,
    pub(super) mandel: MandelLoop,
    pub(super) quit: bool,
}

/// The wave part of the simulation thread: the problem, what is measured and drawn, the pace.
pub(super) struct WaveLoop {
    pub(super) sim: Option<Box<dyn WaveSim>>,
    /// The scene running (or, before the first open, to run).
    pub(super) scene: Arc<Scene>,
    /// The last scene asked for and whether to keep the waves (applied between frames).
    pub(super) pending_scene: Option<(Scene, bool)>,
    pub(super) look: WaveLook,
    pub(super) meter: Meter,
    pub(super) playing: bool,
    pub(super) steps_per_frame: u32,
    pub(super) fastest: bool,
    /// A recording wants every picture on the host.
    pub(super) recording: bool,
    pub(super) pending_steps: u32,
    pub(super) vmin: f32,
    pub(super) vmax: f32,
    /// The picture must be drawn again (no steps needed).
    pub(super) redraw: bool,
    /// The last measured time of one step.
    pub(super) per_step: Duration,
    /// Seconds per update in one large call, for `(backend, nx, ny)`.
    pub(super) large_call: Option<((backend::BackendKind, usize, usize), f64)>,
    /// Test seam: the check's reference is made wrong on purpose.
    pub(super) check_fault: bool,
    /// The colour range of the last picture and whether it showed the intensity.
    pub(super) shown: Option<((f32, f32), bool)>,
}

/// The Mandelbrot part of the simulation thread: the view asked for, the passes' arithmetic and
/// orbits, and the last full pass.
#[derive(Default)]
pub(super) struct MandelLoop {
    /// The view to render (taken when rendered) and the last one asked for.
    pub(super) request: Option<MandelRequest>,
    pub(super) last: Option<MandelRequest>,
    pub(super) work: MandelWork,
    /// Seconds per pixel of the last full pass (0: none yet) and its iterations.
    pub(super) secs_per_pixel: f64,
    pub(super) pass_iters: u32,
    /// Smooth escape values of the last pass (when its colours asked for them).
    pub(super) smooth: Vec<f32>,
    /// The last full pass, so a change of colours only colours `counts` again.
    pub(super) done: Option<MandelDone>,
    /// The escape counts of the last pass.
    pub(super) counts: Vec<i32>,
}

/// What the last full Mandelbrot pass was: its request, its arithmetic in words, the direct
/// parameters (`None`: perturbation) and whether `smooth` holds its values.
#[derive(Clone, Debug)]
pub(super) struct MandelDone {
    pub(super) request: MandelRequest,
    pub(super) arith: String,
    pub(super) params: Option<crate::sim::fractal::mandelbrot::MandelbrotParams>,
    pub(super) smooth: bool,
    /// Distance estimates are in `MandelWork::de`.
    pub(super) de: bool,
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
            open,
            display: Display::new(init.render_state.clone(), recycle),
            turn: init.turn.clone(),
            view: init.view,
            wave: WaveLoop {
                sim: None,
                scene: Arc::new(init.scene.clone()),
                pending_scene: None,
                look: init.look,
                meter: Meter::default(),
                playing: init.playing,
                steps_per_frame: init.steps_per_frame.max(1),
                fastest: init.fastest,
                recording: false,
                pending_steps: 0,
                vmin: init.vmin,
                vmax: init.vmax,
                redraw: true,
                per_step: Duration::from_micros(100),
                large_call: None,
                check_fault: false,
                shown: None,
            },
            mandel: MandelLoop { pass_iters: 1, ..MandelLoop::default() },
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
    pub(super) fn send(&mut self, m: Msg) {
        if self.out.send(m).is_err() {
            self.quit = true;
        }
        (self.wake)();
    }

    pub(super) fn announce_backend(&mut self, notes: Vec<String>) {
        let msg = Msg::Backend { kind: self.backend.kind(), device: self.backend.device_info(), notes };
        self.send(msg);
    }

    /// The thread: slices back to back, resting on the command channel while there is no work.
    #[cfg(not(target_arch = "wasm32"))]
    fn run(mut self) {
        while !self.quit {
            if !self.has_work() && self.inbox.is_empty() {
                match self.commands.recv_timeout(Duration::from_millis(250)) {
                    Ok(c) => self.apply(c),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            if !self.slice() {
                return;
            }
        }
    }

    /// One turn of the loop: every command waiting, then one piece of work (a wave frame's
    /// steps, a Mandelbrot pass). False once the UI has gone or asked to quit.
    pub(super) fn slice(&mut self) -> bool {
        while let Some(c) = self.inbox.pop_front() {
            self.apply(c);
        }
        loop {
            match self.commands.try_recv() {
                Ok(c) => self.apply(c),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return false,
            }
        }
        if self.quit {
            return false;
        }
        self.work();
        true
    }

    fn has_work(&self) -> bool {
        self.wave.pending_scene.is_some()
            || match self.view {
                Demo::Wave => self.wave.playing || self.wave.pending_steps > 0 || self.wave.redraw,
                Demo::Mandelbrot => self.mandel.request.is_some(),
            }
    }

    fn work(&mut self) {
        if let Some((scene, keep)) = self.wave.pending_scene.take() {
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
                    // The waves go with the scene to the new device (seen: they were thrown away
                    // and the fringes took 13 s to form again); then the old problem and picture
                    // are freed before allocating there.
                    let carry = self.wave.sim.as_mut().and_then(|s| read_waves(s.as_mut()));
                    self.wave.sim = None;
                    self.display.set_backend(shares_display);
                    self.backend = backend;
                    self.announce_backend(notes);
                    self.open_sim((*self.wave.scene).clone(), carry);
                    self.mandel.request.clone_from(&self.mandel.last);
                    self.mandel.secs_per_pixel = 0.0;
                }
                Err(e) => self.send(Msg::Error(format!("{e}; staying on {}", self.backend.kind()))),
            },
            Command::SetScene { scene, keep_waves } => {
                // Coalesced: a burst of edits that all keep the waves still keeps them.
                let keep = keep_waves && self.wave.pending_scene.as_ref().is_none_or(|(_, k)| *k);
                self.wave.pending_scene = Some((*scene, keep));
            }
            Command::SetLook(look) => {
                if look.intensity != self.wave.look.intensity || look.probes != self.wave.look.probes {
                    self.wave.meter.clear();
                } else if look.screen != self.wave.look.screen {
                    // A moved screen starts its own average; the picture's goes on.
                    self.wave.meter.clear_screen();
                }
                self.wave.look = look;
                self.wave.redraw = true;
            }
            Command::SetPlaying(p) => self.wave.playing = p,
            Command::SetStepsPerFrame(n) => self.wave.steps_per_frame = n.max(1),
            Command::SetFastest(f) => self.wave.fastest = f,
            Command::SetRecording(r) => self.wave.recording = r,
            Command::SetContrast { vmin, vmax } => {
                self.wave.vmin = vmin;
                self.wave.vmax = vmax;
                self.wave.redraw = true;
            }
            Command::Step => {
                self.wave.pending_steps = self.wave.pending_steps.saturating_add(self.wave.steps_per_frame);
            }
            Command::Check => {
                if let Some((scene, keep)) = self.wave.pending_scene.take() {
                    self.apply_scene(scene, keep);
                }
                self.check();
            }
            Command::InjectCheckFault(on) => self.wave.check_fault = on,
            Command::Reset => {
                if let Some((scene, keep)) = self.wave.pending_scene.take() {
                    self.apply_scene(scene, keep);
                }
                // Steps asked before the reset are not run after it.
                self.wave.pending_steps = 0;
                let r = self.wave.sim.as_mut().map(|s| s.reset());
                if let Some(Err(e)) = r {
                    self.send(Msg::Error(e.to_string()));
                }
                self.wave.meter.clear();
                self.wave.redraw = true;
            }
            Command::SetView(v) => {
                self.view = v;
                self.wave.redraw = true;
                if v == Demo::Mandelbrot && self.mandel.request.is_none() {
                    self.mandel.request.clone_from(&self.mandel.last);
                }
            }
            Command::Mandelbrot(r) => {
                self.mandel.last = Some(r.clone());
                self.mandel.request = Some(r);
            }
            Command::Export(job) => self.export(&job),
            Command::SaveWavePicture { path, look } => match self.save_wave_picture(&path, &look) {
                Ok(line) => self.send(Msg::Saved(line)),
                Err(e) => self.send(Msg::Error(format!("picture not saved: {e:#}"))),
            },
            // Only meaningful while an export runs (see `export`).
            Command::CancelExport => {}
            Command::Ping(n) => {
                // Everything asked before the ping is done before the answer.
                while let Some(c) = self.inbox.pop_front() {
                    self.apply(c);
                }
                if self.wave.pending_scene.is_some()
                    || self.wave.pending_steps > 0
                    || self.wave.redraw
                    || self.mandel.request.is_some()
                {
                    let playing = std::mem::replace(&mut self.wave.playing, false);
                    self.work();
                    self.wave.playing = playing;
                }
                self.send(Msg::Pong(n));
            }
            Command::Quit => self.quit = true,
        }
    }
}

/// Both fields of `sim` and its time step, to carry into a reopened scene (`None` when they
/// cannot be read: the new scene then starts from rest).
pub(super) fn read_waves(sim: &mut dyn WaveSim) -> Option<(Vec<f32>, Vec<f32>, u32)> {
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
#[path = "simulation_tests.rs"]
mod tests;
