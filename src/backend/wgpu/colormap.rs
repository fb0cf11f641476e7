//! The `hot` colormap on the GPU (`shaders/colormap.wgsl`; CPU twin:
//! [`crate::sim::colour::colormap::wave_rgba`]): into a buffer for [`crate::backend::WaveSim::render_rgba`],
//! or into a texture for the app's zero-copy display.
//!
//! The table index must equal the CPU's `floor((v - vmin)/(vmax - vmin) * 256)` computed in
//! `f64`. It is monotone in `v`, so [`thresholds`] finds on the host, for each index `k`, the
//! `f32` value where it is reached, and the shader counts the thresholds a value has passed:
//! the same index for every `f32`, with no `f64` on the GPU.

use super::layout::{Binding, bind_buffers, bind_group, bind_group_layout};
use super::{Gpu, runtime};
use crate::backend::BackendError;
use crate::sim::colour::colormap::{HOT_LUT, LUT_SIZE, lut_index};

/// Workgroup tile of the colormap shader (16x16).
const TILE: u32 = 16;

/// `Cmap` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Cmap {
    nx: u32,
    ny: u32,
    descending: u32,
    /// Of the strided texture pipeline (the others ignore it).
    stride: u32,
}

/// `Table` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Table {
    lut: [u32; LUT_SIZE],
    thr: [f32; LUT_SIZE],
}

/// A total order on non-NaN `f32` as integers (`-inf` smallest, `+inf` largest).
fn key(v: f32) -> i64 {
    let b = v.to_bits() as i32;
    i64::from(if b < 0 { b ^ 0x7fff_ffff } else { b })
}

fn from_key(k: i64) -> f32 {
    let b = k as i32;
    f32::from_bits((if b < 0 { b ^ 0x7fff_ffff } else { b }) as u32)
}

/// For each table index `k` in `1..256`, the `f32` value where [`lut_index`] reaches `k`, and
/// whether the index falls as the value grows (`vmax < vmin`). Ascending: `thr[k]` is the
/// smallest value whose index is at least `k`; descending: the largest. NaN where no value
/// reaches `k`. `thr[0]` is unused.
#[must_use]
pub fn thresholds(vmin: f32, vmax: f32) -> ([f32; LUT_SIZE], bool) {
    let descending = vmax < vmin;
    let index = |k: i64| lut_index(f64::from(from_key(k)), f64::from(vmin), f64::from(vmax));
    let (lo, hi) = (key(f32::NEG_INFINITY), key(f32::INFINITY));
    let mut thr = [f32::NAN; LUT_SIZE];
    for (k, slot) in thr.iter_mut().enumerate().skip(1) {
        if descending {
            if index(lo) < k {
                continue;
            }
            // Largest key with index >= k: index(a) >= k always holds.
            let (mut a, mut b) = (lo, hi + 1);
            while b - a > 1 {
                let m = a + (b - a) / 2;
                if index(m) >= k { a = m } else { b = m }
            }
            *slot = from_key(a);
        } else {
            if index(hi) < k {
                continue;
            }
            // Smallest key with index >= k: index(b) >= k always holds.
            let (mut a, mut b) = (lo - 1, hi);
            while b - a > 1 {
                let m = a + (b - a) / 2;
                if index(m) >= k { b = m } else { a = m }
            }
            *slot = from_key(b);
        }
    }
    (thr, descending)
}

/// The index the shader computes from [`thresholds`] (its binary search), for tests.
#[must_use]
pub fn index_from_thresholds(v: f32, thr: &[f32; LUT_SIZE], descending: bool) -> usize {
    let mut k = 0;
    let mut width = 128;
    while width > 0 {
        let t = thr[k + width];
        if (descending && v <= t) || (!descending && v >= t) {
            k += width;
        }
        width >>= 1;
    }
    k
}

/// The colormap pipelines (into a buffer, into a texture, into a texture every `stride`-th
/// pixel), compiled once per device.
pub(crate) struct Pipelines {
    buffer_layout: wgpu::BindGroupLayout,
    texture_layout: wgpu::BindGroupLayout,
    buffer: wgpu::ComputePipeline,
    texture: wgpu::ComputePipeline,
    texture_strided: wgpu::ComputePipeline,
}

impl Pipelines {
    pub fn new(device: &wgpu::Device) -> Result<Self, BackendError> {
        use Binding::{Absent, ReadOnly, ReadWrite, Uniform, WriteTexture};
        // params, field, table, then the RGBA buffer (3) or the texture (4).
        let buffer_layout = bind_group_layout(device, "colormap buffer", &[Uniform, ReadOnly, ReadOnly, ReadWrite]);
        let texture_layout =
            bind_group_layout(device, "colormap texture", &[Uniform, ReadOnly, ReadOnly, Absent, WriteTexture]);
        let mut pipelines = super::compute_pipeline(
            device,
            "colormap.wgsl",
            super::shader::colormap(),
            &[
                ("colormap_buffer", &buffer_layout),
                ("colormap_texture", &texture_layout),
                ("colormap_texture_strided", &texture_layout),
            ],
        )?;
        let texture_strided = pipelines.pop().ok_or_else(|| runtime("no colormap pipeline"))?;
        let texture = pipelines.pop().ok_or_else(|| runtime("no colormap pipeline"))?;
        let buffer = pipelines.pop().ok_or_else(|| runtime("no colormap pipeline"))?;
        Ok(Self { buffer_layout, texture_layout, buffer, texture, texture_strided })
    }
}

/// One wave's colormap state: the table for the current `vmin`/`vmax` and, once rendered to
/// the host, its RGBA buffer.
pub(crate) struct Frame {
    nx: u32,
    ny: u32,
    uniform: wgpu::Buffer,
    table: wgpu::Buffer,
    /// `(vmin, vmax)` bits and the stride the table and parameters were written for.
    range: Option<(u32, u32, u32)>,
    /// The field holds its values times this (a power of two): the thresholds are scaled alike.
    value_scale: f32,
    /// The RGBA buffer of `render_rgba` and its bind group.
    out: Option<(wgpu::Buffer, wgpu::BindGroup)>,
}

impl Frame {
    /// A frame for an `nx x ny` field that holds its values times `value_scale`, a power of two
    /// (see `field::FIELD_SCALE`).
    pub fn new(gpu: &Gpu, nx: usize, ny: usize, value_scale: f32) -> Result<Self, BackendError> {
        let uniform = gpu.buffer(
            "colormap params",
            size_of::<Cmap>() as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        let table = gpu.buffer(
            "colormap table",
            size_of::<Table>() as u64,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        )?;
        Ok(Self { nx: nx as u32, ny: ny as u32, uniform, table, range: None, value_scale, out: None })
    }

    fn groups(&self, gpu: &Gpu) -> Result<(u32, u32), BackendError> {
        let groups = (self.nx.div_ceil(TILE), self.ny.div_ceil(TILE));
        let max = gpu.device.limits().max_compute_workgroups_per_dimension;
        if groups.0 > max || groups.1 > max {
            return Err(BackendError::Invalid(format!(
                "a {}x{} frame needs {}x{} workgroups, this device allows {max} per dimension",
                self.nx, self.ny, groups.0, groups.1
            )));
        }
        Ok(groups)
    }

    /// Uploads the table for `vmin..vmax` unless it is already there.
    pub fn set_range(&mut self, gpu: &Gpu, vmin: f32, vmax: f32) {
        self.set_range_strided(gpu, vmin, vmax, 1);
    }

    /// Uploads the table for `vmin..vmax` and the `stride` of [`Self::encode_texture_strided`]
    /// unless they are already there.
    pub fn set_range_strided(&mut self, gpu: &Gpu, vmin: f32, vmax: f32, stride: u32) {
        let bits = (vmin.to_bits(), vmax.to_bits(), stride);
        if self.range == Some(bits) {
            return;
        }
        let (thr, descending) = thresholds(vmin, vmax);
        // Scaling by a power of two is exact and keeps the order: the scaled field crosses the
        // scaled thresholds exactly where the field crosses the thresholds.
        let thr = thr.map(|t| t * self.value_scale);
        let table = Table { lut: HOT_LUT.map(u32::from_le_bytes), thr };
        let cmap = Cmap { nx: self.nx, ny: self.ny, descending: u32::from(descending), stride };
        gpu.queue.write_buffer(&self.table, 0, bytemuck::bytes_of(&table));
        gpu.queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&cmap));
        self.range = Some(bits);
    }

    /// Makes the RGBA buffer for `field` on first use.
    pub fn ensure_buffer(&mut self, gpu: &Gpu, field: &wgpu::Buffer) -> Result<(), BackendError> {
        self.groups(gpu)?;
        if self.out.is_some() {
            return Ok(());
        }
        let bytes = 4 * u64::from(self.nx) * u64::from(self.ny);
        let rgba = gpu.buffer("wave rgba", bytes, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC)?;
        let bind = gpu.scoped("binding the colormap", || {
            let buffers = [&self.uniform, field, &self.table, &rgba];
            bind_buffers(&gpu.device, "colormap buffer", &gpu.colormap.buffer_layout, &buffers)
        })?;
        self.out = Some((rgba, bind));
        Ok(())
    }

    /// Encodes the colormap into the RGBA buffer and its copy into `staging`
    /// (after [`Self::ensure_buffer`]).
    pub fn encode_buffer(&self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder, staging: &wgpu::Buffer) {
        let Some((rgba, bind)) = &self.out else { return };
        let (gx, gy) = (self.nx.div_ceil(TILE), self.ny.div_ceil(TILE));
        {
            let mut pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("colormap"), timestamp_writes: None });
            pass.set_pipeline(&gpu.colormap.buffer);
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(gx, gy, 1);
        }
        encoder.copy_buffer_to_buffer(rgba, 0, staging, 0, rgba.size());
    }

    /// Encodes the colormap of `field` taken every `stride`-th pixel into `target`
    /// (`ceil(nx/stride) x ceil(ny/stride)`, checked by the caller; after
    /// [`Self::set_range_strided`] with the same `stride`). Stride 1 runs the tiled full-picture
    /// entry point `colormap_texture`, larger ones `colormap_texture_strided`.
    ///
    /// # Errors
    /// A target needing more workgroups than the device allows.
    pub fn encode_texture(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        field: &wgpu::Buffer,
        target: &wgpu::Texture,
        stride: u32,
    ) -> Result<(), BackendError> {
        let (gx, gy) = if stride <= 1 {
            self.groups(gpu)?
        } else {
            (target.width().div_ceil(TILE), target.height().div_ceil(TILE))
        };
        let (pipeline, label) = if stride <= 1 {
            (&gpu.colormap.texture, "colormap_into")
        } else {
            (&gpu.colormap.texture_strided, "colormap_into_strided")
        };
        let view = target.create_view(&wgpu::TextureViewDescriptor::default());
        let bind = bind_group(
            &gpu.device,
            "colormap texture",
            &gpu.colormap.texture_layout,
            vec![
                Some(self.uniform.as_entire_binding()),
                Some(field.as_entire_binding()),
                Some(self.table.as_entire_binding()),
                None,
                Some(wgpu::BindingResource::TextureView(&view)),
            ],
        );
        let mut pass =
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), timestamp_writes: None });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(gx, gy, 1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(vmin: f32, vmax: f32) -> Vec<f32> {
        let mut v = vec![f32::NEG_INFINITY, f32::INFINITY, f32::NAN, 0.0, -0.0, f32::MAX, f32::MIN, vmin, vmax];
        let (lo, hi) = (vmin.min(vmax), vmin.max(vmax));
        let span = if (hi - lo).is_finite() && hi > lo { hi - lo } else { 1.0 };
        for k in 0..=4000 {
            let x = lo - span + 3.0 * span * (k as f32 / 4000.0);
            // The value and its neighbours, where the index is most likely to change.
            v.extend([x, f32::from_bits(x.to_bits().wrapping_add(1)), f32::from_bits(x.to_bits().wrapping_sub(1))]);
        }
        v
    }

    #[test]
    fn thresholds_give_the_cpu_index_for_every_value() {
        let ranges =
            [(-0.1f32, 0.1f32), (0.0, 1.0), (-3.7, 12.25), (0.1, -0.1), (0.5, 0.5), (1e-30, 2e-30), (0.0, f32::MAX)];
        for (vmin, vmax) in ranges {
            let (thr, descending) = thresholds(vmin, vmax);
            for v in samples(vmin, vmax) {
                let want = lut_index(f64::from(v), f64::from(vmin), f64::from(vmax));
                let got = index_from_thresholds(v, &thr, descending);
                assert_eq!(got, want, "v={v:e} in [{vmin}, {vmax}]");
            }
        }
    }

    #[test]
    fn every_threshold_is_exact() {
        // Just below each ascending threshold the index is lower, at it the index is reached.
        let (vmin, vmax) = (-0.1f32, 0.1f32);
        let (thr, descending) = thresholds(vmin, vmax);
        assert!(!descending);
        for (k, &t) in thr.iter().enumerate().skip(1) {
            let below = f32::from_bits(if t > 0.0 { t.to_bits() - 1 } else { t.to_bits() + 1 });
            let (lo, hi) = (f64::from(vmin), f64::from(vmax));
            assert!(lut_index(f64::from(t), lo, hi) >= k);
            assert!(lut_index(f64::from(below), lo, hi) < k, "k={k} t={t:e}");
        }
    }

    #[test]
    fn nan_range_maps_everything_to_zero() {
        let (thr, descending) = thresholds(f32::NAN, 1.0);
        for v in [0.0, 1.0, f32::INFINITY, -5.0] {
            assert_eq!(index_from_thresholds(v, &thr, descending), 0);
        }
    }
}
