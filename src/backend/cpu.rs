//! The CPU backend: the single-thread reference (`cpu1`) and the all-cores path (`cpu`).
//!
//! Both run the same row kernel ([`crate::sim::wave::update_row`],
//! [`crate::sim::mandelbrot::mandelbrot_row`]), so they give the same bits; `cpu` only
//! spreads rows over rayon's threads. These are the CPU twins of `kernels/*.cu` and
//! `shaders/*.wgsl`.

use std::time::Instant;

use rayon::prelude::*;

use super::{Backend, BackendError, BackendKind, DeviceInfo, MandelbrotRun, Timing, WaveSim, WaveVariant, check_fits};
use crate::sim::colormap;
use crate::sim::mandelbrot::{MandelbrotParams, mandelbrot_row};
use crate::sim::wave::{WaveParams, source_value, update_row};

/// How many threads a CPU backend uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// One thread: the reference.
    One,
    /// All of rayon's threads.
    All,
}

/// A CPU backend.
#[derive(Clone, Debug)]
pub struct CpuBackend {
    threads: Threads,
}

impl CpuBackend {
    #[must_use]
    pub fn new(threads: Threads) -> Self {
        Self { threads }
    }
}

/// The host's CPU model and the memory a problem may still take.
#[must_use]
pub fn host_facts() -> (String, Option<u64>, Option<u64>) {
    let mut sys = sysinfo::System::new();
    sys.refresh_memory();
    sys.refresh_cpu_all();
    let brand = sys.cpus().first().map_or_else(|| "unknown CPU".to_owned(), |c| c.brand().trim().to_owned());
    let avail = Some(sys.available_memory()).filter(|&b| b > 0);
    let total = Some(sys.total_memory()).filter(|&b| b > 0);
    (brand, avail, total)
}

/// Allocates `n` zeroed values, or reports the failure instead of aborting.
fn zeroed<T: Clone + Default>(kind: BackendKind, what: &str, n: usize) -> Result<Vec<T>, BackendError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| BackendError::OutOfMemory {
        kind,
        what: what.to_owned(),
        needed_bytes: (n * size_of::<T>()) as u64,
        available_bytes: 0,
    })?;
    v.resize(n, T::default());
    Ok(v)
}

impl Backend for CpuBackend {
    fn kind(&self) -> BackendKind {
        match self.threads {
            Threads::One => BackendKind::Cpu1,
            Threads::All => BackendKind::Cpu,
        }
    }

    fn device_info(&self) -> DeviceInfo {
        let (brand, avail, total) = host_facts();
        let threads = match self.threads {
            Threads::One => 1,
            Threads::All => rayon::current_num_threads(),
        };
        let mut details = vec![("threads".to_owned(), threads.to_string())];
        if let Some(t) = total {
            details.push(("memory".to_owned(), format!("{:.1} GiB", t as f64 / f64::from(1u32 << 30))));
        }
        DeviceInfo {
            name: format!("{brand} ({threads} thread{})", if threads == 1 { "" } else { "s" }),
            details,
            memory_bytes: avail,
            peak_gbps: None,
        }
    }

    fn new_wave_variant(&self, params: &WaveParams, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        if variant != WaveVariant::Auto {
            return Err(BackendError::Invalid(format!(
                "{} has one wave kernel (both updates of a step fused in one pass); variant {variant} is for cuda and wgpu",
                self.kind()
            )));
        }
        params.validate().map_err(BackendError::Invalid)?;
        let kind = self.kind();
        let (_, avail, _) = host_facts();
        let what = format!("wave {}x{}", params.nx, params.ny);
        check_fits(kind, &what, params.field_bytes(), avail)?;
        let f = zeroed(kind, &what, params.cells())?;
        let g = zeroed(kind, &what, params.cells())?;
        Ok(Box::new(CpuWave { params: *params, threads: self.threads, f, g, halo: Vec::new(), tstep: 0 }))
    }

    fn mandelbrot(&mut self, params: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        params.validate().map_err(BackendError::Invalid)?;
        if counts.len() != params.pixels() {
            return Err(BackendError::Invalid(format!(
                "counts hold {} values, image has {}",
                counts.len(),
                params.pixels()
            )));
        }
        let start = Instant::now();
        let total_iters = match self.threads {
            Threads::One => {
                counts.chunks_exact_mut(params.width).enumerate().map(|(y, row)| mandelbrot_row(params, y, row)).sum()
            }
            Threads::All => counts
                .par_chunks_exact_mut(params.width)
                .enumerate()
                .map(|(y, row)| mandelbrot_row(params, y, row))
                .sum(),
        };
        Ok(MandelbrotRun { total_iters, timing: Timing::wall(start.elapsed()) })
    }
}

/// A wave problem in host memory.
struct CpuWave {
    params: WaveParams,
    threads: Threads,
    f: Vec<f32>,
    g: Vec<f32>,
    /// Scratch rows for [`wave_tstep`].
    halo: Vec<f32>,
    tstep: u32,
}

/// `update(f, g)` over all interior rows: the CPU twin of `kernels/wave.cu`'s `wave_update`
/// and `shaders/wave.wgsl`. (The backends run [`wave_tstep`], which fuses two of these.)
pub fn wave_update(threads: Threads, p: &WaveParams, f: &mut [f32], g: &[f32]) {
    let (nx, ny, c2) = (p.nx, p.ny, p.c2);
    let row = |(i, f_row): (usize, &mut [f32])| {
        if i > 0 && i + 1 < nx {
            update_row(c2, f_row, &g[(i - 1) * ny..i * ny], &g[i * ny..(i + 1) * ny], &g[(i + 1) * ny..(i + 2) * ny]);
        }
    };
    match threads {
        Threads::One => f.chunks_exact_mut(ny).enumerate().for_each(row),
        Threads::All => f.par_chunks_exact_mut(ny).enumerate().with_min_len((16_384 / ny).max(1)).for_each(row),
    }
}

/// Rows per band when `threads` share `nx` rows: one band per thread, so each thread keeps
/// its rows warm in its own cache from step to step.
fn band_rows(threads: Threads, nx: usize) -> usize {
    match threads {
        Threads::One => nx,
        Threads::All => nx.div_ceil(rayon::current_num_threads()).max(2),
    }
}

/// One whole time step, `update(f, g)` then `update(g, f)`, fused into one pass over memory.
///
/// Each band of rows updates `f` row `k`, then `g` row `k - 1` (whose three `f` neighbours
/// are now new), so rows are read from cache rather than memory twice. The `g` rows at the
/// band's edges need `f` rows of the neighbouring bands: they are done after every band
/// finished. Every cell sees exactly the operations of the two separate updates, so the
/// result is bit-identical to [`wave::reference_run`](crate::sim::wave::reference_run).
/// `halo` is scratch space, resized as needed.
pub fn wave_tstep(threads: Threads, p: &WaveParams, f: &mut [f32], g: &mut [f32], halo: &mut Vec<f32>) {
    let (nx, ny, c2) = (p.nx, p.ny, p.c2);
    let band = band_rows(threads, nx);
    let bands = nx.div_ceil(band);
    // The g rows just outside each band, as they are before the step: [above, below] per band.
    halo.resize(bands * 2 * ny, 0.0);
    for (b, h) in halo.chunks_exact_mut(2 * ny).enumerate() {
        let (r0, r1) = (b * band, ((b + 1) * band).min(nx));
        let (above, below) = h.split_at_mut(ny);
        if r0 > 0 {
            above.copy_from_slice(&g[(r0 - 1) * ny..r0 * ny]);
        }
        if r1 < nx {
            below.copy_from_slice(&g[r1 * ny..(r1 + 1) * ny]);
        }
    }
    type BandItem<'a> = ((usize, (&'a mut [f32], &'a mut [f32])), &'a [f32]);
    let inner = |((b, (f_band, g_band)), h): BandItem<'_>| {
        let (above, below) = h.split_at(ny);
        fused_band(c2, nx, ny, b * band, f_band, g_band, above, below);
    };
    match threads {
        Threads::One => {
            let f_bands = f.chunks_mut(band * ny);
            f_bands.zip(g.chunks_mut(band * ny)).enumerate().zip(halo.chunks_exact(2 * ny)).for_each(inner);
        }
        Threads::All => {
            let f_bands = f.par_chunks_mut(band * ny);
            f_bands.zip(g.par_chunks_mut(band * ny)).enumerate().zip(halo.par_chunks_exact(2 * ny)).for_each(inner);
        }
    }
    let f = &*f;
    let edges = |(b, g_band): (usize, &mut [f32])| {
        let r0 = b * band;
        let rows = g_band.len() / ny;
        for k in [0, rows - 1] {
            let i = r0 + k;
            if i > 0 && i + 1 < nx && (k == 0 || rows > 1) {
                let f_rows = (&f[(i - 1) * ny..i * ny], &f[i * ny..(i + 1) * ny], &f[(i + 1) * ny..(i + 2) * ny]);
                update_row(c2, &mut g_band[k * ny..(k + 1) * ny], f_rows.0, f_rows.1, f_rows.2);
            }
        }
    };
    match threads {
        Threads::One => g.chunks_mut(band * ny).enumerate().for_each(edges),
        Threads::All => g.par_chunks_mut(band * ny).enumerate().for_each(edges),
    }
}

/// Phase one of [`wave_tstep`] for the band starting at row `r0`: all of its `f` rows and
/// its `g` rows but the first and last.
#[expect(clippy::too_many_arguments, reason = "the band, its two halo rows and the grid shape")]
fn fused_band(c2: f32, nx: usize, ny: usize, r0: usize, f: &mut [f32], g: &mut [f32], above: &[f32], below: &[f32]) {
    let rows = f.len() / ny;
    for k in 0..rows {
        let i = r0 + k;
        if i > 0 && i + 1 < nx {
            let up = if k == 0 { above } else { &g[(k - 1) * ny..k * ny] };
            let down = if k + 1 == rows { below } else { &g[(k + 1) * ny..(k + 2) * ny] };
            update_row(c2, &mut f[k * ny..(k + 1) * ny], up, &g[k * ny..(k + 1) * ny], down);
        }
        // g row k-1 now has new f rows k-2, k-1, k (all inside the band).
        if k >= 2 && i < nx {
            let gi = i - 1;
            if gi + 1 < nx {
                let (f_up, rest) = f[(k - 2) * ny..(k + 1) * ny].split_at(ny);
                let (f_mid, f_down) = rest.split_at(ny);
                update_row(c2, &mut g[(k - 1) * ny..k * ny], f_up, f_mid, f_down);
            }
        }
    }
}

impl WaveSim for CpuWave {
    fn params(&self) -> &WaveParams {
        &self.params
    }

    fn tstep(&self) -> u32 {
        self.tstep
    }

    fn advance(&mut self, tsteps: u32) -> Result<Timing, BackendError> {
        let start = Instant::now();
        let src = self.params.source_index();
        for _ in 0..tsteps {
            self.tstep += 1;
            self.g[src] = source_value(self.params.freq, self.tstep);
            wave_tstep(self.threads, &self.params, &mut self.f, &mut self.g, &mut self.halo);
        }
        Ok(Timing::wall(start.elapsed()))
    }

    fn read_field(&mut self, out: &mut [f32]) -> Result<Timing, BackendError> {
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

    fn render_rgba(&mut self, vmin: f32, vmax: f32, rgba: &mut [u8]) -> Result<Timing, BackendError> {
        let start = Instant::now();
        if rgba.len() != self.f.len() * 4 {
            return Err(BackendError::Invalid(format!(
                "RGBA buffer holds {} bytes, frame needs {}",
                rgba.len(),
                self.f.len() * 4
            )));
        }
        colormap::wave_rgba(&self.f, self.params.nx, self.params.ny, vmin, vmax, rgba);
        Ok(Timing::wall(start.elapsed()))
    }

    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError> {
        self.params = self.params.with_source(i, j).map_err(BackendError::Invalid)?;
        Ok(())
    }

    fn set_freq(&mut self, freq: f64) {
        self.params.freq = freq;
    }

    fn reset(&mut self) -> Result<(), BackendError> {
        self.f.fill(0.0);
        self.g.fill(0.0);
        self.tstep = 0;
        Ok(())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{mandelbrot, wave};

    #[test]
    fn both_cpu_paths_equal_the_reference_bit_for_bit() {
        for (nx, ny) in [(37, 53), (64, 3), (3, 64), (120, 97)] {
            let p = WaveParams::new(nx, ny, 0.1);
            let want = wave::reference(&p, 70);
            for threads in [Threads::One, Threads::All] {
                let mut sim = CpuBackend::new(threads).new_wave(&p).unwrap();
                sim.advance(30).unwrap();
                sim.advance(40).unwrap();
                let mut got = vec![0.0; p.cells()];
                sim.read_field(&mut got).unwrap();
                assert_eq!(got, want, "{threads:?} at {nx}x{ny}");
            }
        }
    }

    #[test]
    fn mandelbrot_paths_agree() {
        for precision in [mandelbrot::Precision::F64, mandelbrot::Precision::F32] {
            let p = MandelbrotParams { width: 97, height: 61, iters: 200, precision, ..MandelbrotParams::SEED };
            let (want, want_total) = mandelbrot::reference(&p);
            for threads in [Threads::One, Threads::All] {
                let mut counts = vec![0; p.pixels()];
                let run = CpuBackend::new(threads).mandelbrot(&p, &mut counts).unwrap();
                assert_eq!(counts, want);
                assert_eq!(run.total_iters, want_total);
            }
        }
    }

    #[test]
    fn reset_and_source_moves() {
        let p = WaveParams::new(20, 20, 0.5);
        let mut sim = CpuBackend::new(Threads::All).new_wave(&p).unwrap();
        sim.advance(5).unwrap();
        assert_eq!(sim.tstep(), 5);
        sim.reset().unwrap();
        assert_eq!(sim.tstep(), 0);
        let mut f = vec![1.0; p.cells()];
        sim.read_field(&mut f).unwrap();
        assert!(f.iter().all(|&v| v == 0.0));
        assert!(sim.set_source(25, 3).is_err());
        sim.set_source(3, 4).unwrap();
        sim.advance(1).unwrap();
        sim.read_field(&mut f).unwrap();
        assert_ne!(f[3 * 20 + 4 + 1], 0.0, "the wave starts at the new source");
    }

    #[test]
    fn a_grid_larger_than_memory_is_refused() {
        let p = WaveParams::new(1 << 20, 1 << 20, 0.1);
        match CpuBackend::new(Threads::All).new_wave(&p) {
            Err(BackendError::OutOfMemory { needed_bytes, .. }) => assert_eq!(needed_bytes, 8 << 40),
            Err(e) => panic!("wrong error: {e}"),
            Ok(_) => panic!("an 8 TiB grid must be refused"),
        }
    }
}
