//! What several subcommands take alike: the value parsers (grid and image sides, positive
//! numbers, bounds, element counts) and the argument groups flattened into them (one backend
//! or `auto`, a list of backends, the picture files of a fractal render).

use std::path::PathBuf;

use clap::Args;

use crate::backend::{BackendChoice, BackendKind};
use crate::sim::fractal::mandelbrot::Bounds;

/// `--backend KIND|auto`: the one backend a render runs on.
#[derive(Debug, Clone, Copy, Args)]
pub struct BackendArg {
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
}

/// `--backend KIND`, repeatable: the backends a bench, check or lesson runs on.
#[derive(Debug, Clone, Args)]
pub struct BackendsArg {
    /// Backends to use (repeatable); default every available one.
    #[arg(long, value_enum)]
    pub backend: Vec<BackendKind>,
}

/// `--png` and `--npy` of a fractal render (`render mandelbrot`, `render julia`).
#[derive(Debug, Clone, Args)]
pub struct PictureFiles {
    /// Write the picture as PNG, imaginary axis up: the counts through `hot` (0..iters) by
    /// default, else as the colour flags below say.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Write the counts as .npy (<i4, shape (height, width), row 0 at miny).
    #[arg(long, value_name = "FILE")]
    pub npy: Option<PathBuf>,
}

/// A lesson's array length: 1 to 2^28.
pub fn elements(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("'{s}' is not a whole number of elements"))?;
    if n == 0 || n > 1 << 28 {
        return Err(format!("{n} elements: give 1 to {}", 1 << 28));
    }
    Ok(n)
}

/// A grid side: an integer of at least 3.
pub fn grid_side(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("'{s}' is not a whole number of cells"))?;
    if n < 3 {
        return Err(format!("{n} is too small: a grid needs at least 3 cells a side"));
    }
    Ok(n)
}

/// An image side: an integer of at least 1.
pub fn image_side(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("'{s}' is not a whole number of pixels"))?;
    if n == 0 {
        return Err("an image needs at least 1 pixel a side".to_owned());
    }
    Ok(n)
}

/// A finite number above zero.
pub fn positive_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("{s} must be a finite number > 0"));
    }
    Ok(v)
}

/// `MINX,MAXX,MINY,MAXY`.
pub fn parse_bounds(s: &str) -> Result<Bounds, String> {
    s.parse()
}
