//! Helpers shared by the GPU-vs-CPU test files (`tests/wave.rs`, `tests/mandelbrot.rs`,
//! `tests/colormap.rs`, `tests/wgpu.rs`, `tests/cuda.rs`): opening a backend, or saying why not.
//!
//! - wgpu: without an adapter a test prints "skipped: no wgpu adapter: <reason>" and returns,
//!   unless `WAVEBROT_REQUIRE_WGPU=1` (set by `.ci/run`, where lavapipe must run them), which
//!   makes the skip a failure.
//! - CUDA: the tests that need a GPU are `#[ignore]`d, so a machine without one (CI) reports
//!   them as ignored, never as passed. On the GPU machine run them with
//!   `WAVEBROT_REQUIRE_CUDA=1 cargo test --release -- --include-ignored cuda` (or the carried
//!   test binaries with `--include-ignored`): there a missing CUDA is a failure. Run by hand
//!   without the variable, a test that finds no CUDA prints why and returns.

#![allow(dead_code, reason = "each test file uses the helpers of its own backends")]
#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use wavebrot::backend::wgpu::{WgpuBackend, request_device};
use wavebrot::backend::{self, Backend, BackendError, BackendKind, WaveSim};

/// The `#[ignore]` reason of every test that needs an NVIDIA GPU.
pub const NEEDS_CUDA: &str =
    "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists";

/// A wgpu device, or `None` (after printing why) where there is none and none is required.
pub fn wgpu_device() -> Option<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo)> {
    match request_device() {
        Ok(d) => Some(d),
        Err(BackendError::Unavailable { reason, .. }) => {
            if std::env::var("WAVEBROT_REQUIRE_WGPU").is_ok_and(|v| v == "1") {
                panic!("WAVEBROT_REQUIRE_WGPU=1 but {reason}");
            }
            println!("skipped: {reason}");
            None
        }
        Err(e) => panic!("opening wgpu failed: {e}"),
    }
}

/// The wgpu backend on its own device, or `None` as [`wgpu_device`].
pub fn wgpu_backend() -> Option<WgpuBackend> {
    let (device, queue, info) = wgpu_device()?;
    Some(WgpuBackend::from_device(device, queue, info).expect("the shaders compile"))
}

/// The CUDA backend, or `None` (after printing why) when CUDA is missing and
/// `WAVEBROT_REQUIRE_CUDA=1` is not set; with it set, a missing CUDA fails `test`.
pub fn cuda_backend(test: &str) -> Option<Box<dyn Backend>> {
    match backend::open(BackendKind::Cuda) {
        Ok(b) => Some(b),
        Err(e) => {
            assert!(
                std::env::var("WAVEBROT_REQUIRE_CUDA").map_or(true, |v| v != "1"),
                "WAVEBROT_REQUIRE_CUDA=1 but {e}"
            );
            println!("{test}: skipped: {e}");
            None
        }
    }
}

/// The field `f` of a wave problem.
pub fn field(sim: &mut dyn WaveSim) -> Vec<f32> {
    let mut f = vec![0.0; sim.params().cells()];
    sim.read_field(&mut f).unwrap();
    f
}
