//! The scene wave kernel on the CPU, the twin of the GPU scene kernels: the per-cell rule of
//! [`crate::sim::wave::scene_cells`] (a material id per cell, a material table, walls held at 0) run
//! through the same banded two-updates-per-pass as the plain kernel ([`super::wave`]).
//!
//! Each row is held as runs of cells with one id, so the open medium (most of a row) runs as a
//! plain vector loop with its coefficients in registers; sponge cells are runs of one. The
//! arithmetic of every cell is [`scene_update_cell`]'s, so `cpu` and `cpu1` give the same bits,
//! equal to [`crate::sim::wave::scene_cells::scene_reference_run`].

use std::sync::{Mutex, PoisonError};
use web_time::Instant;

use super::Threads;
use super::fields::HostFields;
use super::wave::banded_tstep;
use super::wave_blocked::{AuxField, Rules, block_depth, blocked_band_rows, blocked_tsteps};
use crate::backend::{BackendError, ByteSink, Timing, WaveSim};
use crate::sim::wave::pml::{LayerFields, pml_row};
use crate::sim::wave::scene::{Scene, Source, SourceCell};
use crate::sim::wave::scene_cells::{
    EDGE_I_PLUS, EDGE_J_MINUS, EDGE_J_PLUS, EDGE_NONE, Material, SceneCells, WALL, edge_update_cell, scene_update_cell,
};
use crate::sim::wave::{WaveParams, update_cell};

/// Cells `j0..j1` of a row with one material id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    j0: usize,
    j1: usize,
    id: u16,
}

/// The interior cells of every row as runs of equal id.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowRuns {
    runs: Vec<Run>,
    /// Row `i`'s runs are `runs[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    /// Rows 1 and `nx-2` are absorbing-edge rows.
    edge_rows: bool,
}

impl RowRuns {
    pub(crate) fn new(cells: &SceneCells) -> Self {
        let (nx, ny) = (cells.nx, cells.ny);
        let mut runs = Vec::new();
        let mut starts = Vec::with_capacity(nx + 1);
        for i in 0..nx {
            starts.push(runs.len());
            if i == 0 || i + 1 == nx {
                continue;
            }
            // A matched layer's cells are not in the runs: `pml_row` does them.
            let (lo, hi) = match &cells.layer {
                Some(l) if l.full_row(i, nx) => continue,
                Some(l) => (l.width + 1, ny - 1 - l.width),
                None => (1, ny - 1),
            };
            let row = &cells.ids[i * ny..(i + 1) * ny];
            let mut j0 = lo;
            for j in lo + 1..=hi {
                if j == hi || row[j] != row[j0] {
                    runs.push(Run { j0, j1: j, id: row[j0] });
                    j0 = j;
                }
            }
        }
        starts.push(runs.len());
        let edge_rows = cells.ids[ny..2 * ny].iter().any(|&id| id != WALL && cells.material(id).edge == EDGE_I_PLUS);
        Self { runs, starts, edge_rows }
    }

    fn row(&self, i: usize) -> &[Run] {
        &self.runs[self.starts[i]..self.starts[i + 1]]
    }
}

/// `update` of one interior row of a scene: `f_row` is row `i` of `f`, the others rows `i-1`,
/// `i`, `i+1` of `g`; `runs` are row `i`'s runs. Compiled for AVX-512, AVX2 and SSE4.1 like
/// [`crate::sim::wave::update_row`]; lanes do the same IEEE operations in the same order.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl", "x86_64+avx2+avx", "x86_64+sse4.1"))]
fn scene_row(materials: &[Material], runs: &[Run], f_row: &mut [f32], g_up: &[f32], g_mid: &[f32], g_down: &[f32]) {
    for r in runs {
        let (j0, j1) = (r.j0, r.j1);
        let n = j1 - j0;
        let f = &mut f_row[j0..j1];
        if r.id == WALL {
            f.fill(0.0);
            continue;
        }
        let m = materials[usize::from(r.id)];
        if m.edge != EDGE_NONE {
            continue;
        }
        // Slices of equal length let the compiler drop bounds checks and vectorise.
        let (up, down) = (&g_up[j0..j1], &g_down[j0..j1]);
        let (left, mid, right) = (&g_mid[j0 - 1..j1 - 1], &g_mid[j0..j1], &g_mid[j0 + 1..=j1]);
        if m.is_undamped() {
            // `b*(x - a*f)` with `a = b = 1` is `x - f` bit for bit: the seed's cell.
            for j in 0..n {
                f[j] = update_cell(m.c2, f[j], mid[j], up[j], down[j], left[j], right[j]);
            }
        } else {
            for j in 0..n {
                f[j] = scene_update_cell(m, f[j], mid[j], up[j], down[j], left[j], right[j]);
            }
        }
    }
    // Absorbing-edge cells (j = 1 and ny-2) look at their neighbour's new value in this row.
    for r in runs {
        if r.id == WALL {
            continue;
        }
        let m = materials[usize::from(r.id)];
        let step: isize = match m.edge {
            EDGE_J_PLUS => 1,
            EDGE_J_MINUS => -1,
            _ => continue,
        };
        for j in r.j0..r.j1 {
            let n = j.wrapping_add_signed(step);
            f_row[j] = edge_update_cell(m.mur, g_mid[j], g_mid[n], f_row[n]);
        }
    }
}

/// An absorbing-edge row `i` (1 or `nx-2`): `x_row` from the new row `x_in` it looks at and the
/// rows `i` and `in` of `y` ([`edge_update_cell`] per cell; walls and the corners held at 0).
fn edge_row(cells: &SceneCells, i: usize, x_row: &mut [f32], x_in: &[f32], y_row: &[f32], y_in: &[f32]) {
    let ny = cells.ny;
    let ids = &cells.ids[i * ny..(i + 1) * ny];
    for j in 1..ny - 1 {
        let id = ids[j];
        x_row[j] = if id == WALL { 0.0 } else { edge_update_cell(cells.material(id).mur, y_row[j], y_in[j], x_in[j]) };
    }
}

/// A matched layer's auxiliary fields ([`LayerFields`]) one row each, for the bands of
/// [`wave_scene_tstep`]: each row is updated by one thread at a time, once per update (the lock is
/// never contended).
pub(crate) struct AuxRows(Vec<Mutex<Vec<f32>>>);

impl AuxRows {
    pub(crate) fn new(cells: &SceneCells) -> Self {
        let aux = LayerFields::new(cells);
        let rows = if aux.starts.is_empty() { 0 } else { cells.nx };
        Self((0..rows).map(|i| Mutex::new(aux.row(i).to_vec())).collect())
    }

    fn reset(&mut self) {
        for row in &mut self.0 {
            row.get_mut().unwrap_or_else(PoisonError::into_inner).fill(0.0);
        }
    }

    /// The rows' values one after the other, as [`LayerFields`] holds them.
    fn gather(&mut self, out: &mut Vec<f32>) {
        out.clear();
        for row in &mut self.0 {
            out.extend_from_slice(row.get_mut().unwrap_or_else(PoisonError::into_inner));
        }
    }

    /// Back from [`AuxRows::gather`]'s layout.
    fn scatter(&mut self, values: &[f32]) {
        let mut at = 0;
        for row in &mut self.0 {
            let row = row.get_mut().unwrap_or_else(PoisonError::into_inner);
            let n = row.len();
            row.copy_from_slice(&values[at..at + n]);
            at += n;
        }
    }
}

/// One whole time step of a scene's update rule (`update(f, g)` then `update(g, f)`, no source
/// writes), banded like [`super::wave_tstep`]. A matched layer's rows run [`pml_row`] first
/// (its cells read only their own old value of the field written), then the runs.
pub(crate) fn wave_scene_tstep(
    threads: Threads,
    cells: &SceneCells,
    runs: &RowRuns,
    aux: &AuxRows,
    f: &mut [f32],
    g: &mut [f32],
    halo: &mut Vec<f32>,
) {
    let materials = &cells.materials;
    let row = |i: usize, f_row: &mut [f32], up: &[f32], mid: &[f32], down: &[f32]| {
        if let Some(layer) = &cells.layer {
            let mut a = aux.0[i].lock().unwrap_or_else(PoisonError::into_inner);
            pml_row(cells, layer, i, &mut a, f_row, up, mid, down);
        }
        scene_row(materials, runs.row(i), f_row, up, mid, down);
    };
    let edge = |i, x_row: &mut [f32], x_in: &[f32], y_row: &[f32], y_in: &[f32]| {
        edge_row(cells, i, x_row, x_in, y_row, y_in);
    };
    banded_tstep(threads, cells.nx, cells.ny, f, g, halo, row, runs.edge_rows.then_some(&edge));
}

/// Time steps `first ..= first + steps - 1` of a scene (source writes, `update(f, g)`,
/// `update(g, f)`) on the current rayon pool, `depth` steps per trip over memory (temporal
/// blocking, [`super::wave_blocked`]); bit-identical to [`write_sources`] then
/// [`wave_scene_tstep`] step by step. `source_cells` are sorted by cell, as
/// [`Scene::source_cells`] gives them; `scratch` holds ghost rows, resized as needed; `aux` a matched
/// layer's auxiliary values ([`LayerFields`]' layout; its `starts` with them).
#[expect(clippy::too_many_arguments, reason = "the scene, its two fields, scratch and the steps")]
pub(crate) fn wave_scene_tsteps_blocked(
    scene: &Scene,
    cells: &SceneCells,
    runs: &RowRuns,
    source_cells: &[SourceCell],
    f: &mut [f32],
    g: &mut [f32],
    scratch: &mut Vec<f32>,
    first: u32,
    steps: u32,
    depth: u32,
    mut aux: Option<AuxField<'_>>,
) {
    debug_assert!(source_cells.is_sorted_by_key(|c| c.cell));
    let (nx, ny, materials) = (cells.nx, cells.ny, &cells.materials);
    let row = |i, f_row: &mut [f32], up: &[f32], mid: &[f32], down: &[f32]| {
        scene_row(materials, runs.row(i), f_row, up, mid, down);
    };
    let edge = |i, x_row: &mut [f32], x_in: &[f32], y_row: &[f32], y_in: &[f32]| {
        edge_row(cells, i, x_row, x_in, y_row, y_in);
    };
    let layer = |i, a: &mut [f32], f_row: &mut [f32], up: &[f32], mid: &[f32], down: &[f32]| {
        if let Some(l) = &cells.layer {
            pml_row(cells, l, i, a, f_row, up, mid, down);
        }
    };
    let band = blocked_band_rows(nx);
    let mut done = 0;
    while done < steps {
        let d = depth.max(1).min(steps - done);
        let t0 = first + done;
        let values: Vec<Vec<Option<f32>>> = (t0..t0 + d).map(|t| scene.source_values(t)).collect();
        let sources = |t: u32, i: usize, g_row: &mut [f32]| {
            let v = &values[(t - t0) as usize];
            let from = source_cells.partition_point(|c| c.cell < i * ny);
            for sc in source_cells[from..].iter().take_while(|c| c.cell < (i + 1) * ny) {
                if let Some(x) = v[sc.source] {
                    g_row[sc.cell - i * ny] = x;
                }
            }
        };
        let rules = Rules {
            row: &row,
            layer: cells.layer.is_some().then_some(&layer),
            edge: runs.edge_rows.then_some(&edge),
            sources: &sources,
        };
        let aux = aux.as_mut().map(|a| AuxField { starts: a.starts, values: &mut *a.values });
        blocked_tsteps(nx, ny, f, g, scratch, band, t0, d, &rules, aux);
        done += d;
    }
}

/// Writes the values the sources force at step `tstep` into `g`.
pub fn write_sources(scene: &Scene, source_cells: &[SourceCell], tstep: u32, g: &mut [f32]) {
    let values = scene.source_values(tstep);
    for sc in source_cells {
        if let Some(v) = values[sc.source] {
            g[sc.cell] = v;
        }
    }
}

/// A scene in host memory.
pub(crate) struct CpuSceneWave {
    scene: Scene,
    params: WaveParams,
    threads: Threads,
    cells: SceneCells,
    runs: RowRuns,
    /// A matched layer's auxiliary fields (no rows without one).
    aux: AuxRows,
    /// [`LayerFields`]' row starts of the layer (empty without one) and its values in one piece,
    /// for the temporally blocked path.
    aux_starts: Vec<usize>,
    aux_values: Vec<f32>,
    source_cells: Vec<SourceCell>,
    fields: HostFields,
    /// Time steps per block on `cpu` ([`block_depth`] when `None`; tests set others).
    depth: Option<u32>,
}

impl CpuSceneWave {
    /// A valid `scene` on zeroed fields `f`, `g` of `scene.cells()` values each.
    pub(crate) fn new(scene: Scene, threads: Threads, f: Vec<f32>, g: Vec<f32>) -> Self {
        let cells = SceneCells::new(&scene);
        let runs = RowRuns::new(&cells);
        let aux = AuxRows::new(&cells);
        let aux_starts = if cells.layer.is_some() { LayerFields::new(&cells).starts } else { Vec::new() };
        Self {
            aux,
            aux_starts,
            aux_values: Vec::new(),
            params: scene.summary_params(),
            source_cells: scene.source_cells(),
            scene,
            threads,
            cells,
            runs,
            fields: HostFields::new(f, g),
            depth: None,
        }
    }

    fn replace_sources(&mut self, scene: Scene) -> Result<(), BackendError> {
        scene.validate()?;
        self.params = scene.summary_params();
        self.source_cells = scene.source_cells();
        self.scene = scene;
        Ok(())
    }
}

impl WaveSim for CpuSceneWave {
    fn params(&self) -> &WaveParams {
        &self.params
    }

    fn scene(&self) -> Scene {
        self.scene.clone()
    }

    fn tstep(&self) -> u32 {
        self.fields.tstep
    }

    fn advance(&mut self, tsteps: u32) -> Result<Timing, BackendError> {
        let start = Instant::now();
        match self.threads {
            threads if threads == Threads::One => {
                let HostFields { f, g, halo, tstep } = &mut self.fields;
                for _ in 0..tsteps {
                    *tstep += 1;
                    write_sources(&self.scene, &self.source_cells, *tstep, g);
                    wave_scene_tstep(threads, &self.cells, &self.runs, &self.aux, f, g, halo);
                }
            }
            _ => {
                let depth = self.depth.unwrap_or_else(|| block_depth(self.cells.ny, blocked_band_rows(self.cells.nx)));
                let (cells, runs) = (&self.cells, &self.runs);
                let HostFields { f, g, halo, tstep } = &mut self.fields;
                let first = *tstep + 1;
                // A matched layer's values in one piece for the bands (and back after).
                let layered = !self.aux_starts.is_empty();
                if layered {
                    self.aux.gather(&mut self.aux_values);
                }
                let aux = layered.then(|| AuxField { starts: &self.aux_starts, values: &mut self.aux_values });
                wave_scene_tsteps_blocked(
                    &self.scene,
                    cells,
                    runs,
                    &self.source_cells,
                    f,
                    g,
                    halo,
                    first,
                    tsteps,
                    depth,
                    aux,
                );
                if layered {
                    self.aux.scatter(&self.aux_values);
                }
                *tstep += tsteps;
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

    /// A matched layer's auxiliary fields start again from 0 (they are not part of the state
    /// handed in).
    fn write_fields(&mut self, f: &[f32], g: &[f32], tstep: u32) -> Result<(), BackendError> {
        self.aux.reset();
        self.fields.write_fields(f, g, tstep)
    }

    fn set_sources(&mut self, sources: &[Source]) -> Result<(), BackendError> {
        let scene = crate::backend::scene_with_sources(&self.scene, sources)?;
        self.replace_sources(scene)
    }

    fn render_rgba(&mut self, vmin: f32, vmax: f32, rgba: &mut [u8]) -> Result<Timing, BackendError> {
        self.fields.render_rgba(self.threads, (self.scene.nx, self.scene.ny), (vmin, vmax), rgba)
    }

    fn render_rgba_strided(
        &mut self,
        vmin: f32,
        vmax: f32,
        stride: usize,
        rgba: &mut [u8],
    ) -> Result<Timing, BackendError> {
        self.fields.render_rgba_strided(self.threads, (self.scene.nx, self.scene.ny), (vmin, vmax), stride, rgba)
    }

    fn set_source(&mut self, i: usize, j: usize) -> Result<(), BackendError> {
        let Some(first) = self.scene.sources.first() else {
            return Err(BackendError::Invalid("the scene has no source to move".to_owned()));
        };
        let (x, y) = first.anchor();
        let (i, j) = (i64::try_from(i).unwrap_or(i64::MAX), i64::try_from(j).unwrap_or(i64::MAX));
        let mut scene = self.scene.clone();
        scene.sources[0] = first.moved_by(i.saturating_sub(x), j.saturating_sub(y));
        self.replace_sources(scene)
    }

    fn set_freq(&mut self, freq: f64) {
        self.scene = self.scene.with_freq(freq);
        self.params.freq = freq;
    }

    fn reset(&mut self) -> Result<(), BackendError> {
        self.aux.reset();
        self.fields.reset();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::wave::scene::{Boundary, Medium, Source, Wall};
    use crate::sim::wave::scene_cells::scene_reference;

    fn busy_scene(nx: usize, ny: usize) -> Scene {
        busy_scene_with(nx, ny, Boundary::Mur)
    }

    /// Sources, walls and media in the edge's cells too.
    fn busy_scene_with(nx: usize, ny: usize, boundary: Boundary) -> Scene {
        let mut s = Scene::seed(nx, ny, 0.3);
        s.boundary = boundary;
        s.damping = 0.001;
        s.sources.push(Source::Line {
            x0: 1,
            y0: 1,
            x1: 1,
            y1: (ny - 2) as i64,
            freq: 0.25,
            amplitude: 0.5,
            phase: 1.0,
        });
        s.sources.push(Source::Pulse { x: (nx - 2) as i64, y: 3, freq: 0.4, amplitude: 2.0, phase: 0.0, start: 1 });
        s.walls.push(Wall { x0: (nx / 3) as i64, y0: 0, x1: (nx / 3 + 1) as i64, y1: (ny / 2 - 1) as i64 });
        s.media.push(Medium::Circle { x: (2 * nx / 3) as i64, y: (ny / 2) as i64, r: 5.5, c2: 0.1 });
        s.media.push(Medium::Rect { x0: 1, y0: 1, x1: 4, y1: 6.min(ny as i64 - 1), c2: 0.45 });
        s.validate().unwrap();
        s
    }

    #[test]
    fn both_threads_equal_the_reference_bit_for_bit() {
        for (nx, ny, boundary) in [(37, 53), (64, 8), (9, 64), (120, 97), (8, 8)]
            .into_iter()
            .flat_map(|(nx, ny)| [(nx, ny, Boundary::Mur), (nx, ny, Boundary::Absorbing)])
        {
            let s = busy_scene_with(nx, ny, boundary);
            let want = scene_reference(&s, 70);
            // Many threads make many bands, thin ones too (the band rules around the edge rows).
            // Blocks of 1, 2, 3 and 8 steps, none of which divides 30 + 40 evenly but 1 and 2.
            let runs = [(Threads::One, 1, None), (Threads::All, 2, None), (Threads::All, 7, Some(3))]
                .into_iter()
                .chain([1, 2, 3, 8].map(|d| (Threads::All, 29, Some(d))))
                .chain([1, 3, 8].map(|d| (Threads::All, 2, Some(d))));
            for (threads, pool, depth) in runs {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(pool).build().unwrap();
                let got = pool.install(|| {
                    let mut sim = CpuSceneWave::new(s.clone(), threads, vec![0.0; s.cells()], vec![0.0; s.cells()]);
                    sim.depth = depth;
                    sim.advance(29).unwrap();
                    sim.advance(41).unwrap();
                    let mut got = vec![0.0; s.cells()];
                    sim.read_field(&mut got).unwrap();
                    got
                });
                let n = pool.current_num_threads();
                assert_eq!(got, want, "{threads:?} in {n} threads, depth {depth:?}, at {nx}x{ny}, {boundary:?}");
                assert!(got.iter().any(|&v| v != 0.0));
            }
        }
    }

    #[test]
    fn runs_cover_every_interior_cell_once() {
        let s = busy_scene(40, 30);
        let cells = SceneCells::new(&s);
        let runs = RowRuns::new(&cells);
        for i in 1..39 {
            let mut j = 1;
            for r in runs.row(i) {
                assert_eq!(r.j0, j);
                assert!(r.j1 > r.j0);
                assert!(cells.ids[i * 30 + r.j0..i * 30 + r.j1].iter().all(|&id| id == r.id));
                j = r.j1;
            }
            assert_eq!(j, 29);
        }
    }

    #[test]
    fn runs_and_the_matched_layer_cover_every_interior_cell_once() {
        let (nx, ny) = (60, 44);
        let cells = SceneCells::new(&busy_scene_with(nx, ny, Boundary::Absorbing));
        let runs = RowRuns::new(&cells);
        for i in 1..nx - 1 {
            let mut covered = vec![0; ny];
            for r in runs.row(i) {
                covered[r.j0..r.j1].iter_mut().for_each(|c| *c += 1);
            }
            for (j, c) in covered.iter_mut().enumerate().take(ny - 1).skip(1) {
                *c += usize::from(cells.in_layer(i, j));
                assert_eq!(*c, 1, "cell ({i}, {j})");
            }
        }
    }
}
