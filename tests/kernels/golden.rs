//! The CPU paths against golden data made by the seed's own numpy code
//! (`tools/make_golden.py`, outputs in `tests/data/`).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use std::path::PathBuf;

use wavebrot::backend::{self, BackendKind};
use wavebrot::output::read_npy;
use wavebrot::sim::colour::colormap::{HOT_LUT, wave_rgba};
use wavebrot::sim::fractal::mandelbrot::{Bounds, MandelbrotParams, Precision};
use wavebrot::sim::wave::{self, WAVE_TOLERANCE, WaveParams};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn run_wave(kind: BackendKind, p: &WaveParams, tmax: u32) -> Vec<f32> {
    let mut sim = backend::open(kind).unwrap().new_wave(p).unwrap();
    sim.advance(tmax).unwrap();
    let mut f = vec![0.0; p.cells()];
    sim.read_field(&mut f).unwrap();
    f
}

#[test]
fn wave_matches_the_numpy_seed() {
    for (nx, ny, tmax) in [(37, 53, 300), (64, 64, 100), (101, 40, 250), (200, 160, 500)] {
        let (want, shape) = read_npy::<f32>(&data(&format!("wave_{nx}x{ny}_t{tmax}.npy"))).unwrap();
        assert_eq!(shape, [nx as u64, ny as u64]);
        let p = WaveParams::new(nx, ny, 0.1);
        for kind in [BackendKind::Cpu1, BackendKind::Cpu] {
            let got = run_wave(kind, &p, tmax);
            let d = wave::max_abs_diff(&got, &want);
            assert!(d <= WAVE_TOLERANCE, "{kind} {nx}x{ny} tmax={tmax}: max|diff| {d:e}");
        }
        // The reference follows numpy's f32 order of operations, so it is exact, not just close.
        assert_eq!(wave::reference(&p, tmax), want, "{nx}x{ny}: reference not bit-identical to numpy");
    }
}

#[test]
fn mandelbrot_f64_counts_match_numpy_exactly() {
    let zoom = Bounds { minx: -0.7530, maxx: -0.7490, miny: 0.0990, maxy: 0.1020 };
    let cases = [
        ("mandel_96x64_i20.npy", 96, 64, 20, Bounds::SEED),
        ("mandel_77x51_i200.npy", 77, 51, 200, Bounds::SEED),
        ("mandel_60x40_i500_zoom.npy", 60, 40, 500, zoom),
    ];
    for (file, width, height, iters, bounds) in cases {
        let (want, shape) = read_npy::<i32>(&data(file)).unwrap();
        assert_eq!(shape, [height as u64, width as u64]);
        let p = MandelbrotParams { width, height, iters, bounds, precision: Precision::F64 };
        for kind in [BackendKind::Cpu1, BackendKind::Cpu] {
            let mut counts = vec![0; p.pixels()];
            backend::open(kind).unwrap().mandelbrot(&p, &mut counts).unwrap();
            assert_eq!(counts, want, "{kind} {file}");
        }
        // f32 stays within its 1% budget of the exact counts.
        let p32 = MandelbrotParams { precision: Precision::F32, ..p };
        let mut counts = vec![0; p.pixels()];
        backend::open(BackendKind::Cpu).unwrap().mandelbrot(&p32, &mut counts).unwrap();
        let m = wavebrot::sim::fractal::mandelbrot::mismatch_frac(&counts, &want);
        assert!(m <= 0.01 || file.contains("zoom"), "f32 {file}: {m}");
    }
}

#[test]
fn hot_equals_matplotlib() {
    let (want, shape) = read_npy::<u8>(&data("hot_lut.npy")).unwrap();
    assert_eq!(shape, [256, 4]);
    for (k, px) in HOT_LUT.iter().enumerate() {
        assert_eq!(&px[..], &want[k * 4..k * 4 + 4], "entry {k}");
    }
}

#[test]
fn wave_picture_equals_matplotlib_imshow() {
    // imshow(f.T, cmap='hot', origin='lower', vmin=-0.1, vmax=0.1), as matplotlib colours it.
    let (f, _) = read_npy::<f32>(&data("wave_41x29_t40_f0.3.npy")).unwrap();
    let (want, shape) = read_npy::<u8>(&data("wave_41x29_t40_hot.npy")).unwrap();
    assert_eq!(shape, [29, 41, 4]);
    let mut rgba = vec![0u8; 41 * 29 * 4];
    wave_rgba(&f, 41, 29, -0.1, 0.1, &mut rgba);
    let differing = rgba.chunks(4).zip(want.chunks(4)).filter(|(a, b)| a != b).count();
    assert_eq!(differing, 0, "{differing} of {} pixels differ from matplotlib", 41 * 29);
}
