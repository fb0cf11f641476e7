//! Julia sets on the CPU, the twin of `kernels/julia.cu` and `shaders/julia.wgsl`: rows of
//! [`crate::sim::fractal::julia::julia_row`] on one thread or spread over rayon's; the Mandelbrot
//! set with distance estimates (`julia_de_*` of the CUDA kernel, `shaders/julia_de.wgsl`): rows
//! of [`crate::sim::fractal::distance::distance_row`]; Julia sets with distance estimates: rows of
//! [`crate::sim::fractal::distance::julia_distance_row`].

use web_time::Instant;

use rayon::prelude::*;

use super::Threads;
use crate::backend::{BackendError, MandelbrotRun, Timing, check_de_len, check_image_len};
use crate::sim::fractal::distance::{DE_VALUES, distance_row, julia_distance_row};
use crate::sim::fractal::julia::{JuliaParams, julia_row};
use crate::sim::fractal::mandelbrot::MandelbrotParams;

/// Counts (and smooth values, when given) of `params`, and the iterations executed.
///
/// # Errors
/// Invalid parameters or buffers of the wrong length.
pub fn julia(
    threads: Threads,
    params: &JuliaParams,
    counts: &mut [i32],
    smooth: Option<&mut [f32]>,
) -> Result<MandelbrotRun, BackendError> {
    params.validate()?;
    check_image_len(counts, smooth.as_deref(), params.pixels())?;
    let start = Instant::now();
    let w = params.width;
    let total_iters = match (threads, smooth) {
        (Threads::One, None) => {
            counts.chunks_exact_mut(w).enumerate().map(|(y, r)| julia_row(params, y, r, None)).sum()
        }
        (Threads::All, None) => {
            counts.par_chunks_exact_mut(w).enumerate().map(|(y, r)| julia_row(params, y, r, None)).sum()
        }
        (Threads::One, Some(s)) => counts
            .chunks_exact_mut(w)
            .zip(s.chunks_exact_mut(w))
            .enumerate()
            .map(|(y, (r, s))| julia_row(params, y, r, Some(s)))
            .sum(),
        (Threads::All, Some(s)) => counts
            .par_chunks_exact_mut(w)
            .zip(s.par_chunks_exact_mut(w))
            .enumerate()
            .map(|(y, (r, s))| julia_row(params, y, r, Some(s)))
            .sum(),
    };
    Ok(MandelbrotRun { total_iters, executed_iters: None, timing: Timing::wall(start.elapsed()) })
}

/// Counts, smooth values and distance estimates ([`DE_VALUES`] a pixel) of the Mandelbrot view
/// `params`, and the iterations executed.
///
/// # Errors
/// Invalid parameters or buffers of the wrong length.
pub fn mandelbrot_distance(
    threads: Threads,
    params: &MandelbrotParams,
    counts: &mut [i32],
    smooth: &mut [f32],
    de: &mut [f32],
) -> Result<MandelbrotRun, BackendError> {
    params.validate()?;
    check_image_len(counts, Some(smooth), params.pixels())?;
    check_de_len(de, params.pixels())?;
    let start = Instant::now();
    let total_iters =
        distance_rows(threads, params.width, counts, smooth, de, &|y, r, s, d| distance_row(params, y, r, s, d));
    Ok(MandelbrotRun { total_iters, executed_iters: None, timing: Timing::wall(start.elapsed()) })
}

/// Counts, smooth values and distance estimates ([`DE_VALUES`] a pixel) of the Julia image
/// `params`, and the iterations executed.
///
/// # Errors
/// Invalid parameters or buffers of the wrong length.
pub fn julia_distance(
    threads: Threads,
    params: &JuliaParams,
    counts: &mut [i32],
    smooth: &mut [f32],
    de: &mut [f32],
) -> Result<MandelbrotRun, BackendError> {
    params.validate()?;
    check_image_len(counts, Some(smooth), params.pixels())?;
    check_de_len(de, params.pixels())?;
    let start = Instant::now();
    let total_iters =
        distance_rows(threads, params.width, counts, smooth, de, &|y, r, s, d| julia_distance_row(params, y, r, s, d));
    Ok(MandelbrotRun { total_iters, executed_iters: None, timing: Timing::wall(start.elapsed()) })
}

/// One row `y` of a distance picture into its counts, smooth values and distances: the
/// iterations executed.
type DistanceRow<'a> = dyn Fn(usize, &mut [i32], &mut [f32], &mut [f32]) -> u64 + Sync + 'a;

/// The rows of a distance picture (`width` pixels a row) by `row(y, counts, smooth, de)`, on one
/// thread or all of them: the iterations executed, summed.
fn distance_rows(
    threads: Threads,
    width: usize,
    counts: &mut [i32],
    smooth: &mut [f32],
    de: &mut [f32],
    row: &DistanceRow<'_>,
) -> u64 {
    let w = width;
    match threads {
        Threads::One => counts
            .chunks_exact_mut(w)
            .zip(smooth.chunks_exact_mut(w))
            .zip(de.chunks_exact_mut(w * DE_VALUES))
            .enumerate()
            .map(|(y, ((r, s), d))| row(y, r, s, d))
            .sum(),
        Threads::All => counts
            .par_chunks_exact_mut(w)
            .zip(smooth.par_chunks_exact_mut(w))
            .zip(de.par_chunks_exact_mut(w * DE_VALUES))
            .enumerate()
            .map(|(y, ((r, s), d))| row(y, r, s, d))
            .sum(),
    }
}
