//! The real app, headless (egui_kittest with wgpu, no window), measured per backend and grid:
//! frames per second and where a frame's time goes (compute, colour, copy, upload, UI, egui's
//! texture uploads, painting), as a Markdown table on stdout and optionally JSON.
//!
//! ```text
//! cargo run --release --example app_frames -- [--backend cuda,wgpu,cpu] [--grid 4096,8192]
//!     [--steps 100] [--frames 300] [--warmup 30] [--view 2d,3d] [--paint window|readback] [--json FILE]
//! ```
//!
//! docs/PERFORMANCE.md has the runs on the GPU machine.

#[path = "../tests/support/app_frames.rs"]
mod harness;

use std::process::ExitCode;

use wavebrot::backend::BackendChoice;

fn list<T: std::str::FromStr>(v: &str, what: &str) -> Result<Vec<T>, String> {
    v.split(',').map(|s| s.trim().parse().map_err(|_| format!("bad {what}: '{s}'"))).collect()
}

fn main() -> ExitCode {
    let mut backends = vec![BackendChoice::Cuda];
    let mut grids = vec![4096usize, 8192];
    let (mut steps, mut frames, mut warmup, mut json) = (100u32, 300u32, 30u32, None);
    let mut views = vec![false];
    let mut paint = harness::Paint::Window;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    let parsed: Result<(), String> = (|| {
        while let Some(a) = it.next() {
            let mut value = || it.next().cloned().ok_or(format!("{a} needs a value"));
            match a.as_str() {
                "--backend" => {
                    backends = value()?
                        .split(',')
                        .map(|s| {
                            <BackendChoice as clap::ValueEnum>::from_str(s.trim(), true)
                                .map_err(|_| format!("bad backend: '{s}'"))
                        })
                        .collect::<Result<_, _>>()?;
                }
                "--grid" => grids = list(&value()?, "grid")?,
                "--steps" => steps = list::<u32>(&value()?, "steps")?.first().copied().unwrap_or(100),
                "--frames" => frames = list::<u32>(&value()?, "frames")?.first().copied().unwrap_or(300),
                "--warmup" => warmup = list::<u32>(&value()?, "warmup")?.first().copied().unwrap_or(30),
                "--view" => {
                    views = value()?
                        .split(',')
                        .map(|s| match s.trim() {
                            "2d" | "2D" => Ok(false),
                            "3d" | "3D" => Ok(true),
                            other => Err(format!("bad view: '{other}' (2d or 3d)")),
                        })
                        .collect::<Result<_, _>>()?;
                }
                "--paint" => paint = value()?.parse()?,
                "--json" => json = Some(value()?),
                other => return Err(format!("unknown argument '{other}'")),
            }
        }
        if grids.iter().any(|&n| !(64..=8192).contains(&n)) || frames == 0 || steps == 0 {
            return Err("grids must be 64..=8192, frames and steps at least 1".to_owned());
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        eprintln!("app_frames: {e}");
        return ExitCode::from(2);
    }
    let mut rows = Vec::new();
    let mut failed = false;
    for &backend in &backends {
        for (&n, &surface) in grids.iter().flat_map(|n| views.iter().map(move |v| (n, v))) {
            eprintln!("app_frames: {backend:?} {n}x{n} (3D: {surface}), {steps} steps per frame, {frames} frames…");
            match harness::run(harness::Case { backend, n, steps_per_frame: steps, frames, warmup, surface, paint }) {
                Ok(r) => {
                    println!(
                        "compute device ({}): {}; display adapter: {}; paint: {}",
                        r.backend, r.device, r.display_adapter, r.paint
                    );
                    rows.push(r);
                }
                Err(e) => {
                    eprintln!("app_frames: {backend:?} {n}x{n}: {e}");
                    failed = true;
                }
            }
        }
    }
    println!("\n{}", harness::table(&rows));
    if let Some(path) = json {
        let text = match serde_json::to_string_pretty(&rows) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("app_frames: {e}");
                return ExitCode::from(1);
            }
        };
        let written = wavebrot::output::write_atomically(std::path::Path::new(&path), |w| {
            std::io::Write::write_all(w, text.as_bytes())?;
            Ok(())
        });
        if let Err(e) = written {
            eprintln!("app_frames: cannot write {path}: {e:#}");
            return ExitCode::from(1);
        }
        println!("wrote {path}");
    }
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
