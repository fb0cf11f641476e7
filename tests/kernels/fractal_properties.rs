//! Properties of the fractal kernels and files on random views (proptest, shrinking a failure to
//! its smallest case): the Mandelbrot set's counts are symmetric under conjugation on every
//! backend and precision; a Julia set is symmetric under `z -> -z`, and under conjugation where
//! `c` is real; perturbation gives the direct `f64` counts on shallow views near the boundary;
//! a location survives its TOML file and a round trip through Kalles Fraktaler's `.kfr`.
//!
//! The symmetric views are dyadic (a pixel a power of two, the view's edges whole pixels from
//! 0), so that a pixel and its mirror image are exactly each other's negation or conjugate and
//! the counts must be equal, not close: row `y` mirrors row `height - y` (the seed's pixel rule
//! `miny + y*py` puts row 0 on the edge, and its mirror is outside the picture).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::common;

use wavebrot::backend::{Backend, cpu};
use wavebrot::sim::fractal::deep::{DeepJob, View};
use wavebrot::sim::fractal::julia::JuliaParams;
use wavebrot::sim::fractal::location::Location;
use wavebrot::sim::fractal::location_formats::{parse_any, to_kfr};
use wavebrot::sim::fractal::mandelbrot::{Bounds, MandelbrotParams, Precision, mismatch_frac};

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() })
}

/// A dyadic view `width x height` (both even) of pixel `2^-e` centred on the whole pixel
/// nearest `(cx, cy)`; `cy = 0` makes it symmetric about the real axis.
fn dyadic(width: usize, height: usize, e: i32, cx: f64, cy: f64) -> Bounds {
    let px = 2f64.powi(-e);
    let (x0, y0) = ((cx / px).round() * px, (cy / px).round() * px);
    let (hw, hh) = (width as f64 / 2.0 * px, height as f64 / 2.0 * px);
    Bounds { minx: x0 - hw, maxx: x0 + hw, miny: y0 - hh, maxy: y0 + hh }
}

/// A point on the main cardioid's edge (angle `t`), moved by `(dx, dy)`: where the set's
/// boundary and its detail are.
fn near_the_boundary(t: f64, dx: f64, dy: f64) -> (f64, f64) {
    let (c, s) = (t.cos(), t.sin());
    (c / 2.0 - (c * c - s * s) / 4.0 + dx, s / 2.0 - 2.0 * c * s / 4.0 + dy)
}

/// The first pixel whose mirror under `mirror(x, y)` has another count.
fn asymmetry(
    counts: &[i32],
    width: usize,
    height: usize,
    mirror: impl Fn(usize, usize) -> (usize, usize),
) -> Option<String> {
    for y in 1..height {
        for x in 0..width {
            let (mx, my) = mirror(x, y);
            if mx >= width {
                continue;
            }
            let (a, b) = (counts[y * width + x], counts[my * width + mx]);
            if a != b {
                return Some(format!("pixel ({x}, {y}) counts {a}, its mirror ({mx}, {my}) {b}"));
            }
        }
    }
    None
}

/// A symmetric Mandelbrot view: 8..64 by 8..48 pixels of `2^-e`, through the real axis.
fn symmetric_view() -> impl Strategy<Value = MandelbrotParams> {
    (4usize..32, 4usize..24, 3i32..40, -2.0f64..0.5, 50u32..1500, any::<bool>()).prop_map(
        |(hw, hh, e, cx, iters, f32)| {
            // f32 resolves pixels down to about 2^-20 at |c| <= 2.
            let (e, precision) = if f32 { (e.min(18), Precision::F32) } else { (e, Precision::F64) };
            MandelbrotParams {
                width: 2 * hw,
                height: 2 * hh,
                iters,
                bounds: dyadic(2 * hw, 2 * hh, e, cx, 0.0),
                precision,
            }
        },
    )
}

/// `b`'s counts of `p` are symmetric under conjugation (row `y` is row `height - y`).
fn conjugation_symmetric(b: &mut dyn Backend, p: &MandelbrotParams) -> Result<(), TestCaseError> {
    let mut counts = vec![0; p.pixels()];
    b.mandelbrot(p, &mut counts).map_err(|e| TestCaseError::fail(format!("{}: {e}", b.kind())))?;
    if let Some(bad) = asymmetry(&counts, p.width, p.height, |x, y| (x, p.height - y)) {
        return Err(TestCaseError::fail(format!("{} {p:?}: {bad}", b.kind())));
    }
    Ok(())
}

#[test]
fn mandelbrot_counts_are_symmetric_under_conjugation_on_the_cpu() {
    let all = std::cell::RefCell::new(cpu::CpuBackend::new(cpu::Threads::All));
    let one = std::cell::RefCell::new(cpu::CpuBackend::new(cpu::Threads::One));
    runner(64)
        .run(&symmetric_view(), |p| {
            conjugation_symmetric(&mut *all.borrow_mut(), &p)?;
            conjugation_symmetric(&mut *one.borrow_mut(), &p)
        })
        .unwrap();
}

#[test]
fn mandelbrot_counts_are_symmetric_under_conjugation_on_wgpu() {
    let Some(b) = common::wgpu_backend() else { return };
    let f64_too = common::has_f64_or_skip(&b);
    let b = std::cell::RefCell::new(b);
    runner(32)
        .run(&symmetric_view(), |p| {
            if p.precision == Precision::F64 && !f64_too {
                return Ok(());
            }
            conjugation_symmetric(&mut *b.borrow_mut(), &p)
        })
        .unwrap();
}

/// A Julia view centred on 0 (dyadic) and any `c` near the Mandelbrot set's boundary, or on
/// the real axis.
fn julia_view() -> impl Strategy<Value = JuliaParams> {
    (4usize..32, 4usize..24, 2i32..30, 0.0f64..std::f64::consts::TAU, -0.05f64..0.05, 50u32..1000, any::<bool>())
        .prop_map(|(hw, hh, e, t, d, iters, real)| {
            let (cr, ci) = near_the_boundary(t, d, d);
            let c = if real { [-2.0 + (t / std::f64::consts::TAU) * 2.25, 0.0] } else { [cr, ci] };
            let bounds = dyadic(2 * hw, 2 * hh, e, 0.0, 0.0);
            JuliaParams { width: 2 * hw, height: 2 * hh, iters, bounds, precision: Precision::F64, c }
        })
}

#[test]
fn julia_counts_are_symmetric_under_negation_and_for_a_real_c_under_conjugation() {
    let cpu = std::cell::RefCell::new(cpu::CpuBackend::new(cpu::Threads::All));
    runner(64)
        .run(&julia_view(), |p| {
            let (w, h) = (p.width, p.height);
            let mut counts = vec![0; w * h];
            cpu.borrow_mut().julia(&p, &mut counts, None).unwrap();
            // z -> -z: pixel (x, y) is (w - x, h - y); column 0 has no mirror.
            if let Some(bad) = asymmetry(&counts, w, h, |x, y| (if x == 0 { w } else { w - x }, h - y)) {
                return Err(TestCaseError::fail(format!("{p:?}: -z: {bad}")));
            }
            if p.c[1] == 0.0
                && let Some(bad) = asymmetry(&counts, w, h, |x, y| (x, h - y))
            {
                return Err(TestCaseError::fail(format!("{p:?}: conjugate: {bad}")));
            }
            Ok(())
        })
        .unwrap();
}

/// Perturbation against the direct `f64` counts at a zoom of 10 to 10^8 near the boundary:
/// the pixels' `c` are rounded differently (the offset from the centre against the seed's
/// `minx + x*px`), which moves chaotic pixels by a count or more. Measured over 300 random views:
/// 74 had any pixel differ, at most 8.1% of the pixels (zoom 1.3e5, 1623 iterations); 12% allowed.
/// Where they differ it is mostly the direct `f64` that is wrong: at zoom 7.8e5 (46 pixels of
/// 1536 differing) MPFR (`tools/deep_reference.py`) gave perturbation's count at 12 of 13
/// differing pixels sampled, and neither's at the 13th.
#[test]
fn perturbation_gives_the_direct_counts_on_shallow_views() {
    const BUDGET: f64 = 0.12;
    let cpu = std::cell::RefCell::new(cpu::CpuBackend::new(cpu::Threads::All));
    let worst = std::cell::Cell::new(0.0f64);
    let views = (0.0f64..std::f64::consts::TAU, -0.02f64..0.02, -0.02f64..0.02, 1.0f64..8.0, 100u32..3000);
    runner(48)
        .run(&views, |(t, dx, dy, zoom10, iters)| {
            let (cx, cy) = near_the_boundary(t, dx, dy);
            let view =
                View { re: format!("{cx:.17}"), im: format!("{cy:.17}"), zoom: format!("{:.3}", 10f64.powf(zoom10)) };
            let (w, h) = (48, 32);
            let job = DeepJob::prepare(&view, w, h, iters).unwrap();
            let p = MandelbrotParams {
                width: w,
                height: h,
                iters,
                bounds: view.bounds_f64(w, h).unwrap(),
                precision: Precision::F64,
            };
            let (mut deep, mut direct) = (vec![0; w * h], vec![0; w * h]);
            cpu.borrow_mut().mandelbrot_deep(&job, &mut deep).unwrap();
            cpu.borrow_mut().mandelbrot(&p, &mut direct).unwrap();
            let bad = mismatch_frac(&deep, &direct);
            worst.set(worst.get().max(bad));
            prop_assert!(
                bad <= BUDGET,
                "{view:?}: {:.2}% of the pixels differ (allowed {}%)",
                bad * 100.0,
                BUDGET * 100.0
            );
            Ok(())
        })
        .unwrap();
    println!("perturbation against direct: at most {:.3}% of the pixels differ", worst.get() * 100.0);
}

/// Any location a user could save: a centre of up to 60 more digits, a zoom to 1e2000.
fn location() -> impl Strategy<Value = Location> {
    (-2.0f64..2.0, -2.0f64..2.0, "[0-9]{0,60}", 1u32..10, 0u32..2000, 1u32..100_000_000, "[ -~]{0,20}").prop_map(
        |(re, im, tail, lead, exp, iters, name)| Location {
            name,
            re: format!("{re:.17}{tail}"),
            im: format!("{im:.17}{tail}"),
            zoom: format!("{lead}.5e{exp}"),
            iters,
            colour: None,
        },
    )
}

#[test]
fn any_location_survives_its_file_and_a_kfr_round_trip() {
    runner(512)
        .run(&location(), |loc| {
            prop_assume!(loc.validate().is_ok());
            prop_assert_eq!(&Location::from_toml(&loc.to_toml()).unwrap(), &loc);
            // The .kfr keeps the digits of the centre and the zoom's value (KF's zoom is twice
            // wavebrot's: doubled and halved on the digits, so exactly).
            let kfr = to_kfr(&loc);
            let back = parse_any(&kfr).unwrap().location;
            prop_assert_eq!((&back.re, &back.im, back.iters), (&loc.re, &loc.im, loc.iters), "{}", kfr);
            prop_assert_eq!(to_kfr(&back), kfr);
            Ok(())
        })
        .unwrap();
}
