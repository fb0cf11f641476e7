//! `render julia`: the Julia set of `z^2 + c` for a fixed `c`, rendered as `render mandelbrot`
//! renders a picture ([`super::picture`]).

use clap::Args;

use super::CliError;
use super::args::{BackendArg, ColourArgs, PictureFiles, image_side, parse_bounds, positive_f64};
use super::picture::{PictureJob, render_picture};
use crate::sim::fractal::julia::JuliaParams;
use crate::sim::fractal::mandelbrot::{Bounds, Precision};

/// Parses `RE,IM` into two finite numbers.
fn complex(s: &str) -> Result<[f64; 2], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [re, im] = parts[..] else {
        return Err(format!("'{s}' has {} values; expected 2: RE,IM", parts.len()));
    };
    let num = |p: &str| -> Result<f64, String> {
        let v: f64 = p.parse().map_err(|_| format!("'{p}' in '{s}' is not a number"))?;
        if v.is_finite() { Ok(v) } else { Err(format!("'{p}' in '{s}' is not a finite number")) }
    };
    Ok([num(re)?, num(im)?])
}

#[derive(Debug, Args)]
pub struct RenderJulia {
    /// The fixed c of z^2 + c: RE,IM (such as -0.8,0.156).
    #[arg(long, value_name = "RE,IM", allow_hyphen_values = true, value_parser = complex)]
    pub c: [f64; 2],
    #[arg(long, default_value_t = 1536, value_parser = image_side)]
    pub width: usize,
    #[arg(long, default_value_t = 1024, value_parser = image_side)]
    pub height: usize,
    /// Maximum iterations per pixel.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=i64::from(i32::MAX)))]
    pub iters: u32,
    /// The region of starting points shown: MINX,MAXX,MINY,MAXY.
    #[arg(long, default_value = "-1.8,1.8,-1.2,1.2", allow_hyphen_values = true, value_parser = parse_bounds)]
    pub bounds: Bounds,
    /// The view's centre RE,IM (with --zoom; f64: Julia views are shallow, to about 1e13).
    #[arg(long, value_name = "RE,IM", allow_hyphen_values = true, conflicts_with = "bounds", requires = "zoom", value_parser = complex)]
    pub center: Option<[f64; 2]>,
    /// The zoom: the view is RE ± (1/Z)*width/height, IM ± 1/Z.
    #[arg(long, value_name = "Z", conflicts_with = "bounds", requires = "center", value_parser = positive_f64)]
    pub zoom: Option<f64>,
    #[arg(long, value_enum, default_value_t = Precision::F64)]
    pub precision: Precision,
    #[command(flatten)]
    pub backend: BackendArg,
    #[command(flatten)]
    pub files: PictureFiles,
    #[command(flatten)]
    pub colour: ColourArgs,
}

/// `wavebrot render julia`.
///
/// # Errors
/// Parameters that cannot run (usage), or a failed run.
pub fn render_julia(a: &RenderJulia) -> Result<(), CliError> {
    let bounds = match (a.center, a.zoom) {
        (Some([re, im]), Some(zoom)) => {
            let (half_w, half_h) = (a.width as f64 / a.height as f64 / zoom, 1.0 / zoom);
            Bounds { minx: re - half_w, maxx: re + half_w, miny: im - half_h, maxy: im + half_h }
        }
        _ => a.bounds,
    };
    let params =
        JuliaParams { width: a.width, height: a.height, iters: a.iters, bounds, precision: a.precision, c: a.c };
    params.validate().map_err(CliError::usage)?;
    let job = PictureJob {
        files: &a.files,
        backend: a.backend.backend,
        colour: &a.colour,
        width: a.width,
        height: a.height,
        iters: a.iters,
        host_bytes_per_pixel: 12,
        label: "julia",
        distance: true,
    };
    render_picture(
        &job,
        |b, counts, extras| match (extras.smooth, extras.de) {
            (Some(smooth), Some(de)) => Ok(b.julia_distance(&params, counts, smooth, de)?),
            (smooth, _) => Ok(b.julia(&params, counts, smooth)?),
        },
        |b, run, _| {
            let secs = run.timing.wall.as_secs_f64();
            eprintln!(
                "julia c={}{:+}i {}x{}, iters={}, {}: {:.3} ms, {:.2} Giter/s ({})",
                a.c[0],
                a.c[1],
                a.width,
                a.height,
                a.iters,
                a.precision.name(),
                secs * 1e3,
                run.total_iters as f64 / secs / 1e9,
                b.kind()
            );
            if params.precision_exhausted() {
                eprintln!(
                    "note: the pixels are smaller than {} can resolve here: neighbouring pixels start at the same point",
                    a.precision.name()
                );
            }
        },
    )
}
