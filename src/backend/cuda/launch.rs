//! The one layer between the family files and cudarc's unsafe calls, as cudarc itself layers
//! safe over result over sys: kernel launches ([`launch`]), device memory whose every byte the
//! kernel writes before it is read ([`alloc_uninit`]), CUDA events ([`Events`], [`record`]) and a
//! captured graph that may move between threads ([`SendGraph`]). The family files build the
//! argument lists; nothing there is `unsafe`.
//!
//! The launch contract lives with each call: the arguments pushed in the order and the types of
//! the kernel's signature in `kernels/NAME.cu`, and buffers at least as large as the cells the
//! launch's grid touches. Each call site says so in a comment beside its argument list.

#![expect(
    unsafe_code,
    reason = "cudarc's kernel launches, uninitialised device memory and graph handles are unsafe APIs"
)]

use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::{
    CudaContext, CudaEvent, CudaGraph, CudaSlice, CudaStream, DeviceRepr, DriverError, LaunchArgs, LaunchConfig, sys,
};

use super::runtime;
use crate::backend::BackendError;

/// Launches `args` (a kernel and its arguments, pushed by a family file in the kernel's order)
/// with `cfg` on the builder's stream; `what` names it in an error ("launching wave_rgba").
///
/// # Errors
/// The driver refused the launch.
pub(super) fn launch(mut args: LaunchArgs<'_>, cfg: LaunchConfig, what: &str) -> Result<(), BackendError> {
    // SAFETY: every caller pushes the arguments of the kernel it launches in the order and with
    // the types of its signature, on buffers that hold the cells the grid of `cfg` touches (each
    // call site states its sizes); the kernels index only within those sizes.
    unsafe { args.launch(cfg) }.map(|_| ()).map_err(|e| runtime(what, e))
}

/// `n` values of device memory, not cleared: for buffers a kernel writes in full before
/// anything reads them (clearing would be a wasted pass over memory).
///
/// # Errors
/// The driver's allocation error (the caller says what was asked for).
pub(super) fn alloc_uninit<T: DeviceRepr + bytemuck::Pod>(
    stream: &Arc<CudaStream>,
    n: usize,
) -> Result<CudaSlice<T>, DriverError> {
    // SAFETY: every bit pattern is a valid `T` (`Pod`), so a value read before a kernel wrote it
    // is an unspecified number, never undefined behaviour; the callers write before reading.
    unsafe { stream.alloc::<T>(n) }
}

/// Records `event` on `stream`.
///
/// # Errors
/// The driver's error, as a runtime failure.
pub(super) fn record(event: &CudaEvent, stream: &CudaStream) -> Result<(), BackendError> {
    event.record(stream).map_err(|e| runtime("recording an event", e))
}

/// A pair of timing events on one stream: recorded around kernels, read as device time.
pub(super) struct Events {
    pub(super) start: CudaEvent,
    pub(super) stop: CudaEvent,
}

impl Events {
    pub(super) fn new(ctx: &Arc<CudaContext>) -> Result<Self, BackendError> {
        let mk =
            || ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| runtime("creating an event", e));
        Ok(Self { start: mk()?, stop: mk()? })
    }

    /// Records the start event on `stream`.
    pub(super) fn record_start(&self, stream: &CudaStream) -> Result<(), BackendError> {
        record(&self.start, stream)
    }

    /// Records the stop event on `stream`.
    pub(super) fn record_stop(&self, stream: &CudaStream) -> Result<(), BackendError> {
        record(&self.stop, stream)
    }

    /// Device time between the two recorded events (waits for the second).
    pub(super) fn elapsed(&self) -> Result<Duration, BackendError> {
        let ms = self.start.elapsed_ms(&self.stop).map_err(|e| runtime("reading events", e))?;
        Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
    }
}

/// A captured graph, owned by one wave problem and used only through `&mut` access.
pub(super) struct SendGraph(pub(super) CudaGraph);

// SAFETY: CUDA graph objects may be used from any thread as long as calls on one graph are
// serialized; this one is reached only through `&mut CudaWave`, so they are.
unsafe impl Send for SendGraph {}
