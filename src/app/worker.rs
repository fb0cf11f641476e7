//! The two background threads of the app, so the window never waits on a computation.
//!
//! - [`Worker`] (thread `wavebrot-sim`) owns the active backend: it steps the wave problem a
//!   slider's worth of steps per frame, colours it and hands the RGBA frame to the UI through a
//!   one-slot channel (so it runs at most one frame ahead of the window), and renders the
//!   Mandelbrot image when the view changed. Grid changes are reallocated here, off the UI
//!   thread; a size the backend refuses leaves the previous grid running.
//! - [`CpuCompare`] (thread `wavebrot-cpu-compare`) runs the same problem on a copy, on the
//!   CPU, for the timing panel's comparison. It lags at big grids and only reports its rate.
//!
//! Frame buffers come back from the UI ([`Worker::recycle`]) so memory stays flat.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::backend::{self, Backend, BackendChoice, BackendKind, DeviceInfo, Timing, WaveSim};
use crate::cli::Demo;
use crate::sim::colormap;
use crate::sim::mandelbrot::MandelbrotParams;
use crate::sim::wave::WaveParams;

/// Longest a displayed frame may be on a side; bigger grids are shown subsampled
/// (the simulation still runs at full size).
pub const MAX_DISPLAY_SIDE: usize = 2048;

/// How long the worker may compute before it looks at its commands again.
const SLICE: Duration = Duration::from_millis(40);

/// What the UI asks of the simulation worker.
#[derive(Clone, Debug)]
pub enum Command {
    /// Open another backend; the wave problem is recreated on it.
    SetBackend(BackendChoice),
    /// Reallocate the wave grid (coalesced: only the last of a burst is applied).
    Resize {
        nx: usize,
        ny: usize,
    },
    SetFreq(f64),
    SetSource {
        i: usize,
        j: usize,
    },
    SetPlaying(bool),
    SetStepsPerFrame(u32),
    SetContrast {
        vmin: f32,
        vmax: f32,
    },
    /// One frame's worth of steps while paused.
    Step,
    Reset,
    /// Which view is shown: the other one is not computed.
    SetView(Demo),
    /// Render this Mandelbrot image (only the last of a burst is rendered).
    Mandelbrot(MandelbrotParams),
    /// Answered by [`Msg::Pong`] once every command before it is done (tests).
    Ping(u64),
    Quit,
}

/// Pixels of a frame, ready for display.
#[derive(Debug)]
pub enum FrameSource {
    /// An RGBA8 image uploaded with `TextureHandle::set` (CPU and CUDA, and wgpu for now).
    Rgba { rgba: Vec<u8>, width: usize, height: usize },
    /// A texture already registered with egui-wgpu (wgpu's zero-copy path).
    Native { id: egui::TextureId, width: usize, height: usize },
}

impl FrameSource {
    /// `(width, height)` in pixels.
    #[must_use]
    pub fn size(&self) -> (usize, usize) {
        match self {
            Self::Rgba { width, height, .. } | Self::Native { width, height, .. } => (*width, *height),
        }
    }
}

/// One wave frame: the picture and how long its steps took.
#[derive(Debug)]
pub struct WaveFrame {
    pub pixels: FrameSource,
    pub params: WaveParams,
    pub tstep: u32,
    /// Time steps advanced for this frame (0 when only redrawn).
    pub steps: u32,
    /// Summed timing of the `advance` calls.
    pub advance: Timing,
    /// Timing of colouring and copying the frame.
    pub render: Timing,
}

/// One Mandelbrot image.
#[derive(Debug)]
pub struct MandelbrotFrame {
    pub pixels: FrameSource,
    pub params: MandelbrotParams,
    pub total_iters: u64,
    pub timing: Timing,
}

/// What the simulation worker tells the UI.
#[derive(Debug)]
pub enum Msg {
    /// A backend is open (at start and after each switch).
    Backend {
        kind: BackendKind,
        device: DeviceInfo,
        notes: Vec<String>,
    },
    Wave(WaveFrame),
    Mandelbrot(MandelbrotFrame),
    /// Something was refused or failed; what ran before keeps running.
    Error(String),
    /// A grid is in place: the one asked for, or, when `refused`, the one that kept running.
    Grid {
        nx: usize,
        ny: usize,
        refused: bool,
    },
    Pong(u64),
}

/// Settings the worker starts from.
#[derive(Clone)]
pub struct WorkerInit {
    pub backend: BackendChoice,
    pub wave: WaveParams,
    pub playing: bool,
    pub steps_per_frame: u32,
    pub vmin: f32,
    pub vmax: f32,
    pub view: Demo,
    /// eframe's wgpu device, queue and renderer, where the app has them.
    pub render_state: Option<egui_wgpu::RenderState>,
}

/// A backend opened for the worker.
struct Opened {
    backend: Box<dyn Backend>,
    /// Why `auto` passed over faster backends.
    notes: Vec<String>,
    /// True when it computes on eframe's own wgpu device, so frames never leave the GPU.
    shares_display: bool,
}

/// Opens what `choice` asks for. When that is wgpu and eframe draws with wgpu too, the backend
/// is opened on eframe's own device (`WgpuBackend::from_device`), so a wave frame is coloured
/// straight into a texture egui draws ([`FrameSource::Native`]), with no copy through the host.
/// `auto` keeps skipping software adapters, as the CLI does.
fn open_backend(
    choice: BackendChoice,
    render_state: Option<&egui_wgpu::RenderState>,
) -> Result<Opened, backend::BackendError> {
    let (backend, mut notes) = backend::open_choice(choice)?;
    if backend.kind() == BackendKind::Wgpu
        && let Some(rs) = render_state
    {
        let info = rs.adapter.get_info();
        if choice == BackendChoice::Wgpu || info.device_type != wgpu::DeviceType::Cpu {
            match backend::wgpu::WgpuBackend::from_device(rs.device.clone(), rs.queue.clone(), info) {
                Ok(shared) => return Ok(Opened { backend: Box::new(shared), notes, shares_display: true }),
                Err(e) => {
                    notes.push(format!("wgpu cannot compute on the display's device ({e}); frames go through the host"))
                }
            }
        }
    }
    Ok(Opened { backend, notes, shares_display: false })
}

/// The wgpu wave's picture: a texture on eframe's device, registered with egui-wgpu.
struct NativeFrame {
    texture: wgpu::Texture,
    id: egui::TextureId,
    size: (usize, usize),
}

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
    pub fn spawn(init: WorkerInit, wake: impl Fn() + Send + 'static) -> std::io::Result<Self> {
        let render_state = init.render_state.clone();
        Self::spawn_with(init, Box::new(move |c| open_backend(c, render_state.as_ref())), wake)
    }

    fn spawn_with(init: WorkerInit, open: Opener, wake: impl Fn() + Send + 'static) -> std::io::Result<Self> {
        let (commands, command_rx) = mpsc::channel();
        let (msg_tx, messages) = mpsc::sync_channel(1);
        let (recycle, recycle_rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("wavebrot-sim".into())
            .spawn(move || SimLoop::new(init, open, command_rx, msg_tx, recycle_rx, Box::new(wake)).run())?;
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
    recycle: Receiver<Vec<u8>>,
    wake: Box<dyn Fn() + Send>,
    backend: Box<dyn Backend>,
    sim: Option<Box<dyn WaveSim>>,
    params: WaveParams,
    playing: bool,
    steps_per_frame: u32,
    pending_steps: u32,
    vmin: f32,
    vmax: f32,
    view: Demo,
    redraw: bool,
    resize: Option<(usize, usize)>,
    mandelbrot: Option<MandelbrotParams>,
    last_mandelbrot: Option<MandelbrotParams>,
    per_step: Duration,
    full: Vec<u8>,
    counts: Vec<i32>,
    open: Opener,
    shares_display: bool,
    render_state: Option<egui_wgpu::RenderState>,
    native: Option<NativeFrame>,
    quit: bool,
}

impl SimLoop {
    fn new(
        init: WorkerInit,
        open: Opener,
        commands: Receiver<Command>,
        out: SyncSender<Msg>,
        recycle: Receiver<Vec<u8>>,
        wake: Box<dyn Fn() + Send>,
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
            recycle,
            wake,
            backend,
            sim: None,
            params: init.wave,
            playing: init.playing,
            steps_per_frame: init.steps_per_frame.max(1),
            pending_steps: 0,
            vmin: init.vmin,
            vmax: init.vmax,
            view: init.view,
            redraw: true,
            resize: None,
            mandelbrot: None,
            last_mandelbrot: None,
            per_step: Duration::from_micros(100),
            full: Vec::new(),
            counts: Vec::new(),
            open,
            shares_display,
            render_state: init.render_state.clone(),
            native: None,
            quit: false,
        };
        if let Some(e) = error {
            s.send(Msg::Error(format!("{e}; using the CPU")));
        }
        s.announce_backend(notes);
        s.open_sim(init.wave);
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

    /// Allocates `p` on the backend; on refusal the previous grid keeps running.
    fn open_sim(&mut self, p: WaveParams) {
        let refused = match self.backend.new_wave(&p) {
            Ok(sim) => {
                self.sim = Some(sim);
                self.params = p;
                self.redraw = true;
                false
            }
            Err(e) => {
                self.send(Msg::Error(format!("grid {}x{} refused: {e}; the previous grid keeps running", p.nx, p.ny)));
                true
            }
        };
        if self.sim.is_none() {
            // A new backend without room for the grid: start it on the seed's grid.
            let seed = WaveParams::new(1000, 800, self.params.freq);
            if let Ok(sim) = self.backend.new_wave(&seed) {
                self.sim = Some(sim);
                self.params = seed;
                self.redraw = true;
            }
        }
        self.send(Msg::Grid { nx: self.params.nx, ny: self.params.ny, refused });
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
        self.resize.is_some()
            || match self.view {
                Demo::Wave => self.playing || self.pending_steps > 0 || self.redraw,
                Demo::Mandelbrot => self.mandelbrot.is_some(),
            }
    }

    fn work(&mut self) {
        if let Some((nx, ny)) = self.resize.take()
            && (nx, ny) != (self.params.nx, self.params.ny)
        {
            let old = self.params;
            let scale = |v: usize, from: usize, to: usize| (v * to / from.max(1)).min(to - 1);
            let p = WaveParams {
                nx,
                ny,
                source: (scale(old.source.0, old.nx, nx), scale(old.source.1, old.ny, ny)),
                ..old
            };
            self.open_sim(p);
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
                    self.free_native();
                    self.backend = backend;
                    self.shares_display = shares_display;
                    self.announce_backend(notes);
                    self.open_sim(self.params);
                    self.mandelbrot = self.last_mandelbrot;
                }
                Err(e) => self.send(Msg::Error(format!("{e}; staying on {}", self.backend.kind()))),
            },
            Command::Resize { nx, ny } => self.resize = Some((nx, ny)),
            Command::SetFreq(f) => {
                self.params.freq = f;
                if let Some(s) = &mut self.sim {
                    s.set_freq(f);
                }
            }
            Command::SetSource { i, j } => {
                let r = self.sim.as_mut().map(|s| s.set_source(i, j));
                match r {
                    Some(Ok(())) => self.params.source = (i, j),
                    Some(Err(e)) => self.send(Msg::Error(e.to_string())),
                    None => {}
                }
            }
            Command::SetPlaying(p) => self.playing = p,
            Command::SetStepsPerFrame(n) => self.steps_per_frame = n.max(1),
            Command::SetContrast { vmin, vmax } => {
                self.vmin = vmin;
                self.vmax = vmax;
                self.redraw = true;
            }
            Command::Step => self.pending_steps = self.pending_steps.saturating_add(self.steps_per_frame),
            Command::Reset => {
                let r = self.sim.as_mut().map(|s| s.reset());
                if let Some(Err(e)) = r {
                    self.send(Msg::Error(e.to_string()));
                }
                self.redraw = true;
            }
            Command::SetView(v) => {
                self.view = v;
                self.redraw = true;
                if v == Demo::Mandelbrot && self.mandelbrot.is_none() {
                    self.mandelbrot = self.last_mandelbrot;
                }
            }
            Command::Mandelbrot(p) => {
                self.last_mandelbrot = Some(p);
                self.mandelbrot = Some(p);
            }
            Command::Ping(n) => {
                // Everything asked before the ping is done before the answer.
                while let Some(c) = self.inbox.pop_front() {
                    self.apply(c);
                }
                if self.resize.is_some() || self.pending_steps > 0 || self.redraw || self.mandelbrot.is_some() {
                    let playing = std::mem::replace(&mut self.playing, false);
                    self.work();
                    self.playing = playing;
                }
                self.send(Msg::Pong(n));
            }
            Command::Quit => self.quit = true,
        }
    }

    /// A display buffer of `n` bytes, reusing one the UI gave back.
    fn buffer(&mut self, n: usize) -> Vec<u8> {
        let mut buf = self.recycle.try_iter().last().unwrap_or_default();
        buf.clear();
        if buf.capacity() > 2 * n {
            buf.shrink_to(n);
        }
        buf.resize(n, 0);
        buf
    }

    fn wave_frame(&mut self) {
        let steps = if self.playing { self.steps_per_frame } else { std::mem::take(&mut self.pending_steps) };
        if steps == 0 && !self.redraw {
            return;
        }
        self.redraw = false;
        let Some(mut sim) = self.sim.take() else { return };
        let msg = self.wave_frame_on(sim.as_mut(), steps);
        self.sim = Some(sim);
        self.send(msg);
    }

    /// Advances `sim` by `steps` (in slices) and draws it: the frame, or what failed.
    fn wave_frame_on(&mut self, sim: &mut dyn WaveSim, steps: u32) -> Msg {
        let start = Instant::now();
        let mut advance =
            Timing { wall: Duration::ZERO, device: Some(Duration::ZERO), source: backend::TimingSource::WallClock };
        let mut done = 0;
        while done < steps {
            let fit = (SLICE.as_secs_f64() / self.per_step.as_secs_f64().max(1e-9)) as u32;
            let chunk = fit.clamp(1, steps - done);
            match sim.advance(chunk) {
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
        match self.native_frame(sim) {
            Some(Ok((pixels, render))) => {
                return Msg::Wave(WaveFrame { pixels, params: self.params, tstep, steps: done, advance, render });
            }
            Some(Err(e)) => {
                // Drawn through the host from now on.
                log::warn!("zero-copy display failed, copying frames instead: {e}");
                self.shares_display = false;
                self.free_native();
            }
            None => {}
        }
        let (nx, ny) = (self.params.nx, self.params.ny);
        let stride = nx.max(ny).div_ceil(MAX_DISPLAY_SIDE).max(1);
        let (w, h) = (nx.div_ceil(stride), ny.div_ceil(stride));
        let mut rgba = self.buffer(w * h * 4);
        let render = if stride == 1 {
            self.full = Vec::new();
            sim.render_rgba(self.vmin, self.vmax, &mut rgba)
        } else {
            self.full.resize(nx * ny * 4, 0);
            let r = sim.render_rgba(self.vmin, self.vmax, &mut self.full);
            subsample(&self.full, nx, stride, w, h, &mut rgba);
            r
        };
        let render = match render {
            Ok(t) => t,
            Err(e) => return Msg::Error(format!("drawing failed: {e}")),
        };
        let frame = WaveFrame {
            pixels: FrameSource::Rgba { rgba, width: w, height: h },
            params: self.params,
            tstep,
            steps: done,
            advance,
            render,
        };
        Msg::Wave(frame)
    }

    /// Colours a wgpu wave on eframe's device straight into the texture egui draws; `None`
    /// where that path does not apply (another backend, or a grid larger than a texture).
    fn native_frame(&mut self, sim: &mut dyn WaveSim) -> Option<Result<(FrameSource, Timing), String>> {
        if !self.shares_display {
            return None;
        }
        let rs = self.render_state.clone()?;
        let wave = sim.as_any_mut().downcast_mut::<backend::wgpu::WgpuWave>()?;
        let (nx, ny) = (self.params.nx, self.params.ny);
        let max = rs.device.limits().max_texture_dimension_2d as usize;
        if nx > max || ny > max {
            return None;
        }
        if self.native.as_ref().map(|n| n.size) != Some((nx, ny)) {
            let texture = wave.create_frame_texture();
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let mut renderer = rs.renderer.write();
            let id = match self.native.take() {
                Some(old) => {
                    renderer.update_egui_texture_from_wgpu_texture(
                        &rs.device,
                        &view,
                        wgpu::FilterMode::Nearest,
                        old.id,
                    );
                    old.id
                }
                None => renderer.register_native_texture(&rs.device, &view, wgpu::FilterMode::Nearest),
            };
            self.native = Some(NativeFrame { texture, id, size: (nx, ny) });
        }
        let n = self.native.as_ref()?;
        let start = Instant::now();
        let r = wave.colormap_into(self.vmin, self.vmax, &n.texture);
        Some(
            r.map(|()| (FrameSource::Native { id: n.id, width: nx, height: ny }, Timing::wall(start.elapsed())))
                .map_err(|e| e.to_string()),
        )
    }

    /// Unregisters the zero-copy texture.
    fn free_native(&mut self) {
        if let (Some(n), Some(rs)) = (self.native.take(), &self.render_state) {
            rs.renderer.write().free_texture(&n.id);
        }
    }

    fn mandelbrot_frame(&mut self) {
        let Some(p) = self.mandelbrot.take() else { return };
        if p.validate().is_err() {
            return;
        }
        self.counts.clear();
        self.counts.resize(p.pixels(), 0);
        let mut p = p;
        let mut result = self.backend.mandelbrot(&p, &mut self.counts);
        if let Err(backend::BackendError::Invalid(why)) = &result
            && p.precision == crate::sim::mandelbrot::Precision::F64
        {
            // A device without f64 (many GPUs through wgpu): show f32 and say so.
            let m = format!("{why}; computed in f32 instead");
            self.send(Msg::Error(m));
            p.precision = crate::sim::mandelbrot::Precision::F32;
            result = self.backend.mandelbrot(&p, &mut self.counts);
        }
        match result {
            Ok(run) => {
                let mut rgba = self.buffer(p.pixels() * 4);
                colormap::mandelbrot_rgba(&self.counts, p.width, p.height, p.iters, &mut rgba);
                let frame = MandelbrotFrame {
                    pixels: FrameSource::Rgba { rgba, width: p.width, height: p.height },
                    params: p,
                    total_iters: run.total_iters,
                    timing: run.timing,
                };
                self.send(Msg::Mandelbrot(frame));
            }
            Err(e) => self.send(Msg::Error(format!("Mandelbrot failed: {e}"))),
        }
    }
}

/// Every `stride`-th pixel of an RGBA image `src_w` wide, into `dst` (`w x h`).
fn subsample(src: &[u8], src_w: usize, stride: usize, w: usize, h: usize, dst: &mut [u8]) {
    for y in 0..h {
        for x in 0..w {
            let s = ((y * stride) * src_w + x * stride) * 4;
            let d = (y * w + x) * 4;
            dst[d..d + 4].copy_from_slice(&src[s..s + 4]);
        }
    }
}

/// What the CPU comparison thread works on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CompareJob {
    Off,
    Wave(WaveParams),
    Mandelbrot(MandelbrotParams),
}

/// One measurement of the CPU comparison.
#[derive(Clone, Debug)]
pub struct CompareSample {
    pub kind: BackendKind,
    pub device: String,
    pub job: CompareJob,
    /// Wave: time steps run in this measurement.
    pub steps: u32,
    pub timing: Timing,
    /// Mandelbrot: iterations executed.
    pub total_iters: u64,
    pub error: Option<String>,
}

enum CompareCmd {
    Job(CompareJob),
    Kind(BackendKind),
    Quit,
}

/// Handle on the CPU comparison thread.
pub struct CpuCompare {
    commands: Sender<CompareCmd>,
    samples: Receiver<CompareSample>,
}

impl CpuCompare {
    /// Starts the thread on `kind` (`cpu` or `cpu1`).
    ///
    /// # Errors
    /// The thread could not be spawned.
    pub fn spawn(kind: BackendKind, wake: impl Fn() + Send + 'static) -> std::io::Result<Self> {
        let (commands, rx) = mpsc::channel();
        let (tx, samples) = mpsc::channel();
        std::thread::Builder::new()
            .name("wavebrot-cpu-compare".into())
            .spawn(move || compare_loop(kind, &rx, &tx, &wake))?;
        Ok(Self { commands, samples })
    }

    pub fn set_job(&self, job: CompareJob) {
        let _ = self.commands.send(CompareCmd::Job(job));
    }

    pub fn set_kind(&self, kind: BackendKind) {
        let _ = self.commands.send(CompareCmd::Kind(kind));
    }

    /// Samples measured since the last call.
    pub fn drain(&self) -> Vec<CompareSample> {
        self.samples.try_iter().collect()
    }
}

impl Drop for CpuCompare {
    fn drop(&mut self) {
        // Not joined: a long Mandelbrot on the CPU may still be running; it ends on its own.
        let _ = self.commands.send(CompareCmd::Quit);
    }
}

fn cpu_backend(kind: BackendKind) -> backend::cpu::CpuBackend {
    let threads = if kind == BackendKind::Cpu1 { backend::cpu::Threads::One } else { backend::cpu::Threads::All };
    backend::cpu::CpuBackend::new(threads)
}

fn compare_loop(kind: BackendKind, rx: &Receiver<CompareCmd>, tx: &Sender<CompareSample>, wake: &dyn Fn()) {
    let mut backend = cpu_backend(kind);
    let mut device = backend.device_info().name;
    let mut job = CompareJob::Off;
    let mut sim: Option<Box<dyn WaveSim>> = None;
    let mut mandelbrot_done = false;
    let mut counts: Vec<i32> = Vec::new();
    let mut chunk = 1u32;
    let mut wait = None::<Duration>;
    loop {
        let idle = match job {
            CompareJob::Off => true,
            CompareJob::Mandelbrot(_) => mandelbrot_done,
            CompareJob::Wave(_) => false,
        };
        let cmd = if idle {
            rx.recv().map_err(|_| ())
        } else if let Some(w) = wait.take() {
            match rx.recv_timeout(w) {
                Ok(c) => Ok(c),
                Err(RecvTimeoutError::Timeout) => Err(()),
                Err(RecvTimeoutError::Disconnected) => return,
            }
        } else {
            rx.try_recv().map_err(|_| ())
        };
        match cmd {
            Ok(CompareCmd::Quit) => return,
            Ok(CompareCmd::Kind(k)) => {
                if k != backend.kind() {
                    backend = cpu_backend(k);
                    device = backend.device_info().name;
                    sim = None;
                    mandelbrot_done = false;
                }
                continue;
            }
            Ok(CompareCmd::Job(j)) => {
                if j != job {
                    job = j;
                    mandelbrot_done = false;
                    if !matches!(job, CompareJob::Wave(_)) {
                        sim = None;
                    }
                }
                continue;
            }
            Err(()) if idle => return,
            Err(()) => {}
        }
        let (bk, dev) = (backend.kind(), device.clone());
        let sample = move |job, steps, timing, total_iters, error| CompareSample {
            kind: bk,
            device: dev.clone(),
            job,
            steps,
            timing,
            total_iters,
            error,
        };
        match job {
            CompareJob::Off => {}
            CompareJob::Wave(p) => {
                let same_grid = sim.as_ref().is_some_and(|s| (s.params().nx, s.params().ny) == (p.nx, p.ny));
                if !same_grid {
                    sim = None;
                    match backend.new_wave(&p) {
                        Ok(s) => sim = Some(s),
                        Err(e) => {
                            let _ = tx.send(sample(job, 0, Timing::wall(Duration::ZERO), 0, Some(e.to_string())));
                            wake();
                            job = CompareJob::Off;
                            continue;
                        }
                    }
                }
                let Some(s) = sim.as_mut() else { continue };
                if s.params().freq.to_bits() != p.freq.to_bits() {
                    s.set_freq(p.freq);
                }
                if s.params().source != p.source {
                    let _ = s.set_source(p.source.0, p.source.1);
                }
                match s.advance(chunk) {
                    Ok(t) => {
                        let _ = tx.send(sample(job, chunk, t, 0, None));
                        wake();
                        let per_step = t.wall.as_secs_f64() / f64::from(chunk);
                        chunk = ((0.1 / per_step.max(1e-9)) as u32).clamp(1, 1000);
                        // Half the time idle: leaves cores for the UI and the active backend.
                        wait = Some(t.wall.max(Duration::from_millis(5)));
                    }
                    Err(e) => {
                        let _ = tx.send(sample(job, 0, Timing::wall(Duration::ZERO), 0, Some(e.to_string())));
                        job = CompareJob::Off;
                    }
                }
            }
            CompareJob::Mandelbrot(p) => {
                mandelbrot_done = true;
                counts.clear();
                counts.resize(p.pixels(), 0);
                let r = backend.mandelbrot(&p, &mut counts);
                let s = match r {
                    Ok(run) => sample(job, 0, run.timing, run.total_iters, None),
                    Err(e) => sample(job, 0, Timing::wall(Duration::ZERO), 0, Some(e.to_string())),
                };
                let _ = tx.send(s);
                wake();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{BackendError, MandelbrotRun};

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
        fn mandelbrot(&mut self, p: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
            self.cpu.mandelbrot(p, counts)
        }
    }

    fn worker(max_cells: usize) -> Worker {
        let init = WorkerInit {
            backend: BackendChoice::Cpu,
            wave: WaveParams::new(100, 80, 0.1),
            playing: false,
            steps_per_frame: 10,
            vmin: -0.1,
            vmax: 0.1,
            view: Demo::Wave,
            render_state: None,
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
        w.send(Command::Resize { nx: 400, ny: 400 });
        let msgs = until_pong(&w, 2);
        assert!(msgs.iter().any(|m| matches!(m, Msg::Error(e) if e.contains("refused"))), "{msgs:?}");
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
        w.send(Command::Resize { nx: 4100, ny: 64 });
        let msgs = until_pong(&w, 2);
        let f = msgs.iter().rev().find_map(|m| if let Msg::Wave(f) = m { Some(f) } else { None }).expect("frame");
        assert_eq!((f.params.nx, f.params.ny), (4100, 64));
        assert_eq!(f.pixels.size(), (4100_usize.div_ceil(3), 64_usize.div_ceil(3)));
    }
}
