//! The distance estimate ([`wavebrot::sim::fractal::distance`], `julia_de_*` of
//! `kernels/julia.cu`, `shaders/julia_de.wgsl`): against the finite difference of the smooth
//! values (`d = 1 / (ln 2 |∇ν|)`), against mpmath (`tools/distance_reference.py`), every backend
//! against `cpu1`, the CUDA source run as host C++; and the colourings that use it: lighting
//! changes only the shading.

use crate::common;

use wavebrot::backend::cpu::{CpuBackend, Threads};
use wavebrot::backend::{Backend, distance_tolerance, smooth_tolerance};
use wavebrot::sim::colour::palette::{ColourBy, ColourSettings, Light, Palette, colour_rgba_de, distance_position};
use wavebrot::sim::fractal::distance::{self, DE_VALUES};
use wavebrot::sim::fractal::mandelbrot::{self, Bounds, MandelbrotParams, Precision};

/// The seahorse valley at 160x120, 1000 iterations: filaments at every scale.
fn seahorse(precision: Precision) -> MandelbrotParams {
    MandelbrotParams {
        width: 160,
        height: 120,
        iters: 1000,
        bounds: Bounds { minx: -0.77, maxx: -0.73, miny: 0.08, maxy: 0.11 },
        precision,
    }
}

/// The cases compared across backends: the seahorse valley in both precisions, the whole set,
/// a one-pixel picture, an odd size.
fn cases() -> Vec<MandelbrotParams> {
    let mut v = Vec::new();
    for precision in [Precision::F32, Precision::F64] {
        v.push(seahorse(precision));
        v.push(MandelbrotParams { width: 97, height: 65, iters: 300, bounds: Bounds::SEED, precision });
        v.push(MandelbrotParams { width: 1, height: 1, iters: 50, bounds: Bounds::SEED, precision });
    }
    v
}

/// The finite-difference check: for each pixel whose 4 neighbours escaped and whose estimate
/// lies between 2 and 40 pixels, the ratio of the estimate to `1 / (ln 2 |∇ν|)` (central
/// differences of the smooth values, in pixels). Returns the median of `|ratio - 1|` and the
/// pixels used.
fn finite_difference_error(p: &MandelbrotParams, counts: &[i32], smooth: &[f32], de: &[f32]) -> (f64, usize) {
    let (w, h) = (p.width, p.height);
    let iters = p.iters as i32;
    let mut errors = Vec::new();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let at = y * w + x;
            let around = [at - 1, at + 1, at - w, at + w];
            if counts[at] >= iters || around.iter().any(|&i| counts[i] >= iters) {
                continue;
            }
            let d = f64::from(de[DE_VALUES * at]);
            if !(2.0..=40.0).contains(&d) {
                continue;
            }
            let gx = f64::from(smooth[at + 1] - smooth[at - 1]) / 2.0;
            let gy = f64::from(smooth[at + w] - smooth[at - w]) / 2.0;
            let fd = 1.0 / (std::f64::consts::LN_2 * gx.hypot(gy));
            errors.push((d / fd - 1.0).abs());
        }
    }
    errors.sort_by(f64::total_cmp);
    (errors.get(errors.len() / 2).copied().unwrap_or(f64::INFINITY), errors.len())
}

/// Measured (CPU, f64, the seahorse valley, 6174 pixels): median |ratio - 1| = 0.00090; the bound
/// is that measurement with a margin of about 2x (the finite difference's own error over 2
/// pixels of a field that varies on the scale of the estimate). A factor-2 error measures 1.0.
const FD_MEDIAN_BOUND: f64 = 0.002;

#[test]
fn distance_agrees_with_the_finite_difference_of_smooth_values() {
    let p = seahorse(Precision::F64);
    let (counts, smooth, de, _) = distance::reference(&p);
    let (median, used) = finite_difference_error(&p, &counts, &smooth, &de);
    println!("distance vs 1/(ln2 |grad nu|): median |ratio - 1| = {median:.5} over {used} pixels");
    assert!(used > 1000, "only {used} pixels in the check");
    assert!(median < FD_MEDIAN_BOUND, "median |d / d_fd - 1| = {median} (bound {FD_MEDIAN_BOUND})");
}

#[test]
fn the_finite_difference_check_catches_a_wrong_estimate() {
    // The classic bound 2|z|ln|z|/|dz| in place of the estimate (a factor of 2): the check fails.
    let p = seahorse(Precision::F64);
    let (counts, smooth, mut de, _) = distance::reference(&p);
    for d in de.chunks_exact_mut(DE_VALUES) {
        d[0] *= 2.0;
    }
    let (median, _) = finite_difference_error(&p, &counts, &smooth, &de);
    println!("a doubled estimate: median |ratio - 1| = {median:.3}");
    assert!(median > FD_MEDIAN_BOUND, "a doubled estimate passed: median {median}");
}

/// The pixels of `p` at the given (column, row), as `tools/distance_reference.py` input.
fn mpmath_reference(p: &MandelbrotParams, pixels: &[(usize, usize)]) -> Vec<Option<(i32, f64, f64, f64)>> {
    use std::io::Write;
    let (px, py) = p.pixel_size();
    let mut input = String::new();
    for &(x, y) in pixels {
        let cr = p.bounds.minx + x as f64 * px;
        let ci = p.bounds.miny + y as f64 * py;
        // The f64 point itself, every digit (Rust's shortest round trip), iterated at 40 digits.
        input += &format!("{cr:?} {ci:?} {} 40\n", p.iters);
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

/// Relative difference allowed between the f64 estimate and mpmath's: the f64 orbit's
/// rounding, amplified by the derivative over the orbit. Measured: 4.8e-8 (distance) and 2.6e-8
/// (normal) over 12 escaped pixels of the seahorse valley; the bound is 4x that.
const MPMATH_REL_BOUND: f64 = 2e-7;

#[test]
fn distance_agrees_with_mpmath_at_sampled_pixels() {
    let p = seahorse(Precision::F64);
    let (counts, _, de, _) = distance::reference(&p);
    let pixels: Vec<(usize, usize)> = (0..24).map(|i| ((i * 37 + 5) % p.width, (i * 23 + 11) % p.height)).collect();
    let want = mpmath_reference(&p, &pixels);
    let (px, _) = p.pixel_size();
    let mut worst = (0.0f64, 0.0f64);
    let mut compared = 0;
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
    println!(
        "{compared} escaped pixels against mpmath: distance within {:.3e} (relative), normal within {:.3e}",
        worst.0, worst.1
    );
    assert!(compared >= 10, "only {compared} pixels escaped");
    assert!(worst.0 < MPMATH_REL_BOUND, "distance differs from mpmath's by {} (relative)", worst.0);
    assert!(worst.1 < MPMATH_REL_BOUND, "normal differs from mpmath's by {}", worst.1);
}

/// Runs every case on `b` against `cpu1`: counts (`budget`), smooth values, distances and normals.
fn check_backend(b: &mut dyn Backend, skip_f64: bool) {
    let (rel_tol, normal_tol) = distance_tolerance();
    for p in cases() {
        if p.precision == Precision::F64 && skip_f64 {
            continue;
        }
        let (want, want_smooth, want_de, want_total) = distance::reference(&p);
        let n = p.pixels();
        let (mut counts, mut smooth, mut de) = (vec![-1; n], vec![f32::NAN; n], vec![f32::NAN; n * DE_VALUES]);
        let run = b.mandelbrot_distance(&p, &mut counts, &mut smooth, &mut de).unwrap();
        let m = mandelbrot::mismatch_frac(&counts, &want);
        assert!(m <= common::GPU_COUNT_BUDGET, "{}% of counts differ", m * 100.0);
        let (mut worst_d, mut worst_u) = (0.0f32, 0.0f32);
        let mut worst_at = (0, 0.0f32, 0.0f32);
        for i in 0..n {
            if counts[i] != want[i] {
                continue;
            }
            let s = (smooth[i] - want_smooth[i]).abs();
            assert!(
                s <= smooth_tolerance(want_smooth[i]),
                "pixel {i}: smooth {} against {}",
                smooth[i],
                want_smooth[i]
            );
            let (g, w) = (&de[DE_VALUES * i..DE_VALUES * i + 3], &want_de[DE_VALUES * i..DE_VALUES * i + 3]);
            let rel = if w[0] == 0.0 { g[0].abs() } else { (g[0] / w[0] - 1.0).abs() };
            let rel = if rel.is_nan() { f32::INFINITY } else { rel };
            if rel > worst_d {
                worst_at = (i, g[0], w[0]);
            }
            worst_d = worst_d.max(rel);
            worst_u = worst_u.max((g[1] - w[1]).abs().max((g[2] - w[2]).abs()));
        }
        println!(
            "{} distance {}x{} iters={} {}: counts differ on {:.4}%, distance within {worst_d:.3e} (relative), normal within {worst_u:.3e}",
            b.kind(),
            p.width,
            p.height,
            p.iters,
            p.precision.name(),
            m * 100.0
        );
        let (i, g, w) = worst_at;
        assert!(
            worst_d <= rel_tol,
            "distances differ by {worst_d} (relative; tolerance {rel_tol}): pixel {i}, {g} against {w}"
        );
        assert!(worst_u <= normal_tol, "normals differ by {worst_u} (tolerance {normal_tol})");
        assert_eq!(run.total_iters, want_total, "the iteration total");
    }
}

#[test]
fn cpu_threads_equal_cpu1() {
    let mut cpu = CpuBackend::new(Threads::All);
    for p in cases() {
        let (want, want_smooth, want_de, _) = distance::reference(&p);
        let n = p.pixels();
        let (mut c, mut s, mut d) = (vec![0; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
        cpu.mandelbrot_distance(&p, &mut c, &mut s, &mut d).unwrap();
        assert_eq!((c, s, d), (want, want_smooth, want_de), "cpu against cpu1, bit for bit");
    }
}

#[test]
fn wgpu_distance_equals_cpu1() {
    let Some(mut b) = common::wgpu_backend() else { return };
    let skip_f64 = !common::has_f64_or_skip(&b);
    check_backend(&mut b, skip_f64);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_distance_equals_cpu1() {
    let Some(mut b) = common::cuda_backend("cuda_distance_equals_cpu1") else { return };
    check_backend(b.as_mut(), false);
}

#[test]
fn cuda_kernel_source_equals_the_cpu_on_the_host() {
    // julia_de_* of kernels/julia.cu compiled as host C++ (tests/host/cuda_mock.h, no
    // contraction of multiply-adds, as NVRTC's --fmad=false): counts bit for bit, distances
    // within the tolerance.
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
    let (rel_tol, normal_tol) = distance_tolerance();
    for p in cases() {
        let (px, py) = p.pixel_size();
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
            // c (unused) and mandel = 1: the Mandelbrot set.
            "0".to_owned(),
            "0".to_owned(),
            "1".to_owned(),
        ];
        let run = std::process::Command::new(&exe).args(&args).output().unwrap();
        assert!(run.status.success(), "the host harness failed");
        let text = String::from_utf8(run.stdout).unwrap();
        let (want, want_smooth, want_de, want_total) = distance::reference(&p);
        let (mut worst_d, mut worst_u) = (0.0f32, 0.0f32);
        let mut lines = text.lines();
        for i in 0..p.pixels() {
            let f: Vec<f32> = lines.next().unwrap().split_whitespace().map(|v| v.parse().unwrap()).collect();
            assert_eq!(f[0] as i32, want[i], "pixel {i}: the count");
            assert!((f[1] - want_smooth[i]).abs() <= smooth_tolerance(want_smooth[i]), "pixel {i}: smooth value");
            let w = &want_de[DE_VALUES * i..DE_VALUES * i + 3];
            let rel = if w[0] == 0.0 { f[2].abs() } else { (f[2] / w[0] - 1.0).abs() };
            worst_d = worst_d.max(rel);
            worst_u = worst_u.max((f[3] - w[1]).abs().max((f[4] - w[2]).abs()));
        }
        // The mock runs one thread at a time, so its warp sums (and the total) are not a GPU's.
        let _ = want_total;
        println!(
            "julia.cu julia_de on the host, {} {}x{}: counts equal, distance within {worst_d:.3e}, normal within {worst_u:.3e}",
            p.precision.name(),
            p.width,
            p.height
        );
        assert!(worst_d <= rel_tol && worst_u <= normal_tol, "distance {worst_d}, normal {worst_u}");
    }
}

#[test]
fn lighting_changes_only_the_shading() {
    let p = seahorse(Precision::F64);
    let (counts, smooth, de, _) = distance::reference(&p);
    let (w, h) = (p.width, p.height);
    for by in ColourBy::ALL {
        let plain = ColourSettings { palette: Palette::Viridis, smooth: true, by, ..ColourSettings::DEFAULT };
        let light = Light { azimuth: 135.0, elevation: 30.0 };
        let lit = ColourSettings { light: Some(light), ..plain };
        let (mut a, mut b) = (vec![0u8; w * h * 4], vec![0u8; w * h * 4]);
        colour_rgba_de(&counts, Some(&smooth), Some(&de), w, h, p.iters, &plain, &mut a);
        colour_rgba_de(&counts, Some(&smooth), Some(&de), w, h, p.iters, &lit, &mut b);
        let (mut inside, mut darker, mut shaded) = (0, 0, 0);
        for row in 0..h {
            for x in 0..w {
                let at = (h - 1 - row) * w + x;
                let (pa, pb) = (&a[4 * (row * w + x)..][..4], &b[4 * (row * w + x)..][..4]);
                if counts[at] >= p.iters as i32 {
                    assert_eq!(pa, pb, "an inside pixel changed with the light");
                    inside += 1;
                    continue;
                }
                let f = light.shade(de[DE_VALUES * at + 1], de[DE_VALUES * at + 2]);
                for c in 0..3 {
                    let want = (f64::from(pa[c]) * f).round();
                    assert!((f64::from(pb[c]) - want).abs() <= 0.5, "pixel {at}: {pb:?} is not {pa:?} shaded by {f}");
                }
                shaded += 1;
                darker += usize::from(f < 0.999);
            }
        }
        println!("{}: {inside} inside pixels unchanged, {shaded} shaded ({darker} darker)", by.name());
        assert!(inside > 100 && darker > shaded / 4, "a picture with too little to compare");
    }
}

#[test]
fn distance_colouring_puts_the_boundary_at_the_palettes_end() {
    // Analytic values of t = 1 - ln(1 + d) / ln(65): 1 at d = 0, 0 at d = 64 and beyond.
    assert_eq!(distance_position(0.0), 1.0);
    assert!((distance_position(1.0) - (1.0 - 2f64.ln() / 65f64.ln())).abs() < 1e-12);
    assert_eq!(distance_position(64.0), 0.0);
    assert_eq!(distance_position(1e9), 0.0);
    // The light from straight above shades every slope alike; from the right, a normal to
    // the right is lit fully (N·L = cos 45° cos 0 ... = 1 at elevation 45°) and one to the left
    // gets the ambient share.
    let above = Light { azimuth: 0.0, elevation: 90.0 };
    assert!((above.shade(1.0, 0.0) - above.shade(0.0, -1.0)).abs() < 1e-12);
    let right = Light { azimuth: 0.0, elevation: 45.0 };
    assert!((right.shade(1.0, 0.0) - 1.0).abs() < 1e-12, "{}", right.shade(1.0, 0.0));
    assert!((right.shade(-1.0, 0.0) - wavebrot::sim::colour::palette::LIGHT_AMBIENT).abs() < 1e-12);
}
