//! `wavebrot sweep` as a user calls it, at small sizes: every backend asked for is in the JSON
//! with growing sizes and checked timings, the CSV has a row per record, and the PNG decodes.
//! wgpu runs on lavapipe in CI (required there); without an adapter it is left out with a
//! logged skip (`tests/common`).

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use crate::common;

use assert_cmd::Command;
use serde_json::Value;

fn backends() -> Vec<&'static str> {
    let mut b = vec!["cpu1", "cpu"];
    if common::wgpu_device().is_some() {
        b.push("wgpu");
    }
    b
}

fn sweep(kernel: &str, max: &str) -> (Vec<Value>, tempfile::TempDir, Vec<&'static str>) {
    let dir = tempfile::tempdir().unwrap();
    let names = backends();
    let mut c = Command::cargo_bin("wavebrot").unwrap();
    c.args(["sweep", kernel, "--quick", "--min-side", "64", "--max-side", max]);
    for b in &names {
        c.args(["--backend", b]);
    }
    c.arg("--json").arg(dir.path().join("s.json"));
    c.arg("--csv").arg(dir.path().join("s.csv"));
    c.arg("--png").arg(dir.path().join("s.png"));
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}\n{}", text, String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Check result: OK!"), "{text}");
    assert!(text.contains("crossover:"), "{text}");
    let json: Vec<Value> = serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    (json, dir, names)
}

fn check(json: &[Value], dir: &tempfile::TempDir, names: &[&str], kernel: &str, time_field: &str) {
    for b in names {
        let sizes: Vec<u64> = json
            .iter()
            .filter(|r| r["backend"] == *b)
            .map(|r| {
                assert_eq!(r["kernel"], kernel);
                assert!(r["device"].as_str().is_some_and(|d| !d.is_empty()));
                assert_eq!(r["nx"], r["ny"]);
                assert!(r[time_field].as_f64().is_some_and(|t| t > 0.0), "{r}");
                assert_eq!(r["ok"], true, "{r}");
                r["nx"].as_u64().unwrap()
            })
            .collect();
        assert_eq!(sizes, vec![64, 128, 256], "{b}: sizes");
    }
    let csv = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    assert_eq!(csv.lines().count(), json.len() + 1);
    assert!(csv.starts_with("kernel,backend,variant,device,nx,ny,"));
    let img = image::open(dir.path().join("s.png")).unwrap();
    assert!(img.width() > 500 && img.height() > 300);
    // Not blank: lines of several colours were drawn.
    let rgb = img.to_rgb8();
    let coloured = rgb.pixels().filter(|p| !(p[0] == p[1] && p[1] == p[2])).count();
    assert!(coloured > 1000, "{coloured} coloured pixels");
}

#[test]
fn wave_sweep_json_csv_and_png() {
    let (json, dir, names) = sweep("wave", "256");
    check(&json, &dir, &names, "wave", "per_step_us");
    assert!(json.iter().all(|r| r["per_frame_ms"].as_f64().is_some_and(|t| t > 0.0)));
}

#[test]
fn mandelbrot_sweep_json_csv_and_png() {
    let (json, dir, names) = sweep("mandelbrot", "256");
    check(&json, &dir, &names, "mandelbrot", "per_frame_ms");
}

#[test]
fn sweep_bad_sizes_are_usage_errors() {
    let out = Command::cargo_bin("wavebrot")
        .unwrap()
        .args(["sweep", "--min-side", "512", "--max-side", "64"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim().lines().count(), 1);
}

/// The sweep's check seen failing: a backend with one wrong cell or count (`bench::faulty`) gets
/// a record that is not ok, with the difference in it; the backend itself passes against the
/// same reference (the scalar rules of `sim`, which no backend runs, so none is checked against
/// itself).
#[test]
fn the_sweep_check_catches_one_wrong_cell_and_one_wrong_count() {
    use wavebrot::backend::{Backend, BackendKind, open};
    use wavebrot::bench::faulty::{Faulty, WAVE_FAULT};
    use wavebrot::bench::runner::Plan;
    use wavebrot::bench::sweep::{SweepKernel, point};
    let plan = Plan::new(true, (1, 1), (0, 0));
    for kind in [BackendKind::Cpu1, BackendKind::Cpu] {
        for kernel in [SweepKernel::Wave, SweepKernel::Mandelbrot] {
            let mut faulty: Box<dyn Backend> = Box::new(Faulty::new(open(kind).unwrap()));
            let (bad, _) = point(kernel, faulty.as_mut(), "test", 64, plan).unwrap();
            assert!(!bad.ok, "{kind} {kernel:?}: the fault passed the check: {bad:?}");
            let (good, _) = point(kernel, open(kind).unwrap().as_mut(), "test", 64, plan).unwrap();
            assert!(good.ok, "{kind} {kernel:?}: {good:?}");
            match kernel {
                SweepKernel::Wave => {
                    // WAVE_FAULT added to one cell, give or take the rounding of the sum.
                    let d = bad.max_abs_diff.unwrap();
                    assert!((d - f64::from(WAVE_FAULT)).abs() < 1e-6, "{bad:?}");
                    assert_eq!(good.max_abs_diff, Some(0.0), "{good:?}");
                }
                SweepKernel::Mandelbrot => {
                    assert_eq!(bad.mismatch_frac, Some(1.0 / (64.0 * 64.0)), "{bad:?}");
                    assert_eq!(good.mismatch_frac, Some(0.0), "{good:?}");
                }
            }
        }
    }
}
