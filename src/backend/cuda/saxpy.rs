//! The SAXPY lesson on CUDA: `kernels/saxpy.cu`, the twin of `src/backend/cpu/saxpy.rs` and
//! `shaders/saxpy.wgsl`, compiled with NVRTC on first use (the lessons do not slow `open`).
//! Times the copy of `x` and `y` to the device, the kernel (CUDA events) and the copy of `y` back.

use std::sync::{Arc, OnceLock};
use web_time::Instant;

use cudarc::driver::{CudaFunction, CudaModule, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{CompileError, CompileOptions, compile_ptx_with_opts};

use super::launch::launch;
use super::{Device, Events, KIND, check_free, runtime};
use crate::backend::{BackendError, LessonTiming, TimingSource};

const SAXPY_CU: &str = include_str!("../../../kernels/saxpy.cu");

/// Compiles `src` for the device (`name` for the log) and loads it: the lessons' kernels.
pub(super) fn load_lesson(dev: &Device, name: &str, src: &str) -> Result<Arc<CudaModule>, BackendError> {
    let (major, minor) = dev.ctx.compute_capability().map_err(|e| runtime("reading the compute capability", e))?;
    let arch = format!("--gpu-architecture=sm_{major}{minor}");
    let opts = CompileOptions { options: vec![arch.clone()], name: Some(name.to_owned()), ..Default::default() };
    let ptx = compile_ptx_with_opts(src, opts).map_err(|e| BackendError::Compile {
        kind: KIND,
        log: match e {
            CompileError::CompileError { log, .. } => format!("{name} ({arch}):\n{}", log.to_string_lossy()),
            other => format!("{name} ({arch}): {other:?}"),
        },
    })?;
    dev.ctx.load_module(ptx).map_err(|e| runtime(&format!("loading {name}"), e))
}

/// Why a lesson kernel could not be made: its compile or load log, kept for every later call.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct LessonLog(String);

/// A kernel of a lesson module, compiled once per process.
pub(super) fn lesson_fn(
    cell: &'static OnceLock<Result<CudaFunction, LessonLog>>,
    dev: &Device,
    file: &str,
    src: &str,
    name: &str,
) -> Result<CudaFunction, BackendError> {
    cell.get_or_init(|| {
        let m = load_lesson(dev, file, src).map_err(|e| LessonLog(e.to_string()))?;
        m.load_function(name).map_err(|e| LessonLog(format!("kernel {name}: {e}")))
    })
    .clone()
    .map_err(|LessonLog(log)| BackendError::Compile { kind: KIND, log })
}

/// Launch shape of the lessons: 256 threads a block, grid-stride, at most 65535 blocks.
pub(super) fn lesson_cfg(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (n.div_ceil(256).clamp(1, 65_535) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `y = a*x + y` on the device.
pub(super) fn run(
    dev: &Device,
    stream: &Arc<CudaStream>,
    a: f32,
    x: &[f32],
    y: &mut [f32],
) -> Result<LessonTiming, BackendError> {
    static SAXPY: OnceLock<Result<CudaFunction, LessonLog>> = OnceLock::new();
    if x.len() != y.len() || x.len() > i32::MAX as usize {
        return Err(BackendError::Invalid(format!("saxpy: x has {} values, y {}", x.len(), y.len())));
    }
    let func = lesson_fn(&SAXPY, dev, "saxpy.cu", SAXPY_CU, "saxpy")?;
    check_free(dev, "saxpy's x and y", 8 * x.len() as u64)?;
    let events = Events::new(&dev.ctx)?;
    let sync = |what| stream.synchronize().map_err(|e| runtime(what, e));
    let start = Instant::now();
    let dx = stream.clone_htod(x).map_err(|e| runtime("copying x to the device", e))?;
    let mut dy = stream.clone_htod(y).map_err(|e| runtime("copying y to the device", e))?;
    sync("waiting for the upload")?;
    let upload = start.elapsed();
    let n = x.len() as i32;
    events.record_start(stream)?;
    let mut args = stream.launch_builder(&func);
    args.arg(&n).arg(&a).arg(&dx).arg(&mut dy);
    // Launch contract: the arguments match `saxpy(int, float, const float*, float*)`; x and y hold n values.
    launch(args, lesson_cfg(x.len()), "launching saxpy")?;
    events.record_stop(stream)?;
    let kernel = events.elapsed()?;
    let start = Instant::now();
    stream.memcpy_dtoh(&dy, y).map_err(|e| runtime("copying y to the host", e))?;
    sync("waiting for the download")?;
    Ok(LessonTiming { upload, kernel, download: start.elapsed(), source: TimingSource::CudaEvents })
}
