//! The colormap kernel family (matplotlib's `hot`) on every backend against the CPU's
//! [`wavebrot::sim::colormap::wave_rgba`]: CUDA (`kernels/colormap.cu`,
//! `src/backend/cuda/colormap.rs`), wgpu (`shaders/colormap.wgsl`, `src/backend/wgpu/colormap.rs`),
//! into host memory and, on wgpu, straight into a texture (the app's zero-copy display).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

mod common;

use wavebrot::backend::wgpu::{WgpuBackend, WgpuWave};
use wavebrot::backend::{Backend, BackendError};
use wavebrot::sim::colormap::wave_rgba;
use wavebrot::sim::wave::WaveParams;

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
