//! How the wave is looked at, as plain data the simulation thread needs: what it measures and
//! draws besides the field ([`WaveLook`]), and the colours and limits of those drawings. The wave
//! view holds a [`WaveLook`] in its settings and the thread composes the picture by it; it lives
//! here, below both, so the thread imports nothing from the view.

use serde::{Deserialize, Serialize};

/// The compute time per displayed frame that "fastest" aims at (a 60 Hz frame less the time
/// to colour and show it).
pub const FASTEST_BUDGET: std::time::Duration = std::time::Duration::from_millis(12);

/// Decades the log intensity scale spans below its top.
pub const INTENSITY_DECADES: f32 = 4.0;

/// The most probes one can place (each has a colour and a trace).
pub const MAX_PROBES: usize = 4;

/// Probe colours, in order.
pub const PROBE_COLOURS: [egui::Color32; MAX_PROBES] = [
    egui::Color32::from_rgb(80, 200, 255),
    egui::Color32::from_rgb(120, 255, 120),
    egui::Color32::from_rgb(255, 120, 255),
    egui::Color32::from_rgb(255, 255, 120),
];

/// How the wave is looked at: what the simulation thread measures and draws besides the field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WaveLook {
    /// Show the time-averaged intensity (mean of `f²`) instead of the field.
    pub intensity: bool,
    /// The intensity's averaging window, in periods of the first source.
    pub average_periods: f64,
    /// Draw the intensity on a log scale over [`INTENSITY_DECADES`] decades (faint fringes behind
    /// a barrier next to the bright standing wave in front of it).
    pub intensity_log: bool,
    /// The colour scale follows the field's amplitude (the sliders are ignored).
    pub auto_contrast: bool,
    /// Measure the field's discrete energy every frame.
    pub energy: bool,
    /// Cells `(x, y)` whose value is plotted over time.
    pub probes: Vec<(usize, usize)>,
    /// The screen: the column `x` whose time-averaged intensity is plotted beside the picture.
    pub screen: Option<usize>,
}

impl Default for WaveLook {
    fn default() -> Self {
        Self {
            intensity: false,
            average_periods: 3.0,
            intensity_log: true,
            auto_contrast: false,
            energy: false,
            probes: Vec::new(),
            screen: None,
        }
    }
}

/// The screen's colour on the field and in its plot.
pub const SCREEN_COLOUR: egui::Color32 = egui::Color32::from_rgb(255, 210, 60);
