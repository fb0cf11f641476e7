//! Helpers shared by the test files: opening a backend, or saying why not, and [`skip`], the one
//! way a test that cannot run says so.
//!
//! **A skip is never a silent pass.** [`skip`] prints `SKIPPED <test>: <reason>` to stderr and
//! appends `<need>\t<crate>::<test>\t<reason>` to the skip log (`$WAVEBROT_SKIP_LOG`, else
//! `target/tmp/wavebrot-skips.log`), which `.ci/run` prints as a summary at the end (count and
//! reasons) and fails on when anything but CUDA is in it. Where the need is required
//! ([`Need::required`]: `WAVEBROT_REQUIRE=wgpu,display,…` or `all`, or the older
//! `WAVEBROT_REQUIRE_WGPU=1` / `WAVEBROT_REQUIRE_CUDA=1`) the skip is a failure at once.
//!
//! - wgpu: without an adapter a test skips with [`Need::Wgpu`] (CI: lavapipe, required).
//! - CUDA: the tests that need a GPU are `#[ignore]`d, so a machine without one (CI) reports
//!   them as ignored, never as passed (`.ci/run` lists them with their reasons). On the GPU
//!   machine run them with `WAVEBROT_REQUIRE_CUDA=1 cargo test --release -- --include-ignored`
//!   (`tools/gpu_report.sh` does): there a missing CUDA is a failure. Run by hand without the
//!   variable, a test that finds no CUDA skips with [`Need::Cuda`], logged like any other.

#![allow(dead_code, reason = "each test file uses the helpers of its own backends")]
#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use wavebrot::backend::wgpu::{WgpuBackend, request_device};
use wavebrot::backend::{self, Backend, BackendError, BackendKind, WaveSim};

/// The `#[ignore]` reason of every test that needs an NVIDIA GPU.
pub const NEEDS_CUDA: &str =
    "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists";

/// What a skipped test lacked. CI provides every one of them but [`Need::Cuda`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// An NVIDIA GPU with libcuda and libnvrtc (never in CI).
    Cuda,
    /// A wgpu adapter with compute (CI: lavapipe, `mesa-vulkan-drivers`).
    Wgpu,
    /// A wgpu adapter with `SHADER_F64` (lavapipe has it).
    WgpuF64,
    /// An X display: `$DISPLAY` or Xvfb (`xvfb`).
    Display,
    /// A FIFO made with `mkfifo` (coreutils).
    Fifo,
    /// The `/dev/full` character device.
    DevFull,
    /// A machine without CUDA (the paths taken where it is missing; CI is one).
    NoCuda,
    /// A snapshot compared, not rewritten (`UPDATE_SNAPSHOTS` unset).
    Snapshot,
    /// `ffmpeg` and `ffprobe` on `PATH` (CI: the `ffmpeg` package).
    Ffmpeg,
    /// alsa-lib (`libasound.so.2`) for its `null` device (CI: the `libasound2` package).
    Alsa,
}

impl Need {
    /// The name in the skip log and in `WAVEBROT_REQUIRE`.
    pub fn name(self) -> &'static str {
        match self {
            Need::Cuda => "cuda",
            Need::Wgpu => "wgpu",
            Need::WgpuF64 => "wgpu-f64",
            Need::Display => "display",
            Need::Fifo => "fifo",
            Need::DevFull => "dev-full",
            Need::NoCuda => "no-cuda",
            Need::Snapshot => "snapshot",
            Need::Ffmpeg => "ffmpeg",
            Need::Alsa => "alsa",
        }
    }

    /// Whether this run requires it: named in `WAVEBROT_REQUIRE` (a comma list, or `all`), or
    /// `WAVEBROT_REQUIRE_WGPU=1` (wgpu and its f64) / `WAVEBROT_REQUIRE_CUDA=1`.
    pub fn required(self) -> bool {
        let list = std::env::var("WAVEBROT_REQUIRE").unwrap_or_default();
        let named = list.split(',').map(str::trim).any(|n| n == self.name() || (n == "all" && self != Need::Cuda));
        let legacy = |v: &str| std::env::var(v).is_ok_and(|v| v == "1");
        named
            || match self {
                Need::Wgpu | Need::WgpuF64 => legacy("WAVEBROT_REQUIRE_WGPU"),
                Need::Cuda => legacy("WAVEBROT_REQUIRE_CUDA"),
                _ => false,
            }
    }
}

/// Where skips are logged: `$WAVEBROT_SKIP_LOG`, else `wavebrot-skips.log` in cargo's
/// `target/tmp`.
pub fn skip_log() -> std::path::PathBuf {
    std::env::var_os("WAVEBROT_SKIP_LOG")
        .map_or_else(|| std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("wavebrot-skips.log"), Into::into)
}

/// The running test's name (libtest names each test's thread after it).
pub fn test_name() -> String {
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("main");
    format!("{}::{name}", env!("CARGO_CRATE_NAME"))
}

/// Says that (part of) the running test cannot run for want of `need`, where CI shows it: a line
/// on stderr and in the skip log. Where `need` is required ([`Need::required`]) it fails the test.
#[track_caller]
pub fn skip(need: Need, reason: &str) {
    use std::io::Write;
    let test = test_name();
    let reason = reason.replace(['\n', '\t'], " ");
    let required = need.required();
    let tag = if required { "REQUIRED" } else { "skipped" };
    let line = format!("{}\t{test}\t{reason}{}\n", need.name(), if required { " (required here)" } else { "" });
    let log = skip_log();
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // One write of one short line with O_APPEND: lines of parallel tests do not interleave.
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(&log) {
        let _ = f.write_all(line.as_bytes());
    }
    // Straight to the process's stderr, not through eprintln!, which libtest captures and shows
    // only for failed tests: a skip is seen in the output of a run that passes.
    let _ = writeln!(std::io::stderr(), "SKIPPED [{}] {test}: {reason}", need.name());
    assert!(!required, "{tag}: {} is required here (WAVEBROT_REQUIRE) but {reason}", need.name());
}

/// The share of Mandelbrot and Julia counts a GPU (CUDA or wgpu) may get different from the
/// CPU's in these tests.
///
/// Measured: 0 on lavapipe (CI: every case of tests/kernels/mandelbrot.rs and tests/kernels/julia.rs, f32 and
/// f64) and on the H100 (docs/runs.md, `verify`: CUDA and wgpu, f32 and f64, 0.0000% on every
/// case). The kernels round every product and sum on their own (`exact` in the shaders,
/// NVRTC `--fmad=false` for the CUDA kernels), so the allowed share is the measured 0 with no
/// margin: one differing pixel is a bug. DESIGN.md's budgets (f64 0.01%, f32 1%) stay what
/// `verify` allows a GPU it has never seen.
pub const GPU_COUNT_BUDGET: f64 = 0.0;

/// A wgpu device, or `None` (after [`skip`]ping) where there is none and none is required.
pub fn wgpu_device() -> Option<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo)> {
    match request_device() {
        Ok(d) => Some(d),
        Err(BackendError::Unavailable { reason, .. }) => {
            skip(Need::Wgpu, &reason);
            None
        }
        Err(e) => panic!("opening wgpu failed: {e}"),
    }
}

/// Whether `b` has f64; where not, the f64 half of `test` is [`skip`]ped (a failure where
/// `wgpu-f64` is required: lavapipe has it).
pub fn has_f64_or_skip(b: &WgpuBackend) -> bool {
    let has = b.has_f64();
    if !has {
        skip(Need::WgpuF64, "the adapter has no SHADER_F64: the f64 cases did not run");
    }
    has
}

/// The wgpu backend on its own device, or `None` as [`wgpu_device`].
pub fn wgpu_backend() -> Option<WgpuBackend> {
    let (device, queue, info) = wgpu_device()?;
    Some(WgpuBackend::from_device(device, queue, info).expect("the shaders compile"))
}

/// The CUDA backend, or `None` (after [`skip`]ping) when CUDA is missing and not required
/// (`WAVEBROT_REQUIRE_CUDA=1`); `test` names the test in the message.
pub fn cuda_backend(test: &str) -> Option<Box<dyn Backend>> {
    match backend::open(BackendKind::Cuda) {
        Ok(b) => Some(b),
        Err(e) => {
            skip(Need::Cuda, &format!("{test}: {e}"));
            None
        }
    }
}

/// The field `f` of a wave problem.
pub fn field(sim: &mut dyn WaveSim) -> Vec<f32> {
    let mut f = vec![0.0; sim.params().cells()];
    sim.read_field(&mut f).unwrap();
    f
}

/// Runs `wavebrot lesson LESSON --elements 300000` on `backend` and expects the seed's check
/// line and the backend's name (the lessons' harness: `tests/kernels/saxpy.rs`, `reduction.rs`).
pub fn lesson_ok(lesson: &str, backend: &str) {
    let out = assert_cmd::Command::cargo_bin("wavebrot")
        .unwrap()
        .args(["lesson", lesson, "--elements", "300000", "--backend", backend])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Check result: OK!"), "{text}");
    assert!(text.contains(backend), "{text}");
}

/// A lesson's check seen failing: on `bench::faulty`'s cpu1 (one wrong element or sum a call)
/// `teach` reports `wrong` failures, each starting with the lesson's name and naming cpu1, and
/// none on cpu1 itself.
pub fn lesson_check_catches(lesson: wavebrot::bench::lesson::Lesson, name: &str, wrong: usize) {
    use wavebrot::bench::faulty::Faulty;
    use wavebrot::bench::lesson::teach;
    let mut lines = Vec::new();
    let mut faulty: Vec<Box<dyn Backend>> = vec![Box::new(Faulty::new(backend::open(BackendKind::Cpu1).unwrap()))];
    let failures = teach(lesson, &mut faulty, 100_000, &mut |l| lines.push(l));
    assert_eq!(failures.len(), wrong, "{failures:?}\n{lines:#?}");
    assert!(failures.iter().all(|f| f.starts_with(&format!("{name} ")) && f.contains("on cpu1")), "{failures:?}");
    let mut plain = vec![backend::open(BackendKind::Cpu1).unwrap()];
    assert_eq!(teach(lesson, &mut plain, 100_000, &mut |_| {}), Vec::<String>::new());
}
