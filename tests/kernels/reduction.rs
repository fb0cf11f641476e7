//! The reduction lesson on every backend against the CPU (`wavebrot lesson reduction`): cpu, cpu1
//! and wgpu (lavapipe in CI, `WAVEBROT_REQUIRE_WGPU=1`); CUDA where a GPU is (`#[ignore]`d
//! without one, run with `--include-ignored` on the GPU machine).

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use crate::common;

use assert_cmd::Command;

#[test]
fn reduction_on_the_cpu() {
    common::lesson_ok("reduction", "cpu1");
    common::lesson_ok("reduction", "cpu");
}

#[test]
fn reduction_on_wgpu() {
    if common::wgpu_device().is_some() {
        common::lesson_ok("reduction", "wgpu");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn reduction_on_cuda() {
    if common::cuda_backend("reduction_on_cuda").is_some() {
        common::lesson_ok("reduction", "cuda");
    }
}

#[test]
fn device_lesson_on_the_cpu_and_wgpu() {
    let mut c = Command::cargo_bin("wavebrot").unwrap();
    c.args(["lesson", "device", "--elements", "100000", "--backend", "cpu"]);
    let wgpu = common::wgpu_device().is_some();
    if wgpu {
        c.args(["--backend", "wgpu"]);
    } else {
        common::skip(common::Need::Wgpu, "no wgpu adapter: the device lesson runs on the CPU alone");
    }
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    // Each device asked for has its own block with its own measurement.
    let measured = text.matches("measured: SAXPY moves").count();
    assert_eq!(measured, 1 + usize::from(wgpu), "one measurement per device: {text}");
    assert!(text.lines().any(|l| l.starts_with("cpu ")), "{text}");
    if wgpu {
        assert!(text.lines().any(|l| l.starts_with("wgpu ")), "wgpu ran: {text}");
    }
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
    common::lesson_check_catches(wavebrot::bench::lesson::Lesson::Reduction, "reduction", 2);
}
