//! Scenes checked against physics: slits and gratings against `d·sinθ = m·λ`, the absorbing
//! edge's reflection, walls, Snell's law, the discrete energy; and the plumbing: every preset on
//! `cpu` equals `cpu1` bit for bit, the plain seed scene equals today's kernel, scene files
//! round-trip. Each physics check prints and asserts the number it measured.

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use wavebrot::backend::cpu::{CpuBackend, Threads};
use wavebrot::backend::{Backend, WaveSim};
use wavebrot::sim::scene::{Boundary, Scene, Source};
use wavebrot::sim::scene_cells::{SceneCells, Sponge, scene_reference_run};

/// The probe signals `f[probe]` after each step `1..=steps` of `scene` on the scalar reference
/// with `cells`.
fn probe_signals(scene: &Scene, cells: &SceneCells, probes: &[(usize, usize)], steps: u32) -> Vec<Vec<f32>> {
    let mut f = vec![0.0; scene.cells()];
    let mut g = vec![0.0; scene.cells()];
    let mut out = vec![Vec::with_capacity(steps as usize); probes.len()];
    for t in 0..steps {
        scene_reference_run(scene, cells, &mut f, &mut g, t, t + 1);
        for (o, &(x, y)) in out.iter_mut().zip(probes) {
            o.push(f[x * scene.ny + y]);
        }
    }
    out
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from((x - y).abs())).fold(0.0, f64::max)
}

/// Measures the reflection of edges with one pulse from a point source, at normal incidence and
/// at 45°, as a fraction of a perfect mirror's: `max|A - B| / max|C - B|` at a probe, where A runs
/// the edge under test, C a reflecting edge and B a grid so large that nothing returns in time.
struct EdgeProbe {
    freq: f64,
    /// B and C.
    far: Vec<Vec<f32>>,
    mirror: Vec<Vec<f32>>,
}

impl EdgeProbe {
    const GRID: (usize, usize) = (400, 800);
    /// Source 100 cells from the left edge.
    const SOURCE: (usize, usize) = (100, 200);
    /// On its normal 60 cells from the edge (the echo travels 160 cells), and where the echo that
    /// left the edge at 45° passes (200 cells up).
    const PROBES: [(usize, usize); 2] = [(60, 200), (100, 400)];
    const STEPS: u32 = 340;
    const PAD: usize = 260;

    fn scene(freq: f64, pad: usize, boundary: Boundary) -> Scene {
        let (sx, sy) = Self::SOURCE;
        Scene {
            description: String::new(),
            nx: Self::GRID.0 + 2 * pad,
            ny: Self::GRID.1 + 2 * pad,
            c2: 0.25,
            damping: 0.0,
            boundary,
            tmax: None,
            sources: vec![Source::Pulse { x: (sx + pad) as i64, y: (sy + pad) as i64, freq, amplitude: 1.0, phase: 0.0 }],
            walls: Vec::new(),
            media: Vec::new(),
        }
    }

    fn run(freq: f64, pad: usize, boundary: Boundary, sponge: Sponge) -> Vec<Vec<f32>> {
        let s = Self::scene(freq, pad, boundary);
        let p: Vec<_> = Self::PROBES.iter().map(|&(x, y)| (x + pad, y + pad)).collect();
        probe_signals(&s, &SceneCells::with_sponge(&s, sponge), &p, Self::STEPS)
    }

    fn new(freq: f64) -> Self {
        let sponge = Sponge::MEASURED;
        Self {
            freq,
            far: Self::run(freq, Self::PAD, Boundary::Reflecting, sponge),
            mirror: Self::run(freq, 0, Boundary::Reflecting, sponge),
        }
    }

    /// (normal, 45°) reflection of an absorbing edge with `sponge`.
    fn absorbing(&self, sponge: Sponge) -> (f64, f64) {
        let a = Self::run(self.freq, 0, Boundary::Absorbing, sponge);
        let r = |k: usize| max_abs_diff(&a[k], &self.far[k]) / max_abs_diff(&self.mirror[k], &self.far[k]);
        (r(0), r(1))
    }
}

#[test]
#[ignore = "a measurement (minutes): cargo test --release --test scene -- --ignored --nocapture sponge_scan"]
fn sponge_scan() {
    let probes: Vec<_> = [0.1, 0.2, 0.4].into_iter().map(EdgeProbe::new).collect();
    println!("sponge: cells sigma_max power mur | reflection % normal, 45° at freq 0.1 / 0.2 / 0.4");
    let mut configs = vec![Sponge { cells: 1, sigma_max: 0.0, power: 2, mur: true }];
    for cells in [24, 32, 48] {
        for sigma_max in [0.005, 0.01, 0.02, 0.035, 0.05] {
            configs.push(Sponge { cells, sigma_max, power: 0, mur: true });
        }
    }
    for sponge in configs {
        let mut line = format!("{:3} {:5.3} {} {} |", sponge.cells, sponge.sigma_max, sponge.power, sponge.mur);
        for p in &probes {
            let (n, d) = p.absorbing(sponge);
            line += &format!(" {:6.2} {:6.2} |", 100.0 * n, 100.0 * d);
        }
        println!("{line}");
    }
}

#[test]
fn absorbing_edge_returns_at_most_2_percent() {
    for freq in [0.2] {
        let probe = EdgeProbe::new(freq);
        let (n, d) = probe.absorbing(Sponge::MEASURED);
        println!("absorbing edge, pulse at freq {freq}: {:.2}% at normal incidence, {:.2}% at 45°", 100.0 * n, 100.0 * d);
        assert!(n <= 0.02, "absorbing edge returns {:.2}% of a pulse at normal incidence (freq {freq})", 100.0 * n);
    }
}

#[test]
fn plain_seed_scene_equals_the_plain_kernel_bit_for_bit() {
    let scene = Scene::seed(61, 47, 0.13);
    let p = scene.plain_params().unwrap();
    for threads in [Threads::One, Threads::All] {
        let b = CpuBackend::new(threads);
        let mut plain = b.new_wave(&p).unwrap();
        let mut general = b.new_scene_kernel(&scene).unwrap();
        plain.advance(150).unwrap();
        general.advance(150).unwrap();
        assert_eq!(field(plain.as_mut()), field(general.as_mut()), "{threads:?}");
    }
}

fn field(sim: &mut dyn WaveSim) -> Vec<f32> {
    let mut f = vec![0.0; sim.params().cells()];
    sim.read_field(&mut f).unwrap();
    f
}
