//! A backend with one wrong value, to see the checkers fail.
//!
//! [`Faulty`] wraps any backend and changes exactly one value of every result it hands back:
//! one cell of a wave field (by [`WAVE_FAULT`]), one byte of a picture, one escape count (by one,
//! with the iteration total kept consistent, as a wrong kernel would report it), one SAXPY
//! element, the reduction's sum (by one). Everything else is the wrapped backend's.
//!
//! A check that passes a [`Faulty`] backend cannot tell a right kernel from a wrong one:
//! `wavebrot verify --inject-fault`, the lessons and the sweep's check are tested with it
//! (`tests/cli/cli.rs`, `tests/kernels/{saxpy,reduction,sweep}.rs`). It is never chosen by `auto` or `--backend`; only `--inject-fault`
//! and tests build one.

use crate::backend::{
    Backend, BackendError, BackendKind, DeviceInfo, LessonTiming, MandelbrotRun, ReduceMethod, Timing, WaveSim,
    WaveVariant,
};
use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::julia::JuliaParams;
use crate::sim::fractal::mandelbrot::{MandelbrotParams, iterations_executed};
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::{Scene, Source};

/// What is added to the one wrong cell of a wave field: far above every wave tolerance
/// (`WAVE_TOLERANCE` 1.5e-6), far below the field's own values, as a wrong rule would be.
pub const WAVE_FAULT: f32 = 1e-3;

/// The index of the wrong value in a result of `len` values: the middle one.
#[must_use]
pub fn fault_index(len: usize) -> usize {
    len / 2
}

/// The cell of an `nx x ny` field that is wrong: a third of the way along each side, inside the
/// grid (never on the border, which every backend keeps at 0).
#[must_use]
pub fn fault_cell(nx: usize, ny: usize) -> usize {
    (nx / 3).max(1).min(nx.saturating_sub(2)) * ny + (ny / 3).max(1).min(ny.saturating_sub(2))
}

/// A backend whose results each have one wrong value (see the module's documentation).
pub struct Faulty {
    inner: Box<dyn Backend>,
}

impl Faulty {
    /// Wraps `inner`.
    #[must_use]
    pub fn new(inner: Box<dyn Backend>) -> Self {
        Self { inner }
    }
}

/// Changes the count at [`fault_index`] by one (down at `iters`, else up) and the run's total
/// with it.
fn corrupt_counts(counts: &mut [i32], iters: u32, run: &mut MandelbrotRun) {
    if counts.is_empty() {
        return;
    }
    let k = fault_index(counts.len());
    let old = counts[k].max(0) as u32;
    let new = if old >= iters { iters.saturating_sub(1) } else { old + 1 };
    counts[k] = new as i32;
    run.total_iters = run.total_iters - iterations_executed(old, iters) + iterations_executed(new, iters);
}

/// The field at [`fault_cell`], off by [`WAVE_FAULT`].
fn corrupt_field(f: &mut [f32], nx: usize, ny: usize) {
    if let Some(v) = f.get_mut(fault_cell(nx, ny)) {
        *v += WAVE_FAULT;
    }
}

impl Backend for Faulty {
    fn kind(&self) -> BackendKind {
        self.inner.kind()
    }

    fn device_info(&self) -> DeviceInfo {
        let mut info = self.inner.device_info();
        info.name = format!("{} (fault injected: one wrong value)", info.name);
        info
    }

    fn is_software(&self) -> bool {
        self.inner.is_software()
    }

    fn new_wave(&self, params: &WaveParams) -> Result<Box<dyn WaveSim>, BackendError> {
        Ok(Box::new(FaultySim { inner: self.inner.new_wave(params)? }))
    }

    fn new_wave_variant(&self, params: &WaveParams, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        Ok(Box::new(FaultySim { inner: self.inner.new_wave_variant(params, variant)? }))
    }

    fn new_scene(&self, scene: &Scene) -> Result<Box<dyn WaveSim>, BackendError> {
        Ok(Box::new(FaultySim { inner: self.inner.new_scene(scene)? }))
    }

    fn new_scene_variant(&self, scene: &Scene, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        Ok(Box::new(FaultySim { inner: self.inner.new_scene_variant(scene, variant)? }))
    }

    fn scene_variants(&self) -> &'static [WaveVariant] {
        self.inner.scene_variants()
    }

    fn wave_variants(&self) -> &'static [WaveVariant] {
        self.inner.wave_variants()
    }

    fn mandelbrot(&mut self, params: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        let mut run = self.inner.mandelbrot(params, counts)?;
        corrupt_counts(counts, params.iters, &mut run);
        Ok(run)
    }

    fn mandelbrot_smooth(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        let mut run = self.inner.mandelbrot_smooth(params, counts, smooth)?;
        corrupt_counts(counts, params.iters, &mut run);
        Ok(run)
    }

    fn julia(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: Option<&mut [f32]>,
    ) -> Result<MandelbrotRun, BackendError> {
        let mut run = self.inner.julia(params, counts, smooth)?;
        corrupt_counts(counts, params.iters, &mut run);
        Ok(run)
    }

    fn saxpy(&mut self, a: f32, x: &[f32], y: &mut [f32]) -> Result<LessonTiming, BackendError> {
        let t = self.inner.saxpy(a, x, y)?;
        if !y.is_empty() {
            let k = fault_index(y.len());
            y[k] = y[k] * 1.001 + 0.001;
        }
        Ok(t)
    }

    fn reduce_sum(&mut self, x: &[u32], method: ReduceMethod) -> Result<(u32, LessonTiming), BackendError> {
        let (sum, t) = self.inner.reduce_sum(x, method)?;
        Ok((sum.wrapping_add(1), t))
    }

    fn mandelbrot_deep(&mut self, job: &DeepJob, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        let mut run = self.inner.mandelbrot_deep(job, counts)?;
        corrupt_counts(counts, job.iters, &mut run);
        Ok(run)
    }

    fn mandelbrot_deep_smooth(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        let mut run = self.inner.mandelbrot_deep_smooth(job, counts, smooth)?;
        corrupt_counts(counts, job.iters, &mut run);
        Ok(run)
    }

    fn deep_arith(&self, job: &DeepJob) -> String {
        self.inner.deep_arith(job)
    }
}

/// A wave problem of a [`Faulty`] backend: the field read back has one cell off, the picture one
/// byte.
struct FaultySim {
    inner: Box<dyn WaveSim>,
}

impl WaveSim for FaultySim {
    fn params(&self) -> &WaveParams {
        self.inner.params()
    }

    fn scene(&self) -> Scene {
        self.inner.scene()
    }

    fn tstep(&self) -> u32 {
        self.inner.tstep()
    }

    fn advance(&mut self, tsteps: u32) -> Result<Timing, BackendError> {
        self.inner.advance(tsteps)
    }

    fn read_field(&mut self, out: &mut [f32]) -> Result<Timing, BackendError> {
        let t = self.inner.read_field(out)?;
        let (nx, ny) = (self.params().nx, self.params().ny);
        corrupt_field(out, nx, ny);
        Ok(t)
    }

    fn read_fields(&mut self, f: &mut [f32], g: &mut [f32]) -> Result<Timing, BackendError> {
        let t = self.inner.read_fields(f, g)?;
        let (nx, ny) = (self.params().nx, self.params().ny);
        corrupt_field(f, nx, ny);
        Ok(t)
    }

    fn write_fields(&mut self, f: &[f32], g: &[f32], tstep: u32) -> Result<(), BackendError> {
        self.inner.write_fields(f, g, tstep)
    }

    fn set_sources(&mut self, sources: &[Source]) -> Result<(), BackendError> {
        self.inner.set_sources(sources)
    }

    fn render_rgba(&mut self, vmin: f32, vmax: f32, rgba: &mut [u8]) -> Result<Timing, BackendError> {
        let t = self.inner.render_rgba(vmin, vmax, rgba)?;
        let (nx, ny) = (self.params().nx, self.params().ny);
        // The red byte of the pixel of the wrong cell (seed orientation: row ny-1-j, column i).
        let cell = fault_cell(nx, ny);
        let (i, j) = (cell / ny, cell % ny);
        if let Some(b) = rgba.get_mut(((ny - 1 - j) * nx + i) * 4) {
            *b = b.wrapping_add(1);
        }
        Ok(t)
    }

    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError> {
        self.inner.set_source(i, j)
    }

    fn set_freq(&mut self, freq: f64) {
        self.inner.set_freq(freq);
    }

    fn reset(&mut self) -> Result<(), BackendError> {
        self.inner.reset()
    }

    fn variant(&self) -> Option<WaveVariant> {
        self.inner.variant()
    }

    fn dram_bytes_per_update(&self, tsteps: u32) -> Option<f64> {
        self.inner.dram_bytes_per_update(tsteps)
    }
}
