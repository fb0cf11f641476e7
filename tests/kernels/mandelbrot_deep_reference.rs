//! The deep-zoom counts checked pixel by pixel, from 1e17 to past 1e1000 and at the deepest
//! shipped location (5e1085): the CPU twin, the CUDA kernel compiled as host C++, and wgpu (or
//! its refusal), each on sampled pixels iterated directly in MPFR.
//!
//! Against an independent reference: tools/deep_reference.py iterates sampled pixels directly in
//! MPFR (gmpy2: another library than the astro-float the reference orbit uses), with its own
//! view -> pixel mapping written from DESIGN.md. Needs python3 and gmpy2
//! (tools/requirements-ci.txt); a missing one fails the test with a message saying so.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;
use crate::mandelbrot_deep::{cpu_counts, host_harness, near_i, run_host_kernel, seahorse};

use wavebrot::backend::Backend;
use wavebrot::sim::fractal::deep::{DeepJob, View};
use wavebrot::sim::fractal::mandelbrot::mismatch_frac;
use wavebrot::sim::fractal::perturb::Mantissa;

/// A shipped location's view and iterations.
fn shipped(name: &str) -> (View, u32) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations").join(name);
    let loc = wavebrot::sim::fractal::deep::Location::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (loc.view(), loc.iters)
}

/// `(x, y, count)` of `samples` pixels of `view` (`w x h`), counted directly in MPFR.
fn mpfr_counts(view: &View, iters: u32, w: usize, h: usize, samples: usize) -> Vec<(usize, usize, i32)> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/deep_reference.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(["--re", &view.re, "--im", &view.im, "--zoom", &view.zoom])
        .args(["--iters", &iters.to_string(), "--width", &w.to_string(), "--height", &h.to_string()])
        .args(["--samples", &samples.to_string()])
        .output()
        .unwrap_or_else(|e| {
            panic!("the independent deep-zoom reference needs python3 (with gmpy2, tools/requirements-ci.txt): {e}")
        });
    assert!(
        out.status.success(),
        "tools/deep_reference.py failed (python3 with gmpy2 needed: pip install -r tools/requirements-ci.txt):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["pixels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap() as usize, p[1].as_u64().unwrap() as usize, p[2].as_i64().unwrap() as i32))
        .collect()
}

/// Checks `counts` (`w` wide) on the sampled pixels: at most 0.5% of them may differ; the
/// message names each differing pixel with its count and the expected one.
fn check_against_mpfr(what: &str, counts: &[i32], w: usize, want: &[(usize, usize, i32)]) {
    let bad: Vec<String> = want
        .iter()
        .filter(|&&(x, y, c)| counts[y * w + x] != c)
        .map(|&(x, y, c)| format!("pixel (col {x}, row {y}): count {}, expected {c}", counts[y * w + x]))
        .collect();
    let allowed = (want.len() as f64 * 0.005).floor() as usize;
    println!("{what}: {} of {} sampled pixels differ from MPFR (allowed {allowed})", bad.len(), want.len());
    assert!(
        bad.len() <= allowed,
        "{what}: {} of {} sampled pixels differ from the direct MPFR iteration (allowed {allowed}):\n{}",
        bad.len(),
        want.len(),
        bad.join("\n")
    );
}

/// The views of the independent check, `(label, view, iters)`, from 1e17 to past 1e1000: each
/// rendered at 32x18.
fn independent_views() -> Vec<(&'static str, View, u32)> {
    let (v113, i113) = shipped("rfc-5e113.toml");
    let (v50, i50) = shipped("rfc-1e50.toml");
    let (v533, i533) = shipped("rfc-4e533.toml");
    vec![
        ("seahorse 1e17", seahorse(), 8000),
        ("near i 1e20", near_i(20), 2000),
        ("rust-fractal 5e49", v50, i50),
        ("rust-fractal 2.5e113", v113, i113),
        ("near i 1e320", near_i(320), 3000),
        ("rust-fractal 2e533", v533, i533),
        ("near i 1e1000", near_i(1000), 4000),
    ]
}

const IW: usize = 32;
const IH: usize = 18;
const SAMPLES: usize = 24;

#[test]
fn cpu_counts_match_an_independent_mpfr_iteration() {
    for (label, view, iters) in independent_views() {
        let job = DeepJob::prepare(&view, IW, IH, iters).unwrap();
        let counts = cpu_counts(&job, Mantissa::F64);
        let want = mpfr_counts(&view, iters, IW, IH, SAMPLES);
        check_against_mpfr(&format!("cpu, {label}"), &counts, IW, &want);
        // BLA on and off: the same counts but on a few chaotic pixels (at 5e49 one of 576, where
        // neither is MPFR's: 174 325 with BLA, 174 271 without, 174 305 in MPFR).
        let off = cpu_counts(&job.without_bla(), Mantissa::F64);
        let differ: Vec<String> = (0..counts.len())
            .filter(|&i| counts[i] != off[i])
            .map(|i| format!("(col {}, row {}): {} with BLA, {} without", i % IW, i / IW, counts[i], off[i]))
            .collect();
        println!("{label}: BLA on and off differ on {} of {} pixels", differ.len(), counts.len());
        assert!(
            differ.len() as f64 <= 0.005 * counts.len() as f64,
            "{label}: BLA on and off differ on {} pixels:\n{}",
            differ.len(),
            differ.join("\n")
        );
    }
}

#[test]
fn the_cuda_kernel_on_the_host_matches_an_independent_mpfr_iteration() {
    let h = host_harness();
    for (label, view, iters) in independent_views() {
        let job = DeepJob::prepare(&view, IW, IH, iters).unwrap();
        let (counts, _) = run_host_kernel(&h, &job);
        let want = mpfr_counts(&view, iters, IW, IH, SAMPLES);
        check_against_mpfr(&format!("CUDA kernel on the host, {label}"), &counts, IW, &want);
    }
}

#[test]
fn wgpu_counts_match_an_independent_mpfr_iteration_or_refuse() {
    let Some(mut b) = common::wgpu_backend() else { return };
    for (label, view, iters) in independent_views() {
        let job = DeepJob::prepare(&view, IW, IH, iters).unwrap();
        let mut counts = vec![-1; job.pixels()];
        match b.mandelbrot_deep(&job, &mut counts) {
            Ok(_) => {
                let want = mpfr_counts(&view, iters, IW, IH, SAMPLES);
                // f32 deltas (adapters without f64) have the f32 budget; f64 the deep one.
                let mantissa = b.deep_mantissa();
                let bad = want.iter().filter(|&&(x, y, c)| counts[y * IW + x] != c).count();
                if mantissa == Mantissa::F64 {
                    check_against_mpfr(&format!("wgpu, {label}"), &counts, IW, &want);
                } else {
                    println!("wgpu f32, {label}: {bad} of {} sampled pixels differ", want.len());
                }
            }
            Err(e) => {
                // llvmpipe ends a shader's loops after 65535 trips: the driver must say so, never
                // hand back a wrong picture.
                let e = e.to_string();
                println!("wgpu, {label}: refused: {e}");
                assert!(b.is_software() && e.contains("stopped the deep-zoom loop"), "{label}: {e}");
            }
        }
    }
}

#[test]
fn the_deepest_location_matches_an_independent_mpfr_iteration() {
    // The 5e1085 location (rust-fractal's 1e1086): a 538 502-step orbit at 3712 bits and 540 000
    // iterations a pixel; 16x9, 6 pixels in MPFR: about 50 s on 2 cores (most of it the orbit
    // and MPFR).
    let (view, iters) = shipped("rfc-1e1086.toml");
    let (w, h) = (16, 9);
    let job = DeepJob::prepare(&view, w, h, iters).unwrap();
    let counts = cpu_counts(&job, Mantissa::F64);
    let want = mpfr_counts(&view, iters, w, h, 6);
    check_against_mpfr("cpu, rust-fractal 5e1085", &counts, w, &want);
    let h = host_harness();
    let (kernel, _) = run_host_kernel(&h, &job);
    assert_eq!(kernel, counts, "the CUDA kernel on the host against the CPU twin");
    // wgpu with an orbit past 2^19 entries (and a BLA table of a million): the CPU twin's counts,
    // or the llvmpipe refusal, never a wrong picture.
    if let Some(mut b) = common::wgpu_backend() {
        let mut gpu = vec![-1; job.pixels()];
        match b.mandelbrot_deep(&job, &mut gpu) {
            Ok(_) => {
                let m = mismatch_frac(&gpu, &counts);
                println!("wgpu {}, 5e1085: {:.3}% differ from the CPU twin", b.deep_mantissa().name(), m * 100.0);
                if b.deep_mantissa() == Mantissa::F64 {
                    assert!(m <= 0.01, "wgpu at 5e1085: {:.3}% differ from the CPU twin", m * 100.0);
                }
            }
            Err(e) => {
                let e = e.to_string();
                assert!(b.is_software() && e.contains("stopped the deep-zoom loop"), "{e}");
            }
        }
    }
}
