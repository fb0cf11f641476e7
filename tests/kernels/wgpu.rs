//! The wgpu backend itself, on whatever adapter is here (CI: llvmpipe, the software Vulkan of
//! mesa-vulkan-drivers): errors, limits, lost devices, eframe-style devices, the variant `auto`
//! picks. Its kernels are compared with the CPU in `tests/kernels/wave.rs`, `tests/kernels/mandelbrot.rs` and
//! `tests/kernels/colormap.rs`. Without an adapter each test skips (logged: `tests/common`), a failure
//! where wgpu is required (`.ci/run`).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;

use wavebrot::backend::wgpu::{WgpuBackend, wave::default_variant};
use wavebrot::backend::{Backend, BackendError, BackendKind, TimingSource, WaveVariant};
use wavebrot::sim::fractal::mandelbrot::{MandelbrotParams, Precision};
use wavebrot::sim::wave::{self, WAVE_TOLERANCE, WaveParams};

#[test]
fn auto_picks_the_variant_for_the_adapter() {
    assert_eq!(default_variant(wgpu::DeviceType::DiscreteGpu), WaveVariant::BlockedWorkgroup);
    assert_eq!(default_variant(wgpu::DeviceType::Cpu), WaveVariant::Simple);
    let Some((device, queue, info)) = common::wgpu_device() else { return };
    let device_type = info.device_type;
    let b = WgpuBackend::from_device(device, queue, info).unwrap();
    let sim = b.new_wave(&WaveParams::new(20, 20, 0.1)).unwrap();
    assert_eq!(sim.variant(), Some(default_variant(device_type)));
}

#[test]
fn errors_are_clear_not_panics() {
    let Some(b) = common::wgpu_backend() else { return };
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
    let Some((_, _, info)) = common::wgpu_device() else { return };
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
    let Some((device, queue, info)) = common::wgpu_device() else { return };
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
    let Some((_, _, info)) = common::wgpu_device() else { return };
    let adapters = pollster::block_on(wgpu::Instance::default().enumerate_adapters(wgpu::Backends::all()));
    let adapter = adapters.into_iter().find(|a| a.get_info() == info).expect("the same adapter");
    if adapter.get_info().backend == wgpu::Backend::Gl {
        common::skip(common::Need::Wgpu, "a GL adapter: egui-wgpu gives GL devices no compute limits");
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
    let d = wave::max_abs_diff(&common::field(sim.as_mut()), &wave::reference(&p, 100));
    assert!(d <= WAVE_TOLERANCE, "max|diff| {d:e}");
    let f64_params = MandelbrotParams { width: 8, height: 8, ..MandelbrotParams::SEED };
    match b.mandelbrot(&f64_params, &mut [0; 64]) {
        Err(BackendError::Invalid(why)) => assert!(why.contains("no f64"), "{why}"),
        other => panic!("f64 without SHADER_F64 must be Invalid, got {other:?}"),
    }
    let f32_params = MandelbrotParams { precision: Precision::F32, ..f64_params };
    b.mandelbrot(&f32_params, &mut [0; 64]).unwrap();
}
