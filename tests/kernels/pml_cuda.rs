//! The matched layer's CUDA twin (`pml_layer_cell` / `wave_scene_update` in `kernels/wave_scene.cu`):
//! the kernel source compiled as host C++ and run thread by thread against the Rust CPU twin, bit
//! for bit (no GPU needed: this runs in CI), and on the GPU machine the real CUDA run against
//! `cpu1` and the layer's echo measured on CUDA.

use wavebrot::sim::wave::pml::{Layer, LayerFields};
use wavebrot::sim::wave::scene::{Boundary, Scene};
use wavebrot::sim::wave::scene_cells::{SceneCells, scene_reference_run};

use crate::common;

/// Walls, a medium and a line source reaching into the layer, damping, and a grid that is no
/// multiple of the launch's 32 x 8 blocks.
const LAYERED: &str = r#"
description = "a matched layer with everything in it"
nx = 77
ny = 91
c2 = 0.25
damping = 0.001
boundary = "absorbing"

[[source]]
kind = "point"
x = 30
y = 40
freq = 0.2

[[source]]
kind = "line"
x0 = 3
y0 = 60
x1 = 25
y1 = 60
freq = 0.15
amplitude = 0.5

[[source]]
kind = "pulse"
x = 70
y = 10
freq = 0.3

[[wall]]
x0 = 40
y0 = 0
x1 = 41
y1 = 30

[[medium]]
shape = "circle"
x = 60
y = 80
r = 14.0
c2 = 0.1
"#;

/// `kernels/wave.cu` and `kernels/wave_scene.cu` with `tests/host/wave_scene_harness.cpp`, compiled as host C++ into `dir`
/// (no contraction of multiply-adds: NVRTC's kernels round each operation through the `__f*_rn`
/// intrinsics).
fn compile_harness(dir: &std::path::Path) -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = dir.join("wave_scene_harness");
    let out = std::process::Command::new("c++")
        .args(["-std=c++17", "-O2", "-ffp-contract=off", "-w", "-include"])
        .arg(root.join("tests/host/wave_mock.h"))
        .arg("-include")
        .arg(root.join("kernels/wave.cu"))
        .arg("-include")
        .arg(root.join("kernels/wave_scene.cu"))
        .arg(root.join("tests/host/wave_scene_harness.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("a C++ compiler (c++) to compile the kernel on the host");
    assert!(out.status.success(), "compiling the kernel as host C++:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// `kernels/wave.cu` and `kernels/wave_scene.cu` with `tests/host/wave_layer_blocked_harness.cpp`: the blocked layer kernel
/// `wave_scene_layer_steps` with one real thread per CUDA thread (`tests/host/wave_threads_mock.h`).
fn compile_blocked_harness(dir: &std::path::Path) -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = dir.join("wave_layer_blocked_harness");
    let out = std::process::Command::new("c++")
        .args(["-std=c++20", "-O2", "-ffp-contract=off", "-w", "-pthread", "-include"])
        .arg(root.join("tests/host/wave_threads_mock.h"))
        .arg("-include")
        .arg(root.join("kernels/wave.cu"))
        .arg("-include")
        .arg(root.join("kernels/wave_scene.cu"))
        .arg(root.join("tests/host/wave_layer_blocked_harness.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("a C++ compiler (c++) to compile the kernel on the host");
    assert!(out.status.success(), "compiling the kernel as host C++:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// The fields and auxiliary values after `steps` steps from zero of `scene` as the host-compiled
/// CUDA kernels compute them, the layer's coefficients passed through `tamper` first.
fn run_harness(
    exe: &std::path::Path,
    dir: &std::path::Path,
    scene: &Scene,
    steps: u32,
    tamper: impl Fn(&mut [f32]),
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    run_harness_with(exe, &[], dir, scene, steps, tamper)
}

/// [`run_harness`] with `args` after the harness's input and output files.
fn run_harness_with(
    exe: &std::path::Path,
    args: &[&str],
    dir: &std::path::Path,
    scene: &Scene,
    steps: u32,
    tamper: impl Fn(&mut [f32]),
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let cells = SceneCells::new(scene);
    let (nx, ny) = (scene.nx, scene.ny);
    let aux = LayerFields::new(&cells).values;
    let mut layer: Vec<f32> = cells
        .layer
        .as_ref()
        .map_or_else(Vec::new, |l| bytemuck::cast_slice(&[l.low.clone(), l.high.clone()].concat()).to_vec());
    tamper(&mut layer);
    let forced = scene.source_cells();
    let sources = scene.channels();
    let values: Vec<f32> =
        (1..=steps).flat_map(|t| scene.source_values(t).into_iter().map(|v| v.unwrap_or(f32::NAN))).collect();
    let edges = cells.materials.iter().any(|m| m.edge != 0);
    let header = [
        nx,
        ny,
        cells.materials.len(),
        cells.layer.as_ref().map_or(0, |l| l.width),
        aux.len(),
        layer.len() / 7,
        forced.len(),
        sources,
        steps as usize,
        usize::from(edges),
    ];
    let mut bytes: Vec<u8> = header.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect();
    bytes.extend(bytemuck::cast_slice::<u16, u8>(&cells.ids));
    bytes.extend(bytemuck::cast_slice::<_, u8>(&cells.materials));
    bytes.extend(bytemuck::cast_slice::<f32, u8>(&layer));
    bytes.extend(bytemuck::cast_slice::<f32, u8>(&aux));
    bytes.extend(vec![0u8; 2 * 4 * nx * ny]);
    bytes.extend(forced.iter().flat_map(|c| (c.cell as i64).to_le_bytes()));
    bytes.extend(forced.iter().flat_map(|c| (c.source as i32).to_le_bytes()));
    bytes.extend(bytemuck::cast_slice::<f32, u8>(&values));
    let (input, output) = (dir.join("in.bin"), dir.join("out.bin"));
    std::fs::write(&input, bytes).unwrap();
    let run = std::process::Command::new(exe).arg(&input).arg(&output).args(args).output().unwrap();
    assert!(run.status.success(), "the host harness failed ({:?})", run.status);
    let out: Vec<f32> =
        std::fs::read(&output).unwrap().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let (f, rest) = out.split_at(nx * ny);
    let (g, aux) = rest.split_at(nx * ny);
    (f.to_vec(), g.to_vec(), aux.to_vec())
}

/// The reference's fields and auxiliary values after `steps` steps from zero.
fn reference(scene: &Scene, steps: u32) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let cells = SceneCells::new(scene);
    let (mut f, mut g) = (vec![0.0; scene.cells()], vec![0.0; scene.cells()]);
    let mut aux = LayerFields::new(&cells);
    scene_reference_run(scene, &cells, &mut f, &mut g, &mut aux, 0, steps);
    (f, g, aux.values)
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Cells whose bits differ.
fn differing(a: &[f32], b: &[f32]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x.to_bits() != y.to_bits()).count()
}

#[test]
fn cuda_scene_kernels_run_the_matched_layer_bit_for_bit_on_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile_harness(dir.path());
    let steps = 300;
    let layered = Scene::from_toml(LAYERED).unwrap();
    // The same scene with Mur's edge and with reflecting edges: the launch order of the edges.
    let mut scenes = vec![layered.clone()];
    for boundary in [Boundary::Mur, Boundary::Reflecting] {
        let mut s = layered.clone();
        s.boundary = boundary;
        scenes.push(s);
    }
    for s in &scenes {
        let (f, g, aux) = run_harness(&exe, dir.path(), s, steps, |_| {});
        let (wf, wg, waux) = reference(s, steps);
        let name = s.boundary.name();
        println!(
            "wave.cu on the host, {name} edge, {}x{} {steps} steps: {} + {} + {} values differ from cpu1",
            s.nx,
            s.ny,
            differing(&f, &wf),
            differing(&g, &wg),
            differing(&aux, &waux)
        );
        assert!(wf.iter().any(|&v| v != 0.0), "{name}: the sources put a wave in");
        assert_eq!(bits(&f), bits(&wf), "{name}: f differs in {} cells", differing(&f, &wf));
        assert_eq!(bits(&g), bits(&wg), "{name}: g differs in {} cells", differing(&g, &wg));
        assert_eq!(bits(&aux), bits(&waux), "{name}: the layer's values differ in {}", differing(&aux, &waux));
    }
    // The comparison catches a wrong layer: one coefficient (w0 of the level next to the border,
    // low side) one unit in the last place off changes the bits.
    let w = Layer::width_on(layered.nx, layered.ny);
    let (f, _, _) = run_harness(&exe, dir.path(), &layered, steps, |l| {
        let k = 7 * w + 6;
        l[k] = f32::from_bits(l[k].to_bits() + 1);
    });
    let (wf, _, _) = reference(&layered, steps);
    let n = differing(&f, &wf);
    println!("one coefficient one ulp off: {n} cells of f differ");
    assert!(n > 0, "a layer coefficient one ulp off went unnoticed");
}

/// A matched scene of `nx x ny` reaching into its layer everywhere: a line source and a pulse inside
/// the layer, a wall through it, a slow medium touching it, damping.
fn layered_scene(nx: usize, ny: usize) -> Scene {
    let w = Layer::width_on(nx, ny);
    Scene::from_toml(&format!(
        r#"
description = "a matched layer with everything in it, {nx}x{ny}"
nx = {nx}
ny = {ny}
c2 = 0.25
damping = 0.001
boundary = "absorbing"

[[source]]
kind = "point"
x = {px}
y = {py}
freq = 0.2

[[source]]
kind = "line"
x0 = 1
y0 = {ly}
x1 = {lx}
y1 = {ly}
freq = 0.15
amplitude = 0.5

[[source]]
kind = "pulse"
x = {ux}
y = 1
freq = 0.3

[[wall]]
x0 = {wx}
y0 = 0
x1 = {wx1}
y1 = {wy}

[[medium]]
shape = "circle"
x = {mx}
y = {my}
r = {mr}
c2 = 0.1
"#,
        px = nx / 3,
        py = ny / 2,
        ly = 2 * ny / 3,
        lx = (w + 3).min(nx - 2),
        ux = nx - 2,
        wx = nx / 2,
        wx1 = nx / 2 + 1,
        wy = ny / 3,
        mx = 3 * nx / 4,
        my = ny - 1 - w / 2,
        mr = (nx.min(ny) / 6).max(2),
    ))
    .unwrap()
}

/// `wave_scene_layer_steps` (the blocked kernel's matched-layer tiles) on the host, every tile of
/// the grid run by it, 1 to 4 steps per launch, against the CPU twin bit for bit: fields and the
/// layer's values, on odd and even grids, layers 1 to 32 cells wide (the widest crossing a tile's
/// output centre), step counts no multiple of the launch's. Then a coefficient one ulp off.
#[test]
fn cuda_blocked_layer_kernel_equals_cpu1_bit_for_bit_on_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile_blocked_harness(dir.path());
    for (nx, ny, steps, per) in
        [(77, 91, 301, 4), (150, 171, 157, 4), (13, 203, 200, 3), (9, 60, 99, 2), (96, 97, 41, 1)]
    {
        let s = layered_scene(nx, ny);
        let w = Layer::width_on(nx, ny);
        let per_arg = per.to_string();
        let (f, g, aux) = run_harness_with(&exe, &[&per_arg], dir.path(), &s, steps, |_| {});
        let (wf, wg, waux) = reference(&s, steps);
        println!(
            "blocked layer kernel on the host, {nx}x{ny} layer {w}, {steps} steps, {per} per launch: {} + {} + {} \
             values differ from cpu1",
            differing(&f, &wf),
            differing(&g, &wg),
            differing(&aux, &waux)
        );
        assert!(wf.iter().any(|&v| v != 0.0), "{nx}x{ny}: the sources put a wave in");
        assert!(waux.iter().any(|&v| v != 0.0), "{nx}x{ny}: the wave reached the layer");
        assert_eq!(bits(&f), bits(&wf), "{nx}x{ny} layer {w}: f differs in {} cells", differing(&f, &wf));
        assert_eq!(bits(&g), bits(&wg), "{nx}x{ny} layer {w}: g differs in {} cells", differing(&g, &wg));
        assert_eq!(
            bits(&aux),
            bits(&waux),
            "{nx}x{ny} layer {w}: the layer's values differ in {}",
            differing(&aux, &waux)
        );
    }
    // The comparison catches a wrong layer: w0 of the level next to the border one ulp off.
    let s = layered_scene(77, 91);
    let w = Layer::width_on(77, 91);
    let (f, _, _) = run_harness_with(&exe, &["4"], dir.path(), &s, 301, |l| {
        let k = 7 * w + 6;
        l[k] = f32::from_bits(l[k].to_bits() + 1);
    });
    let (wf, _, _) = reference(&s, 301);
    let n = differing(&f, &wf);
    println!("blocked layer kernel, one coefficient one ulp off: {n} cells of f differ");
    assert!(n > 0, "a layer coefficient one ulp off went unnoticed");
}

/// The real CUDA kernels on a matched scene against `cpu1`, bit for bit: both fields after 400
/// steps, carried over `advance` calls, then written back (the layer's values start again from 0).
#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_matched_scene_equals_cpu1_bit_for_bit() {
    let Some(b) = common::cuda_backend("cuda_matched_scene_equals_cpu1_bit_for_bit") else { return };
    let s = Scene::from_toml(LAYERED).unwrap();
    for variant in [wavebrot::backend::WaveVariant::Blocked, wavebrot::backend::WaveVariant::Simple] {
        let (wf, wg, _) = reference(&s, 400);
        let mut sim = b.new_scene_variant(&s, variant).unwrap();
        // The blocked variant runs the layer blocked (`wave_scene_layer_steps`), not one update per launch.
        assert_eq!(sim.variant(), Some(variant), "cuda matched scene asked {variant}, runs {:?}", sim.variant());
        sim.advance(150).unwrap();
        sim.advance(250).unwrap();
        let (mut f, mut g) = (vec![0.0; s.cells()], vec![0.0; s.cells()]);
        sim.read_fields(&mut f, &mut g).unwrap();
        println!(
            "cuda {variant} matched scene 400 steps: {} + {} cells differ",
            differing(&f, &wf),
            differing(&g, &wg)
        );
        assert_eq!(bits(&f), bits(&wf), "cuda {variant}: f differs in {} cells", differing(&f, &wf));
        assert_eq!(bits(&g), bits(&wg), "cuda {variant}: g differs in {} cells", differing(&g, &wg));
        // Written back: the reference from the same fields with the layer's values at 0.
        sim.write_fields(&f, &g, 400).unwrap();
        sim.advance(100).unwrap();
        let cells = SceneCells::new(&s);
        let mut aux = LayerFields::new(&cells);
        let (mut rf, mut rg) = (f.clone(), g.clone());
        scene_reference_run(&s, &cells, &mut rf, &mut rg, &mut aux, 400, 500);
        sim.read_fields(&mut f, &mut g).unwrap();
        assert_eq!(bits(&f), bits(&rf), "cuda {variant} after write_fields: f differs in {} cells", differing(&f, &rf));
    }
}

/// The layer's echo measured on CUDA (the probes read from the device after every step), as
/// `pml.rs` measures it on the CPU: the same limits.
#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_matched_layer_returns_under_half_a_percent_head_on_and_one_percent_at_45_and_60_degrees() {
    use crate::scene::EdgeProbe;
    let Some(b) = common::cuda_backend("cuda_matched_layer_echo") else { return };
    let freq = 0.2;
    let probe = EdgeProbe::new(freq);
    let s = EdgeProbe::scene(freq, 0, Boundary::Absorbing);
    let mut sim = b.new_scene(&s).unwrap();
    let mut signals = vec![Vec::new(); EdgeProbe::PROBES.len()];
    let mut f = vec![0.0; s.cells()];
    for _ in 0..EdgeProbe::STEPS {
        sim.advance(1).unwrap();
        sim.read_field(&mut f).unwrap();
        for (o, &(x, y)) in signals.iter_mut().zip(&EdgeProbe::PROBES) {
            o.push(f[x * s.ny + y]);
        }
    }
    let [n, d45, d60] = probe.reflection(&signals);
    println!(
        "cuda matched layer, freq {freq}: echo {:.4}% of a mirror's at normal incidence, {:.4}% at 45°, {:.4}% at 60°",
        100.0 * n,
        100.0 * d45,
        100.0 * d60
    );
    // CUDA computes cpu1's bits (`cuda_matched_scene_equals_cpu1_bit_for_bit`), so the echoes are
    // the CPU's measured 0.048% / 0.054% / 0.116% (pml.rs, PML_ECHO_02); allowed: the issue's limits.
    for (what, got, limit) in [("normal incidence", n, 0.005), ("45°", d45, 0.01), ("60°", d60, 0.01)] {
        assert!(got <= limit, "cuda matched layer returns {:.3}% of a mirror's echo at {what}", 100.0 * got);
    }
}
