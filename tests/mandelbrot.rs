//! The Mandelbrot kernel family on every backend against the CPU reference: CUDA
//! (`kernels/mandelbrot.cu`, `src/backend/cuda/mandelbrot.rs`), wgpu (`shaders/mandelbrot.wgsl`
//! with `mandelbrot_f32.wgsl` / `mandelbrot_f64.wgsl`, `src/backend/wgpu/mandelbrot.rs`), CPU
//! (`src/backend/cpu/mandelbrot.rs`). Budgets: DESIGN.md (f64 ≤ 0.01%, f32 ≤ 1% of pixels).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

mod common;

use wavebrot::backend::{Backend, BackendError};
use wavebrot::sim::mandelbrot::{self, Bounds, MandelbrotParams, Precision};

#[test]
fn wgpu_mandelbrot_counts_equal_the_cpu() {
    let Some(mut b) = common::wgpu_backend() else { return };
    let zoom = Bounds { minx: -0.7530, maxx: -0.7490, miny: 0.0990, maxy: 0.1020 };
    let cases =
        [(96, 64, 20, Bounds::SEED), (641, 479, 1000, Bounds::SEED), (301, 203, 2000, zoom), (1, 1, 5, Bounds::SEED)];
    for (width, height, iters, bounds) in cases {
        for precision in [Precision::F32, Precision::F64] {
            let p = MandelbrotParams { width, height, iters, bounds, precision };
            let mut counts = vec![-1; p.pixels()];
            let run = match b.mandelbrot(&p, &mut counts) {
                Ok(run) => run,
                Err(BackendError::Invalid(why)) if precision == Precision::F64 && !b.has_f64() => {
                    assert!(why.contains("no f64"), "{why}");
                    println!("f64 skipped: {why}");
                    continue;
                }
                Err(e) => panic!("{e}"),
            };
            let (want, _) = mandelbrot::reference(&p);
            let m = mandelbrot::mismatch_frac(&counts, &want);
            println!("mandelbrot {width}x{height} iters={iters} {}: mismatch {:.4}%", precision.name(), m * 100.0);
            assert!(m <= mandelbrot::mismatch_tolerance(precision), "{} pixels differ", m * 100.0);
            let own_total: u64 = counts.iter().map(|&c| mandelbrot::iterations_executed(c as u32, iters)).sum();
            assert_eq!(run.total_iters, own_total, "the GPU's iteration total");
        }
    }
}

#[test]
fn wgpu_mandelbrot_total_beyond_32_bits() {
    // 512x512 pixels inside the set at 20000 iterations: 5.2e9 iterations, past u32.
    let Some(mut b) = common::wgpu_backend() else { return };
    let inside = Bounds { minx: -0.2, maxx: 0.1, miny: -0.2, maxy: 0.2 };
    let p = MandelbrotParams { width: 512, height: 512, iters: 20_000, bounds: inside, precision: Precision::F32 };
    let mut counts = vec![0; p.pixels()];
    let run = b.mandelbrot(&p, &mut counts).unwrap();
    assert!(counts.iter().all(|&c| c == 20_000));
    assert_eq!(run.total_iters, 512 * 512 * 20_000);
}
