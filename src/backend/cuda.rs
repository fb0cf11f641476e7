//! The CUDA backend: `kernels/*.cu` compiled at run time by NVRTC for the device's own
//! architecture, once per process, and driven through cudarc.
//!
//! - [`open`] probes libcuda and libnvrtc before any other cudarc call (cudarc panics
//!   when they are missing), then opens device 0 and compiles the kernels; every failure
//!   is a [`BackendError::Unavailable`] or [`BackendError::Compile`] with its reason.
//! - Waves ([`CudaWave`]) run by temporal blocking (`wave_steps`: up to `WAVE_K/2` time
//!   steps per launch, tiles held in registers, the source fused into the step); the
//!   launches of one `advance` are captured once into a CUDA graph and replayed.
//! - Mandelbrot counts come from `mandelbrot_f64` / `mandelbrot_f32`, which also sum the
//!   iterations executed per block, with an exact cardioid/bulb shortcut.
//! - Every copy to the host goes through pinned memory, in chunks that the host copies out
//!   while the next is on the bus; kernels are timed with CUDA events.
//!
//! Measurement switches (docs/PERFORMANCE.md, "CUDA"), all off by default:
//! `WAVEBROT_CUDA_WAVE=naive` (one `wave_update` launch per update, the CPU twin's shape),
//! `WAVEBROT_CUDA_GRAPH=0`, `WAVEBROT_CUDA_PDL=1`, `WAVEBROT_CUDA_SHORTCUT=0`, `WAVEBROT_CUDA_DIRECT_COPY=1` and
//! `WAVEBROT_CUDA_TILE=cols,rows,warps,halo,min_blocks`, and `WAVEBROT_CUDA_PERSIST=1` (the persistent
//! `wave_persist` where all its blocks fit at once, tile `WAVEBROT_CUDA_PTILE=cols,rows,warps,halo,1`).

#![expect(
    unsafe_code,
    reason = "cudarc's kernel launches, graph capture and pinned host memory are unsafe APIs; each use carries a SAFETY note"
)]

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaGraph, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg, sys,
};
use cudarc::nvrtc::{CompileError, CompileOptions, compile_ptx_with_opts};
use rayon::prelude::*;

use super::{Backend, BackendError, BackendKind, DeviceInfo, MandelbrotRun, Timing, TimingSource, WaveSim};
use crate::sim::colormap::HOT_LUT;
use crate::sim::mandelbrot::{MandelbrotParams, Precision};
use crate::sim::wave::{WaveParams, source_value};

const WAVE_CU: &str = include_str!("../../kernels/wave.cu");
const MANDELBROT_CU: &str = include_str!("../../kernels/mandelbrot.cu");

const KIND: BackendKind = BackendKind::Cuda;

/// The temporal-blocking tile of `wave_steps` (the `-D` values it is compiled with).
#[derive(Clone, Copy, Debug)]
struct Tile {
    /// Columns each lane owns (`WAVE_CW`): a warp spans `32*cols` columns.
    cols: u32,
    /// Rows each thread owns.
    rows: u32,
    /// Warps per block, stacked along `i`.
    warps: u32,
    /// Halo width: the most updates one launch may do.
    halo: u32,
    /// Blocks per SM the kernel's register budget must allow (`__launch_bounds__`).
    min_blocks: u32,
}

impl Tile {
    /// Default, or `WAVEBROT_CUDA_TILE=cols,rows,warps,halo,min_blocks` for tuning runs.
    fn from_env() -> Self {
        Self::parse("WAVEBROT_CUDA_TILE", Self { cols: 2, rows: 8, warps: 8, halo: 8, min_blocks: 4 }, 2)
    }

    /// The persistent kernel's tile, or `WAVEBROT_CUDA_PTILE=cols,rows,warps,halo,1`. Its
    /// output must be at least a halo wide (a halo comes from the 8 neighbours only).
    fn persist_from_env() -> Self {
        Self::parse("WAVEBROT_CUDA_PTILE", Self { cols: 3, rows: 6, warps: 16, halo: 8, min_blocks: 1 }, 3)
    }

    /// `var` as `cols,rows,warps,halo,min_blocks` if valid with `halo_factor * halo` under
    /// the tile's sides, else `default`.
    fn parse(var: &str, default: Self, halo_factor: u32) -> Self {
        let Ok(text) = std::env::var(var) else { return default };
        let v: Vec<u32> = text.split(',').filter_map(|s| s.trim().parse().ok()).collect();
        match v[..] {
            [cols, rows, warps, halo, min_blocks]
                if (1..=8).contains(&min_blocks)
                    && (1..=8).contains(&cols)
                    && rows * cols <= 32
                    && (1..=32).contains(&warps)
                    && halo >= 2
                    && halo % 2 == 0
                    && halo_factor * halo <= (rows * warps).min(32 * cols)
                    && 2 * halo < (rows * warps).min(32 * cols) =>
            {
                Self { cols, rows, warps, halo, min_blocks }
            }
            _ => default,
        }
    }

    fn width(self) -> u32 {
        32 * self.cols
    }

    fn height(self) -> u32 {
        self.rows * self.warps
    }

    /// Output cells along `j` and `i` per block.
    fn out(self) -> (u32, u32) {
        (self.width() - 2 * self.halo, self.height() - 2 * self.halo)
    }

    /// Time steps per launch.
    fn steps(self) -> u32 {
        self.halo / 2
    }
}

/// Device 0 with its compiled kernels: made once per process.
struct Device {
    ctx: Arc<CudaContext>,
    /// Programmatic dependent launch (compute capability 9.0 and up): a launch may start
    /// while the one before drains.
    pdl: bool,
    info: DeviceInfo,
    tile: Tile,
    wave_steps: CudaFunction,
    /// `wave_persist` compiled for `ptile`, with how many of its blocks fit on the device
    /// at once (`None` unless `WAVEBROT_CUDA_PERSIST=1`, or if it cannot be used).
    persist: Option<(CudaFunction, u32)>,
    ptile: Tile,
    wave_update: CudaFunction,
    wave_rgba: CudaFunction,
    mandelbrot_f64: CudaFunction,
    mandelbrot_f32: CudaFunction,
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

static DEVICE: OnceLock<Result<Arc<Device>, OpenError>> = OnceLock::new();

fn device() -> Result<Arc<Device>, OpenError> {
    DEVICE.get_or_init(|| init().map(Arc::new)).clone()
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

fn init() -> Result<Device, OpenError> {
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
    let ctx = CudaContext::new(0).map_err(|e| unavailable("opening CUDA device 0", e))?;
    // SAFETY: every buffer of this backend is used on the one stream that allocated it
    // (a backend's stream, shared with its wave problems), so cudarc's per-buffer events
    // are not needed; they cost several event records per launch.
    unsafe { ctx.disable_event_tracking() };
    let (major, minor) = ctx.compute_capability().map_err(|e| unavailable("reading the compute capability", e))?;
    let arch = format!("--gpu-architecture=sm_{major}{minor}");
    let tile = Tile::from_env();

    let compile = |name: &str, src: &str, fmad: bool, defines: Vec<String>| {
        let mut options = vec![arch.clone()];
        options.extend(defines);
        let opts = CompileOptions { fmad: Some(fmad), options, name: Some(name.to_owned()), ..Default::default() };
        compile_ptx_with_opts(src, opts).map_err(|e| match e {
            CompileError::CompileError { log, .. } => {
                OpenError::Compile(format!("{name} ({arch}):\n{}", log.to_string_lossy().trim_end()))
            }
            other => OpenError::Compile(format!("{name} ({arch}): {other:?}")),
        })
    };
    let defines = |tile: Tile| {
        vec![
            format!("-DWAVE_CW={}", tile.cols),
            format!("-DWAVE_R={}", tile.rows),
            format!("-DWAVE_WARPS={}", tile.warps),
            format!("-DWAVE_K={}", tile.halo),
            format!("-DWAVE_MINB={}", tile.min_blocks),
        ]
    };
    // The wave kernels pin their rounding with intrinsics; fmad stays on for the rest.
    let wave_ptx = compile("wave.cu", WAVE_CU, true, defines(tile))?;
    let ptile = Tile::persist_from_env();
    // The persistent kernel needs its own tile, so its own compile: only when asked for.
    let persist_ptx = if persist_enabled() { Some(compile("wave.cu", WAVE_CU, true, defines(ptile))?) } else { None };
    let mandel_ptx = compile("mandelbrot.cu", MANDELBROT_CU, false, Vec::new())?;
    let load = |what: &str, e: DriverError| OpenError::Compile(format!("loading {what} on the device: {e}"));
    let wave = ctx.load_module(wave_ptx).map_err(|e| load("wave.cu", e))?;
    let mandel = ctx.load_module(mandel_ptx).map_err(|e| load("mandelbrot.cu", e))?;
    let func = |m: &Arc<cudarc::driver::CudaModule>, name: &str| {
        m.load_function(name).map_err(|e| OpenError::Compile(format!("kernel {name}: {e}")))
    };
    let mut info = device_info(&ctx, major, minor);
    let wave_steps = func(&wave, "wave_steps")?;
    let persist = match persist_ptx {
        Some(ptx) => {
            let m = ctx.load_module(ptx).map_err(|e| load("wave.cu (persistent)", e))?;
            let f = func(&m, "wave_persist")?;
            persist_capacity(&ctx, &f, ptile).map(|blocks| (f, blocks))
        }
        None => None,
    };
    info.details.push((
        "wave kernel".into(),
        format!(
            "wave_steps, tile {}x{} (columns per lane {}, rows {}, warps {}), {} steps/launch, {} registers, {} B local",
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
    Ok(Device {
        wave_steps,
        wave_update: func(&wave, "wave_update")?,
        wave_rgba: func(&wave, "wave_rgba")?,
        mandelbrot_f64: func(&mandel, "mandelbrot_f64")?,
        mandelbrot_f32: func(&mandel, "mandelbrot_f32")?,
        persist,
        ptile,
        pdl: major >= 9,
        ctx,
        info,
        tile,
    })
}

/// Blocks of `wave_persist` that can be resident at once (occupancy x SMs), if any and
/// the device supports cooperative launches.
fn persist_capacity(ctx: &Arc<CudaContext>, f: &CudaFunction, tile: Tile) -> Option<u32> {
    use sys::CUdevice_attribute_enum as A;
    if ctx.attribute(A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH).ok()? != 1 {
        return None;
    }
    let sms = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).ok()?;
    let mut per_sm = 0i32;
    // SAFETY: writes one int; `f` is a loaded function of this context.
    unsafe {
        sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&raw mut per_sm, f.cu_function(), (32 * tile.warps) as i32, 0)
            .result()
            .ok()?;
    }
    u32::try_from(per_sm * sms).ok().filter(|&b| b > 0)
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
    if let Some(l2) = attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) {
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
    DeviceInfo { name, details, memory_bytes: free, peak_gbps }
}

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

fn pinned<T: cudarc::driver::DeviceRepr>(
    dev: &Device,
    what: &str,
    len: usize,
) -> Result<PinnedHostSlice<T>, BackendError> {
    // SAFETY: the memory is only read after a copy into it has completed. Flags 0 (not
    // write-combined): the host reads it back.
    unsafe { dev.ctx.alloc_pinned_with_flags::<T>(len, 0) }
        .map_err(|e| alloc_error(what, (len * size_of::<T>()) as u64, e))
}

/// Copies pinned memory into `out`: on all cores for large copies (one thread would take
/// longer than the PCIe transfer for frames of tens of MB), on this thread up to 4 MiB,
/// where waking rayon's threads cost more than it saved (measured: 0.3–0.9 ms for 3.2 MB).
fn copy_out<T: Copy + Send + Sync>(src: &[T], out: &mut [T]) {
    const CHUNK: usize = 1 << 18;
    if size_of_val(out) <= 4 << 20 {
        out.copy_from_slice(&src[..out.len()]);
    } else {
        out.par_chunks_mut(CHUNK).zip(src.par_chunks(CHUNK)).for_each(|(o, s)| o.copy_from_slice(&s[..o.len()]));
    }
}

/// Copies `out.len()` bytes from device address `src` to `out` through the pinned
/// `staging` buffer in chunks: the host copies each chunk out while the next is on the bus.
/// `after` is recorded once every chunk is queued (the end of a timed region).
fn copy_chunked(
    ctx: &Arc<CudaContext>,
    stream: &CudaStream,
    src: sys::CUdeviceptr,
    staging: &mut [u8],
    out: &mut [u8],
    events: &mut Vec<CudaEvent>,
    after: Option<&CudaEvent>,
) -> Result<(), BackendError> {
    let n = out.len();
    let chunk = if n > 32 << 20 { 8 << 20 } else { 1 << 20 };
    let chunks = n.div_ceil(chunk);
    while events.len() < chunks {
        events.push(ctx.new_event(None).map_err(|e| runtime("creating an event", e))?);
    }
    for (k, dst) in staging[..n].chunks_mut(chunk).enumerate() {
        // SAFETY: `dst` is pinned memory the caller keeps alive, and every chunk is waited
        // for below before this function returns; the source range is `n` bytes of a
        // device buffer that holds at least that many.
        unsafe { cudarc::driver::result::memcpy_dtoh_async(dst, src + (k * chunk) as u64, stream.cu_stream()) }
            .map_err(|e| runtime("copying to the host", e))?;
        events[k].record(stream).map_err(|e| runtime("recording an event", e))?;
    }
    if let Some(e) = after {
        e.record(stream).map_err(|e| runtime("recording an event", e))?;
    }
    for (k, (o, s)) in out.chunks_mut(chunk).zip(staging[..n].chunks(chunk)).enumerate() {
        events[k].synchronize().map_err(|e| runtime("waiting for a copy", e))?;
        copy_out(s, o);
    }
    Ok(())
}

/// A pair of timing events on one stream.
struct Events {
    start: CudaEvent,
    stop: CudaEvent,
}

impl Events {
    fn new(ctx: &Arc<CudaContext>) -> Result<Self, BackendError> {
        let mk =
            || ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| runtime("creating an event", e));
        Ok(Self { start: mk()?, stop: mk()? })
    }

    /// Device time between the two recorded events (waits for the second).
    fn elapsed(&self) -> Result<Duration, BackendError> {
        let ms = self.start.elapsed_ms(&self.stop).map_err(|e| runtime("reading events", e))?;
        Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
    }
}

/// The CUDA backend on one stream of device 0.
pub struct CudaBackend {
    dev: Arc<Device>,
    stream: Arc<CudaStream>,
    mandel: Option<MandelBuffers>,
}

/// Mandelbrot buffers, kept between calls of the same or a smaller size.
struct MandelBuffers {
    /// Counts as u16 or i32 (see `narrow`), 4 bytes per pixel allocated.
    counts: CudaSlice<u8>,
    host: PinnedHostSlice<u8>,
    total: CudaSlice<u64>,
    host_total: PinnedHostSlice<u64>,
    events: Events,
    /// One per chunk of the copy back, so the host can start on the first chunks.
    chunk_events: Vec<CudaEvent>,
}

/// Bytes per chunk of the counts' copy to the host (a multiple of 4).
const MANDEL_CHUNK_BYTES: usize = 8 << 20;

fn shortcut_enabled() -> bool {
    std::env::var("WAVEBROT_CUDA_SHORTCUT").map_or(true, |v| v != "0")
}

/// Programmatic dependent launch is measured slower here (docs/PERFORMANCE.md): opt in.
fn pdl_enabled() -> bool {
    std::env::var("WAVEBROT_CUDA_PDL").is_ok_and(|v| v == "1")
}

/// The persistent kernel (`wave_persist`) where it fits: measured no faster than the graph of
/// launches at 1000x800 (docs/PERFORMANCE.md), so opt in with `WAVEBROT_CUDA_PERSIST=1`.
fn persist_enabled() -> bool {
    std::env::var("WAVEBROT_CUDA_PERSIST").is_ok_and(|v| v == "1")
}

fn graphs_enabled() -> bool {
    std::env::var("WAVEBROT_CUDA_GRAPH").map_or(true, |v| v != "0")
}

/// Launches of one `advance` from which it is captured into a CUDA graph and replayed.
const GRAPH_MIN_LAUNCHES: usize = 4;
/// Graphs kept per wave problem (one per `(tsteps, parity)` seen).
const GRAPH_CACHE: usize = 8;

fn wave_kernel_naive() -> bool {
    std::env::var("WAVEBROT_CUDA_WAVE").is_ok_and(|v| v == "naive")
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

    fn new_wave_variant(
        &self,
        params: &WaveParams,
        _variant: super::WaveVariant,
    ) -> Result<Box<dyn WaveSim>, BackendError> {
        params.validate().map_err(BackendError::Invalid)?;
        let what = format!("wave {}x{}", params.nx, params.ny);
        // Two fields and the two the tiled kernel writes into.
        check_free(&self.dev, &what, 2 * params.field_bytes())?;
        let n = params.cells();
        let bytes = 4 * n as u64;
        let mut fields = Vec::with_capacity(4);
        for _ in 0..4 {
            fields.push(self.stream.alloc_zeros::<f32>(n).map_err(|e| alloc_error(&what, bytes, e))?);
        }
        let lut: Vec<u32> = HOT_LUT.iter().map(|px| u32::from_le_bytes(*px)).collect();
        let lut = self.stream.clone_htod(&lut).map_err(|e| runtime("uploading the colormap", e))?;
        let svals = self.stream.alloc_zeros::<f32>(1024).map_err(|e| runtime("allocating source values", e))?;
        Ok(Box::new(CudaWave {
            dev: self.dev.clone(),
            stream: self.stream.clone(),
            params: *params,
            tstep: 0,
            fields,
            cur: 0,
            svals,
            lut,
            rgba: None,
            host_field: None,
            host_rgba: None,
            events: Events::new(&self.dev.ctx)?,
            chunk_events: Vec::new(),
            graphs: Vec::new(),
            exchange: None,
            tag_base: 0,
        }))
    }

    fn mandelbrot(&mut self, params: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        params.validate().map_err(BackendError::Invalid)?;
        let n = params.pixels();
        if counts.len() != n {
            return Err(BackendError::Invalid(format!("counts hold {} values, image has {n}", counts.len())));
        }
        let start = Instant::now();
        if self.mandel.as_ref().is_none_or(|m| m.counts.len() < 4 * n) {
            self.mandel = None; // free the old buffers before asking for larger ones
            let what = format!("mandelbrot {}x{}", params.width, params.height);
            check_free(&self.dev, &what, 4 * n as u64)?;
            // SAFETY: every byte that is copied back is written by the kernel first.
            let dev_counts =
                unsafe { self.stream.alloc::<u8>(4 * n) }.map_err(|e| alloc_error(&what, 4 * n as u64, e))?;
            self.mandel = Some(MandelBuffers {
                counts: dev_counts,
                host: pinned(&self.dev, &what, 4 * n)?,
                total: self.stream.alloc_zeros::<u64>(1).map_err(|e| runtime("allocating the total", e))?,
                host_total: pinned(&self.dev, "the iteration total", 1)?,
                events: Events::new(&self.dev.ctx)?,
                chunk_events: Vec::new(),
            });
        }
        let Some(m) = self.mandel.as_mut() else { unreachable!("allocated above") };
        let stream = &self.stream;
        stream.memset_zeros(&mut m.total).map_err(|e| runtime("clearing the total", e))?;
        let (px, py) = params.pixel_size();
        let b = params.bounds;
        let (width, height) = (params.width as i32, params.height as i32);
        let iters = params.iters as i32;
        let shortcut = i32::from(shortcut_enabled());
        // Counts fit in u16 up to 65535 iterations: half the bytes over PCIe.
        let narrow = params.iters <= u32::from(u16::MAX);
        let narrow_i32 = i32::from(narrow);
        let func = match params.precision {
            Precision::F64 => &self.dev.mandelbrot_f64,
            Precision::F32 => &self.dev.mandelbrot_f32,
        };
        let cfg = LaunchConfig {
            grid_dim: (params.width.div_ceil(32) as u32, params.height.div_ceil(32) as u32, 1),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        m.events.start.record(stream).map_err(|e| runtime("recording an event", e))?;
        let mut launch = stream.launch_builder(func);
        launch.arg(&width).arg(&height).arg(&b.minx).arg(&b.miny).arg(&px).arg(&py).arg(&iters).arg(&shortcut);
        launch.arg(&mut m.counts).arg(&narrow_i32).arg(&mut m.total);
        // SAFETY: the arguments match the kernel's signature; `counts` holds 4n bytes.
        unsafe { launch.launch(cfg) }.map_err(|e| runtime("launching mandelbrot", e))?;
        m.events.stop.record(stream).map_err(|e| runtime("recording an event", e))?;
        stream.memcpy_dtoh(&m.total, &mut m.host_total).map_err(|e| runtime("copying the total", e))?;
        // The counts come back in chunks, each widened into `counts` while the next is on
        // the bus.
        let bytes = if narrow { 2 * n } else { 4 * n };
        let chunks = bytes.div_ceil(MANDEL_CHUNK_BYTES);
        while m.chunk_events.len() < chunks {
            m.chunk_events.push(self.dev.ctx.new_event(None).map_err(|e| runtime("creating an event", e))?);
        }
        let host = m.host.as_mut_slice().map_err(|e| runtime("waiting for the host buffer", e))?;
        {
            let (dptr, _guard) = m.counts.device_ptr(stream);
            for (k, dst) in host[..bytes].chunks_mut(MANDEL_CHUNK_BYTES).enumerate() {
                // SAFETY: `dst` is pinned host memory that lives in `m` until the copy has
                // been waited for below; the source range lies inside `counts`.
                unsafe {
                    cudarc::driver::result::memcpy_dtoh_async(
                        dst,
                        dptr + (k * MANDEL_CHUNK_BYTES) as u64,
                        stream.cu_stream(),
                    )
                }
                .map_err(|e| runtime("copying counts", e))?;
                m.chunk_events[k].record(stream).map_err(|e| runtime("recording an event", e))?;
            }
        }
        for (k, src) in host[..bytes].chunks(MANDEL_CHUNK_BYTES).enumerate() {
            m.chunk_events[k].synchronize().map_err(|e| runtime("waiting for counts", e))?;
            if narrow {
                let first = k * MANDEL_CHUNK_BYTES / 2;
                let src: &[u16] = bytemuck::cast_slice(src);
                counts[first..first + src.len()]
                    .par_chunks_mut(1 << 16)
                    .zip(src.par_chunks(1 << 16))
                    .for_each(|(o, s)| o.iter_mut().zip(s).for_each(|(o, &s)| *o = i32::from(s)));
            } else {
                let first = k * MANDEL_CHUNK_BYTES / 4;
                let src: &[i32] = bytemuck::cast_slice(src);
                copy_out(src, &mut counts[first..first + src.len()]);
            }
        }
        // The total was copied before the chunks, which have all been waited for.
        let total = m.host_total.as_slice().map_err(|e| runtime("reading the total", e))?[0];
        let device = m.events.elapsed()?;
        Ok(MandelbrotRun {
            total_iters: total,
            timing: Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents },
        })
    }
}

/// A wave problem on the device: the fields `f`, `g` (`fields[2*cur]`, `fields[2*cur+1]`)
/// and the pair the tiled kernel writes into.
pub struct CudaWave {
    dev: Arc<Device>,
    stream: Arc<CudaStream>,
    params: WaveParams,
    tstep: u32,
    fields: Vec<CudaSlice<f32>>,
    cur: usize,
    /// `source_value` of the steps of one `advance` call, uploaded before its launches.
    svals: CudaSlice<f32>,
    lut: CudaSlice<u32>,
    rgba: Option<CudaSlice<u32>>,
    host_field: Option<PinnedHostSlice<f32>>,
    host_rgba: Option<PinnedHostSlice<u32>>,
    events: Events,
    /// One per chunk of a copy to the host.
    chunk_events: Vec<CudaEvent>,
    /// Captured launch sequences of `advance`, keyed by `(tsteps, cur)` at its start. Their
    /// arguments (buffers, source cell, `svals`) are baked in: cleared when any changes.
    graphs: Vec<((usize, usize), SendGraph)>,
    /// The exchange slots and flags of `wave_persist` (4 x cells values, then one flag per
    /// block; allocated on first use) and the last tag it wrote (tags only grow, mod 2^32).
    exchange: Option<CudaSlice<f32>>,
    tag_base: u32,
}

/// A captured graph, owned by one wave problem and used only through `&mut` access.
struct SendGraph(CudaGraph);

// SAFETY: CUDA graph objects may be used from any thread as long as calls on one graph are
// serialized; this one is reached only through `&mut CudaWave`, so they are.
unsafe impl Send for SendGraph {}

impl CudaWave {
    fn launch_tiled(&mut self, steps: usize) -> Result<(), BackendError> {
        let tile = self.dev.tile;
        let p = &self.params;
        let (oj, oi) = tile.out();
        let cfg = LaunchConfig {
            grid_dim: (p.ny.div_ceil(oj as usize) as u32, p.nx.div_ceil(oi as usize) as u32, 1),
            block_dim: (32, tile.warps, 1),
            shared_mem_bytes: 0,
        };
        let (nx, ny) = (p.nx as i32, p.ny as i32);
        let (si, sj) = (p.source.0 as i32, p.source.1 as i32);
        let c2 = p.c2;
        let mut done = 0;
        while done < steps {
            let n = (steps - done).min(tile.steps() as usize);
            let [f0, g0, f1, g1] = self.fields.as_mut_slice() else { unreachable!("four fields") };
            let ((f_in, g_in), (f_out, g_out)) =
                if self.cur == 0 { ((&*f0, &*g0), (f1, g1)) } else { ((&*f1, &*g1), (f0, g0)) };
            let svals = self.svals.slice(done..done + n);
            let n_i32 = n as i32;
            if pdl_enabled() && self.dev.pdl {
                let s = &self.stream;
                let ptrs = [
                    f_in.device_ptr(s).0,
                    g_in.device_ptr(s).0,
                    f_out.device_ptr(s).0,
                    g_out.device_ptr(s).0,
                    svals.device_ptr(s).0,
                ];
                let mut args: [*mut std::ffi::c_void; 11] = [
                    (&raw const nx).cast_mut().cast(),
                    (&raw const ny).cast_mut().cast(),
                    (&raw const c2).cast_mut().cast(),
                    (&raw const ptrs[0]).cast_mut().cast(),
                    (&raw const ptrs[1]).cast_mut().cast(),
                    (&raw const ptrs[2]).cast_mut().cast(),
                    (&raw const ptrs[3]).cast_mut().cast(),
                    (&raw const si).cast_mut().cast(),
                    (&raw const sj).cast_mut().cast(),
                    (&raw const ptrs[4]).cast_mut().cast(),
                    (&raw const n_i32).cast_mut().cast(),
                ];
                // SAFETY: a plain-data attribute; zero is a valid bit pattern for it.
                let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
                attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
                attr.value.programmaticStreamSerializationAllowed = 1;
                let config = sys::CUlaunchConfig {
                    gridDimX: cfg.grid_dim.0,
                    gridDimY: cfg.grid_dim.1,
                    gridDimZ: 1,
                    blockDimX: cfg.block_dim.0,
                    blockDimY: cfg.block_dim.1,
                    blockDimZ: 1,
                    sharedMemBytes: 0,
                    hStream: s.cu_stream(),
                    attrs: &raw mut attr,
                    numAttrs: 1,
                };
                // SAFETY: the 11 arguments point at values of `wave_steps`'s parameter types
                // that outlive the call; the kernel waits (griddepcontrol.wait) for the
                // previous launch to finish before touching memory, so letting it start
                // early is safe.
                unsafe {
                    sys::cuLaunchKernelEx(
                        &raw const config,
                        self.dev.wave_steps.cu_function(),
                        args.as_mut_ptr(),
                        std::ptr::null_mut(),
                    )
                    .result()
                }
                .map_err(|e| runtime("launching wave_steps", e))?;
            } else {
                let mut launch = self.stream.launch_builder(&self.dev.wave_steps);
                launch.arg(&nx).arg(&ny).arg(&c2).arg(f_in).arg(g_in).arg(f_out).arg(g_out);
                launch.arg(&si).arg(&sj).arg(&svals).arg(&n_i32);
                // SAFETY: arguments match `wave_steps`; every buffer holds nx*ny values and
                // `svals` n; the kernel reads (f_in, g_in) and writes only (f_out, g_out).
                unsafe { launch.launch(cfg) }.map_err(|e| runtime("launching wave_steps", e))?;
            }
            self.cur ^= 1;
            done += n;
        }
        Ok(())
    }

    /// `launch_tiled`, replayed from a captured CUDA graph when there are several launches:
    /// the launches then cost the host nothing and follow each other with smaller gaps.
    fn launch_tiled_graph(&mut self, steps: usize) -> Result<(), BackendError> {
        if self.launch_persist(steps)? {
            return Ok(());
        }
        let launches = steps.div_ceil(self.dev.tile.steps() as usize);
        if launches < GRAPH_MIN_LAUNCHES || !graphs_enabled() {
            return self.launch_tiled(steps);
        }
        let key = (steps, self.cur);
        if !self.graphs.iter().any(|(k, _)| *k == key) {
            if self.graphs.len() >= GRAPH_CACHE {
                self.graphs.clear();
            }
            let start_cur = self.cur;
            self.stream
                .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
                .map_err(|e| runtime("starting a graph capture", e))?;
            let captured = self.launch_tiled(steps);
            let graph = self.stream.end_capture(sys::CUgraphInstantiate_flags(0));
            self.cur = start_cur;
            captured?;
            match graph.map_err(|e| runtime("capturing the wave launches", e))? {
                Some(g) => self.graphs.push((key, SendGraph(g))),
                None => return self.launch_tiled(steps),
            }
        }
        let Some((_, graph)) = self.graphs.iter().find(|(k, _)| *k == key) else { unreachable!("inserted above") };
        graph.0.launch().map_err(|e| runtime("launching the wave graph", e))?;
        if launches % 2 == 1 {
            self.cur ^= 1;
        }
        Ok(())
    }

    /// All `steps` in one cooperative launch of `wave_persist`, when the problem takes
    /// more than one round and all its blocks fit on the device at once. Returns whether
    /// it ran; `false` leaves everything to the launch-per-round path.
    fn launch_persist(&mut self, steps: usize) -> Result<bool, BackendError> {
        let Some((func, capacity)) = self.dev.persist.as_ref() else { return Ok(false) };
        let tile = self.dev.ptile;
        let p = &self.params;
        let (oj, oi) = tile.out();
        let grid = (p.ny.div_ceil(oj as usize) as u32, p.nx.div_ceil(oi as usize) as u32);
        let blocks = grid.0 * grid.1;
        let rounds = steps.div_ceil(tile.steps() as usize);
        if rounds < 2 || blocks > *capacity {
            return Ok(false);
        }
        let slots = 4 * p.cells() + blocks as usize;
        if self.exchange.as_ref().is_none_or(|x| x.len() < slots) {
            let what = "the persistent kernel's exchange slots";
            check_free(&self.dev, what, 4 * slots as u64)?;
            self.exchange =
                Some(self.stream.alloc_zeros::<f32>(slots).map_err(|e| alloc_error(what, 4 * slots as u64, e))?);
            self.tag_base = 0;
        }
        let (nx, ny) = (p.nx as i32, p.ny as i32);
        let (si, sj) = (p.source.0 as i32, p.source.1 as i32);
        let c2 = p.c2;
        let n_i32 = steps as i32;
        let base = self.tag_base;
        let s = &self.stream;
        let (a, b) = if self.cur == 0 { (0, 2) } else { (2, 0) };
        let Some(exchange) = self.exchange.as_ref() else { unreachable!("allocated above") };
        let ptrs = [
            self.fields[a].device_ptr(s).0,
            self.fields[a + 1].device_ptr(s).0,
            self.fields[b].device_ptr(s).0,
            self.fields[b + 1].device_ptr(s).0,
            self.svals.device_ptr(s).0,
            exchange.device_ptr(s).0,
        ];
        let mut args: [*mut std::ffi::c_void; 13] = [
            (&raw const nx).cast_mut().cast(),
            (&raw const ny).cast_mut().cast(),
            (&raw const c2).cast_mut().cast(),
            (&raw const ptrs[0]).cast_mut().cast(),
            (&raw const ptrs[1]).cast_mut().cast(),
            (&raw const ptrs[2]).cast_mut().cast(),
            (&raw const ptrs[3]).cast_mut().cast(),
            (&raw const si).cast_mut().cast(),
            (&raw const sj).cast_mut().cast(),
            (&raw const ptrs[4]).cast_mut().cast(),
            (&raw const n_i32).cast_mut().cast(),
            (&raw const ptrs[5]).cast_mut().cast(),
            (&raw const base).cast_mut().cast(),
        ];
        // SAFETY: a plain-data attribute; zero is a valid bit pattern for it.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attr.value.cooperative = 1;
        let config = sys::CUlaunchConfig {
            gridDimX: grid.0,
            gridDimY: grid.1,
            gridDimZ: 1,
            blockDimX: 32,
            blockDimY: tile.warps,
            blockDimZ: 1,
            sharedMemBytes: 0,
            hStream: s.cu_stream(),
            attrs: &raw mut attr,
            numAttrs: 1,
        };
        // SAFETY: the 13 arguments point at values of `wave_persist`'s parameter types that
        // outlive the call; the four fields hold nx*ny values, `svals` `steps`, the exchange
        // 4*nx*ny values and a flag per block. It reads only (f_in, g_in) and writes (f_out, g_out) at its end. The
        // cooperative launch fails rather than run with blocks not resident, so the
        // blocks' waits on their neighbours cannot deadlock.
        unsafe {
            sys::cuLaunchKernelEx(&raw const config, func.cu_function(), args.as_mut_ptr(), std::ptr::null_mut())
                .result()
        }
        .map_err(|e| runtime("launching wave_persist", e))?;
        self.tag_base = base.wrapping_add((rounds - 1) as u32);
        self.cur ^= 1;
        Ok(true)
    }

    fn launch_naive(&mut self, values: &[f32]) -> Result<(), BackendError> {
        let p = &self.params;
        let cfg = LaunchConfig {
            grid_dim: (p.ny.div_ceil(32) as u32, p.nx.div_ceil(8) as u32, 1),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        let (nx, ny, c2) = (p.nx as i32, p.ny as i32, p.c2);
        let src = p.source_index() as i64;
        let none = -1i64;
        let [f0, g0, f1, g1] = self.fields.as_mut_slice() else { unreachable!("four fields") };
        let (f, g) = if self.cur == 0 { (f0, g0) } else { (f1, g1) };
        for &sval in values {
            // update(f, g) with g[src] = sval, then update(g, f) where g's own old value at
            // src is sval.
            let mut l1 = self.stream.launch_builder(&self.dev.wave_update);
            l1.arg(&nx).arg(&ny).arg(&c2).arg(&mut *f).arg(&*g).arg(&src).arg(&none).arg(&sval);
            // SAFETY: arguments match `wave_update`; both fields hold nx*ny values.
            unsafe { l1.launch(cfg) }.map_err(|e| runtime("launching wave_update", e))?;
            let mut l2 = self.stream.launch_builder(&self.dev.wave_update);
            l2.arg(&nx).arg(&ny).arg(&c2).arg(&mut *g).arg(&*f).arg(&none).arg(&src).arg(&sval);
            // SAFETY: as above.
            unsafe { l2.launch(cfg) }.map_err(|e| runtime("launching wave_update", e))?;
        }
        Ok(())
    }
}

impl WaveSim for CudaWave {
    fn params(&self) -> &WaveParams {
        &self.params
    }

    fn tstep(&self) -> u32 {
        self.tstep
    }

    fn advance(&mut self, tsteps: u32) -> Result<Timing, BackendError> {
        let start = Instant::now();
        if tsteps == 0 {
            return Ok(Timing {
                wall: start.elapsed(),
                device: Some(Duration::ZERO),
                source: TimingSource::CudaEvents,
            });
        }
        let values: Vec<f32> = (1..=tsteps).map(|k| source_value(self.params.freq, self.tstep + k)).collect();
        let naive = wave_kernel_naive();
        if !naive {
            if self.svals.len() < values.len() {
                self.graphs.clear();
                self.svals = self
                    .stream
                    .alloc_zeros::<f32>(values.len().next_power_of_two())
                    .map_err(|e| runtime("allocating source values", e))?;
            }
            self.stream.memcpy_htod(&values, &mut self.svals).map_err(|e| runtime("uploading source values", e))?;
        }
        self.events.start.record(&self.stream).map_err(|e| runtime("recording an event", e))?;
        if naive {
            self.launch_naive(&values)?;
        } else {
            self.launch_tiled_graph(values.len())?;
        }
        self.events.stop.record(&self.stream).map_err(|e| runtime("recording an event", e))?;
        let device = self.events.elapsed()?;
        self.tstep += tsteps;
        Ok(Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents })
    }

    fn read_field(&mut self, out: &mut [f32]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        let n = self.params.cells();
        if out.len() != n {
            return Err(BackendError::Invalid(format!("output holds {} values, field has {n}", out.len())));
        }
        if self.host_field.is_none() {
            self.host_field = Some(pinned(&self.dev, "the field's host copy", n)?);
        }
        if std::env::var("WAVEBROT_CUDA_DIRECT_COPY").is_ok_and(|v| v == "1") {
            // Measurement variant: the driver copies straight into the caller's pageable buffer.
            self.events.start.record(&self.stream).map_err(|e| runtime("recording an event", e))?;
            self.stream.memcpy_dtoh(&self.fields[2 * self.cur], out).map_err(|e| runtime("copying the field", e))?;
            self.events.stop.record(&self.stream).map_err(|e| runtime("recording an event", e))?;
            let device = self.events.elapsed()?;
            return Ok(Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents });
        }
        let Some(host) = self.host_field.as_mut() else { unreachable!("allocated above") };
        let staging = host.as_mut_slice().map_err(|e| runtime("waiting for the host buffer", e))?;
        self.events.start.record(&self.stream).map_err(|e| runtime("recording an event", e))?;
        let (src, _guard) = self.fields[2 * self.cur].device_ptr(&self.stream);
        copy_chunked(
            &self.dev.ctx,
            &self.stream,
            src,
            bytemuck::cast_slice_mut(staging),
            bytemuck::cast_slice_mut(out),
            &mut self.chunk_events,
            Some(&self.events.stop),
        )?;
        let device = self.events.elapsed()?;
        Ok(Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents })
    }

    fn render_rgba(&mut self, vmin: f32, vmax: f32, rgba: &mut [u8]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        let n = self.params.cells();
        if rgba.len() != 4 * n {
            return Err(BackendError::Invalid(format!(
                "RGBA buffer holds {} bytes, frame needs {}",
                rgba.len(),
                4 * n
            )));
        }
        if self.rgba.is_none() {
            let what = format!("RGBA frame {}x{}", self.params.nx, self.params.ny);
            check_free(&self.dev, &what, 4 * n as u64)?;
            // SAFETY: the colormap kernel writes every pixel before the copy reads it.
            let buf = unsafe { self.stream.alloc::<u32>(n) }.map_err(|e| alloc_error(&what, 4 * n as u64, e))?;
            self.rgba = Some(buf);
            self.host_rgba = Some(pinned(&self.dev, &what, n)?);
        }
        let (Some(dev_rgba), Some(host)) = (self.rgba.as_mut(), self.host_rgba.as_mut()) else {
            unreachable!("allocated above")
        };
        let (nx, ny) = (self.params.nx as i32, self.params.ny as i32);
        let (vmin, vmax) = (f64::from(vmin), f64::from(vmax));
        let cfg = LaunchConfig {
            grid_dim: (self.params.ny.div_ceil(32) as u32, self.params.nx.div_ceil(32) as u32, 1),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        self.events.start.record(&self.stream).map_err(|e| runtime("recording an event", e))?;
        let f = &self.fields[2 * self.cur];
        let mut launch = self.stream.launch_builder(&self.dev.wave_rgba);
        launch.arg(f).arg(&nx).arg(&ny).arg(&vmin).arg(&vmax).arg(&self.lut).arg(&mut *dev_rgba);
        // SAFETY: arguments match `wave_rgba`; `f` holds nx*ny values, `rgba` nx*ny pixels.
        unsafe { launch.launch(cfg) }.map_err(|e| runtime("launching wave_rgba", e))?;
        self.events.stop.record(&self.stream).map_err(|e| runtime("recording an event", e))?;
        let staging = host.as_mut_slice().map_err(|e| runtime("waiting for the host buffer", e))?;
        let (src, _guard) = dev_rgba.device_ptr(&self.stream);
        copy_chunked(
            &self.dev.ctx,
            &self.stream,
            src,
            bytemuck::cast_slice_mut(staging),
            rgba,
            &mut self.chunk_events,
            None,
        )?;
        let device = self.events.elapsed()?;
        Ok(Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents })
    }

    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError> {
        self.params = self.params.with_source(i, j).map_err(BackendError::Invalid)?;
        self.graphs.clear();
        Ok(())
    }

    fn set_freq(&mut self, freq: f64) {
        self.params.freq = freq;
    }

    fn reset(&mut self) -> Result<(), BackendError> {
        for f in &mut self.fields {
            self.stream.memset_zeros(f).map_err(|e| runtime("clearing the fields", e))?;
        }
        self.stream.synchronize().map_err(|e| runtime("clearing the fields", e))?;
        self.tstep = 0;
        Ok(())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
