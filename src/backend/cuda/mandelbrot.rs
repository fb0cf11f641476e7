//! Mandelbrot counts on CUDA: `kernels/mandelbrot.cu` (`mandelbrot_f64` / `mandelbrot_f32`,
//! one template), the twins of `src/backend/cpu/mandelbrot.rs` and `shaders/mandelbrot.wgsl`.
//!
//! Points deep inside the main cardioid and the period-2 bulb skip the loop (their count is
//! exactly the rule's `iters`); each block sums the rule's iterations, `min(count + 1, iters)`
//! per pixel. Counts come back as `u16` when `iters` allows (half the bytes over the bus),
//! in chunks widened on the host while the next is on the bus.

use std::sync::Arc;
use web_time::Instant;

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;

use super::copy::{copy_chunked_to, copy_out, pinned, pinned_ring};
use super::launch::{alloc_uninit, launch};
use super::{BackendError, Device, Events, alloc_error, check_free, runtime};
use crate::backend::{MandelbrotRun, Timing, TimingSource};
use crate::sim::fractal::mandelbrot::{MandelbrotParams, Precision};

/// Mandelbrot buffers, kept between calls of the same or a smaller size.
pub(super) struct MandelBuffers {
    /// Counts as u16 or i32 (see `narrow`), 4 bytes per pixel allocated.
    counts: CudaSlice<u8>,
    /// The pinned staging ring of the copy back (up to `copy::RING_BYTES`).
    host: PinnedHostSlice<u8>,
    total: CudaSlice<u64>,
    host_total: PinnedHostSlice<u64>,
    events: Events,
    /// One per slot of the staging ring.
    chunk_events: Vec<CudaEvent>,
}

/// Computes the counts of `params` into `counts` (`width*height`, row 0 at `miny`),
/// reusing `buffers` when they are large enough.
pub(super) fn mandelbrot(
    dev: &Device,
    stream: &Arc<CudaStream>,
    buffers: &mut Option<MandelBuffers>,
    params: &MandelbrotParams,
    counts: &mut [i32],
) -> Result<MandelbrotRun, BackendError> {
    params.validate()?;
    let n = params.pixels();
    if counts.len() != n {
        return Err(BackendError::Invalid(format!("counts hold {} values, image has {n}", counts.len())));
    }
    let start = Instant::now();
    if buffers.as_ref().is_none_or(|m| m.counts.len() < 4 * n) {
        *buffers = None; // free the old buffers before asking for larger ones
        let what = format!("mandelbrot {}x{}", params.width, params.height);
        check_free(dev, &what, 4 * n as u64)?;
        // Launch contract: every byte that is copied back is written by the kernel first.
        let dev_counts = alloc_uninit::<u8>(stream, 4 * n).map_err(|e| alloc_error(&what, 4 * n as u64, e))?;
        *buffers = Some(MandelBuffers {
            counts: dev_counts,
            host: pinned_ring(dev, &what, 4 * n)?,
            total: stream.alloc_zeros::<u64>(1).map_err(|e| runtime("allocating the total", e))?,
            host_total: pinned(dev, "the iteration total", 1)?,
            events: Events::new(&dev.ctx)?,
            chunk_events: Vec::new(),
        });
    }
    let Some(m) = buffers.as_mut() else { unreachable!("allocated above") };
    stream.memset_zeros(&mut m.total).map_err(|e| runtime("clearing the total", e))?;
    let (px, py) = params.pixel_size();
    let b = params.bounds;
    let (width, height) = (params.width as i32, params.height as i32);
    let iters = params.iters as i32;
    // Counts fit in u16 up to 65535 iterations: half the bytes over PCIe.
    let narrow = u16::try_from(params.iters).is_ok();
    let narrow_i32 = i32::from(narrow);
    let func = match params.precision {
        Precision::F64 => &dev.mandelbrot_f64,
        Precision::F32 => &dev.mandelbrot_f32,
    };
    let cfg = LaunchConfig {
        grid_dim: (params.width.div_ceil(32) as u32, params.height.div_ceil(32) as u32, 1),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    m.events.record_start(stream)?;
    let mut args = stream.launch_builder(func);
    args.arg(&width).arg(&height).arg(&b.minx).arg(&b.miny).arg(&px).arg(&py).arg(&iters);
    args.arg(&mut m.counts).arg(&narrow_i32).arg(&mut m.total);
    // Launch contract: the arguments match the kernel's signature; `counts` holds 4n bytes.
    launch(args, cfg, "launching mandelbrot")?;
    m.events.record_stop(stream)?;
    stream.memcpy_dtoh(&m.total, &mut m.host_total).map_err(|e| runtime("copying the total", e))?;
    // The counts come back in chunks through the pinned ring, each widened into `counts` on all
    // cores while the next are on the bus.
    let bytes = if narrow { 2 * n } else { 4 * n };
    let host = m.host.as_mut_slice().map_err(|e| runtime("waiting for the host buffer", e))?;
    let (dptr, _guard) = m.counts.device_ptr(stream);
    copy_chunked_to(&dev.ctx, stream, dptr, bytes, host, &mut m.chunk_events, None, |offset, chunk| {
        if narrow {
            let first = offset / 2;
            let src: &[u16] = bytemuck::cast_slice(chunk);
            counts[first..first + src.len()]
                .par_chunks_mut(1 << 16)
                .zip(src.par_chunks(1 << 16))
                .for_each(|(o, s)| o.iter_mut().zip(s).for_each(|(o, &s)| *o = i32::from(s)));
        } else {
            let first = offset / 4;
            let src: &[i32] = bytemuck::cast_slice(chunk);
            copy_out(src, &mut counts[first..first + src.len()]);
        }
        Ok(())
    })?;
    // The total was copied before the chunks, which have all been waited for.
    let total = m.host_total.as_slice().map_err(|e| runtime("reading the total", e))?[0];
    let device = m.events.elapsed()?;
    Ok(MandelbrotRun {
        total_iters: total,
        executed_iters: None,
        timing: Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents },
    })
}
