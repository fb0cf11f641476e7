//! The Julia family on every backend against the CPU reference: CUDA (`kernels/julia.cu`,
//! `src/backend/cuda/julia.rs`), wgpu (`shaders/julia.wgsl`, `src/backend/wgpu/julia.rs`), CPU
//! (`src/backend/cpu/julia.rs`, rule `src/sim/julia.rs`); the maths (`c = 0` gives the unit
//! disc, known points escape at their known step); the CUDA kernel run as host C++; and
//! `render julia` as a user calls it.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;

use assert_cmd::Command;
use wavebrot::backend::cpu::{CpuBackend, Threads};
use wavebrot::backend::{Backend, smooth_tolerance};
use wavebrot::output::read_npy;
use wavebrot::sim::fractal::julia::{self, JuliaParams};
use wavebrot::sim::fractal::mandelbrot::{self, Bounds, Precision, escape_count_f64};

fn params(width: usize, height: usize, iters: u32, bounds: Bounds, precision: Precision, c: [f64; 2]) -> JuliaParams {
    JuliaParams { width, height, iters, bounds, precision, c }
}

/// The GPU cases: the classic dragon, a dendrite (c = i), a zoom into the dragon, one pixel; the
/// rabbit past u16 counts (one u32 a pixel), the segment c = -2 (|c| = 2: every iteration
/// checked, no chunks). Odd widths end each row of u16 pairs with a lone count.
fn cases() -> Vec<JuliaParams> {
    let zoom = Bounds { minx: 0.10, maxx: 0.16, miny: 0.05, maxy: 0.09 };
    let mut v = Vec::new();
    for precision in [Precision::F32, Precision::F64] {
        v.push(params(160, 107, 300, JuliaParams::DEFAULT_BOUNDS, precision, [-0.8, 0.156]));
        v.push(params(97, 65, 500, JuliaParams::DEFAULT_BOUNDS, precision, [0.0, 1.0]));
        v.push(params(101, 67, 1000, zoom, precision, [-0.8, 0.156]));
        v.push(params(1, 1, 5, JuliaParams::DEFAULT_BOUNDS, precision, [0.3, 0.5]));
        v.push(params(31, 21, 70_000, JuliaParams::DEFAULT_BOUNDS, precision, [-0.123, 0.745]));
        v.push(params(45, 31, 200, JuliaParams::DEFAULT_BOUNDS, precision, [-2.0, 0.0]));
    }
    v
}

/// Runs every case on `b` (with and without smooth values) against the CPU reference.
fn check_backend(b: &mut dyn Backend, skip_f64: bool, exact: bool) {
    for p in cases() {
        if p.precision == Precision::F64 && skip_f64 {
            continue; // logged by the caller (common::has_f64_or_skip)
        }
        let (want, want_smooth, want_total) = julia::reference(&p);
        let mut counts = vec![-1; p.pixels()];
        let mut smooth = vec![f32::NAN; p.pixels()];
        let run = b.julia(&p, &mut counts, Some(&mut smooth)).unwrap();
        let mut plain = vec![-1; p.pixels()];
        b.julia(&p, &mut plain, None).unwrap();
        assert_eq!(plain, counts, "counts with and without smooth values");
        let m = mandelbrot::mismatch_frac(&counts, &want);
        let mut worst = (0.0f32, 0);
        for (i, ((&c, &s), (&wc, &ws))) in counts.iter().zip(&smooth).zip(want.iter().zip(&want_smooth)).enumerate() {
            let d = (s - ws).abs();
            if c == wc && (d.is_nan() || d > smooth_tolerance(ws)) {
                worst = (d.max(f32::MIN_POSITIVE), i);
            }
        }
        println!(
            "{} julia c={:?} {}x{} iters={} {}: {:.4}% of counts differ",
            b.kind(),
            p.c,
            p.width,
            p.height,
            p.iters,
            p.precision.name(),
            m * 100.0
        );
        let budget = if exact { 0.0 } else { common::GPU_COUNT_BUDGET };
        assert!(m <= budget, "{}% of counts differ (budget {}%)", m * 100.0, budget * 100.0);
        assert_eq!(
            worst.0, 0.0,
            "pixel {}: smooth {} against the CPU's {}",
            worst.1, smooth[worst.1], want_smooth[worst.1]
        );
        let own: u64 = counts.iter().map(|&c| mandelbrot::iterations_executed(c as u32, p.iters)).sum();
        assert_eq!(run.total_iters, own, "the iteration total");
        if exact {
            assert_eq!(run.total_iters, want_total);
        }
    }
}

#[test]
fn cpu_backends_equal_the_reference() {
    for threads in [Threads::One, Threads::All] {
        check_backend(&mut CpuBackend::new(threads), false, true);
    }
}

#[test]
fn wgpu_julia_equals_the_cpu() {
    let Some(mut b) = common::wgpu_backend() else { return };
    let skip_f64 = !common::has_f64_or_skip(&b);
    check_backend(&mut b, skip_f64, false);
}

/// Large images come back in parts (`PART_BYTES` in src/backend/wgpu/mandelbrot.rs; with smooth
/// values each part holds half the rows): an odd width over several parts, counts as u16 pairs
/// and as u32, with and without smooth values.
#[test]
fn wgpu_julia_comes_back_in_parts() {
    let Some(mut b) = common::wgpu_backend() else { return };
    // c outside the Mandelbrot set: every orbit escapes within a few dozen iterations.
    for iters in [40, 70_000] {
        let p = params(2049, 1100, iters, JuliaParams::DEFAULT_BOUNDS, Precision::F32, [0.4, 0.4]);
        let (want, want_smooth, want_total) = julia::reference(&p);
        let mut counts = vec![-1; p.pixels()];
        let mut smooth = vec![f32::NAN; p.pixels()];
        let run = b.julia(&p, &mut counts, Some(&mut smooth)).unwrap();
        assert!(counts == want, "iters {iters}: the counts differ");
        assert_eq!(run.total_iters, want_total);
        let far = (0..want.len()).find(|&i| (smooth[i] - want_smooth[i]).abs() > smooth_tolerance(want_smooth[i]));
        assert!(far.is_none(), "iters {iters}: smooth value at pixel {far:?}");
        let mut plain = vec![-1; p.pixels()];
        b.julia(&p, &mut plain, None).unwrap();
        assert!(plain == want, "iters {iters}: the counts without smooth values differ");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_julia_equals_the_cpu_bit_for_bit() {
    let Some(mut b) = common::cuda_backend("cuda_julia_equals_the_cpu_bit_for_bit") else { return };
    check_backend(b.as_mut(), false, true);
}

#[test]
fn c_zero_gives_the_unit_disc() {
    // z -> z^2: |z_0| <= 1 never escapes, |z_0| > 1 does (at the step where |z_0|^(2^(k+1)) >= 2).
    // 800x800 pixels over [-1.25, 1.25]^2: the share inside must be π/2.5^2 = 0.50265 up to
    // the pixels the circle crosses (~2πr / pixel size = 2011 of 640000, 0.3%).
    let side = 800;
    let h = 1.25;
    let p = params(side, side, 2000, Bounds { minx: -h, maxx: h, miny: -h, maxy: h }, Precision::F64, [0.0, 0.0]);
    let mut counts = vec![0; p.pixels()];
    CpuBackend::new(Threads::All).julia(&p, &mut counts, None).unwrap();
    let inside = counts.iter().filter(|&&c| c == 2000).count() as f64 / p.pixels() as f64;
    let want = std::f64::consts::PI / (2.0 * h).powi(2);
    println!("c = 0: {inside:.5} of the pixels inside, the disc covers {want:.5}");
    assert!((inside - want).abs() < 0.003, "c = 0: share inside {inside:.5}, unit disc {want:.5}");
    // Every pixel is inside exactly when |z_0| <= 1 (none lies within 1e-9 of the circle here).
    let (px, py) = p.grid().pixel_size();
    for (i, &c) in counts.iter().enumerate() {
        let (x, y) = ((i % side) as f64 * px - h, (i / side) as f64 * py - h);
        let r2 = x * x + y * y;
        if (r2 - 1.0).abs() > 1e-9 {
            assert_eq!(c == 2000, r2 < 1.0, "pixel ({x}, {y}), |z0|^2 = {r2}: count {c}");
        }
    }
}

#[test]
fn known_points_escape_at_their_known_step() {
    let one = |c: [f64; 2], z: (f64, f64), iters| {
        let p =
            params(1, 1, iters, Bounds { minx: z.0, maxx: z.0 + 1.0, miny: z.1, maxy: z.1 + 1.0 }, Precision::F64, c);
        let mut counts = [0];
        CpuBackend::new(Threads::One).julia(&p, &mut counts, None).unwrap();
        counts[0]
    };
    // c = 0, z0 = 1.1: |z| = 1.21, 1.4641, 2.14358881 >= 2: escapes at k = 2.
    assert_eq!(one([0.0, 0.0], (1.1, 0.0), 100), 2);
    // c = 0, z0 = 1 + 2^-20: |z_k| = (1 + 2^-20)^(2^k) reaches 2 at 2^k >= 2^20 ln 2, k+1 = 20.
    assert_eq!(one([0.0, 0.0], (1.0 + 2f64.powi(-20), 0.0), 100), 19);
    // c = 0 on the circle: |z| stays 1, never escapes.
    assert_eq!(one([0.0, 0.0], (-1.0, 0.0), 1000), 1000);
    // c = -2 (the tip): the Julia set is [-2, 2]; z0 = 0 goes 0 -> -2 -> 2 -> 2 ...: |z_1| = 2 escapes at 0.
    assert_eq!(one([-2.0, 0.0], (0.0, 0.0), 100), 0);
    // c = i from z0 = 0: i, -1+i, -i, -1+i, ... bounded (a dendrite's point).
    assert_eq!(one([0.0, 1.0], (0.0, 0.0), 1000), 1000);
    // From z0 = 0 the orbit is the Mandelbrot orbit of c, for any c.
    for c in [[0.3, 0.5], [-0.75, 0.1], [0.26, 0.0], [-1.8, 0.01], [0.0, 0.7]] {
        assert_eq!(one(c, (0.0, 0.0), 500) as u32, escape_count_f64(c[0], c[1], 500), "c = {c:?}");
    }
}

#[test]
fn cuda_kernel_source_equals_the_cpu_on_the_host() {
    // kernels/julia.cu compiled as host C++ (tests/host/cuda_mock.h, no contraction of
    // multiply-adds, as NVRTC's --fmad=false): counts bit for bit, smooth values within the
    // tolerance, in both modes and precisions.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("harness");
    let out = std::process::Command::new("c++")
        .args(["-std=c++17", "-O2", "-ffp-contract=off", "-w", "-include"])
        .arg(root.join("tests/host/cuda_mock.h"))
        .arg("-include")
        .arg(root.join("kernels/julia.cu"))
        .arg(root.join("tests/host/julia_harness.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("a C++ compiler (c++) to compile the kernel on the host");
    assert!(out.status.success(), "compiling the kernel as host C++:\n{}", String::from_utf8_lossy(&out.stderr));
    for p in cases() {
        for mandel in [false, true] {
            let (px, py) = p.grid().pixel_size();
            let b = p.bounds;
            let args = [
                p.width.to_string(),
                p.height.to_string(),
                format!("{:e}", b.minx),
                format!("{:e}", b.miny),
                format!("{px:e}"),
                format!("{py:e}"),
                format!("{:e}", p.c[0]),
                format!("{:e}", p.c[1]),
                u8::from(mandel).to_string(),
                p.iters.to_string(),
                u8::from(p.precision == Precision::F64).to_string(),
            ];
            let run = std::process::Command::new(&exe).args(&args).output().unwrap();
            assert!(run.status.success(), "the host harness failed");
            let (counts, smooth): (Vec<i32>, Vec<f32>) = String::from_utf8_lossy(&run.stdout)
                .lines()
                .map(|l| {
                    let (c, s) = l.split_once(' ').unwrap();
                    (c.parse::<i32>().unwrap(), s.parse::<f32>().unwrap())
                })
                .unzip();
            let (want, want_smooth) = if mandel {
                let g = p.grid();
                let mut c = vec![0; g.pixels()];
                let mut s = vec![0.0; g.pixels()];
                CpuBackend::new(Threads::One).mandelbrot_smooth(&g, &mut c, &mut s).unwrap();
                (c, s)
            } else {
                let (c, s, _) = julia::reference(&p);
                (c, s)
            };
            assert_eq!(counts, want, "{} mandel={mandel}: the kernel's counts", p.precision.name());
            let worst = smooth.iter().zip(&want_smooth).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
            println!(
                "julia.cu on the host, {} mandel={mandel}: counts equal, smooth values within {worst:e}",
                p.precision.name()
            );
            assert!(worst <= 1e-4, "smooth values differ by {worst}");
        }
    }
}

fn wavebrot() -> Command {
    let mut c = Command::cargo_bin("wavebrot").unwrap();
    c.env("RUST_BACKTRACE", "0");
    c
}

#[test]
fn cli_render_julia_writes_counts_and_picture() {
    let dir = tempfile::tempdir().unwrap();
    let (npy, png) = (dir.path().join("j.npy"), dir.path().join("j.png"));
    let args = ["render", "julia", "--c=-0.8,0.156", "--width", "48", "--height", "32", "--iters", "100"];
    wavebrot()
        .args(args)
        .args(["--backend", "cpu1", "--smooth", "--palette", "twilight", "--scale", "log", "--colour-cycle", "3"])
        .arg("--npy")
        .arg(&npy)
        .arg("--png")
        .arg(&png)
        .assert()
        .success();
    let (counts, shape) = read_npy::<i32>(&npy).unwrap();
    assert_eq!(shape, vec![32, 48]);
    let p = params(48, 32, 100, JuliaParams::DEFAULT_BOUNDS, Precision::F64, [-0.8, 0.156]);
    assert_eq!(counts, julia::reference(&p).0, "the .npy holds the integer counts of the rule");
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (48, 32));
    // Centre and zoom are the bounds RE ± (1/Z)·w/h, IM ± 1/Z.
    let b = dir.path().join("b.npy");
    wavebrot()
        .args(args)
        .args(["--backend", "cpu1", "--center=0.1,-0.2", "--zoom", "2", "--npy"])
        .arg(&b)
        .assert()
        .success();
    let bounds = Bounds { minx: 0.1 - 0.75, maxx: 0.1 + 0.75, miny: -0.7, maxy: 0.3 };
    let p = JuliaParams { bounds, ..p };
    assert_eq!(read_npy::<i32>(&b).unwrap().0, julia::reference(&p).0);
}

#[test]
fn cli_bad_julia_values_exit_2_with_one_line() {
    for (args, needle) in [
        (vec!["render", "julia"], "--c"),
        (vec!["render", "julia", "--c=1,2,3"], "'1,2,3'"),
        (vec!["render", "julia", "--c=x,1"], "'x'"),
        (vec!["render", "julia", "--c=inf,0"], "'inf'"),
        (vec!["render", "julia", "--c=0,0", "--palette", "rainbow"], "rainbow"),
        (vec!["render", "julia", "--c=0,0", "--scale", "cubic"], "cubic"),
        (vec!["render", "julia", "--c=0,0", "--colour-offset", "1"], "offset 1"),
        (vec!["render", "julia", "--c=0,0", "--colour-cycle", "0.5"], "0.5"),
        (vec!["render", "julia", "--c=0,0", "--zoom", "0", "--center=0,0"], "0"),
        (vec!["render", "julia", "--c=0,0", "--bounds", "1,0,0,1"], "minx"),
        (vec!["render", "julia", "--c=1e39,0", "--precision", "f32"], "f32"),
        (vec!["render", "mandelbrot", "--palette", "rainbow"], "rainbow"),
        (vec!["render", "mandelbrot", "--colour-offset", "-0.1"], "-0.1"),
    ] {
        let out = wavebrot().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: status {:?}, stderr: {err}", out.status);
        assert!(err.contains(needle), "{args:?}: stderr {err:?} does not name {needle:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err:?}");
    }
}
