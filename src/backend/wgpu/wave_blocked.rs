//! The temporal-blocking wave kernels on the GPU: up to [`STEPS_PER_DISPATCH`] time steps per
//! dispatch, reading one pair of fields and writing a second, alternately.
//! [`super::wave::WgpuWave`] owns the first pair and runs one of them for advances of two or more
//! steps:
//! - `blocked`: `shaders/wave_blocked.wgsl`, the WGSL twin of CUDA's `wave_steps` in
//!   `kernels/wave.cu` (2 columns x 8 rows per invocation, one barrier per update, neighbours
//!   along `j` by subgroup shuffles where the device has `SUBGROUP`: [`Lanes`]). It needs
//!   [`WORKGROUP_BYTES`] of workgroup memory; a device with less runs the next one instead.
//! - `blocked-workgroup`: `shaders/wave_blocked_workgroup.wgsl`, the first blocked kernel (a column of
//!   16 cells per invocation, every neighbour through 16 KiB of workgroup memory, two barriers
//!   per update), kept for A/B and small devices.
//!
//! Both have the same tiles (64x64, output 48x48) and dispatch shape.

use std::sync::Arc;

use super::field::FIELD_SCALE;
use super::layout::{Binding, bind_group, bind_group_layout, record};
use super::shader::Order;
use super::{Gpu, Guards, Timer, runtime};
use crate::backend::BackendError;
use crate::sim::wave::{WaveParams, source_value};

/// Most time steps one dispatch runs (`K / 2` in the shader).
pub const STEPS_PER_DISPATCH: u32 = 4;
/// The output block of one workgroup (`OJ`, `OI` in the shader).
const OUT: u32 = 48;

/// The tile of the shader (`TJ x TI`, halo included) and its output block, for the traffic model.
pub const DESIGN: crate::backend::BlockedDesign =
    crate::backend::BlockedDesign { tile: (OUT + 16, OUT + 16), out: (OUT, OUT) };

/// Dispatches `Blocked::run` makes for `tsteps >= 2` time steps: an even count, at most
/// [`STEPS_PER_DISPATCH`] steps each.
#[must_use]
pub fn dispatches(tsteps: u32) -> u32 {
    let n = tsteps.div_ceil(STEPS_PER_DISPATCH);
    n + n % 2
}

/// One dispatch's parameters (`Steps` in `shaders/parts/wave_steps_bindings.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct BlockedSteps {
    nx: u32,
    ny: u32,
    src_i: u32,
    src_j: u32,
    c2: f32,
    /// Always 0 (lets the shader's `exact` keep every rounding step).
    opaque: u32,
    /// Time steps of this dispatch, `1..=STEPS_PER_DISPATCH`.
    nsteps: u32,
    pad: u32,
    /// The source value of each of those steps.
    s: [f32; STEPS_PER_DISPATCH as usize],
}

/// Workgroup memory of `shaders/wave_blocked.wgsl`: the edge rows, double-buffered (8 KiB), the
/// side columns (16 KiB) and two counters.
pub const WORKGROUP_BYTES: u32 = 24 * 1024 + 8;

/// How the invocations of `shaders/wave_blocked.wgsl` reach their neighbours along `j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// Subgroup shuffles where the neighbour is the next lane of the same subgroup (checked in
    /// the shader, per invocation), workgroup memory where it is not: with `SUBGROUP`.
    Subgroup,
    /// Workgroup memory for every neighbour: without `SUBGROUP`.
    Workgroup,
}

impl Lanes {
    /// The lanes a device runs: shuffles where it has `SUBGROUP`.
    #[must_use]
    pub fn of(device: &wgpu::Device) -> Self {
        if device.features().contains(wgpu::Features::SUBGROUP) { Self::Subgroup } else { Self::Workgroup }
    }
}

/// Which kernel a wave's blocked dispatches run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// `shaders/wave_blocked.wgsl` with these lanes.
    Blocked(Lanes),
    /// `shaders/wave_blocked_workgroup.wgsl`.
    Workgroup,
}

/// The blocked pipelines, compiled once per device.
pub(crate) struct Pipeline {
    layout: wgpu::BindGroupLayout,
    order: Order,
    /// `wave_blocked.wgsl` with the device's lanes; `None` where the device has less than
    /// [`WORKGROUP_BYTES`] of workgroup memory.
    blocked: Option<(Lanes, wgpu::ComputePipeline)>,
    /// `wave_blocked_workgroup.wgsl`.
    workgroup: wgpu::ComputePipeline,
}

impl Pipeline {
    pub fn new(device: &wgpu::Device, order: Order) -> Result<Self, BackendError> {
        use Binding::{DynamicUniform, ReadOnly, ReadWrite};
        // The step record, f and g in, f and g out.
        let kinds = [DynamicUniform(size_of::<BlockedSteps>()), ReadOnly, ReadOnly, ReadWrite, ReadWrite];
        let layout = bind_group_layout(device, "wave blocked", &kinds);
        let source = super::shader::wave_blocked_workgroup(order);
        let workgroup = super::compute_pipeline_with(
            device,
            "wave_blocked_workgroup.wgsl",
            &source,
            &[("wave_blocked_workgroup", &layout)],
            Guards::IN_RANGE_BY_THE_SHADER,
        )?
        .pop()
        .ok_or_else(|| runtime("no blocked-workgroup wave pipeline"))?;
        let blocked = if device.limits().max_compute_workgroup_storage_size >= WORKGROUP_BYTES {
            let lanes = Lanes::of(device);
            Some((lanes, Self::compile(device, &layout, order, lanes)?))
        } else {
            None
        };
        Ok(Self { layout, order, blocked, workgroup })
    }

    /// `wave_blocked.wgsl` with `lanes`. Every workgroup-memory read follows a write of the same
    /// update, and the counter is set first, so the memory is not zeroed at the start of each workgroup (24 KiB
    /// of stores).
    fn compile(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        order: Order,
        lanes: Lanes,
    ) -> Result<wgpu::ComputePipeline, BackendError> {
        let source = super::shader::wave_blocked(order, lanes == Lanes::Subgroup);
        let file = match lanes {
            Lanes::Subgroup => "wave_blocked.wgsl + parts/lanes_subgroup.wgsl",
            Lanes::Workgroup => "wave_blocked.wgsl + parts/lanes_workgroup.wgsl",
        };
        let guards = Guards { zero_workgroup_memory: false, ..Guards::IN_RANGE_BY_THE_SHADER };
        super::compute_pipeline_with(device, file, &source, &[("wave_blocked", layout)], guards)?
            .pop()
            .ok_or_else(|| runtime("no blocked wave pipeline"))
    }

    /// The kernel a `blocked` wave runs on this device.
    pub fn blocked_kernel(&self) -> Kernel {
        self.blocked.as_ref().map_or(Kernel::Workgroup, |(lanes, _)| Kernel::Blocked(*lanes))
    }

    /// The pipeline of `kernel`: compiled on demand where it is not the device's own (a test
    /// runs `wave_blocked.wgsl` without subgroups on a device that has them).
    pub fn pipeline(&self, device: &wgpu::Device, kernel: Kernel) -> Result<wgpu::ComputePipeline, BackendError> {
        match (kernel, &self.blocked) {
            (Kernel::Workgroup, _) => Ok(self.workgroup.clone()),
            (Kernel::Blocked(lanes), Some((own, pipeline))) if lanes == *own => Ok(pipeline.clone()),
            (Kernel::Blocked(lanes), _) => Self::compile(device, &self.layout, self.order, lanes),
        }
    }
}

/// Workgroups for an `nx x ny` grid.
fn groups(nx: usize, ny: usize) -> (u32, u32) {
    let out = OUT as usize;
    (ny.div_ceil(out) as u32, nx.div_ceil(out) as u32)
}

/// What the `blocked` kernel needs besides the wave's fields: a second pair `(f, g)`, the bind
/// groups `[pair 0 -> pair 1, pair 1 -> pair 0]` and the per-dispatch parameters of one
/// submission.
pub(crate) struct Blocked {
    _fields: [wgpu::Buffer; 2],
    /// The kernel it runs and its pipeline.
    kernel: Kernel,
    pipeline: wgpu::ComputePipeline,
    bind_groups: [wgpu::BindGroup; 2],
    steps: wgpu::Buffer,
    stride: u64,
    /// Dispatches `steps` holds parameters for (even).
    capacity: u32,
}

impl Blocked {
    /// The second pair for a wave whose first pair is `fields`, with room for the dispatches of
    /// one submission of `steps_per_submit`, running `kernel`.
    pub fn new(
        gpu: &Gpu,
        fields: &[wgpu::Buffer; 2],
        params: &WaveParams,
        steps_per_submit: u32,
        kernel: Kernel,
    ) -> Result<Self, BackendError> {
        let pipeline = gpu.wave.blocked.pipeline(&gpu.device, kernel)?;
        let (nx, ny) = (params.nx, params.ny);
        let what = format!("wave {nx}x{ny}");
        let bytes = 4 * params.cells() as u64;
        let usage = wgpu::BufferUsages::STORAGE;
        let f = gpu.buffer(&format!("{what} field f (blocked pair)"), bytes, usage)?;
        let g = gpu.buffer(&format!("{what} field g (blocked pair)"), bytes, usage)?;
        let align = u64::from(gpu.device.limits().min_uniform_buffer_offset_alignment.max(1));
        let stride = (size_of::<BlockedSteps>() as u64).div_ceil(align) * align;
        // A blocked dispatch of STEPS_PER_DISPATCH steps moves about as many bytes as one step of the
        // one-update kernels: the same number of dispatches per submission keeps a
        // submission's time (and the watchdog margin) about the same.
        let capacity = (steps_per_submit.max(2) / 2) * 2;
        let steps = gpu.buffer(
            "wave blocked steps",
            u64::from(capacity) * stride,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        let bind = |input: &[wgpu::Buffer; 2], out: &[wgpu::Buffer; 2]| {
            let resources = vec![
                Some(record(&steps, size_of::<BlockedSteps>())),
                Some(input[0].as_entire_binding()),
                Some(input[1].as_entire_binding()),
                Some(out[0].as_entire_binding()),
                Some(out[1].as_entire_binding()),
            ];
            bind_group(&gpu.device, "wave blocked", &gpu.wave.blocked.layout, resources)
        };
        let second = [f, g];
        let bind_groups =
            gpu.scoped("binding the blocked wave fields", || [bind(fields, &second), bind(&second, fields)])?;
        Ok(Self { _fields: second, kernel, pipeline, bind_groups, steps, stride, capacity })
    }

    /// The kernel it runs.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Runs `tsteps >= 2` time steps from time step `tstep0`: an even number of dispatches of at
    /// most [`STEPS_PER_DISPATCH`] steps each, so the fields end in the first pair.
    pub fn run(
        &self,
        gpu: &Arc<Gpu>,
        p: &WaveParams,
        tstep0: u32,
        tsteps: u32,
        steps_per_submit: u32,
        timer: Option<&Timer>,
    ) -> Result<(), BackendError> {
        // tsteps >= 2 leaves at least one step for each of an even number of dispatches.
        let n = dispatches(tsteps);
        // Steps of dispatch k: as equal as possible.
        let count = |k: u32| tsteps / n + u32::from(k < tsteps % n);
        let groups = groups(p.nx, p.ny);
        // Dispatches per submission: even, so that each submission ends in the first pair.
        let per_submit = ((steps_per_submit.max(2) / 2) * 2).min(self.capacity);
        let mut next_step = tstep0 + 1;
        for start in (0..n).step_by(per_submit as usize) {
            let chunk: Vec<u32> = (start..n.min(start + per_submit)).map(count).collect();
            let (pass, last) = (start / per_submit, start + per_submit >= n);
            let stride = self.stride as usize;
            let mut bytes = vec![0u8; chunk.len() * stride];
            for (d, &count) in chunk.iter().enumerate() {
                let mut s = [0.0f32; STEPS_PER_DISPATCH as usize];
                for (k, v) in s.iter_mut().take(count as usize).enumerate() {
                    *v = source_value(p.freq, next_step + k as u32) * FIELD_SCALE;
                }
                next_step += count;
                let entry = BlockedSteps {
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
                bytes[d * stride..d * stride + size_of::<BlockedSteps>()].copy_from_slice(bytemuck::bytes_of(&entry));
            }
            gpu.scoped("advancing the wave", || {
                gpu.queue.write_buffer(&self.steps, 0, &bytes);
                let mut encoder = gpu
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("wave blocked steps") });
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("wave blocked steps"),
                        timestamp_writes: timer.and_then(|t| t.writes(pass, last)),
                    });
                    pass.set_pipeline(&self.pipeline);
                    for d in 0..chunk.len() {
                        let offset = d as u64 * self.stride;
                        pass.set_bind_group(0, &self.bind_groups[d % 2], &[offset as u32]);
                        pass.dispatch_workgroups(groups.0, groups.1, 1);
                    }
                }
                if last && let Some(timer) = timer {
                    timer.resolve(&mut encoder, pass + 1);
                }
                gpu.queue.submit([encoder.finish()]);
            })?;
        }
        Ok(())
    }
}
