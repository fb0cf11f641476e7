//! The CUDA backend against the CPU reference.
//!
//! The tests that need a GPU are `#[ignore]`d, so a machine without one (CI) reports them as
//! ignored, never as passed. On the GPU machine run them with
//! `WAVEBROT_REQUIRE_CUDA=1 cargo test --release --test kernels -- --include-ignored cuda::`
//! (or the carried test binary with `--include-ignored`): there a missing CUDA is a failure.
//! Run by hand without the variable, a test that finds no CUDA skips, logged as `tests/common` says.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use wavebrot::backend::{self, Backend, BackendError, BackendKind};
use wavebrot::sim::colour::colormap;
use wavebrot::sim::fractal::mandelbrot::{self, Bounds, MandelbrotParams, Precision};
use wavebrot::sim::wave::{self, WAVE_TOLERANCE, WaveParams};

use crate::common;

/// The CUDA backend, or `None` after a logged skip (`tests/common`).
fn cuda(test: &str) -> Option<Box<dyn Backend>> {
    common::cuda_backend(test)
}

#[test]
fn open_says_why_or_reports_a_device() {
    match backend::open(BackendKind::Cuda) {
        Ok(b) => {
            let info = b.device_info();
            assert!(!info.name.is_empty());
            assert!(info.details.iter().any(|(k, _)| k == "compute capability"), "{info:?}");
            assert!(info.memory_bytes.is_some_and(|m| m > 0));
            println!("CUDA device: {} {:?}", info.name, info.details);
        }
        Err(BackendError::Unavailable { kind, reason }) => {
            assert_eq!(kind, BackendKind::Cuda);
            assert!(!reason.is_empty());
            assert!(std::env::var("WAVEBROT_REQUIRE_CUDA").map_or(true, |v| v != "1"), "CUDA required: {reason}");
            eprintln!("CUDA unavailable: {reason}");
        }
        Err(e) => panic!("unexpected error opening CUDA: {e}"),
    }
}

/// Runs `tmax` steps in uneven calls and compares `f` with the CPU reference.
fn wave_diff(b: &dyn Backend, p: &WaveParams, calls: &[u32]) -> f32 {
    let mut sim = b.new_wave(p).unwrap();
    for &n in calls {
        sim.advance(n).unwrap();
    }
    let tmax: u32 = calls.iter().sum();
    assert_eq!(sim.tstep(), tmax);
    let mut got = vec![f32::NAN; p.cells()];
    sim.read_field(&mut got).unwrap();
    let want = wave::reference(p, tmax);
    wave::max_abs_diff(&got, &want)
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn wave_matches_the_cpu_at_odd_shapes() {
    let Some(b) = cuda("wave_matches_the_cpu_at_odd_shapes") else { return };
    for (nx, ny, calls) in [
        (37, 53, &[100, 1, 199][..]),
        (3, 3, &[10][..]),
        (101, 40, &[7, 243][..]),
        (257, 129, &[200][..]),
        (1023, 65, &[3, 117][..]),
        (64, 200, &[1, 2, 3, 5, 8, 13][..]),
        (2048, 2048, &[20][..]),
        (300, 200, &[40, 40, 40, 40][..]),
    ] {
        let d = wave_diff(b.as_ref(), &WaveParams::new(nx, ny, 0.1), calls);
        println!("wave {nx}x{ny} {calls:?}: max|diff| {d:e}");
        assert!(d <= WAVE_TOLERANCE, "{nx}x{ny}: {d}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn wave_matches_the_cpu_at_the_seed_size() {
    let Some(b) = cuda("wave_matches_the_cpu_at_the_seed_size") else { return };
    let d = wave_diff(b.as_ref(), &WaveParams::new(1000, 800, 0.1), &[500]);
    println!("wave 1000x800 tmax 500: max|diff| {d:e}");
    assert!(d <= WAVE_TOLERANCE, "{d}");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn wave_source_moves_frequency_changes_and_reset() {
    let Some(b) = cuda("wave_source_moves_frequency_changes_and_reset") else { return };
    let p = WaveParams::new(90, 70, 0.1);
    let mut gpu = b.new_wave(&p).unwrap();
    let mut cpu = backend::open(BackendKind::Cpu1).unwrap().new_wave(&p).unwrap();
    for sim in [&mut gpu, &mut cpu] {
        sim.advance(13).unwrap();
        sim.set_source(5, 60).unwrap();
        sim.set_freq(0.37);
        sim.advance(21).unwrap();
        assert!(sim.set_source(90, 1).is_err());
    }
    let (mut a, mut c) = (vec![0.0; p.cells()], vec![0.0; p.cells()]);
    gpu.read_field(&mut a).unwrap();
    cpu.read_field(&mut c).unwrap();
    assert!(wave::max_abs_diff(&a, &c) <= WAVE_TOLERANCE);
    gpu.reset().unwrap();
    assert_eq!(gpu.tstep(), 0);
    gpu.read_field(&mut a).unwrap();
    assert!(a.iter().all(|&v| v == 0.0));
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn wave_frame_matches_the_cpu_colormap() {
    let Some(b) = cuda("wave_frame_matches_the_cpu_colormap") else { return };
    for (nx, ny) in [(77, 45), (256, 256)] {
        let p = WaveParams::new(nx, ny, 0.1);
        let mut sim = b.new_wave(&p).unwrap();
        sim.advance(60).unwrap();
        let mut field = vec![0.0; p.cells()];
        sim.read_field(&mut field).unwrap();
        let mut want = vec![0u8; 4 * p.cells()];
        colormap::wave_rgba(&field, nx, ny, -0.1, 0.1, &mut want);
        let mut got = vec![0u8; 4 * p.cells()];
        sim.render_rgba(-0.1, 0.1, &mut got).unwrap();
        assert!(got == want, "{nx}x{ny}: the GPU frame differs from colormap::wave_rgba");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn mandelbrot_counts_match_the_cpu() {
    let Some(mut b) = cuda("mandelbrot_counts_match_the_cpu") else { return };
    let zoom = Bounds { minx: -0.7530, maxx: -0.7490, miny: 0.0990, maxy: 0.1020 };
    for (width, height, iters, bounds) in [
        (1536, 1024, 20, Bounds::SEED),
        (641, 479, 1000, Bounds::SEED),
        (512, 384, 2000, zoom),
        (33, 7, 9, Bounds::SEED),
    ] {
        for precision in [Precision::F64, Precision::F32] {
            let p = MandelbrotParams { width, height, iters, bounds, precision };
            let (want, _) = mandelbrot::reference(&p);
            let mut got = vec![-1; p.pixels()];
            let run = b.mandelbrot(&p, &mut got).unwrap();
            let m = mandelbrot::mismatch_frac(&got, &want);
            let own: u64 = got.iter().map(|&c| mandelbrot::iterations_executed(c as u32, iters)).sum();
            println!("mandelbrot {width}x{height} {iters} {}: mismatch {:.5}%", precision.name(), m * 100.0);
            assert!(m <= common::GPU_COUNT_BUDGET, "{p:?}: {m} (measured 0: common::GPU_COUNT_BUDGET)");
            assert_eq!(run.total_iters, own, "{p:?}: iteration total");
            assert!(run.timing.device.is_some());
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn too_large_a_grid_is_refused_and_the_backend_stays_usable() {
    let Some(b) = cuda("too_large_a_grid_is_refused_and_the_backend_stays_usable") else { return };
    let huge = WaveParams::new(1 << 18, 1 << 18, 0.1);
    match b.new_wave(&huge) {
        Err(BackendError::OutOfMemory { needed_bytes, .. }) => assert!(needed_bytes >= 1 << 40),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a 1 TiB grid must be refused"),
    }
    let d = wave_diff(b.as_ref(), &WaveParams::new(50, 40, 0.1), &[30]);
    assert!(d <= WAVE_TOLERANCE);
}

/// Where the wall time of the seed case goes (run with `--ignored --nocapture` on the device).
#[test]
#[ignore = "a measurement, not a check"]
fn wave_seed_case_timing_breakdown() {
    let Some(b) = cuda("wave_seed_case_timing_breakdown") else { return };
    let p = WaveParams::new(1000, 800, 0.1);
    let mut sim = b.new_wave(&p).unwrap();
    sim.advance(1).unwrap();
    let mut warm = vec![0.0f32; p.cells()];
    sim.read_field(&mut warm).unwrap();
    for _ in 0..5 {
        sim.reset().unwrap();
        let t = web_time::Instant::now();
        let adv = sim.advance(500).unwrap();
        let after_advance = t.elapsed();
        let read_warm = sim.read_field(&mut warm).unwrap();
        let mut fresh = vec![0.0f32; p.cells()];
        let read_fresh = sim.read_field(&mut fresh).unwrap();
        println!(
            "advance wall {:?} (device {:?}, host call {:?}); read into a warm buffer {:?} (copy {:?}); into a fresh one {:?}",
            adv.wall,
            adv.device.unwrap(),
            after_advance,
            read_warm.wall,
            read_warm.device.unwrap(),
            read_fresh.wall
        );
    }
}
