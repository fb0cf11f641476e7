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
pub mod mandelbrot;
pub mod shader;
pub mod wave;
mod wave_blocked;

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use wave::WgpuWave;

use super::{Backend, BackendError, BackendKind, DeviceInfo, MandelbrotRun, WaveSim, WaveVariant};
use crate::sim::mandelbrot::MandelbrotParams;
use crate::sim::wave::WaveParams;

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

/// The device wavebrot asks `adapter` for: the adapter's own limits (compute-capable, and
/// large enough for 8192² fields where the adapter allows) and `SHADER_F64` /
/// `TIMESTAMP_QUERY` where offered. The app can hand it to eframe so that the shared device
/// can compute: `WgpuSetupCreateNew { device_descriptor: Arc::new(device_descriptor), .. }`.
#[must_use]
pub fn device_descriptor(adapter: &wgpu::Adapter) -> wgpu::DeviceDescriptor<'static> {
    let wanted = wgpu::Features::SHADER_F64 | wgpu::Features::TIMESTAMP_QUERY;
    wgpu::DeviceDescriptor {
        label: Some("wavebrot"),
        required_features: adapter.features() & wanted,
        required_limits: adapter.limits(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
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

/// Opens the best adapter here (see [`request_device`]).
///
/// # Errors
/// [`BackendError::Unavailable`] when there is no adapter; a shader that fails to compile.
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
    Ok(Box::new(WgpuBackend { gpu: Arc::new(gpu), mandelbrot: None }))
}

/// The device, its queue and the compiled pipelines, shared by a backend and its waves.
pub(crate) struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: wgpu::AdapterInfo,
    /// The device has `TIMESTAMP_QUERY`: kernels are timed on the GPU.
    pub timestamps: bool,
    /// Why the device was lost, once it is.
    lost: Arc<Mutex<Option<String>>>,
    /// The first error no scope caught (own devices only).
    error: Arc<Mutex<Option<String>>>,
    pub wave: wave::Pipeline,
    pub colormap: colormap::Pipelines,
    pub mandelbrot_f32: mandelbrot::Pipeline,
    pub mandelbrot_f64: Option<mandelbrot::Pipeline>,
}

impl Gpu {
    fn new(device: wgpu::Device, queue: wgpu::Queue, adapter: wgpu::AdapterInfo) -> Result<Self, BackendError> {
        let limits = device.limits();
        if limits.max_compute_invocations_per_workgroup < WORKGROUP_INVOCATIONS
            || limits.max_compute_workgroups_per_dimension == 0
            || limits.max_storage_buffers_per_shader_stage < 3
        {
            return Err(BackendError::Unavailable {
                kind: KIND,
                reason: format!(
                    "the device on {} was made without compute limits (at most {} invocations per \
                     workgroup, {} storage buffers per stage); request it with the adapter's limits or \
                     wgpu::Limits::downlevel_defaults()",
                    describe_adapter(&adapter),
                    limits.max_compute_invocations_per_workgroup,
                    limits.max_storage_buffers_per_shader_stage
                ),
            });
        }
        let lost = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&lost);
        device.set_device_lost_callback(move |reason, message| {
            log::error!("wgpu device lost ({reason:?}): {message}");
            if let Ok(mut s) = slot.lock() {
                *s = Some(format!("{reason:?}: {message}"));
            }
        });
        let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let f64_ok = device.features().contains(wgpu::Features::SHADER_F64);
        // The layouts too: nothing may reach the device's uncaptured-error handler (on a
        // device shared with eframe, wgpu's default handler panics).
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipelines = (|| -> Result<_, BackendError> {
            let wave = wave::Pipeline::new(&device)?;
            let colormap = colormap::Pipelines::new(&device)?;
            let mandelbrot_f32 = mandelbrot::Pipeline::new(&device, mandelbrot::Flavour::F32)?;
            let mandelbrot_f64 =
                if f64_ok { Some(mandelbrot::Pipeline::new(&device, mandelbrot::Flavour::F64)?) } else { None };
            Ok((wave, colormap, mandelbrot_f32, mandelbrot_f64))
        })();
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(BackendError::Compile { kind: KIND, log: format!("making the compute pipelines: {e}") });
        }
        let (wave, colormap, mandelbrot_f32, mandelbrot_f64) = pipelines?;
        Ok(Self {
            device,
            queue,
            adapter,
            timestamps,
            lost,
            error: Arc::new(Mutex::new(None)),
            wave,
            colormap,
            mandelbrot_f32,
            mandelbrot_f64,
        })
    }

    /// Fails when the device was lost.
    pub fn alive(&self) -> Result<(), BackendError> {
        let lost = self.lost.lock().map(|s| s.clone()).unwrap_or_else(|_| Some("poisoned lock".into()));
        match lost {
            Some(why) => Err(runtime(format!("device lost ({why}); reopen the backend"))),
            None => Ok(()),
        }
    }

    /// The largest buffer a storage binding may be on this device.
    pub fn max_storage_bytes(&self) -> u64 {
        let l = self.device.limits();
        l.max_storage_buffer_binding_size.min(l.max_buffer_size)
    }

    /// Runs `f` inside out-of-memory and validation error scopes and turns what they caught
    /// into an error that says what was being done.
    pub fn scoped<T>(&self, what: &str, f: impl FnOnce() -> T) -> Result<T, BackendError> {
        self.alive()?;
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let validation = pollster::block_on(validation.pop());
        let oom = pollster::block_on(oom.pop());
        if let Some(e) = oom {
            // The device's memory ran out (sizes over its limits were refused before, as
            // `BackendError::OutOfMemory` with both numbers).
            return Err(runtime(format!("out of GPU memory while {what}: {e}")));
        }
        if let Some(e) = validation {
            return Err(runtime(format!("{what}: {e}")));
        }
        self.alive()?;
        Ok(out)
    }

    /// Makes a buffer, refusing one larger than the device allows.
    pub fn buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> Result<wgpu::Buffer, BackendError> {
        let limit = if usage.contains(wgpu::BufferUsages::STORAGE) {
            self.max_storage_bytes()
        } else {
            self.device.limits().max_buffer_size
        };
        super::check_fits(KIND, label, size, Some(limit))?;
        self.scoped(&format!("allocating {label} ({size} bytes)"), || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.max(4),
                usage,
                mapped_at_creation: false,
            })
        })
    }

    /// Blocks until everything submitted so far has run.
    pub fn wait(&self) -> Result<(), BackendError> {
        self.alive()?;
        let polled = self.device.poll(wgpu::PollType::wait_indefinitely());
        self.alive()?;
        polled.map(|_| ()).map_err(|e| runtime(format!("waiting for the GPU: {e}")))
    }

    /// Maps `staging` (a `MAP_READ` buffer whose copy was submitted) and hands its first `len`
    /// bytes to `read`.
    pub fn read_back<T>(
        &self,
        staging: &wgpu::Buffer,
        len: u64,
        read: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, BackendError> {
        let (tx, rx) = mpsc::channel();
        self.scoped("mapping a buffer for reading", || {
            staging.map_async(wgpu::MapMode::Read, 0..len, move |r| {
                let _ = tx.send(r);
            });
        })?;
        self.wait()?;
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(runtime(format!("mapping a buffer for reading failed: {e}"))),
            Err(_) => return Err(runtime("mapping a buffer for reading never finished")),
        }
        let out = {
            let view =
                staging.get_mapped_range(0..len).map_err(|e| runtime(format!("reading a mapped buffer: {e}")))?;
            read(&view)
        };
        staging.unmap();
        Ok(out)
    }

    /// Facts for `info`.
    fn device_info(&self) -> DeviceInfo {
        let a = &self.adapter;
        let l = self.device.limits();
        let mib = |b: u64| format!("{} MiB", b >> 20);
        let mut details = vec![
            ("adapter".to_owned(), describe_adapter(a)),
            ("backend".to_owned(), a.backend.to_string()),
            ("device type".to_owned(), format!("{:?}", a.device_type)),
            ("driver".to_owned(), format!("{} {}", a.driver, a.driver_info).trim().to_owned()),
            (
                "f64".to_owned(),
                if self.mandelbrot_f64.is_some() {
                    "yes (SHADER_F64): Mandelbrot in f32 and f64".to_owned()
                } else {
                    "no: Mandelbrot in f32 only".to_owned()
                },
            ),
            (
                "timing".to_owned(),
                if self.timestamps {
                    "GPU timestamps (TIMESTAMP_QUERY)".to_owned()
                } else {
                    "wall clock (no TIMESTAMP_QUERY)".to_owned()
                },
            ),
            ("max storage buffer".to_owned(), mib(self.max_storage_bytes())),
            ("max workgroups per dimension".to_owned(), l.max_compute_workgroups_per_dimension.to_string()),
        ];
        if a.device_type == wgpu::DeviceType::Cpu {
            details.push(("note".to_owned(), "software rendering: timings are of the CPU, not a GPU".to_owned()));
        }
        DeviceInfo { name: a.name.clone(), details, memory_bytes: None, peak_gbps: None }
    }
}

/// Creates a shader module and a compute pipeline for one entry point, reporting a shader
/// that fails validation as [`BackendError::Compile`] with wgpu's message.
pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    file: &str,
    source: &str,
    entry_points: &[(&str, &wgpu::BindGroupLayout)],
) -> Result<Vec<wgpu::ComputePipeline>, BackendError> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(file),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipelines = entry_points
        .iter()
        .map(|(entry, layout)| {
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(entry),
                bind_group_layouts: &[Some(layout)],
                immediate_size: 0,
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
        })
        .collect();
    let validation = pollster::block_on(validation.pop());
    let oom = pollster::block_on(oom.pop());
    if let Some(e) = validation.or(oom) {
        return Err(BackendError::Compile { kind: KIND, log: format!("shaders/{file}: {e}") });
    }
    Ok(pipelines)
}

/// GPU timing of one batch of passes: a begin and an end timestamp.
pub(crate) struct Timer {
    pub queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
}

impl Timer {
    /// A timer when the device has timestamp queries.
    pub fn new(gpu: &Gpu) -> Result<Option<Self>, BackendError> {
        if !gpu.timestamps {
            return Ok(None);
        }
        let queries = gpu.scoped("creating timestamp queries", || {
            gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("wavebrot timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            })
        })?;
        let resolve = gpu.buffer(
            "timestamp resolve",
            2 * wgpu::QUERY_SIZE as u64,
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        )?;
        let readback = gpu.buffer(
            "timestamp readback",
            2 * wgpu::QUERY_SIZE as u64,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        )?;
        Ok(Some(Self { queries, resolve, readback }))
    }

    /// The timestamp writes of a pass: the begin of the first, the end of the last.
    pub fn writes(&self, first: bool, last: bool) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: first.then_some(0),
            end_of_pass_write_index: last.then_some(1),
        }
    }

    /// Encodes the copy of both timestamps to the host-visible buffer.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 2 * wgpu::QUERY_SIZE as u64);
    }

    /// Reads the time between the two timestamps (after the work has been submitted).
    pub fn elapsed(&self, gpu: &Gpu) -> Result<Option<Duration>, BackendError> {
        let ticks = gpu.read_back(&self.readback, 2 * wgpu::QUERY_SIZE as u64, |bytes| {
            let t: &[u64] = bytemuck::cast_slice(bytes);
            t[1].checked_sub(t[0])
        })?;
        let period_ns = f64::from(gpu.queue.get_timestamp_period());
        Ok(ticks.filter(|&t| t > 0).map(|t| Duration::from_secs_f64(t as f64 * period_ns * 1e-9)))
    }
}

/// The wgpu backend on one device.
pub struct WgpuBackend {
    gpu: Arc<Gpu>,
    mandelbrot: Option<mandelbrot::Buffers>,
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
        Ok(Self { gpu: Arc::new(Gpu::new(device, queue, adapter_info)?), mandelbrot: None })
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
        Ok(Box::new(WgpuWave::new(Arc::clone(&self.gpu), params, variant)?))
    }

    fn wave_variants(&self) -> &'static [WaveVariant] {
        &WaveVariant::CONCRETE
    }

    fn mandelbrot(&mut self, params: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        mandelbrot::run(&self.gpu, &mut self.mandelbrot, params, counts)
    }
}
