//! The timing harness behind `wavebrot bench` and `wavebrot verify`, in three parts:
//! [`cases`] (what is measured, checked against the CPU reference), [`runner`] (warm-up,
//! repeats, medians) and [`report`] (the seed-style table, JSON records, the check line).
//! [`verify`] checks every backend against the single-thread reference; [`sweep`] times them
//! against problem size.

pub mod cases;
mod deep_views;
pub mod distance_case;
pub mod faulty;
pub mod lesson;
pub mod report;
pub mod runner;
pub mod sweep;
pub mod to_file;
pub mod verify;

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::backend::{self, Backend, BackendKind, WaveVariant};
use crate::sim::fractal::mandelbrot::{Bounds, MandelbrotParams, Precision};
use crate::sim::wave::scene::Boundary;

pub use cases::Options;
pub use report::Record;

/// Which kernels `bench` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Suite {
    Wave,
    Mandelbrot,
    All,
}

/// Opens the backends asked for (every available one when `asked` is empty), saying why any is missing.
fn open_backends(asked: &[BackendKind]) -> Result<Vec<Box<dyn Backend>>> {
    let mut kinds: Vec<BackendKind> = if asked.is_empty() { BackendKind::ALL.to_vec() } else { asked.to_vec() };
    kinds.sort();
    kinds.dedup();
    // The reference first, then fastest last, so the table reads like the seed's.
    kinds.reverse();
    let mut out = Vec::new();
    for kind in kinds {
        match backend::open(kind) {
            Ok(b) => out.push(b),
            Err(e) if asked.is_empty() => crate::outln!("skipped: {e}"),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}

/// `wavebrot bench`.
///
/// # Errors
/// A backend asked for by name is unavailable, a device failed, or the JSON cannot be written.
pub fn run_bench(suite: Suite, asked: &[BackendKind], json: Option<&Path>, opts: &Options) -> Result<ExitCode> {
    let mut backends = open_backends(asked)?;
    for b in &backends {
        let variants: Vec<&str> = b.wave_variants().iter().map(|v| v.name()).collect();
        let variants =
            if variants.is_empty() { String::new() } else { format!("  (wave variants: {})", variants.join(", ")) };
        crate::outln!("{:<5} {}{variants}", b.kind().name(), b.device_info().name);
    }
    let mut r = report::Report::new("bench");
    let b = &mut backends;
    if opts.deep_suite {
        // rust-fractal-core's four locations at 1920x1080 (480x270 with --quick), wall time with
        // the reference orbit.
        let (width, height) = if opts.quick { (480, 270) } else { (1920, 1080) };
        for (name, view, iters) in cases::deep_suite() {
            r.say(format!("\ndeep suite: {name}"));
            cases::mandelbrot_deep(&mut r, opts, b, &view, width, height, iters)?;
        }
        return r.finish(json);
    }
    if matches!(suite, Suite::Wave | Suite::All) {
        cases::wave(&mut r, opts, b, (1000, 800, 500), true)?;
        if opts.quick {
            cases::wave(&mut r, opts, b, (2048, 2048, 20), false)?;
            cases::scene(&mut r, opts, b, &cases::budget_scene(2048), 20)?;
            cases::scene(&mut r, opts, b, &cases::budget_scene_with(2048, Boundary::Absorbing), 20)?;
            cases::wave_frame(&mut r, opts, b, 1024)?;
        } else {
            cases::wave(&mut r, opts, b, (4096, 4096, 100), false)?;
            cases::scene(&mut r, opts, b, &cases::budget_scene(4096), 100)?;
            cases::scene(&mut r, opts, b, &cases::budget_scene_with(4096, Boundary::Absorbing), 100)?;
            cases::wave(&mut r, opts, b, (8192, 8192, 50), false)?;
            cases::scene(&mut r, opts, b, &cases::budget_scene(8192), 50)?;
            cases::scene(&mut r, opts, b, &cases::budget_scene_with(8192, Boundary::Absorbing), 50)?;
            cases::wave_frame(&mut r, opts, b, 4096)?;
        }
        if let Some(n) = file_size(opts) {
            to_file::wave_to_file(&mut r, opts.quick, b, n)?;
        }
    }
    if matches!(suite, Suite::Mandelbrot | Suite::All) {
        for precision in [Precision::F64, Precision::F32] {
            cases::mandelbrot(&mut r, opts, b, &MandelbrotParams { precision, ..MandelbrotParams::SEED }, true)?;
        }
        let (size, iters) = if opts.quick { (1024, 200) } else { (4096, 1000) };
        for precision in [Precision::F64, Precision::F32] {
            let p = MandelbrotParams { width: size, height: size, iters, bounds: Bounds::SEED, precision };
            cases::mandelbrot(&mut r, opts, b, &p, false)?;
        }
        // Distance colouring and lighting against smooth colouring (issue 25: at most 1.5x on CUDA).
        let side = if opts.quick { 512 } else { 2048 };
        let p = MandelbrotParams { width: side, height: side, iters, bounds: Bounds::SEED, precision: Precision::F64 };
        distance_case::mandelbrot_distance(&mut r, opts, b, &p)?;
        // The same at depth: rust-fractal's 5e49 location by perturbation.
        let deep = deep_views::deep_suite().into_iter().next().ok_or_else(|| anyhow::anyhow!("no deep suite"))?;
        let size = if opts.quick { (160, 90) } else { (1920, 1080) };
        distance_case::mandelbrot_deep_distance(&mut r, opts, b, (deep.0, &deep.1, deep.2), size)?;
        let (width, height) = if opts.quick { (480, 270) } else { (1920, 1080) };
        cases::mandelbrot_deep(&mut r, opts, b, &cases::deep_bench_view(), width, height, 50_000)?;
        if let Some(n) = file_size(opts) {
            to_file::mandelbrot_to_file(&mut r, opts.quick, b, n)?;
        }
    }
    r.finish(json)
}

/// The side of the to-file cases: `--file-size`, else 16384 (2048 with `--quick`); none for 0.
fn file_size(opts: &Options) -> Option<usize> {
    match opts.file_size {
        Some(0) => None,
        Some(n) => Some(n),
        None => Some(if opts.quick { 2048 } else { 16_384 }),
    }
}

/// `wavebrot verify`: every backend (and each of its wave variants) against `cpu1`; with
/// `inject_fault`, each backend through [`faulty::Faulty`] (one wrong value per result), which
/// every check must catch.
///
/// # Errors
/// A backend asked for by name is unavailable.
pub fn run_verify(asked: &[BackendKind], opts: verify::VerifyOptions, inject_fault: bool) -> Result<ExitCode> {
    let mut backends = open_backends(asked)?;
    if inject_fault {
        backends = backends.into_iter().map(|b| Box::new(faulty::Faulty::new(b)) as Box<dyn Backend>).collect();
        crate::outln!("fault injected: every backend below returns one wrong value per result");
    }
    Ok(report::check_line(&verify::failures(&mut backends, opts)))
}

/// Every variant `bench --variant` accepts, for help texts.
#[must_use]
pub fn variant_names() -> Vec<&'static str> {
    std::iter::once(WaveVariant::Auto).chain(WaveVariant::WGPU).map(WaveVariant::name).collect()
}
