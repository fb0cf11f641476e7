//! Julia sets on the GPU, and the Mandelbrot set with smooth values: `shaders/julia.wgsl` with
//! the Mandelbrot family's precision variant (`mandelbrot_f32.wgsl` / `mandelbrot_f64.wgsl`).
//! CPU twin: `src/backend/cpu/julia.rs` (rows of [`crate::sim::fractal::julia::julia_row`]); for the
//! Mandelbrot mode, [`crate::sim::fractal::mandelbrot::mandelbrot_row_smooth`]. CUDA twin:
//! `src/backend/cuda/julia.rs` (`kernels/julia.cu`).
//!
//! The point of each column and row is computed on the host in `f64` exactly as the CPU does
//! (rounded to `f32` for the `f32` kernel) and uploaded with `c`; the GPU only iterates, with
//! the escape checked once per chunk of iterations and, in Mandelbrot mode, the interior
//! shortcut (as `shaders/mandelbrot.wgsl`). Counts come back as `u16` pairs when `iters` allows
//! ([`super::mandelbrot::narrow`]). Pipelines are compiled the first time a precision is used.

use web_time::Instant;

use super::layout::{Binding, ComputeKernel, PerPrecision};
use super::mandelbrot::{PART_BYTES, count_bytes, counts_out, groups, narrow};
use super::{Gpu, KIND, Timer, runtime};
use crate::backend::{BackendError, MandelbrotRun, Timing, TimingSource, check_fits, check_image_len};
use crate::sim::fractal::mandelbrot::{MandelbrotParams, Precision};

/// What the orbit of a pixel is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mode {
    /// Starts at the pixel, `c` fixed.
    Julia { c: [f64; 2] },
    /// Starts at 0, `c` is the pixel: the seed's Mandelbrot rule.
    Mandelbrot,
}

/// `Params` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    width: u32,
    height: u32,
    iters: u32,
    /// Always 0: lets the shader's `exact` keep every rounding step (no FMA).
    opaque: u32,
    mandel: u32,
    want_smooth: u32,
    /// 1: counts as `u16` pairs.
    narrow: u32,
    pad: u32,
}

/// Compiles the Julia kernel of one precision.
fn kernel(
    device: &wgpu::Device,
    precision: Precision,
    order: super::shader::Order,
) -> Result<ComputeKernel, BackendError> {
    let file = match precision {
        Precision::F32 => "julia.wgsl + mandelbrot_f32.wgsl",
        Precision::F64 => "julia.wgsl + mandelbrot_f64.wgsl",
    };
    let source = super::shader::julia(precision, order);
    // params, points, counts, smooth values, total.
    let bindings = [Binding::Uniform, Binding::ReadOnly, Binding::ReadWrite, Binding::ReadWrite, Binding::ReadWrite];
    ComputeKernel::new(device, file, &source, "julia", &bindings)
}

/// The pipelines compiled so far and the buffers of the last image size.
#[derive(Default)]
pub(crate) struct State {
    kernels: PerPrecision<ComputeKernel>,
    buffers: Option<Buffers>,
}

/// Buffers of one image size, kept between calls of the same size.
struct Buffers {
    width: usize,
    height: usize,
    coord_bytes: u64,
    smooth: bool,
    params: wgpu::Buffer,
    coords: wgpu::Buffer,
    counts: wgpu::Buffer,
    /// One value per pixel with smooth values, else 4 bytes (bound, never written).
    smooth_values: wgpu::Buffer,
    total: wgpu::Buffer,
    /// Rows of the image in each part of the read-back.
    rows_per_part: usize,
    /// The read-back in parts of `rows_per_part` rows, each the part's counts (as written: at
    /// most 4 bytes a pixel) then its smooth values (if any), copied and mapped on its own so
    /// the host copies one out while the next are on the bus (as `mandelbrot.rs`).
    parts: Vec<wgpu::Buffer>,
    /// The total, for the host.
    total_read: wgpu::Buffer,
    timer: Option<Timer>,
}

impl Buffers {
    fn new(gpu: &Gpu, width: usize, height: usize, coord_bytes: u64, smooth: bool) -> Result<Self, BackendError> {
        use wgpu::BufferUsages as U;
        let count_bytes = 4 * (width * height) as u64;
        let smooth_bytes = if smooth { count_bytes } else { 4 };
        let pixel_bytes = if smooth { 8 } else { 4 };
        let rows_per_part = (PART_BYTES / (pixel_bytes * width)).clamp(1, height);
        let parts = (0..height.div_ceil(rows_per_part))
            .map(|i| {
                let rows = rows_per_part.min(height - i * rows_per_part);
                gpu.buffer("julia readback", (pixel_bytes * rows * width) as u64, U::MAP_READ | U::COPY_DST)
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            width,
            height,
            coord_bytes,
            smooth,
            params: gpu.buffer("julia params", size_of::<Params>() as u64, U::UNIFORM | U::COPY_DST)?,
            coords: gpu.buffer("julia points", coord_bytes, U::STORAGE | U::COPY_DST)?,
            counts: gpu.buffer("julia counts", count_bytes, U::STORAGE | U::COPY_SRC)?,
            smooth_values: gpu.buffer("julia smooth values", smooth_bytes, U::STORAGE | U::COPY_SRC)?,
            total: gpu.buffer("julia total", 8, U::STORAGE | U::COPY_SRC | U::COPY_DST)?,
            rows_per_part,
            parts,
            total_read: gpu.buffer("julia total readback", 8, U::MAP_READ | U::COPY_DST)?,
            timer: Timer::new(gpu)?,
        })
    }
}

/// Computes the image of `grid` in `mode` into `counts` and, when given, `smooth`.
#[expect(clippy::too_many_lines, reason = "one dispatch in order: checks, buffers, pass, read-back, timing")]
pub(crate) fn run(
    gpu: &Gpu,
    state: &mut State,
    mode: Mode,
    grid: &MandelbrotParams,
    counts: &mut [i32],
    smooth: Option<&mut [f32]>,
) -> Result<MandelbrotRun, BackendError> {
    grid.validate()?;
    let n = grid.pixels();
    check_image_len(counts, smooth.as_deref(), n)?;
    if grid.precision == Precision::F64 && gpu.mandelbrot_f64.is_none() {
        return Err(BackendError::Invalid(format!(
            "this adapter has no f64 (no SHADER_F64 on {}): use --precision f32",
            gpu.adapter.name
        )));
    }
    let order = super::shader::Order::of(gpu.adapter.backend);
    let pipeline = state.kernels.get_or_make(grid.precision, || kernel(&gpu.device, grid.precision, order))?;
    let what =
        format!("{} {}x{}", if mode == Mode::Mandelbrot { "mandelbrot" } else { "julia" }, grid.width, grid.height);
    if n > 1 << 30 {
        return Err(BackendError::Invalid(format!("{what} has more than 2^30 pixels, the wgpu backend's limit")));
    }
    check_fits(
        KIND,
        &format!("{what} counts (against the device's largest storage buffer)"),
        4 * n as u64,
        Some(gpu.max_storage_bytes()),
    )?;
    let groups = groups(grid.width, grid.height);
    let max = gpu.device.limits().max_compute_workgroups_per_dimension;
    if groups.0 > max || groups.1 > max {
        return Err(BackendError::Invalid(format!(
            "{what} needs {}x{} workgroups, this device allows {max} per dimension",
            groups.0, groups.1
        )));
    }
    let start = Instant::now();
    let (px, py) = grid.pixel_size();
    let b = &grid.bounds;
    let c = match mode {
        Mode::Julia { c } => c,
        Mode::Mandelbrot => [0.0, 0.0],
    };
    let points: Vec<f64> = (0..grid.width)
        .map(|x| b.minx + x as f64 * px)
        .chain((0..grid.height).map(|y| b.miny + y as f64 * py))
        .chain(c)
        .collect();
    let coord_bytes: Vec<u8> = match grid.precision {
        Precision::F64 => bytemuck::cast_slice(&points).to_vec(),
        Precision::F32 => points.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
    };
    let want_smooth = smooth.is_some();
    let fits = state.buffers.as_ref().is_some_and(|b| {
        b.width == grid.width
            && b.height == grid.height
            && b.coord_bytes == coord_bytes.len() as u64
            && b.smooth == want_smooth
    });
    if !fits {
        state.buffers = None;
        state.buffers = Some(Buffers::new(gpu, grid.width, grid.height, coord_bytes.len() as u64, want_smooth)?);
    }
    let bufs = state.buffers.as_ref().ok_or_else(|| runtime("no julia buffers"))?;
    let params = Params {
        width: grid.width as u32,
        height: grid.height as u32,
        iters: grid.iters,
        opaque: 0,
        mandel: u32::from(mode == Mode::Mandelbrot),
        want_smooth: u32::from(want_smooth),
        narrow: u32::from(narrow(grid.iters)),
        pad: 0,
    };
    // Bytes of one row as the shader writes it, of counts and of smooth values.
    let row_bytes = count_bytes(grid.width, 1, grid.iters);
    let smooth_row_bytes = if want_smooth { 4 * grid.width as u64 } else { 0 };
    let submissions = gpu.scoped(&format!("computing {what}"), || {
        gpu.queue.write_buffer(&bufs.params, 0, bytemuck::bytes_of(&params));
        gpu.queue.write_buffer(&bufs.coords, 0, &coord_bytes);
        let bind = pipeline.bind_buffers(
            gpu,
            "julia",
            &[&bufs.params, &bufs.coords, &bufs.counts, &bufs.smooth_values, &bufs.total],
        );
        let mut encoder =
            gpu.escape_pass("julia", (&pipeline.pipeline, &bind), groups, &bufs.total, bufs.timer.as_ref());
        encoder.copy_buffer_to_buffer(&bufs.total, 0, &bufs.total_read, 0, 8);
        gpu.queue.submit([encoder.finish()]);
        // Each part in a submission of its own, mapped as soon as its own copies are done.
        bufs.parts
            .iter()
            .enumerate()
            .map(|(i, part)| {
                let first_row = (i * bufs.rows_per_part) as u64;
                let rows = bufs.rows_per_part.min(grid.height - i * bufs.rows_per_part) as u64;
                let mut encoder = gpu
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("julia readback") });
                encoder.copy_buffer_to_buffer(&bufs.counts, first_row * row_bytes, part, 0, rows * row_bytes);
                if want_smooth {
                    let (from, to) = (first_row * smooth_row_bytes, rows * row_bytes);
                    encoder.copy_buffer_to_buffer(&bufs.smooth_values, from, part, to, rows * smooth_row_bytes);
                }
                (part, rows * (row_bytes + smooth_row_bytes), gpu.queue.submit([encoder.finish()]))
            })
            .collect::<Vec<_>>()
    })?;
    let rows_per_part = bufs.rows_per_part;
    let mut smooth = smooth;
    gpu.read_back_parts(&submissions, |i, bytes| {
        let first = i * rows_per_part * grid.width;
        let rows = rows_per_part.min(grid.height - i * rows_per_part);
        let (c, s) = bytes.split_at(rows * row_bytes as usize);
        counts_out(c, grid.width, grid.iters, &mut counts[first..first + rows * grid.width]);
        if let Some(smooth) = smooth.as_deref_mut() {
            Gpu::copy_out(s, bytemuck::cast_slice_mut::<f32, u8>(&mut smooth[first..first + rows * grid.width]));
        }
    })?;
    let total_iters = gpu.read_back(&bufs.total_read, 8, |bytes| {
        let words: &[u32] = bytemuck::cast_slice(bytes);
        u64::from(words[0]) | (u64::from(words[1]) << 32)
    })?;
    let device = match &bufs.timer {
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
