//! The field through matplotlib's `hot` on the CPU: the twin of `kernels/colormap.cu` and
//! `shaders/colormap.wgsl`, row by row with [`crate::sim::colour::colormap::wave_rgba_row`] (the rule,
//! which the PNG writer uses too): one thread for `cpu1`, all cores for `cpu`.

use rayon::prelude::*;

use super::Threads;
use crate::sim::colour::colormap::{strided_size, wave_rgba_row, wave_rgba_strided_row};

/// `rgba = hot(f)` (`nx*ny*4` bytes) in the seed's orientation: picture row `ny-1-j`, column `i`.
pub fn wave_rgba(threads: Threads, f: &[f32], nx: usize, ny: usize, vmin: f32, vmax: f32, rgba: &mut [u8]) {
    match threads {
        Threads::One => {
            rgba.chunks_exact_mut(nx * 4).enumerate().for_each(|(row, out)| wave_rgba_row(f, ny, vmin, vmax, row, out));
        }
        Threads::All => rgba
            .par_chunks_exact_mut(nx * 4)
            .enumerate()
            .for_each(|(row, out)| wave_rgba_row(f, ny, vmin, vmax, row, out)),
    }
}

/// [`wave_rgba`] taken every `stride`-th pixel (`w*h*4` bytes, [`strided_size`]): only the cells
/// shown are coloured; equal to [`crate::sim::colour::colormap::subsample`] of the full picture.
#[expect(clippy::too_many_arguments, reason = "the kernels' argument list, in their order")]
pub fn wave_rgba_strided(
    threads: Threads,
    f: &[f32],
    nx: usize,
    ny: usize,
    vmin: f32,
    vmax: f32,
    stride: usize,
    rgba: &mut [u8],
) {
    let (w, _) = strided_size(nx, ny, stride);
    let row = |(row, out): (usize, &mut [u8])| wave_rgba_strided_row(f, ny, vmin, vmax, stride, row, out);
    match threads {
        Threads::One => rgba.chunks_exact_mut(w * 4).enumerate().for_each(row),
        Threads::All => rgba.par_chunks_exact_mut(w * 4).enumerate().for_each(row),
    }
}
