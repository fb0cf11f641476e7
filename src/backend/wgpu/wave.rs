//! The wave on the GPU: two `f32` fields stepped in place, in one of two kernel variants
//! ([`WaveVariant`]), both the CPU's bits on llvmpipe:
//!
//! - `simple` (`shaders/wave.wgsl`, here): one time step is two dispatches, `update(f, g)` then
//!   `update(g, f)`, with the source fused into them (see the shader). CPU twin: `wave_update`
//!   in `src/backend/cpu/wave.rs`.
//! - `blocked` (`shaders/wave_blocked.wgsl`, `wave_blocked.rs`): up to
//!   [`wave_blocked::STEPS_PER_DISPATCH`] time steps per dispatch by temporal blocking; it reads
//!   one pair of fields and writes another, and every advance runs an even number of dispatches,
//!   so the state always ends in the first pair. The default on GPUs.
//! - `blocked-workgroup` (`shaders/wave_blocked_workgroup.wgsl`): the first blocked kernel,
//!   the same way round; what `blocked` runs on a device with too little workgroup memory.
//!
//! The fields never leave the GPU between steps: a batch of steps is one command buffer with
//! one compute pass, its per-dispatch parameters (the source value of each step, computed on
//! the host in `f64` as the CPU does) uploaded once and picked with dynamic uniform offsets.
//!
//! Size: over 500 lines: one type, `WgpuWave`, with its pipelines, its zero-copy texture path
//! and the `WaveSim` methods; the blocked and scene kernels are their own files.

use std::sync::Arc;
use web_time::Instant;

use super::colormap::Frame;
use super::field::FIELD_SCALE;
use super::layout::{Binding, bind_group, bind_group_layout, record};
use super::wave_blocked::{self, Blocked};
use super::wave_scene::{self, SceneGpu};
use super::wave_scene_blocked;
use super::{Gpu, Guards, KIND, Timer, runtime};
use crate::backend::{BackendError, Timing, WaveSim, WaveVariant, check_fits};
use crate::sim::wave::scene::{Scene, Source};
use crate::sim::wave::{WaveParams, source_value};

#[path = "wave_frames.rs"]
mod frames;

/// Workgroup of the `simple` shader: 32 cells along `j` (the fast index) by 8 rows along `i`.
const TILE_J: u32 = 32;
const TILE_I: u32 = 8;

/// The variant a new wave runs for `Auto` on an adapter of this type: `blocked-workgroup` on
/// GPUs (on the H100 it measured 32.6 µs per update at 4096² and 128 at 8192², against 52.6 and
/// 217 for the subgroup `blocked` kernel: docs/PERFORMANCE.md), `simple` on software adapters,
/// where the shader runs on the CPU and a blocked kernel's recomputed halo costs more than the
/// memory traffic it saves (llvmpipe: 6.7 against 4.5 ms per update at 1000x800).
#[must_use]
pub fn default_variant(device_type: wgpu::DeviceType) -> WaveVariant {
    if device_type == wgpu::DeviceType::Cpu { WaveVariant::Simple } else { WaveVariant::BlockedWorkgroup }
}

/// Workgroups of the `simple` kernel for an `nx x ny` grid.
fn simple_groups(nx: usize, ny: usize) -> (u32, u32) {
    (ny.div_ceil(TILE_J as usize) as u32, nx.div_ceil(TILE_I as usize) as u32)
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

/// The wave pipelines of both variants, compiled once per device.
pub(crate) struct Pipeline {
    layout: wgpu::BindGroupLayout,
    simple: wgpu::ComputePipeline,
    pub(super) blocked: wave_blocked::Pipeline,
    pub(super) scene: wave_scene::Pipeline,
    /// The blocked scene kernel's pipelines, compiled on a scene's first blocked advance.
    scene_blocked: std::sync::OnceLock<wave_scene_blocked::Pipeline>,
    order: super::shader::Order,
    products: super::shader::Products,
}

impl Pipeline {
    pub fn new(
        device: &wgpu::Device,
        order: super::shader::Order,
        products: super::shader::Products,
    ) -> Result<Self, BackendError> {
        // The step record, the field written, the field read.
        let kinds = [Binding::DynamicUniform(size_of::<Step>()), Binding::ReadWrite, Binding::ReadOnly];
        let layout = bind_group_layout(device, "wave", &kinds);
        let source = super::shader::wave(order);
        let simple =
            super::compute_pipeline_with(device, "wave.wgsl", &source, &[("wave_update", &layout)], Guards::FENCED)?
                .pop()
                .ok_or_else(|| runtime("no wave pipeline"))?;
        Ok(Self {
            layout,
            simple,
            blocked: wave_blocked::Pipeline::new(device, order)?,
            scene: wave_scene::Pipeline::new(device, products)?,
            scene_blocked: std::sync::OnceLock::new(),
            order,
            products,
        })
    }

    /// How the scene kernels find a product's rounding error on this device.
    pub(super) fn products(&self) -> super::shader::Products {
        self.products
    }

    /// The blocked scene kernel's pipelines, compiled on first use.
    pub(super) fn scene_blocked(&self, device: &wgpu::Device) -> Result<&wave_scene_blocked::Pipeline, BackendError> {
        if let Some(p) = self.scene_blocked.get() {
            return Ok(p);
        }
        let p = wave_scene_blocked::Pipeline::new(device, self.order, self.products)?;
        Ok(self.scene_blocked.get_or_init(|| p))
    }
}

/// A wave problem on a wgpu device.
///
/// Reach it from a `Box<dyn WaveSim>` with `sim.as_any_mut().downcast_mut::<WgpuWave>()`, or
/// make it directly with [`super::WgpuBackend::new_wgpu_wave`]. Besides [`WaveSim`] it draws
/// into a texture without a copy to the host: [`WgpuWave::create_frame_texture`] and
/// [`WgpuWave::colormap_into`].
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
    /// The kernel variant it runs (never `Auto`).
    variant: WaveVariant,
    timer: Option<Timer>,
    /// The second pair of fields and the parameters of the `blocked` kernel (made on first use).
    blocked: Option<Blocked>,
    /// The lanes `blocked` runs where a test forced them (`force_blocked_lanes`).
    lanes: Option<wave_blocked::Lanes>,
    /// Host-visible copy target for `read_field` and `render_rgba` (made on first use).
    staging: Option<wgpu::Buffer>,
    frame: Frame,
    /// The scene it runs in place of the plain kernels, when it runs one.
    scene: Option<SceneGpu>,
}

impl WgpuWave {
    pub(crate) fn new(gpu: Arc<Gpu>, params: &WaveParams, variant: WaveVariant) -> Result<Self, BackendError> {
        params.validate()?;
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
        let groups = simple_groups(nx, ny);
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
            let resources = vec![
                Some(record(&steps, size_of::<Step>())),
                Some(out.as_entire_binding()),
                Some(input.as_entire_binding()),
            ];
            bind_group(&gpu.device, "wave update", &gpu.wave.layout, resources)
        };
        let bind_groups = gpu.scoped("binding the wave fields", || [bind(&f, &g), bind(&g, &f)])?;
        let timer = Timer::new(&gpu)?;
        let frame = Frame::new(&gpu, nx, ny, FIELD_SCALE)?;
        let variant = match variant {
            WaveVariant::Auto => default_variant(gpu.adapter.device_type),
            concrete => concrete,
        };
        let mut wave = Self {
            gpu,
            params: *params,
            tstep: 0,
            fields: [f, g],
            bind_groups,
            steps,
            stride,
            steps_per_submit,
            variant,
            timer,
            blocked: None,
            lanes: None,
            staging: None,
            frame,
            scene: None,
        };
        wave.reset()?;
        Ok(wave)
    }

    /// A scene that is not the seed's rule (zero fields): the scene kernel, `blocked`
    /// (`shaders/wave_scene_blocked.wgsl`: `auto` on GPUs, and for `blocked-workgroup`, the plain
    /// variant a wave of another `c2` asks for) or `simple` (one update per dispatch: `auto` on
    /// software adapters, where a blocked kernel's recomputed halo costs more than it saves).
    pub(crate) fn new_scene(gpu: Arc<Gpu>, scene: &Scene, variant: WaveVariant) -> Result<Self, BackendError> {
        scene.validate()?;
        let variant = match variant {
            WaveVariant::Auto if gpu.adapter.device_type == wgpu::DeviceType::Cpu => WaveVariant::Simple,
            // Where the matched layer's tiles are a large share of the grid, they cost the
            // blocked kernel more than it saves (`LAYER_SHARE_BLOCKED`).
            WaveVariant::Auto
                if scene.boundary == crate::sim::wave::scene::Boundary::Absorbing
                    && wave_scene_blocked::layer_tile_share(scene.nx, scene.ny)
                        > wave_scene_blocked::LAYER_SHARE_BLOCKED =>
            {
                WaveVariant::Simple
            }
            WaveVariant::Simple => WaveVariant::Simple,
            WaveVariant::Auto | WaveVariant::Blocked | WaveVariant::BlockedWorkgroup => WaveVariant::Blocked,
        };
        let mut wave = Self::new(gpu, &scene.summary_params(), WaveVariant::Simple)?;
        let blocked = variant == WaveVariant::Blocked;
        wave.scene = Some(SceneGpu::new(&wave.gpu, &wave.fields, scene, wave.steps_per_submit, blocked)?);
        wave.variant = variant;
        Ok(wave)
    }

    /// Caps the time steps per submission (dispatches per submission for the `blocked`
    /// kernel) at `n >= 1`, below the watchdog-safe default: lets tests cover
    /// runs of several submissions on small grids.
    #[doc(hidden)]
    pub fn limit_steps_per_submit(&mut self, n: u32) {
        self.steps_per_submit = self.steps_per_submit.min(n.max(1));
    }

    /// The step parameters of time steps `first..first + n` (two dispatches each).
    fn step_entries(&self, first: u32, n: u32) -> Vec<u8> {
        let p = &self.params;
        let src = p.source_index() as u32;
        let stride = self.stride as usize;
        let mut bytes = vec![0u8; 2 * n as usize * stride];
        for k in 0..n {
            let s = source_value(p.freq, first + k) * FIELD_SCALE;
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

    /// Runs `tsteps` whole time steps, in as few submissions as the watchdog allows.
    fn run_steps(&mut self, tsteps: u32) -> Result<(), BackendError> {
        if let Some(scene) = &self.scene {
            return scene.run(&self.gpu, self.tstep, tsteps, self.timer.as_ref());
        }
        // One step cannot be split into an even number of blocked dispatches.
        let Some(kernel) = self.blocked_kernel() else { return self.run_simple(tsteps) };
        if tsteps < 2 {
            return self.run_simple(tsteps);
        }
        if self.blocked.as_ref().is_none_or(|b| b.kernel() != kernel) {
            self.blocked = Some(Blocked::new(&self.gpu, &self.fields, &self.params, self.steps_per_submit, kernel)?);
        }
        let blocked = self.blocked.as_ref().ok_or_else(|| runtime("no blocked wave state"))?;
        blocked.run(&self.gpu, &self.params, self.tstep, tsteps, self.steps_per_submit, self.timer.as_ref())
    }

    /// The blocked kernel its variant runs, if a blocked one.
    fn blocked_kernel(&self) -> Option<wave_blocked::Kernel> {
        match self.variant {
            WaveVariant::Blocked => {
                Some(self.lanes.map_or_else(|| self.gpu.wave.blocked.blocked_kernel(), wave_blocked::Kernel::Blocked))
            }
            WaveVariant::BlockedWorkgroup => Some(wave_blocked::Kernel::Workgroup),
            WaveVariant::Auto | WaveVariant::Simple => None,
        }
    }

    /// The blocked kernel it runs for advances of two steps or more (`None`: `simple`).
    #[must_use]
    pub fn blocked_kernel_name(&self) -> Option<&'static str> {
        self.blocked_kernel().map(|k| match k {
            wave_blocked::Kernel::Blocked(wave_blocked::Lanes::Subgroup) => "wave_blocked, subgroup shuffles",
            wave_blocked::Kernel::Blocked(wave_blocked::Lanes::Workgroup) => "wave_blocked, workgroup memory",
            wave_blocked::Kernel::Workgroup => "wave_blocked_workgroup",
        })
    }

    /// Makes the `blocked` variant run `wave_blocked.wgsl` with `lanes` whatever the device
    /// offers (for tests: the workgroup-memory lanes on a device with subgroups). Subgroup lanes
    /// on a device without `SUBGROUP` fail when the next advance compiles them.
    pub fn force_blocked_lanes(&mut self, lanes: wave_blocked::Lanes) {
        self.lanes = Some(lanes);
    }

    /// Runs `tsteps` time steps with the `simple` kernel, in place.
    fn run_simple(&mut self, tsteps: u32) -> Result<(), BackendError> {
        let gpu = Arc::clone(&self.gpu);
        let groups = simple_groups(self.params.nx, self.params.ny);
        let pipeline = &gpu.wave.simple;
        let mut done = 0;
        let mut pass = 0;
        while done < tsteps {
            let n = self.steps_per_submit.min(tsteps - done);
            let last = done + n == tsteps;
            let entries = self.step_entries(self.tstep + done + 1, n);
            gpu.scoped("advancing the wave", || {
                gpu.queue.write_buffer(&self.steps, 0, &entries);
                let mut encoder =
                    gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("wave steps") });
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("wave steps"),
                        // Each pass times itself (`Timer`): the host's work between them is not kernel time.
                        timestamp_writes: self.timer.as_ref().and_then(|t| t.writes(pass, last)),
                    });
                    pass.set_pipeline(pipeline);
                    for d in 0..2 * n {
                        let offset = u64::from(d) * self.stride;
                        pass.set_bind_group(0, &self.bind_groups[(d % 2) as usize], &[offset as u32]);
                        pass.dispatch_workgroups(groups.0, groups.1, 1);
                    }
                }
                if last && let Some(timer) = &self.timer {
                    timer.resolve(&mut encoder, pass + 1);
                }
                gpu.queue.submit([encoder.finish()]);
            })?;
            done += n;
            pass += 1;
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
        self.copy_field(0, out)?;
        Ok(Timing::wall(start.elapsed()))
    }

    fn read_fields(&mut self, f: &mut [f32], g: &mut [f32]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        self.copy_field(0, f)?;
        self.copy_field(1, g)?;
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
        // The app's frame profile tells colouring (and the copy into the staging buffer) from
        // the copy to the host.
        gpu.wait()?;
        puffin::profile_scope!("copy");
        gpu.read_back(&staging, bytes as u64, |b| rgba.copy_from_slice(b))?;
        Ok(Timing::wall(start.elapsed()))
    }

    fn scene(&self) -> Scene {
        self.scene.as_ref().map_or_else(|| Scene::from_params(&self.params), |s| s.scene().clone())
    }

    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError> {
        if let Some(sc) = self.scene.as_mut() {
            let scene = sc.scene().with_first_source_at(i, j)?;
            self.params = scene.summary_params();
            return sc.set_sources(&self.gpu, scene);
        }
        self.params = self.params.with_source(i, j)?;
        Ok(())
    }

    fn write_fields(&mut self, f: &[f32], g: &[f32], tstep: u32) -> Result<(), BackendError> {
        crate::backend::check_field_sizes(f, g, self.params.cells())?;
        let gpu = Arc::clone(&self.gpu);
        // The device holds the fields scaled by FIELD_SCALE (as `copy_field` undoes).
        let scaled = |v: &[f32]| v.iter().map(|&x| x * FIELD_SCALE).collect::<Vec<f32>>();
        let (f, g) = (scaled(f), scaled(g));
        gpu.scoped("writing the wave fields", || {
            gpu.queue.write_buffer(&self.fields[0], 0, bytemuck::cast_slice(&f));
            gpu.queue.write_buffer(&self.fields[1], 0, bytemuck::cast_slice(&g));
            if let Some(sc) = &self.scene {
                let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
                sc.clear_aux(&mut encoder);
                gpu.queue.submit([encoder.finish()]);
            }
        })?;
        gpu.wait()?;
        self.tstep = tstep;
        Ok(())
    }

    fn set_sources(&mut self, sources: &[Source]) -> Result<(), BackendError> {
        let Some(sc) = self.scene.as_mut() else {
            return Err(BackendError::Invalid("this problem runs the plain kernel: open the scene instead".to_owned()));
        };
        let scene = crate::backend::scene_with_sources(sc.scene(), sources)?;
        self.params = scene.summary_params();
        sc.set_sources(&self.gpu, scene)
    }

    fn set_freq(&mut self, freq: f64) {
        self.params.freq = freq;
        if let Some(sc) = self.scene.as_mut() {
            sc.set_freq(freq);
        }
    }

    fn reset(&mut self) -> Result<(), BackendError> {
        let gpu = Arc::clone(&self.gpu);
        gpu.scoped("clearing the wave fields", || {
            let mut encoder =
                gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("wave reset") });
            for field in &self.fields {
                encoder.clear_buffer(field, 0, None);
            }
            if let Some(sc) = &self.scene {
                sc.clear_aux(&mut encoder);
            }
            gpu.queue.submit([encoder.finish()]);
        })?;
        gpu.wait()?;
        self.tstep = 0;
        Ok(())
    }

    fn variant(&self) -> Option<WaveVariant> {
        Some(self.variant)
    }

    fn kernel_note(&self) -> Option<String> {
        self.scene.as_ref().map(SceneGpu::kernel_name)
    }

    fn dram_bytes_per_update(&self, tsteps: u32) -> Option<f64> {
        if self.scene.is_some() {
            return None;
        }
        // As `run_steps`: one step always runs the simple kernel.
        if self.blocked_kernel().is_some() && tsteps >= 2 {
            return Some(wave_blocked::DESIGN.bytes_per_update(tsteps, wave_blocked::dispatches(tsteps)));
        }
        Some(crate::sim::wave::BYTES_PER_CELL_UPDATE as f64)
    }
}
