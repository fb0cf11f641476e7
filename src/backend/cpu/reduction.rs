//! Sum reductions of `u32` values on the CPU (wrapping, so every order gives the same bits): the
//! twins of `kernels/reduction.cu` and `shaders/reduction.wgsl`. [`reduce_tree`] is the
//! reference; [`reduce_atomic`] adds every element to one shared counter, as the GPU's atomics
//! version does, to show what contention on one address costs.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::Threads;

/// The wrapping sum of `x`, by halves (rayon's reduction is a tree over the threads' partials).
#[must_use]
pub fn reduce_tree(threads: Threads, x: &[u32]) -> u32 {
    match threads {
        Threads::One => x.iter().fold(0u32, |a, &v| a.wrapping_add(v)),
        Threads::All => x.par_iter().with_min_len(1 << 14).copied().reduce(|| 0, u32::wrapping_add),
    }
}

/// The wrapping sum of `x`, every element added to one atomic counter.
#[must_use]
pub fn reduce_atomic(threads: Threads, x: &[u32]) -> u32 {
    let total = AtomicU32::new(0);
    let add = |&v: &u32| {
        total.fetch_add(v, Ordering::Relaxed);
    };
    match threads {
        Threads::One => x.iter().for_each(add),
        Threads::All => x.par_iter().with_min_len(1 << 14).for_each(add),
    }
    total.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_methods_wrap_the_same_way() {
        let x: Vec<u32> = (0..100_000u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let want = x.iter().fold(0u32, |a, &v| a.wrapping_add(v));
        for t in [Threads::One, Threads::All] {
            assert_eq!(reduce_tree(t, &x), want);
            assert_eq!(reduce_atomic(t, &x), want);
        }
    }
}
