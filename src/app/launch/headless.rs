//! The app as a measuring harness drives it (`tests/app_frames.rs`, `examples/app_frames.rs`):
//! the real app on a chosen backend and grid, playing a fixed number of steps per frame, with
//! its timing numbers shown and nothing saved, and what the harness reads back (frames taken in,
//! the devices).

use crate::backend::{BackendChoice, DeviceInfo};
use crate::sim::wave::scene::Scene;

use crate::app::parts::controls::Probes;
use crate::app::{Demo, MandelView, Settings, StartOptions, WaveSettings, WavebrotApp};

/// How a headless run starts.
#[derive(Clone, Copy, Debug)]
pub struct HeadlessOptions {
    pub backend: BackendChoice,
    /// Grid side (cells per side; the seed's scene).
    pub n: usize,
    /// Time steps per frame.
    pub steps_per_frame: u32,
    /// Show the 3D surface instead of the flat picture (where wgpu draws the window).
    pub surface: bool,
}

impl WavebrotApp {
    /// The app playing the seed's wave on `o.backend` at `o.n`×`o.n`, `o.steps_per_frame` steps
    /// per frame, with the machine's real backends probed.
    ///
    /// # Errors
    /// A thread could not be started.
    pub fn new_headless(cc: &eframe::CreationContext<'_>, o: HeadlessOptions) -> anyhow::Result<Self> {
        let settings = Settings {
            view: Demo::Wave,
            backend: o.backend,
            wave: WaveSettings {
                steps_per_frame: o.steps_per_frame,
                playing: true,
                ..WaveSettings::for_scene(Scene::seed(o.n, o.n, crate::sim::wave::DEFAULT_FREQ), "seed")
            },
            mandelbrot: MandelView::default(),
            cpu_compare: false,
        };
        let start = StartOptions { ephemeral: true, ..StartOptions::default() };
        let probes: Probes = crate::backend::probe_all();
        let mut app = Self::with_settings(&cc.egui_ctx, settings, probes, start, cc.wgpu_render_state.clone())?;
        app.wave.surface.on = o.surface && app.render_state.is_some();
        Ok(app)
    }

    /// Pictures taken in from the simulation thread so far.
    #[must_use]
    pub fn content_frames(&self) -> u64 {
        self.content_frames
    }

    /// Time steps the last computed frame advanced.
    #[must_use]
    pub fn last_steps(&self) -> Option<u32> {
        self.wave.last_steps
    }

    /// The device the active backend computes on.
    #[must_use]
    pub fn active_device(&self) -> Option<&DeviceInfo> {
        self.active.as_ref().map(|(_, d)| d)
    }

    /// The adapter eframe draws with (name and graphics API).
    #[must_use]
    pub fn display_adapter(&self) -> Option<String> {
        self.render_state.as_ref().map(|rs| {
            let i = rs.adapter.get_info();
            format!("{} ({:?})", i.name, i.backend)
        })
    }
}
