//! Saving the Mandelbrot view as a PNG picture: the size (the picture's own, 3840x2160,
//! 7680x4320 or any), the file, the tile size, and the progress of the export that the
//! simulation thread renders tile by tile ([`crate::app::worker::messages::Command::Export`]), with a cancel.
//! The picture keeps the view's centre and height; its width follows its own shape. Ctrl+S
//! saves with the settings shown.

use std::path::PathBuf;

use crate::app::mandel::view::MandelView;
use crate::app::worker::messages::{ExportJob, ExportStatus};

/// The sizes offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportSize {
    /// The picture's size on screen.
    Window,
    Uhd4k,
    Uhd8k,
    Custom,
}

/// Largest side of an exported picture.
pub const MAX_EXPORT_SIDE: usize = 65_536;

/// The export controls' state.
#[derive(Clone, Debug)]
pub struct ExportState {
    pub size: ExportSize,
    pub custom: [usize; 2],
    pub path: String,
    /// Largest tile in pixels (0: tiles of about a quarter of a second each, so progress moves
    /// and Cancel acts within a second).
    pub tile_pixels: usize,
    /// Rows done of the export under way.
    pub progress: Option<(usize, usize)>,
    pub running: bool,
}

impl Default for ExportState {
    fn default() -> Self {
        Self {
            size: ExportSize::Window,
            custom: [1920, 1080],
            path: "mandelbrot.png".to_owned(),
            tile_pixels: 0,
            progress: None,
            running: false,
        }
    }
}

impl ExportState {
    /// The picture's size when the view is `window` pixels on screen.
    #[must_use]
    pub fn pixels(&self, window: [usize; 2]) -> [usize; 2] {
        let [w, h] = match self.size {
            ExportSize::Window => window,
            ExportSize::Uhd4k => [3840, 2160],
            ExportSize::Uhd8k => [7680, 4320],
            ExportSize::Custom => self.custom,
        };
        [w.clamp(1, MAX_EXPORT_SIDE), h.clamp(1, MAX_EXPORT_SIDE)]
    }

    /// The job that saves `camera` shown in a picture of `window` pixels with these settings:
    /// the same centre, zoom (the picture's height) and iterations; the whole set, when that is
    /// what is shown, fitted to the exported picture's own shape.
    #[must_use]
    pub fn job(&self, camera: &MandelView, window: [usize; 2]) -> ExportJob {
        let [width, height] = self.pixels(window);
        ExportJob {
            request: camera.request(width, height),
            path: PathBuf::from(self.path.trim()),
            tile_pixels: (self.tile_pixels > 0).then_some(self.tile_pixels),
        }
    }

    /// Takes a status from the worker in; returns the message to show when it ended.
    pub fn update(&mut self, status: ExportStatus) -> Option<String> {
        match status {
            ExportStatus::Progress { done, total } => {
                self.progress = Some((done, total));
                None
            }
            ExportStatus::Done { path, width, height, tiles, millis } => {
                self.finish();
                let pieces = if tiles > 1 { format!(" in {tiles} tiles") } else { String::new() };
                Some(format!(
                    "saved {} ({width}x{height}{pieces}, {:.1} s)",
                    crate::output::shown_path(&path),
                    millis / 1e3
                ))
            }
            ExportStatus::Cancelled => {
                self.finish();
                Some("export cancelled: nothing written".to_owned())
            }
            ExportStatus::Failed(e) => {
                self.finish();
                Some(format!("export failed: {e}"))
            }
        }
    }

    fn finish(&mut self) {
        self.running = false;
        self.progress = None;
    }
}

/// What the user asked of the export controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportAction {
    Start,
    Cancel,
}

/// The export controls: size, file, tile size, the Save button, and the progress bar with a
/// Cancel button while an export runs.
pub fn export_ui(ui: &mut egui::Ui, state: &mut ExportState, window: [usize; 2]) -> Option<ExportAction> {
    let mut action = None;
    ui.label("Picture");
    ui.horizontal_wrapped(|ui| {
        let window_label = format!("window {}x{}", window[0], window[1]);
        for (size, name) in [
            (ExportSize::Window, window_label.as_str()),
            (ExportSize::Uhd4k, "3840x2160"),
            (ExportSize::Uhd8k, "7680x4320"),
            (ExportSize::Custom, "custom"),
        ] {
            ui.selectable_value(&mut state.size, size, name);
        }
    });
    if state.size == ExportSize::Custom {
        ui.horizontal(|ui| {
            ui.add(egui::DragValue::new(&mut state.custom[0]).range(1..=MAX_EXPORT_SIDE).suffix(" px wide"));
            ui.add(egui::DragValue::new(&mut state.custom[1]).range(1..=MAX_EXPORT_SIDE).suffix(" px high"));
        });
    }
    ui.horizontal(|ui| {
        let label = ui.label("PNG");
        ui.text_edit_singleline(&mut state.path).labelled_by(label.id);
    });
    ui.horizontal(|ui| {
        let label = ui.label("tile pixels (0: auto)");
        ui.add(egui::DragValue::new(&mut state.tile_pixels).range(0..=usize::MAX)).labelled_by(label.id);
    });
    if state.running {
        ui.horizontal(|ui| {
            let (done, total) = state.progress.unwrap_or((0, 1));
            let share = done as f32 / total.max(1) as f32;
            ui.add(egui::ProgressBar::new(share).show_percentage().desired_width(160.0));
            if ui.button("Cancel").clicked() {
                action = Some(ExportAction::Cancel);
            }
        });
    } else {
        let [w, h] = state.pixels(window);
        if ui.button(format!("Save picture {w}x{h} (Ctrl+S)")).clicked() {
            action = Some(ExportAction::Start);
        }
    }
    action
}
