//! The headless harness behind `tests/app_frames.rs` and `examples/app_frames.rs`: the real app
//! (egui_kittest with wgpu, no window) playing the seed's wave on one backend and grid, driven
//! for N frames; it reports frames per second and where a frame's time goes, as a table and
//! JSON rows.
//!
//! Per frame the harness runs one UI frame (`Harness::step`: the app's `ui`, then egui's texture
//! changes handed to the GPU) and paints it (`Harness::render`: tessellate, draw, and read the
//! screen back, which a window would present instead). The stages: `compute`, `measure` (the
//! meters' reads: energy, auto contrast), `colour`, `copy` (the simulation thread, from the app's
//! puffin scopes), `upload` (the picture handed to egui) and `ui` (the rest of the app's frame),
//! `egui→GPU` (step time outside the app's frame: texture uploads) and `paint` (render time), all
//! in ms per UI frame (averaged over the profile's last 60 UI frames). Pictures are rarer than UI
//! frames where the simulation thread is the bottleneck: times per picture are these times ×
//! `UI frames/s` / `frames/s`.

#![allow(dead_code, reason = "the test and the example use different parts")]

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use wavebrot::app::WavebrotApp;
use wavebrot::app::launch::headless::HeadlessOptions;
use wavebrot::backend::BackendChoice;

/// One measured run.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub backend: BackendChoice,
    pub n: usize,
    pub steps_per_frame: u32,
    /// UI frames measured (after `warmup` more).
    pub frames: u32,
    pub warmup: u32,
    /// The 3D surface instead of the flat picture.
    pub surface: bool,
}

/// What a run measured.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    pub backend: String,
    pub device: String,
    pub display_adapter: String,
    pub n: usize,
    /// "2D" or "3D".
    pub view: String,
    pub steps_per_frame: u32,
    pub ui_frames: u32,
    pub seconds: f64,
    /// UI frames per second (the window's frame rate).
    pub ui_fps: f64,
    /// Pictures of the simulation shown per second.
    pub frames_per_s: f64,
    /// Time steps advanced per second.
    pub updates_per_s: f64,
    /// Time steps per shown picture (measured).
    pub updates_per_frame: f64,
    /// ms per UI frame: the stages of the app's puffin profile ...
    pub compute_ms: f64,
    pub measure_ms: f64,
    pub colour_ms: f64,
    pub copy_ms: f64,
    pub upload_ms: f64,
    pub ui_ms: f64,
    /// ... and the harness's own timers around egui's texture changes and painting.
    pub egui_gpu_ms: f64,
    pub paint_ms: f64,
}

/// The columns of [`table`], in order.
pub const COLUMNS: [&str; 15] = [
    "backend",
    "device",
    "grid",
    "steps/frame",
    "frames/s",
    "UI frames/s",
    "updates/s",
    "compute",
    "measure",
    "colour",
    "copy",
    "upload",
    "ui",
    "egui→GPU",
    "paint",
];

pub fn wgpu_setup() -> egui_wgpu::WgpuSetup {
    let mut setup = egui_kittest::wgpu::default_wgpu_setup();
    if let egui_wgpu::WgpuSetup::CreateNew(s) = &mut setup {
        s.device_descriptor = std::sync::Arc::new(wavebrot::app::device_descriptor);
    }
    setup
}

/// Steps the app until `done` holds (at most `secs` seconds).
pub fn until(h: &mut Harness<'static, WavebrotApp>, secs: u64, done: impl Fn(&WavebrotApp) -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        h.step();
        if done(h.state()) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

/// Runs one case.
///
/// # Errors
/// No wgpu adapter, the backend asked for did not open, or the app never showed the grid.
pub fn run(case: Case) -> Result<Row, String> {
    let instance = wgpu::Instance::default();
    pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        .map_err(|e| format!("no wgpu adapter: {e}"))?;
    let o = HeadlessOptions {
        backend: case.backend,
        n: case.n,
        steps_per_frame: case.steps_per_frame,
        surface: case.surface,
    };
    let mut h = Harness::builder()
        .with_size([1280.0, 780.0])
        .wgpu_setup(wgpu_setup())
        .build_eframe(move |cc| WavebrotApp::new_headless(cc, o).expect("app starts"));
    let n = case.n;
    let ready = until(&mut h, 300, |a| {
        a.active_backend().is_some() && a.wave_running().is_some_and(|(p, _)| p.nx == n) && a.content_frames() >= 2
    });
    if let Some(m) = h.state().message() {
        return Err(format!("the app said: {m}"));
    }
    if !ready {
        return Err(format!("no {n}x{n} frame within 300 s"));
    }
    let kind = h.state().active_backend().ok_or("no backend")?;
    if let Some(want) = case.backend.kind()
        && want != kind
    {
        return Err(format!("asked for {want}, the app runs {kind}"));
    }
    let frame = |h: &mut Harness<'static, WavebrotApp>| -> Result<(f64, f64), String> {
        let t = Instant::now();
        h.step();
        let step = t.elapsed().as_secs_f64();
        let t = Instant::now();
        h.render()?;
        Ok((step, t.elapsed().as_secs_f64()))
    };
    for _ in 0..case.warmup {
        frame(&mut h)?;
    }
    let (c0, t0) = (h.state().content_frames(), h.state().wave_running().map_or(0, |(_, t)| t));
    let (mut step_secs, mut paint_secs) = (0.0, 0.0);
    let start = Instant::now();
    for _ in 0..case.frames {
        let (s, p) = frame(&mut h)?;
        step_secs += s;
        paint_secs += p;
    }
    let secs = start.elapsed().as_secs_f64();
    let (c1, t1) = (h.state().content_frames(), h.state().wave_running().map_or(0, |(_, t)| t));
    let app = h.state();
    let stages = app.frame_profile().average().ok_or("no profiled frame")?;
    let f = f64::from(case.frames);
    let shown = (c1 - c0) as f64;
    let updates = f64::from(t1.saturating_sub(t0));
    let ms = |s: f64| s * 1e3;
    Ok(Row {
        backend: kind.name().to_owned(),
        device: app.active_device().map_or_else(String::new, |d| d.name.clone()),
        display_adapter: app.display_adapter().unwrap_or_default(),
        n,
        view: if case.surface { "3D" } else { "2D" }.to_owned(),
        steps_per_frame: case.steps_per_frame,
        ui_frames: case.frames,
        seconds: secs,
        ui_fps: f / secs,
        frames_per_s: shown / secs,
        updates_per_s: updates / secs,
        updates_per_frame: if shown > 0.0 { updates / shown } else { 0.0 },
        compute_ms: ms(stages[0]),
        measure_ms: ms(stages[5]),
        colour_ms: ms(stages[1]),
        copy_ms: ms(stages[2]),
        upload_ms: ms(stages[3]),
        ui_ms: ms(stages[4]),
        egui_gpu_ms: ms((step_secs / f - stages[3] - stages[4]).max(0.0)),
        paint_ms: ms(paint_secs / f),
    })
}

/// The rows as a Markdown table (times in ms per UI frame).
#[must_use]
pub fn table(rows: &[Row]) -> String {
    let mut out = format!("| {} |\n|{}\n", COLUMNS.join(" | "), "---|".repeat(COLUMNS.len()));
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {}²{} | {} | {:.1} | {:.1} | {:.3e} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |\n",
            r.backend,
            r.device,
            r.n,
            if r.view == "3D" { " 3D" } else { "" },
            r.steps_per_frame,
            r.frames_per_s,
            r.ui_fps,
            r.updates_per_s,
            r.compute_ms,
            r.measure_ms,
            r.colour_ms,
            r.copy_ms,
            r.upload_ms,
            r.ui_ms,
            r.egui_gpu_ms,
            r.paint_ms
        ));
    }
    out
}
