//! `wavebrot lesson saxpy|reduction|device`: the short lessons the seed programs teach before the
//! wave, run on every backend, checked against the CPU (`Check result: OK!` as the seeds print)
//! and measured on this machine:
//!
//! - `saxpy`: `y = a*x + y` moves 12 B per element for 2 flops, so the kernel runs at the memory's
//!   speed, and copying `x` and `y` to the device and `y` back costs more than the kernel;
//! - `reduction`: a sum as a tree (partials halved in shared memory) against atomics (every
//!   element added to one counter);
//! - `device`: each device's SMs, cores, memory and bandwidth (the datasheet's peak beside the
//!   one the SAXPY kernel reaches here).

use std::process::ExitCode;

use anyhow::Result;

use crate::backend::{Backend, BackendKind, LessonTiming, ReduceMethod};

use super::report::{check_line, fmt_time};

/// Which lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lesson {
    Saxpy,
    Reduction,
    Device,
}

/// Elements the lessons work on by default (64 MiB per `f32` array).
pub const DEFAULT_ELEMENTS: usize = 1 << 24;

/// The SAXPY lesson's inputs.
fn saxpy_inputs(n: usize) -> (f32, Vec<f32>, Vec<f32>) {
    let x = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
    let y = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
    (2.0, x, y)
}

/// The reduction lesson's input: scattered bytes (the sum wraps past 2^32 on large inputs).
fn reduction_input(n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 24).collect()
}

/// SAXPY's expected result, element by element in plain Rust: no backend's kernel (`cpu1`'s
/// included) is checked against itself.
fn saxpy_reference(n: usize) -> Vec<f32> {
    let (a, x, y) = saxpy_inputs(n);
    x.iter().zip(&y).map(|(&xi, &yi)| yi + a * xi).collect()
}

/// The reduction's expected sum: a sequential wrapping fold, not any backend's tree.
fn reduction_reference(x: &[u32]) -> u32 {
    x.iter().fold(0u32, |s, &v| s.wrapping_add(v))
}

/// The largest relative difference between `got` and `want` (SAXPY's check: a GPU may fuse the
/// multiply and add, one rounding less than the CPU).
fn max_rel_diff(got: &[f32], want: &[f32]) -> f64 {
    got.iter().zip(want).map(|(&g, &w)| f64::from((g - w).abs()) / f64::from(w.abs()).max(1.0)).fold(0.0, f64::max)
}

/// SAXPY's tolerance: one rounding of an `f32`.
const SAXPY_TOLERANCE: f64 = 1.2e-7;

/// A backend's SAXPY run: the timing and the result's difference from the CPU's.
fn saxpy_on(b: &mut dyn Backend, n: usize, want: &[f32]) -> Result<(LessonTiming, f64)> {
    let (a, x, mut y) = saxpy_inputs(n);
    // Warm-up (compiles, first-touch), then the measured run from the same inputs.
    b.saxpy(a, &x, &mut y.clone())?;
    let t = b.saxpy(a, &x, &mut y)?;
    Ok((t, max_rel_diff(&y, want)))
}

/// `wavebrot lesson`.
///
/// # Errors
/// A backend asked for by name is unavailable.
pub fn run_lesson(lesson: Lesson, asked: &[BackendKind], elements: usize) -> Result<ExitCode> {
    let mut backends = super::open_backends(asked)?;
    let failures = teach(lesson, &mut backends, elements, &mut |l| crate::outln!("{l}"));
    Ok(check_line(&failures))
}

/// Runs `lesson` on `backends` with `elements` elements, handing each line of what it teaches to
/// `say` (the CLI prints them, the app's Lessons view shows them); returns the failures (empty:
/// every result matched the CPU's).
pub fn teach(
    lesson: Lesson,
    backends: &mut [Box<dyn Backend>],
    elements: usize,
    say: &mut dyn FnMut(String),
) -> Vec<String> {
    let mut failures = Vec::new();
    match lesson {
        Lesson::Saxpy => saxpy(backends, elements, &mut failures, say),
        Lesson::Reduction => reduction(backends, elements, &mut failures, say),
        Lesson::Device => device(backends, elements, &mut failures, say),
    }
    failures
}

fn saxpy(backends: &mut [Box<dyn Backend>], n: usize, failures: &mut Vec<String>, say: &mut dyn FnMut(String)) {
    say(format!("SAXPY: y = a*x + y on {n} floats ({} MiB per array)", (4 * n) >> 20));
    say("Each element reads x and y and writes y (12 B) for 2 flops: the kernel waits on memory.".to_owned());
    let want = saxpy_reference(n);
    let mut ratios = Vec::new();
    for b in backends.iter_mut() {
        let kind = b.kind();
        match saxpy_on(b.as_mut(), n, &want) {
            Ok((t, diff)) => {
                let gbps = 12.0 * n as f64 / t.kernel.as_secs_f64() / 1e9;
                let copies = t.upload + t.download;
                let mut line = format!(
                    "  {:<5} kernel {:>10} ({gbps:>7.1} GB/s, {})",
                    kind.name(),
                    fmt_time(t.kernel.as_secs_f64()),
                    t.source.label()
                );
                if kind.is_gpu() {
                    ratios.push((kind, copies.as_secs_f64() / t.kernel.as_secs_f64()));
                    line.push_str(&format!(
                        "  copies: to the device {}, back {} = {:.1} x the kernel",
                        fmt_time(t.upload.as_secs_f64()),
                        fmt_time(t.download.as_secs_f64()),
                        copies.as_secs_f64() / t.kernel.as_secs_f64()
                    ));
                } else {
                    line.push_str("  no copies: the data is in host memory already");
                }
                say(format!("{line}  max rel diff {diff:.1e}"));
                if diff > SAXPY_TOLERANCE {
                    failures.push(format!("saxpy on {kind}: max relative difference {diff:.3e} > {SAXPY_TOLERANCE:e}"));
                }
            }
            Err(e) => {
                say(format!("  {:<5} failed: {e:#}", kind.name()));
                failures.push(format!("saxpy on {kind}: {e:#}"));
            }
        }
    }
    for (kind, r) in ratios {
        if r > 1.0 {
            say(format!("On {kind} the copies cost {r:.1} x the kernel: keep data on the device between kernels."));
        } else {
            say(format!(
                "On {kind} the copies cost less than the kernel ({r:.1} x): a software adapter's \"device\" is host memory."
            ));
        }
    }
}

fn reduction(backends: &mut [Box<dyn Backend>], n: usize, failures: &mut Vec<String>, say: &mut dyn FnMut(String)) {
    say(format!("Sum reduction of {n} u32 values (wrapping): a tree of partial sums against atomics on one counter"));
    let x = reduction_input(n);
    let want = reduction_reference(&x);
    say(format!("  reference sum (a sequential fold): {want}"));
    for b in backends.iter_mut() {
        let kind = b.kind();
        let mut kernels = Vec::new();
        for method in ReduceMethod::ALL {
            let run = b.reduce_sum(&x, method).and_then(|_| b.reduce_sum(&x, method));
            match run {
                Ok((sum, t)) => {
                    let secs = t.kernel.as_secs_f64();
                    say(format!(
                        "  {:<5} {:<8} sum {sum:>10}  kernel {:>10}  ({:.2} Gelem/s, {})",
                        kind.name(),
                        method.name(),
                        fmt_time(secs),
                        n as f64 / secs / 1e9,
                        t.source.label()
                    ));
                    kernels.push(secs);
                    if sum != want {
                        failures.push(format!("reduction ({}) on {kind}: {sum} != {want}", method.name()));
                    }
                }
                Err(e) => {
                    say(format!("  {:<5} {:<8} failed: {e:#}", kind.name(), method.name()));
                    failures.push(format!("reduction ({}) on {kind}: {e:#}", method.name()));
                }
            }
        }
        if let [tree, atomic] = kernels[..] {
            say(format!("        atomics take {:.1} x the tree's time here", atomic / tree));
        }
    }
    say("A tree adds in parallel and touches memory once per element; atomics on one address queue the adds \
         one after another in the memory system."
        .to_owned());
}

/// FP32 cores per SM by compute capability (NVIDIA's CUDA programming guide, "Compute
/// Capabilities": arithmetic instruction throughput of 32-bit floating-point add/multiply).
fn fp32_cores_per_sm(major: u32, minor: u32) -> Option<u32> {
    match (major, minor) {
        (7, _) | (8, 0) => Some(64),
        (8 | 10..=12, _) | (9, 0) => Some(128),
        _ => None,
    }
}

/// The value of `label` in a device's details.
fn detail<'a>(details: &'a [(String, String)], label: &str) -> Option<&'a str> {
    details.iter().find(|(k, _)| k == label).map(|(_, v)| v.as_str())
}

fn device(backends: &mut [Box<dyn Backend>], n: usize, failures: &mut Vec<String>, say: &mut dyn FnMut(String)) {
    say("The devices of this machine, and the memory bandwidth the SAXPY kernel reaches on each".to_owned());
    let want = saxpy_reference(n);
    for b in backends.iter_mut() {
        let kind = b.kind();
        let info = b.device_info();
        say(format!("\n{:<5} {}", kind.name(), info.name));
        for (k, v) in &info.details {
            say(format!("       {k}: {v}"));
        }
        let sms = detail(&info.details, "SMs").and_then(|s| s.parse::<u32>().ok());
        let cc = detail(&info.details, "compute capability").and_then(|s| {
            let (maj, min) = s.split_whitespace().next()?.split_once('.')?;
            Some((maj.parse::<u32>().ok()?, min.parse::<u32>().ok()?))
        });
        if let (Some(sms), Some((maj, min))) = (sms, cc)
            && let Some(per) = fp32_cores_per_sm(maj, min)
        {
            say(format!("       FP32 cores: {} ({sms} SMs x {per})", sms * per));
        }
        if let Some(c) = info.cache_bytes {
            say(format!("       last-level cache: {} MiB", c >> 20));
        }
        match saxpy_on(b.as_mut(), n, &want) {
            Ok((t, diff)) => {
                let gbps = 12.0 * n as f64 / t.kernel.as_secs_f64() / 1e9;
                let peak = match info.peak_gbps {
                    Some(p) if gbps <= p => format!(" ({:.0}% of the {p:.0} GB/s peak)", 100.0 * gbps / p),
                    Some(p) => format!(" (above the {p:.0} GB/s peak: the arrays were served from cache)"),
                    None => String::new(),
                };
                say(format!("       measured: SAXPY moves {gbps:.1} GB/s{peak} ({})", t.source.label()));
                if diff > SAXPY_TOLERANCE {
                    failures.push(format!("saxpy on {kind}: max relative difference {diff:.3e}"));
                }
            }
            Err(e) => {
                say(format!("       measured: SAXPY failed: {e:#}"));
                failures.push(format!("saxpy on {kind}: {e:#}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cores_per_sm() {
        assert_eq!(fp32_cores_per_sm(9, 0), Some(128));
        assert_eq!(fp32_cores_per_sm(8, 0), Some(64));
        assert_eq!(fp32_cores_per_sm(8, 6), Some(128));
        assert_eq!(fp32_cores_per_sm(5, 0), None);
    }

    #[test]
    fn rel_diff() {
        assert_eq!(max_rel_diff(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
        assert!(max_rel_diff(&[1.0, 2.5], &[1.0, 2.0]) > 0.2);
    }
}
