//! Whether a device's `fma` rounds once: the scene kernels then find a product's rounding error
//! with one `fma` instead of Dekker's seventeen fenced operations (`shader::Products`).
//!
//! WGSL's `fma(a, b, c)` is only promised to be `a * b + c`; SPIR-V's and HLSL's may round the
//! product on its own. The probe (`shaders/probe_fma.wgsl`) asks the device for the error of
//! products whose error is not zero and compares it with the CPU's fused multiply-add, bit for
//! bit: any difference, or a probe that fails to run, and the device gets the split form.

use std::sync::mpsc;
use std::time::Duration;

use super::layout::{Binding, bind_group, bind_group_layout};
use super::shader::Products;

/// The probe's products: `(x, y)` with a nonzero rounding error, from the sizes the scene
/// kernels' `product_error` takes (coefficients from 2^-20 to 2, field values scaled by 2^64).
#[must_use]
pub fn pairs() -> Vec<[f32; 2]> {
    let mut pairs = vec![[1.0 + f32::EPSILON, 1.0 - f32::EPSILON], [1.0 + 2f32.powi(-12), 1.0 + 2f32.powi(-12)]];
    // A fixed linear congruential sequence: reproducible, no crate needed for 256 numbers.
    let mut state = 0x2545_f491_u32;
    let mut next = || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        state
    };
    while pairs.len() < 256 {
        let x = f32::from_bits(0x3500_0000 + next() % 0x0b00_0000); // 2^-21 .. 2
        let y = f32::from_bits(0x2000_0000 + next() % 0x0800_0000); // 2^-63 .. 2^-47
        let y = if next() & 1 == 0 { y } else { -y };
        if x.mul_add(y, -(x * y)) != 0.0 {
            pairs.push([x, y]);
        }
    }
    pairs
}

/// Whether `lo` (the probe's output for `pairs`) is every pair's exact rounding error.
#[must_use]
pub fn errors_are_exact(pairs: &[[f32; 2]], lo: &[f32]) -> bool {
    pairs.len() == lo.len() && pairs.iter().zip(lo).all(|(&[x, y], &l)| x.mul_add(y, -(x * y)).to_bits() == l.to_bits())
}

/// Runs the probe on `device` and says which `product_error` its scene kernels get.
pub(super) fn products(device: &wgpu::Device, queue: &wgpu::Queue) -> Products {
    match probe(device, queue) {
        Some(lo) if errors_are_exact(&pairs(), &lo) => Products::Fused,
        _ => Products::Split,
    }
}

/// The device's `fma(x, y, -round(x * y))` of every pair, or `None` where the probe did not run.
fn probe(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Vec<f32>> {
    let pairs = pairs();
    let data: Vec<f32> = pairs.iter().flat_map(|&[x, y]| [x, y, 0.0, 0.0]).collect();
    let bytes: &[u8] = bytemuck::cast_slice(&data);
    let size = bytes.len() as u64;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let layout = bind_group_layout(device, "probe fma", &[Binding::ReadWrite, Binding::ReadOnly]);
    let pipeline = super::compute_pipeline(
        device,
        "probe_fma.wgsl",
        include_str!("../../../shaders/probe_fma.wgsl"),
        &[("probe_fma", &layout)],
    )
    .ok()?
    .pop()?;
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
    let buffer = |label, size, usage| {
        device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
    };
    let work = buffer("probe fma pairs", size, storage);
    let opaque = buffer("probe fma opaque", 4, storage);
    let staging = buffer("probe fma read-back", size, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
    queue.write_buffer(&work, 0, bytes);
    queue.write_buffer(&opaque, 0, &[0; 4]);
    let group = bind_group(
        device,
        "probe fma",
        &layout,
        vec![Some(work.as_entire_binding()), Some(opaque.as_entire_binding())],
    );
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("probe fma") });
    {
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("probe fma"), timestamp_writes: None });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(pairs.len().div_ceil(64) as u32, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&work, 0, &staging, 0, size);
    queue.submit([encoder.finish()]);
    let (tx, rx) = mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, 0..size, move |r| {
        let _ = tx.send(r);
    });
    if pollster::block_on(scope.pop()).is_some() {
        return None;
    }
    device.poll(wgpu::PollType::wait_indefinitely()).ok()?;
    rx.recv_timeout(Duration::from_secs(60)).ok()?.ok()?;
    let lo = {
        let view = staging.get_mapped_range(0..size).ok()?;
        bytemuck::cast_slice::<u8, f32>(&view).chunks_exact(4).map(|v| v[3]).collect()
    };
    staging.unmap();
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_has_a_rounding_error_the_check_sees() {
        let pairs = pairs();
        assert_eq!(pairs.len(), 256);
        let exact: Vec<f32> = pairs.iter().map(|&[x, y]| x.mul_add(y, -(x * y))).collect();
        assert!(errors_are_exact(&pairs, &exact));
        // A device whose fma rounds twice returns 0 for each: refused.
        assert!(!errors_are_exact(&pairs, &vec![0.0; pairs.len()]));
        // One wrong pair is enough to refuse.
        let mut one_off = exact.clone();
        one_off[200] = -one_off[200];
        assert!(!errors_are_exact(&pairs, &one_off));
        assert!(!errors_are_exact(&pairs, &exact[1..]));
    }
}
