//! The deep-zoom (perturbation) Mandelbrot family on every backend: the CPU twin
//! (`src/backend/cpu/mandelbrot_deep.rs`, rule `src/sim/perturb.rs`) against the direct
//! arbitrary-precision rule, and CUDA (`kernels/mandelbrot_deep.cu`, also compiled as host C++
//! here) and wgpu (`shaders/mandelbrot_deep.wgsl`) against the CPU twin; smooth values and BLA.
//! The check against an independent MPFR iteration is `mandelbrot_deep_reference`, the CLI's
//! deep-zoom flags `mandelbrot_deep_cli`; both use this file's views and host harness.
//!
//! Locations: near the Misiurewicz point `c = i`, offset by a fraction of the view so the
//! picture holds a range of counts (the centre's orbit escapes early there, so every pixel must
//! rebase when the reference ends: plain perturbation gets several percent wrong, see
//! `plain_perturbation_glitches_where_rebasing_does_not`), and a minibrot in seahorse valley.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;

use wavebrot::backend::Backend;
use wavebrot::backend::cpu::mandelbrot_deep::{mandelbrot_deep, mandelbrot_deep_smooth};
use wavebrot::backend::cpu::{CpuBackend, Threads};
use wavebrot::sim::fractal::deep::reference_big;
use wavebrot::sim::fractal::deep::{DeepJob, View};
use wavebrot::sim::fractal::mandelbrot::{iterations_executed, mismatch_frac};
use wavebrot::sim::fractal::perturb::{Mantissa, Real};

const W: usize = 48;
const H: usize = 32;

/// A view near `c = i` at `10^exp`: the centre `i + (0.3 + 0.1i) * 10^-exp`.
pub(crate) fn near_i(exp: u32) -> View {
    View::parse(&format!("3e-{},1.{}1", exp + 1, "0".repeat(exp as usize)), &format!("1e{exp}")).unwrap()
}

/// A minibrot in seahorse valley at 1e17 (most pixels inside: 8000 iterations each).
pub(crate) fn seahorse() -> View {
    View::parse("-0.743643887037158704752191506114774,0.131825904205311970493132056385139", "1e17").unwrap()
}

pub(crate) fn cpu_counts(job: &DeepJob, mantissa: Mantissa) -> Vec<i32> {
    let mut counts = vec![-1; job.pixels()];
    mandelbrot_deep(Threads::All, job, mantissa, &mut counts).unwrap();
    counts
}

#[test]
fn perturbation_matches_direct_arbitrary_precision() {
    let cases = [(near_i(20), 2000), (near_i(60), 3000), (near_i(320), 3000), (seahorse(), 8000)];
    for (view, iters) in cases {
        let job = DeepJob::prepare(&view, W, H, iters).unwrap();
        let direct = reference_big(&view, W, H, iters).unwrap();
        let distinct = {
            let mut d = direct.clone();
            d.sort_unstable();
            d.dedup();
            d.len()
        };
        assert!(distinct >= 3, "zoom {}: the picture has only {distinct} counts", view.zoom);
        for mantissa in [Mantissa::F64, Mantissa::F32] {
            let counts = cpu_counts(&job, mantissa);
            let m = mismatch_frac(&counts, &direct);
            println!(
                "zoom {} iters {iters} {}: {:.3}% differ from the direct rule",
                view.zoom,
                mantissa.name(),
                m * 100.0
            );
            assert!(
                m <= mantissa.mismatch_tolerance(),
                "zoom {} {}: {:.3}% of pixels differ from the direct arbitrary-precision rule (budget {}%)",
                view.zoom,
                mantissa.name(),
                m * 100.0,
                mantissa.mismatch_tolerance() * 100.0
            );
        }
        // One thread and all cores give the same bits.
        let mut one = vec![0; job.pixels()];
        let run = mandelbrot_deep(Threads::One, &job, Mantissa::F64, &mut one).unwrap();
        assert_eq!(one, cpu_counts(&job, Mantissa::F64));
        let own: u64 = one.iter().map(|&c| iterations_executed(c as u32, iters)).sum();
        assert_eq!(run.total_iters, own);
    }
}

/// Perturbation without rebasing: the reference's orbit for as long as it lasts, then its last
/// value again (what a renderer without glitch handling computes).
fn plain_perturbation(job: &DeepJob) -> Vec<i32> {
    let o = &job.orbit;
    let last = o.re.len() - 1;
    let scale = 1.0f64.ldexp(job.grid.exp);
    let mut out = vec![0; job.pixels()];
    for (i, out) in out.iter_mut().enumerate() {
        let (a, b) = job.grid.dc(i % job.width, i / job.width);
        let (dcr, dci) = (a * scale, b * scale);
        let (mut wr, mut wi, mut m) = (dcr, dci, 1usize);
        *out = job.iters as i32;
        for k in 0..job.iters {
            let (rr, ri) = (o.re[m.min(last)], o.im[m.min(last)]);
            let (fr, fi) = (rr + wr, ri + wi);
            if fr * fr + fi * fi >= 4.0 {
                *out = k as i32;
                break;
            }
            let (tr, ti) = (rr + rr + wr, ri + ri + wi);
            (wr, wi) = (tr * wr - ti * wi + dcr, tr * wi + ti * wr + dci);
            m += 1;
        }
    }
    out
}

#[test]
fn plain_perturbation_glitches_where_rebasing_does_not() {
    // The centre's orbit escapes after 165 steps while the pixels around it go on to 182:
    // without glitch handling they are wrong; rebased, they are right.
    let view = near_i(60);
    let job = DeepJob::prepare(&view, W, H, 3000).unwrap();
    assert!(job.orbit.steps() < 200, "the reference lasts {} steps", job.orbit.steps());
    let direct = reference_big(&view, W, H, 3000).unwrap();
    let plain = mismatch_frac(&plain_perturbation(&job), &direct);
    let rebased = mismatch_frac(&cpu_counts(&job, Mantissa::F64), &direct);
    println!("plain perturbation: {:.3}% wrong, rebased: {:.3}%", plain * 100.0, rebased * 100.0);
    assert!(plain > 0.01, "the location is not glitch-prone: plain perturbation is {:.3}% wrong", plain * 100.0);
    assert!(rebased <= 0.001, "rebased perturbation: {:.3}% wrong", rebased * 100.0);
}

#[test]
fn the_tip_keeps_the_escape_test_precise() {
    // At c = -2 the orbit sits on the escape circle (z = 2): |z|^2 in f64 cannot tell
    // 4 - 1e-20 from 4, so the test uses |Z|^2 - 4 from arbitrary precision. Without it
    // 81% of these pixels were wrong (measured); what is left comes from pixels that outlive
    // the centre's orbit (36 steps) and rebase onto an orbit that does not shadow them.
    let view = View::parse("-1.99999999999999999999,0.00000000000000000001", "1e20").unwrap();
    let job = DeepJob::prepare(&view, W, H, 2000).unwrap();
    let direct = reference_big(&view, W, H, 2000).unwrap();
    let m = mismatch_frac(&cpu_counts(&job, Mantissa::F64), &direct);
    println!("tip: {:.3}% differ", m * 100.0);
    assert!(m <= 0.03, "tip: {:.3}% of pixels differ", m * 100.0);
}

fn gpu_cases() -> Vec<(View, u32)> {
    vec![(near_i(20), 2000), (near_i(320), 3000), (seahorse(), 8000)]
}

#[test]
fn wgpu_deep_counts_equal_the_cpu_twin() {
    let Some(mut b) = common::wgpu_backend() else { return };
    for (view, iters) in gpu_cases() {
        let job = DeepJob::prepare(&view, 64, 40, iters).unwrap();
        for mantissa in [Mantissa::F64, Mantissa::F32] {
            if mantissa == Mantissa::F64 && !common::has_f64_or_skip(&b) {
                continue;
            }
            let mut counts = vec![-1; job.pixels()];
            let run = b.mandelbrot_deep_with(mantissa, &job, &mut counts).unwrap();
            let want = cpu_counts(&job, mantissa);
            let m = mismatch_frac(&counts, &want);
            println!("wgpu deep zoom {} {}: {:.3}% differ from the CPU twin", view.zoom, mantissa.name(), m * 100.0);
            assert!(m <= 0.01, "zoom {} {}: {:.3}% differ from the CPU twin", view.zoom, mantissa.name(), m * 100.0);
            let own: u64 = counts.iter().map(|&c| iterations_executed(c as u32, iters)).sum();
            assert_eq!(run.total_iters, own, "the GPU's iteration total");
            let mut twin = vec![-1; job.pixels()];
            let twin_run = mandelbrot_deep(Threads::All, &job, mantissa, &mut twin).unwrap();
            if twin == counts {
                assert_eq!(
                    run.executed_iters,
                    twin_run.executed_iters,
                    "zoom {} {}: executed",
                    view.zoom,
                    mantissa.name()
                );
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_deep_counts_equal_the_cpu_twin() {
    let Some(mut b) = common::cuda_backend("cuda_deep_counts_equal_the_cpu_twin") else { return };
    for (view, iters) in gpu_cases() {
        let job = DeepJob::prepare(&view, 64, 40, iters).unwrap();
        let mut counts = vec![-1; job.pixels()];
        let run = b.mandelbrot_deep(&job, &mut counts).unwrap();
        let want = cpu_counts(&job, Mantissa::F64);
        let m = mismatch_frac(&counts, &want);
        println!("cuda deep zoom {}: {:.4}% differ from the CPU twin", view.zoom, m * 100.0);
        assert!(m <= 1e-4, "zoom {}: {:.4}% differ from the CPU twin", view.zoom, m * 100.0);
        let own: u64 = counts.iter().map(|&c| iterations_executed(c as u32, iters)).sum();
        assert_eq!(run.total_iters, own);
        let mut twin = vec![-1; job.pixels()];
        let twin_run = mandelbrot_deep(Threads::All, &job, Mantissa::F64, &mut twin).unwrap();
        if twin == counts {
            assert_eq!(run.executed_iters, twin_run.executed_iters, "zoom {}: executed iterations", view.zoom);
        }
    }
}

#[test]
fn cpu_backend_renders_deep_views() {
    let job = DeepJob::prepare(&near_i(100), 33, 17, 1000).unwrap();
    let mut counts = vec![-1; job.pixels()];
    CpuBackend::new(Threads::All).mandelbrot_deep(&job, &mut counts).unwrap();
    assert!(counts.iter().all(|&c| (0..=1000).contains(&c)));
    assert_eq!(CpuBackend::new(Threads::One).deep_arith(&job), "perturbation f64");
    let ext = DeepJob::prepare(&near_i(320), 8, 8, 100).unwrap();
    assert_eq!(CpuBackend::new(Threads::One).deep_arith(&ext), "perturbation f64, extended exponent");
}

/// `v` as C's `%a` reads it (hexadecimal, exact).
pub(crate) fn hex(v: f64) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0x0p+0".into() } else { "0x0p+0".into() };
    }
    let bits = v.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = bits & ((1 << 52) - 1);
    if exp == 0 { format!("{sign}0x0.{mant:013x}p-1022") } else { format!("{sign}0x1.{mant:013x}p{}", exp - 1023) }
}

/// Parses C's `%a` output (`0x1.8p+3`, `-0x0p+0`, `inf`, `nan`).
pub(crate) fn parse_hex_float(s: &str) -> f64 {
    let s = s.trim();
    let (sign, s) = s.strip_prefix('-').map_or((1.0, s), |r| (-1.0, r));
    if let Ok(v) = s.parse::<f64>() {
        return sign * v; // inf, nan
    }
    let s = s.strip_prefix("0x").unwrap();
    let (mant, exp) = s.split_once('p').unwrap();
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let mut v = u64::from_str_radix(int, 16).unwrap() as f64;
    for (i, d) in frac.chars().enumerate() {
        v += f64::from(d.to_digit(16).unwrap()) / 16f64.powi(i as i32 + 1);
    }
    sign * v * 2f64.powi(exp.parse().unwrap())
}

/// kernels/mandelbrot_deep.cu compiled as host C++ (tests/host/: a mock of CUDA's built-ins,
/// no contraction of multiply-adds, as NVRTC's --fmad=false). Needs a C++ compiler (the build
/// needs one anyway).
pub(crate) struct HostKernel {
    dir: tempfile::TempDir,
    exe: std::path::PathBuf,
}

pub(crate) fn host_harness() -> HostKernel {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("harness");
    let out = std::process::Command::new("c++")
        .args(["-std=c++17", "-O2", "-ffp-contract=off", "-w", "-include"])
        .arg(root.join("tests/host/cuda_mock.h"))
        .arg("-include")
        .arg(root.join("kernels/mandelbrot_deep.cu"))
        .arg(root.join("tests/host/mandelbrot_deep_harness.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("a C++ compiler (c++) to compile the kernel on the host");
    assert!(out.status.success(), "compiling the kernel as host C++:\n{}", String::from_utf8_lossy(&out.stderr));
    HostKernel { dir, exe }
}

/// The counts and smooth values of `job` from the CUDA kernel run on the host.
pub(crate) fn run_host_kernel(h: &HostKernel, job: &DeepJob) -> (Vec<i32>, Vec<f32>) {
    host_kernel_output(h, job, None)
        .lines()
        .map(|l| {
            let (c, s) = l.split_once(' ').unwrap();
            (c.parse::<i32>().unwrap(), parse_hex_float(s) as f32)
        })
        .unzip()
}

/// What the host harness prints for `job`, one line a pixel (`mode`: its second argument,
/// `de` for the distance kernel).
pub(crate) fn host_kernel_output(h: &HostKernel, job: &DeepJob, mode: Option<&str>) -> String {
    let (o, g) = (&job.orbit, job.grid);
    let mut text = format!(
        "{} {} {} {} {} {} {} {} {}\n",
        job.width,
        job.height,
        job.iters,
        o.last_f64,
        g.exp,
        hex(g.ax),
        hex(g.bx),
        hex(g.ay),
        hex(g.by)
    );
    for m in 0..=o.last_f64 {
        let row = [o.re[m], o.im[m], o.re_lo[m], o.im_lo[m], o.mag4[m]].map(hex).join(" ");
        text.push_str(&format!("{row} {}\n", o.exp[m]));
    }
    let t = &job.bla;
    text.push_str(&format!("{} {} {}\n", if t.is_empty() { 0 } else { t.levels }, t.n, t.len()));
    for j in 0..t.len() {
        let row = [t.ab[4 * j], t.ab[4 * j + 1], t.ab[4 * j + 2], t.ab[4 * j + 3], t.r2[j], t.rm[j]].map(hex).join(" ");
        let x = &t.exps[4 * j..4 * j + 3];
        text.push_str(&format!("{row} {} {} {}\n", x[0], x[1], x[2]));
    }
    let file = h.dir.path().join("job.txt");
    std::fs::write(&file, text).unwrap();
    let run = std::process::Command::new(&h.exe).arg(&file).args(mode).output().unwrap();
    assert!(run.status.success(), "the host harness failed");
    String::from_utf8_lossy(&run.stdout).into_owned()
}

#[test]
fn cuda_kernel_source_equals_the_cpu_twin_on_the_host() {
    // The CUDA kernel compiled as host C++ must give the Rust twin's counts bit for bit: the
    // kernel's logic checked on a machine without a GPU.
    let h = host_harness();
    for (view, iters) in [(near_i(20), 2000), (near_i(320), 3000), (seahorse(), 8000)] {
        let job = DeepJob::prepare(&view, 64, 40, iters).unwrap();
        assert!(!job.bla.is_empty(), "zoom {}: no BLA table", view.zoom);
        let (kernel, kernel_smooth) = run_host_kernel(&h, &job);
        let mut twin = vec![-1; job.pixels()];
        let mut twin_smooth = vec![f32::NAN; job.pixels()];
        mandelbrot_deep_smooth(Threads::All, &job, Mantissa::F64, &mut twin, Some(&mut twin_smooth)).unwrap();
        assert_eq!(twin, cpu_counts(&job, Mantissa::F64), "the smooth path's counts are the counts");
        let differ = kernel.iter().zip(&twin).filter(|(a, b)| a != b).count();
        let smooth_diff = kernel_smooth.iter().zip(&twin_smooth).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        println!(
            "zoom {}: the CUDA kernel on the host differs from the CPU twin on {differ} pixels, smooth values by {smooth_diff:e}",
            view.zoom
        );
        assert_eq!(kernel.len(), twin.len());
        assert_eq!(differ, 0, "zoom {}: {differ} pixels differ from the CPU twin", view.zoom);
        assert!(smooth_diff <= 1e-4, "zoom {}: smooth values differ by {smooth_diff}", view.zoom);
    }
}

/// CPU twin's counts and smooth values with deltas in `mantissa`.
fn cpu_smooth(job: &DeepJob, mantissa: Mantissa) -> (Vec<i32>, Vec<f32>) {
    let mut counts = vec![-1; job.pixels()];
    let mut smooth = vec![f32::NAN; job.pixels()];
    mandelbrot_deep_smooth(Threads::All, job, mantissa, &mut counts, Some(&mut smooth)).unwrap();
    (counts, smooth)
}

/// Share of counts that differ, and the largest smooth difference beyond the tolerance where
/// counts agree (negative: within it), with the pixel.
fn smooth_against(counts: &[i32], smooth: &[f32], want: &[i32], want_smooth: &[f32]) -> (f64, f32, usize) {
    let mut worst = (f32::NEG_INFINITY, 0);
    for (i, ((&c, &s), (&wc, &ws))) in counts.iter().zip(smooth).zip(want.iter().zip(want_smooth)).enumerate() {
        let excess = (s - ws).abs() - wavebrot::backend::smooth_tolerance(ws);
        let excess = if excess.is_nan() { f32::INFINITY } else { excess };
        if c == wc && excess > worst.0 {
            worst = (excess, i);
        }
    }
    (mismatch_frac(counts, want), worst.0, worst.1)
}

#[test]
fn cpu_deep_smooth_counts_are_the_counts() {
    for (view, iters) in [(near_i(20), 2000), (seahorse(), 8000)] {
        let job = DeepJob::prepare(&view, W, H, iters).unwrap();
        for mantissa in [Mantissa::F64, Mantissa::F32] {
            let (counts, smooth) = cpu_smooth(&job, mantissa);
            assert_eq!(counts, cpu_counts(&job, mantissa), "zoom {} {}", view.zoom, mantissa.name());
            for (&c, &s) in counts.iter().zip(&smooth) {
                if c == iters as i32 {
                    assert_eq!(s, iters as f32);
                } else {
                    assert!((0.0..=iters as f32).contains(&s), "count {c} smooth {s}");
                }
            }
        }
    }
}

#[test]
fn wgpu_deep_smooth_values_equal_the_cpu_twin() {
    let Some(mut b) = common::wgpu_backend() else { return };
    for (view, iters) in [(near_i(20), 2000), (near_i(320), 3000)] {
        let job = DeepJob::prepare(&view, 64, 40, iters).unwrap();
        let mantissa = b.deep_mantissa();
        let mut counts = vec![-1; job.pixels()];
        let mut smooth = vec![f32::NAN; job.pixels()];
        b.mandelbrot_deep_smooth(&job, &mut counts, &mut smooth).unwrap();
        let (want, want_smooth) = cpu_smooth(&job, mantissa);
        let (m, excess, at) = smooth_against(&counts, &smooth, &want, &want_smooth);
        // WGSL cannot forbid a driver to fuse a multiply and an add (NVIDIA's Vulkan compiler
        // does), and in a chaotic orbit one rounding apart grows over the iterations: the count
        // holds, the escaped z (so the smooth value) may not. Where the device takes the SPIR-V
        // made here, every operation is `NoContraction` (`Guards::DEEP`) and no pixel may be off
        // (the H100 had 1 of 2560 at each zoom before); elsewhere pixels whose count or smooth
        // value differs get the deep budget, as counts do against the direct rule.
        let off = counts
            .iter()
            .zip(&smooth)
            .zip(want.iter().zip(&want_smooth))
            .filter(|((c, s), (wc, ws))| {
                let d = (*s - *ws).abs();
                c != wc || d.is_nan() || d > wavebrot::backend::smooth_tolerance(**ws)
            })
            .count() as f64
            / counts.len() as f64;
        println!(
            "wgpu deep smooth zoom {} {}: {:.3}% counts differ, {:.3}% counts or smooth values, worst excess {excess:e} (pixel {at}: {} against {})",
            view.zoom,
            mantissa.name(),
            m * 100.0,
            off * 100.0,
            smooth[at],
            want_smooth[at]
        );
        assert!(m <= 0.01, "{:.3}% of counts differ", m * 100.0);
        let budget = if b.no_contraction() { 0.0 } else { 0.001 };
        assert!(
            off <= budget,
            "{:.3}% of pixels differ in count or smooth value (budget {}%); worst: pixel {at}, smooth {} against the CPU twin's {}",
            off * 100.0,
            budget * 100.0,
            smooth[at],
            want_smooth[at]
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_deep_smooth_values_equal_the_cpu_twin() {
    let Some(mut b) = common::cuda_backend("cuda_deep_smooth_values_equal_the_cpu_twin") else { return };
    for (view, iters) in gpu_cases() {
        let job = DeepJob::prepare(&view, 64, 40, iters).unwrap();
        let mut counts = vec![-1; job.pixels()];
        let mut smooth = vec![f32::NAN; job.pixels()];
        b.mandelbrot_deep_smooth(&job, &mut counts, &mut smooth).unwrap();
        let (want, want_smooth) = cpu_smooth(&job, Mantissa::F64);
        let (m, excess, at) = smooth_against(&counts, &smooth, &want, &want_smooth);
        println!("cuda deep smooth zoom {}: {:.4}% counts differ, excess {excess:e}", view.zoom, m * 100.0);
        assert!(m <= 1e-4, "{:.4}% of counts differ", m * 100.0);
        assert!(excess <= 0.0, "pixel {at}: smooth {} against the CPU twin's {}", smooth[at], want_smooth[at]);
    }
}

#[test]
fn bla_skips_iterations_in_the_minibrot() {
    // The bench view (seahorse point at 1e100, every pixel inside a minibrot) at 48x32 and
    // 50 000 iterations: BLA must execute far fewer iterations than the rule counts.
    let view =
        View::parse("-0.743643887037158704752191506114774,0.131825904205311970493132056385139", "1e100").unwrap();
    let job = DeepJob::prepare_timed(&view, W, H, 50_000, wavebrot::backend::monotonic_millis).unwrap();
    let mut counts = vec![-1; job.pixels()];
    let run = mandelbrot_deep(Threads::All, &job, Mantissa::F64, &mut counts).unwrap();
    let executed = run.executed();
    let ratio = run.total_iters as f64 / executed as f64;
    println!(
        "BLA at 1e100: rule {} iterations, executed {executed} ({ratio:.0}x fewer); table {} entries, {:.2} ms",
        run.total_iters,
        job.bla.len(),
        job.millis.unwrap().bla
    );
    assert!(ratio >= 100.0, "BLA skipped too little: rule {} / executed {executed} = {ratio:.1}", run.total_iters);
    // Without the table every iteration runs, and the counts are the same here.
    let mut plain = vec![-1; job.pixels()];
    let off = mandelbrot_deep(Threads::All, &job.without_bla(), Mantissa::F64, &mut plain).unwrap();
    assert_eq!(off.executed(), off.total_iters);
    assert_eq!(off.total_iters, run.total_iters);
    assert_eq!(plain, counts);
}

#[test]
fn bla_counts_match_single_steps_within_the_budget() {
    // BLA on against BLA off (every iteration a single perturbed step) and both against the
    // direct arbitrary-precision rule, on the views of the exactness test.
    let cases = [(near_i(20), 2000), (near_i(60), 3000), (near_i(320), 3000), (seahorse(), 8000)];
    for (view, iters) in cases {
        let job = DeepJob::prepare(&view, W, H, iters).unwrap();
        let on = cpu_counts(&job, Mantissa::F64);
        let off = cpu_counts(&job.without_bla(), Mantissa::F64);
        let m = mismatch_frac(&on, &off);
        let mut run_counts = vec![-1; job.pixels()];
        let run = mandelbrot_deep(Threads::All, &job, Mantissa::F64, &mut run_counts).unwrap();
        println!(
            "zoom {} iters {iters}: BLA on/off differ on {:.3}%, executed {} of {} rule iterations",
            view.zoom,
            m * 100.0,
            run.executed(),
            run.total_iters
        );
        assert!(m <= 0.001, "zoom {}: BLA changes {:.3}% of the counts", view.zoom, m * 100.0);
    }
}
