//! Deep-zoom Mandelbrot counts on the CPU by perturbation: the twin of
//! `kernels/mandelbrot_deep.cu` (`f64` deltas) and `shaders/mandelbrot_deep.wgsl` (`f32` or
//! `f64` deltas), rows of [`crate::sim::fractal::deep::perturb_row`] on one thread or rayon's;
//! with distance estimates, rows of [`crate::sim::fractal::deep_distance::perturb_row_distance`].

use web_time::Instant;

use rayon::prelude::*;

use super::Threads;
use crate::backend::{BackendError, MandelbrotRun, Timing};
use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::deep::{perturb_row, perturb_row_smooth};
use crate::sim::fractal::deep_distance::perturb_row_distance;
use crate::sim::fractal::distance::DE_VALUES;
use crate::sim::fractal::perturb::{Deltas, Iterations, Mantissa, Real};

/// Counts of `job` into `counts` with deltas in `mantissa` (`F64` for the CPU backend; `F32`
/// is the twin of the wgpu kernel on adapters without `f64`).
///
/// # Errors
/// `counts` of the wrong length.
pub fn mandelbrot_deep(
    threads: Threads,
    job: &DeepJob,
    mantissa: Mantissa,
    counts: &mut [i32],
) -> Result<MandelbrotRun, BackendError> {
    if counts.len() != job.pixels() {
        return Err(BackendError::Invalid(format!("counts hold {} values, image has {}", counts.len(), job.pixels())));
    }
    let start = Instant::now();
    let it = match mantissa {
        Mantissa::F64 => rows(threads, job, &job.deltas_f64(), counts),
        Mantissa::F32 => rows(threads, job, &job.deltas_f32(), counts),
    };
    Ok(run(it, start))
}

/// The run of `it` started at `start`.
fn run(it: Iterations, start: Instant) -> MandelbrotRun {
    MandelbrotRun { total_iters: it.rule, executed_iters: Some(it.executed), timing: Timing::wall(start.elapsed()) }
}

fn rows<T: Real + Sync>(threads: Threads, job: &DeepJob, d: &Deltas<'_, T>, counts: &mut [i32]) -> Iterations {
    match threads {
        Threads::One => {
            counts.chunks_exact_mut(job.width).enumerate().map(|(y, row)| perturb_row(job, d, y, row)).sum()
        }
        Threads::All => {
            counts.par_chunks_exact_mut(job.width).enumerate().map(|(y, row)| perturb_row(job, d, y, row)).sum()
        }
    }
}

/// [`mandelbrot_deep`] with the smooth values into `smooth` (`None`: counts only).
///
/// # Errors
/// `counts` or `smooth` of the wrong length.
pub fn mandelbrot_deep_smooth(
    threads: Threads,
    job: &DeepJob,
    mantissa: Mantissa,
    counts: &mut [i32],
    smooth: Option<&mut [f32]>,
) -> Result<MandelbrotRun, BackendError> {
    let Some(smooth) = smooth else { return mandelbrot_deep(threads, job, mantissa, counts) };
    crate::backend::check_image_len(counts, Some(smooth), job.pixels())?;
    let start = Instant::now();
    let it = match mantissa {
        Mantissa::F64 => rows_smooth(threads, job, &job.deltas_f64(), counts, smooth),
        Mantissa::F32 => rows_smooth(threads, job, &job.deltas_f32(), counts, smooth),
    };
    Ok(run(it, start))
}

fn rows_smooth<T: Real + Sync>(
    threads: Threads,
    job: &DeepJob,
    d: &Deltas<'_, T>,
    counts: &mut [i32],
    smooth: &mut [f32],
) -> Iterations {
    let w = job.width;
    let row = |(y, (c, s)): (usize, (&mut [i32], &mut [f32]))| perturb_row_smooth(job, d, y, c, s);
    match threads {
        Threads::One => counts.chunks_exact_mut(w).zip(smooth.chunks_exact_mut(w)).enumerate().map(row).sum(),
        Threads::All => counts.par_chunks_exact_mut(w).zip(smooth.par_chunks_exact_mut(w)).enumerate().map(row).sum(),
    }
}

/// [`mandelbrot_deep_smooth`] with the distance estimates and normals into `de`
/// ([`DE_VALUES`] a pixel; the counts and smooth values unchanged).
///
/// # Errors
/// `counts`, `smooth` or `de` of the wrong length.
pub fn mandelbrot_deep_distance(
    threads: Threads,
    job: &DeepJob,
    mantissa: Mantissa,
    counts: &mut [i32],
    smooth: &mut [f32],
    de: &mut [f32],
) -> Result<MandelbrotRun, BackendError> {
    crate::backend::check_image_len(counts, Some(smooth), job.pixels())?;
    crate::backend::check_de_len(de, job.pixels())?;
    let start = Instant::now();
    let it = match mantissa {
        Mantissa::F64 => rows_distance(threads, job, &job.deltas_f64(), counts, smooth, de),
        Mantissa::F32 => rows_distance(threads, job, &job.deltas_f32(), counts, smooth, de),
    };
    Ok(run(it, start))
}

/// A row of counts, smooth values and distances, numbered.
type DistanceRow<'a> = (usize, ((&'a mut [i32], &'a mut [f32]), &'a mut [f32]));

fn rows_distance<T: Real + Sync>(
    threads: Threads,
    job: &DeepJob,
    d: &Deltas<'_, T>,
    counts: &mut [i32],
    smooth: &mut [f32],
    de: &mut [f32],
) -> Iterations {
    let w = job.width;
    let row = |(y, ((c, s), e)): DistanceRow<'_>| perturb_row_distance(job, d, y, c, s, e);
    match threads {
        Threads::One => counts
            .chunks_exact_mut(w)
            .zip(smooth.chunks_exact_mut(w))
            .zip(de.chunks_exact_mut(w * DE_VALUES))
            .enumerate()
            .map(row)
            .sum(),
        Threads::All => counts
            .par_chunks_exact_mut(w)
            .zip(smooth.par_chunks_exact_mut(w))
            .zip(de.par_chunks_exact_mut(w * DE_VALUES))
            .enumerate()
            .map(row)
            .sum(),
    }
}
