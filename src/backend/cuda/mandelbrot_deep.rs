//! Deep-zoom Mandelbrot counts on CUDA by perturbation: `kernels/mandelbrot_deep.cu`
//! (`mandelbrot_deep_f64`; `mandelbrot_deep_de_f64` with the distance estimates of
//! [`crate::sim::fractal::deep_distance`]), the twin of `src/backend/cpu/mandelbrot_deep.rs`
//! ([`crate::sim::fractal::perturb::perturb_count`]) and `shaders/mandelbrot_deep.wgsl`.
//!
//! The reference orbit is computed on the host (in arbitrary precision, by
//! [`DeepJob::prepare`]) and copied to the device with each image; the kernel iterates the
//! pixels' deltas in `f64` with an extended exponent where they are below `f64`'s range.

use std::sync::Arc;
use web_time::Instant;

use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};

use super::launch::launch;
use super::{BackendError, Device, Events, check_free, runtime};
use crate::backend::{MandelbrotRun, Timing, TimingSource};
use crate::sim::fractal::deep::DeepJob;

/// Computes the counts of `job` into `counts` (`width*height`, row 0 at `miny`).
pub(super) fn mandelbrot_deep(
    dev: &Device,
    stream: &Arc<CudaStream>,
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
    let start = Instant::now();
    let what = format!("deep mandelbrot {}x{}", job.width, job.height);
    let orbit = &job.orbit;
    let last = orbit.last_f64 + 1;
    let bla = &job.bla;
    let per_pixel = if want_smooth { 8 } else { 4 } + if want_de { 4 * DE_VALUES as u64 } else { 0 };
    check_free(dev, &what, per_pixel * n as u64 + 44 * last as u64 + 64 * bla.len() as u64)?;
    let up = |v: &[f64]| stream.clone_htod(&v[..last]).map_err(|e| runtime("copying the reference orbit", e));
    let (zr, zi, zr_lo, zi_lo, mag4) =
        (up(&orbit.re)?, up(&orbit.im)?, up(&orbit.re_lo)?, up(&orbit.im_lo)?, up(&orbit.mag4)?);
    let zexp = stream.clone_htod(&orbit.exp[..last]).map_err(|e| runtime("copying the reference orbit", e))?;
    // The BLA table (one zero entry where it is empty: the kernel then never reads it).
    let (ab, r2, rm, exps): (&[f64], &[f64], &[f64], &[i32]) =
        if bla.is_empty() { (&[0.0; 4], &[0.0], &[0.0], &[0; 4]) } else { (&bla.ab, &bla.r2, &bla.rm, &bla.exps) };
    let copy = |v: &[f64]| stream.clone_htod(v).map_err(|e| runtime("copying the BLA table", e));
    let (bla_ab, bla_r2, bla_rm) = (copy(ab)?, copy(r2)?, copy(rm)?);
    let bla_exps = stream.clone_htod(exps).map_err(|e| runtime("copying the BLA table", e))?;
    let bla_levels = if bla.is_empty() { 0i32 } else { bla.levels as i32 };
    let bla_n = bla.n;
    let mut dev_counts = stream.alloc_zeros::<i32>(n).map_err(|e| runtime("allocating the counts", e))?;
    let mut dev_smooth = stream
        .alloc_zeros::<f32>(if want_smooth { n } else { 1 })
        .map_err(|e| runtime("allocating the smooth values", e))?;
    let mut dev_de = stream
        .alloc_zeros::<f32>(if want_de { n * DE_VALUES } else { 1 })
        .map_err(|e| runtime("allocating the distance estimates", e))?;
    let want = i32::from(want_smooth);
    let mut total = stream.alloc_zeros::<u64>(2).map_err(|e| runtime("allocating the total", e))?;
    let events = Events::new(&dev.ctx)?;
    let g = job.grid;
    let (width, height, iters) = (job.width as i32, job.height as i32, job.iters as i32);
    let last_i32 = orbit.last_f64 as i32;
    let cfg = LaunchConfig {
        grid_dim: (job.width.div_ceil(16) as u32, job.height.div_ceil(16) as u32, 1),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    events.record_start(stream)?;
    let (kernel, name) = if want_de {
        (&dev.mandelbrot_deep_de_f64, "mandelbrot_deep_de_f64")
    } else {
        (&dev.mandelbrot_deep_f64, "mandelbrot_deep_f64")
    };
    let mut args = stream.launch_builder(kernel);
    args.arg(&width).arg(&height).arg(&zr).arg(&zi).arg(&zr_lo).arg(&zi_lo).arg(&mag4).arg(&zexp).arg(&last_i32);
    args.arg(&bla_ab).arg(&bla_r2).arg(&bla_rm).arg(&bla_exps).arg(&bla_levels).arg(&bla_n).arg(&g.exp);
    args.arg(&g.ax).arg(&g.bx).arg(&g.ay).arg(&g.by).arg(&iters).arg(&mut dev_counts);
    if want_de {
        args.arg(&mut dev_smooth).arg(&mut dev_de).arg(&mut total);
    } else {
        args.arg(&mut dev_smooth).arg(&want).arg(&mut total);
    }
    // Launch contract: the arguments match the kernel's signature; the six orbit arrays hold `last + 1` values
    // and the kernel reads indices 0..=last; the five BLA arrays hold the table's entries (4 values an entry in `bla_ab` and `bla_exps`) (read only
    // with bla_levels >= 2, at entries below level_offset(n, levels)); `total` holds 2 values; `dev_counts` holds width*height values, `dev_smooth`
    // as many when `want` is 1 (the kernel writes it only then); for mandelbrot_deep_de_f64 (`want_de`) `dev_smooth` holds
    // width*height values and `dev_de` 3 a pixel, written for every pixel.
    launch(args, cfg, &format!("launching {name}"))?;
    events.record_stop(stream)?;
    stream.memcpy_dtoh(&dev_counts, counts).map_err(|e| runtime("copying counts", e))?;
    if let Some(smooth) = smooth {
        stream.memcpy_dtoh(&dev_smooth, smooth).map_err(|e| runtime("copying smooth values", e))?;
    }
    if let Some(de) = de {
        stream.memcpy_dtoh(&dev_de, de).map_err(|e| runtime("copying the distance estimates", e))?;
    }
    let total = stream.clone_dtoh(&total).map_err(|e| runtime("copying the total", e))?;
    stream.synchronize().map_err(|e| runtime("waiting for the device", e))?;
    let device = events.elapsed()?;
    Ok(MandelbrotRun {
        total_iters: total.first().copied().unwrap_or(0),
        executed_iters: total.get(1).copied(),
        timing: Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents },
    })
}
