//! The saxpy lesson on every backend against the CPU (`wavebrot lesson saxpy`): cpu, cpu1
//! and wgpu (lavapipe in CI, `WAVEBROT_REQUIRE_WGPU=1`); CUDA where a GPU is (`#[ignore]`d
//! without one, run with `--include-ignored` on the GPU machine).

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use crate::common;

#[test]
fn saxpy_on_the_cpu() {
    common::lesson_ok("saxpy", "cpu1");
    common::lesson_ok("saxpy", "cpu");
}

#[test]
fn saxpy_on_wgpu() {
    if common::wgpu_device().is_some() {
        common::lesson_ok("saxpy", "wgpu");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn saxpy_on_cuda() {
    if common::cuda_backend("saxpy_on_cuda").is_some() {
        common::lesson_ok("saxpy", "cuda");
    }
}

/// The lesson's check seen failing: a backend with one wrong element (`bench::faulty`) is
/// reported, and the same lesson on the backend itself is not.
#[test]
fn the_saxpy_check_catches_one_wrong_element() {
    common::lesson_check_catches(wavebrot::bench::lesson::Lesson::Saxpy, "saxpy", 1);
}

/// The lesson's check seen failing: a backend with one wrong element (`bench::faulty`) is
/// reported, and the same lesson on the backend itself is not.
#[test]
fn the_device_lesson_check_catches_one_wrong_element() {
    // The device lesson runs saxpy: its failure is named so.
    common::lesson_check_catches(wavebrot::bench::lesson::Lesson::Device, "saxpy", 1);
}
