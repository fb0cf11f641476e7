//! Criterion benches of the CPU kernels, so a change's speed is measured the same way every
//! time (`cargo bench`). GPU timings come from `wavebrot bench` on the device.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use wavebrot::backend::cpu::{Threads, wave_tstep, wave_update};
use wavebrot::sim::colour::colormap::wave_rgba;
use wavebrot::sim::fractal::mandelbrot::{MandelbrotParams, Precision, mandelbrot_row};
use wavebrot::sim::wave::WaveParams;

fn wave(c: &mut Criterion) {
    let p = WaveParams::new(1000, 800, 0.1);
    let mut g = vec![0.0f32; p.cells()];
    let mut f = vec![0.0f32; p.cells()];
    // A field that is not all zeros, so no path can shortcut.
    for (k, v) in g.iter_mut().enumerate() {
        *v = ((k % 97) as f32 - 48.0) * 1e-3;
    }
    let mut halo = Vec::new();
    for threads in [Threads::One, Threads::All] {
        c.bench_function(&format!("wave 1000x800 tstep fused {threads:?}"), |b| {
            b.iter(|| wave_tstep(threads, black_box(&p), &mut f, &mut g, &mut halo));
        });
        c.bench_function(&format!("wave 1000x800 two updates {threads:?}"), |b| {
            b.iter(|| {
                wave_update(threads, &p, &mut f, &g);
                wave_update(threads, &p, &mut g, &f);
            });
        });
    }
    let mut rgba = vec![0u8; p.cells() * 4];
    c.bench_function("hot colormap 1000x800", |b| b.iter(|| wave_rgba(black_box(&f), 1000, 800, -0.1, 0.1, &mut rgba)));
}

fn mandelbrot(c: &mut Criterion) {
    for precision in [Precision::F64, Precision::F32] {
        let p = MandelbrotParams { precision, iters: 200, ..MandelbrotParams::SEED };
        let mut row = vec![0i32; p.width];
        c.bench_function(&format!("mandelbrot row 1536 px, 200 iters {}", precision.name()), |b| {
            b.iter(|| mandelbrot_row(black_box(&p), 512, &mut row));
        });
    }
}

criterion_group!(benches, wave, mandelbrot);
criterion_main!(benches);
