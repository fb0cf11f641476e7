//! A screenshot of the real app's class view, headless (egui_kittest with wgpu on the machine's
//! own adapter, no window): the GPU machine has no display, and its Vulkan driver needs GLX for a
//! window under Xvfb. The app runs the wave lab on `--backend` at `--grid` for `--seconds`, with
//! the CPU comparison on, then the picture is read back and written as a PNG.
//!
//! ```text
//! cargo run --release --example class_view_shot -- OUT.png [--backend cuda] [--grid 1024] [--seconds 20]
//! ```

use std::process::ExitCode;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use wavebrot::app::WavebrotApp;
use wavebrot::app::launch::headless::HeadlessOptions;
use wavebrot::backend::BackendChoice;

#[path = "../tests/support/app_frames.rs"]
mod harness;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first().cloned() else {
        eprintln!("usage: class_view_shot OUT.png [--backend cuda] [--grid 1024] [--seconds 20]");
        return ExitCode::from(2);
    };
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let backend = match value("--backend").map(|s| <BackendChoice as clap::ValueEnum>::from_str(&s, true)) {
        None => BackendChoice::Cuda,
        Some(Ok(b)) => b,
        Some(Err(e)) => {
            eprintln!("bad --backend: {e}");
            return ExitCode::from(2);
        }
    };
    let n: usize = value("--grid").and_then(|s| s.parse().ok()).unwrap_or(1024);
    let seconds: u64 = value("--seconds").and_then(|s| s.parse().ok()).unwrap_or(20);
    let o = HeadlessOptions { backend, n, steps_per_frame: 100, surface: false };
    let mut h = Harness::builder()
        .with_size([1280.0, 780.0])
        .wgpu_setup(harness::wgpu_setup())
        .build_eframe(move |cc| WavebrotApp::new_headless(cc, o).expect("app starts"));
    // A few frames to come up, then the CPU comparison ticked, as a teacher would.
    harness::until(&mut h, 3, |_| false);
    h.get_by_label("CPU comparison").click();
    harness::until(&mut h, seconds, |_| false);
    let app = h.state();
    println!("backend {:?}, running {:?}", app.active_backend(), app.wave_running().map(|(p, t)| (p.nx, p.ny, t)));
    match h.render() {
        Ok(image) => match image.save(&out) {
            Ok(()) => {
                println!("wrote {out}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{out}: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("render: {e}");
            ExitCode::FAILURE
        }
    }
}
