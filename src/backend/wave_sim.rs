//! [`WaveSim`]: one wave problem living on a device, stepped in place; [`AsAny`] to reach a
//! backend's own type behind it; [`BlockedDesign`], the memory traffic of a temporally blocked
//! kernel.

use std::any::Any;

use super::{BackendError, Timing, WaveVariant, check_strided_len};
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::{Scene, Source};

/// Where [`WaveSim::stream_field`] hands a field's bytes: `(byte offset, bytes)`, in order.
pub type ByteSink<'a> = dyn FnMut(usize, &[u8]) -> Result<(), BackendError> + 'a;

/// One wave problem living on a backend: two fields stepped in place.
pub trait WaveSim: Send + AsAny {
    /// The problem being run.
    fn params(&self) -> &WaveParams;

    /// The scene being run (a plain problem's is [`Scene::from_params`] of its parameters).
    fn scene(&self) -> Scene {
        Scene::from_params(self.params())
    }

    /// Time steps done since the start (the seed's `tstep` of the last step).
    fn tstep(&self) -> u32;

    /// Runs `tsteps` whole time steps: each sets the source, then `update(f, g)`, `update(g, f)`.
    ///
    /// # Errors
    /// A device failure; the state is then unspecified but still safe to drop or reset.
    fn advance(&mut self, tsteps: u32) -> Result<Timing, BackendError>;

    /// Copies the field `f` (the seed's output) into `out` (`nx*ny` values).
    ///
    /// # Errors
    /// A device failure.
    fn read_field(&mut self, out: &mut [f32]) -> Result<Timing, BackendError>;

    /// Hands the field `f` to `sink` as little-endian bytes in pieces `(byte offset, bytes)`, in
    /// order of offset, covering all `4*nx*ny` bytes: the way to a file without the field ever
    /// sitting whole in pageable memory (a GPU backend passes its pinned chunks straight on).
    /// This default reads the field into a buffer and hands it over at once.
    ///
    /// # Errors
    /// A device failure, or the first error `sink` returned.
    fn stream_field(&mut self, sink: &mut ByteSink<'_>) -> Result<Timing, BackendError> {
        let mut f = vec![0.0f32; self.params().cells()];
        let timing = self.read_field(&mut f)?;
        sink(0, bytemuck::cast_slice(&f))?;
        Ok(timing)
    }

    /// Copies both fields, `f` and `g` (the last two time levels: what
    /// [`crate::sim::wave::scene_cells::energy`] needs).
    ///
    /// # Errors
    /// A device failure, or a backend that cannot read `g` yet.
    fn read_fields(&mut self, f: &mut [f32], g: &mut [f32]) -> Result<Timing, BackendError> {
        let _ = (f, g);
        Err(BackendError::Invalid("reading both fields is not implemented on this backend yet".to_owned()))
    }

    /// Overwrites both fields and the step counter: the state of another problem of the same
    /// grid carried over (the app keeps the waves when a wall is painted or a medium placed).
    ///
    /// # Errors
    /// Fields of the wrong size, or a device failure.
    fn write_fields(&mut self, f: &[f32], g: &[f32], tstep: u32) -> Result<(), BackendError> {
        let _ = (f, g, tstep);
        Err(BackendError::Invalid("writing the fields is not implemented on this backend".to_owned()))
    }

    /// Replaces a scene's sources by `sources` (as many as before; the fields are kept). Plain
    /// problems, and a change the device's buffers cannot hold, answer
    /// [`BackendError::Invalid`]: open the new scene instead.
    ///
    /// # Errors
    /// As above, or an invalid scene (a source outside the grid or on a wall).
    fn set_sources(&mut self, sources: &[Source]) -> Result<(), BackendError> {
        let _ = sources;
        Err(BackendError::Invalid("this problem runs the plain kernel: open the scene instead".to_owned()))
    }

    /// Writes `f` through `hot` into `rgba` (`nx*ny*4` bytes, seed orientation). GPU
    /// backends colour on the device and copy only the bytes.
    ///
    /// # Errors
    /// A device failure.
    fn render_rgba(&mut self, vmin: f32, vmax: f32, rgba: &mut [u8]) -> Result<Timing, BackendError>;

    /// [`Self::render_rgba`] taken every `stride`-th pixel from the top-left one, into `rgba`
    /// (`w*h*4` bytes, `(w, h)` = [`crate::sim::colour::colormap::strided_size`]): exactly
    /// [`crate::sim::colour::colormap::subsample`] of the full picture, how a grid larger than the display
    /// is shown. Backends colour only the cells shown, and a GPU copies only `w*h*4` bytes;
    /// this default renders the whole picture on the host and subsamples it.
    ///
    /// # Errors
    /// A buffer of the wrong size, or a device failure.
    fn render_rgba_strided(
        &mut self,
        vmin: f32,
        vmax: f32,
        stride: usize,
        rgba: &mut [u8],
    ) -> Result<Timing, BackendError> {
        let (nx, ny) = (self.params().nx, self.params().ny);
        check_strided_len(nx, ny, stride, rgba)?;
        if stride <= 1 {
            return self.render_rgba(vmin, vmax, rgba);
        }
        let mut full = vec![0u8; nx * ny * 4];
        let timing = self.render_rgba(vmin, vmax, &mut full)?;
        let (w, h) = crate::sim::colour::colormap::strided_size(nx, ny, stride);
        crate::sim::colour::colormap::subsample(&full, nx, stride, w, h, rgba);
        Ok(timing)
    }

    /// Moves the source (takes effect from the next step).
    ///
    /// # Errors
    /// A source outside the grid.
    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError>;

    /// Changes the source frequency (takes effect from the next step).
    fn set_freq(&mut self, freq: f64);

    /// Zeroes both fields and the step counter.
    ///
    /// # Errors
    /// A device failure.
    fn reset(&mut self) -> Result<(), BackendError>;

    /// The kernel variant this problem runs (never `Auto`; `None` on the CPU backends, which
    /// have one kernel).
    fn variant(&self) -> Option<WaveVariant> {
        None
    }

    /// The kernel this problem's advances run, in words, where the variant alone does not say it
    /// (the wgpu scene kernel: blocked with its tile counts, or one update per dispatch and why).
    fn kernel_note(&self) -> Option<String> {
        None
    }

    /// The bytes the kernel moves to and from device memory per cell update, from its design,
    /// when one call advances `tsteps` time steps ([`BlockedDesign`] for temporal blocking).
    /// `None` where no model is given (scenes: materials and edges add traffic that is not
    /// modelled). The default is the simple kernel's: read `f` and `g`, write `f`, 12 B.
    fn dram_bytes_per_update(&self, tsteps: u32) -> Option<f64> {
        let _ = tsteps;
        self.scene().plain_params().map(|_| crate::sim::wave::BYTES_PER_CELL_UPDATE as f64)
    }
}

/// The concrete type behind a `dyn` [`WaveSim`], for callers that use a backend's own extras
/// (the app draws a wgpu field straight from the GPU without a copy to the host):
/// `sim.as_any_mut().downcast_mut::<WgpuWave>()`. Every wave problem has it (the blanket impl).
pub trait AsAny {
    /// `self` as [`Any`].
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Bounded by [`WaveSim`] (not by `Any` alone), so that a `Box<dyn WaveSim>` answers with the
/// problem inside, not the box.
impl<T: WaveSim + 'static> AsAny for T {
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A scene with `sources` in place of its own, checked: same number of sources, valid.
///
/// # Errors
/// [`BackendError::Invalid`] saying why.
pub fn scene_with_sources(scene: &Scene, sources: &[Source]) -> Result<Scene, BackendError> {
    if sources.len() != scene.sources.len() {
        return Err(BackendError::Invalid(format!(
            "{} sources in place of {}: open the scene instead",
            sources.len(),
            scene.sources.len()
        )));
    }
    let mut s = scene.clone();
    s.sources = sources.to_vec();
    s.validate()?;
    Ok(s)
}

/// The shape of a temporally blocked wave kernel, from which its memory traffic follows.
///
/// One launch loads a `tile` of both fields (`f`, `g`: the output block plus a halo on every
/// side) and stores the `out` block of both, having done up to `2 * steps_per_launch` updates on
/// chip in between. Per output cell and launch that is `8 * tile/out` bytes read and 8 written,
/// shared by the updates of the launch. Halo cells are loaded by the neighbouring tiles too:
/// counted each time, as the kernel asks for them (a re-read that hits L2 does not reach DRAM,
/// so the real DRAM traffic lies between `16 / updates` and this figure).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockedDesign {
    /// Tile loaded per launch, halo included: `(along j, along i)` cells.
    pub tile: (u32, u32),
    /// Output block stored per launch.
    pub out: (u32, u32),
}

impl BlockedDesign {
    /// Cells loaded per cell stored (the halo's share of the reads).
    #[must_use]
    pub fn halo_ratio(self) -> f64 {
        f64::from(self.tile.0 * self.tile.1) / f64::from(self.out.0 * self.out.1)
    }

    /// Bytes per cell update when a call of `tsteps` time steps makes `launches` launches.
    #[must_use]
    pub fn bytes_per_update(self, tsteps: u32, launches: u32) -> f64 {
        if tsteps == 0 {
            return 0.0;
        }
        let per_launch = 8.0 * self.halo_ratio() + 8.0;
        f64::from(launches) * per_launch / (2.0 * f64::from(tsteps))
    }
}
