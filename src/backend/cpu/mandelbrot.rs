//! Mandelbrot escape counts on the CPU, the twin of `kernels/mandelbrot.cu` and
//! `shaders/mandelbrot.wgsl`: rows of [`crate::sim::fractal::mandelbrot::mandelbrot_row`], on one
//! thread or spread over rayon's.

use web_time::Instant;

use rayon::prelude::*;

use super::Threads;
use crate::backend::{MandelbrotRun, Timing};
use crate::sim::fractal::mandelbrot::{MandelbrotParams, mandelbrot_row, mandelbrot_row_smooth};

/// Counts of `params` into `counts` (`width*height`, already checked), and the iterations
/// executed.
pub fn mandelbrot(threads: Threads, params: &MandelbrotParams, counts: &mut [i32]) -> MandelbrotRun {
    let start = Instant::now();
    let total_iters = match threads {
        Threads::One => {
            counts.chunks_exact_mut(params.width).enumerate().map(|(y, row)| mandelbrot_row(params, y, row)).sum()
        }
        Threads::All => {
            counts.par_chunks_exact_mut(params.width).enumerate().map(|(y, row)| mandelbrot_row(params, y, row)).sum()
        }
    };
    MandelbrotRun { total_iters, executed_iters: None, timing: Timing::wall(start.elapsed()) }
}

/// Counts and smooth values of `params` (both `width*height`, already checked): rows of
/// [`mandelbrot_row_smooth`], whose counts are exactly [`mandelbrot_row`]'s.
pub fn mandelbrot_smooth(
    threads: Threads,
    params: &MandelbrotParams,
    counts: &mut [i32],
    smooth: &mut [f32],
) -> MandelbrotRun {
    let start = Instant::now();
    let w = params.width;
    let row = |(y, (c, s)): (usize, (&mut [i32], &mut [f32]))| mandelbrot_row_smooth(params, y, c, s);
    let total_iters = match threads {
        Threads::One => counts.chunks_exact_mut(w).zip(smooth.chunks_exact_mut(w)).enumerate().map(row).sum(),
        Threads::All => counts.par_chunks_exact_mut(w).zip(smooth.par_chunks_exact_mut(w)).enumerate().map(row).sum(),
    };
    MandelbrotRun { total_iters, executed_iters: None, timing: Timing::wall(start.elapsed()) }
}
