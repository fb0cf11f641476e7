//! The distance estimate of deep (perturbation) views ([`wavebrot::sim::fractal::deep_distance`],
//! `mandelbrot_deep_de_f64` of `kernels/mandelbrot_deep.cu`): against an independent direct
//! iteration of `z` and `dz/dc` in MPFR (`tools/deep_reference.py --distance`) at 1e20, 5e49
//! and 2e533; BLA on and off; the counts unchanged; the CLI's lit picture at a deep location.

use std::process::Command;

use crate::mandelbrot_deep::{HostKernel, host_harness, host_kernel_output, parse_hex_float};
use wavebrot::backend::Backend;
use wavebrot::backend::cpu::{CpuBackend, Threads};
use wavebrot::sim::fractal::deep::{DeepJob, Location, View};
use wavebrot::sim::fractal::distance::DE_VALUES;
use wavebrot::sim::fractal::perturb::Mantissa;

/// A shipped location's view and iterations.
fn shipped(name: &str) -> (View, u32) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations").join(name);
    let loc = Location::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (loc.view(), loc.iters)
}

/// The deep views checked, `(label, view, iters, width, height, samples)`: near `c = i` at
/// 1e20 (plain deltas, BLA), rust-fractal's 5e49 (long orbits, BLA) and 2e533 (extended
/// exponent, tiny reference values, rebasing).
fn views() -> Vec<(&'static str, View, u32, usize, usize, usize)> {
    let (v50, i50) = shipped("rfc-1e50.toml");
    let (v533, i533) = shipped("rfc-4e533.toml");
    vec![
        ("near i 1e20", View::parse("3e-21,1.000000000000000000001", "1e20").unwrap(), 2000, 32, 18, 16),
        ("rust-fractal 5e49", v50, i50, 32, 18, 10),
        ("rust-fractal 2e533", v533, i533, 32, 18, 10),
    ]
}

/// Counts, smooth values and distances of `job` on the CPU backend (all cores).
pub fn cpu_distance(job: &DeepJob) -> (Vec<i32>, Vec<f32>, Vec<f32>) {
    let n = job.pixels();
    let (mut c, mut s, mut d) = (vec![-1; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
    CpuBackend::new(Threads::All).mandelbrot_deep_distance(job, &mut c, &mut s, &mut d).unwrap();
    (c, s, d)
}

/// One sampled pixel of the MPFR reference: `(x, y, count, Some([distance, ux, uy]))`.
type Sample = (usize, usize, i32, Option<[f64; 3]>);

fn mpfr_distances(view: &View, iters: u32, w: usize, h: usize, samples: usize) -> Vec<Sample> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/deep_reference.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(["--re", &view.re, "--im", &view.im, "--zoom", &view.zoom, "--distance"])
        .args(["--iters", &iters.to_string(), "--width", &w.to_string(), "--height", &h.to_string()])
        .args(["--samples", &samples.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("the MPFR reference needs python3 with gmpy2 (tools/requirements-ci.txt): {e}"));
    assert!(
        out.status.success(),
        "tools/deep_reference.py --distance failed (python3 with gmpy2 needed):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["pixels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let p = p.as_array().unwrap();
            let u = |i: usize| p[i].as_u64().unwrap() as usize;
            let de = (p.len() == 6).then(|| [3, 4, 5].map(|i| p[i].as_f64().unwrap()));
            (u(0), u(1), p[2].as_i64().unwrap() as i32, de)
        })
        .collect()
}

/// The largest relative error of the distance and the largest difference of a normal's
/// component over the sampled escaped pixels whose count is MPFR's, and how many there were.
/// Pixels whose count differs are left out (their distance belongs to another orbit), but at
/// most `allowed` may.
pub fn distance_errors(
    what: &str,
    w: usize,
    got: (&[i32], &[f32]),
    want: &[Sample],
    allowed: usize,
) -> (f64, f64, usize) {
    let (counts, de) = got;
    let (mut rel, mut normal, mut compared, mut differ) = (0.0f64, 0.0f64, 0, 0);
    for &(x, y, count, d) in want {
        let i = y * w + x;
        if counts[i] != count {
            differ += 1;
            continue;
        }
        let Some([d, ux, uy]) = d else { continue };
        let g = &de[i * DE_VALUES..(i + 1) * DE_VALUES];
        rel = rel.max((f64::from(g[0]) - d).abs() / d);
        normal = normal.max((f64::from(g[1]) - ux).abs().max((f64::from(g[2]) - uy).abs()));
        compared += 1;
    }
    println!(
        "{what}: {compared} escaped pixels compared with MPFR, distance within {rel:.2e} (relative), normal within {normal:.2e}; {differ} counts differ"
    );
    assert!(differ <= allowed, "{what}: {differ} sampled counts differ from MPFR (allowed {allowed})");
    (rel, normal, compared)
}

/// Relative error of the distance allowed against MPFR, and of a normal's component. Measured
/// on the CPU (32x18, sampled pixels; the numbers are printed): distance 3.9e-8 (1e20), 4.0e-8
/// (5e49), 4.8e-8 (2e533), normal 2.9e-8 at most: the `f32` the buffer stores (a rounding of
/// 6e-8 relative) and little else. The bounds are 4x the largest, far below a colour step.
const DISTANCE_REL: f64 = 2e-7;
const NORMAL_ABS: f64 = 1.2e-7;

#[test]
fn cpu_deep_distances_match_an_independent_mpfr_iteration() {
    for (label, view, iters, w, h, samples) in views() {
        let job = DeepJob::prepare(&view, w, h, iters).unwrap();
        let (counts, _, de) = cpu_distance(&job);
        let want = mpfr_distances(&view, iters, w, h, samples);
        let (rel, normal, compared) = distance_errors(&format!("cpu, {label}"), w, (&counts, &de), &want, 0);
        assert!(compared >= samples / 3, "{label}: only {compared} escaped pixels compared");
        assert!(
            rel <= DISTANCE_REL,
            "{label}: the distance differs from MPFR's by {rel:e} (relative; allowed {DISTANCE_REL:e})"
        );
        assert!(normal <= NORMAL_ABS, "{label}: a normal differs from MPFR's by {normal:e} (allowed {NORMAL_ABS:e})");
    }
}

#[test]
fn the_mpfr_check_catches_a_wrong_distance() {
    // The check must fail on a distance off by 1% (the pixel spacing mistaken by 1%), which is
    // what it exists to catch.
    let (label, view, iters, w, h, _) = views().remove(0);
    let job = DeepJob::prepare(&view, w, h, iters).unwrap();
    let (counts, _, mut de) = cpu_distance(&job);
    de.chunks_mut(DE_VALUES).for_each(|p| p[0] *= 1.01);
    let want = mpfr_distances(&view, iters, w, h, 8);
    let (rel, _, compared) = distance_errors(&format!("{label}, distances 1% off"), w, (&counts, &de), &want, 0);
    assert!(compared > 0 && rel > DISTANCE_REL, "a 1% error measured as {rel:e}: the check would not catch it");
}

/// Distances below this many pixels are the boundary itself at the picture's resolution (the
/// palette fades over 64 pixels). Such pixels sit so near the set that 170 000 perturbed `f64`
/// steps lose digits of their derivative: at 5e49, pixel (0, 4) of 16x9 is 1.74577e-10 px in
/// MPFR, 1.74573e-10 with BLA and 1.75145e-10 without (fewer roundings with BLA).
const NEAR_PIXELS: f64 = 1e-3;

#[test]
fn bla_on_and_off_give_the_same_distances() {
    // BLA steps carry the derivative as dz' = A dz' + B; single steps as 2 z dz' + 1. Over the
    // pixels whose counts agree and whose distance is at least NEAR_PIXELS, measured: largest
    // relative difference 6.5e-8 (5e49; 0 at 1e20 and 2e533); the bound is DISTANCE_REL (as against MPFR); nearer
    // pixels must both be near.
    for (label, view, iters, w, h, _) in views() {
        let job = DeepJob::prepare(&view, 16, 9, iters).unwrap();
        let _ = (w, h);
        let (c1, _, d1) = cpu_distance(&job);
        let (c2, _, d2) = cpu_distance(&job.without_bla());
        let (mut worst, mut same) = (0.0f64, 0);
        for i in 0..c1.len() {
            if c1[i] != c2[i] || c1[i] == iters as i32 {
                continue;
            }
            let (a, b) = (f64::from(d1[i * DE_VALUES]), f64::from(d2[i * DE_VALUES]));
            if b < NEAR_PIXELS {
                // Both on the boundary at this resolution (see above).
                assert!(a < 2.0 * NEAR_PIXELS, "{label}: pixel {i}: {a} px with BLA, {b} px without");
                continue;
            }
            worst = worst.max((a - b).abs() / b);
            same += 1;
        }
        let differ = c1.iter().zip(&c2).filter(|(a, b)| a != b).count();
        println!(
            "{label}: BLA on and off: {same} escaped pixels, distances within {worst:.2e}; {differ} counts differ"
        );
        assert!(differ <= 1, "{label}: BLA changes {differ} counts");
        assert!(worst <= DISTANCE_REL, "{label}: BLA on and off give distances {worst:e} apart (relative)");
    }
}

fn wavebrot() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wavebrot"))
}

#[test]
fn cli_lights_a_deep_location_and_keeps_the_counts() {
    // `--colour distance --light` at the 2e533 location: a picture, and the same `.npy` counts
    // as without the distance estimates.
    let dir = tempfile::tempdir().unwrap();
    let loc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations/rfc-4e533.toml");
    let run = |extra: &[&str], png: &str, npy: &str| {
        let out = wavebrot()
            .args(["render", "mandelbrot", "--backend", "cpu", "--width", "24", "--height", "16", "--location"])
            .arg(&loc)
            .args(extra)
            .arg("--png")
            .arg(dir.path().join(png))
            .arg("--npy")
            .arg(dir.path().join(npy))
            .output()
            .unwrap();
        assert!(out.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
        std::fs::read(dir.path().join(npy)).unwrap()
    };
    let lit = run(&["--colour", "distance", "--light", "135,45"], "lit.png", "lit.npy");
    let plain = run(&[], "plain.png", "plain.npy");
    assert_eq!(lit, plain, "the counts with distance colouring differ from the plain ones");
    let (a, b) =
        (std::fs::read(dir.path().join("lit.png")).unwrap(), std::fs::read(dir.path().join("plain.png")).unwrap());
    assert_ne!(a, b, "the lit picture is the plain one");
}

/// Counts, smooth values and distances of `job` from `mandelbrot_deep_de_f64` run on the host.
fn host_distance(h: &HostKernel, job: &DeepJob) -> (Vec<i32>, Vec<f32>, Vec<f32>) {
    let (mut c, mut s, mut d) = (Vec::new(), Vec::new(), Vec::new());
    for line in host_kernel_output(h, job, Some("de")).lines() {
        let v: Vec<&str> = line.split(' ').collect();
        c.push(v[0].parse::<i32>().unwrap());
        s.push(parse_hex_float(v[1]) as f32);
        d.extend(v[2..5].iter().map(|x| parse_hex_float(x) as f32));
    }
    (c, s, d)
}

#[test]
fn the_cuda_kernel_on_the_host_gives_the_cpu_twins_distances() {
    // kernels/mandelbrot_deep.cu compiled as host C++ (no contraction, as NVRTC's --fmad=false):
    // the same operations in the same order, so the counts and smooth values are the CPU's bit
    // for bit and the distances too (the same libm on the host; on the GPU CUDA's log and
    // hypot differ in their last bits: `distance_tolerance`). With BLA and without.
    let h = host_harness();
    for (label, view, iters, _, _, _) in views() {
        let job = DeepJob::prepare(&view, 16, 9, iters).unwrap();
        for job in [job.clone(), job.without_bla()] {
            let cpu = cpu_distance(&job);
            let host = host_distance(&h, &job);
            assert_eq!(host.0, cpu.0, "{label}: counts");
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&host.1), bits(&cpu.1), "{label}: smooth values");
            let differ = host.2.iter().zip(&cpu.2).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
            println!("{label}: the CUDA kernel on the host: {differ} distance values differ from the CPU twin");
            assert_eq!(bits(&host.2), bits(&cpu.2), "{label}: distances ({differ} values differ)");
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_deep_distances_equal_the_cpu_twin() {
    // On the device: the counts and smooth values are the CPU's (no FMA: --fmad=false), the
    // distances within `distance_tolerance` (CUDA's log and hypot in their last bits).
    let Some(mut b) = crate::common::cuda_backend("cuda_deep_distances_equal_the_cpu_twin") else { return };
    let (rel_tol, normal_tol) = wavebrot::backend::distance_tolerance();
    for (label, view, iters, w, h, _) in views() {
        let job = DeepJob::prepare(&view, w, h, iters).unwrap();
        let cpu = cpu_distance(&job);
        let n = job.pixels();
        let (mut c, mut s, mut d) = (vec![-1; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
        b.mandelbrot_deep_distance(&job, &mut c, &mut s, &mut d).unwrap();
        assert_eq!(c, cpu.0, "{label}: counts");
        let (mut worst_d, mut worst_u) = (0.0f32, 0.0f32);
        for i in 0..n {
            let (g, want) = (&d[i * DE_VALUES..(i + 1) * DE_VALUES], &cpu.2[i * DE_VALUES..(i + 1) * DE_VALUES]);
            if want[0] > 0.0 {
                worst_d = worst_d.max((g[0] - want[0]).abs() / want[0]);
            }
            worst_u = worst_u.max((g[1] - want[1]).abs().max((g[2] - want[2]).abs()));
        }
        println!("cuda, {label}: distances within {worst_d:e} (relative), normals within {worst_u:e}");
        assert!(worst_d <= rel_tol && worst_u <= normal_tol, "{label}: distance {worst_d:e}, normal {worst_u:e}");
    }
}

#[test]
fn tiles_give_the_whole_pictures_distances() {
    // `render_tiled_de` in strips of rows (the CLI's and the app's path) against the picture in
    // one piece: the same numbers.
    let (_, view, iters, w, h, _) = views().remove(0);
    let job = DeepJob::prepare(&view, w, h, iters).unwrap();
    let whole = cpu_distance(&job);
    let n = job.pixels();
    let (mut c, mut s, mut d) = (vec![-1; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
    let mut b = CpuBackend::new(Threads::All);
    let picture = wavebrot::backend::tiles::Picture::Deep(&job);
    let t = wavebrot::backend::tiles::render_tiled_de(
        &mut b,
        picture,
        5 * w,
        &mut c,
        Some(&mut s),
        Some(&mut d),
        &mut |_, _| true,
    )
    .unwrap();
    assert!(t.tiles > 1, "one tile");
    assert_eq!((c, s, d), whole, "tiles against the whole picture");
}

#[test]
fn wgpu_deep_distances_equal_the_cpu_twin_or_refuse() {
    // The WGSL twin (mandelbrot_deep_slope.wgsl spliced into the deep body) against the CPU
    // twin with the same deltas (f64 where the adapter has it): counts within the deep budget
    // (drivers may fuse multiply-adds), and where they agree the distances within
    // WGPU_DISTANCE_REL (the distance and normal formed in f32 in WGSL, in f64 on the CPU).
    // llvmpipe ends a loop after 65535 trips: it must refuse the long orbits, never give a
    // wrong picture.
    let Some(mut b) = crate::common::wgpu_backend() else { return };
    let mantissa = b.deep_mantissa();
    for (label, view, iters, _, _, _) in views() {
        let job = DeepJob::prepare(&view, 16, 9, iters).unwrap();
        let n = job.pixels();
        let (mut c, mut s, mut d) = (vec![-1; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
        match b.mandelbrot_deep_distance(&job, &mut c, &mut s, &mut d) {
            Ok(_) => {
                let (mut k, mut t, mut e) = (vec![-1; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
                wavebrot::backend::cpu::mandelbrot_deep::mandelbrot_deep_distance(
                    Threads::All,
                    &job,
                    mantissa,
                    &mut k,
                    &mut t,
                    &mut e,
                )
                .unwrap();
                let (mut plain, mut ps) = (vec![-1; n], vec![0.0; n]);
                b.mandelbrot_deep_smooth(&job, &mut plain, &mut ps).unwrap();
                assert_eq!(c, plain, "{label}: wgpu's counts change with distance estimates");
                let differ = c.iter().zip(&k).filter(|(a, b)| a != b).count();
                let (mut worst_d, mut worst_u) = (0.0f64, 0.0f64);
                for i in (0..n).filter(|&i| c[i] == k[i] && k[i] < iters as i32) {
                    let (g, w) = (&d[i * DE_VALUES..(i + 1) * DE_VALUES], &e[i * DE_VALUES..(i + 1) * DE_VALUES]);
                    if f64::from(w[0]) < NEAR_PIXELS {
                        // On the boundary at this resolution: both must say so (see NEAR_PIXELS).
                        assert!(
                            f64::from(g[0]) < 2.0 * NEAR_PIXELS,
                            "{label}: pixel {i}: {} px, CPU {} px",
                            g[0],
                            w[0]
                        );
                        continue;
                    }
                    worst_d = worst_d.max(f64::from((g[0] - w[0]).abs() / w[0]));
                    worst_u = worst_u.max(f64::from((g[1] - w[1]).abs().max((g[2] - w[2]).abs())));
                }
                println!(
                    "wgpu {}, {label}: {differ} of {n} counts differ from the CPU twin; distances within {worst_d:.2e}, normals within {worst_u:.2e}",
                    mantissa.name()
                );
                assert!(
                    differ as f64 <= mantissa.mismatch_tolerance() * n as f64 + 1.0,
                    "{label}: {differ} counts differ"
                );
                assert!(worst_d <= WGPU_DISTANCE_REL, "{label}: distances {worst_d:e} apart (relative)");
                assert!(worst_u <= WGPU_NORMAL_ABS, "{label}: normals {worst_u:e} apart");
            }
            Err(e) => {
                let e = e.to_string();
                println!("wgpu, {label}: refused: {e}");
                assert!(b.is_software() && e.contains("stopped the deep-zoom loop"), "{label}: {e}");
            }
        }
    }
}

/// wgpu against the CPU twin: the distance relative, a normal's component absolute. Measured on
/// lavapipe (f64 deltas, 16x9; the numbers are printed): distances within 2.3e-7 (1e20), 1.9e-7
/// (5e49), 1.6e-7 (2e533), normals within 1.2e-7; the bounds about 4x.
const WGPU_DISTANCE_REL: f64 = 1e-6;
const WGPU_NORMAL_ABS: f64 = 5e-7;

#[test]
fn wgpu_f32_deep_distances_equal_the_cpu_twin() {
    // The f32 variant (adapters without f64): f32 mantissas with an i32 exponent for the deltas
    // and for S, no BLA; against the CPU twin with f32 deltas at 1e20 (extended exponent in
    // f32 from the first step). Measured on lavapipe (32x18): no count differs, distances within
    // 3.2e-7, normals within 1.2e-7; the bounds about 3x.
    let Some(mut b) = crate::common::wgpu_backend() else { return };
    let (label, view, iters, w, h, _) = views().remove(0);
    let job = DeepJob::prepare(&view, w, h, iters).unwrap();
    let n = job.pixels();
    let (mut c, mut s, mut d) = (vec![-1; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
    b.mandelbrot_deep_distance_with(Mantissa::F32, &job, &mut c, &mut s, &mut d).unwrap();
    let (mut k, mut t, mut e) = (vec![-1; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
    wavebrot::backend::cpu::mandelbrot_deep::mandelbrot_deep_distance(
        Threads::All,
        &job,
        Mantissa::F32,
        &mut k,
        &mut t,
        &mut e,
    )
    .unwrap();
    let differ = c.iter().zip(&k).filter(|(a, b)| a != b).count();
    let (mut worst_d, mut worst_u, mut compared) = (0.0f64, 0.0f64, 0);
    for i in (0..n).filter(|&i| c[i] == k[i] && k[i] < iters as i32 && f64::from(e[i * DE_VALUES]) >= NEAR_PIXELS) {
        let (g, w) = (&d[i * DE_VALUES..(i + 1) * DE_VALUES], &e[i * DE_VALUES..(i + 1) * DE_VALUES]);
        worst_d = worst_d.max(f64::from((g[0] - w[0]).abs() / w[0]));
        worst_u = worst_u.max(f64::from((g[1] - w[1]).abs().max((g[2] - w[2]).abs())));
        compared += 1;
    }
    println!(
        "wgpu f32, {label}: {differ} of {n} counts differ; {compared} compared, distances within {worst_d:.2e}, normals within {worst_u:.2e}"
    );
    assert!(differ as f64 <= Mantissa::F32.mismatch_tolerance() * n as f64, "{label}: {differ} counts differ");
    assert!(compared > n / 2, "{label}: only {compared} pixels compared");
    assert!(
        worst_d <= WGPU_F32_DISTANCE_REL && worst_u <= WGPU_F32_NORMAL_ABS,
        "{label}: distance {worst_d:e}, normal {worst_u:e}"
    );
}

// lavapipe: 3.2e-7 and 1.2e-7. The H100's Vulkan driver (stop 31, docs/runs.md#h100-2026-11-24-stop31,
// `final1_tests.txt`): 3.0e-4 and 1.3e-4 at 1e20, with every count equal: its compiler is free to
// fuse `a*b + c` in this f32 path (it has no order fences, unlike the f64 kernels), and a fused
// rounding in f32 grows over the orbit's thousands of steps. The bounds: about 3x the H100's.
const WGPU_F32_DISTANCE_REL: f64 = 1e-3;
const WGPU_F32_NORMAL_ABS: f64 = 4e-4;
