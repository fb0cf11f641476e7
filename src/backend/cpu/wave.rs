//! The wave kernels on the CPU, twins of `kernels/wave.cu` and `shaders/wave*.wgsl`:
//! [`wave_update`] (one update, the shape of CUDA's `wave_update` and `shaders/wave.wgsl`) and
//! [`wave_tstep`] (both updates of a time step fused into one banded pass, what the backend
//! runs), and `CpuWave`, a wave problem in host memory.

use web_time::Instant;

use rayon::prelude::*;

use super::Threads;
use super::fields::HostFields;
use super::wave_blocked::{Rules, block_depth, blocked_band_rows, blocked_tsteps};
use crate::backend::{BackendError, ByteSink, Timing, WaveSim, WaveVariant};
use crate::sim::wave::{WaveParams, source_value, update_row};

/// A wave problem in host memory.
pub(crate) struct CpuWave {
    params: WaveParams,
    threads: Threads,
    /// `f`, `g`, the scratch rows for [`wave_tstep`] and [`wave_tsteps_blocked`], the step.
    fields: HostFields,
    /// Temporal blocking (`cpu`'s `blocked` variant).
    blocked: bool,
}

/// Time steps `first ..= first + steps - 1` of the seed rule (source write, `update(f, g)`,
/// `update(g, f)`) on the current rayon pool, `depth` steps per trip over memory (temporal
/// blocking, [`super::wave_blocked`]); bit-identical to [`wave_tstep`] step by step. `scratch`
/// holds ghost rows, resized as needed.
pub fn wave_tsteps_blocked(
    p: &WaveParams,
    f: &mut [f32],
    g: &mut [f32],
    scratch: &mut Vec<f32>,
    first: u32,
    steps: u32,
    depth: u32,
) {
    let (c2, freq, (si, sj)) = (p.c2, p.freq, p.source);
    let row = |_, f_row: &mut [f32], up: &[f32], mid: &[f32], down: &[f32]| update_row(c2, f_row, up, mid, down);
    let sources = |t, i, g_row: &mut [f32]| {
        if i == si {
            g_row[sj] = source_value(freq, t);
        }
    };
    let rules = Rules { row: &row, layer: None::<&LayerRowFn>, edge: None::<&EdgeRowFn>, sources: &sources };
    let band = blocked_band_rows(p.nx);
    let mut done = 0;
    while done < steps {
        let d = depth.max(1).min(steps - done);
        blocked_tsteps(p.nx, p.ny, f, g, scratch, band, first + done, d, &rules, None);
        done += d;
    }
}

/// The blocking depth `CpuWave` uses on the current pool: [`block_depth`] for its bands.
#[must_use]
pub fn auto_depth(nx: usize, ny: usize) -> u32 {
    block_depth(ny, blocked_band_rows(nx))
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
/// its rows warm in its own cache from step to step. With `edge_rows`, every band (the last too)
/// has at least 4 rows, so rows 0..=3 and `nx-4..nx` each lie in one band (see [`banded_tstep`]).
fn band_rows(threads: Threads, nx: usize, edge_rows: bool) -> usize {
    let band = match threads {
        Threads::One => nx,
        Threads::All => nx.div_ceil(rayon::current_num_threads()).max(2),
    };
    if !edge_rows {
        return band;
    }
    let mut band = band.max(4);
    while band < nx && (1..4).contains(&(nx % band)) {
        band += 1;
    }
    band
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
    let c2 = p.c2;
    let row = |_, f_row: &mut [f32], up: &[f32], mid: &[f32], down: &[f32]| update_row(c2, f_row, up, mid, down);
    banded_tstep(threads, p.nx, p.ny, f, g, halo, row, None::<&EdgeRowFn>);
}

/// The type of an edge-row rule (see [`banded_tstep`]).
pub(crate) type EdgeRowFn = fn(usize, &mut [f32], &[f32], &[f32], &[f32]);

/// The type of an absent matched-layer rule ([`super::wave_blocked::Rules`]' `layer`).
pub(crate) type LayerRowFn = fn(usize, &mut [f32], &mut [f32], &[f32], &[f32], &[f32]);

/// The banded pass of [`wave_tstep`] with any row rule: `row(i, x_row, y_up, y_mid, y_down)` updates
/// interior row `i` of `x` (all of it; the rule keeps the first and last cells) from rows
/// `i-1`, `i`, `i+1` of `y` (`update(f, g)`: `x` is `f`, `y` is `g`; then the other way round).
///
/// With `edge`, rows 1 and `nx-2` are absorbing-edge rows: `edge(i, x_row, x_in, y_row, y_in)`
/// sets row `i` of `x` from the NEW row `x_in` it looks at (row 2, or `nx-3`) and the rows `i`
/// and `in` of `y`. Row 1 is therefore done just after row 2 in each update. The scene kernel
/// ([`super::wave_scene`]) runs its rule through this.
#[expect(clippy::too_many_arguments, reason = "the grid, its two fields, scratch and the two rules")]
pub(crate) fn banded_tstep<R, E>(
    threads: Threads,
    nx: usize,
    ny: usize,
    f: &mut [f32],
    g: &mut [f32],
    halo: &mut Vec<f32>,
    row: R,
    edge: Option<&E>,
) where
    R: Fn(usize, &mut [f32], &[f32], &[f32], &[f32]) + Sync,
    E: Fn(usize, &mut [f32], &[f32], &[f32], &[f32]) + Sync,
{
    let band = band_rows(threads, nx, edge.is_some());
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
        fused_band(&row, edge, nx, ny, b * band, f_band, g_band, above, below);
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
                // Bands of at least 4 rows keep the edge rows 1 and nx-2 inside a band.
                debug_assert!(edge.is_none() || (i != 1 && i != nx - 2), "edge row {i} at a band's edge");
                let f_rows = (&f[(i - 1) * ny..i * ny], &f[i * ny..(i + 1) * ny], &f[(i + 1) * ny..(i + 2) * ny]);
                row(i, &mut g_band[k * ny..(k + 1) * ny], f_rows.0, f_rows.1, f_rows.2);
            }
        }
    };
    match threads {
        Threads::One => g.chunks_mut(band * ny).enumerate().for_each(edges),
        Threads::All => g.par_chunks_mut(band * ny).enumerate().for_each(edges),
    }
}

/// Phase one of [`banded_tstep`] for the band starting at row `r0`: all of its `f` rows and
/// its `g` rows but the first and last.
#[expect(clippy::too_many_arguments, reason = "the band, its two halo rows, the grid shape and the rules")]
fn fused_band<R, E>(
    row: &R,
    edge: Option<&E>,
    nx: usize,
    ny: usize,
    r0: usize,
    f: &mut [f32],
    g: &mut [f32],
    above: &[f32],
    below: &[f32],
) where
    R: Fn(usize, &mut [f32], &[f32], &[f32], &[f32]),
    E: Fn(usize, &mut [f32], &[f32], &[f32], &[f32]),
{
    let rows = f.len() / ny;
    let is_edge_row = |i: usize| edge.is_some() && (i == 1 || i + 2 == nx);
    for k in 0..rows {
        let i = r0 + k;
        if i > 0 && i + 1 < nx {
            if !is_edge_row(i) {
                let up = if k == 0 { above } else { &g[(k - 1) * ny..k * ny] };
                let down = if k + 1 == rows { below } else { &g[(k + 1) * ny..(k + 2) * ny] };
                row(i, &mut f[k * ny..(k + 1) * ny], up, &g[k * ny..(k + 1) * ny], down);
            }
            if let Some(edge) = edge {
                if i + 2 == nx {
                    // f row nx-2 looks at row nx-3, new since the last k.
                    let (f_in, f_row) = f[(k - 1) * ny..(k + 1) * ny].split_at_mut(ny);
                    edge(i, f_row, f_in, &g[k * ny..(k + 1) * ny], &g[(k - 1) * ny..k * ny]);
                } else if i == 2 {
                    // f row 1 looks at row 2, new just now.
                    let (f_row, f_in) = f[(k - 1) * ny..(k + 1) * ny].split_at_mut(ny);
                    edge(1, f_row, f_in, &g[(k - 1) * ny..k * ny], &g[k * ny..(k + 1) * ny]);
                }
            }
        }
        // g row k-1 now has new f rows k-2, k-1, k (all inside the band).
        if k >= 2 && i < nx {
            let gi = i - 1;
            if gi + 1 < nx {
                if !is_edge_row(gi) {
                    let (f_up, rest) = f[(k - 2) * ny..(k + 1) * ny].split_at(ny);
                    let (f_mid, f_down) = rest.split_at(ny);
                    row(gi, &mut g[(k - 1) * ny..k * ny], f_up, f_mid, f_down);
                }
                if let Some(edge) = edge {
                    if gi + 2 == nx {
                        let (g_in, g_row) = g[(k - 2) * ny..k * ny].split_at_mut(ny);
                        edge(gi, g_row, g_in, &f[(k - 1) * ny..k * ny], &f[(k - 2) * ny..(k - 1) * ny]);
                    } else if gi == 2 {
                        let (g_row, g_in) = g[(k - 2) * ny..k * ny].split_at_mut(ny);
                        edge(1, g_row, g_in, &f[(k - 2) * ny..(k - 1) * ny], &f[(k - 1) * ny..k * ny]);
                    }
                }
            }
        }
    }
}

impl CpuWave {
    /// A problem on zeroed fields `f`, `g` of `params.cells()` values each.
    /// `blocked`: `cpu`'s steps by temporal blocking ([`wave_tsteps_blocked`]); else one fused
    /// step per pass over memory ([`wave_tstep`]) on every thread (the `simple` variant). `cpu1`
    /// always runs [`wave_tstep`] on one thread.
    pub(crate) fn new(params: WaveParams, threads: Threads, f: Vec<f32>, g: Vec<f32>, blocked: bool) -> Self {
        Self { params, threads, fields: HostFields::new(f, g), blocked: blocked && threads == Threads::All }
    }
}

impl WaveSim for CpuWave {
    fn params(&self) -> &WaveParams {
        &self.params
    }

    /// `cpu`'s `blocked` or `simple`; `cpu1` has one kernel.
    fn variant(&self) -> Option<WaveVariant> {
        match self.threads {
            Threads::One => None,
            Threads::All if self.blocked => Some(WaveVariant::Blocked),
            Threads::All => Some(WaveVariant::Simple),
        }
    }

    fn tstep(&self) -> u32 {
        self.fields.tstep
    }

    /// `cpu1` ([`wave_tstep`]) fuses a time step's two updates into one pass: `f` and `g` read
    /// once and written once per time step, 16 B per two updates (the rows in between stay in
    /// cache); so does `cpu`'s `simple` variant. `cpu` `blocked` ([`wave_tsteps_blocked`]) does that once per block of `depth` steps:
    /// `8/depth` B per update (the ghost rows it copies and recomputes are left out: under 1/8).
    fn dram_bytes_per_update(&self, tsteps: u32) -> Option<f64> {
        if self.blocked {
            let depth = auto_depth(self.params.nx, self.params.ny).min(tsteps.max(1));
            Some(8.0 / f64::from(depth))
        } else {
            Some(8.0)
        }
    }

    fn advance(&mut self, tsteps: u32) -> Result<Timing, BackendError> {
        let start = Instant::now();
        if self.blocked {
            let depth = auto_depth(self.params.nx, self.params.ny);
            let (p, first) = (self.params, self.fields.tstep + 1);
            let HostFields { f, g, halo, .. } = &mut self.fields;
            wave_tsteps_blocked(&p, f, g, halo, first, tsteps, depth);
            self.fields.tstep += tsteps;
        } else {
            let src = self.params.source_index();
            let HostFields { f, g, halo, tstep } = &mut self.fields;
            for _ in 0..tsteps {
                *tstep += 1;
                g[src] = source_value(self.params.freq, *tstep);
                wave_tstep(self.threads, &self.params, f, g, halo);
            }
        }
        Ok(Timing::wall(start.elapsed()))
    }

    fn read_field(&mut self, out: &mut [f32]) -> Result<Timing, BackendError> {
        self.fields.read_field(out)
    }

    /// The field is in host memory already: handed over as it is.
    fn stream_field(&mut self, sink: &mut ByteSink<'_>) -> Result<Timing, BackendError> {
        self.fields.stream_field(sink)
    }

    fn read_fields(&mut self, f: &mut [f32], g: &mut [f32]) -> Result<Timing, BackendError> {
        self.fields.read_fields(f, g)
    }

    fn write_fields(&mut self, f: &[f32], g: &[f32], tstep: u32) -> Result<(), BackendError> {
        self.fields.write_fields(f, g, tstep)
    }

    fn render_rgba(&mut self, vmin: f32, vmax: f32, rgba: &mut [u8]) -> Result<Timing, BackendError> {
        self.fields.render_rgba(self.threads, (self.params.nx, self.params.ny), (vmin, vmax), rgba)
    }

    fn render_rgba_strided(
        &mut self,
        vmin: f32,
        vmax: f32,
        stride: usize,
        rgba: &mut [u8],
    ) -> Result<Timing, BackendError> {
        self.fields.render_rgba_strided(self.threads, (self.params.nx, self.params.ny), (vmin, vmax), stride, rgba)
    }

    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError> {
        self.params = self.params.with_source(i, j)?;
        Ok(())
    }

    fn set_freq(&mut self, freq: f64) {
        self.params.freq = freq;
    }

    fn reset(&mut self) -> Result<(), BackendError> {
        self.fields.reset();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::wave::reference;

    /// Blocked runs on pools of many sizes (thin bands, bands of 4), at several depths, with
    /// steps that are no multiple of the depth and sources on the border, next to it and on a
    /// band's edge: the seed's bits every time.
    #[test]
    fn blocked_steps_equal_the_reference_bit_for_bit() {
        for (nx, ny) in [(37, 53), (64, 3), (3, 64), (120, 97), (9, 9), (201, 17)] {
            let base = WaveParams::new(nx, ny, 0.3);
            for (si, sj) in [(nx / 2, ny / 2), (0, ny / 2), (1, 1), (nx - 2, ny - 2), (nx - 1, 1), (nx / 7 + 1, 2)] {
                let p = base.with_source(si, sj.min(ny - 1)).unwrap();
                let want = reference(&p, 71);
                assert!(want.iter().any(|&v| v != 0.0) || (si == 0 || si == nx - 1));
                for pool in [1, 2, 7, 29] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(pool).build().unwrap();
                    for depth in [1, 2, 3, 8] {
                        let got = pool.install(|| {
                            let (mut f, mut g, mut s) = (vec![0.0; p.cells()], vec![0.0; p.cells()], Vec::new());
                            wave_tsteps_blocked(&p, &mut f, &mut g, &mut s, 1, 23, depth);
                            wave_tsteps_blocked(&p, &mut f, &mut g, &mut s, 24, 48, depth);
                            f
                        });
                        let n = pool.current_num_threads();
                        let bad = got.iter().zip(&want).position(|(a, b)| a.to_bits() != b.to_bits());
                        assert!(
                            bad.is_none(),
                            "{nx}x{ny}, source ({si},{sj}), {n} threads, depth {depth}: cell {bad:?}"
                        );
                    }
                }
            }
        }
    }
}
