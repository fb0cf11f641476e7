//! The headless harness behind `tests/app_frames.rs` and `examples/app_frames.rs`: the real app
//! (egui_kittest with wgpu, no window) playing the seed's wave on one backend and grid, driven
//! for N frames; it reports frames per second and where a frame's time goes, as a table and
//! JSON rows.
//!
//! Per frame the harness runs one UI frame (`Harness::step`: the app's `ui`, then egui's texture
//! changes handed to the GPU) and paints it (`Harness::render`). [`Paint::Window`] paints as a
//! window does: tessellate, draw into a target kept from frame to frame, submit, and wait until
//! the GPU has drawn it (a window presents it then); [`Paint::ReadBack`] is egui_kittest's own
//! renderer, which draws into a new texture and reads the screen back to the host every frame. The stages: `compute`, `measure` (the
//! meters' reads: energy, auto contrast), `colour`, `copy` (the simulation thread, from the app's
//! puffin scopes), `upload` (the picture handed to egui) and `ui` (the rest of the app's frame),
//! `egui→GPU` (step time outside the app's frame: texture uploads) and `paint` (render time), all
//! in ms per UI frame (averaged over the profile's last 60 UI frames). Pictures are rarer than UI
//! frames where the simulation thread is the bottleneck: times per picture are these times ×
//! `UI frames/s` / `frames/s`.

#![allow(dead_code, reason = "the test and the example use different parts")]

use web_time::{Duration, Instant};

use egui_kittest::{Harness, TestRenderer};
use egui_wgpu::{RenderState, ScreenDescriptor, wgpu};
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
    pub paint: Paint,
}

/// How a frame is painted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// As a window paints: drawn into a kept target and waited for, never read back.
    Window,
    /// egui_kittest's renderer: a new target each frame, read back to the host.
    ReadBack,
}

impl std::str::FromStr for Paint {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "window" => Ok(Self::Window),
            "readback" => Ok(Self::ReadBack),
            other => Err(format!("bad paint: '{other}' (window or readback)")),
        }
    }
}

/// A renderer that paints as a window does ([`Paint::Window`]): egui_wgpu draws the frame into
/// a target that lives as long as the window's size does, the work is submitted and waited for
/// (the time a window's frame takes before it is presented), and nothing is copied back. The
/// image it hands the harness is one transparent pixel.
pub struct WindowPaint {
    state: RenderState,
    target: Option<(wgpu::Texture, wgpu::TextureView, [u32; 2])>,
}

impl WindowPaint {
    #[must_use]
    pub fn new(setup: egui_wgpu::WgpuSetup) -> Self {
        let state = egui_kittest::wgpu::create_render_state(setup, egui_wgpu::RendererOptions::default());
        Self { state, target: None }
    }

    fn target(&mut self, size: [u32; 2]) -> wgpu::TextureView {
        if self.target.as_ref().is_none_or(|t| t.2 != size) {
            let texture = self.state.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("window-like target"),
                size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: self.state.target_format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            self.target = Some((texture, view, size));
        }
        self.target.as_ref().map(|t| t.1.clone()).expect("made above")
    }
}

impl TestRenderer for WindowPaint {
    fn setup_eframe(&self, cc: &mut eframe::CreationContext<'_>, frame: &mut eframe::Frame) {
        cc.wgpu_render_state = Some(self.state.clone());
        frame.wgpu_render_state = Some(self.state.clone());
    }

    fn handle_delta(&mut self, delta: &mut egui::TexturesDelta) {
        let mut renderer = self.state.renderer.write();
        for (id, images) in delta.set.drain() {
            for image in images {
                renderer.update_texture(&self.state.device, &self.state.queue, id, &image);
            }
        }
        for id in delta.free.drain() {
            renderer.free_texture(&id);
        }
    }

    fn render(&mut self, ctx: &egui::Context, output: &egui::FullOutput) -> Result<image::RgbaImage, String> {
        let size = ctx.content_rect().size() * ctx.pixels_per_point();
        let screen = ScreenDescriptor {
            pixels_per_point: ctx.pixels_per_point(),
            size_in_pixels: [size.x.round() as u32, size.y.round() as u32],
        };
        let view = self.target(screen.size_in_pixels);
        let tessellated = ctx.tessellate(output.shapes.clone(), ctx.pixels_per_point());
        let (device, queue) = (&self.state.device, &self.state.queue);
        let mut renderer = self.state.renderer.write();
        let mut encoder =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("window-like paint") });
        let user = renderer.update_buffers(device, queue, &mut encoder, &tessellated, &screen);
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("window-like pass"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &view,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                            store: wgpu::StoreOp::Store,
                        },
                        depth_slice: None,
                    })],
                    ..Default::default()
                })
                .forget_lifetime();
            renderer.render(&mut pass, &tessellated, &screen);
        }
        queue.submit(user.into_iter().chain(std::iter::once(encoder.finish())));
        device
            .poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(Duration::from_secs(10)) })
            .map_err(|e| format!("waiting for the paint: {e}"))?;
        Ok(image::RgbaImage::new(1, 1))
    }
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
    /// "window" or "readback" ([`Paint`]).
    pub paint: String,
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
    let builder = Harness::builder().with_size([1280.0, 780.0]);
    let builder = match case.paint {
        Paint::Window => builder.renderer(WindowPaint::new(wgpu_setup())),
        Paint::ReadBack => builder.wgpu_setup(wgpu_setup()),
    };
    let mut h = builder.build_eframe(move |cc| WavebrotApp::new_headless(cc, o).expect("app starts"));
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
        paint: if case.paint == Paint::Window { "window" } else { "readback" }.to_owned(),
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
