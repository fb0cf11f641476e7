//! The wave's frames on the GPU: the textures it draws into, colouring the field into them
//! (strided for a picture smaller than the grid) and copying the field out. A part of [`super`].

use super::{Arc, BackendError, FIELD_SCALE, WgpuWave};

impl WgpuWave {
    /// A texture [`Self::colormap_into`] can draw into: `Rgba8Unorm`, `nx` wide and `ny` high
    /// (the seed's picture orientation), usable as a storage texture, for sampling (register
    /// it with `egui_wgpu::Renderer::register_native_texture`) and as a copy source.
    ///
    /// Made on this wave's device. A grid larger than the device's largest 2D texture gives an
    /// invalid texture (logged); [`Self::colormap_into`] then refuses it with a clear error.
    #[must_use]
    pub fn create_frame_texture(&self) -> wgpu::Texture {
        self.create_frame_texture_strided(1)
    }

    /// A texture [`Self::colormap_into_strided`] can draw into with `stride`:
    /// [`crate::sim::colour::colormap::strided_size`] of the grid, otherwise as
    /// [`Self::create_frame_texture`].
    #[must_use]
    pub fn create_frame_texture_strided(&self, stride: usize) -> wgpu::Texture {
        let (w, h) = crate::sim::colour::colormap::strided_size(self.params.nx, self.params.ny, stride);
        let device = &self.gpu.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("wavebrot wave frame"),
            size: wgpu::Extent3d { width: w as u32, height: h as u32, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::STORAGE_BINDING
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            log::error!("wgpu: cannot make a {w}x{h} frame texture: {e}");
        }
        texture
    }

    /// Draws the field `f` through matplotlib's `hot` (`vmin`..`vmax`, exactly as
    /// [`crate::sim::colour::colormap::wave_rgba`] does) into `target`, all on the GPU: the app's
    /// zero-copy display path. `target` must be on this wave's device, `Rgba8Unorm`, `nx` wide and
    /// `ny` high, with `STORAGE_BINDING` usage (and `TEXTURE_BINDING` to draw it), such as
    /// [`Self::create_frame_texture`] makes. Picture row 0 (the top) is `j = ny - 1`, `i` runs
    /// to the right. The work is submitted to the queue and not waited for: draw the texture
    /// afterwards in the same queue.
    ///
    /// # Errors
    /// A texture of the wrong format, size or usage; a device failure.
    pub fn colormap_into(&mut self, vmin: f32, vmax: f32, target: &wgpu::Texture) -> Result<(), BackendError> {
        self.colormap_into_strided(vmin, vmax, 1, target)
    }

    /// [`Self::colormap_into`] taken every `stride`-th pixel from the top-left one: `target` is
    /// [`crate::sim::colour::colormap::strided_size`] of the grid (as
    /// [`Self::create_frame_texture_strided`] makes it) and receives exactly the full picture
    /// subsampled; only the cells shown are read. The app draws grids larger than the display
    /// this way. `stride` 1 is [`Self::colormap_into`].
    ///
    /// # Errors
    /// As [`Self::colormap_into`].
    pub fn colormap_into_strided(
        &mut self,
        vmin: f32,
        vmax: f32,
        stride: usize,
        target: &wgpu::Texture,
    ) -> Result<(), BackendError> {
        let stride = stride.max(1);
        let (w, h) = crate::sim::colour::colormap::strided_size(self.params.nx, self.params.ny, stride);
        let (w, h) = (w as u32, h as u32);
        let max_dim = self.gpu.device.limits().max_texture_dimension_2d;
        if w > max_dim || h > max_dim {
            return Err(BackendError::Invalid(format!(
                "a {w}x{h} frame is larger than this device's largest texture ({max_dim}x{max_dim})"
            )));
        }
        if target.format() != wgpu::TextureFormat::Rgba8Unorm {
            return Err(BackendError::Invalid(format!("frame texture is {:?}, needs Rgba8Unorm", target.format())));
        }
        if (target.width(), target.height()) != (w, h) {
            let cells = if stride == 1 { String::new() } else { format!(" every {stride}th cell") };
            return Err(BackendError::Invalid(format!(
                "frame texture is {}x{}, the wave{cells} needs {w}x{h}",
                target.width(),
                target.height()
            )));
        }
        if !target.usage().contains(wgpu::TextureUsages::STORAGE_BINDING) {
            return Err(BackendError::Invalid("frame texture lacks STORAGE_BINDING usage".into()));
        }
        let gpu = Arc::clone(&self.gpu);
        let stride = u32::try_from(stride).map_err(|_| BackendError::Invalid(format!("stride {stride} too large")))?;
        gpu.scoped("drawing the wave into a texture", || {
            self.frame.set_range_strided(&gpu, vmin, vmax, stride);
            let mut encoder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("wave colormap_into") });
            self.frame.encode_texture(&gpu, &mut encoder, &self.fields[0], target, stride)?;
            gpu.queue.submit([encoder.finish()]);
            Ok(())
        })?
    }

    /// Copies `fields[index]` (0: `f`, 1: `g`) into `out`, unscaled.
    pub(super) fn copy_field(&mut self, index: usize, out: &mut [f32]) -> Result<(), BackendError> {
        if out.len() != self.params.cells() {
            return Err(BackendError::Invalid(format!(
                "output holds {} values, field has {}",
                out.len(),
                self.params.cells()
            )));
        }
        let gpu = Arc::clone(&self.gpu);
        let bytes = 4 * self.params.cells() as u64;
        let field = self.fields[index].clone();
        let staging = self.staging()?.clone();
        gpu.scoped("copying the field to the host", || {
            let mut encoder =
                gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("read field") });
            encoder.copy_buffer_to_buffer(&field, 0, &staging, 0, bytes);
            gpu.queue.submit([encoder.finish()]);
        })?;
        gpu.read_back(&staging, bytes, |b| {
            let scaled: &[f32] = bytemuck::cast_slice(b);
            out.iter_mut().zip(scaled).for_each(|(o, &v)| *o = v * (1.0 / FIELD_SCALE));
        })
    }
}
