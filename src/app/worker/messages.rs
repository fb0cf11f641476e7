//! What the UI thread and the app's worker threads say to each other: the commands the UI
//! sends to the simulation thread ([`Command`]), what comes back ([`Msg`], with
//! [`WaveFrame`] / [`MandelbrotFrame`] and their [`FrameSource`]), and the CPU comparison's
//! jobs and samples ([`CompareJob`], [`CompareSample`]).

use std::sync::Arc;
use std::time::Duration;

use crate::backend::{BackendChoice, BackendKind, DeviceInfo, Timing};
use crate::sim::fractal::deep::{Arith, View};
use crate::sim::fractal::mandelbrot::MandelbrotParams;
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::Scene;

use crate::app::options::Demo;
use crate::app::worker::look::WaveLook;

/// What the UI asks of the simulation worker.
#[derive(Clone, Debug)]
pub enum Command {
    /// Open another backend; the wave problem is recreated on it.
    SetBackend(BackendChoice),
    /// Run this scene: its sources are swapped in place where only they changed, otherwise
    /// the scene is opened anew with the waves carried over when the grid is the same
    /// (`keep_waves`), or from rest. Coalesced: only the last of a burst is applied.
    SetScene {
        scene: Box<Scene>,
        keep_waves: bool,
    },
    /// What to measure and draw besides the field.
    SetLook(WaveLook),
    SetPlaying(bool),
    SetStepsPerFrame(u32),
    /// Steps per frame chosen by the worker so that a frame's compute fills
    /// [`crate::app::worker::look::FASTEST_BUDGET`].
    SetFastest(bool),
    SetContrast {
        vmin: f32,
        vmax: f32,
    },
    /// One frame's worth of steps while paused.
    Step,
    /// Check the active backend against the CPU reference (`cpu1`): from the current state,
    /// both run [`CHECK_STEPS`] steps of the same scene and their fields are compared
    /// ([`Msg::Check`]).
    Check,
    /// Test seam: the checks' reference is made wrong on purpose (true) or not (false).
    InjectCheckFault(bool),
    Reset,
    /// Which view is shown: the other one is not computed.
    SetView(Demo),
    /// Render this Mandelbrot view (only the last of a burst is rendered): a coarse pass first
    /// when a full one would take long, the full picture once no newer view is waiting.
    Mandelbrot(MandelRequest),
    /// Render a Mandelbrot view to a PNG file, in tiles, with [`Msg::Export`] reports.
    Export(ExportJob),
    /// Stop the export under way (the file is left untouched).
    CancelExport,
    /// Save the wave picture as shown (the field or the intensity, with the colour range of the
    /// last frame) to a PNG file, written whole or not at all: one pixel per cell, or at a size
    /// in pixels with the view's overlay and colour bar (`look`); answered by [`Msg::Saved`] or
    /// [`Msg::Error`].
    SaveWavePicture {
        path: std::path::PathBuf,
        look: Box<super::wave_picture::PictureLook>,
    },
    /// A recording is under way: pictures drawn straight into the display texture are also read
    /// back to the host ([`WaveFrame::host_copy`]); only then, so the display keeps its zero copy.
    SetRecording(bool),
    /// Answered by [`Msg::Pong`] once every command before it is done (tests).
    Ping(u64),
    Quit,
}

/// Pixels of a frame, ready for display.
#[derive(Debug)]
pub enum FrameSource {
    /// An opaque RGBA8 image (alpha 255) uploaded with `TextureHandle::set` (CPU and CUDA, and
    /// wgpu where it does not draw on the display's device).
    Rgba { rgba: Vec<u8>, width: usize, height: usize },
    /// A texture already registered with egui-wgpu (wgpu's zero-copy path).
    /// `texture` is the texture itself (the 3D view reads it).
    Native { id: egui::TextureId, texture: wgpu::Texture, width: usize, height: usize },
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

/// What the worker measured on a wave frame besides timing it (see [`WaveLook`]).
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// The colour range the picture was drawn with (auto contrast or the sliders).
    pub range: (f32, f32),
    /// The picture is the time-averaged intensity (mean of `f²`), not the field.
    pub intensity: bool,
    /// Time steps the intensity average covers so far.
    pub averaged_steps: f64,
    /// The discrete energy of the field ([`crate::sim::wave::scene_cells::energy`]) at this step.
    pub energy: Option<f64>,
    /// Per probe, the `(time step, f)` samples taken since the previous frame.
    pub probes: Vec<Vec<(u32, f32)>>,
    /// Steps between samples of the intensity and the probes (0: not sampled).
    pub sample_every: u32,
    /// Wall time spent reading fields back and measuring (not part of the compute figures).
    pub cost: Duration,
    /// How often the energy and the auto-contrast range are measured now: `MEASURE_EVERY`, or
    /// longer where a measurement takes long (big grids; see `meter.rs`).
    pub measure_every: Duration,
    /// The screen's time-averaged intensity, where a screen is placed.
    pub screen: Option<ScreenMeasure>,
}

/// The time-averaged intensity (mean of `f²`) along the screen's column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScreenMeasure {
    /// The column.
    pub x: usize,
    /// One value per cell `y = 0..ny`.
    pub intensity: Vec<f32>,
    /// Time steps the average covers (at most the averaging window).
    pub averaged_steps: f64,
}

/// One wave frame: the picture and how long its steps took.
#[derive(Debug)]
pub struct WaveFrame {
    pub pixels: FrameSource,
    /// The scene that ran (shared, it is the same for many frames).
    pub scene: Arc<Scene>,
    /// The scene summarised as plain parameters (grid, first source, its frequency).
    pub params: WaveParams,
    pub tstep: u32,
    /// Time steps advanced for this frame (0 when only redrawn).
    pub steps: u32,
    /// Summed timing of the `advance` calls.
    pub advance: Timing,
    /// Timing of colouring and copying the frame.
    pub render: Timing,
    pub measured: Measured,
    /// Bytes the kernel moves per update at this call size, by its design (`None`: not modelled).
    pub dram_bytes_per_update: Option<f64>,
    /// Seconds per update of the same problem in one large call (measured once per backend and
    /// grid on a copy of the problem): what the frame's calls would cost without launch overhead.
    pub large_call_update_secs: Option<f64>,
    /// The same picture read back to the host, while a recording asks for it
    /// ([`Command::SetRecording`]) and `pixels` never leaves the GPU (wgpu's display texture).
    pub host_copy: Option<FrameSource>,
}

/// A Mandelbrot picture to compute: a view at a pixel size, its iterations and arithmetic.
#[derive(Clone, Debug, PartialEq)]
pub struct MandelRequest {
    pub view: View,
    pub width: usize,
    pub height: usize,
    pub iters: u32,
    /// The arithmetic asked for; `None`: the cheapest that resolves the pixels (`f32`, `f64`,
    /// then perturbation).
    pub arith: Option<Arith>,
    /// Palette, smooth colouring, scale, offset, cycles.
    pub colour: crate::sim::colour::palette::ColourSettings,
    /// The Julia set of this `c` instead of the Mandelbrot set (the view is then the Julia
    /// picture's camera).
    pub julia: Option<[f64; 2]>,
}

impl MandelRequest {
    /// True when `other` is the same picture and differs at most in its colours (so the counts
    /// can be coloured again without computing them).
    #[must_use]
    pub fn same_counts(&self, other: &Self) -> bool {
        let recoloured = Self { colour: other.colour, ..self.clone() };
        recoloured == *other
            && (self.colour.smooth || !other.colour.smooth)
            && (self.colour.needs_distance() || !other.colour.needs_distance())
    }
}

/// A picture to save: the view, the file and how it is cut into tiles.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportJob {
    pub request: MandelRequest,
    pub path: std::path::PathBuf,
    /// Largest tile in pixels (`None`: tiles of about a quarter of a second of compute each, so
    /// progress moves and Cancel acts within a second; smaller where the device holds less).
    pub tile_pixels: Option<usize>,
}

/// How an export is going.
#[derive(Clone, Debug, PartialEq)]
pub enum ExportStatus {
    /// Rows of the picture done out of all of them.
    Progress { done: usize, total: usize },
    /// Written whole: the file, its size, the tiles it took and the wall time.
    Done { path: std::path::PathBuf, width: usize, height: usize, tiles: usize, millis: f64 },
    /// Cancelled by the user: nothing was written.
    Cancelled,
    /// Failed: nothing was written; the message says why.
    Failed(String),
}

/// One Mandelbrot image.
#[derive(Debug)]
pub struct MandelbrotFrame {
    pub pixels: FrameSource,
    /// What was asked (the full-size request, also for a coarse pass).
    pub request: MandelRequest,
    /// The picture's own size (smaller than the request's for a coarse pass).
    pub width: usize,
    pub height: usize,
    /// The request's side over this picture's: 1 for the full picture, 2, 4 or 8 for a coarse pass.
    pub coarse: usize,
    /// The direct parameters where the picture was computed directly (`None`: perturbation).
    pub params: Option<MandelbrotParams>,
    /// The arithmetic used, in words: `f32`, `f64`, `perturbation f64`, `perturbation f64,
    /// extended exponent`, ...
    pub arith: String,
    /// The escape counts (`width*height`, row 0 at the bottom).
    pub counts: Vec<i32>,
    /// The iterations executed ([`crate::backend::MandelbrotRun::executed`]): the rule's, or
    /// fewer where BLA skipped some.
    pub total_iters: u64,
    pub timing: Timing,
}

/// A backend call of the worker that failed, said with what it was doing
/// (`reading the field failed: ...`), for the status bar.
#[derive(Debug, thiserror::Error)]
#[error("{what} failed: {error}")]
pub struct WorkerError {
    pub what: &'static str,
    pub error: crate::backend::BackendError,
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
    /// How the export under way is going.
    Export(ExportStatus),
    /// Something was refused or failed; what ran before keeps running.
    Error(String),
    /// A file was written: the line to show.
    Saved(String),
    /// The result of a [`Command::Check`].
    Check(CheckResult),
    /// A grid is in place: the one asked for, or, when `refused`, the one that kept running.
    Grid {
        nx: usize,
        ny: usize,
        refused: bool,
    },
    Pong(u64),
}

/// Time steps a check runs on both the active backend and the CPU.
pub const CHECK_STEPS: u32 = 50;

/// The active backend's fields against the CPU's after the same steps from the same state.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    /// The backend checked and the CPU reference it was checked against (`cpu1`).
    pub backend: BackendKind,
    pub against: BackendKind,
    /// The steps compared: `from + 1 ..= from + steps`.
    pub from: u32,
    pub steps: u32,
    /// `max |diff|` over both fields.
    pub max_diff: f64,
    /// What the backend promises: 0 (the same bits) for CUDA and the CPU, the wave tolerance for wgpu.
    pub tolerance: f64,
    /// Why the check could not run, if it could not.
    pub error: Option<String>,
}

impl CheckResult {
    /// True when the fields agree within the tolerance.
    #[must_use]
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.max_diff <= self.tolerance
    }
}

/// Settings the worker starts from.
#[derive(Clone)]
pub struct WorkerInit {
    pub backend: BackendChoice,
    pub scene: Scene,
    pub look: WaveLook,
    pub playing: bool,
    pub steps_per_frame: u32,
    pub fastest: bool,
    pub vmin: f32,
    pub vmax: f32,
    pub view: Demo,
    /// eframe's wgpu device, queue and renderer, where the app has them.
    pub render_state: Option<egui_wgpu::RenderState>,
    /// Held while a backend computes: the active one and the CPU comparison take turns.
    pub turn: ComputeTurn,
}

/// The turn to compute, shared by the simulation thread and the CPU comparison: whoever advances
/// a problem holds it, so the two never run at the same time. On a machine with few cores they
/// would otherwise share the cores (and, for a GPU backend, the core that feeds the GPU), and each
/// figure would include the other's load.
pub type ComputeTurn = std::sync::Arc<std::sync::Mutex<()>>;

/// What the CPU comparison thread works on.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareJob {
    Off,
    Wave(Arc<Scene>),
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
