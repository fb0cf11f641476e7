//! Deep-zoom Mandelbrot counts on the GPU by perturbation: `shaders/mandelbrot_deep.wgsl` with
//! its delta variant `mandelbrot_deep_f32.wgsl` (every adapter: an `f32` mantissa and an `i32`
//! exponent) or `mandelbrot_deep_f64.wgsl` (adapters with `SHADER_F64`, used when present).
//! CPU twin: `src/backend/cpu/mandelbrot_deep.rs` ([`crate::sim::fractal::perturb::perturb_count`]).
//! With distance estimates, the derivative hooks of `mandelbrot_deep_slope.wgsl` are spliced in
//! ([`crate::sim::fractal::deep_distance`]'s twin) and a tenth binding takes the distances.
//!
//! The reference orbit and the pixel grid are computed on the host ([`DeepJob::prepare`]) and
//! uploaded with each image; pipelines are compiled the first time a variant is used.

use web_time::Instant;

use super::layout::{Binding, ComputeKernel, PerPrecision};
use super::{Gpu, KIND, Timer};
use crate::backend::{BackendError, MandelbrotRun, Timing, TimingSource, check_fits};
use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::perturb::Mantissa;

/// Workgroup of the shader (16x16 pixels).
const TILE: u32 = 16;

/// `Params` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    width: u32,
    height: u32,
    iters: u32,
    last: u32,
    exp: i32,
    want_smooth: u32,
    bla_levels: u32,
    bla_n: u32,
}

/// Compiles the variant with deltas in `mantissa`, with the distance estimate's derivative
/// where `de`.
fn kernel(device: &wgpu::Device, mantissa: Mantissa, de: bool) -> Result<ComputeKernel, BackendError> {
    use Binding::{ReadOnly, ReadWrite, Uniform};
    let file = match (mantissa, de) {
        (Mantissa::F32, false) => "mandelbrot_deep.wgsl + mandelbrot_deep_f32.wgsl",
        (Mantissa::F64, false) => "mandelbrot_deep.wgsl + mandelbrot_deep_f64.wgsl",
        (Mantissa::F32, true) => "mandelbrot_deep.wgsl + mandelbrot_deep_f32.wgsl + mandelbrot_deep_slope.wgsl",
        (Mantissa::F64, true) => "mandelbrot_deep.wgsl + mandelbrot_deep_f64.wgsl + mandelbrot_deep_slope.wgsl",
    };
    let source =
        if de { super::shader::mandelbrot_deep_de(mantissa) } else { super::shader::mandelbrot_deep(mantissa) };
    // params, orbit, grid, counts, total, smooth values, BLA coefficients, BLA radii, BLA exponents
    // (and the distances).
    let kinds = [Uniform, ReadOnly, ReadOnly, ReadWrite, ReadWrite, ReadWrite, ReadOnly, ReadOnly, ReadOnly, ReadWrite];
    ComputeKernel::with_guards(
        device,
        file,
        &source,
        "mandelbrot_deep",
        &kinds[..if de { 10 } else { 9 }],
        super::Guards::DEEP,
    )
}

/// The variants compiled so far (by their deltas' precision): counts (and smooth values), and
/// with distance estimates.
#[derive(Default)]
pub(crate) struct Pipelines {
    plain: PerPrecision<ComputeKernel>,
    de: PerPrecision<ComputeKernel>,
}

/// Computes the counts of `job` into `counts` with deltas in `mantissa`.
#[expect(clippy::too_many_lines, reason = "one dispatch in order: checks, buffers, pass, read-back, timing")]
pub(crate) fn run(
    gpu: &Gpu,
    pipelines: &mut Pipelines,
    mantissa: Mantissa,
    job: &DeepJob,
    counts: &mut [i32],
    smooth: Option<&mut [f32]>,
    de: Option<&mut [f32]>,
) -> Result<MandelbrotRun, BackendError> {
    use crate::sim::fractal::distance::DE_VALUES;
    let n = job.pixels();
    crate::backend::check_image_len(counts, smooth.as_deref(), n)?;
    if let Some(de) = de.as_deref() {
        if smooth.is_none() {
            return Err(BackendError::Invalid("distance estimates need the smooth values' buffer too".to_owned()));
        }
        crate::backend::check_de_len(de, n)?;
    }
    let want_smooth = smooth.is_some();
    let want_de = de.is_some();
    if mantissa == Mantissa::F64 && gpu.mandelbrot_f64.is_none() {
        return Err(BackendError::Invalid(format!("this adapter has no f64 (no SHADER_F64 on {})", gpu.adapter.name)));
    }
    let cache = if want_de { &mut pipelines.de } else { &mut pipelines.plain };
    let pipeline = cache.get_or_make(mantissa.into(), || kernel(&gpu.device, mantissa, want_de))?;
    let what = format!("deep mandelbrot {}x{}", job.width, job.height);
    if n > 1 << 30 {
        return Err(BackendError::Invalid(format!("{what} has more than 2^30 pixels, the wgpu backend's limit")));
    }
    check_fits(
        KIND,
        &format!("{what} counts (against the device's largest storage buffer)"),
        4 * n as u64,
        Some(gpu.max_storage_bytes()),
    )?;
    let groups = ((job.width as u32).div_ceil(TILE), (job.height as u32).div_ceil(TILE));
    let max = gpu.device.limits().max_compute_workgroups_per_dimension;
    if groups.0 > max || groups.1 > max {
        return Err(BackendError::Invalid(format!(
            "{what} needs {}x{} workgroups, this device allows {max} per dimension",
            groups.0, groups.1
        )));
    }
    let start = Instant::now();
    let o = &job.orbit;
    let g = job.grid;
    // `orbit`: Z_m; `aux`: the grid, then per m the rounding residues, |Z_m|^2 - 4 and the
    // exponent of a tiny Z_m (exact in either float).
    let (last, orbit_bytes, grid_bytes): (usize, Vec<u8>, Vec<u8>) = match mantissa {
        Mantissa::F64 => {
            let last = o.last_f64;
            let orbit: Vec<f64> = (0..=last).flat_map(|m| [o.re[m], o.im[m]]).collect();
            let aux: Vec<f64> = [g.ax, g.bx, g.ay, g.by]
                .into_iter()
                .chain((0..=last).flat_map(|m| [o.re_lo[m], o.im_lo[m], o.mag4[m], f64::from(o.exp[m])]))
                .collect();
            (last, bytemuck::cast_slice(&orbit).to_vec(), bytemuck::cast_slice(&aux).to_vec())
        }
        Mantissa::F32 => {
            let last = o.last_f32;
            let orbit: Vec<f32> = (0..=last).flat_map(|m| [o.re32[m], o.im32[m]]).collect();
            let aux: Vec<f32> = [g.ax as f32, g.bx as f32, g.ay as f32, g.by as f32]
                .into_iter()
                .chain((0..=last).flat_map(|m| [o.re32_lo[m], o.im32_lo[m], o.mag4_32[m], o.exp32[m] as f32]))
                .collect();
            (last, bytemuck::cast_slice(&orbit).to_vec(), bytemuck::cast_slice(&aux).to_vec())
        }
    };
    // The BLA table: f64 deltas only (one unused zero entry otherwise).
    let bla = &job.bla;
    let use_bla = mantissa == Mantissa::F64 && !bla.is_empty();
    // `bla_r2`: (r^2 for plain deltas, the radius's mantissa) an entry; `bla_exps`: A's, B's and
    // the radius's exponents, and 0.
    let (bla_ab, bla_r2, bla_exps): (Vec<u8>, Vec<u8>, Vec<u8>) = match mantissa {
        Mantissa::F64 if use_bla => {
            let r: Vec<f64> = bla.r2.iter().zip(&bla.rm).flat_map(|(&a, &b)| [a, b]).collect();
            (
                bytemuck::cast_slice(&bla.ab).to_vec(),
                bytemuck::cast_slice(&r).to_vec(),
                bytemuck::cast_slice(&bla.exps).to_vec(),
            )
        }
        Mantissa::F64 => (vec![0; 32], vec![0; 16], vec![0; 16]),
        Mantissa::F32 => (vec![0; 16], vec![0; 8], vec![0; 16]),
    };
    use wgpu::BufferUsages as U;
    let count_bytes = 4 * n as u64;
    let params_buf = gpu.buffer("deep params", size_of::<Params>() as u64, U::UNIFORM | U::COPY_DST)?;
    let orbit_buf = gpu.buffer("deep orbit", orbit_bytes.len() as u64, U::STORAGE | U::COPY_DST)?;
    let grid_buf = gpu.buffer("deep orbit residues", grid_bytes.len() as u64, U::STORAGE | U::COPY_DST)?;
    let counts_buf = gpu.buffer("deep counts", count_bytes, U::STORAGE | U::COPY_SRC)?;
    let total_buf = gpu.buffer("deep total", 16, U::STORAGE | U::COPY_SRC | U::COPY_DST)?;
    let bla_ab_buf = gpu.buffer("deep BLA steps", bla_ab.len() as u64, U::STORAGE | U::COPY_DST)?;
    let bla_r2_buf = gpu.buffer("deep BLA radii", bla_r2.len() as u64, U::STORAGE | U::COPY_DST)?;
    let bla_exps_buf = gpu.buffer("deep BLA exponents", bla_exps.len() as u64, U::STORAGE | U::COPY_DST)?;
    let smooth_bytes = if want_smooth { count_bytes } else { 0 };
    let smooth_buf = gpu.buffer("deep smooth values", smooth_bytes.max(4), U::STORAGE | U::COPY_SRC)?;
    let de_bytes = if want_de { (4 * DE_VALUES * n) as u64 } else { 0 };
    let de_buf = gpu.buffer("deep distances", de_bytes.max(4), U::STORAGE | U::COPY_SRC)?;
    let staging = gpu.buffer("deep readback", count_bytes + smooth_bytes + 16 + de_bytes, U::MAP_READ | U::COPY_DST)?;
    let timer = Timer::new(gpu)?;
    let params = Params {
        width: job.width as u32,
        height: job.height as u32,
        iters: job.iters,
        last: last as u32,
        exp: g.exp,
        want_smooth: u32::from(want_smooth),
        bla_levels: if use_bla { bla.levels } else { 0 },
        bla_n: bla.n,
    };
    gpu.scoped(&format!("computing {what}"), || {
        gpu.queue.write_buffer(&params_buf, 0, bytemuck::bytes_of(&params));
        gpu.queue.write_buffer(&orbit_buf, 0, &orbit_bytes);
        gpu.queue.write_buffer(&grid_buf, 0, &grid_bytes);
        gpu.queue.write_buffer(&bla_ab_buf, 0, &bla_ab);
        gpu.queue.write_buffer(&bla_r2_buf, 0, &bla_r2);
        gpu.queue.write_buffer(&bla_exps_buf, 0, &bla_exps);
        let buffers = [
            &params_buf,
            &orbit_buf,
            &grid_buf,
            &counts_buf,
            &total_buf,
            &smooth_buf,
            &bla_ab_buf,
            &bla_r2_buf,
            &bla_exps_buf,
            &de_buf,
        ];
        let bind = pipeline.bind_buffers(gpu, "mandelbrot_deep", &buffers[..if want_de { 10 } else { 9 }]);
        let mut encoder =
            gpu.escape_pass("mandelbrot_deep", (&pipeline.pipeline, &bind), groups, &total_buf, timer.as_ref());
        encoder.copy_buffer_to_buffer(&counts_buf, 0, &staging, 0, count_bytes);
        if want_smooth {
            encoder.copy_buffer_to_buffer(&smooth_buf, 0, &staging, count_bytes, smooth_bytes);
        }
        encoder.copy_buffer_to_buffer(&total_buf, 0, &staging, count_bytes + smooth_bytes, 16);
        if want_de {
            encoder.copy_buffer_to_buffer(&de_buf, 0, &staging, count_bytes + smooth_bytes + 16, de_bytes);
        }
        gpu.queue.submit([encoder.finish()]);
    })?;
    let (total_iters, executed) = gpu.read_back(&staging, count_bytes + smooth_bytes + 16 + de_bytes, |bytes| {
        let (c, rest) = bytes.split_at(count_bytes as usize);
        bytemuck::cast_slice_mut::<i32, u8>(counts).copy_from_slice(c);
        let (s, rest) = rest.split_at(smooth_bytes as usize);
        if let Some(smooth) = smooth {
            bytemuck::cast_slice_mut::<f32, u8>(smooth).copy_from_slice(s);
        }
        let (t, d) = rest.split_at(16);
        if let Some(de) = de {
            bytemuck::cast_slice_mut::<f32, u8>(de).copy_from_slice(d);
        }
        let words: &[u32] = bytemuck::cast_slice(t);
        (u64::from(words[0]) | (u64::from(words[1]) << 32), u64::from(words[2]) | (u64::from(words[3]) << 32))
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
    if counts.contains(&-1) {
        return Err(BackendError::Runtime {
            kind: KIND,
            message: format!(
                "{what}: the adapter stopped the deep-zoom loop before the pixels' iterations ran out (llvmpipe \
                 ends a shader's loops after 65535 trips); render this view with --backend cpu or on a GPU"
            ),
        });
    }
    Ok(MandelbrotRun { total_iters, executed_iters: Some(executed), timing })
}
