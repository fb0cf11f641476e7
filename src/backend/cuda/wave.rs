//! Waves on CUDA: `kernels/wave.cu`, the twins of `src/backend/cpu/wave.rs` and
//! `shaders/wave.wgsl` / `shaders/wave_blocked.wgsl`.
//!
//! Two variants (`WaveVariant`, `wavebrot bench --variant`), bit-identical to `cpu1`:
//! - `blocked` (the default): `wave_steps`, temporal blocking with up to `TILE.steps()` time
//!   steps per launch on tiles held in registers, the source fused into the step; the launches
//!   of one `advance` are captured once into a CUDA graph and replayed;
//! - `simple`: `wave_update`, one launch per update, each cell reading its neighbours from
//!   memory: the seed's kernel shape, at the 12-bytes-per-update DRAM floor.
//!
//! A scene that is not the seed's rule (walls, media, damping, absorbing edges, several sources)
//! has the same two variants: `blocked`, `wave_scene_steps` on `wave_steps`' tiles (uniform tiles
//! in registers, the others in shared memory, see `wave_scene.rs`), and `simple`,
//! `wave_scene_update` once per update with `wave_scene_sources` writing the forced cells before
//! each step. Both keep the material ids and table on the device.

use std::sync::Arc;
use web_time::{Duration, Instant};

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PinnedHostSlice, PushKernelArg, sys};

use super::copy::{copy_chunked, copy_chunked_to, pinned_ring};
use super::launch::{SendGraph, alloc_uninit, launch};
use super::wave_scene::{SceneData, scene_update};
use super::wave_tile::TILE;
use super::{BackendError, Device, Events, alloc_error, check_free, colormap, runtime};
use crate::backend::{Timing, TimingSource, WaveSim, WaveVariant};
use crate::sim::wave::scene::{Scene, Source};
use crate::sim::wave::{WaveParams, source_value};

#[path = "wave_launch.rs"]
mod launch;

/// Launches of one `advance` from which it is captured into a CUDA graph and replayed.
const GRAPH_MIN_LAUNCHES: usize = 4;
/// Graphs kept per wave problem (one per `(tsteps, parity)` seen).
const GRAPH_CACHE: usize = 8;

/// A wave problem on the device: the fields `f`, `g` (`fields[2*cur]`, `fields[2*cur+1]`)
/// and the pair the blocked kernel writes into.
pub struct CudaWave {
    dev: Arc<Device>,
    stream: Arc<CudaStream>,
    params: WaveParams,
    variant: WaveVariant,
    tstep: u32,
    fields: Vec<CudaSlice<f32>>,
    cur: usize,
    /// `source_value` of the steps of one `advance` call, uploaded before its launches.
    svals: CudaSlice<f32>,
    lut: CudaSlice<u32>,
    rgba: Option<CudaSlice<u32>>,
    /// The picture of `render_rgba_strided` (`w*h` pixels of its last stride).
    rgba_strided: Option<CudaSlice<u32>>,
    host_field: Option<PinnedHostSlice<f32>>,
    host_rgba: Option<PinnedHostSlice<u32>>,
    events: Events,
    /// One per chunk of a copy to the host.
    chunk_events: Vec<CudaEvent>,
    /// Captured launch sequences of `advance`, keyed by `(tsteps, cur)` at its start. Their
    /// arguments (buffers, source cell, `svals`) are baked in: cleared when any changes.
    graphs: Vec<((usize, usize), SendGraph)>,
    /// The scene's data on the device, when it runs one.
    scene: Option<SceneData>,
    /// A second stream for a scene's matched-layer tiles: their launch runs beside the other
    /// tiles' (they read the same fields and write other cells), forked from and joined back
    /// into `stream` around each pair of launches (in a captured graph: two parallel branches).
    side: Option<Arc<CudaStream>>,
}

impl CudaWave {
    /// Allocates a problem of `params` (zero fields) running `variant` (`Auto` is `Blocked`).
    pub(super) fn new(
        dev: &Arc<Device>,
        stream: &Arc<CudaStream>,
        params: &WaveParams,
        variant: WaveVariant,
    ) -> Result<Self, BackendError> {
        params.validate()?;
        let variant = if variant == WaveVariant::Auto { WaveVariant::Blocked } else { variant };
        let what = format!("wave {}x{}", params.nx, params.ny);
        // Two fields and the two the blocked kernel writes into.
        check_free(dev, &what, 2 * params.field_bytes())?;
        let n = params.cells();
        let bytes = 4 * n as u64;
        let mut fields = Vec::with_capacity(4);
        for _ in 0..4 {
            fields.push(stream.alloc_zeros::<f32>(n).map_err(|e| alloc_error(&what, bytes, e))?);
        }
        let svals = stream.alloc_zeros::<f32>(1024).map_err(|e| runtime("allocating source values", e))?;
        Ok(Self {
            dev: dev.clone(),
            stream: stream.clone(),
            params: *params,
            variant,
            tstep: 0,
            fields,
            cur: 0,
            svals,
            lut: colormap::upload_lut(stream)?,
            rgba: None,
            rgba_strided: None,
            host_field: None,
            host_rgba: None,
            events: Events::new(&dev.ctx)?,
            chunk_events: Vec::new(),
            graphs: Vec::new(),
            scene: None,
            side: None,
        })
    }

    /// Allocates `scene` (zero fields) running `variant` of the scene kernels (`Auto` is `Blocked`).
    pub(super) fn new_scene(
        dev: &Arc<Device>,
        stream: &Arc<CudaStream>,
        scene: &Scene,
        variant: WaveVariant,
    ) -> Result<Self, BackendError> {
        scene.validate()?;
        let params = scene.summary_params();
        let what = format!("scene {}x{}", scene.nx, scene.ny);
        // The fields and their second pair, then 2 bytes of material id per cell.
        check_free(dev, &what, 2 * params.field_bytes() + 2 * params.cells() as u64)?;
        let mut wave = Self::new(dev, stream, &params, variant)?;
        let data = SceneData::new(stream, scene)?;
        if data.one_update_only() {
            // The blocked kernels have no twin of a matched layer beside Mur's edge: `simple`.
            wave.variant = WaveVariant::Simple;
        }
        if data.n_layer_tiles > 0 {
            wave.side = Some(stream.fork().map_err(|e| runtime("creating the layer tiles' stream", e))?);
        }
        wave.scene = Some(data);
        Ok(wave)
    }

    /// Uploads the source values of a scene's steps `first..first + steps` (before their launches).
    fn upload_scene_values(&mut self, first: u32, steps: u32) -> Result<(), BackendError> {
        let Some(sc) = self.scene.as_mut() else { return Ok(()) };
        let values = sc.values(first, steps);
        if sc.values.len() < values.len() {
            // The captured graphs hold the old buffer.
            self.graphs.clear();
            sc.values = self
                .stream
                .alloc_zeros::<f32>(values.len().next_power_of_two())
                .map_err(|e| runtime("allocating source values", e))?;
        }
        if !values.is_empty() {
            self.stream.memcpy_htod(&values, &mut sc.values).map_err(|e| runtime("uploading source values", e))?;
        }
        Ok(())
    }

    /// Copies `fields[index]` into `out` through the pinned staging buffer; the events time the copy.
    fn copy_field(&mut self, index: usize, out: &mut [f32]) -> Result<(), BackendError> {
        let n = self.params.cells();
        if out.len() != n {
            return Err(BackendError::Invalid(format!("output holds {} values, field has {n}", out.len())));
        }
        if self.host_field.is_none() {
            self.host_field = Some(pinned_ring(&self.dev, "the field's host copy", n)?);
        }
        let Some(host) = self.host_field.as_mut() else { unreachable!("allocated above") };
        let staging = host.as_mut_slice().map_err(|e| runtime("waiting for the host buffer", e))?;
        self.events.record_start(&self.stream)?;
        let (src, _guard) = self.fields[index].device_ptr(&self.stream);
        copy_chunked(
            &self.dev.ctx,
            &self.stream,
            src,
            bytemuck::cast_slice_mut(staging),
            bytemuck::cast_slice_mut(out),
            &mut self.chunk_events,
            Some(&self.events.stop),
        )
    }

    fn timing(&self, start: Instant) -> Result<Timing, BackendError> {
        let device = self.events.elapsed()?;
        Ok(Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents })
    }
}

impl CudaWave {
    /// Runs `colour` (the full or the strided colormap, into the picture buffer allocated for
    /// it) between the timing events, waits for it, so the app's frame profile tells colouring
    /// from copying, then copies the picture to `rgba` through the pinned ring.
    fn colour_then_copy(
        &mut self,
        strided: bool,
        rgba: &mut [u8],
        start: Instant,
        colour: impl FnOnce(
            &Device,
            &Arc<CudaStream>,
            &CudaSlice<f32>,
            &CudaSlice<u32>,
            &mut CudaSlice<u32>,
        ) -> Result<(), BackendError>,
    ) -> Result<Timing, BackendError> {
        let picture = if strided { self.rgba_strided.as_mut() } else { self.rgba.as_mut() };
        let (Some(dev_rgba), Some(host)) = (picture, self.host_rgba.as_mut()) else {
            unreachable!("allocated by the caller")
        };
        self.events.record_start(&self.stream)?;
        colour(&self.dev, &self.stream, &self.fields[2 * self.cur], &self.lut, dev_rgba)?;
        self.events.record_stop(&self.stream)?;
        self.events.stop.synchronize().map_err(|e| runtime("waiting for the colormap", e))?;
        puffin::profile_scope!("copy");
        let staging = host.as_mut_slice().map_err(|e| runtime("waiting for the host buffer", e))?;
        let (src, _guard) = dev_rgba.device_ptr(&self.stream);
        copy_chunked(
            &self.dev.ctx,
            &self.stream,
            src,
            bytemuck::cast_slice_mut(staging),
            rgba,
            &mut self.chunk_events,
            None,
        )?;
        let device = self.events.elapsed()?;
        Ok(Timing { wall: start.elapsed(), device: Some(device), source: TimingSource::CudaEvents })
    }
}

impl WaveSim for CudaWave {
    fn params(&self) -> &WaveParams {
        &self.params
    }

    fn tstep(&self) -> u32 {
        self.tstep
    }

    fn advance(&mut self, tsteps: u32) -> Result<Timing, BackendError> {
        let start = Instant::now();
        if tsteps == 0 {
            return Ok(Timing {
                wall: start.elapsed(),
                device: Some(Duration::ZERO),
                source: TimingSource::CudaEvents,
            });
        }
        if self.scene.is_some() {
            self.upload_scene_values(self.tstep + 1, tsteps)?;
            self.events.record_start(&self.stream)?;
            if self.variant == WaveVariant::Blocked {
                self.launch_blocked_graph(tsteps as usize)?;
            } else {
                self.launch_scene(tsteps)?;
            }
            self.events.record_stop(&self.stream)?;
            self.tstep += tsteps;
            return self.timing(start);
        }
        let values: Vec<f32> = (1..=tsteps).map(|k| source_value(self.params.freq, self.tstep + k)).collect();
        let blocked = self.variant == WaveVariant::Blocked;
        if blocked {
            if self.svals.len() < values.len() {
                self.graphs.clear();
                self.svals = self
                    .stream
                    .alloc_zeros::<f32>(values.len().next_power_of_two())
                    .map_err(|e| runtime("allocating source values", e))?;
            }
            self.stream.memcpy_htod(&values, &mut self.svals).map_err(|e| runtime("uploading source values", e))?;
        }
        self.events.record_start(&self.stream)?;
        if blocked {
            self.launch_blocked_graph(values.len())?;
        } else {
            self.launch_simple(&values)?;
        }
        self.events.record_stop(&self.stream)?;
        self.tstep += tsteps;
        self.timing(start)
    }

    fn read_field(&mut self, out: &mut [f32]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        self.copy_field(2 * self.cur, out)?;
        self.timing(start)
    }

    /// The field's chunks go from the pinned ring straight to `sink` (`copy::copy_chunked_to`).
    fn stream_field(&mut self, sink: &mut crate::backend::ByteSink<'_>) -> Result<Timing, BackendError> {
        let start = Instant::now();
        let n = self.params.cells();
        if self.host_field.is_none() {
            self.host_field = Some(pinned_ring(&self.dev, "the field's host copy", n)?);
        }
        let Some(host) = self.host_field.as_mut() else { unreachable!("allocated above") };
        let staging = host.as_mut_slice().map_err(|e| runtime("waiting for the host buffer", e))?;
        self.events.record_start(&self.stream)?;
        {
            let (src, _guard) = self.fields[2 * self.cur].device_ptr(&self.stream);
            let staging = bytemuck::cast_slice_mut(staging);
            let (ctx, stream, events) = (&self.dev.ctx, &self.stream, &mut self.chunk_events);
            copy_chunked_to(ctx, stream, src, 4 * n, staging, events, Some(&self.events.stop), |o, b| sink(o, b))?;
        }
        self.timing(start)
    }

    /// Colours only the cells shown (`wave_rgba_strided`) and copies only the `w*h` pixels.
    fn render_rgba_strided(
        &mut self,
        vmin: f32,
        vmax: f32,
        stride: usize,
        rgba: &mut [u8],
    ) -> Result<Timing, BackendError> {
        let (nx, ny) = (self.params.nx, self.params.ny);
        crate::backend::check_strided_len(nx, ny, stride, rgba)?;
        if stride <= 1 {
            return self.render_rgba(vmin, vmax, rgba);
        }
        let start = Instant::now();
        let (w, h) = crate::sim::colour::colormap::strided_size(nx, ny, stride);
        let pixels = w * h;
        if self.rgba_strided.as_ref().is_none_or(|b| b.len() != pixels) {
            self.rgba_strided = None;
            let what = format!("RGBA frame {w}x{h} (every {stride}th cell of {nx}x{ny})");
            check_free(&self.dev, &what, 4 * pixels as u64)?;
            // Launch contract: the colormap kernel writes every pixel before the copy reads it.
            let buf =
                alloc_uninit::<u32>(&self.stream, pixels).map_err(|e| alloc_error(&what, 4 * pixels as u64, e))?;
            self.rgba_strided = Some(buf);
        }
        if self.host_rgba.is_none() {
            self.host_rgba = Some(pinned_ring(&self.dev, "the RGBA frame's host copy", pixels)?);
        }
        self.colour_then_copy(true, rgba, start, |dev, stream, f, lut, out| {
            colormap::wave_rgba_strided(dev, stream, f, nx, ny, vmin, vmax, stride, lut, out)
        })
    }

    fn read_fields(&mut self, f: &mut [f32], g: &mut [f32]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        self.copy_field(2 * self.cur, f)?;
        self.copy_field(2 * self.cur + 1, g)?;
        Ok(Timing::wall(start.elapsed()))
    }

    fn render_rgba(&mut self, vmin: f32, vmax: f32, rgba: &mut [u8]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        let n = self.params.cells();
        if rgba.len() != 4 * n {
            return Err(BackendError::Invalid(format!(
                "RGBA buffer holds {} bytes, frame needs {}",
                rgba.len(),
                4 * n
            )));
        }
        if self.rgba.is_none() {
            let what = format!("RGBA frame {}x{}", self.params.nx, self.params.ny);
            check_free(&self.dev, &what, 4 * n as u64)?;
            // Launch contract: the colormap kernel writes every pixel before the copy reads it.
            let buf = alloc_uninit::<u32>(&self.stream, n).map_err(|e| alloc_error(&what, 4 * n as u64, e))?;
            self.rgba = Some(buf);
            self.host_rgba = Some(pinned_ring(&self.dev, &what, n)?);
        }
        let (nx, ny) = (self.params.nx, self.params.ny);
        self.colour_then_copy(false, rgba, start, |dev, stream, f, lut, out| {
            colormap::wave_rgba(dev, stream, f, nx, ny, vmin, vmax, lut, out)
        })
    }

    fn scene(&self) -> Scene {
        self.scene.as_ref().map_or_else(|| Scene::from_params(&self.params), |sc| sc.scene.clone())
    }

    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError> {
        if let Some(sc) = self.scene.as_mut() {
            let scene = sc.scene.with_first_source_at(i, j)?;
            self.params = scene.summary_params();
            // The captured graphs hold the old source cells.
            self.graphs.clear();
            return sc.set_sources(&self.stream, scene);
        }
        self.params = self.params.with_source(i, j)?;
        self.graphs.clear();
        Ok(())
    }

    fn write_fields(&mut self, f: &[f32], g: &[f32], tstep: u32) -> Result<(), BackendError> {
        crate::backend::check_field_sizes(f, g, self.params.cells())?;
        let (a, b) = self.fields.split_at_mut(2 * self.cur + 1);
        self.stream.memcpy_htod(f, &mut a[2 * self.cur]).map_err(|e| runtime("writing the fields", e))?;
        self.stream.memcpy_htod(g, &mut b[0]).map_err(|e| runtime("writing the fields", e))?;
        if let Some(sc) = self.scene.as_mut() {
            sc.clear_aux(&self.stream)?;
        }
        // The host slices are borrowed only for this call.
        self.stream.synchronize().map_err(|e| runtime("writing the fields", e))?;
        self.tstep = tstep;
        Ok(())
    }

    fn set_sources(&mut self, sources: &[Source]) -> Result<(), BackendError> {
        let Some(sc) = self.scene.as_mut() else {
            return Err(BackendError::Invalid("this problem runs the plain kernel: open the scene instead".to_owned()));
        };
        let scene = crate::backend::scene_with_sources(&sc.scene, sources)?;
        self.params = scene.summary_params();
        self.graphs.clear();
        sc.set_sources(&self.stream, scene)
    }

    fn set_freq(&mut self, freq: f64) {
        self.params.freq = freq;
        if let Some(sc) = self.scene.as_mut() {
            sc.scene = sc.scene.with_freq(freq);
        }
    }

    fn reset(&mut self) -> Result<(), BackendError> {
        for f in &mut self.fields {
            self.stream.memset_zeros(f).map_err(|e| runtime("clearing the fields", e))?;
        }
        if let Some(sc) = self.scene.as_mut() {
            sc.clear_aux(&self.stream)?;
        }
        self.stream.synchronize().map_err(|e| runtime("clearing the fields", e))?;
        self.tstep = 0;
        Ok(())
    }

    fn variant(&self) -> Option<WaveVariant> {
        Some(self.variant)
    }

    fn dram_bytes_per_update(&self, tsteps: u32) -> Option<f64> {
        let design = crate::backend::BlockedDesign { tile: (TILE.width(), TILE.height()), out: TILE.out() };
        let launches = (tsteps as usize).div_ceil(self.steps_per_launch()) as u32;
        match (&self.scene, self.variant) {
            // A scene reads its 2-byte material ids with each tile, halo included.
            (Some(_), WaveVariant::Blocked) => Some(
                design.bytes_per_update(tsteps, launches)
                    + f64::from(launches) * 2.0 * design.halo_ratio() / (2.0 * f64::from(tsteps.max(1))),
            ),
            (Some(_), _) => None,
            (None, WaveVariant::Blocked) => Some(design.bytes_per_update(tsteps, launches)),
            (None, _) => Some(crate::sim::wave::BYTES_PER_CELL_UPDATE as f64),
        }
    }
}
