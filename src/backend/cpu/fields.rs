//! The two fields of a wave problem in host memory and what both CPU twins do with them alike:
//! [`HostFields`], shared by the plain kernel's [`super::wave::CpuWave`] and the scene kernel's
//! [`super::wave_scene::CpuSceneWave`] (copies out and in, the picture, the reset).

use web_time::Instant;

use super::Threads;
use crate::backend::{BackendError, ByteSink, Timing, check_field_sizes, check_strided_len};

/// `f` and `g` (the last two time levels), scratch rows for the banded passes, and the step.
pub(crate) struct HostFields {
    pub(crate) f: Vec<f32>,
    pub(crate) g: Vec<f32>,
    /// Scratch rows for the banded and blocked passes, resized as needed.
    pub(crate) halo: Vec<f32>,
    /// Time steps done since the start.
    pub(crate) tstep: u32,
}

impl HostFields {
    /// Zeroed fields `f`, `g` (as many values each) at step 0.
    pub(crate) fn new(f: Vec<f32>, g: Vec<f32>) -> Self {
        Self { f, g, halo: Vec::new(), tstep: 0 }
    }

    /// [`crate::backend::WaveSim::read_field`].
    pub(crate) fn read_field(&self, out: &mut [f32]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        if out.len() != self.f.len() {
            return Err(BackendError::Invalid(format!(
                "output holds {} values, field has {}",
                out.len(),
                self.f.len()
            )));
        }
        out.copy_from_slice(&self.f);
        Ok(Timing::wall(start.elapsed()))
    }

    /// [`crate::backend::WaveSim::stream_field`]: the field is in host memory already, handed
    /// over as it is.
    pub(crate) fn stream_field(&self, sink: &mut ByteSink<'_>) -> Result<Timing, BackendError> {
        let start = Instant::now();
        sink(0, bytemuck::cast_slice(&self.f))?;
        Ok(Timing::wall(start.elapsed()))
    }

    /// [`crate::backend::WaveSim::read_fields`].
    pub(crate) fn read_fields(&self, f: &mut [f32], g: &mut [f32]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        self.read_field(f)?;
        if g.len() != self.g.len() {
            return Err(BackendError::Invalid(format!("output holds {} values, field has {}", g.len(), self.g.len())));
        }
        g.copy_from_slice(&self.g);
        Ok(Timing::wall(start.elapsed()))
    }

    /// [`crate::backend::WaveSim::write_fields`].
    pub(crate) fn write_fields(&mut self, f: &[f32], g: &[f32], tstep: u32) -> Result<(), BackendError> {
        check_field_sizes(f, g, self.f.len())?;
        self.f.copy_from_slice(f);
        self.g.copy_from_slice(g);
        self.tstep = tstep;
        Ok(())
    }

    /// [`crate::backend::WaveSim::render_rgba`] of an `nx x ny` field on `threads`.
    pub(crate) fn render_rgba(
        &self,
        threads: Threads,
        (nx, ny): (usize, usize),
        (vmin, vmax): (f32, f32),
        rgba: &mut [u8],
    ) -> Result<Timing, BackendError> {
        let start = Instant::now();
        if rgba.len() != self.f.len() * 4 {
            return Err(BackendError::Invalid(format!(
                "RGBA buffer holds {} bytes, frame needs {}",
                rgba.len(),
                self.f.len() * 4
            )));
        }
        super::colormap::wave_rgba(threads, &self.f, nx, ny, vmin, vmax, rgba);
        Ok(Timing::wall(start.elapsed()))
    }

    /// [`crate::backend::WaveSim::render_rgba_strided`] of an `nx x ny` field on `threads`.
    pub(crate) fn render_rgba_strided(
        &self,
        threads: Threads,
        (nx, ny): (usize, usize),
        (vmin, vmax): (f32, f32),
        stride: usize,
        rgba: &mut [u8],
    ) -> Result<Timing, BackendError> {
        let start = Instant::now();
        check_strided_len(nx, ny, stride, rgba)?;
        super::colormap::wave_rgba_strided(threads, &self.f, nx, ny, vmin, vmax, stride, rgba);
        Ok(Timing::wall(start.elapsed()))
    }

    /// [`crate::backend::WaveSim::reset`]: both fields and the step counter zeroed.
    pub(crate) fn reset(&mut self) {
        self.f.fill(0.0);
        self.g.fill(0.0);
        self.tstep = 0;
    }
}
