//! The colormap kernel family (matplotlib's `hot`) on every backend against the CPU's
//! [`wavebrot::sim::colour::colormap::wave_rgba`]: CUDA (`kernels/colormap.cu`,
//! `src/backend/cuda/colormap.rs`), wgpu (`shaders/colormap.wgsl`, `src/backend/wgpu/colormap.rs`),
//! into host memory and, on wgpu, straight into a texture (the app's zero-copy display). The
//! strided render (`WaveSim::render_rgba_strided`, every `stride`-th pixel: how the app shows a
//! grid larger than the display) equals the full render subsampled, bit for bit, on every backend.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;

use wavebrot::backend::wgpu::{WgpuBackend, WgpuWave};
use wavebrot::backend::{Backend, BackendError, BackendKind, WaveSim};
use wavebrot::sim::colour::colormap::{strided_size, subsample, wave_rgba};
use wavebrot::sim::wave::WaveParams;
use wavebrot::sim::wave::scene::Scene;

fn assert_within_one_level(got: &[u8], want: &[u8], what: &str) {
    assert_eq!(got.len(), want.len());
    let worst = got.iter().zip(want).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
    assert!(worst <= 1, "{what}: a channel differs by {worst} levels");
}

#[test]
fn wgpu_render_rgba_equals_the_cpu_colormap() {
    let Some(b) = common::wgpu_backend() else { return };
    let p = WaveParams::new(67, 45, 0.2);
    let mut sim = b.new_wave(&p).unwrap();
    sim.advance(60).unwrap();
    let f = common::field(sim.as_mut());
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
fn wgpu_colormap_into_a_texture_equals_the_cpu_colormap() {
    let Some((device, queue, info)) = common::wgpu_device() else { return };
    let b = WgpuBackend::from_device(device.clone(), queue.clone(), info).unwrap();
    let p = WaveParams::new(53, 37, 0.15);
    let mut boxed = b.new_wave(&p).unwrap();
    boxed.advance(50).unwrap();
    let f = common::field(boxed.as_mut());
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

/// Grids and strides for the strided render: odd sides, strides that do and do not divide them.
const STRIDED: [(usize, usize, usize); 5] = [(67, 45, 2), (67, 45, 3), (50, 81, 4), (33, 33, 5), (40, 24, 1)];

/// `render_rgba_strided` of `sim` against its own full render subsampled, at several ranges;
/// a buffer of the wrong size is refused.
fn assert_strided_is_subsampled(sim: &mut dyn WaveSim, stride: usize, what: &str) {
    let (nx, ny) = (sim.params().nx, sim.params().ny);
    let (w, h) = strided_size(nx, ny, stride);
    let mut full = vec![0u8; nx * ny * 4];
    let mut want = vec![0u8; w * h * 4];
    let mut got = vec![7u8; w * h * 4];
    for (vmin, vmax) in [(-0.1, 0.1), (-0.02, 0.3), (0.1, -0.1)] {
        sim.render_rgba(vmin, vmax, &mut full).unwrap();
        subsample(&full, nx, stride, w, h, &mut want);
        sim.render_rgba_strided(vmin, vmax, stride, &mut got).unwrap();
        assert!(got == want, "{what} {nx}x{ny} every {stride} at [{vmin}, {vmax}]: not the full picture subsampled");
    }
    let err = sim.render_rgba_strided(-0.1, 0.1, stride, &mut got[4..]).unwrap_err();
    assert!(matches!(err, BackendError::Invalid(_)), "{what}: {err}");
}

/// The plain wave and a scene with a wall, advanced, on `b`.
fn strided_cases(b: &dyn Backend, what: &str) {
    for (nx, ny, stride) in STRIDED {
        let mut sim = b.new_wave(&WaveParams::new(nx, ny, 0.2)).unwrap();
        sim.advance(40).unwrap();
        assert_strided_is_subsampled(sim.as_mut(), stride, &format!("{what} wave"));
        let mut scene = Scene::seed(nx, ny, 0.2);
        assert!(scene.paint_wall(nx as i64 / 2, 0, nx as i64 / 2 + 1, ny as i64 / 3));
        let mut sim = b.new_scene(&scene).unwrap();
        sim.advance(40).unwrap();
        assert_strided_is_subsampled(sim.as_mut(), stride, &format!("{what} scene"));
    }
}

#[test]
fn cpu_strided_render_is_the_full_render_subsampled() {
    for kind in [BackendKind::Cpu, BackendKind::Cpu1] {
        let b = wavebrot::backend::open(kind).unwrap();
        strided_cases(b.as_ref(), kind.name());
    }
}

#[test]
fn wgpu_strided_render_is_the_full_render_subsampled() {
    let Some(b) = common::wgpu_backend() else { return };
    strided_cases(&b, "wgpu");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --include-ignored (and WAVEBROT_REQUIRE_CUDA=1) where CUDA exists"]
fn cuda_strided_render_is_the_full_render_subsampled() {
    let Some(b) = common::cuda_backend("cuda_strided_render_is_the_full_render_subsampled") else { return };
    strided_cases(b.as_ref(), "cuda");
    // A grid as the app shows it: 4100 wide, every 3rd cell (1367 pixels a row).
    let mut sim = b.new_wave(&WaveParams::new(4100, 300, 0.1)).unwrap();
    sim.advance(30).unwrap();
    assert_strided_is_subsampled(sim.as_mut(), 3, "cuda wave");
}

#[test]
fn wgpu_colormap_into_a_strided_texture_is_the_picture_subsampled() {
    let Some((device, queue, info)) = common::wgpu_device() else { return };
    let b = WgpuBackend::from_device(device.clone(), queue.clone(), info).unwrap();
    for (nx, ny, stride) in STRIDED {
        let p = WaveParams::new(nx, ny, 0.15);
        let mut boxed = b.new_wave(&p).unwrap();
        boxed.advance(50).unwrap();
        let (w, h) = strided_size(nx, ny, stride);
        let mut full = vec![0u8; p.cells() * 4];
        let mut want = vec![0u8; w * h * 4];
        let sim = boxed.as_any_mut().downcast_mut::<WgpuWave>().expect("a WgpuWave");
        let texture = sim.create_frame_texture_strided(stride);
        assert_eq!((texture.width() as usize, texture.height() as usize), (w, h));
        for (vmin, vmax) in [(-0.1, 0.1), (-0.5, 0.25)] {
            sim.colormap_into_strided(vmin, vmax, stride, &texture).unwrap();
            let got = read_texture(&device, &queue, &texture);
            sim.render_rgba(vmin, vmax, &mut full).unwrap();
            subsample(&full, nx, stride, w, h, &mut want);
            assert!(got == want, "{nx}x{ny} every {stride} at [{vmin}, {vmax}]: not the picture subsampled");
        }
        // The full-size texture is refused for a strided picture, with both sizes named.
        if stride > 1 {
            let err = sim.colormap_into_strided(-0.1, 0.1, stride, &sim.create_frame_texture()).unwrap_err();
            assert!(err.to_string().contains(&format!("{w}x{h}")), "{err}");
        }
    }
}
