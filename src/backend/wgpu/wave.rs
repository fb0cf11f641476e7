//! The wave on the GPU: two `f32` fields stepped in place by `shaders/wave.wgsl`
//! (CPU twin: `wave_update` in `src/backend/cpu.rs`).
//!
//! One time step is two dispatches, `update(f, g)` then `update(g, f)`, with the source
//! fused into them (see the shader). The fields never leave the GPU between steps: a batch of
//! steps is one command buffer with one compute pass, its per-dispatch parameters (the source
//! value of each step, computed on the host in `f64` as the CPU does) uploaded once and picked
//! with dynamic uniform offsets.
//!
//! [`WaveKernel::Tiled`] (`shaders/wave_tiled.wgsl`, the default on GPUs) does up to
//! [`TILED_STEPS`] time steps per dispatch by temporal blocking: it reads one pair of fields and
//! writes another, so the wave keeps a second pair and alternates; every advance runs an even
//! number of dispatches, so the state always ends in the first pair. `WAVEBROT_WGPU_WAVE=cells`,
//! `rows`, `tiled` or `tune` picks the kernel of new waves (for comparisons).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::colormap::Frame;
use super::{Gpu, KIND, Timer, runtime};
use crate::backend::{BackendError, Timing, WaveSim, check_fits};
use crate::sim::wave::{WaveParams, source_value};

/// Workgroup of the wave shader: 32 cells along `j` (the fast index) by 8 rows along `i`.
const TILE_J: u32 = 32;
const TILE_I: u32 = 8;
/// Rows per invocation of `wave_update_rows` (`ROWS` in the shader).
const ROWS: u32 = 4;
/// Grids from this many cells up time both kernels on a GPU and keep the faster
/// (when the tiled kernel is not the default).
const TUNE_MIN_CELLS: usize = 1 << 20;
/// Most time steps one dispatch of `wave_tiled` runs (`K / 2` in the shader).
pub const TILED_STEPS: u32 = 4;
/// The output block of one `wave_tiled` workgroup (`OJ`, `OI` in the shader).
const TILED_OUT: u32 = 48;
/// The environment variable that picks the kernel of new waves.
pub const KERNEL_ENV: &str = "WAVEBROT_WGPU_WAVE";

/// The wave kernels; all give the same bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveKernel {
    /// `wave_update`: one cell per invocation.
    Cells,
    /// `wave_update_rows`: a column of 4 cells per invocation, neighbours kept in registers.
    Rows,
    /// `wave_tiled` (`shaders/wave_tiled.wgsl`): up to [`TILED_STEPS`] time steps per dispatch
    /// on a 64x64 tile held in registers and workgroup memory.
    Tiled,
}

impl WaveKernel {
    /// The shader entry point.
    #[must_use]
    pub fn entry_point(self) -> &'static str {
        match self {
            Self::Cells => "wave_update",
            Self::Rows => "wave_update_rows",
            Self::Tiled => "wave_tiled",
        }
    }

    /// The kernel of a new wave on an adapter of this type (unless `WAVEBROT_WGPU_WAVE` says
    /// otherwise): [`Self::Tiled`] on GPUs, [`Self::Cells`] on software adapters, where the
    /// shader runs on the CPU and the tiled kernel's recomputed halo costs more than the
    /// memory traffic it saves (llvmpipe: 6.7 against 4.5 ms per update at 1000x800).
    #[must_use]
    pub fn default_for(device_type: wgpu::DeviceType) -> Self {
        if device_type == wgpu::DeviceType::Cpu { Self::Cells } else { Self::Tiled }
    }

    /// Parses `cells`, `rows` or `tiled` (the values of `WAVEBROT_WGPU_WAVE`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "cells" => Some(Self::Cells),
            "rows" => Some(Self::Rows),
            "tiled" => Some(Self::Tiled),
            _ => None,
        }
    }

    /// Workgroups for an `nx x ny` grid.
    fn groups(self, nx: usize, ny: usize) -> (u32, u32) {
        let rows = match self {
            Self::Cells => TILE_I,
            Self::Rows => TILE_I * ROWS,
            Self::Tiled => {
                let out = TILED_OUT as usize;
                return (ny.div_ceil(out) as u32, nx.div_ceil(out) as u32);
            }
        };
        (ny.div_ceil(TILE_J as usize) as u32, nx.div_ceil(rows as usize) as u32)
    }
}
/// "No source here" in a step's `src_in`/`src_out`.
const NO_SOURCE: u32 = u32::MAX;
/// Cell updates per submission: large enough to hide submission costs, small enough that
/// one submission stays well under a desktop driver's watchdog (about 5 ms on a big GPU).
const CELL_UPDATES_PER_SUBMIT: u64 = 1 << 29;
/// At most this many time steps per submission.
const MAX_STEPS_PER_SUBMIT: u64 = 512;

/// One dispatch's parameters (`Step` in `shaders/wave.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Step {
    nx: u32,
    ny: u32,
    src_in: u32,
    src_out: u32,
    c2: f32,
    s: f32,
    /// Always 0: lets the shader's `exact` keep every rounding step (no FMA, no reordering).
    opaque: u32,
    pad: u32,
}

/// One `wave_tiled` dispatch's parameters (`Steps` in `shaders/wave_tiled.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct TiledSteps {
    nx: u32,
    ny: u32,
    src_i: u32,
    src_j: u32,
    c2: f32,
    /// Always 0 (see `Step::opaque`).
    opaque: u32,
    /// Time steps of this dispatch, `1..=TILED_STEPS`.
    nsteps: u32,
    pad: u32,
    /// The source value of each of those steps.
    s: [f32; TILED_STEPS as usize],
}

/// The wave pipelines (one per [`WaveKernel`]), compiled once per device.
pub(crate) struct Pipeline {
    layout: wgpu::BindGroupLayout,
    cells: wgpu::ComputePipeline,
    rows: wgpu::ComputePipeline,
    tiled_layout: wgpu::BindGroupLayout,
    tiled: wgpu::ComputePipeline,
}

impl Pipeline {
    pub fn new(device: &wgpu::Device) -> Result<Self, BackendError> {
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        // The per-dispatch step record, picked by a dynamic offset into one uniform buffer.
        let steps = |size: usize| wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: wgpu::BufferSize::new(size as u64),
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wave"),
            entries: &[steps(size_of::<Step>()), storage(1, false), storage(2, true)],
        });
        let entries = [(WaveKernel::Cells.entry_point(), &layout), (WaveKernel::Rows.entry_point(), &layout)];
        let mut pipelines = super::compute_pipeline(device, "wave.wgsl", super::WAVE_WGSL, &entries)?;
        let rows = pipelines.pop().ok_or_else(|| runtime("no wave pipeline"))?;
        let cells = pipelines.pop().ok_or_else(|| runtime("no wave pipeline"))?;
        let tiled_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wave tiled"),
            entries: &[
                steps(size_of::<TiledSteps>()),
                storage(1, true),
                storage(2, true),
                storage(3, false),
                storage(4, false),
            ],
        });
        let entries = [(WaveKernel::Tiled.entry_point(), &tiled_layout)];
        let tiled = super::compute_pipeline(device, "wave_tiled.wgsl", super::WAVE_TILED_WGSL, &entries)?
            .pop()
            .ok_or_else(|| runtime("no tiled wave pipeline"))?;
        Ok(Self { layout, cells, rows, tiled_layout, tiled })
    }
}

/// A wave problem on a wgpu device.
///
/// Reach it from a `Box<dyn WaveSim>` with `sim.as_any_mut().downcast_mut::<WgpuWave>()`, or
/// make it directly with [`super::WgpuBackend::new_wgpu_wave`]. Besides [`WaveSim`] it draws
/// into a texture without a copy to the host: [`WgpuWave::create_frame_texture`] and
/// [`WgpuWave::colormap_into`].
/// What [`WaveKernel::Tiled`] needs besides the fields: a second pair `(f, g)`, the bind groups
/// `[pair 0 -> pair 1, pair 1 -> pair 0]` and the per-dispatch parameters of one submission.
struct Tiled {
    _fields: [wgpu::Buffer; 2],
    bind_groups: [wgpu::BindGroup; 2],
    steps: wgpu::Buffer,
    stride: u64,
    /// Dispatches `steps` holds parameters for (even).
    capacity: u32,
}

pub struct WgpuWave {
    gpu: Arc<Gpu>,
    params: WaveParams,
    tstep: u32,
    /// `f` (the seed's output) and `g`.
    fields: [wgpu::Buffer; 2],
    /// `[update(f, g), update(g, f)]`.
    bind_groups: [wgpu::BindGroup; 2],
    /// Step parameters of one batch, `stride` bytes apart.
    steps: wgpu::Buffer,
    stride: u64,
    steps_per_submit: u32,
    kernel: WaveKernel,
    timer: Option<Timer>,
    /// The second pair of fields and the parameters of [`WaveKernel::Tiled`] (made on first use).
    tiled: Option<Tiled>,
    /// Host-visible copy target for `read_field` and `render_rgba` (made on first use).
    staging: Option<wgpu::Buffer>,
    frame: Frame,
}

impl WgpuWave {
    pub(crate) fn new(gpu: Arc<Gpu>, params: &WaveParams) -> Result<Self, BackendError> {
        params.validate().map_err(BackendError::Invalid)?;
        let (nx, ny) = (params.nx, params.ny);
        let limits = gpu.device.limits();
        let what = format!("wave {nx}x{ny}");
        // Indices are u32 in the shader: keep every index and neighbour in range.
        if params.cells() > 1 << 30 {
            return Err(BackendError::Invalid(format!("{what} has more than 2^30 cells, the wgpu backend's limit")));
        }
        let field_bytes = 4 * params.cells() as u64;
        let limit_what = format!("{what} (one field, against the device's largest storage buffer)");
        check_fits(KIND, &limit_what, field_bytes, Some(gpu.max_storage_bytes()))?;
        let groups = WaveKernel::Cells.groups(nx, ny);
        let max_groups = limits.max_compute_workgroups_per_dimension;
        if groups.0 > max_groups || groups.1 > max_groups {
            return Err(BackendError::Invalid(format!(
                "{what} needs {}x{} workgroups, this device allows {max_groups} per dimension",
                groups.0, groups.1
            )));
        }
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let f = gpu.buffer(&format!("{what} field f"), field_bytes, usage)?;
        let g = gpu.buffer(&format!("{what} field g"), field_bytes, usage)?;
        let align = u64::from(limits.min_uniform_buffer_offset_alignment.max(1));
        let stride = (size_of::<Step>() as u64).div_ceil(align) * align;
        let steps_per_submit =
            (CELL_UPDATES_PER_SUBMIT / (2 * params.cells() as u64)).clamp(1, MAX_STEPS_PER_SUBMIT) as u32;
        let steps = gpu.buffer(
            "wave steps",
            2 * u64::from(steps_per_submit) * stride,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        let bind = |out: &wgpu::Buffer, input: &wgpu::Buffer| {
            gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wave update"),
                layout: &gpu.wave.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &steps,
                            offset: 0,
                            size: wgpu::BufferSize::new(size_of::<Step>() as u64),
                        }),
                    },
                    wgpu::BindGroupEntry { binding: 1, resource: out.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 2, resource: input.as_entire_binding() },
                ],
            })
        };
        let bind_groups = gpu.scoped("binding the wave fields", || [bind(&f, &g), bind(&g, &f)])?;
        let timer = Timer::new(&gpu)?;
        let frame = Frame::new(&gpu, nx, ny)?;
        let gpu_type = gpu.adapter.device_type;
        let mut wave = Self {
            gpu,
            params: *params,
            tstep: 0,
            fields: [f, g],
            bind_groups,
            steps,
            stride,
            steps_per_submit,
            kernel: WaveKernel::default_for(gpu_type),
            timer,
            tiled: None,
            staging: None,
            frame,
        };
        match std::env::var(KERNEL_ENV).ok().as_deref().map(str::trim) {
            Some("tune") => {
                if params.cells() >= TUNE_MIN_CELLS && wave.gpu.adapter.device_type != wgpu::DeviceType::Cpu {
                    wave.tune()?;
                } else {
                    wave.kernel = WaveKernel::Cells;
                    wave.reset()?;
                }
            }
            Some(name) if !name.is_empty() => {
                wave.kernel = WaveKernel::from_name(name).ok_or_else(|| {
                    BackendError::Invalid(format!("{KERNEL_ENV}={name}: expected cells, rows, tiled or tune"))
                })?;
                wave.reset()?;
            }
            _ => wave.reset()?,
        }
        Ok(wave)
    }

    /// The kernel this wave runs.
    #[must_use]
    pub fn kernel(&self) -> WaveKernel {
        self.kernel
    }

    /// Caps the time steps per submission (dispatches per submission for
    /// [`WaveKernel::Tiled`]) at `n >= 1`, below the watchdog-safe default: lets tests cover
    /// runs of several submissions on small grids.
    #[doc(hidden)]
    pub fn limit_steps_per_submit(&mut self, n: u32) {
        self.steps_per_submit = self.steps_per_submit.min(n.max(1));
    }

    /// Runs `kernel` from now on (all give the same bits; they differ in speed).
    pub fn set_kernel(&mut self, kernel: WaveKernel) {
        self.kernel = kernel;
    }

    /// Times every kernel for a few steps, keeps the fastest and returns it; the fields are
    /// reset. Which one wins depends on the GPU's caches and load units. New waves run
    /// [`WaveKernel::default_for`] their adapter unless `WAVEBROT_WGPU_WAVE` says otherwise; with
    /// `WAVEBROT_WGPU_WAVE=tune`, those of at least 2^20 cells on a GPU (not a software
    /// adapter) are tuned when they are made.
    ///
    /// # Errors
    /// A device failure.
    pub fn tune(&mut self) -> Result<WaveKernel, BackendError> {
        let mut best = (Duration::MAX, WaveKernel::Cells);
        for kernel in [WaveKernel::Cells, WaveKernel::Rows, WaveKernel::Tiled] {
            self.kernel = kernel;
            let mut fastest = Duration::MAX;
            for _ in 0..3 {
                fastest = fastest.min(self.advance(2 * TILED_STEPS)?.best());
            }
            log::debug!("wgpu wave {}x{}: {kernel:?} {fastest:?} per 8 steps", self.params.nx, self.params.ny);
            if fastest < best.0 {
                best = (fastest, kernel);
            }
        }
        self.kernel = best.1;
        log::info!("wgpu wave {}x{}: using {:?}", self.params.nx, self.params.ny, self.kernel);
        self.reset()?;
        Ok(self.kernel)
    }

    /// The step parameters of time steps `first..first + n` (two dispatches each).
    fn step_entries(&self, first: u32, n: u32) -> Vec<u8> {
        let p = &self.params;
        let src = p.source_index() as u32;
        let stride = self.stride as usize;
        let mut bytes = vec![0u8; 2 * n as usize * stride];
        for k in 0..n {
            let s = source_value(p.freq, first + k);
            let base = Step {
                nx: p.nx as u32,
                ny: p.ny as u32,
                src_in: NO_SOURCE,
                src_out: NO_SOURCE,
                c2: p.c2,
                s,
                opaque: 0,
                pad: 0,
            };
            // update(f, g) reads the source in g; update(g, f) writes into g.
            let entries = [Step { src_in: src, ..base }, Step { src_out: src, ..base }];
            for (e, entry) in entries.iter().enumerate() {
                let at = (2 * k as usize + e) * stride;
                bytes[at..at + size_of::<Step>()].copy_from_slice(bytemuck::bytes_of(entry));
            }
        }
        bytes
    }

    fn staging(&mut self) -> Result<&wgpu::Buffer, BackendError> {
        if self.staging.is_none() {
            let bytes = 4 * self.params.cells() as u64;
            self.staging = Some(self.gpu.buffer(
                "wave readback",
                bytes,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            )?);
        }
        self.staging.as_ref().ok_or_else(|| runtime("no readback buffer"))
    }

    /// A texture [`Self::colormap_into`] can draw into: `Rgba8Unorm`, `nx` wide and `ny` high
    /// (the seed's picture orientation), usable as a storage texture, for sampling (register
    /// it with `egui_wgpu::Renderer::register_native_texture`) and as a copy source.
    ///
    /// Made on this wave's device. A grid larger than the device's largest 2D texture gives an
    /// invalid texture (logged); [`Self::colormap_into`] then refuses it with a clear error.
    #[must_use]
    pub fn create_frame_texture(&self) -> wgpu::Texture {
        let device = &self.gpu.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("wavebrot wave frame"),
            size: wgpu::Extent3d {
                width: self.params.nx as u32,
                height: self.params.ny as u32,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::STORAGE_BINDING
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            log::error!("wgpu: cannot make a {}x{} frame texture: {e}", self.params.nx, self.params.ny);
        }
        texture
    }

    /// Draws the field `f` through matplotlib's `hot` (`vmin`..`vmax`, exactly as
    /// [`crate::sim::colormap::wave_rgba`] does) into `target`, all on the GPU: the app's
    /// zero-copy display path. `target` must be on this wave's device, `Rgba8Unorm`, `nx` wide and
    /// `ny` high, with `STORAGE_BINDING` usage (and `TEXTURE_BINDING` to draw it), such as
    /// [`Self::create_frame_texture`] makes. Picture row 0 (the top) is `j = ny - 1`, `i` runs
    /// to the right. The work is submitted to the queue and not waited for: draw the texture
    /// afterwards in the same queue.
    ///
    /// # Errors
    /// A texture of the wrong format, size or usage; a device failure.
    pub fn colormap_into(&mut self, vmin: f32, vmax: f32, target: &wgpu::Texture) -> Result<(), BackendError> {
        let (nx, ny) = (self.params.nx as u32, self.params.ny as u32);
        let max_dim = self.gpu.device.limits().max_texture_dimension_2d;
        if nx > max_dim || ny > max_dim {
            return Err(BackendError::Invalid(format!(
                "a {nx}x{ny} frame is larger than this device's largest texture ({max_dim}x{max_dim})"
            )));
        }
        if target.format() != wgpu::TextureFormat::Rgba8Unorm {
            return Err(BackendError::Invalid(format!("frame texture is {:?}, needs Rgba8Unorm", target.format())));
        }
        if (target.width(), target.height()) != (nx, ny) {
            return Err(BackendError::Invalid(format!(
                "frame texture is {}x{}, the wave needs {nx}x{ny}",
                target.width(),
                target.height()
            )));
        }
        if !target.usage().contains(wgpu::TextureUsages::STORAGE_BINDING) {
            return Err(BackendError::Invalid("frame texture lacks STORAGE_BINDING usage".into()));
        }
        let gpu = Arc::clone(&self.gpu);
        gpu.scoped("drawing the wave into a texture", || {
            self.frame.set_range(&gpu, vmin, vmax);
            let mut encoder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("wave colormap_into") });
            self.frame.encode_texture(&gpu, &mut encoder, &self.fields[0], target)?;
            gpu.queue.submit([encoder.finish()]);
            Ok(())
        })?
    }

    /// Runs `tsteps` whole time steps, in as few submissions as the watchdog allows.
    fn run_steps(&mut self, tsteps: u32) -> Result<(), BackendError> {
        match self.kernel {
            // One step cannot be split into an even number of tiled dispatches.
            WaveKernel::Tiled if tsteps > 1 => self.run_tiled(tsteps),
            WaveKernel::Tiled => self.run_single(WaveKernel::Cells, tsteps),
            kernel => self.run_single(kernel, tsteps),
        }
    }

    /// The second field pair and parameter buffer of the tiled kernel, made on first use.
    fn tiled(&mut self) -> Result<&Tiled, BackendError> {
        if self.tiled.is_none() {
            let gpu = &self.gpu;
            let (nx, ny) = (self.params.nx, self.params.ny);
            let what = format!("wave {nx}x{ny}");
            let bytes = 4 * self.params.cells() as u64;
            let usage = wgpu::BufferUsages::STORAGE;
            let f = gpu.buffer(&format!("{what} field f (tiled pair)"), bytes, usage)?;
            let g = gpu.buffer(&format!("{what} field g (tiled pair)"), bytes, usage)?;
            let align = u64::from(gpu.device.limits().min_uniform_buffer_offset_alignment.max(1));
            let stride = (size_of::<TiledSteps>() as u64).div_ceil(align) * align;
            // A tiled dispatch of TILED_STEPS steps moves about as many bytes as one step of the
            // one-update kernels: the same number of dispatches per submission keeps a
            // submission's time (and the watchdog margin) about the same.
            let capacity = (self.steps_per_submit.max(2) / 2) * 2;
            let steps = gpu.buffer(
                "wave tiled steps",
                u64::from(capacity) * stride,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            )?;
            let bind = |input: &[wgpu::Buffer; 2], out: &[wgpu::Buffer; 2]| {
                gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("wave tiled"),
                    layout: &gpu.wave.tiled_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: &steps,
                                offset: 0,
                                size: wgpu::BufferSize::new(size_of::<TiledSteps>() as u64),
                            }),
                        },
                        wgpu::BindGroupEntry { binding: 1, resource: input[0].as_entire_binding() },
                        wgpu::BindGroupEntry { binding: 2, resource: input[1].as_entire_binding() },
                        wgpu::BindGroupEntry { binding: 3, resource: out[0].as_entire_binding() },
                        wgpu::BindGroupEntry { binding: 4, resource: out[1].as_entire_binding() },
                    ],
                })
            };
            let second = [f, g];
            let bind_groups = gpu.scoped("binding the tiled wave fields", || {
                [bind(&self.fields, &second), bind(&second, &self.fields)]
            })?;
            self.tiled = Some(Tiled { _fields: second, bind_groups, steps, stride, capacity });
        }
        self.tiled.as_ref().ok_or_else(|| runtime("no tiled wave state"))
    }

    /// Runs `tsteps >= 2` time steps with `wave_tiled`: an even number of dispatches of at most
    /// [`TILED_STEPS`] steps each, so the fields end in the first pair.
    fn run_tiled(&mut self, tsteps: u32) -> Result<(), BackendError> {
        let mut n = tsteps.div_ceil(TILED_STEPS);
        if n % 2 == 1 {
            // tsteps >= 2 leaves at least one step for each of n + 1 dispatches.
            n += 1;
        }
        // Steps of dispatch k: as equal as possible.
        let count = |k: u32| tsteps / n + u32::from(k < tsteps % n);
        let gpu = Arc::clone(&self.gpu);
        let groups = WaveKernel::Tiled.groups(self.params.nx, self.params.ny);
        let p = self.params;
        let tstep0 = self.tstep;
        self.tiled()?;
        let tiled = self.tiled.as_ref().ok_or_else(|| runtime("no tiled wave state"))?;
        // Dispatches per submission: even, so that each submission ends in the first pair.
        let per_submit = ((self.steps_per_submit.max(2) / 2) * 2).min(tiled.capacity);
        let mut next_step = tstep0 + 1;
        for start in (0..n).step_by(per_submit as usize) {
            let chunk: Vec<u32> = (start..n.min(start + per_submit)).map(count).collect();
            let (first, last) = (start == 0, start + per_submit >= n);
            let stride = tiled.stride as usize;
            let mut bytes = vec![0u8; chunk.len() * stride];
            for (d, &count) in chunk.iter().enumerate() {
                let mut s = [0.0f32; TILED_STEPS as usize];
                for (k, v) in s.iter_mut().take(count as usize).enumerate() {
                    *v = source_value(p.freq, next_step + k as u32);
                }
                next_step += count;
                let entry = TiledSteps {
                    nx: p.nx as u32,
                    ny: p.ny as u32,
                    src_i: p.source.0 as u32,
                    src_j: p.source.1 as u32,
                    c2: p.c2,
                    opaque: 0,
                    nsteps: count,
                    pad: 0,
                    s,
                };
                bytes[d * stride..d * stride + size_of::<TiledSteps>()].copy_from_slice(bytemuck::bytes_of(&entry));
            }
            gpu.scoped("advancing the wave", || {
                gpu.queue.write_buffer(&tiled.steps, 0, &bytes);
                let mut encoder = gpu
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("wave tiled steps") });
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("wave tiled steps"),
                        timestamp_writes: self.timer.as_ref().filter(|_| first || last).map(|t| t.writes(first, last)),
                    });
                    pass.set_pipeline(&gpu.wave.tiled);
                    for d in 0..chunk.len() {
                        let offset = d as u64 * tiled.stride;
                        pass.set_bind_group(0, &tiled.bind_groups[d % 2], &[offset as u32]);
                        pass.dispatch_workgroups(groups.0, groups.1, 1);
                    }
                }
                if last && let Some(timer) = &self.timer {
                    timer.resolve(&mut encoder);
                }
                gpu.queue.submit([encoder.finish()]);
            })?;
        }
        Ok(())
    }

    /// Runs `tsteps` time steps with one of the one-update kernels, in place.
    fn run_single(&mut self, kernel: WaveKernel, tsteps: u32) -> Result<(), BackendError> {
        let gpu = Arc::clone(&self.gpu);
        let groups = kernel.groups(self.params.nx, self.params.ny);
        let pipeline = match kernel {
            WaveKernel::Rows => &gpu.wave.rows,
            _ => &gpu.wave.cells,
        };
        let mut done = 0;
        while done < tsteps {
            let n = self.steps_per_submit.min(tsteps - done);
            let (first, last) = (done == 0, done + n == tsteps);
            let entries = self.step_entries(self.tstep + done + 1, n);
            gpu.scoped("advancing the wave", || {
                gpu.queue.write_buffer(&self.steps, 0, &entries);
                let mut encoder =
                    gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("wave steps") });
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("wave steps"),
                        // Only the first and last pass of a run write timestamps; a pass in between
                        // must name none (wgpu refuses writes with neither index).
                        timestamp_writes: self.timer.as_ref().filter(|_| first || last).map(|t| t.writes(first, last)),
                    });
                    pass.set_pipeline(pipeline);
                    for d in 0..2 * n {
                        let offset = u64::from(d) * self.stride;
                        pass.set_bind_group(0, &self.bind_groups[(d % 2) as usize], &[offset as u32]);
                        pass.dispatch_workgroups(groups.0, groups.1, 1);
                    }
                }
                if last && let Some(timer) = &self.timer {
                    timer.resolve(&mut encoder);
                }
                gpu.queue.submit([encoder.finish()]);
            })?;
            done += n;
        }
        Ok(())
    }
}

impl WaveSim for WgpuWave {
    fn params(&self) -> &WaveParams {
        &self.params
    }

    fn tstep(&self) -> u32 {
        self.tstep
    }

    fn advance(&mut self, tsteps: u32) -> Result<Timing, BackendError> {
        let start = Instant::now();
        if tsteps == 0 {
            return Ok(Timing::wall(start.elapsed()));
        }
        let run = self.run_steps(tsteps);
        // Whatever happened, the steps that were submitted have run once we return.
        let waited = self.gpu.wait();
        run?;
        waited?;
        self.tstep += tsteps;
        let device = match &self.timer {
            Some(timer) => timer.elapsed(&self.gpu)?,
            None => None,
        };
        let wall = start.elapsed();
        Ok(match device {
            Some(d) => Timing { wall, device: Some(d), source: crate::backend::TimingSource::TimestampQueries },
            None => Timing::wall(wall),
        })
    }

    fn read_field(&mut self, out: &mut [f32]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        if out.len() != self.params.cells() {
            return Err(BackendError::Invalid(format!(
                "output holds {} values, field has {}",
                out.len(),
                self.params.cells()
            )));
        }
        let gpu = Arc::clone(&self.gpu);
        let bytes = 4 * self.params.cells() as u64;
        let field = self.fields[0].clone();
        let staging = self.staging()?.clone();
        gpu.scoped("copying the field to the host", || {
            let mut encoder =
                gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("read field") });
            encoder.copy_buffer_to_buffer(&field, 0, &staging, 0, bytes);
            gpu.queue.submit([encoder.finish()]);
        })?;
        gpu.read_back(&staging, bytes, |b| out.copy_from_slice(bytemuck::cast_slice(b)))?;
        Ok(Timing::wall(start.elapsed()))
    }

    fn render_rgba(&mut self, vmin: f32, vmax: f32, rgba: &mut [u8]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        let bytes = 4 * self.params.cells();
        if rgba.len() != bytes {
            return Err(BackendError::Invalid(format!("RGBA buffer holds {} bytes, frame needs {bytes}", rgba.len())));
        }
        let gpu = Arc::clone(&self.gpu);
        let staging = self.staging()?.clone();
        self.frame.ensure_buffer(&gpu, &self.fields[0])?;
        gpu.scoped("drawing the wave", || {
            self.frame.set_range(&gpu, vmin, vmax);
            let mut encoder =
                gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("render rgba") });
            self.frame.encode_buffer(&gpu, &mut encoder, &staging);
            gpu.queue.submit([encoder.finish()]);
        })?;
        gpu.read_back(&staging, bytes as u64, |b| rgba.copy_from_slice(b))?;
        Ok(Timing::wall(start.elapsed()))
    }

    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError> {
        self.params = self.params.with_source(i, j).map_err(BackendError::Invalid)?;
        Ok(())
    }

    fn set_freq(&mut self, freq: f64) {
        self.params.freq = freq;
    }

    fn reset(&mut self) -> Result<(), BackendError> {
        let gpu = Arc::clone(&self.gpu);
        gpu.scoped("clearing the wave fields", || {
            let mut encoder =
                gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("wave reset") });
            for field in &self.fields {
                encoder.clear_buffer(field, 0, None);
            }
            gpu.queue.submit([encoder.finish()]);
        })?;
        gpu.wait()?;
        self.tstep = 0;
        Ok(())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
