//! How a frame reaches the screen: straight from the GPU (a wgpu wave coloured into a texture
//! registered with egui-wgpu, no copy through the host) or through the host (RGBA bytes that the
//! UI uploads). A grid larger than [`MAX_DISPLAY_SIDE`] is shown every `stride`-th cell, and only
//! those cells are coloured and copied (`WaveSim::render_rgba_strided`, the strided texture). Also opens backends so
//! that wgpu computes on eframe's own device where it can, and recycles frame buffers.

use std::sync::mpsc::Receiver;
use web_time::Instant;

use crate::backend::{self, Backend, BackendChoice, BackendKind, Timing, WaveSim};

use crate::app::worker::messages::{FrameSource, WorkerError};

/// Longest a displayed frame may be on a side; bigger grids are shown subsampled
/// (the simulation still runs at full size).
pub const MAX_DISPLAY_SIDE: usize = 2048;

/// The stride a grid of `nx x ny` is shown with: every `stride`-th cell, so that no side of the
/// picture exceeds [`MAX_DISPLAY_SIDE`].
#[must_use]
pub fn display_stride(nx: usize, ny: usize) -> usize {
    nx.max(ny).div_ceil(MAX_DISPLAY_SIDE).max(1)
}

/// A backend opened for the simulation thread.
pub struct Opened {
    pub backend: Box<dyn Backend>,
    /// Why `auto` passed over faster backends.
    pub notes: Vec<String>,
    /// True when it computes on eframe's own wgpu device, so frames never leave the GPU.
    pub shares_display: bool,
}

/// Opens what `choice` asks for. When that is wgpu and eframe draws with wgpu too, the backend
/// is opened on eframe's own device (`WgpuBackend::from_device`), so a wave frame is coloured
/// straight into a texture egui draws ([`FrameSource::Native`]), with no copy through the host.
/// `auto` keeps skipping software adapters, as the CLI does.
///
/// # Errors
/// The backend asked for is unavailable.
pub fn open_backend(
    choice: BackendChoice,
    render_state: Option<&egui_wgpu::RenderState>,
) -> Result<Opened, backend::BackendError> {
    let (backend, mut notes) = backend::open_choice(choice)?;
    if backend.kind() == BackendKind::Wgpu
        && let Some(rs) = render_state
    {
        let info = rs.adapter.get_info();
        if choice == BackendChoice::Wgpu || info.device_type != wgpu::DeviceType::Cpu {
            match backend::wgpu::WgpuBackend::from_device(rs.device.clone(), rs.queue.clone(), info) {
                Ok(shared) => return Ok(Opened { backend: Box::new(shared), notes, shares_display: true }),
                Err(e) => {
                    notes
                        .push(format!("wgpu cannot compute on the display's device ({e}); frames go through the host"));
                }
            }
        }
    }
    Ok(Opened { backend, notes, shares_display: false })
}

/// The wgpu wave's picture: a texture on eframe's device, registered with egui-wgpu.
struct NativeFrame {
    texture: wgpu::Texture,
    id: egui::TextureId,
    /// The grid and the stride the texture was made for.
    size: (usize, usize, usize),
}

/// The display path of the simulation thread.
pub struct Display {
    /// eframe's wgpu device, queue and renderer, where the app has them.
    render_state: Option<egui_wgpu::RenderState>,
    /// The active backend computes on eframe's device: wave frames stay on the GPU.
    shares_display: bool,
    native: Option<NativeFrame>,
    /// Frame buffers the UI gave back.
    recycle: Receiver<Vec<u8>>,
}

impl Display {
    pub fn new(render_state: Option<egui_wgpu::RenderState>, recycle: Receiver<Vec<u8>>) -> Self {
        Self { render_state, shares_display: false, native: None, recycle }
    }

    /// A new backend: frames stay on the GPU when it `shares_display`.
    pub fn set_backend(&mut self, shares_display: bool) {
        self.free_native();
        self.shares_display = shares_display;
    }

    /// A display buffer of `n` bytes, reusing one the UI gave back. Its bytes are unspecified
    /// (a reused buffer of the right size keeps its old picture, not zeroed again: 16 MiB a frame
    /// at 2048²): every caller writes all of them.
    pub fn buffer(&mut self, n: usize) -> Vec<u8> {
        let mut buf = self.recycle.try_iter().last().unwrap_or_default();
        if buf.len() == n {
            return buf;
        }
        buf.clear();
        if buf.capacity() > 2 * n {
            buf.shrink_to(n);
        }
        buf.resize(n, 0);
        buf
    }

    /// The picture of `sim` through `hot` between `vmin` and `vmax`, and how long it took.
    ///
    /// # Errors
    /// Colouring or copying failed (the message says which).
    pub fn wave_frame(
        &mut self,
        sim: &mut dyn WaveSim,
        vmin: f32,
        vmax: f32,
    ) -> Result<(FrameSource, Timing), WorkerError> {
        match self.native_frame(sim, vmin, vmax) {
            Some(Ok(frame)) => return Ok(frame),
            Some(Err(e)) => {
                // Drawn through the host from now on.
                log::warn!("zero-copy display failed, copying frames instead: {e}");
                self.set_backend(false);
            }
            None => {}
        }
        puffin::profile_scope!("colour");
        let (nx, ny) = (sim.params().nx, sim.params().ny);
        let stride = display_stride(nx, ny);
        let (w, h) = crate::sim::colour::colormap::strided_size(nx, ny, stride);
        let mut rgba = self.buffer(w * h * 4);
        let render = sim
            .render_rgba_strided(vmin, vmax, stride, &mut rgba)
            .map_err(|error| WorkerError { what: "drawing", error })?;
        Ok((FrameSource::Rgba { rgba, width: w, height: h }, render))
    }

    /// The picture of host values (the time-averaged intensity) through `hot` between `vmin` and
    /// `vmax`, subsampled like a field.
    #[must_use]
    pub fn host_frame(&mut self, values: &[f32], nx: usize, ny: usize, vmin: f32, vmax: f32) -> (FrameSource, Timing) {
        puffin::profile_scope!("colour");
        let start = Instant::now();
        let stride = display_stride(nx, ny);
        let (w, h) = crate::sim::colour::colormap::strided_size(nx, ny, stride);
        let mut rgba = self.buffer(w * h * 4);
        crate::sim::colour::colormap::wave_rgba_strided(values, nx, ny, vmin, vmax, stride, &mut rgba);
        (FrameSource::Rgba { rgba, width: w, height: h }, Timing::wall(start.elapsed()))
    }

    /// Colours a wgpu wave on eframe's device straight into the texture egui draws (every
    /// `stride`-th cell of a grid larger than [`MAX_DISPLAY_SIDE`], so the texture is never
    /// larger than the display needs); `None` where that path does not apply (another backend,
    /// or a picture larger than a texture).
    fn native_frame(
        &mut self,
        sim: &mut dyn WaveSim,
        vmin: f32,
        vmax: f32,
    ) -> Option<Result<(FrameSource, Timing), backend::BackendError>> {
        if !self.shares_display {
            return None;
        }
        let rs = self.render_state.clone()?;
        let (nx, ny) = (sim.params().nx, sim.params().ny);
        let wave = sim.as_any_mut().downcast_mut::<backend::wgpu::WgpuWave>()?;
        let stride = display_stride(nx, ny);
        let (w, h) = crate::sim::colour::colormap::strided_size(nx, ny, stride);
        let max = rs.device.limits().max_texture_dimension_2d as usize;
        if w > max || h > max {
            return None;
        }
        if self.native.as_ref().map(|n| n.size) != Some((nx, ny, stride)) {
            let texture = wave.create_frame_texture_strided(stride);
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let mut renderer = rs.renderer.write();
            let id = match self.native.take() {
                Some(old) => {
                    renderer.update_egui_texture_from_wgpu_texture(
                        &rs.device,
                        &view,
                        wgpu::FilterMode::Nearest,
                        old.id,
                    );
                    old.id
                }
                None => renderer.register_native_texture(&rs.device, &view, wgpu::FilterMode::Nearest),
            };
            self.native = Some(NativeFrame { texture, id, size: (nx, ny, stride) });
        }
        let n = self.native.as_ref()?;
        puffin::profile_scope!("colour");
        let start = Instant::now();
        let r = wave.colormap_into_strided(vmin, vmax, stride, &n.texture);
        Some(r.map(|()| {
            (
                FrameSource::Native { id: n.id, texture: n.texture.clone(), width: w, height: h },
                Timing::wall(start.elapsed()),
            )
        }))
    }

    /// Unregisters the zero-copy texture.
    pub fn free_native(&mut self) {
        if let (Some(n), Some(rs)) = (self.native.take(), &self.render_state) {
            rs.renderer.write().free_texture(&n.id);
        }
    }
}
