//! SAXPY on the CPU, `y = a*x + y`: the twin of `kernels/saxpy.cu` and `shaders/saxpy.wgsl`, and
//! the reference the lesson checks them against (multiply and add rounded separately).

use rayon::prelude::*;

use super::Threads;

/// `y[i] = a*x[i] + y[i]` for every `i` (`x` and `y` of one length).
pub fn saxpy(threads: Threads, a: f32, x: &[f32], y: &mut [f32]) {
    let one = |(yi, &xi): (&mut f32, &f32)| *yi += a * xi;
    match threads {
        Threads::One => y.iter_mut().zip(x).for_each(one),
        Threads::All => y.par_iter_mut().zip(x).with_min_len(1 << 14).for_each(one),
    }
}
