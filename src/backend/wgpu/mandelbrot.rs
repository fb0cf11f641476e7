//! Mandelbrot escape counts on the GPU (`shaders/mandelbrot.wgsl` with its precision variant
//! `mandelbrot_f32.wgsl` or `mandelbrot_f64.wgsl`; CPU twin: `src/backend/cpu/mandelbrot.rs`,
//! rows of [`crate::sim::fractal::mandelbrot::mandelbrot_row`]).
//!
//! CUDA twin: `src/backend/cuda/mandelbrot.rs` (`kernels/mandelbrot.cu`).
//!
//! The point of each column and row is computed on the host in `f64` exactly as the CPU does
//! (rounded to `f32` for the `f32` kernel), so the GPU only iterates; points surely inside the
//! main cardioid or the period-2 bulb skip the loop, and the escape is checked once per chunk
//! of iterations, replayed one at a time where it happened (the counts stay the CPU's). The
//! rule's iterations, `min(count + 1, iters)` per pixel (`iters` for a skipped one, as CUDA
//! counts them), are summed on the GPU into a 64-bit total. Counts come back as `u16` pairs
//! when `iters` allows ([`narrow`], [`widen_pairs`]): half the bytes of the copy to the host.

use web_time::Instant;

use rayon::prelude::*;

use super::layout::{Binding, ComputeKernel};
use super::{Gpu, KIND, Timer, runtime};
use crate::backend::{BackendError, MandelbrotRun, Timing, TimingSource, check_fits};
use crate::sim::fractal::mandelbrot::{MandelbrotParams, Precision};

/// Workgroup of the Mandelbrot and Julia shaders: 16x16 invocations, each two pixels side by
/// side (32x16 pixels).
pub(crate) const TILE: u32 = 16;

/// True when the counts of `iters` iterations fit in `u16` (`iters <= 65535`): the shaders then
/// write them as pairs, one `u32` for pixels `2i` and `2i + 1` of a row.
#[must_use]
pub fn narrow(iters: u32) -> bool {
    u16::try_from(iters).is_ok()
}

/// Bytes of the counts of a `width x height` image as the shaders write them: rows of
/// `ceil(width/2)` `u32` words when [`narrow`], else one `u32` per pixel.
#[must_use]
pub fn count_bytes(width: usize, height: usize, iters: u32) -> u64 {
    if narrow(iters) { 4 * (width.div_ceil(2) * height) as u64 } else { 4 * (width * height) as u64 }
}

/// Workgroups of the Mandelbrot and Julia shaders for a `width x height` image.
pub(crate) fn groups(width: usize, height: usize) -> (u32, u32) {
    ((width.div_ceil(2) as u32).div_ceil(TILE), (height as u32).div_ceil(TILE))
}

/// Widens counts written as `u16` pairs (`words`: rows of `ceil(width/2)` little-endian `u32`
/// words, the left pixel in the low half) into `counts` (`width` per row), on all cores for
/// large images.
///
/// # Panics
/// When `words` holds fewer rows than `counts`.
pub fn widen_pairs(words: &[u8], width: usize, counts: &mut [i32]) {
    let row_bytes = 4 * width.div_ceil(2);
    let widen = |out: &mut [i32], src: &[u8]| {
        for (row, bytes) in out.chunks_mut(width).zip(src.chunks(row_bytes)) {
            // Little-endian u32 words of two u16: the bytes are the u16 counts in pixel order.
            for (o, b) in row.iter_mut().zip(bytes.chunks_exact(2)) {
                *o = i32::from(u16::from_le_bytes([b[0], b[1]]));
            }
        }
    };
    assert!(words.len() >= counts.len().div_ceil(width.max(1)) * row_bytes, "too few packed rows");
    if counts.len() <= 1 << 20 {
        widen(counts, words);
    } else {
        // About 256 KiB of counts a task.
        let rows = (1usize << 16).div_ceil(width).max(1);
        counts.par_chunks_mut(rows * width).zip(words.par_chunks(rows * row_bytes)).for_each(|(o, s)| widen(o, s));
    }
}

/// Copies the counts as the shaders wrote them (`bytes`, see [`count_bytes`]) into `counts`.
pub(crate) fn counts_out(bytes: &[u8], width: usize, iters: u32, counts: &mut [i32]) {
    if narrow(iters) {
        widen_pairs(bytes, width, counts);
    } else {
        Gpu::copy_out(bytes, bytemuck::cast_slice_mut::<i32, u8>(counts));
    }
}

/// `Params` in the shaders.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    width: u32,
    height: u32,
    iters: u32,
    /// Always 0: lets the shader's `exact` keep every rounding step (no FMA).
    opaque: u32,
    /// 1: counts as `u16` pairs ([`narrow`]).
    narrow: u32,
    pad: [u32; 3],
}

/// Compiles the Mandelbrot kernel of one precision (once per device, [`Gpu::new`]).
pub(crate) fn kernel(
    device: &wgpu::Device,
    precision: Precision,
    order: super::shader::Order,
) -> Result<ComputeKernel, BackendError> {
    let file = match precision {
        Precision::F32 => "mandelbrot.wgsl + mandelbrot_f32.wgsl",
        Precision::F64 => "mandelbrot.wgsl + mandelbrot_f64.wgsl",
    };
    let source = super::shader::mandelbrot(precision, order);
    // params, points, counts, total.
    let bindings = [Binding::Uniform, Binding::ReadOnly, Binding::ReadWrite, Binding::ReadWrite];
    ComputeKernel::new(device, file, &source, "mandelbrot", &bindings)
}

/// Bytes of one part of the read-back at 4 bytes a pixel (u16 pairs fill half of it; Julia's
/// parts hold smooth values too).
pub(crate) const PART_BYTES: usize = 8 << 20;

/// Buffers of one image size, kept between calls of the same size.
pub(crate) struct Buffers {
    width: usize,
    height: usize,
    coord_bytes: u64,
    params: wgpu::Buffer,
    coords: wgpu::Buffer,
    counts: wgpu::Buffer,
    total: wgpu::Buffer,
    /// Rows of the image in each part of the read-back.
    rows_per_part: usize,
    /// The read-back in parts of `rows_per_part` rows (at most 4 bytes a pixel: u16 pairs use
    /// half of each), each copied and mapped on its own so the host copies one out while the
    /// next are on the bus; mapped only as far as a call needs.
    parts: Vec<wgpu::Buffer>,
    /// The total, for the host.
    total_read: wgpu::Buffer,
    timer: Option<Timer>,
}

impl Buffers {
    fn new(gpu: &Gpu, width: usize, height: usize, coord_bytes: u64) -> Result<Self, BackendError> {
        let count_bytes = 4 * (width * height) as u64;
        let rows_per_part = (PART_BYTES / (4 * width)).clamp(1, height);
        use wgpu::BufferUsages as U;
        let parts = (0..height.div_ceil(rows_per_part))
            .map(|i| {
                let rows = rows_per_part.min(height - i * rows_per_part);
                gpu.buffer("mandelbrot readback", 4 * (rows * width) as u64, U::MAP_READ | U::COPY_DST)
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            width,
            height,
            coord_bytes,
            params: gpu.buffer("mandelbrot params", size_of::<Params>() as u64, U::UNIFORM | U::COPY_DST)?,
            coords: gpu.buffer("mandelbrot points", coord_bytes, U::STORAGE | U::COPY_DST)?,
            counts: gpu.buffer("mandelbrot counts", count_bytes, U::STORAGE | U::COPY_SRC)?,
            total: gpu.buffer("mandelbrot total", 8, U::STORAGE | U::COPY_SRC | U::COPY_DST)?,
            rows_per_part,
            parts,
            total_read: gpu.buffer("mandelbrot total readback", 8, U::MAP_READ | U::COPY_DST)?,
            timer: Timer::new(gpu)?,
        })
    }
}

/// The points of the columns then the rows, as the CPU computes them.
fn coords(p: &MandelbrotParams) -> Vec<f64> {
    let (px, py) = p.pixel_size();
    let b = &p.bounds;
    let xs = (0..p.width).map(|x| b.minx + x as f64 * px);
    let ys = (0..p.height).map(|y| b.miny + y as f64 * py);
    xs.chain(ys).collect()
}

/// Computes `counts` for `p` on `gpu`, reusing `cache` when the size is the same.
pub(crate) fn run(
    gpu: &Gpu,
    cache: &mut Option<Buffers>,
    p: &MandelbrotParams,
    counts: &mut [i32],
) -> Result<MandelbrotRun, BackendError> {
    p.validate()?;
    if counts.len() != p.pixels() {
        return Err(BackendError::Invalid(format!("counts hold {} values, image has {}", counts.len(), p.pixels())));
    }
    let pipeline = match p.precision {
        Precision::F32 => &gpu.mandelbrot_f32,
        Precision::F64 => gpu.mandelbrot_f64.as_ref().ok_or_else(|| {
            BackendError::Invalid(format!(
                "this adapter has no f64 (no SHADER_F64 on {}): use --precision f32",
                gpu.adapter.name
            ))
        })?,
    };
    let what = format!("mandelbrot {}x{}", p.width, p.height);
    if p.pixels() > 1 << 30 {
        return Err(BackendError::Invalid(format!("{what} has more than 2^30 pixels, the wgpu backend's limit")));
    }
    check_fits(
        KIND,
        &format!("{what} counts (against the device's largest storage buffer)"),
        4 * p.pixels() as u64,
        Some(gpu.max_storage_bytes()),
    )?;
    let groups = groups(p.width, p.height);
    let max = gpu.device.limits().max_compute_workgroups_per_dimension;
    if groups.0 > max || groups.1 > max {
        return Err(BackendError::Invalid(format!(
            "{what} needs {}x{} workgroups, this device allows {max} per dimension",
            groups.0, groups.1
        )));
    }
    let start = Instant::now();
    let points = coords(p);
    let coord_bytes: Vec<u8> = match p.precision {
        Precision::F64 => bytemuck::cast_slice(&points).to_vec(),
        Precision::F32 => points.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
    };
    let fits = cache
        .as_ref()
        .is_some_and(|b| b.width == p.width && b.height == p.height && b.coord_bytes == coord_bytes.len() as u64);
    if !fits {
        *cache = None;
        *cache = Some(Buffers::new(gpu, p.width, p.height, coord_bytes.len() as u64)?);
    }
    let b = cache.as_ref().ok_or_else(|| runtime("no mandelbrot buffers"))?;
    let params = Params {
        width: p.width as u32,
        height: p.height as u32,
        iters: p.iters,
        opaque: 0,
        narrow: u32::from(narrow(p.iters)),
        pad: [0; 3],
    };
    // Bytes of one row as the shader writes it.
    let row_bytes = count_bytes(p.width, 1, p.iters);
    let submissions = gpu.scoped(&format!("computing {what}"), || {
        gpu.queue.write_buffer(&b.params, 0, bytemuck::bytes_of(&params));
        gpu.queue.write_buffer(&b.coords, 0, &coord_bytes);
        let bind = pipeline.bind_buffers(gpu, "mandelbrot", &[&b.params, &b.coords, &b.counts, &b.total]);
        let mut encoder =
            gpu.escape_pass("mandelbrot", (&pipeline.pipeline, &bind), groups, &b.total, b.timer.as_ref());
        encoder.copy_buffer_to_buffer(&b.total, 0, &b.total_read, 0, 8);
        gpu.queue.submit([encoder.finish()]);
        // Each part of the counts in a submission of its own, so each can be mapped as soon
        // as its own copy is done.
        b.parts
            .iter()
            .enumerate()
            .map(|(i, part)| {
                let rows = b.rows_per_part.min(p.height - i * b.rows_per_part) as u64;
                let mut encoder = gpu
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("mandelbrot readback") });
                let offset = (i * b.rows_per_part) as u64 * row_bytes;
                encoder.copy_buffer_to_buffer(&b.counts, offset, part, 0, rows * row_bytes);
                (part, rows * row_bytes, gpu.queue.submit([encoder.finish()]))
            })
            .collect::<Vec<_>>()
    })?;
    let rows_per_part = b.rows_per_part;
    gpu.read_back_parts(&submissions, |i, bytes| {
        let first = i * rows_per_part * p.width;
        let rows = rows_per_part.min(p.height - i * rows_per_part);
        counts_out(bytes, p.width, p.iters, &mut counts[first..first + rows * p.width]);
    })?;
    let total_iters = gpu.read_back(&b.total_read, 8, |bytes| {
        let words: &[u32] = bytemuck::cast_slice(bytes);
        u64::from(words[0]) | (u64::from(words[1]) << 32)
    })?;
    let device = match &b.timer {
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
