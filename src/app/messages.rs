//! What the UI thread and the app's worker threads say to each other: the commands the UI
//! sends to the simulation thread ([`Command`]), what comes back ([`Msg`], with
//! [`WaveFrame`] / [`MandelbrotFrame`] and their [`FrameSource`]), and the CPU comparison's
//! jobs and samples ([`CompareJob`], [`CompareSample`]).

use crate::backend::{BackendChoice, BackendKind, DeviceInfo, Timing};
use crate::sim::mandelbrot::MandelbrotParams;
use crate::sim::wave::WaveParams;

use super::options::Demo;

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
