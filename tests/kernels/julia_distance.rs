//! The distance estimate of Julia sets ([`wavebrot::sim::fractal::distance::julia_distance_row`],
//! `julia_de_*` of `kernels/julia.cu` with `mandel = 0`, `shaders/julia_de.wgsl` likewise):
//! against the analytic estimate of `c = 0` (the unit disc), the finite difference of the smooth
//! values (`d = 1 / (ln 2 |∇ν|)`), mpmath (`tools/distance_reference.py` with `CR CI`), every
//! backend against `cpu1`, the CUDA source run as host C++.

use crate::common;

use wavebrot::backend::cpu::{CpuBackend, Threads};
use wavebrot::backend::{Backend, distance_tolerance, smooth_tolerance};
use wavebrot::sim::fractal::distance::{self, DE_VALUES};
use wavebrot::sim::fractal::julia::{self, JuliaParams};
use wavebrot::sim::fractal::mandelbrot::{self, Bounds, Precision};

/// The dendrite-like Julia set of `c = -0.8 + 0.156i` at 150x100 (square pixels over the 3:2
/// default bounds), 500 iterations: the CLI's usual one, thin filaments everywhere.
fn dendrite(precision: Precision) -> JuliaParams {
    JuliaParams {
        width: 150,
        height: 100,
        iters: 500,
        bounds: JuliaParams::DEFAULT_BOUNDS,
        precision,
        c: [-0.8, 0.156],
    }
}

/// The cases compared across backends: the dendrite in both precisions, the unit disc (`c = 0`)
/// at an odd size, Douady's rabbit zoomed in, a one-pixel picture.
fn cases() -> Vec<JuliaParams> {
    let mut v = Vec::new();
    for precision in [Precision::F32, Precision::F64] {
        v.push(dendrite(precision));
        v.push(JuliaParams { width: 97, height: 65, iters: 100, c: [0.0, 0.0], ..dendrite(precision) });
        let near = Bounds { minx: -0.1, maxx: 0.14, miny: 0.5, maxy: 0.68 };
        v.push(JuliaParams { width: 64, height: 48, iters: 800, bounds: near, c: [-0.123, 0.745], precision });
        v.push(JuliaParams { width: 1, height: 1, iters: 50, ..dendrite(precision) });
    }
    v
}

#[test]
fn counts_and_smooth_values_are_the_julia_rules() {
    for p in cases() {
        let (counts, smooth, _, total) = distance::julia_reference(&p);
        let (want, want_smooth, want_total) = julia::reference(&p);
        assert_eq!((counts, smooth, total), (want, want_smooth, want_total), "{} {:?}", p.precision.name(), p.c);
    }
}

#[test]
fn the_unit_disc_has_the_analytic_estimate() {
    // c = 0: z_n = z_0^(2^n), dz_n = 2^n z_0^(2^n - 1), so |z| ln|z| / |dz| = r ln r exactly at
    // |z_0| = r (any n), and z / dz points along z_0: outwards. The true distance is r - 1.
    let p = JuliaParams { width: 1, height: 1, iters: 100, c: [0.0, 0.0], ..dendrite(Precision::F64) };
    let mut worst = (0.0f64, 0.0f64);
    for (r, theta) in [(1.05, 0.0), (1.2, 0.7), (1.5, 2.0), (1.9, -2.5), (1.01, 3.0)] {
        let (zr, zi) = (r * f64::cos(theta), r * f64::sin(theta));
        let (count, _, [d, ux, uy]) = distance::julia_escape_distance_f64(zr, zi, 0.0, 0.0, p.iters);
        assert!(count < p.iters, "r = {r} escapes");
        let want = r * r.ln();
        let rel = (d / want - 1.0).abs();
        let dir = (ux - theta.cos()).abs().max((uy - theta.sin()).abs());
        worst = (worst.0.max(rel), worst.1.max(dir));
    }
    println!("c = 0: distance within {:.2e} of r ln r, normal within {:.2e} of the radial direction", worst.0, worst.1);
    // Measured 6.4e-15 and 3.3e-16 (f64 rounding of a few dozen operations); bound 1e-12.
    assert!(worst.0 < 1e-12 && worst.1 < 1e-12, "worst {worst:?}");
}

/// For each pixel whose 4 neighbours escaped and whose estimate lies between 2 and 40 pixels,
/// `|d / d_fd - 1|` with `d_fd = 1 / (ln 2 |∇ν|)` from central differences of the smooth values;
/// returns the median and the pixels used.
fn finite_difference_error(p: &JuliaParams, counts: &[i32], smooth: &[f32], de: &[f32]) -> (f64, usize) {
    let (w, h) = (p.width, p.height);
    let iters = p.iters as i32;
    let mut errors = Vec::new();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let at = y * w + x;
            if [at, at - 1, at + 1, at - w, at + w].iter().any(|&i| counts[i] >= iters) {
                continue;
            }
            let d = f64::from(de[DE_VALUES * at]);
            if !(2.0..=40.0).contains(&d) {
                continue;
            }
            let gx = f64::from(smooth[at + 1] - smooth[at - 1]) / 2.0;
            let gy = f64::from(smooth[at + w] - smooth[at - w]) / 2.0;
            errors.push((d * std::f64::consts::LN_2 * gx.hypot(gy) - 1.0).abs());
        }
    }
    errors.sort_by(f64::total_cmp);
    (errors.get(errors.len() / 2).copied().unwrap_or(f64::INFINITY), errors.len())
}

/// The dendrite at 480x320 for the finite differences (finer pixels, so the differences over 2
/// pixels follow the field; square, as the check takes the same step across and down).
fn fine_dendrite() -> JuliaParams {
    JuliaParams { width: 480, height: 320, ..dendrite(Precision::F64) }
}

/// Measured (CPU, f64, `fine_dendrite`, 46 362 pixels): median |ratio - 1| = 0.00068; the bound
/// is about 3x that (the finite difference's own error over 2 pixels, and f32 smooth values). A
/// doubled estimate measures 1.006.
const FD_MEDIAN_BOUND: f64 = 0.002;

#[test]
fn julia_distance_agrees_with_the_finite_difference_of_smooth_values() {
    let p = fine_dendrite();
    let (counts, smooth, de, _) = distance::julia_reference(&p);
    let (median, used) = finite_difference_error(&p, &counts, &smooth, &de);
    println!("Julia distance vs 1/(ln2 |grad nu|): median |ratio - 1| = {median:.5} over {used} pixels");
    assert!(used > 1000, "only {used} pixels in the check");
    assert!(median < FD_MEDIAN_BOUND, "median |d / d_fd - 1| = {median} (bound {FD_MEDIAN_BOUND})");
}

#[test]
fn the_julia_finite_difference_check_catches_a_wrong_estimate() {
    let p = fine_dendrite();
    let (counts, smooth, mut de, _) = distance::julia_reference(&p);
    for d in de.chunks_exact_mut(DE_VALUES) {
        d[0] *= 2.0;
    }
    let (median, _) = finite_difference_error(&p, &counts, &smooth, &de);
    println!("a doubled estimate: median |ratio - 1| = {median:.3}");
    assert!(median > FD_MEDIAN_BOUND, "a doubled estimate passed: median {median}");
}

/// mpmath's count, distance (units of `z`) and normal at pixels of `p`
/// (`tools/distance_reference.py`, Julia lines); `None`: inside.
fn mpmath_reference(p: &JuliaParams, pixels: &[(usize, usize)]) -> Vec<Option<(i32, f64, f64, f64)>> {
    use std::io::Write;
    let (px, py) = p.grid().pixel_size();
    let mut input = String::new();
    for &(x, y) in pixels {
        let zr = p.bounds.minx + x as f64 * px;
        let zi = p.bounds.miny + y as f64 * py;
        input += &format!("{zr:?} {zi:?} {} 40 {:?} {:?}\n", p.iters, p.c[0], p.c[1]);
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/distance_reference.py");
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 with mpmath (tools/requirements-ci.txt)");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "tools/distance_reference.py failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 4)
                .then(|| (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap()))
        })
        .collect()
}

/// Relative difference allowed between the f64 estimate and mpmath's: the f64 orbit's rounding,
/// amplified by the derivative over orbits that stay long near the Julia set. Measured: 1.9e-6
/// (distance) and 1.8e-6 (normal) over 24 escaped pixels of the dendrite; the bound is 5x that.
const MPMATH_REL_BOUND: f64 = 1e-5;

/// The worst relative difference of the distances and normals in `de` from mpmath's at 24
/// sampled pixels of `p`, and the escaped pixels compared (their counts checked).
fn mpmath_worst(p: &JuliaParams, counts: &[i32], de: &[f32]) -> ((f64, f64), usize) {
    let pixels: Vec<(usize, usize)> = (0..24).map(|i| ((i * 37 + 5) % p.width, (i * 23 + 11) % p.height)).collect();
    let want = mpmath_reference(p, &pixels);
    let (px, _) = p.grid().pixel_size();
    let (mut worst, mut compared) = ((0.0f64, 0.0f64), 0);
    for (&(x, y), w) in pixels.iter().zip(&want) {
        let at = y * p.width + x;
        match w {
            None => assert_eq!(counts[at], p.iters as i32, "pixel ({x}, {y}): mpmath says inside"),
            Some((k, d, ux, uy)) => {
                assert_eq!(counts[at], *k, "pixel ({x}, {y}): the count");
                let got = &de[DE_VALUES * at..DE_VALUES * at + 3];
                let rel = (f64::from(got[0]) * px / d - 1.0).abs();
                let normal = (f64::from(got[1]) - ux).abs().max((f64::from(got[2]) - uy).abs());
                worst = (worst.0.max(rel), worst.1.max(normal));
                compared += 1;
            }
        }
    }
    (worst, compared)
}

#[test]
fn julia_distance_agrees_with_mpmath_at_sampled_pixels() {
    let p = dendrite(Precision::F64);
    let (counts, _, de, _) = distance::julia_reference(&p);
    let (worst, compared) = mpmath_worst(&p, &counts, &de);
    println!(
        "{compared} escaped Julia pixels against mpmath: distance within {:.3e} (relative), normal within {:.3e}",
        worst.0, worst.1
    );
    assert!(compared >= 10, "only {compared} pixels escaped");
    assert!(worst.0 < MPMATH_REL_BOUND, "distance differs from mpmath's by {} (relative)", worst.0);
    assert!(worst.1 < MPMATH_REL_BOUND, "normal differs from mpmath's by {}", worst.1);
}

#[test]
fn the_mpmath_check_catches_the_mandelbrot_derivative() {
    // The Mandelbrot set's rule for the derivative (dz' = 2 z dz + 1 from dz0 = 0) in place of
    // the Julia set's, on the same orbits: far outside the bound (measured 3.0 and 1.9).
    let p = dendrite(Precision::F64);
    let (counts, _, mut de, _) = distance::julia_reference(&p);
    let (px, py) = p.grid().pixel_size();
    for (at, d) in de.chunks_exact_mut(DE_VALUES).enumerate() {
        let (zr, zi) = (p.bounds.minx + (at % p.width) as f64 * px, p.bounds.miny + (at / p.width) as f64 * py);
        let (z, c) = ((zr, zi), (p.c[0], p.c[1]));
        let (mut x, mut y, mut dr, mut di) = (z.0, z.1, 0.0f64, 0.0f64);
        for _ in 0..p.iters {
            (dr, di) = (2.0 * (x * dr - y * di) + 1.0, 2.0 * (x * di + y * dr));
            (x, y) = (x * x - y * y + c.0, 2.0 * x * y + c.1);
            if x * x + y * y >= 65536.0 {
                break;
            }
        }
        let [dist, ux, uy] = distance::distance_and_normal(x, y, dr, di);
        d.copy_from_slice(&[(dist / px) as f32, ux as f32, uy as f32]);
    }
    let (worst, _) = mpmath_worst(&p, &counts, &de);
    println!("dz/dc in place of dz/dz0: distance off by {:.3e}, normal by {:.3e}", worst.0, worst.1);
    assert!(worst.0 > MPMATH_REL_BOUND, "a wrong derivative passed: {worst:?}");
}

/// Compares one result with `cpu1`'s: counts within the budget, smooth values, distances and
/// normals within the tolerances where the counts agree; returns the worst distance and normal.
fn compare(p: &JuliaParams, (counts, smooth, de): (&[i32], &[f32], &[f32]), budget: f64) -> (f32, f32) {
    let (want, want_smooth, want_de, _) = distance::julia_reference(p);
    let (rel_tol, normal_tol) = distance_tolerance();
    let m = mandelbrot::mismatch_frac(counts, &want);
    assert!(m <= budget, "{}% of counts differ", m * 100.0);
    let (mut worst_d, mut worst_u) = (0.0f32, 0.0f32);
    for i in 0..p.pixels() {
        if counts[i] != want[i] {
            continue;
        }
        assert!((smooth[i] - want_smooth[i]).abs() <= smooth_tolerance(want_smooth[i]), "pixel {i}: smooth value");
        let (g, w) = (&de[DE_VALUES * i..DE_VALUES * i + 3], &want_de[DE_VALUES * i..DE_VALUES * i + 3]);
        let rel = if w[0] == 0.0 { g[0].abs() } else { (g[0] / w[0] - 1.0).abs() };
        worst_d = worst_d.max(if rel.is_nan() { f32::INFINITY } else { rel });
        worst_u = worst_u.max((g[1] - w[1]).abs().max((g[2] - w[2]).abs()));
    }
    assert!(worst_d <= rel_tol, "distances differ by {worst_d} (relative; tolerance {rel_tol})");
    assert!(worst_u <= normal_tol, "normals differ by {worst_u} (tolerance {normal_tol})");
    (worst_d, worst_u)
}

fn check_backend(b: &mut dyn Backend, skip_f64: bool) {
    for p in cases() {
        if p.precision == Precision::F64 && skip_f64 {
            continue;
        }
        let n = p.pixels();
        let (mut counts, mut smooth, mut de) = (vec![-1; n], vec![f32::NAN; n], vec![f32::NAN; n * DE_VALUES]);
        let run = b.julia_distance(&p, &mut counts, &mut smooth, &mut de).unwrap();
        let (d, u) = compare(&p, (&counts, &smooth, &de), common::GPU_COUNT_BUDGET);
        println!(
            "{} julia distance c={:?} {}x{} {}: distance within {d:.3e}, normal within {u:.3e}",
            b.kind(),
            p.c,
            p.width,
            p.height,
            p.precision.name()
        );
        assert_eq!(run.total_iters, distance::julia_reference(&p).3, "the iteration total");
    }
}

#[test]
fn cpu_threads_equal_cpu1() {
    let mut cpu = CpuBackend::new(Threads::All);
    for p in cases() {
        let want = distance::julia_reference(&p);
        let n = p.pixels();
        let (mut c, mut s, mut d) = (vec![0; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
        let run = cpu.julia_distance(&p, &mut c, &mut s, &mut d).unwrap();
        assert_eq!((c, s, d, run.total_iters), want, "cpu against cpu1, bit for bit");
    }
}

#[test]
fn wgpu_julia_distance_equals_cpu1() {
    let Some(mut b) = common::wgpu_backend() else { return };
    let skip_f64 = !common::has_f64_or_skip(&b);
    check_backend(&mut b, skip_f64);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_julia_distance_equals_cpu1() {
    let Some(mut b) = common::cuda_backend("cuda_julia_distance_equals_cpu1") else { return };
    check_backend(b.as_mut(), false);
}

#[test]
fn cuda_kernel_source_equals_the_cpu_on_the_host() {
    // julia_de_* of kernels/julia.cu in Julia mode, compiled as host C++ (tests/host/cuda_mock.h,
    // no contraction of multiply-adds, as NVRTC's --fmad=false): counts bit for bit.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("harness");
    let out = std::process::Command::new("c++")
        .args(["-std=c++17", "-O2", "-ffp-contract=off", "-w", "-include"])
        .arg(root.join("tests/host/cuda_mock.h"))
        .arg("-include")
        .arg(root.join("kernels/julia.cu"))
        .arg(root.join("tests/host/julia_de_harness.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("a C++ compiler (c++) to compile the kernel on the host");
    assert!(out.status.success(), "compiling the kernel as host C++:\n{}", String::from_utf8_lossy(&out.stderr));
    for p in cases() {
        let (px, py) = p.grid().pixel_size();
        let b = p.bounds;
        let args = [
            p.width.to_string(),
            p.height.to_string(),
            format!("{:e}", b.minx),
            format!("{:e}", b.miny),
            format!("{px:e}"),
            format!("{py:e}"),
            p.iters.to_string(),
            u8::from(p.precision == Precision::F64).to_string(),
            format!("{:e}", p.c[0]),
            format!("{:e}", p.c[1]),
            // mandel = 0: the Julia set of c.
            "0".to_owned(),
        ];
        let run = std::process::Command::new(&exe).args(&args).output().unwrap();
        assert!(run.status.success(), "the host harness failed");
        let text = String::from_utf8(run.stdout).unwrap();
        let n = p.pixels();
        let (mut counts, mut smooth, mut de) = (vec![0; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
        for (i, line) in text.lines().take(n).enumerate() {
            let f: Vec<f32> = line.split_whitespace().map(|v| v.parse().unwrap()).collect();
            counts[i] = f[0] as i32;
            smooth[i] = f[1];
            de[DE_VALUES * i..DE_VALUES * i + 3].copy_from_slice(&f[2..5]);
        }
        // Counts bit for bit (budget 0); the distances within the tolerance ("%.9g" prints
        // every f32 digit).
        let (d, u) = compare(&p, (&counts, &smooth, &de), 0.0);
        println!(
            "julia.cu julia_de (Julia) on the host, c={:?} {} {}x{}: counts equal, distance within {d:.3e}, normal within {u:.3e}",
            p.c,
            p.precision.name(),
            p.width,
            p.height
        );
    }
}

#[test]
fn cli_render_julia_by_distance_and_lit_keeps_the_counts() {
    // `render julia --colour distance --light`: the PNG is the Julia distance picture
    // (`colour_rgba_de` of the CPU twin's distances), the .npy the rule's counts, as without them;
    // a light out of range is one line, exit 2.
    use wavebrot::sim::colour::palette::{ColourBy, ColourSettings, Light, colour_rgba_de};
    let dir = tempfile::tempdir().unwrap();
    let (npy, png) = (dir.path().join("j.npy"), dir.path().join("j.png"));
    let exe = env!("CARGO_BIN_EXE_wavebrot");
    let args = ["render", "julia", "--c=-0.8,0.156", "--width", "150", "--height", "100", "--iters", "500"];
    let out = std::process::Command::new(exe)
        .args(args)
        .args(["--backend", "cpu1", "--precision", "f64", "--colour", "distance", "--light", "135,45"])
        .arg("--npy")
        .arg(&npy)
        .arg("--png")
        .arg(&png)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let p = dendrite(Precision::F64);
    let (counts, smooth, de, _) = distance::julia_reference(&p);
    let npy_counts = wavebrot::output::read_npy::<i32>(&npy).unwrap().0;
    assert_eq!(npy_counts, julia::reference(&p).0, "the .npy holds the rule's counts");
    let colour = ColourSettings {
        by: ColourBy::Distance,
        light: Some(Light { azimuth: 135.0, elevation: 45.0 }),
        ..ColourSettings::DEFAULT
    };
    let mut want = vec![0u8; p.pixels() * 4];
    colour_rgba_de(&counts, Some(&smooth), Some(&de), p.width, p.height, p.iters, &colour, &mut want);
    assert_eq!(image::open(&png).unwrap().to_rgba8().into_raw(), want, "the PNG is the lit distance picture");
    let bad = std::process::Command::new(exe).args(args).args(["--light", "10,95"]).output().unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}
