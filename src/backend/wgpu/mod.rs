//! The wgpu backend: WGSL compute shaders (`shaders/*.wgsl`) on any GPU wgpu can drive
//! (Vulkan, Metal, DX12), and on software Vulkan (llvmpipe/lavapipe) where there is none.
//!
//! - [`open`] makes its own instance, adapter and device (the CLI's path);
//!   [`WgpuBackend::from_device`] takes a device it is given (the app passes eframe's, so a
//!   wave frame can be drawn with [`WgpuWave::colormap_into`] without leaving the GPU).
//! - [`list_adapters`] says what `info` found.
//! - Kernels, one file per family: [`wave`] (`shaders/wave.wgsl`, the `simple` variant; the
//!   `blocked` one in `wave_blocked.rs`, `shaders/wave_blocked.wgsl`), [`mandelbrot`]
//!   (`shaders/mandelbrot.wgsl` with `mandelbrot_f32.wgsl` or `mandelbrot_f64.wgsl`),
//!   [`colormap`] (`shaders/colormap.wgsl`); [`shader`] assembles the WGSL (shared parts once).
//!
//! Every call checks that the device is still there (the device-lost callback records why it
//! went), wraps its GPU work in error scopes so that validation and out-of-memory errors come
//! back as [`BackendError`]s instead of panics, and times the kernels with timestamp queries
//! where the device has them.

pub mod colormap;
pub mod field;
mod gpu;
pub mod julia;
pub mod julia_de;
mod layout;
pub mod mandelbrot;
mod mandelbrot_deep;
pub mod probe_fma;
mod reduction;
mod saxpy;
mod scene_tiles;
pub mod shader;
#[cfg(not(target_arch = "wasm32"))]
pub mod spirv;
pub mod wave;
pub mod wave_blocked;
mod wave_scene;
mod wave_scene_blocked;

use std::sync::Arc;

pub use wave::WgpuWave;

pub(crate) use gpu::{Gpu, Guards, Timer, compute_pipeline, compute_pipeline_with};

use super::{Backend, BackendError, BackendKind, DeviceInfo, MandelbrotRun, WaveSim, WaveVariant};
use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::julia::JuliaParams;
use crate::sim::fractal::mandelbrot::MandelbrotParams;
use crate::sim::fractal::perturb::Mantissa;
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::Scene;

const KIND: BackendKind = BackendKind::Wgpu;

/// The largest workgroup the shaders use (32x8 and 16x16 invocations).
const WORKGROUP_INVOCATIONS: u32 = 256;

fn runtime(message: impl Into<String>) -> BackendError {
    BackendError::Runtime { kind: KIND, message: message.into() }
}

fn instance() -> wgpu::Instance {
    // `WGPU_BACKEND` and friends from the environment still choose, as in every wgpu program.
    // Otherwise the native APIs (Vulkan, Metal, DX12) come first and GL only where they find
    // nothing: probing GL through EGL is slow and, on a machine without a session, noisy.
    if std::env::var_os("WGPU_BACKEND").is_none() {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        desc.backends &= wgpu::Backends::PRIMARY;
        let primary = wgpu::Instance::new(desc);
        if !pollster::block_on(primary.enumerate_adapters(wgpu::Backends::PRIMARY)).is_empty() {
            return primary;
        }
    }
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

/// One line about an adapter: name, backend, device type and driver.
#[must_use]
pub fn describe_adapter(info: &wgpu::AdapterInfo) -> String {
    let driver = [info.driver.as_str(), info.driver_info.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let driver = if driver.is_empty() { "unknown driver".to_owned() } else { format!("driver {driver}") };
    format!("{} ({}, {:?}, {driver})", info.name, info.backend, info.device_type)
}

/// Every adapter wgpu finds here, one line each (name, backend, device type, driver); empty
/// when there is none.
#[must_use]
pub fn list_adapters() -> Vec<String> {
    let adapters = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()));
    adapters.iter().map(|a| describe_adapter(&a.get_info())).collect()
}

/// How much we want an adapter: a real GPU before a software one, a native API before GL.
fn preference(adapter: &wgpu::Adapter) -> (u8, u8) {
    let info = adapter.get_info();
    let device = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 4,
        wgpu::DeviceType::IntegratedGpu => 3,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 1,
        wgpu::DeviceType::Cpu => 0,
    };
    let api = u8::from(info.backend != wgpu::Backend::Gl);
    (device, api)
}

/// The device wavebrot asks `adapter` for, the CLI's own device and eframe's alike: the
/// adapter's own limits (compute-capable, and large enough for 8192² fields where the adapter
/// allows; egui-wgpu would ask for WebGL2 limits on GL, with no compute) and, where offered, the
/// features the compute shaders use: `SHADER_F64`, `TIMESTAMP_QUERY` (and inside encoders),
/// `SUBGROUP` (the blocked wave's shuffles). The app hands it to eframe so that the shared
/// device can compute: `WgpuSetupCreateNew { device_descriptor: Arc::new(device_descriptor), .. }`.
#[must_use]
pub fn device_descriptor(adapter: &wgpu::Adapter) -> wgpu::DeviceDescriptor<'static> {
    let wanted = wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::SHADER_F64
        | wgpu::Features::SUBGROUP
        | wgpu::Features::PASSTHROUGH_SHADERS;
    wgpu::DeviceDescriptor {
        label: Some("wavebrot device"),
        required_features: adapter.features() & wanted,
        required_limits: adapter.limits(),
        ..Default::default()
    }
}

/// Picks the best adapter that can run compute shaders and opens a device on it with the
/// adapter's own limits (8192² fields need 256 MiB storage buffers) and, where offered,
/// `SHADER_F64` and `TIMESTAMP_QUERY`.
///
/// # Errors
/// [`BackendError::Unavailable`] ("no wgpu adapter: …") when no adapter can compute here.
pub fn request_device() -> Result<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo), BackendError> {
    let unavailable = |reason: String| BackendError::Unavailable { kind: KIND, reason };
    let instance = instance();
    // Vulkan, Metal, DX12 first; GL (whose probing can be noisy) only where none of them is.
    let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::PRIMARY));
    if adapters.is_empty() {
        adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    }
    let found = adapters.len();
    let adapter = adapters
        .into_iter()
        .filter(|a| a.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS))
        .filter(|a| a.limits().max_compute_invocations_per_workgroup >= WORKGROUP_INVOCATIONS)
        .max_by_key(preference)
        .ok_or_else(|| {
            unavailable(if found == 0 {
                "no wgpu adapter: no Vulkan, Metal, DX12 or GL driver found (on Linux without a GPU, \
                 install mesa-vulkan-drivers for the llvmpipe software adapter)"
                    .to_owned()
            } else {
                format!("no wgpu adapter: {found} found, none can run compute shaders")
            })
        })?;
    let info = adapter.get_info();
    let (device, queue) = pollster::block_on(adapter.request_device(&device_descriptor(&adapter)))
        .map_err(|e| unavailable(format!("no wgpu adapter: {} refused a device: {e}", describe_adapter(&info))))?;
    Ok((device, queue, info))
}

/// In the browser build, wgpu computing is not open yet: every read-back of this backend waits
/// for the GPU where it stands (`pollster`), and a page's GPU answers only once the page's own
/// event loop runs again. The browser's GPU draws the window; the wasm CPU computes.
///
/// # Errors
/// Always [`BackendError::Unavailable`], with that reason.
#[cfg(target_arch = "wasm32")]
pub fn open() -> Result<Box<dyn Backend>, BackendError> {
    Err(BackendError::Unavailable {
        kind: KIND,
        reason: "WebGPU computing is not in the browser build yet (its read-backs would wait inside a frame, where a page's \
         GPU cannot answer); the browser's GPU draws the window and the CPU computes"
            .to_owned(),
    })
}

/// Opens the best adapter here (see [`request_device`]).
///
/// # Errors
/// [`BackendError::Unavailable`] when there is no adapter; a shader that fails to compile.
#[cfg(not(target_arch = "wasm32"))]
pub fn open() -> Result<Box<dyn Backend>, BackendError> {
    let (device, queue, info) = request_device()?;
    let gpu = Gpu::new(device, queue, info)?;
    // Our own device: nothing else handles its errors, so none may reach wgpu's default
    // handler (which panics). Errors are also caught by scopes where they happen.
    let slot = Arc::clone(&gpu.error);
    gpu.device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        log::error!("wgpu: {e}");
        if let Ok(mut s) = slot.lock() {
            s.get_or_insert_with(|| e.to_string());
        }
    }));
    Ok(Box::new(WgpuBackend {
        gpu: Arc::new(gpu),
        mandelbrot: None,
        deep: mandelbrot_deep::Pipelines::default(),
        julia: julia::State::default(),
        julia_de: julia_de::State::default(),
    }))
}

/// The wgpu backend on one device.
pub struct WgpuBackend {
    gpu: Arc<Gpu>,
    mandelbrot: Option<mandelbrot::Buffers>,
    deep: mandelbrot_deep::Pipelines,
    /// The Julia kernel, which also gives the Mandelbrot set's smooth values.
    julia: julia::State,
    julia_de: julia_de::State,
}

impl WgpuBackend {
    /// A backend on a device made elsewhere (the app passes eframe's, from
    /// `CreationContext::wgpu_render_state`). The device must have been requested with
    /// compute-capable limits (egui-wgpu's GL default has none); `SHADER_F64` and
    /// `TIMESTAMP_QUERY` are used when it has them. Registers a device-lost callback
    /// (replacing any other) so that later calls fail with "device lost" instead of hanging.
    ///
    /// # Errors
    /// [`BackendError::Unavailable`] for a device without compute limits,
    /// [`BackendError::Compile`] when a shader fails to compile on it.
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter_info: wgpu::AdapterInfo,
    ) -> Result<Self, BackendError> {
        Ok(Self {
            gpu: Arc::new(Gpu::new(device, queue, adapter_info)?),
            mandelbrot: None,
            deep: mandelbrot_deep::Pipelines::default(),
            julia: julia::State::default(),
            julia_de: julia_de::State::default(),
        })
    }

    /// The adapter this backend runs on.
    #[must_use]
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.gpu.adapter
    }

    /// The device this backend runs on.
    #[must_use]
    pub fn device(&self) -> &wgpu::Device {
        &self.gpu.device
    }

    /// The queue this backend submits to.
    #[must_use]
    pub fn queue(&self) -> &wgpu::Queue {
        &self.gpu.queue
    }

    /// True when Mandelbrot can run in `f64` here (the device has `SHADER_F64`).
    #[must_use]
    pub fn has_f64(&self) -> bool {
        self.gpu.mandelbrot_f64.is_some()
    }

    /// True where the kernels that ask for it round every float operation on its own by
    /// `NoContraction` (a Vulkan device taking SPIR-V as it is: `gpu::takes_spirv`), the deep
    /// kernels among them; elsewhere the deep kernels may fuse multiply-adds.
    #[must_use]
    pub fn no_contraction(&self) -> bool {
        gpu::takes_spirv(&self.gpu.device)
    }

    /// The deltas' type deep views use here: `f64` where the adapter has it, else `f32`.
    #[must_use]
    pub fn deep_mantissa(&self) -> Mantissa {
        if self.has_f64() { Mantissa::F64 } else { Mantissa::F32 }
    }

    /// A deep view by perturbation with deltas in `mantissa` (`f64` needs `SHADER_F64`).
    ///
    /// # Errors
    /// `f64` on an adapter without it, a view too large for the device, or a device failure.
    pub fn mandelbrot_deep_with(
        &mut self,
        mantissa: Mantissa,
        job: &DeepJob,
        counts: &mut [i32],
    ) -> Result<MandelbrotRun, BackendError> {
        mandelbrot_deep::run(&self.gpu, &mut self.deep, mantissa, job, counts, None, None)
    }

    /// [`WgpuBackend::mandelbrot_deep_with`] with the smooth values into `smooth`.
    ///
    /// # Errors
    /// As `mandelbrot_deep_with`; `smooth` of the wrong length.
    pub fn mandelbrot_deep_smooth_with(
        &mut self,
        mantissa: Mantissa,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        mandelbrot_deep::run(&self.gpu, &mut self.deep, mantissa, job, counts, Some(smooth), None)
    }

    /// [`WgpuBackend::mandelbrot_deep_smooth_with`] with the distance estimates into `de`.
    ///
    /// # Errors
    /// As `mandelbrot_deep_smooth_with`; `de` of the wrong length.
    pub fn mandelbrot_deep_distance_with(
        &mut self,
        mantissa: Mantissa,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        mandelbrot_deep::run(&self.gpu, &mut self.deep, mantissa, job, counts, Some(smooth), Some(de))
    }

    /// True on a software adapter (llvmpipe/lavapipe, WARP): it runs on the CPU, usually
    /// slower than the `cpu` backend, so `auto` may prefer the CPU over it.
    #[must_use]
    pub fn is_software(&self) -> bool {
        self.gpu.adapter.device_type == wgpu::DeviceType::Cpu
    }

    /// True when kernels are timed with GPU timestamps (else the wall clock).
    #[must_use]
    pub fn has_timestamps(&self) -> bool {
        self.gpu.timestamps
    }

    /// A wave problem with its concrete type (for the app's zero-copy display).
    ///
    /// # Errors
    /// Invalid parameters, a grid too large for the device, or a device failure.
    pub fn new_wgpu_wave(&self, params: &WaveParams) -> Result<WgpuWave, BackendError> {
        WgpuWave::new(Arc::clone(&self.gpu), params, WaveVariant::Auto)
    }
}

impl Backend for WgpuBackend {
    fn is_software(&self) -> bool {
        WgpuBackend::is_software(self)
    }

    fn kind(&self) -> BackendKind {
        KIND
    }

    fn device_info(&self) -> DeviceInfo {
        self.gpu.device_info()
    }

    fn new_wave_variant(&self, params: &WaveParams, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        // The plain kernels round `c2 * lap` exactly only for a c2 that is a power of two (the
        // seed's 0.25); any other runs on the scene kernel, whose products are exact at every
        // coefficient (`cpu_product` and `grid_product`, shaders/parts/wave_cell.wgsl).
        if !power_of_two(params.c2) {
            return self.scene_kernel(&Scene::from_params(params), variant);
        }
        Ok(Box::new(WgpuWave::new(Arc::clone(&self.gpu), params, variant)?))
    }

    fn wave_variants(&self) -> &'static [WaveVariant] {
        &WaveVariant::WGPU
    }

    fn scene_kernel(&self, scene: &Scene, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        Ok(Box::new(WgpuWave::new_scene(Arc::clone(&self.gpu), scene, variant)?))
    }

    /// `blocked` (`shaders/wave_scene_blocked.wgsl`, temporal blocking; `auto` on GPUs) and
    /// `simple` (`shaders/wave_scene.wgsl`, one update per dispatch; `auto` on software adapters).
    fn scene_variants(&self) -> &'static [WaveVariant] {
        &WaveVariant::CONCRETE
    }

    fn mandelbrot(&mut self, params: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        mandelbrot::run(&self.gpu, &mut self.mandelbrot, params, counts)
    }

    fn mandelbrot_smooth(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        julia::run(&self.gpu, &mut self.julia, julia::Mode::Mandelbrot, params, counts, Some(smooth))
    }

    fn mandelbrot_distance(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        julia_de::run(&self.gpu, &mut self.julia_de, params, None, counts, smooth, de)
    }

    fn julia_distance(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        params.validate()?;
        julia_de::run(&self.gpu, &mut self.julia_de, &params.grid(), Some(params.c), counts, smooth, de)
    }

    fn julia(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: Option<&mut [f32]>,
    ) -> Result<MandelbrotRun, BackendError> {
        params.validate()?;
        julia::run(&self.gpu, &mut self.julia, julia::Mode::Julia { c: params.c }, &params.grid(), counts, smooth)
    }

    fn saxpy(&mut self, a: f32, x: &[f32], y: &mut [f32]) -> Result<crate::backend::LessonTiming, BackendError> {
        saxpy::run(&self.gpu, a, x, y)
    }

    fn reduce_sum(
        &mut self,
        x: &[u32],
        method: crate::backend::ReduceMethod,
    ) -> Result<(u32, crate::backend::LessonTiming), BackendError> {
        reduction::run(&self.gpu, x, method)
    }

    fn mandelbrot_deep(&mut self, job: &DeepJob, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        self.mandelbrot_deep_with(self.deep_mantissa(), job, counts)
    }

    fn mandelbrot_deep_smooth(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        self.mandelbrot_deep_smooth_with(self.deep_mantissa(), job, counts, smooth)
    }

    fn mandelbrot_deep_distance(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        self.mandelbrot_deep_distance_with(self.deep_mantissa(), job, counts, smooth, de)
    }

    fn deep_arith(&self, job: &DeepJob) -> String {
        job.arith_label(self.deep_mantissa().name())
    }
}

/// `x` is a positive power of two (a normal `f32` with an empty mantissa): its products are exact.
fn power_of_two(x: f32) -> bool {
    x.is_normal() && x > 0.0 && x.to_bits() & 0x007f_ffff == 0
}
