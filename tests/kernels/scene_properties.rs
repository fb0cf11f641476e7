//! Properties of the wave scene kernels on random scenes (proptest, shrinking a failure to its
//! smallest scene): a grid of any size with walls, media, damping, point, line and pulse sources
//! and any of the three edges. On every scene `cpu` (all cores) and `cpu1` give the scalar scene
//! reference's bits and wgpu its measured tolerance; a closed, undamped scene keeps its discrete
//! energy within the measured drift once its pulse has ended; a scene survives its TOML file.
//!
//! The case counts keep CI's time (2 cores, lavapipe): 16 s in all, measured. A failure prints the
//! shrunk scene as TOML, ready for `wavebrot render wave --scene`.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::common;

use wavebrot::backend::{Backend, WaveVariant, cpu};
use wavebrot::sim::wave::pml::LayerFields;
use wavebrot::sim::wave::scene::{Boundary, Medium, Scene, Source, Wall, pulse_steps};
use wavebrot::sim::wave::scene_cells::{SceneCells, energy, scene_reference_run};
use wavebrot::sim::wave::{self, WAVE_TOLERANCE};

/// A point, line or pulse source somewhere on an `nx x ny` grid.
fn source(nx: i64, ny: i64) -> impl Strategy<Value = Source> {
    let at = (0..nx, 0..ny);
    let wave = (0.05f64..1.2, 0.1f64..2.0, 0.0f64..std::f64::consts::TAU);
    (0..3u8, at.clone(), at, wave).prop_map(|(kind, (x, y), (x1, y1), (freq, amplitude, phase))| match kind {
        0 => Source::Point { x, y, freq, amplitude, phase },
        1 => Source::Line { x0: x, y0: y, x1, y1, freq, amplitude, phase },
        _ => Source::Pulse { x, y, freq, amplitude, phase, start: 1 },
    })
}

/// A rectangle inside an `nx x ny` grid, at most a quarter of each side.
fn rect(nx: i64, ny: i64) -> impl Strategy<Value = (i64, i64, i64, i64)> {
    (0..nx, 0..ny, 0..=nx / 4, 0..=ny / 4)
        .prop_map(move |(x0, y0, w, h)| (x0, y0, (x0 + w).min(nx - 1), (y0 + h).min(ny - 1)))
}

/// A lens or a slab of another medium.
fn medium(nx: i64, ny: i64) -> impl Strategy<Value = Medium> {
    (any::<bool>(), rect(nx, ny), 1.0f64..12.0, 0.02f64..0.5).prop_map(|(circle, (x0, y0, x1, y1), r, c2)| {
        if circle { Medium::Circle { x: x0, y: y0, r, c2 } } else { Medium::Rect { x0, y0, x1, y1, c2 } }
    })
}

/// A valid scene: 8..56 cells a side, up to three sources, three walls and two media.
fn scene() -> impl Strategy<Value = Scene> {
    (8usize..56, 8usize..56)
        .prop_flat_map(|(nx, ny)| {
            let (x, y) = (nx as i64, ny as i64);
            let edge = prop_oneof![Just(Boundary::Reflecting), Just(Boundary::Mur), Just(Boundary::Absorbing)];
            let damping = prop_oneof![Just(0.0), 0.0f64..0.01];
            (
                Just((nx, ny)),
                0.05f64..0.5,
                damping,
                edge,
                proptest::collection::vec(source(x, y), 1..4),
                proptest::collection::vec(rect(x, y), 0..4),
                proptest::collection::vec(medium(x, y), 0..3),
            )
        })
        .prop_map(|((nx, ny), c2, damping, boundary, sources, walls, media)| {
            let walls = walls.into_iter().map(|(x0, y0, x1, y1)| Wall { x0, y0, x1, y1 }).collect();
            let mut s = Scene::seed(nx, ny, 0.2);
            s.description = "a random scene".to_owned();
            (s.c2, s.damping, s.boundary, s.sources, s.walls, s.media) = (c2, damping, boundary, sources, walls, media);
            s
        })
        .prop_filter("a source on a wall", |s| s.validate().is_ok())
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() })
}

/// `f` and `g` of `s` after `steps` on the scalar reference.
fn reference(s: &Scene, steps: u32) -> (Vec<f32>, Vec<f32>) {
    let cells = SceneCells::new(s);
    let (mut f, mut g) = (vec![0.0f32; s.cells()], vec![0.0f32; s.cells()]);
    let mut aux = LayerFields::new(&cells);
    scene_reference_run(s, &cells, &mut f, &mut g, &mut aux, 0, steps);
    (f, g)
}

/// The largest difference of `b`'s fields after `steps` (in two calls) from the reference's.
fn worst_difference(b: &dyn Backend, variant: WaveVariant, s: &Scene, steps: u32) -> Result<f32, TestCaseError> {
    let (f, g) = reference(s, steps);
    let mut sim = b.new_scene_variant(s, variant).map_err(|e| TestCaseError::fail(format!("{}: {e}", b.kind())))?;
    sim.advance(steps / 3).unwrap();
    sim.advance(steps - steps / 3).unwrap();
    let (mut got_f, mut got_g) = (vec![0.0f32; s.cells()], vec![0.0f32; s.cells()]);
    sim.read_fields(&mut got_f, &mut got_g).unwrap();
    Ok(wave::max_abs_diff(&got_f, &f).max(wave::max_abs_diff(&got_g, &g)))
}

fn fail_with(s: &Scene, what: String) -> TestCaseError {
    TestCaseError::fail(format!("{what}\n{}", s.to_toml().unwrap_or_default()))
}

#[test]
fn any_scene_on_the_cpu_is_the_scalar_reference_bit_for_bit() {
    let (all, one) = (cpu::CpuBackend::new(cpu::Threads::All), cpu::CpuBackend::new(cpu::Threads::One));
    runner(48)
        .run(&(scene(), 1u32..160), |(s, steps)| {
            for b in [&all, &one] {
                let d = worst_difference(b, WaveVariant::Auto, &s, steps)?;
                if d != 0.0 {
                    return Err(fail_with(&s, format!("{} after {steps} steps: max|diff| {d:e}, not 0", b.kind())));
                }
            }
            Ok(())
        })
        .unwrap();
}

/// wgpu's tolerance: the same bits, but where the matched layer is the wave tolerance (as
/// `wave_scene::wgpu_matched_scene_is_within_the_tolerance`); measured on lavapipe over 24
/// random scenes of up to 160 steps, both kernels: 0 (the same bits everywhere).
#[test]
fn any_scene_on_wgpu_is_the_reference_within_its_tolerance() {
    let Some(b) = common::wgpu_backend() else { return };
    let worst = std::cell::Cell::new(0.0f32);
    runner(24)
        .run(&(scene(), 1u32..160, any::<bool>()), |(s, steps, blocked)| {
            let variant = if blocked { WaveVariant::Blocked } else { WaveVariant::Auto };
            let d = worst_difference(&b, variant, &s, steps)?;
            let allowed = if s.boundary == Boundary::Absorbing { WAVE_TOLERANCE } else { 0.0 };
            worst.set(worst.get().max(d));
            if d > allowed {
                return Err(fail_with(
                    &s,
                    format!("wgpu {variant} after {steps} steps: max|diff| {d:e} (allowed {allowed:e})"),
                ));
            }
            Ok(())
        })
        .unwrap();
    println!("wgpu: the largest difference over the scenes {:e}", worst.get());
}

/// A closed, undamped scene (reflecting edges, walls and media anywhere, one pulse that has
/// ended) keeps its energy: the f32 fields drift it over 600 steps by at most 1.3e-6 relative
/// (measured over 64 random scenes), 1e-5 allowed.
#[test]
fn a_closed_undamped_scene_keeps_its_energy() {
    const DRIFT: f64 = 1e-5;
    let worst = std::cell::Cell::new(0.0f64);
    runner(64)
        .run(&(scene(), 0.15f64..1.2), |(mut s, freq)| {
            s.boundary = Boundary::Reflecting;
            s.damping = 0.0;
            let (x, y) = (s.nx as i64 / 2, s.ny as i64 / 2);
            s.walls.retain(|w| !w.contains(x, y));
            s.sources = vec![Source::Pulse { x, y, freq, amplitude: 1.0, phase: 0.0, start: 1 }];
            let cells = SceneCells::new(&s);
            let (mut f, mut g) = (vec![0.0f32; s.cells()], vec![0.0f32; s.cells()]);
            let mut aux = LayerFields::new(&cells);
            let ended = pulse_steps(freq) + 1;
            scene_reference_run(&s, &cells, &mut f, &mut g, &mut aux, 0, ended);
            let e0 = energy(&cells, &f, &g);
            scene_reference_run(&s, &cells, &mut f, &mut g, &mut aux, ended, ended + 600);
            let e1 = energy(&cells, &f, &g);
            let drift = ((e1 - e0) / e0).abs();
            worst.set(worst.get().max(drift));
            if !(e0 > 0.0 && drift <= DRIFT) {
                return Err(fail_with(&s, format!("energy {e0:e} -> {e1:e}: drift {drift:e} (allowed {DRIFT:e})")));
            }
            Ok(())
        })
        .unwrap();
    println!("the largest energy drift over the scenes: {:e}", worst.get());
}

#[test]
fn any_scene_survives_its_file() {
    runner(256)
        .run(&scene(), |s| {
            let text = s.to_toml().unwrap();
            let back = Scene::from_toml(&text).map_err(|e| fail_with(&s, format!("refused its own file: {e}")))?;
            prop_assert_eq!(back, s, "{}", text);
            Ok(())
        })
        .unwrap();
}
