//! The Mandelbrot set and Julia sets with distance estimates on the GPU: `shaders/julia_de.wgsl`
//! with the Mandelbrot family's precision variant, the variant of `julia.rs` that carries `dz/dc`
//! ([`crate::backend::Backend::mandelbrot_distance`]) or, for a Julia set, `dz/dz0`
//! ([`crate::backend::Backend::julia_distance`]). CPU twins: rows of
//! [`crate::sim::fractal::distance::distance_row`] and
//! [`crate::sim::fractal::distance::julia_distance_row`]; CUDA twin: `julia_de_*` of
//! `kernels/julia.cu`. The pixel points are computed on the host as the CPU does (rounded to
//! `f32` for the `f32` kernel), with the pixel width and `c` after them; buffers are made per call
//! (a picture coloured by distance is rendered once, not streamed).

use web_time::Instant;

use super::layout::{Binding, ComputeKernel, PerPrecision};
use super::{Gpu, KIND, Timer};
use crate::backend::{BackendError, MandelbrotRun, Timing, TimingSource, check_de_len, check_fits, check_image_len};
use crate::sim::fractal::distance::DE_VALUES;
use crate::sim::fractal::mandelbrot::{MandelbrotParams, Precision};

/// `Params` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    width: u32,
    height: u32,
    iters: u32,
    /// Always 0: lets the shader's `exact` keep every rounding step (no FMA).
    opaque: u32,
    /// 1: the Mandelbrot set; 0: the Julia set of `c`.
    mandel: u32,
    pad: [u32; 3],
}

/// The pipelines compiled so far.
#[derive(Default)]
pub(crate) struct State {
    kernels: PerPrecision<ComputeKernel>,
}

/// Compiles the distance kernel of one precision.
fn kernel(
    device: &wgpu::Device,
    precision: Precision,
    order: super::shader::Order,
) -> Result<ComputeKernel, BackendError> {
    let file = match precision {
        Precision::F32 => "julia_de.wgsl + mandelbrot_f32.wgsl",
        Precision::F64 => "julia_de.wgsl + mandelbrot_f64.wgsl",
    };
    let source = super::shader::julia_de(precision, order);
    // params, points, counts, smooth values, distances, total.
    let bindings = [
        Binding::Uniform,
        Binding::ReadOnly,
        Binding::ReadWrite,
        Binding::ReadWrite,
        Binding::ReadWrite,
        Binding::ReadWrite,
    ];
    ComputeKernel::new(device, file, &source, "julia_de", &bindings)
}

/// The `coords` buffer of `grid`: the columns' real parts, the rows' imaginary parts, the pixel
/// width, then `c` (zero for the Mandelbrot set), in the kernel's precision.
fn coords(grid: &MandelbrotParams, c: Option<[f64; 2]>) -> Vec<u8> {
    let (px, py) = grid.pixel_size();
    let b = &grid.bounds;
    let points: Vec<f64> = (0..grid.width)
        .map(|x| b.minx + x as f64 * px)
        .chain((0..grid.height).map(|y| b.miny + y as f64 * py))
        .chain([px])
        .chain(c.unwrap_or([0.0, 0.0]))
        .collect();
    match grid.precision {
        Precision::F64 => bytemuck::cast_slice(&points).to_vec(),
        Precision::F32 => points.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
    }
}

/// Computes `grid` into `counts`, `smooth` and `de` ([`DE_VALUES`] a pixel): the Julia set of
/// `c`, or (`c = None`) the Mandelbrot set.
pub(crate) fn run(
    gpu: &Gpu,
    state: &mut State,
    grid: &MandelbrotParams,
    c: Option<[f64; 2]>,
    counts: &mut [i32],
    smooth: &mut [f32],
    de: &mut [f32],
) -> Result<MandelbrotRun, BackendError> {
    use wgpu::BufferUsages as U;
    grid.validate()?;
    let n = grid.pixels();
    check_image_len(counts, Some(smooth), n)?;
    check_de_len(de, n)?;
    if grid.precision == Precision::F64 && gpu.mandelbrot_f64.is_none() {
        return Err(BackendError::Invalid(format!(
            "this adapter has no f64 (no SHADER_F64 on {}): use --precision f32",
            gpu.adapter.name
        )));
    }
    let what =
        format!("{} with distances {}x{}", if c.is_some() { "julia" } else { "mandelbrot" }, grid.width, grid.height);
    check_fits(
        KIND,
        &format!("{what} (against the device's largest storage buffer)"),
        12 * n as u64,
        Some(gpu.max_storage_bytes()),
    )?;
    let groups = (grid.width.div_ceil(16) as u32, grid.height.div_ceil(16) as u32);
    let max = gpu.device.limits().max_compute_workgroups_per_dimension;
    if groups.0 > max || groups.1 > max {
        return Err(BackendError::Invalid(format!(
            "{what} needs {}x{} workgroups, this device allows {max} per dimension",
            groups.0, groups.1
        )));
    }
    let order = super::shader::Order::of(gpu.adapter.backend);
    let pipeline = state.kernels.get_or_make(grid.precision, || kernel(&gpu.device, grid.precision, order))?;
    let start = Instant::now();
    let coord_bytes = coords(grid, c);
    let (count_bytes, de_bytes) = (4 * n as u64, 4 * (DE_VALUES * n) as u64);
    let params_buf = gpu.buffer("julia_de params", size_of::<Params>() as u64, U::UNIFORM | U::COPY_DST)?;
    let coords = gpu.buffer("julia_de points", coord_bytes.len() as u64, U::STORAGE | U::COPY_DST)?;
    let counts_buf = gpu.buffer("julia_de counts", count_bytes, U::STORAGE | U::COPY_SRC)?;
    let smooth_buf = gpu.buffer("julia_de smooth values", count_bytes, U::STORAGE | U::COPY_SRC)?;
    let de_buf = gpu.buffer("julia_de distances", de_bytes, U::STORAGE | U::COPY_SRC)?;
    let total = gpu.buffer("julia_de total", 8, U::STORAGE | U::COPY_SRC | U::COPY_DST)?;
    let read = gpu.buffer("julia_de readback", 2 * count_bytes + de_bytes + 8, U::MAP_READ | U::COPY_DST)?;
    let timer = Timer::new(gpu)?;
    let params = Params {
        width: grid.width as u32,
        height: grid.height as u32,
        iters: grid.iters,
        opaque: 0,
        mandel: u32::from(c.is_none()),
        pad: [0; 3],
    };
    gpu.scoped(&format!("computing {what}"), || {
        gpu.queue.write_buffer(&params_buf, 0, bytemuck::bytes_of(&params));
        gpu.queue.write_buffer(&coords, 0, &coord_bytes);
        let bind =
            pipeline.bind_buffers(gpu, "julia_de", &[&params_buf, &coords, &counts_buf, &smooth_buf, &de_buf, &total]);
        let mut encoder = gpu.escape_pass("julia_de", (&pipeline.pipeline, &bind), groups, &total, timer.as_ref());
        encoder.copy_buffer_to_buffer(&counts_buf, 0, &read, 0, count_bytes);
        encoder.copy_buffer_to_buffer(&smooth_buf, 0, &read, count_bytes, count_bytes);
        encoder.copy_buffer_to_buffer(&de_buf, 0, &read, 2 * count_bytes, de_bytes);
        encoder.copy_buffer_to_buffer(&total, 0, &read, 2 * count_bytes + de_bytes, 8);
        gpu.queue.submit([encoder.finish()]);
    })?;
    let total_iters = gpu.read_back(&read, 2 * count_bytes + de_bytes + 8, |bytes| {
        let (c, rest) = bytes.split_at(count_bytes as usize);
        let (s, rest) = rest.split_at(count_bytes as usize);
        let (d, t) = rest.split_at(de_bytes as usize);
        Gpu::copy_out(c, bytemuck::cast_slice_mut::<i32, u8>(counts));
        Gpu::copy_out(s, bytemuck::cast_slice_mut::<f32, u8>(smooth));
        Gpu::copy_out(d, bytemuck::cast_slice_mut::<f32, u8>(de));
        let words: &[u32] = bytemuck::cast_slice(t);
        u64::from(words[0]) | (u64::from(words[1]) << 32)
    })?;
    let device = match &timer {
        Some(timer) => timer.elapsed(gpu)?,
        None => None,
    };
    let wall = start.elapsed();
    let timing = match device {
        Some(d) => Timing { wall, device: Some(d), source: TimingSource::TimestampQueries },
        None => Timing::wall(wall),
    };
    Ok(MandelbrotRun { total_iters, executed_iters: None, timing })
}
