//! The Mandelbrot kernel family on every backend against the CPU reference: CUDA
//! (`kernels/mandelbrot.cu`, `src/backend/cuda/mandelbrot.rs`), wgpu (`shaders/mandelbrot.wgsl`
//! with `mandelbrot_f32.wgsl` / `mandelbrot_f64.wgsl`, `src/backend/wgpu/mandelbrot.rs`), CPU
//! (`src/backend/cpu/mandelbrot.rs`). Budget: the measured 0 (`common::GPU_COUNT_BUDGET`), far
//! inside DESIGN.md's contract for unknown GPUs (f64 ≤ 0.01%, f32 ≤ 1% of pixels).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;

use wavebrot::backend::{Backend, BackendError};
use wavebrot::sim::fractal::mandelbrot::{self, Bounds, MandelbrotParams, Precision};

#[test]
fn wgpu_mandelbrot_counts_equal_the_cpu() {
    let Some(mut b) = common::wgpu_backend() else { return };
    let has_f64 = common::has_f64_or_skip(&b);
    let zoom = Bounds { minx: -0.7530, maxx: -0.7490, miny: 0.0990, maxy: 0.1020 };
    let cases =
        [(96, 64, 20, Bounds::SEED), (641, 479, 1000, Bounds::SEED), (301, 203, 2000, zoom), (1, 1, 5, Bounds::SEED)];
    for (width, height, iters, bounds) in cases {
        for precision in [Precision::F32, Precision::F64] {
            let p = MandelbrotParams { width, height, iters, bounds, precision };
            let mut counts = vec![-1; p.pixels()];
            let run = match b.mandelbrot(&p, &mut counts) {
                Ok(run) => run,
                Err(BackendError::Invalid(why)) if precision == Precision::F64 && !has_f64 => {
                    // Logged by has_f64_or_skip above; the refusal must say why.
                    assert!(why.contains("no f64"), "{why}");
                    continue;
                }
                Err(e) => panic!("{e}"),
            };
            let (want, _) = mandelbrot::reference(&p);
            let m = mandelbrot::mismatch_frac(&counts, &want);
            println!("mandelbrot {width}x{height} iters={iters} {}: mismatch {:.4}%", precision.name(), m * 100.0);
            assert!(
                m <= common::GPU_COUNT_BUDGET,
                "{}% of pixels differ (measured 0: common::GPU_COUNT_BUDGET)",
                m * 100.0
            );
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

/// Views that hug the edges of the interior shortcut's shapes (odd sizes: the last count of each
/// row of u16 pairs has no right neighbour): the cusp of the main cardioid at 0.25, the
/// cardioid and the period-2 bulb where they meet near -0.75 + 0.1i, the bulb's far edge at -1.25
/// and the whole set.
fn boundary_views() -> Vec<(usize, usize, u32, Bounds)> {
    vec![
        (333, 211, 3000, Bounds { minx: 0.2490, maxx: 0.2515, miny: -0.0008, maxy: 0.0008 }),
        (333, 211, 3000, Bounds { minx: -0.80, maxx: -0.70, miny: 0.0, maxy: 0.15 }),
        (211, 333, 3000, Bounds { minx: -1.2600, maxx: -1.2480, miny: -0.0060, maxy: 0.0060 }),
        (331, 221, 1000, Bounds::SEED),
    ]
}

/// The interior shortcut (`surely_inside` in shaders/mandelbrot_f32.wgsl / _f64.wgsl) and the
/// chunked escape checks (shaders/parts/orbit.wgsl) change no count: on views that hug the
/// boundaries, with escaping and non-escaping pixels side by side, every count is the CPU's,
/// through both kernels that count the Mandelbrot set (`mandelbrot` and the Julia kernel's
/// Mandelbrot mode behind `mandelbrot_smooth`).
#[test]
fn wgpu_interior_shortcut_and_chunks_keep_every_count_on_the_boundaries() {
    let Some(mut b) = common::wgpu_backend() else { return };
    let has_f64 = common::has_f64_or_skip(&b);
    for (width, height, iters, bounds) in boundary_views() {
        for precision in [Precision::F32, Precision::F64] {
            if precision == Precision::F64 && !has_f64 {
                continue;
            }
            let p = MandelbrotParams { width, height, iters, bounds, precision };
            let (want, want_total) = mandelbrot::reference(&p);
            let inside = want.iter().filter(|&&c| c == iters as i32).count();
            assert!(inside > 0 && inside < want.len(), "the view must hold both kinds of pixel");
            let mut counts = vec![-1; p.pixels()];
            let run = b.mandelbrot(&p, &mut counts).unwrap();
            let mut smooth_counts = vec![-1; p.pixels()];
            let mut smooth = vec![f32::NAN; p.pixels()];
            let smooth_run = b.mandelbrot_smooth(&p, &mut smooth_counts, &mut smooth).unwrap();
            println!(
                "{width}x{height} iters={iters} {:?} {}: {inside} pixels inside, mismatch {:.4}% / {:.4}% (smooth)",
                bounds,
                precision.name(),
                mandelbrot::mismatch_frac(&counts, &want) * 100.0,
                mandelbrot::mismatch_frac(&smooth_counts, &want) * 100.0
            );
            for (got, what) in [(&counts, "mandelbrot"), (&smooth_counts, "mandelbrot_smooth")] {
                if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
                    panic!(
                        "{what} {}: pixel ({}, {}) has count {} against the CPU's {}",
                        precision.name(),
                        i % width,
                        i / width,
                        got[i],
                        want[i]
                    );
                }
            }
            assert_eq!(run.total_iters, want_total, "the rule's iterations");
            assert_eq!(smooth_run.total_iters, want_total, "the rule's iterations (smooth)");
        }
    }
}

/// Counts past u16 come back one u32 a pixel (odd width: the pair's right pixel is missing at the
/// end of each row).
#[test]
fn wgpu_counts_past_u16_are_exact() {
    let Some(mut b) = common::wgpu_backend() else { return };
    let near = Bounds { minx: -0.80, maxx: -0.70, miny: 0.0, maxy: 0.15 };
    let has_f64 = common::has_f64_or_skip(&b);
    for precision in [Precision::F32, Precision::F64] {
        if precision == Precision::F64 && !has_f64 {
            continue;
        }
        let p = MandelbrotParams { width: 37, height: 23, iters: 70_000, bounds: near, precision };
        let (want, want_total) = mandelbrot::reference(&p);
        assert!(want.iter().any(|&c| c > i32::from(u16::MAX)), "the case must have counts past u16");
        let mut counts = vec![-1; p.pixels()];
        let run = b.mandelbrot(&p, &mut counts).unwrap();
        assert_eq!(counts, want, "{}", precision.name());
        assert_eq!(run.total_iters, want_total);
    }
}

/// Large images come back in parts of 8 MiB at 4 bytes a pixel (`PART_BYTES` in
/// src/backend/wgpu/mandelbrot.rs), each copied out while the next is on the bus: an odd width
/// whose rows do not fill the parts evenly, in u16 pairs and in u32.
#[test]
fn wgpu_counts_come_back_in_parts() {
    let Some(mut b) = common::wgpu_backend() else { return };
    for iters in [40, 70_000] {
        let bounds = if iters > 65_535 { Bounds { minx: 3.0, maxx: 6.0, miny: 3.0, maxy: 5.0 } } else { Bounds::SEED };
        let p = MandelbrotParams { width: 2049, height: 1100, iters, bounds, precision: Precision::F32 };
        let (want, want_total) = mandelbrot::reference(&p);
        let mut counts = vec![-1; p.pixels()];
        let run = b.mandelbrot(&p, &mut counts).unwrap();
        assert!(counts == want, "iters {iters}: the counts differ");
        assert_eq!(run.total_iters, want_total);
    }
}

/// The host side of the u16 pairs: rows of ceil(width/2) words, the left pixel in the low half,
/// the unused high half of an odd row's last word ignored.
#[test]
fn u16_pairs_widen_with_an_odd_width() {
    use wavebrot::backend::wgpu::mandelbrot::{count_bytes, narrow, widen_pairs};
    let (width, height) = (5usize, 3usize);
    let want: Vec<i32> = (0..width * height).map(|i| ([0, 1, 65535, 40000, 7][i % 5] + i as i32) % 65536).collect();
    let mut words = Vec::new();
    for row in want.chunks(width) {
        for pair in row.chunks(2) {
            let hi = pair.get(1).map_or(0xbeef, |&c| c as u32);
            words.extend_from_slice(&((pair[0] as u32) | (hi << 16)).to_le_bytes());
        }
    }
    assert_eq!(words.len() as u64, count_bytes(width, height, 100));
    assert_eq!(count_bytes(width, height, 70_000), 4 * 15);
    assert!(narrow(65_535) && !narrow(65_536));
    let mut got = vec![-1; width * height];
    widen_pairs(&words, width, &mut got);
    assert_eq!(got, want);
    // Large images go through the parallel path: the same.
    let (width, height) = (1001usize, 1201usize);
    let want: Vec<i32> = (0..width * height).map(|i| (i * 7919 % 65536) as i32).collect();
    let mut words = Vec::new();
    for row in want.chunks(width) {
        for pair in row.chunks(2) {
            let hi = pair.get(1).map_or(0xffff, |&c| c as u32);
            words.extend_from_slice(&((pair[0] as u32) | (hi << 16)).to_le_bytes());
        }
    }
    let mut got = vec![-1; width * height];
    widen_pairs(&words, width, &mut got);
    assert_eq!(got, want);
}

/// The reason the interior shortcut is exact: points on the edge of its margin (multiplier of
/// the attracting cycle |lambda|^2 = 0.9, CUDA's and the f64 shader's; the f32 shader stops at
/// 0.88, further in) never escape under the CPU's rule, in f32 or f64, at every angle.
#[test]
fn interior_margin_never_escapes() {
    let iters = 20_000;
    let r = 0.9f64.sqrt();
    let n = 2048;
    for i in 0..n {
        let t = std::f64::consts::TAU * (i as f64 + 0.5) / n as f64;
        let (lr, li) = (r * t.cos(), r * t.sin());
        // Main cardioid: c = lambda/2 - lambda^2/4; period-2 bulb: c = lambda/4 - 1.
        let cardioid = (lr / 2.0 - (lr * lr - li * li) / 4.0, li / 2.0 - lr * li / 2.0);
        let bulb = (lr / 4.0 - 1.0, li / 4.0);
        for (cr, ci) in [cardioid, bulb] {
            assert_eq!(mandelbrot::escape_count_f64(cr, ci, iters), iters, "f64 at {cr} + {ci}i");
            assert_eq!(mandelbrot::escape_count_f32(cr as f32, ci as f32, iters), iters, "f32 at {cr} + {ci}i");
        }
    }
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

/// Compares a backend's counts and smooth values with the CPU's: the share of counts that
/// differ, and the largest smooth difference where they agree (with the pixel).
pub fn compare_smooth(counts: &[i32], smooth: &[f32], want: &[i32], want_smooth: &[f32]) -> (f64, f32, f32, usize) {
    let m = mandelbrot::mismatch_frac(counts, want);
    let mut worst = (f32::NEG_INFINITY, 0usize);
    let mut max_diff = 0.0f32;
    for (i, ((&c, &s), (&wc, &ws))) in counts.iter().zip(smooth).zip(want.iter().zip(want_smooth)).enumerate() {
        if c == wc {
            let diff = (s - ws).abs();
            max_diff = max_diff.max(diff);
            let excess = if diff.is_nan() { f32::INFINITY } else { diff - wavebrot::backend::smooth_tolerance(ws) };
            if excess > worst.0 {
                worst = (excess, i);
            }
        }
    }
    (m, max_diff, worst.0, worst.1)
}

/// The smooth-value cases: the seed's view, a zoom with many iterations, a tiny image.
fn smooth_cases() -> Vec<MandelbrotParams> {
    let zoom = Bounds { minx: -0.7530, maxx: -0.7490, miny: 0.0990, maxy: 0.1020 };
    let mut cases = Vec::new();
    for precision in [Precision::F32, Precision::F64] {
        for (width, height, iters, bounds) in
            [(160, 107, 100, Bounds::SEED), (97, 61, 2000, zoom), (1, 1, 5, Bounds::SEED)]
        {
            cases.push(MandelbrotParams { width, height, iters, bounds, precision });
        }
    }
    cases
}

fn check_smooth_backend(b: &mut dyn Backend, skip_f64: bool) {
    let mut cpu = wavebrot::backend::cpu::CpuBackend::new(wavebrot::backend::cpu::Threads::All);
    for p in smooth_cases() {
        if p.precision == Precision::F64 && skip_f64 {
            continue; // logged by the caller (common::has_f64_or_skip)
        }
        let mut want = vec![0; p.pixels()];
        let mut want_smooth = vec![0.0; p.pixels()];
        cpu.mandelbrot_smooth(&p, &mut want, &mut want_smooth).unwrap();
        let mut counts = vec![-1; p.pixels()];
        let mut smooth = vec![f32::NAN; p.pixels()];
        let run = b.mandelbrot_smooth(&p, &mut counts, &mut smooth).unwrap();
        let (m, max_diff, excess, at) = compare_smooth(&counts, &smooth, &want, &want_smooth);
        println!(
            "{} {}x{} iters={} {}: counts differ on {:.4}%, largest smooth difference {max_diff:e}",
            b.kind(),
            p.width,
            p.height,
            p.iters,
            p.precision.name(),
            m * 100.0
        );
        assert!(
            m <= common::GPU_COUNT_BUDGET,
            "{}% of counts differ (measured 0: common::GPU_COUNT_BUDGET)",
            m * 100.0
        );
        assert!(
            excess <= 0.0,
            "smooth value at pixel {at}: {} against the CPU's {} (count {})",
            smooth[at],
            want_smooth[at],
            counts[at]
        );
        let own_total: u64 = counts.iter().map(|&c| mandelbrot::iterations_executed(c as u32, p.iters)).sum();
        assert_eq!(run.total_iters, own_total, "the iteration total");
    }
}

#[test]
fn wgpu_smooth_values_equal_the_cpu() {
    let Some(mut b) = common::wgpu_backend() else { return };
    let skip_f64 = !common::has_f64_or_skip(&b);
    check_smooth_backend(&mut b, skip_f64);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_smooth_values_equal_the_cpu() {
    let Some(mut b) = common::cuda_backend("cuda_smooth_values_equal_the_cpu") else { return };
    check_smooth_backend(b.as_mut(), false);
}
