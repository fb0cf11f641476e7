//! The reduction lesson on every backend against the CPU (`wavebrot lesson reduction`): cpu, cpu1
//! and wgpu (lavapipe in CI, `WAVEBROT_REQUIRE_WGPU=1`); CUDA where a GPU is (`#[ignore]`d
//! without one, run with `--include-ignored` on the GPU machine).

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use crate::common;

use assert_cmd::Command;

/// Runs the lesson on `backend` and expects the seed's check line.
fn lesson_ok(backend: &str) {
    let out = Command::cargo_bin("wavebrot")
        .unwrap()
        .args(["lesson", "reduction", "--elements", "300000", "--backend", backend])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Check result: OK!"), "{text}");
    assert!(text.contains(backend), "{text}");
}

#[test]
fn reduction_on_the_cpu() {
    lesson_ok("cpu1");
    lesson_ok("cpu");
}

#[test]
fn reduction_on_wgpu() {
    if common::wgpu_device().is_some() {
        lesson_ok("wgpu");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn reduction_on_cuda() {
    if common::cuda_backend("reduction_on_cuda").is_some() {
        lesson_ok("cuda");
    }
}

#[test]
fn device_lesson_on_the_cpu_and_wgpu() {
    let mut c = Command::cargo_bin("wavebrot").unwrap();
    c.args(["lesson", "device", "--elements", "100000", "--backend", "cpu"]);
    if common::wgpu_device().is_some() {
        c.args(["--backend", "wgpu"]);
    }
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("measured: SAXPY moves"), "{text}");
    assert!(text.contains("Check result: OK!"), "{text}");
}

#[test]
fn a_bad_element_count_is_a_usage_error() {
    let out = Command::cargo_bin("wavebrot").unwrap().args(["lesson", "saxpy", "--elements", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim().lines().count(), 1);
}

/// The lesson's check seen failing: a backend with one wrong sum (`bench::faulty`) is
/// reported, and the same lesson on the backend itself is not.
#[test]
fn the_reduction_check_catches_one_wrong_sum() {
    use wavebrot::backend::{BackendKind, open};
    use wavebrot::bench::faulty::Faulty;
    use wavebrot::bench::lesson::{Lesson, teach};
    let mut lines = Vec::new();
    let mut faulty: Vec<Box<dyn wavebrot::backend::Backend>> =
        vec![Box::new(Faulty::new(open(BackendKind::Cpu1).unwrap()))];
    let failures = teach(Lesson::Reduction, &mut faulty, 100_000, &mut |l| lines.push(l));
    assert_eq!(failures.len(), 2, "{failures:?}\n{lines:#?}");
    assert!(failures.iter().all(|f| f.starts_with("reduction ") && f.contains("on cpu1")), "{failures:?}");
    let mut plain = vec![open(BackendKind::Cpu1).unwrap()];
    assert_eq!(teach(Lesson::Reduction, &mut plain, 100_000, &mut |_| {}), Vec::<String>::new());
}
