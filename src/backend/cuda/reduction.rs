//! The reduction lesson on CUDA: `kernels/reduction.cu` (`reduce_tree`, `reduce_atomic`), the
//! twins of `src/backend/cpu/reduction.rs` and `shaders/reduction.wgsl`, compiled on first use.

use std::sync::{Arc, OnceLock};
use web_time::Instant;

use cudarc::driver::{CudaFunction, CudaStream, PushKernelArg};

use super::launch::launch;
use super::saxpy::{LessonLog, lesson_cfg, lesson_fn};
use super::{Device, Events, check_free, runtime};
use crate::backend::{BackendError, LessonTiming, ReduceMethod, TimingSource};

const REDUCTION_CU: &str = include_str!("../../../kernels/reduction.cu");

/// The wrapping sum of `x` by `method`.
pub(super) fn run(
    dev: &Device,
    stream: &Arc<CudaStream>,
    x: &[u32],
    method: ReduceMethod,
) -> Result<(u32, LessonTiming), BackendError> {
    static TREE: OnceLock<Result<CudaFunction, LessonLog>> = OnceLock::new();
    static ATOMIC: OnceLock<Result<CudaFunction, LessonLog>> = OnceLock::new();
    if x.len() > i32::MAX as usize {
        return Err(BackendError::Invalid(format!("reduction: {} values is more than 2^31", x.len())));
    }
    let func = match method {
        ReduceMethod::Tree => lesson_fn(&TREE, dev, "reduction.cu", REDUCTION_CU, "reduce_tree")?,
        ReduceMethod::Atomic => lesson_fn(&ATOMIC, dev, "reduction.cu", REDUCTION_CU, "reduce_atomic")?,
    };
    check_free(dev, "the reduction's input", 4 * x.len() as u64)?;
    let cfg = lesson_cfg(x.len());
    let events = Events::new(&dev.ctx)?;
    let start = Instant::now();
    let dx = stream.clone_htod(x).map_err(|e| runtime("copying x to the device", e))?;
    let outputs = match method {
        ReduceMethod::Tree => cfg.grid_dim.0 as usize,
        ReduceMethod::Atomic => 1,
    };
    let mut out = stream.alloc_zeros::<u32>(outputs).map_err(|e| runtime("allocating the sums", e))?;
    stream.synchronize().map_err(|e| runtime("waiting for the upload", e))?;
    let upload = start.elapsed();
    let n = x.len() as i32;
    events.record_start(stream)?;
    let mut args = stream.launch_builder(&func);
    args.arg(&n).arg(&dx).arg(&mut out);
    // Launch contract: both kernels take (int n, const unsigned* x, unsigned* out); x holds n values and
    // out one value per block (tree) or one (atomics).
    launch(args, cfg, "launching the reduction")?;
    events.record_stop(stream)?;
    let kernel = events.elapsed()?;
    let start = Instant::now();
    let sums = stream.clone_dtoh(&out).map_err(|e| runtime("copying the sums to the host", e))?;
    let sum = sums.iter().fold(0u32, |a, &v| a.wrapping_add(v));
    Ok((sum, LessonTiming { upload, kernel, download: start.elapsed(), source: TimingSource::CudaEvents }))
}
