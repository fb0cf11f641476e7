//! `render wave`'s arguments (clap), apart from the runs that read them (`wave.rs`,
//! `wave_screen.rs`), so neither of those imports the other both ways.

use std::path::PathBuf;

use clap::Args;

use super::args::{BackendArg, grid_side, positive_f64};

pub use crate::sim::wave::DEFAULT_TMAX;

#[derive(Debug, Args)]
pub struct RenderWave {
    /// A scene preset (`wavebrot scenes` lists them); flags given beside it override its values.
    #[arg(long, value_name = "NAME", conflicts_with = "scene")]
    pub preset: Option<String>,
    /// A scene file (TOML, see assets/scenes/); flags given beside it override its values.
    #[arg(long, value_name = "FILE")]
    pub scene: Option<PathBuf>,
    /// Cells along i (picture width) [default: 1000, or the scene's; a scene's geometry is scaled].
    #[arg(long, value_parser = grid_side)]
    pub nx: Option<usize>,
    /// Cells along j (picture height) [default: 800, or the scene's; a scene's geometry is scaled].
    #[arg(long, value_parser = grid_side)]
    pub ny: Option<usize>,
    /// Time steps (each is two updates) [default: 500, or the scene's `tmax`].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub tmax: Option<u32>,
    /// Source frequency: the source is sin(freq * tstep) [default: 0.1; with a scene: every
    /// source's freq].
    #[arg(long, value_parser = positive_f64)]
    pub freq: Option<f64>,
    #[command(flatten)]
    pub backend: BackendArg,
    /// Write f after the last step through `hot` (vmin -0.1, vmax 0.1) as PNG.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Write f after the last step as .npy (<f4, shape (nx, ny)).
    #[arg(long, value_name = "FILE")]
    pub npy: Option<PathBuf>,
    /// Write a numbered PNG (wave2d_010.png, ...) every --every steps into DIR.
    #[arg(long, value_name = "DIR", requires = "every")]
    pub frames_dir: Option<PathBuf>,
    /// Record an animated GIF: one frame every --every steps, one pixel per cell like the PNG.
    #[arg(long, value_name = "FILE", requires = "every")]
    pub gif: Option<PathBuf>,
    /// Steps between frames written to --frames-dir and --gif.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub every: Option<u32>,
    /// A screen on the column x = X (1 to nx-2): its time-averaged intensity goes to --csv.
    #[arg(long, value_name = "X", requires = "csv")]
    pub screen: Option<i64>,
    /// Write the screen's intensity as CSV: `y,intensity`, and `theory` (the far-field I(θ) of the
    /// scene's slits or sources, scaled to the measured peak) where the scene has one.
    #[arg(long, value_name = "FILE", requires = "screen")]
    pub csv: Option<PathBuf>,
    /// Periods the intensity is averaged over: the last N periods of the run, of the lowest
    /// source frequency (with several frequencies their beat averages out only over long windows).
    #[arg(long, value_name = "N", value_parser = positive_f64, default_value_t = 3.0)]
    pub average: f64,
    /// What --png draws: the field after the last step, or its time-averaged intensity (mean f²
    /// over the last --average periods; colour range 0 to 0.01 unless --auto-contrast).
    #[arg(long, value_enum, default_value_t = WaveView::Field)]
    pub view: WaveView,
    /// --png's colour range from the picture itself: ±(99.5th percentile of |f|), or for the
    /// intensity 0 to its 99.5th percentile.
    #[arg(long)]
    pub auto_contrast: bool,
}

/// What `render wave --png` draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WaveView {
    /// The field f after the last step.
    Field,
    /// The time-averaged intensity, mean f².
    Intensity,
}
