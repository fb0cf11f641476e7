//! How the app starts: the view to open on and the `wavebrot gui` options. They live here,
//! below both the app and the command line (`src/cli.rs` parses them and calls [`crate::app::run`]),
//! so nothing in the app imports from the CLI.

use std::path::PathBuf;

use clap::Args;

use crate::backend::BackendChoice;
use crate::sim::wave::scene::{self, Scene, SceneError};

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
    /// Wave scene preset to start on (`wavebrot scenes` lists them) [default: the last one used].
    #[arg(long, value_name = "NAME", conflicts_with = "scene")]
    pub preset: Option<String>,
    /// Wave scene file (TOML) to start on.
    #[arg(long, value_name = "FILE")]
    pub scene: Option<PathBuf>,
    /// Mandelbrot location to start on: wavebrot's TOML (centre, zoom, iterations, colours), a
    /// Kalles Fraktaler .kfr, or a Fraktaler 3 / rust-fractal TOML;
    /// opens the Mandelbrot view unless --demo says otherwise.
    #[arg(long, value_name = "FILE")]
    pub location: Option<PathBuf>,
    /// Open a share link: a wavebrot page's address, or its part from `#v=1&` on (what "Copy link"
    /// gives): a wave preset, a whole scene, or a Mandelbrot location with its colours.
    #[arg(long, value_name = "URL", conflicts_with_all = ["preset", "scene", "location"])]
    pub link: Option<String>,
    /// Save a screenshot of the window to FILE (PNG) after --frames frames, then quit.
    #[arg(long, value_name = "FILE")]
    pub screenshot: Option<PathBuf>,
    /// Frames to run before the screenshot.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,
    /// GPU adapter that draws the window: auto (wgpu's choice), software (software Vulkan,
    /// llvmpipe), gl (wgpu's OpenGL backend) or part of an adapter's name. If the driver crashes
    /// while the window opens, wavebrot starts it again on software, then gl.
    #[arg(long, value_name = "NAME|auto|software|gl", env = "WAVEBROT_DISPLAY_ADAPTER")]
    pub display_adapter: Option<DisplayAdapter>,
}

impl GuiArgs {
    /// The scene `--preset` or `--scene` names, with the name to show for it (`None`: neither
    /// was given).
    ///
    /// # Errors
    /// An unknown preset, or a file that cannot be read or is not a valid scene.
    pub fn start_scene(&self) -> Result<Option<(Scene, String)>, SceneError> {
        match (&self.preset, &self.scene) {
            (Some(name), _) => Ok(Some((scene::preset(name)?, name.clone()))),
            (None, Some(path)) => Ok(Some((crate::files::load_scene(path)?, String::new()))),
            (None, None) => Ok(None),
        }
    }

    /// The location `--location` names (`None`: none was given).
    ///
    /// # Errors
    /// The file cannot be read or is not a location (the message names it).
    pub fn start_location(&self) -> Result<Option<crate::sim::fractal::deep::Location>, StartLocationError> {
        let Some(path) = &self.location else { return Ok(None) };
        crate::files::find_location(path)
            .map(|found| {
                if let Some(note) = found.note {
                    eprintln!("note: {note}");
                }
                Some(found.imported.location)
            })
            .map_err(|error| StartLocationError { path: path.display().to_string(), error })
    }
}

/// `gui --location FILE` that cannot be opened: `cannot read FILE: ...` or `FILE is not a
/// location: ...`.
#[derive(Debug, thiserror::Error)]
pub struct StartLocationError {
    pub path: String,
    pub error: crate::files::LocationFileError,
}

impl std::fmt::Display for StartLocationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.error {
            crate::files::LocationFileError::Read(e) => write!(f, "cannot read {}: {e}", self.path),
            e @ crate::files::LocationFileError::Unknown(_) => write!(f, "cannot read {}: {e}", self.path),
            crate::files::LocationFileError::Parse(e) => write!(f, "{} is not a location: {e}", self.path),
        }
    }
}

/// Which GPU adapter draws the window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DisplayAdapter {
    /// wgpu's choice (high-performance adapter, any backend).
    #[default]
    Auto,
    /// A software Vulkan adapter (Mesa's llvmpipe/lavapipe).
    Software,
    /// wgpu's OpenGL backend.
    Gl,
    /// The first adapter whose name contains this (any case).
    Named(String),
}

/// `--display-adapter ""`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the display adapter is empty: give auto, software, gl or part of a name")]
pub struct EmptyAdapter;

impl std::str::FromStr for DisplayAdapter {
    type Err = EmptyAdapter;

    fn from_str(s: &str) -> Result<Self, EmptyAdapter> {
        let s = s.trim();
        Ok(match s.to_ascii_lowercase().as_str() {
            "" => return Err(EmptyAdapter),
            "auto" => Self::Auto,
            "software" => Self::Software,
            "gl" => Self::Gl,
            _ => Self::Named(s.to_owned()),
        })
    }
}

impl std::fmt::Display for DisplayAdapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::Software => f.write_str("software"),
            Self::Gl => f.write_str("gl"),
            Self::Named(n) => f.write_str(n),
        }
    }
}
