//! The saxpy lesson on every backend against the CPU (`wavebrot lesson saxpy`): cpu, cpu1
//! and wgpu (lavapipe in CI, `WAVEBROT_REQUIRE_WGPU=1`); CUDA where a GPU is (`#[ignore]`d
//! without one, run with `--include-ignored` on the GPU machine).

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use crate::common;

use assert_cmd::Command;

/// Runs the lesson on `backend` and expects the seed's check line.
fn lesson_ok(backend: &str) {
    let out = Command::cargo_bin("wavebrot")
        .unwrap()
        .args(["lesson", "saxpy", "--elements", "300000", "--backend", backend])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Check result: OK!"), "{text}");
    assert!(text.contains(backend), "{text}");
}

#[test]
fn saxpy_on_the_cpu() {
    lesson_ok("cpu1");
    lesson_ok("cpu");
}

#[test]
fn saxpy_on_wgpu() {
    if common::wgpu_device().is_some() {
        lesson_ok("wgpu");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn saxpy_on_cuda() {
    if common::cuda_backend("saxpy_on_cuda").is_some() {
        lesson_ok("cuda");
    }
}

/// The lesson's check seen failing: a backend with one wrong element (`bench::faulty`) is
/// reported, and the same lesson on the backend itself is not.
#[test]
fn the_saxpy_check_catches_one_wrong_element() {
    use wavebrot::backend::{BackendKind, open};
    use wavebrot::bench::faulty::Faulty;
    use wavebrot::bench::lesson::{Lesson, teach};
    let mut lines = Vec::new();
    let mut faulty: Vec<Box<dyn wavebrot::backend::Backend>> =
        vec![Box::new(Faulty::new(open(BackendKind::Cpu1).unwrap()))];
    let failures = teach(Lesson::Saxpy, &mut faulty, 100_000, &mut |l| lines.push(l));
    assert_eq!(failures.len(), 1, "{failures:?}\n{lines:#?}");
    assert!(failures.iter().all(|f| f.starts_with("saxpy ") && f.contains("on cpu1")), "{failures:?}");
    let mut plain = vec![open(BackendKind::Cpu1).unwrap()];
    assert_eq!(teach(Lesson::Saxpy, &mut plain, 100_000, &mut |_| {}), Vec::<String>::new());
}

/// The lesson's check seen failing: a backend with one wrong element (`bench::faulty`) is
/// reported, and the same lesson on the backend itself is not.
#[test]
fn the_device_lesson_check_catches_one_wrong_element() {
    use wavebrot::backend::{BackendKind, open};
    use wavebrot::bench::faulty::Faulty;
    use wavebrot::bench::lesson::{Lesson, teach};
    let mut lines = Vec::new();
    let mut faulty: Vec<Box<dyn wavebrot::backend::Backend>> =
        vec![Box::new(Faulty::new(open(BackendKind::Cpu1).unwrap()))];
    let failures = teach(Lesson::Device, &mut faulty, 100_000, &mut |l| lines.push(l));
    assert_eq!(failures.len(), 1, "{failures:?}\n{lines:#?}");
    assert!(failures.iter().all(|f| f.starts_with("saxpy ") && f.contains("on cpu1")), "{failures:?}");
    let mut plain = vec![open(BackendKind::Cpu1).unwrap()];
    assert_eq!(teach(Lesson::Device, &mut plain, 100_000, &mut |_| {}), Vec::<String>::new());
}
