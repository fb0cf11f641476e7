//! The CUDA backend: `kernels/*.cu` compiled at run time by NVRTC to the device's own machine
//! code, kept in the kernel cache on disk for the next process (`kernel_cache.rs`), and driven
//! through cudarc.
//!
//! One file per kernel family, driving `kernels/NAME.cu`, the twins of `src/backend/cpu/NAME.rs`
//! and `src/backend/wgpu/NAME.rs` (the families: ARCHITECTURE.md's table, checked against the
//! files by `backend::families`); `wave_tile.rs` holds the tile both wave kernels share, `copy.rs`
//! the pinned transfers to the host, `launch.rs` every unsafe cudarc call (launches, uncleared
//! memory, events). This file owns the context: probing, NVRTC, device facts.
//!
//! - [`open`] probes libcuda and libnvrtc before any other cudarc call (cudarc panics
//!   when they are missing), then opens device 0 and compiles the kernels; every failure
//!   is a [`BackendError::Unavailable`] or [`BackendError::Compile`] with its reason.
//! - Every copy to the host goes through pinned memory, in chunks that the host copies out
//!   while the next is on the bus; kernels are timed with CUDA events.
//!
//! Paths measured and retired (programmatic dependent launch, a persistent cooperative wave
//! kernel, copies straight into pageable memory, launches without a graph): their numbers and
//! the commit that had them are in docs/PERFORMANCE.md, "CUDA".

mod colormap;
mod copy;
mod julia;
mod kernel_cache;
mod launch;
mod mandelbrot;
mod mandelbrot_deep;
mod nvrtc;
mod reduction;
mod saxpy;
mod wave;
mod wave_scene;
mod wave_tile;

use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, sys};

use super::{
    Backend, BackendError, BackendKind, DeviceInfo, LessonTiming, MandelbrotRun, ReduceMethod, WaveSim, WaveVariant,
};
use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::julia::JuliaParams;
use crate::sim::fractal::mandelbrot::MandelbrotParams;
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::Scene;

pub use wave::CudaWave;

use launch::Events;

/// The wave program: the plain kernels, then the scene kernels that use their helpers.
const WAVE_CU: &str =
    concat!(include_str!("../../../kernels/wave.cu"), "\n", include_str!("../../../kernels/wave_scene.cu"));
const MANDELBROT_CU: &str = include_str!("../../../kernels/mandelbrot.cu");
const MANDELBROT_DEEP_CU: &str = include_str!("../../../kernels/mandelbrot_deep.cu");
const JULIA_CU: &str = include_str!("../../../kernels/julia.cu");
const COLORMAP_CU: &str = include_str!("../../../kernels/colormap.cu");

const KIND: BackendKind = BackendKind::Cuda;

/// Device 0 with its compiled kernels: made once per process.
struct Device {
    ctx: Arc<CudaContext>,
    info: DeviceInfo,
    wave_steps: CudaFunction,
    wave_update: CudaFunction,
    wave_scene_update: CudaFunction,
    wave_scene_sources: CudaFunction,
    wave_scene_edges: CudaFunction,
    wave_scene_steps: CudaFunction,
    wave_scene_layer_steps: CudaFunction,
    wave_rgba: CudaFunction,
    wave_rgba_strided: CudaFunction,
    mandelbrot_f64: CudaFunction,
    mandelbrot_f32: CudaFunction,
    mandelbrot_deep_f64: CudaFunction,
    mandelbrot_deep_de_f64: CudaFunction,
    julia_f64: CudaFunction,
    julia_f32: CudaFunction,
    julia_de_f64: CudaFunction,
    julia_de_f32: CudaFunction,
}

/// Why [`Device`] could not be made; kept (cloned) for every later `open`.
#[derive(Clone, Debug)]
enum OpenError {
    Unavailable(String),
    Compile(String),
}

impl From<OpenError> for BackendError {
    fn from(e: OpenError) -> Self {
        match e {
            OpenError::Unavailable(reason) => Self::Unavailable { kind: KIND, reason },
            OpenError::Compile(log) => Self::Compile { kind: KIND, log },
        }
    }
}

fn runtime(what: &str, e: DriverError) -> BackendError {
    BackendError::Runtime { kind: KIND, message: format!("{what}: {e}") }
}

/// Allocation failures say how much was asked for.
fn alloc_error(what: &str, bytes: u64, e: DriverError) -> BackendError {
    if e.0 == sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY {
        BackendError::OutOfMemory { kind: KIND, what: what.to_owned(), needed_bytes: bytes, available_bytes: 0 }
    } else {
        runtime(what, e)
    }
}

/// A device opened once, or why it could not be.
type Opened = Result<Arc<Device>, OpenError>;

static DEVICE: OnceLock<Opened> = OnceLock::new();

fn device() -> Result<Arc<Device>, OpenError> {
    DEVICE.get_or_init(|| init(0).map(Arc::new)).clone()
}

/// Devices after the first, opened on demand (a zoom movie's keyframes on every GPU).
static OTHER_DEVICES: std::sync::Mutex<Vec<(usize, Opened)>> = std::sync::Mutex::new(Vec::new());

/// The CUDA devices the driver sees (0 where CUDA does not open).
#[must_use]
pub fn device_count() -> usize {
    if device().is_err() {
        return 0;
    }
    CudaContext::device_count().map_or(1, |n| usize::try_from(n).unwrap_or(1))
}

/// Opens the CUDA backend on device `ordinal` (its own context and compiled kernels).
///
/// # Errors
/// As [`open`].
pub fn open_device(ordinal: usize) -> Result<Box<dyn Backend>, BackendError> {
    if ordinal == 0 {
        return open();
    }
    device()?;
    let dev = {
        let mut others = OTHER_DEVICES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match others.iter().find(|(o, _)| *o == ordinal) {
            Some((_, d)) => d.clone(),
            None => {
                let d = init(ordinal).map(Arc::new);
                others.push((ordinal, d.clone()));
                d
            }
        }
    }?;
    let stream = dev.ctx.new_stream().map_err(|e| runtime("creating a stream", e))?;
    Ok(Box::new(CudaBackend { dev, stream, mandel: None }))
}

/// Opens the CUDA backend on device 0.
///
/// # Errors
/// [`BackendError::Unavailable`] naming what is missing (driver library, NVRTC, a device),
/// or [`BackendError::Compile`] with NVRTC's log.
pub fn open() -> Result<Box<dyn Backend>, BackendError> {
    let dev = device()?;
    let stream = dev.ctx.new_stream().map_err(|e| runtime("creating a stream", e))?;
    Ok(Box::new(CudaBackend { dev, stream, mandel: None }))
}

/// `info`'s line on the blocked scene kernels: registers and local memory (a spill shows there).
fn scene_kernels_line(steps: &cudarc::driver::CudaFunction, layer: &cudarc::driver::CudaFunction) -> String {
    let regs = |f: &cudarc::driver::CudaFunction| {
        format!("{} registers, {} B local", f.num_regs().unwrap_or(-1), f.local_size_bytes().unwrap_or(-1))
    };
    format!("blocked: wave_scene_steps {}; wave_scene_layer_steps {}", regs(steps), regs(layer))
}

#[expect(unsafe_code, reason = "probing the libraries and turning off cudarc's event tracking are unsafe cudarc calls")]
fn init(ordinal: usize) -> Result<Device, OpenError> {
    // SAFETY: these only try to dlopen the libraries; they touch no CUDA state.
    if !unsafe { sys::is_culib_present() } {
        return Err(OpenError::Unavailable("no CUDA driver (libcuda.so not found)".into()));
    }
    // SAFETY: as above.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(OpenError::Unavailable("no NVRTC (libnvrtc.so.13 not found; install the CUDA 13 runtime)".into()));
    }
    let unavailable = |what: &str, e: DriverError| OpenError::Unavailable(format!("{what}: {e}"));
    cudarc::driver::result::init().map_err(|e| {
        if e.0 == sys::cudaError_enum::CUDA_ERROR_NO_DEVICE {
            OpenError::Unavailable("no CUDA device found by the driver".into())
        } else {
            unavailable("the CUDA driver failed to initialise", e)
        }
    })?;
    let count = CudaContext::device_count().map_err(|e| unavailable("counting CUDA devices", e))?;
    if count < 1 {
        return Err(OpenError::Unavailable("no CUDA device found by the driver".into()));
    }
    let ctx = CudaContext::new(ordinal).map_err(|e| unavailable(&format!("opening CUDA device {ordinal}"), e))?;
    // SAFETY: every buffer of this backend is used on the one stream that allocated it
    // (a backend's stream, shared with its wave problems), so cudarc's per-buffer events
    // are not needed; they cost several event records per launch.
    unsafe { ctx.disable_event_tracking() };
    let (major, minor) = ctx.compute_capability().map_err(|e| unavailable("reading the compute capability", e))?;
    let arch = format!("--gpu-architecture=sm_{major}{minor}");
    let tile = wave_tile::TILE;

    // The wave and colormap kernels pin their rounding with intrinsics; fmad stays on for
    // the rest. Mandelbrot is compiled without fmad so its rounding is the CPU's.
    let [wave, colormap, mandel, deep, julia] = nvrtc::load_programs(
        &ctx,
        &arch,
        [
            nvrtc::Program { name: "wave.cu", src: WAVE_CU, fmad: true, defines: tile.defines() },
            nvrtc::Program { name: "colormap.cu", src: COLORMAP_CU, fmad: true, defines: Vec::new() },
            nvrtc::Program { name: "mandelbrot.cu", src: MANDELBROT_CU, fmad: false, defines: Vec::new() },
            nvrtc::Program { name: "mandelbrot_deep.cu", src: MANDELBROT_DEEP_CU, fmad: false, defines: Vec::new() },
            nvrtc::Program { name: "julia.cu", src: JULIA_CU, fmad: false, defines: Vec::new() },
        ],
        &format!(
            "driver {} | nvrtc {}",
            driver_version().map_or_else(|_| "?".to_owned(), |(a, b)| format!("{a}.{b}")),
            nvrtc_version().map_or_else(|| "?".to_owned(), |(a, b)| format!("{a}.{b}"))
        ),
    )?;
    let func = |m: &Arc<cudarc::driver::CudaModule>, name: &str| {
        m.load_function(name).map_err(|e| OpenError::Compile(format!("kernel {name}: {e}")))
    };
    let mut info = device_info(&ctx, major, minor);
    let wave_steps = func(&wave, "wave_steps")?;
    info.details.push((
        "wave kernel".into(),
        format!(
            "variants blocked (default) and simple; blocked: wave_steps, tile {}x{} (columns per lane {}, rows {}, warps {}), {} steps/launch, {} registers, {} B local",
            tile.width(),
            tile.height(),
            tile.cols,
            tile.rows,
            tile.warps,
            tile.steps(),
            wave_steps.num_regs().unwrap_or(-1),
            wave_steps.local_size_bytes().unwrap_or(-1)
        ),
    ));
    let wave_scene_steps = func(&wave, "wave_scene_steps")?;
    let wave_scene_layer_steps = func(&wave, "wave_scene_layer_steps")?;
    info.details.push(("scene kernels".into(), scene_kernels_line(&wave_scene_steps, &wave_scene_layer_steps)));
    Ok(Device {
        wave_steps,
        wave_update: func(&wave, "wave_update")?,
        wave_scene_update: func(&wave, "wave_scene_update")?,
        wave_scene_sources: func(&wave, "wave_scene_sources")?,
        wave_scene_edges: func(&wave, "wave_scene_edges")?,
        wave_scene_steps,
        wave_scene_layer_steps,
        wave_rgba: func(&colormap, "wave_rgba")?,
        wave_rgba_strided: func(&colormap, "wave_rgba_strided")?,
        mandelbrot_f64: func(&mandel, "mandelbrot_f64")?,
        mandelbrot_f32: func(&mandel, "mandelbrot_f32")?,
        mandelbrot_deep_f64: func(&deep, "mandelbrot_deep_f64")?,
        mandelbrot_deep_de_f64: func(&deep, "mandelbrot_deep_de_f64")?,
        julia_f64: func(&julia, "julia_f64")?,
        julia_f32: func(&julia, "julia_f32")?,
        julia_de_f64: func(&julia, "julia_de_f64")?,
        julia_de_f32: func(&julia, "julia_de_f32")?,
        ctx,
        info,
    })
}

/// Name, compute capability, SMs, memory and the memory bandwidth the datasheet gives
/// (from the memory clock and bus width where the driver reports them).
fn device_info(ctx: &Arc<CudaContext>, major: i32, minor: i32) -> DeviceInfo {
    use sys::CUdevice_attribute_enum as A;
    let attr = |a| ctx.attribute(a).ok().filter(|&v| v > 0);
    let name = ctx.name().unwrap_or_else(|_| "CUDA device 0".into());
    let total = ctx.total_mem().ok();
    let mut details =
        vec![("compute capability".to_owned(), format!("{major}.{minor} (kernels built for sm_{major}{minor})"))];
    if let Some(sms) = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) {
        details.push(("SMs".into(), sms.to_string()));
    }
    if let Some(t) = total {
        details.push(("memory".into(), format!("{:.1} GiB", t as f64 / f64::from(1u32 << 30))));
    }
    let l2 = attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    if let Some(l2) = l2 {
        details.push(("L2 cache".into(), format!("{} MiB", l2 >> 20)));
    }
    let from_attrs =
        match (attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE), attr(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)) {
            // kHz x bits, double data rate.
            (Some(khz), Some(bits)) => Some(2.0 * f64::from(khz) * 1e3 * f64::from(bits) / 8.0 / 1e9),
            _ => None,
        };
    let peak_gbps = from_attrs.or_else(|| known_bandwidth_gbps(&name));
    if let Some(p) = peak_gbps {
        details.push((
            "memory bandwidth".into(),
            format!("{p:.0} GB/s peak (copy measured 3.0 TB/s on H100, DESIGN.md §4)"),
        ));
    }
    let free = ctx.mem_get_info().ok().map(|(free, _)| free as u64);
    if let Some(f) = free {
        details.push(("free memory".into(), format!("{:.1} GiB", f as f64 / f64::from(1u32 << 30))));
    }
    if let Ok((drv_major, drv_minor)) = driver_version() {
        details.push(("driver CUDA version".into(), format!("{drv_major}.{drv_minor}")));
    }
    DeviceInfo { name, details, memory_bytes: free, peak_gbps, cache_bytes: l2.map(|b| b as u64) }
}

#[expect(unsafe_code, reason = "NVRTC's version is read through its raw API")]
fn nvrtc_version() -> Option<(i32, i32)> {
    let (mut major, mut minor) = (0i32, 0i32);
    // SAFETY: writes two ints; libnvrtc was found by the probe before this is called.
    let rc = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&raw mut major, &raw mut minor) };
    (rc == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS).then_some((major, minor))
}

#[expect(unsafe_code, reason = "the driver version is read through the raw driver API")]
fn driver_version() -> Result<(i32, i32), DriverError> {
    let mut v = 0i32;
    // SAFETY: writes one int; the driver library is loaded and initialised.
    unsafe { sys::cuDriverGetVersion(&raw mut v).result()? };
    Ok((v / 1000, (v % 1000) / 10))
}

/// Datasheet bandwidths for devices whose driver does not report the memory clock.
fn known_bandwidth_gbps(name: &str) -> Option<f64> {
    let table = [("H100 PCIe", 2000.0), ("H100 NVL", 3900.0), ("H100", 3350.0), ("H200", 4800.0), ("A100", 2039.0)];
    table.iter().find(|(n, _)| name.contains(n)).map(|&(_, g)| g)
}

/// Free device memory now.
fn free_bytes(dev: &Device) -> Option<u64> {
    dev.ctx.mem_get_info().ok().map(|(free, _)| free as u64)
}

/// Refuses `needed` bytes unless they fit in free device memory with some room to spare.
fn check_free(dev: &Device, what: &str, needed: u64) -> Result<(), BackendError> {
    // Keep 64 MiB for the context, modules and the driver's own buffers.
    let avail = free_bytes(dev).map(|f| f.saturating_sub(64 << 20));
    super::check_fits(KIND, what, needed, avail)
}

/// The CUDA backend on one stream of device 0.
pub struct CudaBackend {
    dev: Arc<Device>,
    stream: Arc<CudaStream>,
    mandel: Option<mandelbrot::MandelBuffers>,
}

impl Backend for CudaBackend {
    fn kind(&self) -> BackendKind {
        KIND
    }

    fn device_info(&self) -> DeviceInfo {
        let mut info = self.dev.info.clone();
        if let Some(free) = free_bytes(&self.dev) {
            info.memory_bytes = Some(free);
        }
        info
    }

    fn new_wave_variant(&self, params: &WaveParams, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        if variant == WaveVariant::BlockedWorkgroup {
            return Err(BackendError::Invalid(format!("cuda has no wave variant `{variant}`")));
        }
        Ok(Box::new(CudaWave::new(&self.dev, &self.stream, params, variant)?))
    }

    fn wave_variants(&self) -> &'static [WaveVariant] {
        &WaveVariant::CONCRETE
    }

    fn scene_variants(&self) -> &'static [WaveVariant] {
        &WaveVariant::CONCRETE
    }

    fn scene_kernel(&self, scene: &Scene, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        Ok(Box::new(CudaWave::new_scene(&self.dev, &self.stream, scene, variant)?))
    }

    fn mandelbrot(&mut self, params: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        mandelbrot::mandelbrot(&self.dev, &self.stream, &mut self.mandel, params, counts)
    }

    fn mandelbrot_smooth(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        julia::julia(&self.dev, &self.stream, params, None, counts, Some(smooth))
    }

    fn mandelbrot_distance(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        julia::julia_de(&self.dev, &self.stream, params, None, counts, smooth, de)
    }

    fn julia_distance(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        params.validate()?;
        julia::julia_de(&self.dev, &self.stream, &params.grid(), Some(params.c), counts, smooth, de)
    }

    fn julia(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: Option<&mut [f32]>,
    ) -> Result<MandelbrotRun, BackendError> {
        params.validate()?;
        julia::julia(&self.dev, &self.stream, &params.grid(), Some(params.c), counts, smooth)
    }

    fn saxpy(&mut self, a: f32, x: &[f32], y: &mut [f32]) -> Result<LessonTiming, BackendError> {
        saxpy::run(&self.dev, &self.stream, a, x, y)
    }

    fn reduce_sum(&mut self, x: &[u32], method: ReduceMethod) -> Result<(u32, LessonTiming), BackendError> {
        reduction::run(&self.dev, &self.stream, x, method)
    }

    fn mandelbrot_deep(&mut self, job: &DeepJob, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        mandelbrot_deep::mandelbrot_deep(&self.dev, &self.stream, job, counts, None, None)
    }

    fn mandelbrot_deep_smooth(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        mandelbrot_deep::mandelbrot_deep(&self.dev, &self.stream, job, counts, Some(smooth), None)
    }

    fn mandelbrot_deep_distance(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        mandelbrot_deep::mandelbrot_deep(&self.dev, &self.stream, job, counts, Some(smooth), Some(de))
    }
}
