//! The headless app harness (`tests/support/app_frames.rs`) in a small run that CI can afford:
//! the real app drawn by wgpu (lavapipe here) on the CPU and wgpu backends at 64×64, checking
//! that every stage of the frame profile is reported and frames arrive. The GPU-sized runs are
//! `examples/app_frames.rs` (docs/PERFORMANCE.md says how to run them).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

mod common;
#[path = "support/app_frames.rs"]
mod harness;

use harness::{COLUMNS, Case, Paint, run, table};
use wavebrot::backend::BackendChoice;

#[test]
fn the_headless_harness_reports_frames_per_second_and_every_stage() {
    let mut rows = Vec::new();
    // The CPU painted as a window paints, wgpu through egui_kittest's read-back: both paths run.
    for (backend, paint) in [(BackendChoice::Cpu, Paint::Window), (BackendChoice::Wgpu, Paint::ReadBack)] {
        let case = Case { backend, n: 64, steps_per_frame: 10, frames: 40, warmup: 5, surface: false, paint };
        match run(case) {
            Ok(r) => rows.push(r),
            Err(e) if e.starts_with("no wgpu adapter") => {
                common::skip(common::Need::Wgpu, &e);
                return;
            }
            Err(e) => panic!("{backend:?}: {e}"),
        }
    }
    let t = table(&rows);
    println!("{t}");
    for c in COLUMNS {
        assert!(t.lines().next().unwrap().contains(c), "the table has a {c} column: {t}");
    }
    for r in &rows {
        assert!(r.frames_per_s > 0.0 && r.ui_fps >= r.frames_per_s, "{r:?}");
        assert!(r.updates_per_s > 0.0, "{r:?}");
        // The worker advances exactly the steps asked per picture.
        assert!((r.updates_per_frame - 10.0).abs() < 1e-9, "{} updates per picture", r.updates_per_frame);
        assert!(r.compute_ms > 0.0 && r.colour_ms > 0.0 && r.ui_ms > 0.0 && r.paint_ms > 0.0, "{r:?}");
        assert!(!r.device.is_empty() && !r.display_adapter.is_empty(), "{r:?}");
        assert!(t.contains(&format!("{}²", r.n)), "{t}");
        let json = serde_json::to_value(r).unwrap();
        assert!(json["frames_per_s"].as_f64().unwrap() > 0.0);
    }
    assert_eq!((rows[0].paint.as_str(), rows[1].paint.as_str()), ("window", "readback"));
    // The CPU picture is uploaded from the host; wgpu's goes straight into the display texture.
    assert!(rows[0].upload_ms > 0.0, "{:?}", rows[0]);
}
