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

/// The work of each frame, for the progress bar's time left: its pixels times its iterations
/// (the most a pixel runs). Frames deeper in need more iterations, so the time left is the work
/// left at the rate measured (seen before: counted in frames, the ETA said 3 s with 33 s left).
fn frame_work(frames: u32, last: f64, iters: Option<u32>, pixels: usize) -> Vec<u64> {
    (0..frames)
        .map(|k| {
            let x = if frames <= 1 { last } else { last * f64::from(k) / f64::from(frames - 1) };
            pixels as u64 * u64::from(iters.unwrap_or_else(|| auto_iters(x)).max(1))
        })
        .collect()
}

/// The time the frames of work `left` will take at the rate the last frame ran (`work` in
/// `took`): the most recent measure, so a switch to perturbation (slower per iteration on the
/// CPU) shows after its first frame, where an average over all frames lags.
fn time_left(left: &[u64], work: u64, took: std::time::Duration) -> std::time::Duration {
    let per_unit = took.as_secs_f64() / work.max(1) as f64;
    std::time::Duration::from_secs_f64(per_unit * left.iter().sum::<u64>() as f64)
}

/// The time left of a zoom movie: the direct frames and the perturbation frames each at their
/// kind's last measured rate (perturbation costs more per iteration on the CPU, and its first
/// frame computes the reference orbit); perturbation frames not yet timed are said as such.
struct Eta<'a> {
    work: &'a [u64],
    /// Which frames go by perturbation.
    deep: Vec<bool>,
    /// The last (work, time) of a direct and of a perturbation frame.
    last_rate: [Option<(u64, std::time::Duration)>; 2],
}

impl<'a> Eta<'a> {
    fn new(work: &'a [u64], center: &str, frames: u32, last: f64, iters: Option<u32>, (w, h): (usize, usize)) -> Self {
        let deep = (0..frames)
            .map(|k| {
                View::parse(center, &zoom_of_frame(k, frames, last)).is_ok_and(|v| {
                    let n = iters.unwrap_or_else(|| auto_iters(v.zoom_log10()));
                    matches!(v.auto_arith(w, h, n), Arith::Perturbation)
                })
            })
            .collect();
        Self { work, deep, last_rate: [None, None] }
    }

    /// After frame `k` (by perturbation: `deep`) took `took`: the time left in words.
    fn after(&mut self, k: usize, deep: bool, took: std::time::Duration) -> String {
        self.last_rate[usize::from(deep)] = Some((self.work[k], took));
        let mut left = std::time::Duration::ZERO;
        let mut untimed = 0;
        for kind in [false, true] {
            let todo: Vec<u64> =
                (k + 1..self.work.len()).filter(|&j| self.deep[j] == kind).map(|j| self.work[j]).collect();
            match self.last_rate[usize::from(kind)] {
                Some((done, t)) => left += time_left(&todo, done, t),
                None => untimed += todo.len(),
            }
        }
        let then = if untimed > 0 { format!(", then {untimed} by perturbation, not timed yet") } else { String::new() };
        format!("about {:.0} s left{then}", left.as_secs_f64().ceil())
    }
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
    let work = frame_work(frames, last, iters, w * h);
    let progress = Progress::weighted(work.iter().sum(), "zoom gif");
    let mut done = 0u64;
    let start = web_time::Instant::now();
    let center = format!("{},{}", view.re, view.im);
    let mut counts = vec![0i32; w * h];
    let mut smooth = settings.smooth.then(|| vec![0.0f32; w * h]);
    let mut rgba = vec![0u8; w * h * 4];
    let mut deep_frames = 0;
    let (mut orbit_job, mut orbits): (Option<DeepJob>, u32) = (None, 0);
    let written = output::write_lut_gif(path, w, h, DELAY_CS, &settings.picture_table(), |push| {
        let mut frame_began = web_time::Instant::now();
        let mut eta = Eta::new(&work, &center, frames, last, iters, (w, h));
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
            done += work[k as usize];
            progress.set(done);
            let deep_now = matches!(v.auto_arith(w, h, n), Arith::Perturbation);
            let left = eta.after(k as usize, deep_now, frame_began.elapsed());
            progress.set_message(format!("frame {}/{frames}: {left}", k + 1));
            frame_began = web_time::Instant::now();
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
    fn deeper_frames_weigh_more_in_the_time_left() {
        // To 1e300 in 31 frames at the app's iterations (100 + 150 log10(zoom): 100 at zoom 1,
        // 45 100 at 1e300), the last frame's work is 451 times the first's, so half the frames
        // done is about a quarter of the work: counted in frames, the time left was a third of
        // the truth (seen: "eta 3 s" with 33 s left).
        let w = frame_work(31, 300.0, None, 1000);
        assert_eq!((w[0], w[30]), (100_000, 1000 * u64::from(auto_iters(300.0))));
        let half: u64 = w[..16].iter().sum();
        let all: u64 = w.iter().sum();
        assert!((half as f64 / all as f64) < 0.3, "{half} of {all}");
        // Fixed iterations: every frame alike.
        assert!(frame_work(5, 20.0, Some(500), 10).iter().all(|&x| x == 5000));
        // Two frames of twice the last one's work left, which took 0.5 s: 2 s.
        assert_eq!(time_left(&[200, 200], 100, std::time::Duration::from_millis(500)).as_millis(), 2000);
    }

    #[test]
    fn frame_zooms_grow_geometrically_from_one_to_the_view() {
        assert_eq!(zoom_of_frame(0, 5, 8.0), "1.000000000e0");
        assert_eq!(zoom_of_frame(4, 5, 8.0), "1.000000000e8");
        assert_eq!(zoom_of_frame(2, 5, 8.0), "1.000000000e4");
        assert_eq!(zoom_of_frame(1, 3, 301.0), "3.162277660e150");
        assert_eq!(zoom_of_frame(0, 1, 3.0), "1.000000000e3");
    }
}
