//! Copies to the host: pinned staging buffers, filled in chunks so the host copies each
//! chunk out while the next is on the bus (one thread up to 4 MiB, all cores beyond).

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaEvent, CudaStream, PinnedHostSlice, sys};
use rayon::prelude::*;

use super::{BackendError, Device, alloc_error, runtime};

/// Pinned host memory of `len` values, reported as an allocation failure of `what`.
pub(super) fn pinned<T: cudarc::driver::DeviceRepr>(
    dev: &Device,
    what: &str,
    len: usize,
) -> Result<PinnedHostSlice<T>, BackendError> {
    // SAFETY: the memory is only read after a copy into it has completed. Flags 0 (not
    // write-combined): the host reads it back.
    unsafe { dev.ctx.alloc_pinned_with_flags::<T>(len, 0) }
        .map_err(|e| alloc_error(what, (len * size_of::<T>()) as u64, e))
}

/// Copies pinned memory into `out`: on all cores for large copies (one thread would take
/// longer than the PCIe transfer for frames of tens of MB), on this thread up to 4 MiB,
/// where waking rayon's threads cost more than it saved (measured: 0.3–0.9 ms for 3.2 MB).
pub(super) fn copy_out<T: Copy + Send + Sync>(src: &[T], out: &mut [T]) {
    const CHUNK: usize = 1 << 18;
    if size_of_val(out) <= 4 << 20 {
        out.copy_from_slice(&src[..out.len()]);
    } else {
        out.par_chunks_mut(CHUNK).zip(src.par_chunks(CHUNK)).for_each(|(o, s)| o.copy_from_slice(&s[..o.len()]));
    }
}

/// Copies `out.len()` bytes from device address `src` to `out` through the pinned
/// `staging` buffer in chunks: the host copies each chunk out while the next is on the bus.
/// `after` is recorded once every chunk is queued (the end of a timed region).
pub(super) fn copy_chunked(
    ctx: &Arc<CudaContext>,
    stream: &CudaStream,
    src: sys::CUdeviceptr,
    staging: &mut [u8],
    out: &mut [u8],
    events: &mut Vec<CudaEvent>,
    after: Option<&CudaEvent>,
) -> Result<(), BackendError> {
    let n = out.len();
    let chunk = if n > 32 << 20 { 8 << 20 } else { 1 << 20 };
    let chunks = n.div_ceil(chunk);
    while events.len() < chunks {
        events.push(ctx.new_event(None).map_err(|e| runtime("creating an event", e))?);
    }
    for (k, dst) in staging[..n].chunks_mut(chunk).enumerate() {
        // SAFETY: `dst` is pinned memory the caller keeps alive, and every chunk is waited
        // for below before this function returns; the source range is `n` bytes of a
        // device buffer that holds at least that many.
        unsafe { cudarc::driver::result::memcpy_dtoh_async(dst, src + (k * chunk) as u64, stream.cu_stream()) }
            .map_err(|e| runtime("copying to the host", e))?;
        events[k].record(stream).map_err(|e| runtime("recording an event", e))?;
    }
    if let Some(e) = after {
        e.record(stream).map_err(|e| runtime("recording an event", e))?;
    }
    for (k, (o, s)) in out.chunks_mut(chunk).zip(staging[..n].chunks(chunk)).enumerate() {
        events[k].synchronize().map_err(|e| runtime("waiting for a copy", e))?;
        copy_out(s, o);
    }
    Ok(())
}
