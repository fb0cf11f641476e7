//! What several subcommands take alike: the value parsers (grid and image sides, positive
//! numbers, bounds, element counts) and the argument groups flattened into them (one backend
//! or `auto`, a list of backends, the picture files of a fractal render and its colour flags
//! `--palette`, `--smooth`, `--scale`, `--colour-offset`, `--colour-cycle`, `--colour`, `--light`).

use std::path::PathBuf;

use clap::Args;

use crate::backend::{BackendChoice, BackendKind};
use crate::sim::colour::palette::{ColourBy, ColourSettings, CountRange, Light, Palette, Scale};
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

/// How `--png` colours the counts. The defaults are the seed's picture (`hot`, integer counts,
/// linear) over the picture's own range of counts, which for a view of the whole set (counts
/// from 0) is the seed's 0..iters, byte for byte; `--npy` always holds the integer counts.
#[derive(Debug, Clone, Args)]
pub struct ColourArgs {
    /// Palette of --png: hot (the seed's), viridis or magma (perceptually uniform), twilight
    /// (cyclic) [default: the --location's palette (a custom one of colour stops too), else hot].
    #[arg(long, value_enum, value_name = "NAME")]
    pub palette: Option<Palette>,
    /// The palette of the --location file (and its custom stops), used when --palette is not given.
    #[arg(skip)]
    pub location_palette: Option<Box<(Palette, Option<crate::sim::colour::stops::Stops>)>>,
    /// Colour --png by the continuous escape value, so the bands between counts disappear
    /// (the --npy counts stay the integer counts).
    #[arg(long)]
    pub smooth: bool,
    /// How the values 0..iters spread over the palette: linear (the seed's), log, or histogram
    /// (each colour covers about as many escaped pixels).
    #[arg(long, value_enum, default_value_t = Scale::Linear)]
    pub scale: Scale,
    /// The values spread over the palette: auto (the picture's own escaped counts, min..max, so
    /// a deep view uses the whole palette; a view of the whole set, where points escape at once,
    /// keeps the seed's colours) or full (0..iters, the seed's).
    #[arg(long, value_enum, value_name = "RANGE", default_value_t = CountRange::Auto)]
    pub colour_range: CountRange,
    /// Shift along the palette, as a fraction of it in [0, 1); the colours wrap around.
    #[arg(long, value_name = "F", default_value_t = 0.0, value_parser = colour_offset)]
    pub colour_offset: f32,
    /// The palette repeats N times over the value range (N >= 1; fractions allowed).
    #[arg(long, value_name = "N", default_value_t = 1.0, value_parser = colour_cycle)]
    pub colour_cycle: f32,
    /// The colour of the points inside the set, apart from the palette: RRGGBB in hex (e.g.
    /// 000000 for black); default the palette's last entry (hot: white, the seed's).
    #[arg(long, value_name = "RRGGBB", value_parser = interior_colour)]
    pub interior_colour: Option<[u8; 3]>,
    /// What the palette shows outside the set: escape (the count, or the smooth value with
    /// --smooth) or distance (the exterior distance estimate |z| ln|z| / |dz/dc| in pixels: the
    /// boundary takes the palette's last entry, fading over 64 pixels, crisp at every zoom; f32,
    /// f64 and perturbation views).
    #[arg(long = "colour", value_enum, value_name = "BY", default_value_t = ColourBy::Escape)]
    pub colour_by: ColourBy,
    /// Slope lighting: shade the outside of the set as a surface rising away from it (its
    /// normal from the distance estimate), lit from AZIMUTH degrees (anticlockwise from the
    /// real axis: 0 from the right, 90 from the top) and ELEVATION degrees above the picture
    /// (0 to 90), e.g. --light 135,45.
    #[arg(long, value_name = "AZIMUTH,ELEVATION", allow_hyphen_values = true, value_parser = light)]
    pub light: Option<Light>,
}

impl ColourArgs {
    /// The settings these flags ask for.
    #[must_use]
    pub fn settings(&self) -> ColourSettings {
        let (palette, stops) = match (self.palette, self.location_palette.as_deref()) {
            (Some(p), _) => (p, None),
            (None, Some(&(p, stops))) => (p, stops),
            (None, None) => (Palette::Hot, None),
        };
        ColourSettings {
            palette,
            stops,
            smooth: self.smooth,
            scale: self.scale,
            range: self.colour_range,
            offset: self.colour_offset,
            cycles: self.colour_cycle,
            interior: self.interior_colour,
            by: self.colour_by,
            light: self.light,
        }
    }
}

/// `RRGGBB` (an optional leading `#`) as RGB bytes.
fn interior_colour(s: &str) -> Result<[u8; 3], String> {
    let hex = s.strip_prefix('#').unwrap_or(s);
    let bad = || format!("'{s}' is not a colour: give RRGGBB in hex, e.g. 000000 for black");
    if hex.len() != 6 || !hex.is_ascii() {
        return Err(bad());
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
    Ok([byte(0)?, byte(2)?, byte(4)?])
}

/// `AZIMUTH,ELEVATION` in degrees.
fn light(s: &str) -> Result<Light, String> {
    let bad = || format!("'{s}' is not a light: give AZIMUTH,ELEVATION in degrees, e.g. 135,45");
    let (a, e) = s.split_once(',').ok_or_else(bad)?;
    let azimuth: f32 = a.trim().parse().map_err(|_| bad())?;
    let elevation: f32 = e.trim().parse().map_err(|_| bad())?;
    let l = Light { azimuth, elevation };
    l.validate().map(|()| l).map_err(String::from)
}

fn colour_offset(s: &str) -> Result<f32, String> {
    let v: f32 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    let c = ColourSettings { offset: v, ..ColourSettings::SEED };
    c.validate().map(|()| v).map_err(String::from)
}

fn colour_cycle(s: &str) -> Result<f32, String> {
    let v: f32 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    let c = ColourSettings { cycles: v, ..ColourSettings::SEED };
    c.validate().map(|()| v).map_err(String::from)
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
    s.parse().map_err(|e: crate::sim::ParamsError| e.to_string())
}
