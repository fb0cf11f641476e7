//! The wave family's scene kernels (walls, media, damping, absorbing and matched edges, several
//! sources: `shaders/wave_scene.wgsl`, the scene kernels of `kernels/wave.cu`,
//! `src/backend/cpu/wave_scene.rs`) on every backend against the scalar scene reference of
//! `src/sim/wave/scene_cells.rs`: every preset, a small scene of every feature through a frequency
//! change, a moved source, carried fields and swapped sources, the matched layer, CUDA's blocked
//! variant around its tiles, and a pulse added mid-run.
//! wgpu runs here on whatever adapter there is (CI: lavapipe); CUDA tests are `#[ignore]`d
//! without a GPU (`tests/common/mod.rs` says how they run on the GPU machine).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;

use wavebrot::backend::{Backend, WaveVariant, cpu};
use wavebrot::bench::verify::reach_steps;
use wavebrot::sim::wave::pml::LayerFields;
use wavebrot::sim::wave::scene::{self, Scene};
use wavebrot::sim::wave::scene_cells::{SceneCells, scene_reference, scene_reference_run};
use wavebrot::sim::wave::{self, WAVE_TOLERANCE};

/// A small scene with everything in it: absorbing edges, damping, a point, a line and a pulse
/// source, a wall and a lens of slower medium.
const EVERYTHING: &str = r#"
description = "every feature on a small grid"
nx = 64
ny = 48
c2 = 0.25
damping = 0.001
boundary = "mur"

[[source]]
kind = "point"
x = 12
y = 20
freq = 0.2

[[source]]
kind = "line"
x0 = 5
y0 = 40
x1 = 30
y1 = 40
freq = 0.15
amplitude = 0.5

[[source]]
kind = "pulse"
x = 50
y = 10
freq = 0.3

[[wall]]
x0 = 35
y0 = 0
x1 = 36
y1 = 20

[[medium]]
shape = "circle"
x = 45
y = 30
r = 8.0
c2 = 0.1
"#;

/// Every preset for `tmax` steps and, at a quarter of its size, to the walls; and the small scene with a frequency change and a moved source
/// half way, on `b` against the scalar scene reference: both fields within the wave tolerance
/// (the CUDA and CPU kernels give the same bits).
fn scenes_match_the_reference(b: &dyn Backend, tmax: u32) {
    scenes_match_the_reference_on(b, WaveVariant::Auto, tmax, WAVE_TOLERANCE);
}

/// [`scenes_match_the_reference`] on `variant`, within `tolerance` (0: the same bits).
fn scenes_match_the_reference_on(b: &dyn Backend, variant: WaveVariant, tmax: u32, tolerance: f32) {
    for preset in scene::PRESETS {
        let full = preset.scene().unwrap();
        // At full size for `tmax` steps, and at a quarter of it until the waves have reached
        // every wall, slit, medium and edge (`reach_steps`; a quarter to keep CI's time).
        let small = full.resized(full.nx / 4, full.ny / 4);
        for (s, steps) in [(full.clone(), tmax), (small.clone(), reach_steps(&small))] {
            let want = scene_reference(&s, steps);
            let mut sim = b.new_scene_variant(&s, variant).unwrap();
            sim.advance(steps / 2).unwrap();
            sim.advance(steps - steps / 2).unwrap();
            let d = wave::max_abs_diff(&common::field(sim.as_mut()), &want);
            println!("{} {variant} preset {} {}x{} {steps} steps: max|diff| {d:e}", b.kind(), preset.name, s.nx, s.ny);
            assert!(
                d <= tolerance,
                "{} preset {} {}x{} {steps} steps: max|diff| {d:e}",
                b.kind(),
                preset.name,
                s.nx,
                s.ny
            );
        }
    }
    let s = Scene::from_toml(EVERYTHING).unwrap();
    assert!(s.plain_params().is_none());
    let cells = SceneCells::new(&s);
    let (mut f, mut g) = (vec![0.0f32; s.cells()], vec![0.0f32; s.cells()]);
    let mut aux = LayerFields::new(&cells);
    scene_reference_run(&s, &cells, &mut f, &mut g, &mut aux, 0, 100);
    let moved = s.with_freq(0.3).with_first_source_at(20, 30).unwrap();
    scene_reference_run(&moved, &cells, &mut f, &mut g, &mut aux, 100, 400);
    let mut sim = b.new_scene_variant(&s, variant).unwrap();
    sim.advance(100).unwrap();
    sim.set_freq(0.3);
    sim.set_source(20, 30).unwrap();
    sim.advance(300).unwrap();
    assert_eq!(sim.scene(), moved);
    let (mut got_f, mut got_g) = (vec![0.0f32; s.cells()], vec![0.0f32; s.cells()]);
    sim.read_fields(&mut got_f, &mut got_g).unwrap();
    let (df, dg) = (wave::max_abs_diff(&got_f, &f), wave::max_abs_diff(&got_g, &g));
    println!("{} small scene: max|diff| f {df:e}, g {dg:e}", b.kind());
    assert!(df <= tolerance && dg <= tolerance, "{} small scene: max|diff| f {df:e}, g {dg:e}", b.kind());
    let energy = f.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>();
    assert!(energy > 1e-3, "the sources must have put a wave into the small scene (sum f^2 = {energy:e})");
    // What the app does when a wall is painted: the waves carried into the edited scene...
    let mut walled = moved.clone();
    assert!(walled.paint_wall(40, 35, 44, 45));
    walled.media.push(scene::Medium::Rect { x0: 5, y0: 5, x1: 20, y1: 15, c2: 0.2 });
    let mut sim = b.new_scene_variant(&walled, variant).unwrap();
    sim.write_fields(&got_f, &got_g, 400).unwrap();
    // (A new scene's kernel starts its auxiliary fields, if any, from 0: so does the reference.)
    let walled_cells = SceneCells::new(&walled);
    let mut aux = LayerFields::new(&walled_cells);
    scene_reference_run(&walled, &walled_cells, &mut f, &mut g, &mut aux, 400, 500);
    sim.advance(100).unwrap();
    sim.read_fields(&mut got_f, &mut got_g).unwrap();
    let (df, dg) = (wave::max_abs_diff(&got_f, &f), wave::max_abs_diff(&got_g, &g));
    println!("{} carried: max|diff| f {df:e}, g {dg:e}", b.kind());
    assert!(df <= tolerance && dg <= tolerance, "{} carried: max|diff| f {df:e}, g {dg:e}", b.kind());
    // ...and a source dragged and retuned in place, the waves going on.
    let mut dragged = walled.clone();
    dragged.sources[1] = dragged.sources[1].moved_by(3, -4);
    dragged.sources[2].set_freq(0.25);
    sim.set_sources(&dragged.sources).unwrap();
    assert_eq!(sim.scene(), dragged);
    scene_reference_run(&dragged, &walled_cells, &mut f, &mut g, &mut aux, 500, 600);
    sim.advance(100).unwrap();
    assert_eq!(sim.tstep(), 600);
    sim.read_fields(&mut got_f, &mut got_g).unwrap();
    let (df, dg) = (wave::max_abs_diff(&got_f, &f), wave::max_abs_diff(&got_g, &g));
    println!("{} sources swapped: max|diff| f {df:e}, g {dg:e}", b.kind());
    assert!(df <= tolerance && dg <= tolerance, "{} swapped: max|diff| f {df:e}, g {dg:e}", b.kind());
    // The seed's plain kernel takes carried waves too.
    let seed = Scene::seed(40, 30, 0.2);
    let mut plain = b.new_scene_variant(&seed, variant).unwrap();
    let (pf, pg) = (vec![0.25f32; seed.cells()], vec![-0.5f32; seed.cells()]);
    plain.write_fields(&pf, &pg, 7).unwrap();
    let (mut rf, mut rg) = (vec![0.0f32; seed.cells()], vec![0.0f32; seed.cells()]);
    plain.read_fields(&mut rf, &mut rg).unwrap();
    assert_eq!((rf, rg, plain.tstep()), (pf, pg, 7), "{}: the plain problem's fields written and read back", b.kind());
    assert!(plain.set_sources(&seed.sources).is_err() || b.kind() == wavebrot::backend::BackendKind::Cpu1);
}

#[test]
fn cpu_scenes_equal_the_scene_reference() {
    scenes_match_the_reference(&cpu::CpuBackend::new(cpu::Threads::All), 60);
}

#[test]
fn wgpu_scenes_equal_the_scene_reference() {
    let Some(b) = common::wgpu_backend() else { return };
    // The same bits: with damping and media the scene's products round in the subnormal range
    // too, which `grid_product` now takes exactly (before: 7.3e-6 after 800 steps on llvmpipe
    // for two media, 5.5e-6 after 3000 on the H100 with damping, media and an absorbing edge).
    scenes_match_the_reference_on(&b, WaveVariant::Auto, 60, 0.0);
}

#[test]
fn wgpu_blocked_scenes_equal_the_scene_reference() {
    let Some(b) = common::wgpu_backend() else { return };
    // The temporally blocked scene kernel (shaders/wave_scene_blocked.wgsl): the same bits, through
    // a frequency change, a moved source, carried fields and swapped sources.
    scenes_match_the_reference_on(&b, WaveVariant::Blocked, 60, 0.0);
}

/// The small scene of every feature with a matched layer (walls, a medium and a line source
/// reach into it) on `b` against the scalar reference, long enough for the waves to cross the
/// layer many times: both fields within `tolerance` (0: the same bits).
fn matched_scene_matches_the_reference(b: &dyn Backend, tolerance: f32) {
    let mut s = Scene::from_toml(EVERYTHING).unwrap();
    s.boundary = scene::Boundary::Absorbing;
    let steps = 400;
    let want = scene_reference(&s, steps);
    let mut sim = b.new_scene(&s).unwrap();
    sim.advance(150).unwrap();
    sim.advance(steps - 150).unwrap();
    let d = wave::max_abs_diff(&common::field(sim.as_mut()), &want);
    println!("{} matched scene {}x{} {steps} steps: max|diff| {d:e}", b.kind(), s.nx, s.ny);
    assert!(d <= tolerance, "{} matched scene {steps} steps: max|diff| {d:e} (allowed {tolerance:e})", b.kind());
    assert!(want.iter().any(|&v| v != 0.0));
}

#[test]
fn cpu_matched_scene_equals_the_reference() {
    matched_scene_matches_the_reference(&cpu::CpuBackend::new(cpu::Threads::All), 0.0);
}

#[test]
fn wgpu_matched_scene_is_within_the_tolerance() {
    let Some(b) = common::wgpu_backend() else { return };
    matched_scene_matches_the_reference(&b, WAVE_TOLERANCE);
}

/// CUDA's twin of the matched layer (one update per launch, whatever the variant): the same bits.
#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_matched_scene_equals_the_reference() {
    let Some(b) = common::cuda_backend("cuda_matched_scene_equals_the_reference") else { return };
    matched_scene_matches_the_reference(b.as_ref(), 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_scenes_equal_the_scene_reference() {
    let Some(b) = common::cuda_backend("cuda_scenes_equal_the_scene_reference") else { return };
    scenes_match_the_reference(b.as_ref(), 200);
}

/// A scene with Mur's edges, a wall, a lens and two sources on an `nx x ny` grid.
fn edged_scene(nx: usize, ny: usize) -> Scene {
    let text = format!(
        r#"
description = "edges, a wall, a lens, sources near tile edges"
nx = {nx}
ny = {ny}
c2 = 0.25
boundary = "mur"

[[source]]
kind = "point"
x = {px}
y = 40
freq = 0.2

[[source]]
kind = "line"
x0 = 3
y0 = 55
x1 = {lx}
y1 = 55
freq = 0.15

[[wall]]
x0 = {wx}
y0 = 60
x1 = {wx}
y1 = {wy}

[[medium]]
shape = "circle"
x = {mx}
y = {my}
r = 10.0
c2 = 0.125
"#,
        px = nx / 3,
        lx = nx - 4,
        wx = nx / 2,
        wy = ny - 1,
        mx = nx * 3 / 4,
        my = ny / 2,
    );
    Scene::from_toml(&text).unwrap()
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_scene_variants_give_the_cpu_bits() {
    let Some(b) = common::cuda_backend("cuda_scene_variants_give_the_cpu_bits") else { return };
    for variant in [WaveVariant::Blocked, WaveVariant::Simple] {
        scenes_match_the_reference_on(b.as_ref(), variant, 200, 0.0);
    }
    // Shapes around the blocked kernel's tiles (48 output cells): an absorbing edge on a tile's
    // first output row or column (nx - 2 or ny - 2 a multiple of 48), odd shapes, several tiles,
    // and step counts that are not multiples of the steps per launch.
    let cpu = cpu::CpuBackend::new(cpu::Threads::All);
    for (nx, ny) in [(98, 146), (146, 98), (97, 131), (200, 130), (290, 290)] {
        let s = edged_scene(nx, ny);
        let mut want = cpu.new_scene(&s).unwrap();
        let mut got = b.new_scene_variant(&s, WaveVariant::Blocked).unwrap();
        for steps in [1, 7, 130, 3] {
            want.advance(steps).unwrap();
            got.advance(steps).unwrap();
        }
        let (mut wf, mut wg) = (vec![0.0f32; s.cells()], vec![0.0f32; s.cells()]);
        let (mut gf, mut gg) = (vec![0.0f32; s.cells()], vec![0.0f32; s.cells()]);
        want.read_fields(&mut wf, &mut wg).unwrap();
        got.read_fields(&mut gf, &mut gg).unwrap();
        let (df, dg) = (wave::max_abs_diff(&gf, &wf), wave::max_abs_diff(&gg, &wg));
        let energy = wf.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>();
        println!("cuda blocked scene {nx}x{ny}: max|diff| f {df:e}, g {dg:e} (sum f^2 {energy:e})");
        assert!(energy > 1e-3, "{nx}x{ny}: the sources must have made waves (sum f^2 {energy:e})");
        assert!(df == 0.0 && dg == 0.0, "cuda blocked scene {nx}x{ny}: max|diff| f {df:e}, g {dg:e}");
    }
}

/// A pulse added at step `S` of a run (the app's "add pulse": the waves carried into the scene
/// with the pulse, which starts on step `S + 1`) rings exactly as one that starts at step 1,
/// shifted by `S` steps: the same bits on `cpu1` and `cpu`, within the wave tolerance on wgpu.
/// Before the pulse the open grid stays at rest, so the two runs see the same numbers. Mur's edge:
/// the test is about the pulse (on this 70x53 grid a layer would take 13 cells a side and damp the
/// ring it looks for).
fn a_pulse_added_mid_run_rings_like_one_at_the_start(b: &dyn Backend, tolerance: f32) {
    use wavebrot::sim::wave::scene::{Boundary, Source, pulse_steps};
    let (s_added, n) = (37u32, 60u32);
    let open = Scene {
        description: String::new(),
        description_axes: Vec::new(),
        nx: 70,
        ny: 53,
        c2: 0.25,
        damping: 0.0,
        boundary: Boundary::Mur,
        tmax: None,
        sources: Vec::new(),
        walls: Vec::new(),
        media: Vec::new(),
    };
    let with = |start| Scene { sources: vec![Source::pulse(31, 22, 0.4, start)], ..open.clone() };
    // From the start: n steps.
    let mut early = b.new_scene(&with(1)).unwrap();
    early.advance(n).unwrap();
    let want = common::field(early.as_mut());
    // Running S steps, then the pulse added with the waves carried over, n more steps.
    let mut before = b.new_scene(&open).unwrap();
    before.advance(s_added).unwrap();
    let cells = open.cells();
    let (mut f, mut g) = (vec![0.0f32; cells], vec![0.0f32; cells]);
    before.read_fields(&mut f, &mut g).unwrap();
    let mut late = b.new_scene(&with(s_added + 1)).unwrap();
    late.write_fields(&f, &g, before.tstep()).unwrap();
    late.advance(n).unwrap();
    assert_eq!(late.tstep(), s_added + n);
    let got = common::field(late.as_mut());
    let peak = want.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let d = wave::max_abs_diff(&got, &want);
    println!(
        "{}: pulse added at step {s_added} ({} forcing steps), {n} steps later: max|diff| {d:e} against one from step 1 (peak {peak:e})",
        b.kind(),
        pulse_steps(0.4)
    );
    // The pulse rang (a ring of amplitude ~0.1 after 60 steps, measured 1e-1 on cpu1).
    assert!(peak > 1e-2, "{}: the pulse made no ring (peak {peak:e})", b.kind());
    assert!(d <= tolerance, "{}: pulse added at step {s_added}: max|diff| {d:e} (allowed {tolerance:e})", b.kind());
}

#[test]
fn a_pulse_added_mid_run_rings_alike_on_the_cpus() {
    for threads in [cpu::Threads::One, cpu::Threads::All] {
        a_pulse_added_mid_run_rings_like_one_at_the_start(&cpu::CpuBackend::new(threads), 0.0);
    }
}

#[test]
fn a_pulse_added_mid_run_rings_alike_on_wgpu() {
    let Some(b) = common::wgpu_backend() else { return };
    a_pulse_added_mid_run_rings_like_one_at_the_start(&b, WAVE_TOLERANCE);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn a_pulse_added_mid_run_rings_alike_on_cuda() {
    let Some(b) = common::cuda_backend("a_pulse_added_mid_run_rings_alike_on_cuda") else { return };
    a_pulse_added_mid_run_rings_like_one_at_the_start(b.as_ref(), 0.0);
}
