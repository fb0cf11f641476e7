//! The wgpu backend against the CPU reference, on whatever adapter is here (CI: llvmpipe, the
//! software Vulkan of mesa-vulkan-drivers). Without an adapter each test prints
//! "skipped: no wgpu adapter: <reason>" and passes, unless `WAVEBROT_REQUIRE_WGPU=1`
//! (set by `.ci/run`), which makes the skip a failure.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use std::path::Path;
use std::time::Duration;

use wavebrot::backend::wgpu::{WgpuBackend, WgpuWave, request_device, wave::default_variant};
use wavebrot::backend::{Backend, BackendError, BackendKind, TimingSource, WaveSim, WaveVariant, cpu};
use wavebrot::output::read_npy;
use wavebrot::sim::colormap::wave_rgba;
use wavebrot::sim::mandelbrot::{self, Bounds, MandelbrotParams, Precision};
use wavebrot::sim::wave::{self, WAVE_TOLERANCE, WaveParams};

/// A wgpu device, or `None` (after printing why) where there is none and none is required.
fn device() -> Option<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo)> {
    match request_device() {
        Ok(d) => Some(d),
        Err(BackendError::Unavailable { reason, .. }) => {
            if std::env::var("WAVEBROT_REQUIRE_WGPU").is_ok_and(|v| v == "1") {
                panic!("WAVEBROT_REQUIRE_WGPU=1 but {reason}");
            }
            println!("skipped: {reason}");
            None
        }
        Err(e) => panic!("opening wgpu failed: {e}"),
    }
}

fn backend() -> Option<WgpuBackend> {
    let (device, queue, info) = device()?;
    Some(WgpuBackend::from_device(device, queue, info).expect("the shaders compile"))
}

fn field(sim: &mut dyn WaveSim) -> Vec<f32> {
    let mut f = vec![0.0; sim.params().cells()];
    sim.read_field(&mut f).unwrap();
    f
}

#[test]
fn wave_equals_the_cpu_reference_at_odd_shapes() {
    let Some(b) = backend() else { return };
    for (nx, ny, tmax) in [(37, 53, 300), (130, 67, 250), (3, 3, 10), (5, 131, 200), (257, 4, 100)] {
        let p = WaveParams::new(nx, ny, wave::DEFAULT_FREQ);
        let want = wave::reference(&p, tmax);
        let mut sim = b.new_wave(&p).unwrap();
        // Two calls: the state carries over between advances.
        sim.advance(tmax / 3).unwrap();
        sim.advance(tmax - tmax / 3).unwrap();
        assert_eq!(sim.tstep(), tmax);
        let d = wave::max_abs_diff(&field(sim.as_mut()), &want);
        println!("wave {nx}x{ny} tmax={tmax}: max|diff| {d:e}");
        assert!(d <= WAVE_TOLERANCE, "wave {nx}x{ny} tmax={tmax}: max|diff| {d:e}");
    }
}

#[test]
fn both_wave_variants_give_the_same_bits() {
    let Some(b) = backend() else { return };
    assert_eq!(b.wave_variants(), &[WaveVariant::Blocked, WaveVariant::Simple]);
    for (nx, ny, tmax) in [(37, 53, 120), (130, 67, 100), (3, 3, 10), (6, 40, 50), (33, 5, 60)] {
        let p = WaveParams { source: (1, ny - 1), ..WaveParams::new(nx, ny, 0.2) };
        let want = wave::reference(&p, tmax);
        for variant in WaveVariant::CONCRETE {
            let mut sim = b.new_wave_variant(&p, variant).unwrap();
            sim.advance(tmax).unwrap();
            assert_eq!(sim.variant(), Some(variant));
            let d = wave::max_abs_diff(&field(sim.as_mut()), &want);
            assert!(d <= WAVE_TOLERANCE, "{variant} {nx}x{ny}: max|diff| {d:e}");
        }
    }
}

/// The field after `advance` calls of `chunks` steps each with `variant` (at most
/// `per_submit` steps, or blocked dispatches, per submission where given).
fn run_variant(
    b: &WgpuBackend,
    p: &WaveParams,
    variant: WaveVariant,
    chunks: &[u32],
    per_submit: Option<u32>,
) -> Vec<f32> {
    let mut sim = b.new_wave_variant(p, variant).unwrap();
    if let Some(n) = per_submit {
        sim.as_any_mut().downcast_mut::<WgpuWave>().unwrap().limit_steps_per_submit(n);
    }
    for &n in chunks {
        sim.advance(n).unwrap();
    }
    assert_eq!(sim.tstep(), chunks.iter().sum::<u32>());
    assert_eq!(sim.variant(), Some(variant));
    field(sim.as_mut())
}

fn assert_same_bits(got: &[f32], want: &[f32], what: &str) {
    let differ = got.iter().zip(want).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
    let d = wave::max_abs_diff(got, want);
    assert!(differ == 0, "{what}: {differ} cells differ from the one-update kernel, max|diff| {d:e}");
}

/// `nx`, `ny`, the source and the steps of each `advance`.
type BlockedCase = (usize, usize, (usize, usize), &'static [u32]);

#[test]
fn the_blocked_variant_gives_the_bits_of_the_simple_one() {
    let Some(b) = backend() else { return };
    // Odd shapes, shapes at and across the 48-cell output block, sources centred, off centre,
    // next to a block edge, in a halo, on the border and in a corner; step counts that are
    // not multiples of the 4 steps per dispatch, split over several advances (1 step included).
    let cases: [BlockedCase; 12] = [
        (3, 3, (1, 1), &[10]),
        (37, 53, (18, 26), &[1, 2, 3, 5, 7, 13, 1, 70]),
        (48, 48, (47, 47), &[9, 31]),
        (49, 97, (47, 48), &[41]),
        (97, 49, (48, 47), &[3, 38]),
        (130, 67, (5, 60), &[101]),
        (5, 131, (2, 130), &[63]),
        (257, 4, (200, 2), &[50]),
        (100, 150, (0, 11), &[37]),
        (96, 145, (95, 144), &[26]),
        (145, 96, (40, 95), &[1, 1, 1, 30]),
        (200, 150, (51, 44), &[6, 77]),
    ];
    for (nx, ny, source, chunks) in cases {
        let p = WaveParams { source, ..WaveParams::new(nx, ny, 0.2) };
        let tmax: u32 = chunks.iter().sum();
        let what = format!("{nx}x{ny} source {source:?} steps {chunks:?}");
        let cells = run_variant(&b, &p, WaveVariant::Simple, &[tmax], None);
        let tiled = run_variant(&b, &p, WaveVariant::Blocked, chunks, None);
        assert_same_bits(&tiled, &cells, &what);
        let d = wave::max_abs_diff(&tiled, &wave::reference(&p, tmax));
        println!("blocked {what}: max|diff| against the CPU {d:e}");
        assert!(d <= WAVE_TOLERANCE, "blocked {what}: max|diff| against the CPU {d:e}");
    }
}

#[test]
fn the_blocked_variant_over_many_steps_and_submissions() {
    let Some(b) = backend() else { return };
    // 2 dispatches (8 steps) per submission: 1002 steps take 126 submissions.
    let p = WaveParams { source: (60, 33), ..WaveParams::new(101, 75, wave::DEFAULT_FREQ) };
    let tiled = run_variant(&b, &p, WaveVariant::Blocked, &[1000, 2], Some(2));
    let cells = run_variant(&b, &p, WaveVariant::Simple, &[1002], None);
    assert_same_bits(&tiled, &cells, "101x75, 1002 steps");
    let d = wave::max_abs_diff(&tiled, &wave::reference(&p, 1002));
    assert!(d <= WAVE_TOLERANCE, "max|diff| against the CPU {d:e}");
    // Moving the source and frequency between advances, as the app does.
    let mut sim = b.new_wave_variant(&p, WaveVariant::Blocked).unwrap();
    let mut cpu = cpu::CpuBackend::new(cpu::Threads::One).new_wave(&p).unwrap();
    for (k, s) in [(0, 0), (3, 99), (74, 50), (13, 13)].into_iter().enumerate() {
        for w in [sim.as_mut(), cpu.as_mut()] {
            w.set_source(s.0, s.1.min(74)).unwrap();
            w.set_freq(0.1 + 0.05 * k as f64);
            w.advance(11 + k as u32).unwrap();
        }
    }
    let d = wave::max_abs_diff(&field(sim.as_mut()), &field(cpu.as_mut()));
    assert!(d <= WAVE_TOLERANCE, "after moves: max|diff| {d:e}");
}

#[test]
fn auto_picks_the_variant_for_the_adapter() {
    assert_eq!(default_variant(wgpu::DeviceType::DiscreteGpu), WaveVariant::Blocked);
    assert_eq!(default_variant(wgpu::DeviceType::Cpu), WaveVariant::Simple);
    let Some((device, queue, info)) = device() else { return };
    let device_type = info.device_type;
    let b = WgpuBackend::from_device(device, queue, info).unwrap();
    let sim = b.new_wave(&WaveParams::new(20, 20, 0.1)).unwrap();
    assert_eq!(sim.variant(), Some(default_variant(device_type)));
}

#[test]
fn wave_equals_the_numpy_seed() {
    let Some(b) = backend() else { return };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wave_37x53_t300.npy");
    let (want, shape) = read_npy::<f32>(&path).unwrap();
    assert_eq!(shape, [37, 53]);
    let mut sim = b.new_wave(&WaveParams::new(37, 53, wave::DEFAULT_FREQ)).unwrap();
    sim.advance(300).unwrap();
    let d = wave::max_abs_diff(&field(sim.as_mut()), &want);
    assert!(d <= WAVE_TOLERANCE, "max|diff| against numpy {d:e}");
}

#[test]
fn long_runs_span_several_submissions() {
    // 1100x700 cells take at most 348 steps per submission: 450 steps need two.
    let Some(b) = backend() else { return };
    let p = WaveParams::new(1100, 700, wave::DEFAULT_FREQ);
    let mut sim = b.new_wave(&p).unwrap();
    let t = sim.advance(450).unwrap();
    let d = wave::max_abs_diff(&field(sim.as_mut()), &wave::reference(&p, 450));
    assert!(d <= WAVE_TOLERANCE, "max|diff| {d:e}");
    if b.has_timestamps() {
        assert_eq!(t.source, TimingSource::TimestampQueries);
        let device = t.device.expect("a GPU time");
        assert!(device > Duration::ZERO && device <= t.wall, "kernels {device:?} within the call {:?}", t.wall);
    } else {
        assert_eq!(t.source, TimingSource::WallClock);
    }
}

#[test]
fn reset_source_and_frequency_behave_like_the_cpu() {
    let Some(b) = backend() else { return };
    let p = WaveParams::new(41, 29, 0.1);
    let mut gpu = b.new_wave(&p).unwrap();
    let mut cpu = cpu::CpuBackend::new(cpu::Threads::One).new_wave(&p).unwrap();
    for sim in [&mut gpu, &mut cpu] {
        sim.advance(20).unwrap();
        sim.set_source(5, 7).unwrap();
        sim.set_freq(0.3);
        sim.advance(15).unwrap();
        // A source on the border holds its value there.
        sim.set_source(0, 11).unwrap();
        sim.advance(10).unwrap();
        assert!(sim.set_source(41, 0).is_err(), "a source outside the grid is refused");
        assert_eq!(sim.params().source, (0, 11));
    }
    let d = wave::max_abs_diff(&field(gpu.as_mut()), &field(cpu.as_mut()));
    assert!(d <= WAVE_TOLERANCE, "after moves: max|diff| {d:e}");

    gpu.reset().unwrap();
    assert_eq!(gpu.tstep(), 0);
    assert!(field(gpu.as_mut()).iter().all(|&v| v == 0.0), "reset zeroes the field");
    // From zero again, with the moved source and new frequency.
    gpu.advance(40).unwrap();
    let want = wave::reference(&WaveParams { source: (0, 11), freq: 0.3, ..p }, 40);
    let d = wave::max_abs_diff(&field(gpu.as_mut()), &want);
    assert!(d <= WAVE_TOLERANCE, "after reset: max|diff| {d:e}");
}

fn assert_within_one_level(got: &[u8], want: &[u8], what: &str) {
    assert_eq!(got.len(), want.len());
    let worst = got.iter().zip(want).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
    assert!(worst <= 1, "{what}: a channel differs by {worst} levels");
}

#[test]
fn render_rgba_equals_the_cpu_colormap() {
    let Some(b) = backend() else { return };
    let p = WaveParams::new(67, 45, 0.2);
    let mut sim = b.new_wave(&p).unwrap();
    sim.advance(60).unwrap();
    let f = field(sim.as_mut());
    let mut got = vec![0u8; p.cells() * 4];
    let mut want = vec![0u8; p.cells() * 4];
    for (vmin, vmax) in [(-0.1, 0.1), (-1.0, 1.0), (0.0, 0.05), (0.1, -0.1), (0.0, 0.0)] {
        sim.render_rgba(vmin, vmax, &mut got).unwrap();
        wave_rgba(&f, p.nx, p.ny, vmin, vmax, &mut want);
        assert_within_one_level(&got, &want, &format!("render_rgba [{vmin}, {vmax}]"));
        assert_eq!(got, want, "exactly the CPU's bytes at [{vmin}, {vmax}]");
    }
    assert!(matches!(sim.render_rgba(-0.1, 0.1, &mut got[4..]), Err(BackendError::Invalid(_))));
}

/// Copies an RGBA8 texture to the host, dropping the row padding.
fn read_texture(device: &wgpu::Device, queue: &wgpu::Queue, texture: &wgpu::Texture) -> Vec<u8> {
    let (w, h) = (texture.width(), texture.height());
    let row = 4 * w;
    let padded = row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("texture readback"),
        size: u64::from(padded * h),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(padded), rows_per_image: Some(h) },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    buffer.map_async(wgpu::MapMode::Read, .., |r| r.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let view = buffer.get_mapped_range(..).unwrap();
    view.chunks_exact(padded as usize).flat_map(|r| &r[..row as usize]).copied().collect()
}

#[test]
fn colormap_into_a_texture_equals_the_cpu_colormap() {
    let Some((device, queue, info)) = device() else { return };
    let b = WgpuBackend::from_device(device.clone(), queue.clone(), info).unwrap();
    let p = WaveParams::new(53, 37, 0.15);
    let mut boxed = b.new_wave(&p).unwrap();
    boxed.advance(50).unwrap();
    let f = field(boxed.as_mut());
    let sim = boxed.as_any_mut().downcast_mut::<WgpuWave>().expect("a Box<dyn WaveSim> from wgpu is a WgpuWave");
    let texture = sim.create_frame_texture();
    assert_eq!((texture.width(), texture.height()), (53, 37));
    let mut want = vec![0u8; p.cells() * 4];
    for (vmin, vmax) in [(-0.1, 0.1), (-0.5, 0.25)] {
        sim.colormap_into(vmin, vmax, &texture).unwrap();
        let got = read_texture(&device, &queue, &texture);
        wave_rgba(&f, p.nx, p.ny, vmin, vmax, &mut want);
        assert_within_one_level(&got, &want, &format!("colormap_into [{vmin}, {vmax}]"));
    }
    // A texture of the wrong size is refused with a message, not a panic.
    let other = b.new_wgpu_wave(&WaveParams::new(20, 20, 0.1)).unwrap().create_frame_texture();
    let err = sim.colormap_into(-0.1, 0.1, &other).unwrap_err();
    assert!(err.to_string().contains("20x20"), "{err}");
}

#[test]
fn mandelbrot_counts_equal_the_cpu() {
    let Some(mut b) = backend() else { return };
    let zoom = Bounds { minx: -0.7530, maxx: -0.7490, miny: 0.0990, maxy: 0.1020 };
    let cases =
        [(96, 64, 20, Bounds::SEED), (641, 479, 1000, Bounds::SEED), (301, 203, 2000, zoom), (1, 1, 5, Bounds::SEED)];
    for (width, height, iters, bounds) in cases {
        for precision in [Precision::F32, Precision::F64] {
            let p = MandelbrotParams { width, height, iters, bounds, precision };
            let mut counts = vec![-1; p.pixels()];
            let run = match b.mandelbrot(&p, &mut counts) {
                Ok(run) => run,
                Err(BackendError::Invalid(why)) if precision == Precision::F64 && !b.has_f64() => {
                    assert!(why.contains("no f64"), "{why}");
                    println!("f64 skipped: {why}");
                    continue;
                }
                Err(e) => panic!("{e}"),
            };
            let (want, _) = mandelbrot::reference(&p);
            let m = mandelbrot::mismatch_frac(&counts, &want);
            println!("mandelbrot {width}x{height} iters={iters} {}: mismatch {:.4}%", precision.name(), m * 100.0);
            assert!(m <= mandelbrot::mismatch_tolerance(precision), "{} pixels differ", m * 100.0);
            let own_total: u64 = counts.iter().map(|&c| mandelbrot::iterations_executed(c as u32, iters)).sum();
            assert_eq!(run.total_iters, own_total, "the GPU's iteration total");
        }
    }
}

#[test]
fn mandelbrot_total_beyond_32_bits() {
    // 512x512 pixels inside the set at 20000 iterations: 5.2e9 iterations, past u32.
    let Some(mut b) = backend() else { return };
    let inside = Bounds { minx: -0.2, maxx: 0.1, miny: -0.2, maxy: 0.2 };
    let p = MandelbrotParams { width: 512, height: 512, iters: 20_000, bounds: inside, precision: Precision::F32 };
    let mut counts = vec![0; p.pixels()];
    let run = b.mandelbrot(&p, &mut counts).unwrap();
    assert!(counts.iter().all(|&c| c == 20_000));
    assert_eq!(run.total_iters, 512 * 512 * 20_000);
}

#[test]
fn errors_are_clear_not_panics() {
    let Some(b) = backend() else { return };
    assert_eq!(b.kind(), BackendKind::Wgpu);
    // 2^30 cells of 4 bytes: larger than any device's storage binding.
    match b.new_wave(&WaveParams::new(1 << 15, 1 << 15, 0.1)) {
        Err(e @ BackendError::OutOfMemory { .. }) => println!("refused: {e}"),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a 2 x 4 GiB wave must be refused"),
    }
    assert!(matches!(b.new_wave(&WaveParams::new(2, 10, 0.1)), Err(BackendError::Invalid(_))));
    let mut sim = b.new_wave(&WaveParams::new(10, 10, 0.1)).unwrap();
    assert!(matches!(sim.read_field(&mut [0.0; 3]), Err(BackendError::Invalid(_))));
    let info = b.device_info();
    let keys: Vec<&str> = info.details.iter().map(|(k, _)| k.as_str()).collect();
    for key in ["adapter", "backend", "device type", "driver", "f64", "timing"] {
        assert!(keys.contains(&key), "device_info lacks {key}: {keys:?}");
    }
    assert!(!wavebrot::backend::wgpu::list_adapters().is_empty());
}

#[test]
fn a_device_without_compute_limits_is_refused() {
    let Some((_, _, info)) = device() else { return };
    // What egui-wgpu asks for on GL: WebGL2 limits, no compute.
    let adapters = pollster::block_on(wgpu::Instance::default().enumerate_adapters(wgpu::Backends::all()));
    let adapter = adapters.into_iter().find(|a| a.get_info() == info).expect("the same adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: wgpu::Limits::downlevel_webgl2_defaults(),
        ..Default::default()
    }))
    .unwrap();
    match WgpuBackend::from_device(device, queue, info) {
        Err(BackendError::Unavailable { reason, .. }) => assert!(reason.contains("compute"), "{reason}"),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a device without compute limits must be refused"),
    }
}

#[test]
fn a_lost_device_gives_an_error() {
    let Some((device, queue, info)) = device() else { return };
    let b = WgpuBackend::from_device(device.clone(), queue, info).unwrap();
    let mut sim = b.new_wave(&WaveParams::new(16, 16, 0.1)).unwrap();
    sim.advance(2).unwrap();
    device.destroy();
    let err = sim.advance(2).unwrap_err();
    assert!(err.to_string().contains("lost"), "{err}");
}

#[test]
fn an_eframe_style_device_works_with_wall_clock_and_f32_only() {
    // What egui-wgpu asks for on Vulkan/Metal/DX12 by default: WebGPU's default limits and
    // no optional features, so no timestamps and no f64.
    let Some((_, _, info)) = device() else { return };
    let adapters = pollster::block_on(wgpu::Instance::default().enumerate_adapters(wgpu::Backends::all()));
    let adapter = adapters.into_iter().find(|a| a.get_info() == info).expect("the same adapter");
    if adapter.get_info().backend == wgpu::Backend::Gl {
        println!("skipped: egui-wgpu gives GL devices no compute limits");
        return;
    }
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: wgpu::Limits { max_texture_dimension_2d: 8192, ..wgpu::Limits::default() },
        ..Default::default()
    }))
    .unwrap();
    let mut b = WgpuBackend::from_device(device, queue, info).unwrap();
    assert!(!b.has_timestamps() && !b.has_f64());
    let p = WaveParams::new(37, 53, wave::DEFAULT_FREQ);
    let mut sim = b.new_wave(&p).unwrap();
    let t = sim.advance(100).unwrap();
    assert_eq!((t.source, t.device), (TimingSource::WallClock, None));
    let d = wave::max_abs_diff(&field(sim.as_mut()), &wave::reference(&p, 100));
    assert!(d <= WAVE_TOLERANCE, "max|diff| {d:e}");
    let f64_params = MandelbrotParams { width: 8, height: 8, ..MandelbrotParams::SEED };
    match b.mandelbrot(&f64_params, &mut [0; 64]) {
        Err(BackendError::Invalid(why)) => assert!(why.contains("no f64"), "{why}"),
        other => panic!("f64 without SHADER_F64 must be Invalid, got {other:?}"),
    }
    let f32_params = MandelbrotParams { precision: Precision::F32, ..f64_params };
    b.mandelbrot(&f32_params, &mut [0; 64]).unwrap();
}
