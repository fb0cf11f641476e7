//! The reduction lesson on wgpu: `shaders/reduction.wgsl` (`reduce_tree`, `reduce_atomic`), the
//! twins of `kernels/reduction.cu` and `src/backend/cpu/reduction.rs`.

use super::Gpu;
use super::layout::{Binding, ComputeKernel};
use super::saxpy::{download, groups, timed_dispatch, upload};
use crate::backend::{BackendError, LessonTiming, ReduceMethod};

const REDUCTION: &str = include_str!("../../../shaders/reduction.wgsl");

/// `Params` of the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    stride: u32,
    pad: [u32; 2],
}

/// The wrapping sum of `x` by `method`.
pub(super) fn run(gpu: &Gpu, x: &[u32], method: ReduceMethod) -> Result<(u32, LessonTiming), BackendError> {
    if x.len() > u32::MAX as usize || x.is_empty() {
        return Err(BackendError::Invalid(format!("reduction: {} values", x.len())));
    }
    use wgpu::BufferUsages as U;
    let entry = match method {
        ReduceMethod::Tree => "reduce_tree",
        ReduceMethod::Atomic => "reduce_atomic",
    };
    // params, x, partial sums, total.
    let bindings = [Binding::Uniform, Binding::ReadOnly, Binding::ReadWrite, Binding::ReadWrite];
    let pipeline = ComputeKernel::new(&gpu.device, "reduction.wgsl", REDUCTION, entry, &bindings)?;
    let groups = groups(gpu, x.len());
    let p = Params { n: x.len() as u32, stride: groups * 256, pad: [0; 2] };
    let params = gpu.buffer("reduction params", size_of::<Params>() as u64, U::UNIFORM | U::COPY_DST)?;
    let dx = gpu.buffer("reduction x", 4 * x.len() as u64, U::STORAGE | U::COPY_DST)?;
    let partial_bytes = 4 * u64::from(groups);
    let partial = gpu.buffer("reduction partials", partial_bytes, U::STORAGE | U::COPY_DST | U::COPY_SRC)?;
    let total = gpu.buffer("reduction total", 4, U::STORAGE | U::COPY_DST | U::COPY_SRC)?;
    let zeros = vec![0u8; partial_bytes as usize];
    let upload = upload(
        gpu,
        &[(&params, bytemuck::bytes_of(&p)), (&dx, bytemuck::cast_slice(x)), (&partial, &zeros), (&total, &[0u8; 4])],
    )?;
    let bind = pipeline.bind_buffers(gpu, "reduction", &[&params, &dx, &partial, &total]);
    let (kernel, source) = timed_dispatch(gpu, &pipeline.pipeline, &bind, groups)?;
    let sum_of = |b: &[u8]| bytemuck::cast_slice::<u8, u32>(b).iter().fold(0u32, |a, &v| a.wrapping_add(v));
    let (sum, download) = match method {
        ReduceMethod::Tree => download(gpu, &partial, partial_bytes, sum_of)?,
        ReduceMethod::Atomic => download(gpu, &total, 4, sum_of)?,
    };
    Ok((sum, LessonTiming { upload, kernel, download, source }))
}
