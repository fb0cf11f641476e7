//! The perfectly matched layer of the `absorbing` edge (`src/sim/wave/pml.rs`) against physics: its
//! echo at normal, 45° and 60° incidence over a mirror's (measured as `scene.rs`' `EdgeProbe` does,
//! and as `tools/pml_prototype.py` does in numpy), and the energy that leaves through it against the
//! drop of the grid's energy. Each check prints and asserts the number it measured.

use wavebrot::sim::wave::pml::{Layer, LayerFields};
use wavebrot::sim::wave::scene::{Boundary, Scene, Source};
use wavebrot::sim::wave::scene_cells::{SceneCells, Sponge, energy, energy_in, scene_reference_run};

use crate::scene::EdgeProbe;

#[test]
fn absorbing_edge_returns_under_half_a_percent_head_on_and_one_percent_at_45_and_60_degrees() {
    for freq in [0.2, 0.1] {
        let probe = EdgeProbe::new(freq);
        let [n, d45, d60] = probe.edge(Boundary::Absorbing, Sponge::MEASURED);
        println!(
            "absorbing edge (matched layer), one pulse at freq {freq}: echo {:.4}% of a mirror's at normal incidence, {:.4}% at 45°, {:.4}% at 60°",
            100.0 * n,
            100.0 * d45,
            100.0 * d60
        );
        // Measured (CPU, deterministic; numpy's float32 prototype gives the same to the digits
        // shown): PML_ECHO_02, PML_ECHO_01. Allowed: the 0.5% / 1% / 1%,
        // and no more than the measurement + 50% (a change to the layer that doubled its echo
        // fails here even under the limits).
        let (mn, m45, m60) = if freq == 0.2 { PML_ECHO_02 } else { PML_ECHO_01 };
        for (what, got, measured, limit) in
            [("normal incidence", n, mn, 0.005), ("45°", d45, m45, 0.01), ("60°", d60, m60, 0.01)]
        {
            let allowed = (1.5 * measured).min(limit);
            assert!(
                got <= allowed,
                "absorbing edge (matched layer) returns {:.3}% of a mirror's echo at {what} (freq {freq}; measured {:.3}%, allowed {:.3}%)",
                100.0 * got,
                100.0 * measured,
                100.0 * allowed
            );
        }
    }
    // The probe catches an echo: a reflecting edge measured the same way returns all of it.
    let probe = EdgeProbe::new(0.2);
    let mirror = probe.edge(Boundary::Reflecting, Sponge::MEASURED);
    assert!(mirror.iter().all(|&r| (r - 1.0).abs() < 1e-9), "a mirror over itself: {mirror:?}");
    let [.., r60] = probe.mirror_echo();
    println!("reflecting edge: echo {r60:.4} of the direct wave at 60°");
    // Measured: 1.0797 (the 60° mirror echo over the direct wave at 400 cells on the axis: the
    // source's field is not quite round); allowed ±5%: the 60° probe sees a full echo, so a small
    // echo there means a small reflection.
    assert!((r60 - 1.0797).abs() < 0.05, "a mirror's 60° echo is {r60:.4} of the direct wave (measured 1.0797)");
}

/// Measured echoes of the matched layer (normal, 45°, 60°) as fractions of a mirror's, freq 0.2
/// and 0.1 (`absorbing_edge_returns_...`, CPU).
const PML_ECHO_02: (f64, f64, f64) = (0.000476, 0.000544, 0.001158);
const PML_ECHO_01: (f64, f64, f64) = (0.001279, 0.001232, 0.001349);

#[test]
fn energy_leaving_through_the_matched_layer_accounts_for_the_drop_in_the_grid() {
    // A pulse in the middle of a 160² grid with a matched layer (A) and of the same grid inside a
    // reflecting one 150 cells larger on every side (B: nothing comes back within 200 steps). The
    // discrete energy of the grid inside the layer: in A it drops as the wave leaves; in B the
    // energy that left the same region is B's total minus what is inside. Whatever A keeps beyond
    // B came back from the layer.
    let (n, pad, steps) = (160usize, 150usize, 200u32);
    let (fraction, drop) = layer_energy_balance(Boundary::Absorbing, n, pad, steps);
    println!(
        "matched layer: the grid inside the layer lost {:.4}% of the pulse's energy; {:.3e} of what left came back",
        100.0 * drop,
        fraction
    );
    // Measured (CPU, deterministic): LAYER_ENERGY, 5.4e-8 of the energy that left came back (the
    // amplitude echo of ~0.05% squared is 2.5e-7) and 99.98% of the pulse's energy left the grid.
    // Allowed: twice the return measured, and a drop within 1 point of the measurement.
    assert!(
        fraction <= 2.0 * LAYER_ENERGY.0,
        "{:.4}% of the energy that left the grid came back from the layer (measured {:.4}%)",
        100.0 * fraction,
        100.0 * LAYER_ENERGY.0
    );
    assert!(drop >= LAYER_ENERGY.1 - 0.01, "the grid kept {:.2}% of the pulse's energy", 100.0 * (1.0 - drop));
    // The balance catches an echo: with a reflecting edge the energy stays in the grid.
    let (fraction, drop) = layer_energy_balance(Boundary::Reflecting, n, pad, steps);
    println!("reflecting edge: {:.2}% of the pulse's energy left, {fraction:.3e} of it came back", 100.0 * drop);
    // Measured: 0.5125 (the rest is in the strip the layer would take, or on its way back).
    // Allowed: over half of that, seven orders of magnitude above the layer's.
    assert!(
        fraction > 0.25,
        "a reflecting edge returned only {:.2}% of the energy (measured 51.25%)",
        100.0 * fraction
    );
}

/// (Returned, drop) of [`energy_leaving_through_the_matched_layer_accounts_for_the_drop_in_the_grid`]:
/// `|E_A - E_B| / (E - E_B)` over the region inside the layer of an `n²` grid with `boundary`
/// after `steps`, where `E` is B's total energy (conserved once the pulse ended), and `1 - E_A/E`.
fn layer_energy_balance(boundary: Boundary, n: usize, pad: usize, steps: u32) -> (f64, f64) {
    let pulse = |x: usize| Source::Pulse { x: x as i64, y: x as i64, freq: 0.3, amplitude: 1.0, phase: 0.0, start: 1 };
    let mut a = Scene::seed(n, n, 0.3);
    a.boundary = boundary;
    a.sources = vec![pulse(n / 2)];
    let mut b = Scene::seed(n + 2 * pad, n + 2 * pad, 0.3);
    b.sources = vec![pulse(n / 2 + pad)];
    let w = Layer::width_on(n, n);
    let run = |s: &Scene| {
        let cells = SceneCells::new(s);
        let (mut f, mut g) = (vec![0.0; s.cells()], vec![0.0; s.cells()]);
        let mut aux = LayerFields::new(&cells);
        scene_reference_run(s, &cells, &mut f, &mut g, &mut aux, 0, steps);
        (cells, f, g)
    };
    let (ca, fa, ga) = run(&a);
    let (cb, fb, gb) = run(&b);
    let ea = energy_in(&ca, &fa, &ga, w + 1..n - 1 - w, w + 1..n - 1 - w);
    let eb = energy_in(&cb, &fb, &gb, pad + w + 1..pad + n - 1 - w, pad + w + 1..pad + n - 1 - w);
    let e = energy(&cb, &fb, &gb);
    ((ea - eb).abs() / (e - eb), 1.0 - ea / e)
}

/// (Returned fraction, drop) measured by [`layer_energy_balance`] for the matched layer.
const LAYER_ENERGY: (f64, f64) = (5.435e-8, 0.999776);
