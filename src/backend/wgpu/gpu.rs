//! The device side of the wgpu backend, shared by a backend and its waves: [`Gpu`] (device,
//! queue, compiled pipelines, error scopes, buffers, read-back, device-lost state),
//! [`compute_pipeline`] (a shader module and its pipelines, compile errors reported) and
//! [`Timer`] (timestamp queries around a run of passes).

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::layout::ComputeKernel;
use super::shader::{Order, Products};
use super::wave_blocked::{Kernel, Lanes, WORKGROUP_BYTES};
use super::{KIND, WORKGROUP_INVOCATIONS, colormap, describe_adapter, mandelbrot, runtime, wave};
use crate::backend::{BackendError, DeviceInfo};
use crate::sim::fractal::mandelbrot::Precision;

/// The device, its queue and the compiled pipelines, shared by a backend and its waves.
pub(crate) struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: wgpu::AdapterInfo,
    /// The device has `TIMESTAMP_QUERY`: kernels are timed on the GPU.
    pub timestamps: bool,
    /// Why the device was lost, once it is.
    pub(super) lost: Arc<Mutex<Option<String>>>,
    /// The first error no scope caught (own devices only).
    #[cfg_attr(
        target_arch = "wasm32",
        expect(dead_code, reason = "read by `open`, which the browser build does not have yet")
    )]
    pub(super) error: Arc<Mutex<Option<String>>>,
    pub wave: wave::Pipeline,
    pub colormap: colormap::Pipelines,
    pub mandelbrot_f32: ComputeKernel,
    pub mandelbrot_f64: Option<ComputeKernel>,
}

impl Gpu {
    /// The encoder of one escape-time pass (Mandelbrot, Julia, their distance and deep kernels):
    /// `total` (the iteration counter) cleared, `pipeline` dispatched over `groups` with `bind`,
    /// timed by `timer` where there is one and its timestamps resolved. The caller adds its
    /// copies and submits.
    pub fn escape_pass(
        &self,
        label: &str,
        (pipeline, bind): (&wgpu::ComputePipeline, &wgpu::BindGroup),
        groups: (u32, u32),
        total: &wgpu::Buffer,
        timer: Option<&Timer>,
    ) -> wgpu::CommandEncoder {
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        encoder.clear_buffer(total, 0, None);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(label),
                timestamp_writes: timer.and_then(|t| t.writes(0, true)),
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, 1);
        }
        if let Some(timer) = timer {
            timer.resolve(&mut encoder, 1);
        }
        encoder
    }

    pub(super) fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter: wgpu::AdapterInfo,
    ) -> Result<Self, BackendError> {
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
        let products = super::probe_fma::products(&device, &queue);
        let pipelines = (|| -> Result<_, BackendError> {
            let wave = wave::Pipeline::new(&device, Order::of(adapter.backend), products)?;
            let colormap = colormap::Pipelines::new(&device)?;
            let mandelbrot_f32 = mandelbrot::kernel(&device, Precision::F32, Order::of(adapter.backend))?;
            let order = Order::of(adapter.backend);
            let mandelbrot_f64 = if f64_ok { Some(mandelbrot::kernel(&device, Precision::F64, order)?) } else { None };
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
        crate::backend::check_fits(KIND, label, size, Some(limit))?;
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

    /// Copies a mapped read-back into `out`: on all cores in 256 KiB pieces beyond 4 MiB (each
    /// core first-touches its share of a fresh destination's pages), on this thread below.
    pub fn copy_out(src: &[u8], out: &mut [u8]) {
        use rayon::prelude::*;
        const PIECE: usize = 256 << 10;
        if out.len() <= 4 << 20 {
            out.copy_from_slice(&src[..out.len()]);
        } else {
            out.par_chunks_mut(PIECE).zip(src.par_chunks(PIECE)).for_each(|(o, s)| o.copy_from_slice(&s[..o.len()]));
        }
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

    /// Maps each of `parts` (`MAP_READ` buffers, the copy into each submitted on its own as
    /// the given submission, in order) and hands its first `len` bytes to `read` with the part's
    /// index, in order, as soon as its own copy is done: the host copies out one part while the
    /// next are still on the bus (the wgpu twin of CUDA's pinned ring, `cuda/copy.rs`).
    pub fn read_back_parts(
        &self,
        parts: &[(&wgpu::Buffer, u64, wgpu::SubmissionIndex)],
        mut read: impl FnMut(usize, &[u8]),
    ) -> Result<(), BackendError> {
        let (tx, rx) = mpsc::channel();
        self.scoped("mapping buffers for reading", || {
            for (i, (buffer, len, _)) in parts.iter().enumerate() {
                let tx = tx.clone();
                buffer.map_async(wgpu::MapMode::Read, 0..*len, move |r| {
                    let _ = tx.send((i, r));
                });
            }
        })?;
        let mut mapped = vec![false; parts.len()];
        // Parts before `done` have been read and unmapped.
        let mut done = 0;
        let result = parts.iter().enumerate().try_for_each(|(i, (buffer, len, submission))| {
            while !mapped[i] {
                self.alive()?;
                self.device
                    .poll(wgpu::PollType::Wait { submission_index: Some(submission.clone()), timeout: None })
                    .map_err(|e| runtime(format!("waiting for the GPU: {e}")))?;
                // The callbacks of every part whose copy is done have run by now.
                while let Ok((j, r)) = rx.try_recv() {
                    r.map_err(|e| runtime(format!("mapping a buffer for reading failed: {e}")))?;
                    mapped[j] = true;
                }
                if !mapped[i] {
                    match rx.recv_timeout(Duration::from_secs(60)) {
                        Ok((j, r)) => {
                            r.map_err(|e| runtime(format!("mapping a buffer for reading failed: {e}")))?;
                            mapped[j] = true;
                        }
                        Err(_) => return Err(runtime("mapping a buffer for reading never finished")),
                    }
                }
            }
            {
                let view =
                    buffer.get_mapped_range(0..*len).map_err(|e| runtime(format!("reading a mapped buffer: {e}")))?;
                read(i, &view);
            }
            buffer.unmap();
            done = i + 1;
            Ok(())
        });
        if result.is_err() {
            // Mapped or still pending: unmapped (cancelled), so the next call can map them again.
            for (buffer, _, _) in &parts[done..] {
                buffer.unmap();
            }
        }
        result
    }

    /// Facts for `info`.
    pub(super) fn device_info(&self) -> DeviceInfo {
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
            ("workgroup memory".to_owned(), format!("{} KiB", l.max_compute_workgroup_storage_size / 1024)),
            (
                "subgroups".to_owned(),
                if self.device.features().contains(wgpu::Features::SUBGROUP) {
                    format!("yes (SUBGROUP), {}..{} lanes", a.subgroup_min_size, a.subgroup_max_size)
                } else {
                    "no".to_owned()
                },
            ),
            (
                "`blocked` wave kernel".to_owned(),
                match self.wave.blocked.blocked_kernel() {
                    Kernel::Blocked(Lanes::Subgroup) => {
                        "wave_blocked.wgsl, neighbours along j by subgroup shuffles".to_owned()
                    }
                    Kernel::Blocked(Lanes::Workgroup) => {
                        "wave_blocked.wgsl, neighbours along j through workgroup memory".to_owned()
                    }
                    Kernel::Workgroup => format!(
                        "wave_blocked_workgroup.wgsl (wave_blocked.wgsl needs {} KiB of workgroup memory)",
                        WORKGROUP_BYTES / 1024
                    ),
                },
            ),
            ("wave kernel auto runs".to_owned(), super::wave::default_variant(a.device_type).name().to_owned()),
            (
                "roundings kept by".to_owned(),
                if takes_spirv(&self.device) {
                    "the Mandelbrot, Julia, deep and scene kernels: SPIR-V made here, every float add, subtract \
                     and multiply NoContraction; the plain wave kernels: `exact`'s fences"
                        .to_owned()
                } else {
                    "`exact`'s fences (an xor with a uniform 0)".to_owned()
                },
            ),
            (
                "scene products' error".to_owned(),
                match self.wave.products() {
                    Products::Fused => "one fma (the probe saw it round once)".to_owned(),
                    Products::Split => "Dekker's two-product (the probe saw no fused fma)".to_owned(),
                },
            ),
        ];
        if a.device_type == wgpu::DeviceType::Cpu {
            details.push(("note".to_owned(), "software rendering: timings are of the CPU, not a GPU".to_owned()));
        }
        DeviceInfo { name: a.name.clone(), details, memory_bytes: None, peak_gbps: None, cache_bytes: None }
    }
}

/// Creates a shader module and a compute pipeline for one entry point, reporting a shader
/// that fails validation as [`BackendError::Compile`] with wgpu's message ([`Guards::KEPT`]).
pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    file: &str,
    source: &str,
    entry_points: &[(&str, &wgpu::BindGroupLayout)],
) -> Result<Vec<wgpu::ComputePipeline>, BackendError> {
    compute_pipeline_with(device, file, source, entry_points, Guards::KEPT)
}

/// What a compute shader module keeps of the guards wgpu adds to a shader. wgpu's loop counters
/// (a 64-bit count in every loop, so that none runs forever) are left out of every module: every
/// loop of the shaders in `shaders/` ends (a counted `for`, or a count or width that moves toward
/// its bound each time round), and the counters cost the Mandelbrot kernels most of their gap to
/// CUDA (H100, 4096², 1000 iterations: f32 1.68 -> 0.74 ms, f64 1.68 -> 0.99; docs/PERFORMANCE.md,
/// stop 34).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Guards {
    /// Workgroup memory zeroed at the start of every workgroup (WGSL's rule; off only for a
    /// shader that writes all it reads first).
    pub zero_workgroup_memory: bool,
    /// wgpu's clamps of array indices (and buffer indices where the driver has no robust buffer
    /// access of its own); off only for a shader whose every index is in range by its own code.
    pub bounds_checks: bool,
    /// On a Vulkan device that takes SPIR-V as it is, the shader made into SPIR-V here with every
    /// float add, subtract and multiply `NoContraction` and `exact` the value itself
    /// (`super::spirv`), instead of `exact`'s integer fences. H100 (docs/PERFORMANCE.md, stop 34):
    /// Mandelbrot 4096², 1000 it, f32 0.738 -> 0.553 ms, f64 0.987 -> 0.864; the matched-layer
    /// scene 96.4 -> 88.1 µs. The plain wave kernels keep the fences: their one fence a cell
    /// costs nothing measurable (27.8 against 27.9 µs), and naga's zeroing of their tile made
    /// them 1.8x slower.
    pub no_contraction: bool,
    /// With `no_contraction`, a shader without any `exact` decorated as it is: the deep kernels,
    /// written in their CPU twin's order with nothing fenced. H100 (stop 34): no pixel of the
    /// deep smooth test off its twin (1 of 2560 before), for 13% more kernel time (354 -> 401 µs
    /// at 1e100, 1920x1080, of a 50 ms picture).
    pub unfenced_too: bool,
}

impl Guards {
    /// Every guard but the loop counters; `NoContraction` where the device takes SPIR-V.
    pub const KEPT: Self =
        Self { zero_workgroup_memory: true, bounds_checks: true, no_contraction: true, unfenced_too: false };
    /// The blocked wave kernels (`wave_blocked.wgsl`, `wave_blocked_workgroup.wgsl`,
    /// `wave_scene_blocked.wgsl`): each buffer load and store sits under a test that the cell is in
    /// the grid (`load_f`, `load_g`, the output block's test), each workgroup-memory index is made
    /// of the invocation's own ids and constants, or tested or clamped where it reaches a
    /// neighbour, and each list or table index is below a count the host wrote. Without the index
    /// clamps the H100 ran the plain kernel at 4096² in 27.8 µs instead of 32.4 (and with the loop
    /// counters off but the clamps kept, 36.2). The plain kernels keep `exact`'s fences.
    pub const IN_RANGE_BY_THE_SHADER: Self =
        Self { zero_workgroup_memory: true, bounds_checks: false, no_contraction: false, unfenced_too: false };
    /// The plain one-update wave kernel (`wave.wgsl`): its fences kept, as the blocked plain
    /// kernels' (not measured with `NoContraction`).
    pub const FENCED: Self = Self { no_contraction: false, ..Self::KEPT };
    /// The deep kernels (`mandelbrot_deep.wgsl`): decorated though they have no `exact`.
    pub const DEEP: Self = Self { unfenced_too: true, ..Self::KEPT };
}

/// [`compute_pipeline`] with the given [`Guards`].
#[expect(unsafe_code, reason = "a shader module without some of wgpu's guards is made by an unsafe call")]
pub(crate) fn compute_pipeline_with(
    device: &wgpu::Device,
    file: &str,
    source: &str,
    entry_points: &[(&str, &wgpu::BindGroupLayout)],
    guards: Guards,
) -> Result<Vec<wgpu::ComputePipeline>, BackendError> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let mut checks = wgpu::ShaderRuntimeChecks::checked();
    checks.force_loop_bounding = false;
    checks.bounds_checks = guards.bounds_checks;
    let decorated = if guards.no_contraction { decorated_spirv(device, source, guards) } else { None };
    let module = match decorated {
        // SAFETY: the SPIR-V is naga's own output for a shader that validated, with only
        // `NoContraction` decorations added (`super::spirv`), without loop counters and with the
        // bounds checks of `guards`: the same promises as the module below.
        Some(words) => unsafe {
            device.create_shader_module_passthrough(wgpu::ShaderModuleDescriptorPassthrough {
                label: Some(file),
                entry_points: entry_points
                    .iter()
                    .map(|(name, _)| wgpu::PassthroughShaderEntryPoint {
                        name: (*name).into(),
                        workgroup_size: (0, 0, 0),
                    })
                    .collect(),
                spirv: Some(words.into()),
                ..Default::default()
            })
        },
        // SAFETY: without the loop counters, no loop of the shader may run forever, and without
        // the bounds checks no index may leave its array: both argued at `Guards` for the shaders
        // that ask for it, and checked by the kernels' tests at odd sizes and tile edges.
        None => unsafe {
            device.create_shader_module_trusted(
                wgpu::ShaderModuleDescriptor { label: Some(file), source: wgpu::ShaderSource::Wgsl(source.into()) },
                checks,
            )
        },
    };
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
                compilation_options: wgpu::PipelineCompilationOptions {
                    zero_initialize_workgroup_memory: guards.zero_workgroup_memory,
                    ..Default::default()
                },
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

/// Whether `device` is a Vulkan one that takes SPIR-V as it is: the shaders that ask for it
/// (`Guards::no_contraction`) then get `NoContraction` instead of `exact`'s fences.
pub(crate) fn takes_spirv(device: &wgpu::Device) -> bool {
    device.features().contains(wgpu::Features::PASSTHROUGH_SHADERS)
        && device.adapter_info().backend == wgpu::Backend::Vulkan
}

/// `source` as SPIR-V with `NoContraction` instead of `exact`'s fences (`super::spirv`), where the
/// device is a Vulkan one that takes SPIR-V as it is and the shader has `exact` in the known form.
#[cfg(not(target_arch = "wasm32"))]
fn decorated_spirv(device: &wgpu::Device, source: &str, guards: Guards) -> Option<Vec<u32>> {
    if !takes_spirv(device) {
        return None;
    }
    match super::spirv::decorated(source, guards.bounds_checks, guards.zero_workgroup_memory, guards.unfenced_too) {
        Ok(words) => words,
        Err(e) => {
            log::warn!("SPIR-V with NoContraction failed ({e}); the shader keeps its fences");
            None
        }
    }
}

/// Browsers take WGSL only: no SPIR-V, the shader keeps its fences.
#[cfg(target_arch = "wasm32")]
fn decorated_spirv(_device: &wgpu::Device, _source: &str, _guards: Guards) -> Option<Vec<u32>> {
    None
}

/// Timestamp pairs a [`Timer`] holds: passes beyond the last but one share the last pair.
const TIMER_PAIRS: u32 = 64;

/// The query indices pass `pass` of a batch writes at its begin and its end (`last`: the batch's
/// last pass): pair `pass` for the first [`TIMER_PAIRS`] - 1 passes; the last pair's begin for
/// the pass after them and its end for the batch's last pass.
fn timestamp_indices(pass: u32, last: bool) -> (Option<u32>, Option<u32>) {
    let shared = TIMER_PAIRS - 1;
    let pair = pass.min(shared);
    ((pass <= shared).then_some(2 * pair), (pass < shared || last).then_some(2 * pair + 1))
}

/// GPU timing of one batch of passes (one pass a submission): each pass writes a begin and an end
/// timestamp, and the batch's time is the sum of its passes' times, so the host's work between
/// submissions (source values, uploads) is not counted as kernel time. Past [`TIMER_PAIRS`] - 1
/// passes the last pair brackets all the rest, gaps included.
pub(crate) struct Timer {
    pub queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Passes of the batch last resolved.
    passes: std::sync::atomic::AtomicU32,
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
                count: 2 * TIMER_PAIRS,
            })
        })?;
        let bytes = 2 * u64::from(TIMER_PAIRS) * wgpu::QUERY_SIZE as u64;
        let resolve =
            gpu.buffer("timestamp resolve", bytes, wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC)?;
        let readback =
            gpu.buffer("timestamp readback", bytes, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST)?;
        Ok(Some(Self { queries, resolve, readback, passes: 0.into() }))
    }

    /// The timestamp writes of pass `pass` of a batch (`last`: the batch's last), or none for a
    /// pass in the middle of the shared last pair.
    pub fn writes(&self, pass: u32, last: bool) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let (begin, end) = timestamp_indices(pass, last);
        (begin.is_some() || end.is_some()).then_some(wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: begin,
            end_of_pass_write_index: end,
        })
    }

    /// Encodes the copy of the timestamps of a batch of `passes` passes to the host-visible buffer.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder, passes: u32) {
        let pairs = passes.clamp(1, TIMER_PAIRS);
        self.passes.store(pairs, std::sync::atomic::Ordering::Relaxed);
        encoder.resolve_query_set(&self.queries, 0..2 * pairs, &self.resolve, 0);
        let bytes = 2 * u64::from(pairs) * wgpu::QUERY_SIZE as u64;
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, bytes);
    }

    /// Reads the sum of the batch's pass times (after the work has been submitted).
    pub fn elapsed(&self, gpu: &Gpu) -> Result<Option<Duration>, BackendError> {
        let pairs = u64::from(self.passes.load(std::sync::atomic::Ordering::Relaxed).max(1));
        let ticks = gpu.read_back(&self.readback, 2 * pairs * wgpu::QUERY_SIZE as u64, |bytes| {
            let t: &[u64] = bytemuck::cast_slice(bytes);
            t.chunks_exact(2).try_fold(0u64, |sum, p| p[1].checked_sub(p[0]).map(|d| sum + d))
        })?;
        let period_ns = f64::from(gpu.queue.get_timestamp_period());
        Ok(ticks.filter(|&t| t > 0).map(|t| Duration::from_secs_f64(t as f64 * period_ns * 1e-9)))
    }
}

#[cfg(test)]
mod timer_tests {
    use super::{TIMER_PAIRS, timestamp_indices};

    /// Whatever the batch's length, each pair it resolves gets one begin and then one end, in
    /// pass order, and no index is written twice: the sum of pair times is well defined.
    #[test]
    fn every_resolved_pair_gets_one_begin_then_one_end() {
        for passes in [1, 2, 5, TIMER_PAIRS - 1, TIMER_PAIRS, TIMER_PAIRS + 1, 3 * TIMER_PAIRS] {
            let mut writes = vec![Vec::new(); 2 * TIMER_PAIRS as usize];
            for pass in 0..passes {
                let (begin, end) = timestamp_indices(pass, pass + 1 == passes);
                for at in [begin, end].into_iter().flatten() {
                    writes[at as usize].push(pass);
                }
            }
            let pairs = passes.min(TIMER_PAIRS) as usize;
            for p in 0..pairs {
                let (b, e) = (&writes[2 * p], &writes[2 * p + 1]);
                assert!(b.len() == 1 && e.len() == 1, "{passes} passes: pair {p} written {b:?} / {e:?}");
                assert!(b[0] <= e[0], "{passes} passes: pair {p} ends (pass {}) before it begins ({})", e[0], b[0]);
            }
            assert!(writes[2 * pairs..].iter().all(Vec::is_empty), "{passes} passes: a write past the resolved pairs");
            // The last pair ends with the batch.
            assert_eq!(writes[2 * pairs - 1], [passes - 1], "{passes} passes");
        }
    }
}
