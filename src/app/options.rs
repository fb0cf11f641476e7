//! How the app starts: the view to open on and the `wavebrot gui` options. They live here,
//! below both the app and the command line (`src/cli.rs` parses them and calls [`super::run`]),
//! so nothing in the app imports from the CLI.

use std::path::PathBuf;

use clap::Args;

use crate::backend::BackendChoice;

/// Which demo the app opens on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize, Default)]
pub enum Demo {
    #[default]
    Wave,
    Mandelbrot,
}

/// `wavebrot gui`: how the app starts.
#[derive(Debug, Args, Default, Clone)]
pub struct GuiArgs {
    /// Backend to start on.
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// View to start on.
    #[arg(long, value_enum)]
    pub demo: Option<Demo>,
    /// Save a screenshot of the window to FILE (PNG) after --frames frames, then quit.
    #[arg(long, value_name = "FILE")]
    pub screenshot: Option<PathBuf>,
    /// Frames to run before the screenshot.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,
}
