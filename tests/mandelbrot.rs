//! The Mandelbrot kernel family on every backend against the CPU reference: CUDA
//! (`kernels/mandelbrot.cu`, `src/backend/cuda/mandelbrot.rs`), wgpu (`shaders/mandelbrot.wgsl`
//! with `mandelbrot_f32.wgsl` / `mandelbrot_f64.wgsl`, `src/backend/wgpu/mandelbrot.rs`), CPU
//! (`src/backend/cpu/mandelbrot.rs`). Budgets: DESIGN.md (f64 ≤ 0.01%, f32 ≤ 1% of pixels).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

mod common;

use wavebrot::backend::{Backend, BackendError};
use wavebrot::sim::mandelbrot::{self, Bounds, MandelbrotParams, Precision};

#[test]
fn wgpu_mandelbrot_counts_equal_the_cpu() {
    let Some(mut b) = common::wgpu_backend() else { return };
    let zoom = Bounds { minx: -0.7530, maxx: -0.7490, miny: 0.0990, maxy: 0.1020 };
    let cases =
        [(96, 64, 20, Bounds::SEED), (641, 479, 1000, Bounds::SEED), (301, 203, 2000, zoom), (1, 1, 5, Bounds::SEED)];
    for (width, height, iters, bounds) in cases {
        for precision in [Precision::F32, Precision::F64] {
            let p = MandelbrotParams { width, height, iters, bounds, precision };
            let mut counts = vec![-1; p.pixels()];
            let run = match b.mandelbrot(&p, &mut counts) {
                Ok(run) => run,
                Err(BackendError::Invalid(why)) if precision == Precision::F64 && !b.has_f64() => {
                    assert!(why.contains("no f64"), "{why}");
                    println!("f64 skipped: {why}");
                    continue;
                }
                Err(e) => panic!("{e}"),
            };
            let (want, _) = mandelbrot::reference(&p);
            let m = mandelbrot::mismatch_frac(&counts, &want);
            println!("mandelbrot {width}x{height} iters={iters} {}: mismatch {:.4}%", precision.name(), m * 100.0);
            assert!(m <= mandelbrot::mismatch_tolerance(precision), "{} pixels differ", m * 100.0);
            let own_total: u64 = counts.iter().map(|&c| mandelbrot::iterations_executed(c as u32, iters)).sum();
            assert_eq!(run.total_iters, own_total, "the GPU's iteration total");
        }
    }
}

#[test]
fn wgpu_mandelbrot_total_beyond_32_bits() {
    // 512x512 pixels inside the set at 20000 iterations: 5.2e9 iterations, past u32.
    let Some(mut b) = common::wgpu_backend() else { return };
    let inside = Bounds { minx: -0.2, maxx: 0.1, miny: -0.2, maxy: 0.2 };
    let p = MandelbrotParams { width: 512, height: 512, iters: 20_000, bounds: inside, precision: Precision::F32 };
    let mut counts = vec![0; p.pixels()];
    let run = b.mandelbrot(&p, &mut counts).unwrap();
    assert!(counts.iter().all(|&c| c == 20_000));
    assert_eq!(run.total_iters, 512 * 512 * 20_000);
}

/// Counts and smooth values along the segment `a`..`b` in `n` samples (f64, CPU rule).
fn along(a: (f64, f64), b: (f64, f64), n: usize, iters: u32) -> Vec<(u32, f32)> {
    (0..n)
        .map(|i| {
            let t = i as f64 / (n - 1) as f64;
            let (cr, ci) = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
            mandelbrot::escape_smooth_f64(0.0, 0.0, cr, ci, iters)
        })
        .collect()
}

/// The largest jump of the smooth value between neighbouring samples where the count changes,
/// and the largest anywhere else.
fn jumps(line: &[(u32, f32)]) -> (f32, f32, usize) {
    let (mut at_edges, mut elsewhere, mut edges) = (0.0f32, 0.0f32, 0);
    for w in line.windows(2) {
        let d = (w[1].1 - w[0].1).abs();
        if w[0].0 == w[1].0 {
            elsewhere = elsewhere.max(d);
        } else {
            edges += 1;
            at_edges = at_edges.max(d);
        }
    }
    (at_edges, elsewhere, edges)
}

#[test]
fn smooth_value_is_continuous_across_band_edges() {
    // Two gradient lines outside the set, each crossing several integer-count bands.
    for (a, b) in [((0.35, 0.0), (2.0, 0.0)), ((0.45, 0.25), (1.5, 1.2)), ((-0.75, 0.15), (-0.75, 1.5))] {
        let line = along(a, b, 20_000, 200);
        assert!(line.iter().all(|&(k, _)| k < 200), "the line {a:?}-{b:?} must stay outside the set");
        let (at_edges, elsewhere, edges) = jumps(&line);
        // The integer count jumps by a whole band at each edge; the smooth value by about as
        // much as between any two neighbours.
        println!("{a:?}-{b:?}: {edges} band edges, smooth jump at edges {at_edges:.5}, elsewhere {elsewhere:.5}");
        assert!(edges >= 4, "{a:?}-{b:?} crosses only {edges} band edges");
        assert!(
            at_edges <= 2.0 * elsewhere.max(1e-3) && at_edges < 0.05,
            "{a:?}-{b:?}: the smooth value jumps by {at_edges} at a band edge (elsewhere at most {elsewhere})"
        );
        // The counts stay the seed's rule, and ν lies near them.
        for (i, &(k, nu)) in line.iter().enumerate() {
            let t = i as f64 / (line.len() - 1) as f64;
            let (cr, ci) = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
            assert_eq!(k, mandelbrot::escape_count_f64(cr, ci, 200));
            assert!((nu - (k as f32 + 0.5)).abs() <= 1.0, "ν {nu} for count {k} at {cr}+{ci}i");
        }
    }
}

#[test]
fn smooth_value_taken_at_the_seed_bailout_would_show_bands() {
    // The check above can fail: ν taken at |z| = 2 (no extra iterations) jumps at band edges.
    let (a, b) = ((0.35, 0.0), (2.0, 0.0));
    let line: Vec<(u32, f32)> = (0..20_000)
        .map(|i| {
            let t = f64::from(i) / 19_999.0;
            let cr = a.0 + t * (b.0 - a.0);
            let (mut zr, mut zi) = (0.0f64, 0.0f64);
            for k in 0..200u32 {
                (zr, zi) = (zr * zr - zi * zi + cr, 2.0 * zr * zi);
                if zr * zr + zi * zi >= 4.0 {
                    return (k, mandelbrot::smooth_value(k + 1, zr * zr + zi * zi, 200));
                }
            }
            (200, 200.0)
        })
        .collect();
    let (at_edges, _, _) = jumps(&line);
    println!("bailout-2 smooth value: jump at edges {at_edges:.4}");
    assert!(at_edges > 0.05, "bailout 2 jumps by only {at_edges}");
}

#[test]
fn cpu_smooth_counts_are_the_counts() {
    let mut cpu = wavebrot::backend::cpu::CpuBackend::new(wavebrot::backend::cpu::Threads::All);
    for precision in [Precision::F32, Precision::F64] {
        let p = MandelbrotParams { width: 203, height: 101, iters: 300, bounds: Bounds::SEED, precision };
        let (want, want_total) = mandelbrot::reference(&p);
        let mut counts = vec![-1; p.pixels()];
        let mut smooth = vec![f32::NAN; p.pixels()];
        let run = cpu.mandelbrot_smooth(&p, &mut counts, &mut smooth).unwrap();
        assert_eq!(counts, want, "{}", precision.name());
        assert_eq!(run.total_iters, want_total);
        for (&k, &s) in counts.iter().zip(&smooth) {
            if k == 300 {
                assert_eq!(s, 300.0);
            } else {
                // Near the tip c = -2 the count is 0 (|c| >= 2) while ν, which follows the
                // distance to the set, is larger: no tighter bound holds everywhere.
                assert!((0.0..=300.0).contains(&s), "count {k}, smooth {s}");
            }
        }
    }
}
