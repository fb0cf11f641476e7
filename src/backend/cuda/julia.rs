//! Julia sets on CUDA, and the Mandelbrot set with smooth values: `kernels/julia.cu`
//! (`julia_f64` / `julia_f32`, one template), the twins of `src/backend/cpu/julia.rs` and
//! `shaders/julia.wgsl`. The Mandelbrot mode (`mandel = 1`: the orbit starts at 0, `c` is the
//! pixel) is the seed's rule with the smooth value beside it ([`crate::backend::Backend::mandelbrot_smooth`]);
//! `julia_de_*` add the distance estimate, of the Mandelbrot set
//! ([`crate::backend::Backend::mandelbrot_distance`]) or of a Julia set
//! ([`crate::backend::Backend::julia_distance`]).

use std::sync::Arc;
use web_time::Instant;

use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};

use super::launch::launch;
use super::{BackendError, Device, Events, check_free, runtime};
use crate::backend::{MandelbrotRun, Timing, TimingSource, check_de_len, check_image_len};
use crate::sim::fractal::distance::DE_VALUES;
use crate::sim::fractal::mandelbrot::{MandelbrotParams, Precision};

/// Computes the image of `grid`: the Julia set of `c`, or (`c = None`) the Mandelbrot set, into
/// `counts` and, when given, `smooth`.
pub(super) fn julia(
    dev: &Device,
    stream: &Arc<CudaStream>,
    grid: &MandelbrotParams,
    c: Option<[f64; 2]>,
    counts: &mut [i32],
    smooth: Option<&mut [f32]>,
) -> Result<MandelbrotRun, BackendError> {
    grid.validate()?;
    let n = grid.pixels();
    check_image_len(counts, smooth.as_deref(), n)?;
    let start = Instant::now();
    let what = format!("{} {}x{}", if c.is_some() { "julia" } else { "mandelbrot" }, grid.width, grid.height);
    let want_smooth = smooth.is_some();
    check_free(dev, &what, if want_smooth { 8 } else { 4 } * n as u64)?;
    let mut dev_counts = stream.alloc_zeros::<i32>(n).map_err(|e| runtime("allocating the counts", e))?;
    let mut dev_smooth = stream
        .alloc_zeros::<f32>(if want_smooth { n } else { 1 })
        .map_err(|e| runtime("allocating the smooth values", e))?;
    let mut total = stream.alloc_zeros::<u64>(1).map_err(|e| runtime("allocating the total", e))?;
    let events = Events::new(&dev.ctx)?;
    let (px, py) = grid.pixel_size();
    let b = grid.bounds;
    let [cr, ci] = c.unwrap_or([0.0, 0.0]);
    let (width, height, iters) = (grid.width as i32, grid.height as i32, grid.iters as i32);
    let mandel = i32::from(c.is_none());
    let want = i32::from(want_smooth);
    let func = match grid.precision {
        Precision::F64 => &dev.julia_f64,
        Precision::F32 => &dev.julia_f32,
    };
    let cfg = LaunchConfig {
        grid_dim: (grid.width.div_ceil(32) as u32, grid.height.div_ceil(8) as u32, 1),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    events.record_start(stream)?;
    let mut args = stream.launch_builder(func);
    args.arg(&width).arg(&height).arg(&b.minx).arg(&b.miny).arg(&px).arg(&py).arg(&cr).arg(&ci);
    args.arg(&mandel).arg(&iters).arg(&mut dev_counts).arg(&mut dev_smooth).arg(&want).arg(&mut total);
    // Launch contract: the arguments match the kernel's signature; `dev_counts` holds width*height values
    // and `dev_smooth` as many when `want_smooth` is 1 (the kernel writes it only then).
    launch(args, cfg, "launching julia")?;
    events.record_stop(stream)?;
    stream.memcpy_dtoh(&dev_counts, counts).map_err(|e| runtime("copying counts", e))?;
    if let Some(smooth) = smooth {
        stream.memcpy_dtoh(&dev_smooth, smooth).map_err(|e| runtime("copying smooth values", e))?;
    }
    let total = stream.clone_dtoh(&total).map_err(|e| runtime("copying the total", e))?;
    stream.synchronize().map_err(|e| runtime("waiting for the device", e))?;
    let device = events.elapsed()?;
    Ok(MandelbrotRun {
        total_iters: total.first().copied().unwrap_or(0),
        executed_iters: None,
        timing: Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents },
    })
}

/// Computes the image of `grid` with distance estimates (`julia_de_*`): the Julia set of `c`,
/// or (`c = None`) the Mandelbrot set; counts, smooth values and [`DE_VALUES`] numbers a pixel
/// into `de`.
pub(super) fn julia_de(
    dev: &Device,
    stream: &Arc<CudaStream>,
    grid: &MandelbrotParams,
    c: Option<[f64; 2]>,
    counts: &mut [i32],
    smooth: &mut [f32],
    de: &mut [f32],
) -> Result<MandelbrotRun, BackendError> {
    grid.validate()?;
    let n = grid.pixels();
    check_image_len(counts, Some(smooth), n)?;
    check_de_len(de, n)?;
    let start = Instant::now();
    let what =
        format!("{} with distances {}x{}", if c.is_some() { "julia" } else { "mandelbrot" }, grid.width, grid.height);
    check_free(dev, &what, (8 + 4 * DE_VALUES as u64) * n as u64)?;
    let mut dev_counts = stream.alloc_zeros::<i32>(n).map_err(|e| runtime("allocating the counts", e))?;
    let mut dev_smooth = stream.alloc_zeros::<f32>(n).map_err(|e| runtime("allocating the smooth values", e))?;
    let mut dev_de = stream.alloc_zeros::<f32>(n * DE_VALUES).map_err(|e| runtime("allocating the distances", e))?;
    let mut total = stream.alloc_zeros::<u64>(1).map_err(|e| runtime("allocating the total", e))?;
    let events = Events::new(&dev.ctx)?;
    let (px, py) = grid.pixel_size();
    let b = grid.bounds;
    let [cr, ci] = c.unwrap_or([0.0, 0.0]);
    let (width, height, iters) = (grid.width as i32, grid.height as i32, grid.iters as i32);
    let mandel = i32::from(c.is_none());
    let func = match grid.precision {
        Precision::F64 => &dev.julia_de_f64,
        Precision::F32 => &dev.julia_de_f32,
    };
    let cfg = LaunchConfig {
        grid_dim: (grid.width.div_ceil(32) as u32, grid.height.div_ceil(8) as u32, 1),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    events.record_start(stream)?;
    let mut args = stream.launch_builder(func);
    args.arg(&width).arg(&height).arg(&b.minx).arg(&b.miny).arg(&px).arg(&py).arg(&cr).arg(&ci);
    args.arg(&mandel).arg(&iters).arg(&mut dev_counts).arg(&mut dev_smooth).arg(&mut dev_de).arg(&mut total);
    // Launch contract: the arguments match the kernel's signature; `dev_counts` and `dev_smooth`
    // hold width*height values, `dev_de` DE_VALUES times as many.
    launch(args, cfg, "launching julia_de")?;
    events.record_stop(stream)?;
    stream.memcpy_dtoh(&dev_counts, counts).map_err(|e| runtime("copying counts", e))?;
    stream.memcpy_dtoh(&dev_smooth, smooth).map_err(|e| runtime("copying smooth values", e))?;
    stream.memcpy_dtoh(&dev_de, de).map_err(|e| runtime("copying distances", e))?;
    let total = stream.clone_dtoh(&total).map_err(|e| runtime("copying the total", e))?;
    stream.synchronize().map_err(|e| runtime("waiting for the device", e))?;
    let device = events.elapsed()?;
    Ok(MandelbrotRun {
        total_iters: total.first().copied().unwrap_or(0),
        executed_iters: None,
        timing: Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents },
    })
}
