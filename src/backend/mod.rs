//! Backends: one module per way of computing (CPU, CUDA, wgpu), each implementing the
//! same small traits so the CLI, the bench harness and the app can drive any of them.
//!
//! - [`Backend`] opens problems on one device: a [`WaveSim`] (state that lives on the
//!   device and is stepped in place) and Mandelbrot images.
//! - [`BackendKind`] names the choices for the picker and the CLI.
//! - [`open`] makes one; [`probe_all`] says which exist here and why others do not.

pub mod bandwidth;
pub mod cpu;
pub mod cuda;
pub mod tiles;
pub mod wgpu;

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::julia::JuliaParams;
use crate::sim::fractal::mandelbrot::MandelbrotParams;
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::{Scene, Source};

/// The ways wavebrot can compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
pub enum BackendKind {
    /// NVIDIA GPUs through CUDA (kernels compiled at run time with NVRTC).
    Cuda,
    /// Any GPU through wgpu compute shaders (Vulkan, Metal, DX12).
    Wgpu,
    /// All CPU cores (rayon).
    Cpu,
    /// One CPU thread: the reference every other backend is compared with.
    #[value(name = "cpu1")]
    Cpu1,
}

impl BackendKind {
    /// Every kind, fastest first: the order `auto` tries them in.
    pub const ALL: [Self; 4] = [Self::Cuda, Self::Wgpu, Self::Cpu, Self::Cpu1];

    /// The name used on the command line and in JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Cuda => "cuda",
            Self::Wgpu => "wgpu",
            Self::Cpu => "cpu",
            Self::Cpu1 => "cpu1",
        }
    }

    /// True for the GPU backends.
    #[must_use]
    pub fn is_gpu(self) -> bool {
        matches!(self, Self::Cuda | Self::Wgpu)
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a backend choice on the command line may be: a kind or `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, Default)]
pub enum BackendChoice {
    /// The fastest available: CUDA, then wgpu, then the CPU.
    #[default]
    Auto,
    Cuda,
    Wgpu,
    Cpu,
    #[value(name = "cpu1")]
    Cpu1,
}

impl BackendChoice {
    /// The kind asked for, or `None` for `auto`.
    #[must_use]
    pub fn kind(self) -> Option<BackendKind> {
        match self {
            Self::Auto => None,
            Self::Cuda => Some(BackendKind::Cuda),
            Self::Wgpu => Some(BackendKind::Wgpu),
            Self::Cpu => Some(BackendKind::Cpu),
            Self::Cpu1 => Some(BackendKind::Cpu1),
        }
    }
}

/// Which wave kernel a GPU backend runs: `wavebrot bench --variant`, listed by `info`.
///
/// Both variants compute the same rule (CUDA bit for bit, wgpu within the wave tolerance);
/// they differ in how often each cell goes to memory, which is what the bench shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize, clap::ValueEnum)]
pub enum WaveVariant {
    /// The backend's best for its device: `blocked` on GPUs, `simple` on software adapters
    /// (llvmpipe runs shaders on the CPU, where recomputing halos costs more than it saves).
    #[default]
    Auto,
    /// Temporal blocking: several time steps per launch on tiles held on chip.
    Blocked,
    /// wgpu only: the issue-8 temporal-blocking kernel (neighbours through workgroup memory,
    /// two barriers per update), kept to compare with `blocked` and for devices with less
    /// workgroup memory than `blocked` needs.
    BlockedWorkgroup,
    /// One update per launch, each cell reading its neighbours from memory: the seed's
    /// kernel shape, at the 12-bytes-per-update DRAM floor.
    Simple,
}

impl WaveVariant {
    /// The concrete variants of every backend (what `auto` picks from).
    pub const CONCRETE: [Self; 2] = [Self::Blocked, Self::Simple];
    /// The concrete variants of the wgpu backend.
    pub const WGPU: [Self; 3] = [Self::Blocked, Self::BlockedWorkgroup, Self::Simple];

    /// The name used on the command line and in JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Blocked => "blocked",
            Self::BlockedWorkgroup => "blocked-workgroup",
            Self::Simple => "simple",
        }
    }
}

impl fmt::Display for WaveVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a measured time came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum TimingSource {
    /// CUDA events recorded on the stream around the kernels.
    CudaEvents,
    /// wgpu timestamp queries written by the GPU.
    TimestampQueries,
    /// The host's monotonic clock around the call (includes launch and sync overhead).
    #[default]
    WallClock,
}

impl TimingSource {
    /// Short label for tables and the timing panel.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::CudaEvents => "CUDA events",
            Self::TimestampQueries => "GPU timestamps",
            Self::WallClock => "wall clock",
        }
    }
}

/// The time one call took: always the wall time, and the device's own measure of
/// its kernels where it has one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Host wall time of the whole call (launches, synchronisation, copies it did).
    pub wall: Duration,
    /// Time of the kernels alone, measured on the device.
    pub device: Option<Duration>,
    /// Where `device` came from (`WallClock` when it is `None`).
    pub source: TimingSource,
}

impl Timing {
    /// A wall-clock-only timing.
    #[must_use]
    pub fn wall(wall: Duration) -> Self {
        Self { wall, device: None, source: TimingSource::WallClock }
    }

    /// The device time where known, else the wall time.
    #[must_use]
    pub fn best(&self) -> Duration {
        self.device.unwrap_or(self.wall)
    }
}

/// Errors a backend can report. A missing GPU is [`BackendError::Unavailable`], an
/// expected state that callers fall back from, never a panic.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("{kind} unavailable: {reason}")]
    Unavailable { kind: BackendKind, reason: String },
    #[error("out of memory on {kind}: {what} needs {needed_bytes} bytes, {available_bytes} available")]
    OutOfMemory { kind: BackendKind, what: String, needed_bytes: u64, available_bytes: u64 },
    #[error("{kind} kernel failed to compile:\n{log}")]
    Compile { kind: BackendKind, log: String },
    #[error("{kind}: {message}")]
    Runtime { kind: BackendKind, message: String },
    #[error("invalid problem: {0}")]
    Invalid(String),
}

/// Where [`WaveSim::stream_field`] hands a field's bytes: `(byte offset, bytes)`, in order.
pub type ByteSink<'a> = dyn FnMut(usize, &[u8]) -> Result<(), BackendError> + 'a;

/// Facts about one backend's device, for `info` and the app.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// Human name of the device ("NVIDIA H100 80GB HBM3", "llvmpipe", "AMD EPYC ... (16 threads)").
    pub name: String,
    /// Further facts as `(label, value)` lines: compute capability, memory, driver...
    pub details: Vec<(String, String)>,
    /// Device memory that problems may use, where known.
    pub memory_bytes: Option<u64>,
    /// Peak memory bandwidth in GB/s where known or measured (for "share of peak").
    pub peak_gbps: Option<f64>,
    /// The last-level cache in bytes, where known (a GPU's L2, the CPU's largest cache): data
    /// larger than this streams from memory (the sweep marks it).
    #[serde(default)]
    pub cache_bytes: Option<u64>,
}

/// One wave problem living on a backend: two fields stepped in place.
pub trait WaveSim: Send {
    /// The problem being run.
    fn params(&self) -> &WaveParams;

    /// The scene being run (a plain problem's is [`Scene::from_params`] of its parameters).
    fn scene(&self) -> Scene {
        Scene::from_params(self.params())
    }

    /// Time steps done since the start (the seed's `tstep` of the last step).
    fn tstep(&self) -> u32;

    /// Runs `tsteps` whole time steps: each sets the source, then `update(f, g)`, `update(g, f)`.
    ///
    /// # Errors
    /// A device failure; the state is then unspecified but still safe to drop or reset.
    fn advance(&mut self, tsteps: u32) -> Result<Timing, BackendError>;

    /// Copies the field `f` (the seed's output) into `out` (`nx*ny` values).
    ///
    /// # Errors
    /// A device failure.
    fn read_field(&mut self, out: &mut [f32]) -> Result<Timing, BackendError>;

    /// Hands the field `f` to `sink` as little-endian bytes in pieces `(byte offset, bytes)`, in
    /// order of offset, covering all `4*nx*ny` bytes: the way to a file without the field ever
    /// sitting whole in pageable memory (a GPU backend passes its pinned chunks straight on).
    /// This default reads the field into a buffer and hands it over at once.
    ///
    /// # Errors
    /// A device failure, or the first error `sink` returned.
    fn stream_field(&mut self, sink: &mut ByteSink<'_>) -> Result<Timing, BackendError> {
        let mut f = vec![0.0f32; self.params().cells()];
        let timing = self.read_field(&mut f)?;
        sink(0, bytemuck::cast_slice(&f))?;
        Ok(timing)
    }

    /// Copies both fields, `f` and `g` (the last two time levels: what
    /// [`crate::sim::wave::scene_cells::energy`] needs).
    ///
    /// # Errors
    /// A device failure, or a backend that cannot read `g` yet.
    fn read_fields(&mut self, f: &mut [f32], g: &mut [f32]) -> Result<Timing, BackendError> {
        let _ = (f, g);
        Err(BackendError::Invalid("reading both fields is not implemented on this backend yet".to_owned()))
    }

    /// Overwrites both fields and the step counter: the state of another problem of the same
    /// grid carried over (the app keeps the waves when a wall is painted or a medium placed).
    ///
    /// # Errors
    /// Fields of the wrong size, or a device failure.
    fn write_fields(&mut self, f: &[f32], g: &[f32], tstep: u32) -> Result<(), BackendError> {
        let _ = (f, g, tstep);
        Err(BackendError::Invalid("writing the fields is not implemented on this backend".to_owned()))
    }

    /// Replaces a scene's sources by `sources` (as many as before; the fields are kept). Plain
    /// problems, and a change the device's buffers cannot hold, answer
    /// [`BackendError::Invalid`]: open the new scene instead.
    ///
    /// # Errors
    /// As above, or an invalid scene (a source outside the grid or on a wall).
    fn set_sources(&mut self, sources: &[Source]) -> Result<(), BackendError> {
        let _ = sources;
        Err(BackendError::Invalid("this problem runs the plain kernel: open the scene instead".to_owned()))
    }

    /// Writes `f` through `hot` into `rgba` (`nx*ny*4` bytes, seed orientation). GPU
    /// backends colour on the device and copy only the bytes.
    ///
    /// # Errors
    /// A device failure.
    fn render_rgba(&mut self, vmin: f32, vmax: f32, rgba: &mut [u8]) -> Result<Timing, BackendError>;

    /// [`Self::render_rgba`] taken every `stride`-th pixel from the top-left one, into `rgba`
    /// (`w*h*4` bytes, `(w, h)` = [`crate::sim::colour::colormap::strided_size`]): exactly
    /// [`crate::sim::colour::colormap::subsample`] of the full picture, how a grid larger than the display
    /// is shown. Backends colour only the cells shown, and a GPU copies only `w*h*4` bytes;
    /// this default renders the whole picture on the host and subsamples it.
    ///
    /// # Errors
    /// A buffer of the wrong size, or a device failure.
    fn render_rgba_strided(
        &mut self,
        vmin: f32,
        vmax: f32,
        stride: usize,
        rgba: &mut [u8],
    ) -> Result<Timing, BackendError> {
        let (nx, ny) = (self.params().nx, self.params().ny);
        check_strided_len(nx, ny, stride, rgba)?;
        if stride <= 1 {
            return self.render_rgba(vmin, vmax, rgba);
        }
        let mut full = vec![0u8; nx * ny * 4];
        let timing = self.render_rgba(vmin, vmax, &mut full)?;
        let (w, h) = crate::sim::colour::colormap::strided_size(nx, ny, stride);
        crate::sim::colour::colormap::subsample(&full, nx, stride, w, h, rgba);
        Ok(timing)
    }

    /// Moves the source (takes effect from the next step).
    ///
    /// # Errors
    /// A source outside the grid.
    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError>;

    /// Changes the source frequency (takes effect from the next step).
    fn set_freq(&mut self, freq: f64);

    /// Zeroes both fields and the step counter.
    ///
    /// # Errors
    /// A device failure.
    fn reset(&mut self) -> Result<(), BackendError>;

    /// The kernel variant this problem runs (never `Auto`; `None` on the CPU backends, which
    /// have one kernel).
    fn variant(&self) -> Option<WaveVariant> {
        None
    }

    /// The bytes the kernel moves to and from device memory per cell update, from its design,
    /// when one call advances `tsteps` time steps ([`BlockedDesign`] for temporal blocking).
    /// `None` where no model is given (scenes: materials and edges add traffic that is not
    /// modelled). The default is the simple kernel's: read `f` and `g`, write `f`, 12 B.
    fn dram_bytes_per_update(&self, tsteps: u32) -> Option<f64> {
        let _ = tsteps;
        self.scene().plain_params().map(|_| crate::sim::wave::BYTES_PER_CELL_UPDATE as f64)
    }

    /// The concrete type, for callers that use a backend's own extras (the app draws a
    /// wgpu field straight from the GPU without a copy to the host).
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

/// Checks that `rgba` holds the picture of an `nx x ny` field taken every `stride`-th pixel
/// (for [`WaveSim::render_rgba_strided`]).
///
/// # Errors
/// [`BackendError::Invalid`] naming both sizes.
pub fn check_strided_len(nx: usize, ny: usize, stride: usize, rgba: &[u8]) -> Result<(), BackendError> {
    let (w, h) = crate::sim::colour::colormap::strided_size(nx, ny, stride);
    if rgba.len() == w * h * 4 {
        return Ok(());
    }
    Err(BackendError::Invalid(format!("RGBA buffer holds {} bytes, a {w}x{h} frame needs {}", rgba.len(), w * h * 4)))
}

/// Checks that `f` and `g` each hold the `cells` of a field (for [`WaveSim::write_fields`]).
///
/// # Errors
/// [`BackendError::Invalid`] naming the sizes.
pub fn check_field_sizes(f: &[f32], g: &[f32], cells: usize) -> Result<(), BackendError> {
    if f.len() != cells || g.len() != cells {
        return Err(BackendError::Invalid(format!(
            "fields of {} and {} values do not fit a grid of {cells} cells",
            f.len(),
            g.len()
        )));
    }
    Ok(())
}

/// A scene with `sources` in place of its own, checked: same number of sources, valid.
///
/// # Errors
/// [`BackendError::Invalid`] saying why.
pub fn scene_with_sources(scene: &Scene, sources: &[Source]) -> Result<Scene, BackendError> {
    if sources.len() != scene.sources.len() {
        return Err(BackendError::Invalid(format!(
            "{} sources in place of {}: open the scene instead",
            sources.len(),
            scene.sources.len()
        )));
    }
    let mut s = scene.clone();
    s.sources = sources.to_vec();
    s.validate().map_err(|e| BackendError::Invalid(e.to_string()))?;
    Ok(s)
}

/// The shape of a temporally blocked wave kernel, from which its memory traffic follows.
///
/// One launch loads a `tile` of both fields (`f`, `g`: the output block plus a halo on every
/// side) and stores the `out` block of both, having done up to `2 * steps_per_launch` updates on
/// chip in between. Per output cell and launch that is `8 * tile/out` bytes read and 8 written,
/// shared by the updates of the launch. Halo cells are loaded by the neighbouring tiles too:
/// counted each time, as the kernel asks for them (a re-read that hits L2 does not reach DRAM,
/// so the real DRAM traffic lies between `16 / updates` and this figure).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockedDesign {
    /// Tile loaded per launch, halo included: `(along j, along i)` cells.
    pub tile: (u32, u32),
    /// Output block stored per launch.
    pub out: (u32, u32),
}

impl BlockedDesign {
    /// Cells loaded per cell stored (the halo's share of the reads).
    #[must_use]
    pub fn halo_ratio(self) -> f64 {
        f64::from(self.tile.0 * self.tile.1) / f64::from(self.out.0 * self.out.1)
    }

    /// Bytes per cell update when a call of `tsteps` time steps makes `launches` launches.
    #[must_use]
    pub fn bytes_per_update(self, tsteps: u32, launches: u32) -> f64 {
        if tsteps == 0 {
            return 0.0;
        }
        let per_launch = 8.0 * self.halo_ratio() + 8.0;
        f64::from(launches) * per_launch / (2.0 * f64::from(tsteps))
    }
}

/// One Mandelbrot image: counts and the iterations executed.
#[derive(Clone, Copy, Debug)]
pub struct MandelbrotRun {
    /// The rule's iterations over all pixels (`min(count + 1, iters)` each).
    pub total_iters: u64,
    /// Iterations executed where the kernel skipped some (deep zoom with BLA: single steps plus
    /// BLA steps, one each); `None`: every iteration of the rule was executed.
    pub executed_iters: Option<u64>,
    pub timing: Timing,
}

impl MandelbrotRun {
    /// The iterations executed ([`Self::executed_iters`], else the rule's).
    #[must_use]
    pub fn executed(&self) -> u64 {
        self.executed_iters.unwrap_or(self.total_iters)
    }
}

/// Largest difference between a backend's smooth escape value `nu` and the CPU's at a pixel
/// whose counts agree: the iterations are the same roundings (no FMA), only the two logarithms
/// may differ in their last bits (CUDA's `log2`, WGSL's `f32` `log2`) and wgpu forms `ν` in
/// `f32` (a rounding of `2^-24 ν`): `1e-3 + 2.5e-7 |ν|`, far below a colour step.
#[must_use]
pub fn smooth_tolerance(nu: f32) -> f32 {
    1e-3 + nu.abs() * 2.5e-7
}

/// Checks that `counts` and, when given, `smooth` hold one value per pixel.
///
/// # Errors
/// [`BackendError::Invalid`] naming the lengths.
pub fn check_image_len(counts: &[i32], smooth: Option<&[f32]>, pixels: usize) -> Result<(), BackendError> {
    if counts.len() != pixels {
        return Err(BackendError::Invalid(format!("counts hold {} values, image has {pixels}", counts.len())));
    }
    if let Some(s) = smooth
        && s.len() != pixels
    {
        return Err(BackendError::Invalid(format!("smooth values hold {}, image has {pixels}", s.len())));
    }
    Ok(())
}

/// How a lesson's sum reduction adds up ([`Backend::reduce_sum`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceMethod {
    /// Partial sums per block, halved in shared memory (a tree), then the partials.
    Tree,
    /// Every element added to one counter with an atomic add.
    Atomic,
}

impl ReduceMethod {
    /// Both, the tree first.
    pub const ALL: [Self; 2] = [Self::Tree, Self::Atomic];

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Tree => "tree",
            Self::Atomic => "atomics",
        }
    }
}

/// The times of one lesson kernel: the copies to and from the device and the kernel between.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LessonTiming {
    /// Host to device (wall clock, waited for); zero on the CPU, which copies nothing.
    pub upload: Duration,
    /// The kernel alone.
    pub kernel: Duration,
    /// Device to host (wall clock, waited for); zero on the CPU.
    pub download: Duration,
    /// Where `kernel` came from.
    pub source: TimingSource,
}

/// The lesson kernels were not written for this backend.
fn no_lesson(kind: BackendKind, what: &str) -> BackendError {
    BackendError::Unavailable { kind, reason: format!("the {what} lesson has no kernel on this backend") }
}

/// One device that can run both demos.
pub trait Backend: Send {
    /// Which backend this is.
    fn kind(&self) -> BackendKind;

    /// The device it runs on.
    fn device_info(&self) -> DeviceInfo;

    /// True when the "device" is a software emulation on the CPU (llvmpipe): `auto` then
    /// prefers the CPU backend, which is faster than an emulated GPU.
    fn is_software(&self) -> bool {
        false
    }

    /// Allocates a wave problem (zero fields). Refuses, without allocating, a problem
    /// larger than the device's memory.
    ///
    /// # Errors
    /// Invalid parameters, out of memory, or a device failure.
    fn new_wave(&self, params: &WaveParams) -> Result<Box<dyn WaveSim>, BackendError> {
        self.new_wave_variant(params, WaveVariant::Auto)
    }

    /// [`Backend::new_wave`] with a chosen kernel variant. Backends with one kernel (the CPU)
    /// take only `Auto`.
    ///
    /// # Errors
    /// As `new_wave`, and [`BackendError::Invalid`] for a variant this backend lacks.
    fn new_wave_variant(&self, params: &WaveParams, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError>;

    /// Allocates a wave scene (zero fields). A scene that is the seed's rule
    /// ([`Scene::plain_params`]) runs on the plain kernel ([`Backend::new_wave`]), bit for bit
    /// today's results.
    ///
    /// # Errors
    /// An invalid scene, out of memory, a device failure, or (the default, for backends without
    /// a scene kernel) [`BackendError::Unavailable`] for a scene that is not plain.
    fn new_scene(&self, scene: &Scene) -> Result<Box<dyn WaveSim>, BackendError> {
        scene.validate().map_err(|e| BackendError::Invalid(e.to_string()))?;
        match scene.plain_params() {
            Some(p) => self.new_wave(&p),
            None => Err(BackendError::Unavailable {
                kind: self.kind(),
                reason: "scenes are not implemented on this backend yet".to_owned(),
            }),
        }
    }

    /// [`Backend::new_scene`] with a chosen kernel variant (a plain scene runs that variant of the
    /// plain kernel). Backends with one scene kernel take only `Auto`.
    ///
    /// # Errors
    /// As `new_scene`, and [`BackendError::Invalid`] for a variant this backend lacks.
    fn new_scene_variant(&self, scene: &Scene, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        if variant == WaveVariant::Auto {
            self.new_scene(scene)
        } else {
            Err(BackendError::Invalid(format!("{} has no wave variant `{}`", self.kind().name(), variant.name())))
        }
    }

    /// The scene kernel variants this backend offers besides `Auto` (empty: one scene kernel).
    fn scene_variants(&self) -> &'static [WaveVariant] {
        &[]
    }

    /// The wave kernel variants this backend offers besides `Auto` (empty: one kernel).
    fn wave_variants(&self) -> &'static [WaveVariant] {
        &[]
    }

    /// Computes escape counts into `counts` (`width*height`, row 0 at `miny`).
    ///
    /// # Errors
    /// Invalid parameters (a precision the device lacks), out of memory, or a device failure.
    fn mandelbrot(&mut self, params: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError>;

    /// [`Backend::mandelbrot`] that also writes each pixel's continuous escape value into
    /// `smooth` (`width*height`, same layout as `counts`), for smooth colouring
    /// ([`crate::sim::colour::palette`]). The counts are exactly those of [`Backend::mandelbrot`] (the
    /// seed's rule, bailout 2); the smooth value is [`crate::sim::fractal::mandelbrot::smooth_value`],
    /// taken a few iterations past the escape ([`crate::sim::fractal::mandelbrot::SMOOTH_EXTRA_ITERS`]),
    /// `iters` for pixels that never escape. Backends agree with the CPU's smooth values within
    /// [`smooth_tolerance`] wherever their counts agree. `total_iters` counts the rule's
    /// iterations only.
    ///
    /// # Errors
    /// As [`Backend::mandelbrot`]; `smooth` of the wrong length; (the default, for a backend
    /// without the kernel, such as a test double) [`BackendError::Unavailable`].
    fn mandelbrot_smooth(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        let _ = (params, counts, smooth);
        Err(BackendError::Unavailable {
            kind: self.kind(),
            reason: "smooth escape values are not implemented on this backend".to_owned(),
        })
    }

    /// Computes the Julia set of `params.c` ([`crate::sim::fractal::julia`]): escape counts into `counts`
    /// (`width*height`, row 0 at `miny`) and, when `smooth` is given, each pixel's continuous
    /// escape value (as [`Backend::mandelbrot_smooth`]). Counts agree with the CPU's as the
    /// Mandelbrot family's do (CUDA bit for bit; budgets of
    /// [`crate::sim::fractal::mandelbrot::mismatch_tolerance`]).
    ///
    /// # Errors
    /// Invalid parameters (a precision the device lacks), buffers of the wrong length, out of
    /// memory, a device failure, or (the default, for a backend without the kernel)
    /// [`BackendError::Unavailable`].
    fn julia(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: Option<&mut [f32]>,
    ) -> Result<MandelbrotRun, BackendError> {
        let _ = (params, counts, smooth);
        Err(BackendError::Unavailable {
            kind: self.kind(),
            reason: "Julia sets are not implemented on this backend".to_owned(),
        })
    }

    /// The SAXPY lesson: `y = a*x + y` on the device, `x` and `y` copied there and `y` back.
    ///
    /// # Errors
    /// Out of memory, a device failure, or a backend without the lesson's kernel.
    fn saxpy(&mut self, a: f32, x: &[f32], y: &mut [f32]) -> Result<LessonTiming, BackendError> {
        let _ = (a, x, y);
        Err(no_lesson(self.kind(), "saxpy"))
    }

    /// The reduction lesson: the wrapping sum of `x` by `method`, `x` copied to the device.
    ///
    /// # Errors
    /// Out of memory, a device failure, or a backend without the lesson's kernel.
    fn reduce_sum(&mut self, x: &[u32], method: ReduceMethod) -> Result<(u32, LessonTiming), BackendError> {
        let _ = (x, method);
        Err(no_lesson(self.kind(), "reduction"))
    }

    /// Computes the escape counts of a deep view by perturbation around `job`'s reference
    /// orbit into `counts` (`width*height`, row 0 at `miny`).
    ///
    /// # Errors
    /// Out of memory, a device failure, or (the default, for a backend without a perturbation
    /// kernel, such as a test double) [`BackendError::Unavailable`].
    fn mandelbrot_deep(&mut self, job: &DeepJob, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        let _ = (job, counts);
        Err(BackendError::Unavailable {
            kind: self.kind(),
            reason: "deep zoom (perturbation) is not implemented on this backend".to_owned(),
        })
    }

    /// [`Backend::mandelbrot_deep`] that also writes each pixel's continuous escape value into
    /// `smooth`, as [`Backend::mandelbrot_smooth`] does for shallow views (the extra iterations
    /// run on the full `z = Z + dz`, in the deltas' precision). The counts are exactly those of
    /// [`Backend::mandelbrot_deep`].
    ///
    /// # Errors
    /// As [`Backend::mandelbrot_deep`]; `smooth` of the wrong length.
    fn mandelbrot_deep_smooth(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        let _ = (job, counts, smooth);
        Err(BackendError::Unavailable {
            kind: self.kind(),
            reason: "smooth escape values of deep views are not implemented on this backend".to_owned(),
        })
    }

    /// The arithmetic [`Backend::mandelbrot_deep`] uses for `job`, in words
    /// (`perturbation f64`, `perturbation f64, extended exponent`, ...).
    fn deep_arith(&self, job: &DeepJob) -> String {
        job.arith_label("f64")
    }
}

/// Opens the backend of `kind`.
///
/// # Errors
/// [`BackendError::Unavailable`] with the reason when it cannot run here.
pub fn open(kind: BackendKind) -> Result<Box<dyn Backend>, BackendError> {
    match kind {
        BackendKind::Cuda => cuda::open(),
        BackendKind::Wgpu => wgpu::open(),
        BackendKind::Cpu => Ok(Box::new(cpu::CpuBackend::new(cpu::Threads::All))),
        BackendKind::Cpu1 => Ok(Box::new(cpu::CpuBackend::new(cpu::Threads::One))),
    }
}

/// Opens what `choice` asks for; `auto` takes the first of CUDA, wgpu, CPU that opens and
/// returns why the ones before it could not.
///
/// # Errors
/// The reason the one named backend is unavailable.
pub fn open_choice(choice: BackendChoice) -> Result<(Box<dyn Backend>, Vec<String>), BackendError> {
    if let Some(kind) = choice.kind() {
        return open(kind).map(|b| (b, Vec::new()));
    }
    let mut notes = Vec::new();
    for kind in [BackendKind::Cuda, BackendKind::Wgpu] {
        match open(kind) {
            Ok(b) if b.is_software() => {
                notes
                    .push(format!("{kind} runs on {}, a software emulation slower than the CPU", b.device_info().name));
            }
            Ok(b) => return Ok((b, notes)),
            Err(e) => notes.push(e.to_string()),
        }
    }
    Ok((Box::new(cpu::CpuBackend::new(cpu::Threads::All)), notes))
}

/// Whether each backend can run here: its device, or the reason it cannot.
#[must_use]
pub fn probe_all() -> Vec<(BackendKind, Result<DeviceInfo, String>)> {
    probe_all_with_variants().into_iter().map(|(k, p)| (k, p.map(|(info, _)| info))).collect()
}

/// What [`probe_all_with_variants`] finds of one backend: its device and wave kernel
/// variants, or why it cannot run here.
pub type Probe = Result<(DeviceInfo, &'static [WaveVariant]), String>;

/// [`probe_all`] with the wave kernel variants each available backend offers (`info`).
#[must_use]
pub fn probe_all_with_variants() -> Vec<(BackendKind, Probe)> {
    BackendKind::ALL
        .iter()
        .map(|&k| {
            let probe = open(k).map(|b| (b.device_info(), b.wave_variants())).map_err(|e| match e {
                BackendError::Unavailable { reason, .. } => reason,
                other => other.to_string(),
            });
            (k, probe)
        })
        .collect()
}

/// Refuses a problem of `needed_bytes` on a device with `available_bytes`.
///
/// # Errors
/// [`BackendError::OutOfMemory`] when it does not fit.
pub fn check_fits(
    kind: BackendKind,
    what: &str,
    needed_bytes: u64,
    available_bytes: Option<u64>,
) -> Result<(), BackendError> {
    match available_bytes {
        Some(available_bytes) if needed_bytes > available_bytes => {
            Err(BackendError::OutOfMemory { kind, what: what.to_owned(), needed_bytes, available_bytes })
        }
        _ => Ok(()),
    }
}
