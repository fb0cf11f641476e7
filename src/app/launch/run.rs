//! Opening the window in this process: eframe's options and wgpu setup, and [`run`].

use std::sync::{Arc, Mutex};

use crate::app::launch;
use crate::app::{GuiArgs, StartOptions, WavebrotApp};

/// eframe's wgpu setup with [`crate::app::device_descriptor`] on wgpu's own choice of adapter.
#[must_use]
pub fn wgpu_setup() -> egui_wgpu::WgpuSetup {
    launch::window_process::DisplayAdapter::Auto.wgpu_setup()
}

/// Window and renderer options, drawing on `adapter`.
#[must_use]
pub fn native_options(ephemeral: bool, adapter: &launch::window_process::DisplayAdapter) -> eframe::NativeOptions {
    eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("wavebrot")
            // The desktop entry's name (packaging/wavebrot.desktop): the desktop matches the window to it.
            .with_app_id("wavebrot")
            .with_icon(window_icon())
            .with_inner_size([1280.0, 780.0])
            .with_min_inner_size([640.0, 400.0]),
        renderer: eframe::Renderer::Wgpu,
        wgpu_options: egui_wgpu::WgpuConfiguration { wgpu_setup: adapter.wgpu_setup(), ..Default::default() },
        persist_window: !ephemeral,
        ..Default::default()
    }
}

/// The window's icon: the same picture as the desktop entry's (`packaging/wavebrot.png`).
#[must_use]
pub fn window_icon() -> egui::IconData {
    eframe::icon_data::from_png_bytes(include_bytes!("../../../packaging/wavebrot.png")).unwrap_or_default()
}

/// Opens the app window in this process (the window process; `wavebrot gui` starts it through
/// [`launch::window_process::run_guarded`]).
///
/// # Errors
/// The window or its renderer could not be created, or a screenshot could not be saved.
pub fn run(args: &GuiArgs) -> anyhow::Result<()> {
    let outcome = Arc::new(Mutex::new(None));
    let note = std::env::var(launch::window_process::WINDOW_PROCESS_ENV).ok().filter(|v| !v.is_empty() && v != "1");
    let start = StartOptions {
        ephemeral: args.screenshot.is_some(),
        freeze_timings: false,
        screenshot: args.screenshot.clone().map(|p| (p, args.frames)),
        outcome: Some(Arc::clone(&outcome)),
        report_window_up: true,
        display_note: note,
    };
    if let Some((p, _)) = &start.screenshot {
        crate::output::check_writable(p)?;
    }
    let adapter = args.display_adapter.clone().unwrap_or_default();
    if launch::window_process::test_crash_requested(&adapter.to_string()) {
        eprintln!(
            "{}: crashing before the window opens on '{adapter}', as asked",
            launch::window_process::TEST_CRASH_ENV
        );
        std::process::abort();
    }
    let options = native_options(start.ephemeral, &adapter);
    let want_shot = args.screenshot.is_some();
    let args = args.clone();
    eframe::run_native(
        "wavebrot",
        options,
        Box::new(move |cc| {
            let app = WavebrotApp::new(cc, &args, start)?;
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    let result = outcome.lock().map(|mut g| g.take()).unwrap_or(None);
    match result {
        Some(Err(e)) => Err(e),
        Some(Ok(())) => Ok(()),
        None if want_shot => anyhow::bail!("the window closed before the screenshot was taken"),
        None => Ok(()),
    }
}
