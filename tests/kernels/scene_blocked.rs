//! The wgpu scene kernel by temporal blocking (`shaders/wave_scene_blocked.wgsl`,
//! `src/backend/wgpu/wave_scene_blocked.rs`) against its one-update twin (`shaders/wave_scene.wgsl`)
//! and the scalar scene reference (`cpu1`'s rule, `src/sim/wave/scene_cells.rs`): every preset until
//! its waves reach every wall and medium, odd grid sizes, sources on tile edges, step counts that
//! are not multiples of a dispatch's steps, Mur's edge where it shortens a dispatch, the matched
//! layer. On lavapipe the three give the same bits; the contract is the one-update path's bits and
//! wgpu's 1.5e-6 against `cpu1`.

use wavebrot::backend::{Backend, WaveSim, WaveVariant};
use wavebrot::bench::verify::reach_steps;
use wavebrot::sim::wave::pml::LayerFields;
use wavebrot::sim::wave::scene::{self, Boundary, Medium, Scene, Source, Wall};
use wavebrot::sim::wave::scene_cells::{SceneCells, scene_reference_run};
use wavebrot::sim::wave::{self, WAVE_TOLERANCE};

use crate::common;

/// `sim`'s fields `(f, g)`.
fn fields(sim: &mut dyn WaveSim) -> (Vec<f32>, Vec<f32>) {
    let n = sim.params().cells();
    let (mut f, mut g) = (vec![0.0; n], vec![0.0; n]);
    sim.read_fields(&mut f, &mut g).unwrap();
    (f, g)
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Runs `s` on `b`'s blocked and one-update scene kernels and on the reference, in advances of
/// `chunks` steps, comparing both fields after each: blocked == one-update bit for bit, both
/// within `WAVE_TOLERANCE` of the reference. Returns the largest difference to the reference.
fn compare(b: &dyn Backend, what: &str, s: &Scene, chunks: &[u32]) -> f64 {
    let mut blocked = b.new_scene_variant(s, WaveVariant::Blocked).unwrap();
    let note = blocked.kernel_note().unwrap_or_default();
    assert!(note.starts_with("wave_scene_blocked"), "{what}: the blocked variant runs {note}");
    let mut simple = b.new_scene_variant(s, WaveVariant::Simple).unwrap();
    let cells = SceneCells::new(s);
    let (mut f, mut g) = (vec![0.0f32; s.cells()], vec![0.0f32; s.cells()]);
    let mut aux = LayerFields::new(&cells);
    let mut t = 0;
    let mut worst = 0.0f64;
    for &n in chunks {
        blocked.advance(n).unwrap();
        simple.advance(n).unwrap();
        scene_reference_run(s, &cells, &mut f, &mut g, &mut aux, t, t + n);
        t += n;
        let (bf, bg) = fields(blocked.as_mut());
        let (sf, sg) = fields(simple.as_mut());
        let d = f64::from(wave::max_abs_diff(&bf, &f)).max(f64::from(wave::max_abs_diff(&bg, &g)));
        let ds = f64::from(wave::max_abs_diff(&bf, &sf)).max(f64::from(wave::max_abs_diff(&bg, &sg)));
        assert!(
            bits(&bf) == bits(&sf) && bits(&bg) == bits(&sg),
            "{what} {}x{} after {t} steps: blocked differs from the one-update path by {ds:e} ({note})",
            s.nx,
            s.ny
        );
        assert!(
            d <= f64::from(WAVE_TOLERANCE),
            "{what} {}x{} after {t} steps: max|diff| {d:e} against cpu1",
            s.nx,
            s.ny
        );
        worst = worst.max(d);
    }
    assert!(f.iter().any(|&v| v != 0.0), "{what}: the sources put a wave in");
    println!("{what} {}x{} {t} steps: max|diff| {worst:e} against cpu1, the one-update bits ({note})", s.nx, s.ny);
    worst
}

#[test]
fn blocked_scenes_equal_the_one_update_kernel_on_every_preset() {
    let Some(b) = common::wgpu_backend() else { return };
    for preset in scene::PRESETS {
        let full = preset.scene().unwrap();
        // A quarter of the size (CI's time), until the waves have reached every wall and medium,
        // in advances of odd lengths.
        let small = full.resized(full.nx / 4, full.ny / 4);
        if small.plain_params().is_some() {
            // The seed's rule: the plain wave kernels run it (tests/kernels/wave.rs).
            continue;
        }
        let steps = reach_steps(&small);
        let chunks = [steps / 3, 1, steps - steps / 3 - 1];
        compare(&b, preset.name, &small, &chunks);
    }
}

/// A busy scene: damping, media of non-power-of-two `c2` (one on the edge), walls, a line source
/// across tile edges, point sources on the rows and columns where tiles' output blocks and halos
/// end (40, 47, 48, 55, 56, 95, 96), a pulse.
fn busy(nx: usize, ny: usize, boundary: Boundary) -> Scene {
    let mut s = Scene::seed(nx, ny, 0.2);
    s.boundary = boundary;
    s.damping = 0.0005;
    s.sources.clear();
    let (xi, yi) = (nx as i64, ny as i64);
    for (x, y) in [(40, 47), (47, 48), (48, 40), (55, 56), (56, 55), (95, 96), (96, 7), (3, 96)] {
        if x < xi - 1 && y < yi - 1 {
            s.sources.push(Source::Point { x, y, freq: 0.13, amplitude: 0.7, phase: 0.3 });
        }
    }
    s.sources.push(Source::Line { x0: 2, y0: yi / 2, x1: xi - 3, y1: yi / 2, freq: 0.21, amplitude: 0.4, phase: 0.0 });
    s.sources.push(Source::Pulse { x: xi / 3, y: yi / 4, freq: 0.3, amplitude: 2.0, phase: 0.0, start: 3 });
    s.walls.push(Wall { x0: xi / 2, y0: 0, x1: xi / 2 + 1, y1: yi / 3 });
    s.media.push(Medium::Circle { x: 2 * xi / 3, y: 2 * yi / 3, r: (nx.min(ny) / 6) as f64 + 0.5, c2: 0.1 });
    s.media.push(Medium::Rect { x0: 0, y0: 0, x1: xi / 5, y1: yi / 6, c2: 0.37 });
    s.sources.retain(|src| {
        let (x, y) = src.anchor();
        !s.walls.iter().any(|w| w.contains(x, y))
    });
    s.validate().unwrap();
    s
}

#[test]
fn blocked_scenes_hold_at_odd_sizes_tile_edges_and_odd_step_counts() {
    let Some(b) = common::wgpu_backend() else { return };
    // 50: the edge line nx-2 (ny-2) is the middle tile's first output row (column), where Mur's
    // edge cells would reach past a 4-step dispatch's halo: 3 steps per dispatch there. 145 and 97:
    // a middle tile one cell wide; 98 and 146: two cells.
    let sizes = [(50, 50), (98, 145), (97, 53), (146, 98), (8, 8), (9, 130), (131, 9)];
    let mut worst = 0.0f64;
    for (nx, ny) in sizes {
        for boundary in [Boundary::Mur, Boundary::Absorbing, Boundary::Reflecting] {
            let s = busy(nx, ny, boundary);
            // Step counts that are not multiples of a dispatch's 4 (or 3) steps, and single steps
            // (the one-update path) between blocked advances.
            worst = worst.max(compare(&b, &format!("busy {boundary:?}"), &s, &[2, 7, 1, 13, 3, 30, 5]));
        }
    }
    println!("largest difference to cpu1: {worst:e}");
}

/// The matched layer over many crossings, and the bench's budget scene with an absorbing edge.
#[test]
fn blocked_matched_layer_and_budget_scene_hold_over_long_runs() {
    let Some(b) = common::wgpu_backend() else { return };
    let mut s = busy(120, 100, Boundary::Absorbing);
    s.damping = 0.0;
    compare(&b, "matched layer", &s, &[150, 251]);
    let budget = wavebrot::bench::cases::budget_scene(160);
    compare(&b, "budget scene", &budget, &[97, 104]);
}

/// The blocked scene kernel's cost beside the plain kernel wgpu runs on GPUs (`blocked-workgroup`)
/// and the one-update scene kernel, on the bench's budget scene (a double slit, a line source, a
/// lens) with Mur's edges and with the matched layer, at 512², 1024² and 2048², by GPU
/// timestamps: the best of 3 advances of 8 steps (16 updates). What `auto` picks for the matched
/// layer (`LAYER_SHARE_BLOCKED`) comes from these on the H100; on llvmpipe they are relative
/// numbers only, and `wavebrot bench wave` gives the device's at 2048² to 8192².
#[test]
#[ignore = "a measurement: cargo test --test kernels -- --ignored scene_blocked::cost --nocapture"]
fn cost_beside_the_plain_kernel() {
    let Some(b) = common::wgpu_backend() else { return };
    let best_of_3 = |sim: &mut Box<dyn WaveSim>| {
        sim.advance(8).unwrap();
        (0..3)
            .map(|_| {
                let t = sim.advance(8).unwrap();
                t.device.unwrap_or(t.wall).as_secs_f64() / 16.0
            })
            .fold(f64::INFINITY, f64::min)
    };
    for n in [512, 1024, 2048] {
        let plain = wavebrot::sim::wave::WaveParams::new(n, n, 0.2);
        let plain = best_of_3(&mut b.new_wave_variant(&plain, WaveVariant::BlockedWorkgroup).unwrap());
        for boundary in [scene::Boundary::Mur, scene::Boundary::Absorbing] {
            let s = wavebrot::bench::cases::budget_scene_with(n, boundary);
            let blocked = best_of_3(&mut b.new_scene_variant(&s, WaveVariant::Blocked).unwrap());
            let simple = best_of_3(&mut b.new_scene_variant(&s, WaveVariant::Simple).unwrap());
            println!(
                "{n}² {boundary:?}: plain {:.2} µs, scene blocked {:.2} µs ({:.2}x), simple {:.2} µs ({:.2}x)",
                plain * 1e6,
                blocked * 1e6,
                blocked / plain,
                simple * 1e6,
                simple / plain
            );
        }
    }
}
