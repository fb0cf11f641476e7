//! Copies to the host: a small pinned staging ring, filled chunk by chunk, so the host consumes
//! each chunk (copies it out on all cores, or hands it to a file) while the next ones are on the
//! bus, and a result of any size needs only [`RING_BYTES`] of pinned memory: pinning a buffer as
//! large as the result (1 GiB for a 16384² field) cost more than the copy itself.
//!
//! [`ring_pipeline`] is the order of operations, free of CUDA so it is tested on the CPU with a
//! fake copier; [`copy_chunked_to`] runs it with `cuMemcpyDtoHAsync` and one event per slot.

#![expect(
    unsafe_code,
    reason = "pinned host memory and asynchronous copies into it are unsafe cudarc APIs; each use carries a SAFETY note"
)]

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaEvent, CudaStream, PinnedHostSlice, sys};
use rayon::prelude::*;

use super::launch::record;
use super::{BackendError, Device, alloc_error, runtime};

/// Bytes per chunk of a large copy (32 MiB or more); smaller copies use a quarter of the result,
/// at least 1 MiB, so the host starts sooner.
pub(super) const CHUNK_BYTES: usize = 8 << 20;
/// Chunks in flight at once: the ring's slots.
pub(super) const RING_SLOTS: usize = 4;
/// Pinned bytes a staging ring needs for a copy of any size: [`RING_SLOTS`] chunks.
pub(super) const RING_BYTES: usize = RING_SLOTS * CHUNK_BYTES;

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

/// Pinned staging for a copy of `len` values: the whole of it up to [`RING_BYTES`], a ring of
/// that size beyond (what [`copy_chunked`] needs).
pub(super) fn pinned_ring<T: cudarc::driver::DeviceRepr>(
    dev: &Device,
    what: &str,
    len: usize,
) -> Result<PinnedHostSlice<T>, BackendError> {
    pinned(dev, what, len.min(RING_BYTES / size_of::<T>()).max(1))
}

/// Copies pinned memory into `out`: on all cores for large copies (one thread would take
/// longer than the PCIe transfer for frames of tens of MB; the pieces are 256 KiB so every core
/// takes some of each chunk and first-touches its pages), on this thread up to 4 MiB, where waking
/// rayon's threads cost more than it saved (measured: 0.3–0.9 ms for 3.2 MB).
pub(super) fn copy_out<T: Copy + Send + Sync>(src: &[T], out: &mut [T]) {
    let piece = (256 << 10) / size_of::<T>().max(1);
    if size_of_val(out) <= 4 << 20 {
        out.copy_from_slice(&src[..out.len()]);
    } else {
        out.par_chunks_mut(piece).zip(src.par_chunks(piece)).for_each(|(o, s)| o.copy_from_slice(&s[..o.len()]));
    }
}

/// One step of [`ring_pipeline`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Queue chunk `chunk` into slot `slot` (asynchronously).
    Start { chunk: usize, slot: usize },
    /// Wait for chunk `chunk` in slot `slot` and consume it; the slot is free afterwards.
    Finish { chunk: usize, slot: usize },
}

/// Runs `chunks` chunks through a ring of `slots` slots: the first `slots` chunks are queued, then
/// each chunk is finished in order and, its slot free again, the chunk `slots` further on is
/// queued into it. So up to `slots` chunks are in flight while the host consumes one, and no slot
/// is written while the host reads it. Stops at the first error.
pub(super) fn ring_pipeline<E>(
    chunks: usize,
    slots: usize,
    mut step: impl FnMut(Step) -> Result<(), E>,
) -> Result<(), E> {
    let slots = slots.max(1);
    for chunk in 0..chunks.min(slots) {
        step(Step::Start { chunk, slot: chunk })?;
    }
    for chunk in 0..chunks {
        let slot = chunk % slots;
        step(Step::Finish { chunk, slot })?;
        if chunk + slots < chunks {
            step(Step::Start { chunk: chunk + slots, slot })?;
        }
    }
    Ok(())
}

/// Chunk size and slot count for a copy of `n` bytes through `staging` bytes of ring: as many
/// slots as the staging holds, so a result that fits it (up to [`RING_BYTES`]) is queued whole
/// at once and only a larger one waits on the ring. (Four 1 MiB slots for a 32 MiB result made
/// 32 round trips of event wait and hand-off: 4096² Mandelbrot counts took 8.9 ms instead of 3.6
/// on the H100.)
fn chunking(n: usize, staging: usize) -> (usize, usize) {
    // A quarter of the result, 1 to 8 MiB: few round trips, and the host starts early.
    let chunk = (n / 4).clamp(1 << 20, CHUNK_BYTES);
    let chunk = chunk.min(staging).min(n).max(1);
    (chunk, (staging / chunk).max(1))
}

/// Copies `n` bytes from device address `src` through the pinned `staging` ring (at least one
/// chunk long; [`RING_BYTES`] is enough for any `n`) and hands each chunk to `consume(offset,
/// bytes)` in order of offset while the next chunks are on the bus. `after` is recorded once the
/// last chunk is queued (the end of a timed region).
#[expect(clippy::too_many_arguments, reason = "the stream, source, staging, events and the consumer")]
pub(super) fn copy_chunked_to(
    ctx: &Arc<CudaContext>,
    stream: &CudaStream,
    src: sys::CUdeviceptr,
    n: usize,
    staging: &mut [u8],
    events: &mut Vec<CudaEvent>,
    after: Option<&CudaEvent>,
    mut consume: impl FnMut(usize, &[u8]) -> Result<(), BackendError>,
) -> Result<(), BackendError> {
    if n == 0 {
        return Ok(());
    }
    let (chunk, slots) = chunking(n, staging.len());
    let chunks = n.div_ceil(chunk);
    while events.len() < slots {
        events.push(ctx.new_event(None).map_err(|e| runtime("creating an event", e))?);
    }
    let range = |k: usize| k * chunk..(k * chunk + chunk).min(n);
    let result = ring_pipeline(chunks, slots, |step| match step {
        Step::Start { chunk: k, slot } => {
            let len = range(k).len();
            let dst = &mut staging[slot * chunk..slot * chunk + len];
            // SAFETY: `dst` is pinned memory the caller keeps alive; the pipeline neither reads
            // this slot nor queues another copy into it before the event recorded below has
            // completed, and on an error the stream is synchronised before returning. The source
            // range lies inside the `n` bytes of a device buffer that holds at least that many.
            unsafe { cudarc::driver::result::memcpy_dtoh_async(dst, src + (k * chunk) as u64, stream.cu_stream()) }
                .map_err(|e| runtime("copying to the host", e))?;
            record(&events[slot], stream)?;
            if k + 1 == chunks
                && let Some(e) = after
            {
                record(e, stream)?;
            }
            Ok(())
        }
        Step::Finish { chunk: k, slot } => {
            events[slot].synchronize().map_err(|e| runtime("waiting for a copy", e))?;
            let r = range(k);
            consume(r.start, &staging[slot * chunk..slot * chunk + r.len()])
        }
    });
    if result.is_err() {
        // Copies still queued must not land in the staging ring after it is handed back.
        let _ = stream.synchronize();
    }
    result
}

/// Copies `out.len()` bytes from device address `src` to `out` through the pinned `staging` ring
/// ([`copy_chunked_to`], each chunk copied out on all cores).
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
    copy_chunked_to(ctx, stream, src, n, staging, events, after, |offset, bytes| {
        copy_out(bytes, &mut out[offset..offset + bytes.len()]);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake copier: slots hold what "the bus" put there; a slot may not be queued while busy or
    /// read before its copy, and at most `slots` copies are in flight.
    #[test]
    fn the_ring_copies_every_chunk_once_in_order_with_copies_in_flight() {
        for (n, chunk, slots) in
            [(10_000usize, 1000usize, 4usize), (10_001, 1000, 4), (999, 1000, 4), (5000, 1000, 1), (3000, 1000, 8)]
        {
            let src: Vec<u8> = (0..n).map(|k| (k * 7 % 251) as u8).collect();
            let chunks = n.div_ceil(chunk);
            let mut ring: Vec<Option<(usize, Vec<u8>)>> = vec![None; slots];
            let (mut out, mut in_flight, mut most, mut next) = (Vec::new(), 0, 0, 0);
            ring_pipeline(chunks, slots, |step| {
                match step {
                    Step::Start { chunk: k, slot } => {
                        assert!(ring[slot].is_none(), "slot {slot} queued while busy");
                        ring[slot] = Some((k, src[k * chunk..((k + 1) * chunk).min(n)].to_vec()));
                        in_flight += 1;
                        most = most.max(in_flight);
                    }
                    Step::Finish { chunk: k, slot } => {
                        assert_eq!(k, next, "chunks finish in order");
                        let (got, bytes) = ring[slot].take().expect("finished before it was queued");
                        assert_eq!(got, k, "slot {slot} holds chunk {got}, not {k}");
                        out.extend_from_slice(&bytes);
                        in_flight -= 1;
                        next += 1;
                    }
                }
                Ok::<(), ()>(())
            })
            .unwrap();
            assert!(out == src, "{n} bytes in chunks of {chunk}: the copy differs");
            assert_eq!(most, slots.min(chunks), "copies in flight");
        }
    }

    #[test]
    fn the_ring_stops_at_the_first_error() {
        let mut steps = Vec::new();
        let r = ring_pipeline(10, 2, |s| {
            steps.push(s);
            if s == (Step::Finish { chunk: 1, slot: 1 }) { Err("disk full") } else { Ok(()) }
        });
        assert_eq!(r, Err("disk full"));
        assert_eq!(steps.len(), 5, "{steps:?}");
    }

    #[test]
    fn chunking_fits_the_ring() {
        assert_eq!(chunking(1 << 30, RING_BYTES), (CHUNK_BYTES, RING_SLOTS));
        assert_eq!(chunking(1 << 30, 1 << 30), (CHUNK_BYTES, 128));
        // A result that fits the staging is queued whole: every chunk its own slot.
        assert_eq!(chunking(16 << 20, 16 << 20), (4 << 20, 4));
        assert_eq!(chunking(32 << 20, RING_BYTES), (8 << 20, 4));
        assert_eq!(chunking(2 << 20, 2 << 20), (1 << 20, 2));
        assert_eq!(chunking(1000, 1000), (1000, 1));
        assert_eq!(chunking(1 << 30, CHUNK_BYTES), (CHUNK_BYTES, 1));
    }
}
