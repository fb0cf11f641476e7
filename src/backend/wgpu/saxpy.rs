//! The SAXPY lesson on wgpu: `shaders/saxpy.wgsl`, the twin of `kernels/saxpy.cu` and
//! `src/backend/cpu/saxpy.rs`. The pipeline is built per call (a lesson runs it once). Times the
//! upload of `x` and `y` (written and waited for), the dispatch (GPU timestamps where the adapter
//! has them, else the wall clock around submit and wait) and the copy of `y` back.

use web_time::{Duration, Instant};

use super::layout::{Binding, ComputeKernel};
use super::{Gpu, Timer};
use crate::backend::{BackendError, LessonTiming, TimingSource};

const SAXPY: &str = include_str!("../../../shaders/saxpy.wgsl");

/// `Params` of the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    a: f32,
    stride: u32,
    pad: u32,
}

/// Workgroups of 256 for `n` elements, at most the device's per-dimension limit (grid-stride).
pub(super) fn groups(gpu: &Gpu, n: usize) -> u32 {
    let max = gpu.device.limits().max_compute_workgroups_per_dimension;
    (n.div_ceil(256) as u64).clamp(1, u64::from(max)) as u32
}

/// Runs one dispatch of `pipeline` with `bind` and returns its time and where it came from.
pub(super) fn timed_dispatch(
    gpu: &Gpu,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    groups: u32,
) -> Result<(Duration, TimingSource), BackendError> {
    let timer = Timer::new(gpu)?;
    let start = Instant::now();
    gpu.scoped("running a lesson kernel", || {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("lesson") });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("lesson"),
                timestamp_writes: timer.as_ref().and_then(|t| t.writes(0, true)),
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        if let Some(t) = &timer {
            t.resolve(&mut encoder, 1);
        }
        gpu.queue.submit([encoder.finish()]);
    })?;
    gpu.wait()?;
    let wall = start.elapsed();
    Ok(match timer.map(|t| t.elapsed(gpu)).transpose()?.flatten() {
        Some(d) => (d, TimingSource::TimestampQueries),
        None => (wall, TimingSource::WallClock),
    })
}

/// Writes `bytes` into `buffer` and waits for it: the upload's wall time.
pub(super) fn upload(gpu: &Gpu, writes: &[(&wgpu::Buffer, &[u8])]) -> Result<Duration, BackendError> {
    let start = Instant::now();
    gpu.scoped("uploading a lesson's input", || {
        for (b, bytes) in writes {
            gpu.queue.write_buffer(b, 0, bytes);
        }
        gpu.queue.submit([]);
    })?;
    gpu.wait()?;
    Ok(start.elapsed())
}

/// Copies `len` bytes of `src` to the host and hands them to `read`: the download's wall time.
pub(super) fn download<T>(
    gpu: &Gpu,
    src: &wgpu::Buffer,
    len: u64,
    read: impl FnOnce(&[u8]) -> T,
) -> Result<(T, Duration), BackendError> {
    use wgpu::BufferUsages as U;
    let staging = gpu.buffer("lesson readback", len, U::MAP_READ | U::COPY_DST)?;
    let start = Instant::now();
    gpu.scoped("copying a lesson's result", || {
        let mut encoder =
            gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
        encoder.copy_buffer_to_buffer(src, 0, &staging, 0, len);
        gpu.queue.submit([encoder.finish()]);
    })?;
    let out = gpu.read_back(&staging, len, read)?;
    Ok((out, start.elapsed()))
}

/// `y = a*x + y` on the GPU.
pub(super) fn run(gpu: &Gpu, a: f32, x: &[f32], y: &mut [f32]) -> Result<LessonTiming, BackendError> {
    if x.len() != y.len() || x.len() > u32::MAX as usize || x.is_empty() {
        return Err(BackendError::Invalid(format!("saxpy: x has {} values, y {}", x.len(), y.len())));
    }
    use wgpu::BufferUsages as U;
    // params, x, y.
    let bindings = [Binding::Uniform, Binding::ReadOnly, Binding::ReadWrite];
    let pipeline = ComputeKernel::new(&gpu.device, "saxpy.wgsl", SAXPY, "saxpy", &bindings)?;
    let bytes = 4 * x.len() as u64;
    let params = gpu.buffer("saxpy params", size_of::<Params>() as u64, U::UNIFORM | U::COPY_DST)?;
    let dx = gpu.buffer("saxpy x", bytes, U::STORAGE | U::COPY_DST)?;
    let dy = gpu.buffer("saxpy y", bytes, U::STORAGE | U::COPY_DST | U::COPY_SRC)?;
    let groups = groups(gpu, x.len());
    let p = Params { n: x.len() as u32, a, stride: groups * 256, pad: 0 };
    let upload = upload(
        gpu,
        &[(&params, bytemuck::bytes_of(&p)), (&dx, bytemuck::cast_slice(x)), (&dy, bytemuck::cast_slice(y))],
    )?;
    let bind = pipeline.bind_buffers(gpu, "saxpy", &[&params, &dx, &dy]);
    let (kernel, source) = timed_dispatch(gpu, &pipeline.pipeline, &bind, groups)?;
    let ((), download) = download(gpu, &dy, bytes, |b| y.copy_from_slice(bytemuck::cast_slice(b)))?;
    Ok(LessonTiming { upload, kernel, download, source })
}
