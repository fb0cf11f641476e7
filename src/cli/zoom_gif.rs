//! `render mandelbrot --gif FILE`: a zoom movie for slides. From the whole set (zoom 1) to the
//! view asked for, about the view's centre, in `--gif-frames` pictures whose zoom grows
//! geometrically. Each picture is computed as `render` would compute it alone (the seed's rule
//! in `f64` while it resolves the pixels, perturbation beyond; the perturbation frames share
//! the view's one reference orbit, [`DeepJob::reframed`]), coloured with the colour flags,
//! and written as one frame of an animated GIF in the palette's own colours
//! ([`crate::output::write_lut_gif`]), whole or not at all.

use std::path::Path;

use super::{CliError, RenderMandelbrot, open_backend};
use crate::output;
use crate::progress::Progress;
use crate::sim::colour::palette::colour_rgba;
use crate::sim::fractal::deep::{Arith, DeepJob, View};
use crate::sim::fractal::mandelbrot::{MandelbrotParams, Precision};
use crate::sim::fractal::nav::auto_iters;

/// Hundredths of a second a frame is shown (12.5 frames per second).
const DELAY_CS: u16 = 8;

/// The zoom of frame `k` of `frames` (the first the whole set, the last `log10 = last`), as a
/// decimal string `View` parses: `m.mmmmmmeN`.
fn zoom_of_frame(k: u32, frames: u32, last: f64) -> String {
    let x = if frames <= 1 { last } else { last * f64::from(k) / f64::from(frames - 1) };
    let e = x.floor();
    format!("{:.9}e{}", 10f64.powf(x - e), e as i64)
}

/// Writes the zoom movie of `view` to `path`. `iters`: the iterations of every frame, or `None`
/// for the app's choice by depth (`100 + 150 log10(zoom)`).
///
/// # Errors
/// The backend failed, or the file could not be written (no file is left then).
pub fn render_zoom_gif(
    a: &RenderMandelbrot,
    view: &View,
    iters: Option<u32>,
    path: &Path,
    frames: u32,
) -> Result<(), CliError> {
    output::check_writable(path)?;
    let settings = a.colour.settings();
    settings.validate().map_err(CliError::usage)?;
    let last = view.zoom_log10();
    if last < 0.0 {
        return Err(CliError::usage(format!(
            "--gif zooms in from the whole set (zoom 1): zoom {} is wider than that",
            view.zoom
        )));
    }
    let (w, h) = (a.width, a.height);
    let mut b = open_backend(a.backend.backend)?;
    let progress = Progress::new(u64::from(frames), "zoom gif");
    let start = web_time::Instant::now();
    let center = format!("{},{}", view.re, view.im);
    let mut counts = vec![0i32; w * h];
    let mut smooth = settings.smooth.then(|| vec![0.0f32; w * h]);
    let mut rgba = vec![0u8; w * h * 4];
    let mut deep_frames = 0;
    let (mut orbit_job, mut orbits): (Option<DeepJob>, u32) = (None, 0);
    let written = output::write_lut_gif(path, w, h, DELAY_CS, &settings.picture_table(), |push| {
        for k in 0..frames {
            let v = View::parse(&center, &zoom_of_frame(k, frames, last)).map_err(anyhow::Error::msg)?;
            let n = iters.unwrap_or_else(|| auto_iters(v.zoom_log10()));
            match v.auto_arith(w, h, n) {
                Arith::Perturbation => {
                    deep_frames += 1;
                    // One reference orbit, the view's own, for every perturbation frame (they
                    // share its centre and are no deeper); a frame it cannot serve gets its own.
                    if orbit_job.is_none() {
                        let n_view = iters.unwrap_or_else(|| auto_iters(last)).max(n);
                        orbit_job = Some(DeepJob::prepare(view, w, h, n_view).map_err(anyhow::Error::msg)?);
                    }
                    let shared = match &orbit_job {
                        Some(j) => j.reframed(&v, n).map_err(anyhow::Error::msg)?,
                        None => None,
                    };
                    let job = match shared {
                        Some(job) => job,
                        None => {
                            orbits += 1;
                            DeepJob::prepare(&v, w, h, n).map_err(anyhow::Error::msg)?
                        }
                    };
                    match smooth.as_deref_mut() {
                        Some(s) => b.mandelbrot_deep_smooth(&job, &mut counts, s)?,
                        None => b.mandelbrot_deep(&job, &mut counts)?,
                    };
                }
                _ => {
                    let bounds = v.bounds_f64(w, h).map_err(anyhow::Error::msg)?;
                    let p = MandelbrotParams { width: w, height: h, iters: n, bounds, precision: Precision::F64 };
                    match smooth.as_deref_mut() {
                        Some(s) => b.mandelbrot_smooth(&p, &mut counts, s)?,
                        None => b.mandelbrot(&p, &mut counts)?,
                    };
                }
            }
            colour_rgba(&counts, smooth.as_deref(), w, h, n, &settings, &mut rgba);
            push(&rgba)?;
            progress.set(u64::from(k) + 1);
        }
        Ok(())
    })?;
    progress.finish();
    eprintln!(
        "{w}x{h}, {written} frames from zoom 1 to {} ({} by perturbation, on {} reference orbit(s)), {}: {:.2} s; wrote {}",
        view.zoom,
        deep_frames,
        orbits + u32::from(orbit_job.is_some()),
        b.kind().name(),
        start.elapsed().as_secs_f64(),
        path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_zooms_grow_geometrically_from_one_to_the_view() {
        assert_eq!(zoom_of_frame(0, 5, 8.0), "1.000000000e0");
        assert_eq!(zoom_of_frame(4, 5, 8.0), "1.000000000e8");
        assert_eq!(zoom_of_frame(2, 5, 8.0), "1.000000000e4");
        assert_eq!(zoom_of_frame(1, 3, 301.0), "3.162277660e150");
        assert_eq!(zoom_of_frame(0, 1, 3.0), "1.000000000e3");
    }
}
