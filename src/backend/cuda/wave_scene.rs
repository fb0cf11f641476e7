//! Scenes on CUDA (walls, media, damping, the absorbing edge, several sources): the scene's data
//! on the device and the launches of `kernels/wave_scene.cu`'s `wave_scene_update`, `wave_scene_edges`
//! and `wave_scene_sources` — the twins of `src/backend/cpu/wave_scene.rs` and
//! `shaders/wave_scene.wgsl`. [`super::wave::CudaWave`] runs these in the `simple` shape, or
//! `wave_scene_steps` (temporal blocking on `wave_steps`' tiles) in the `blocked` shape, for which
//! this file sorts the tiles into uniform and general ones ([`tile_kinds`]); the tiles holding
//! matched-layer cells run `wave_scene_layer_steps` ([`LAYER`]).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

use super::launch::launch;
use super::{BackendError, Device, runtime};
use crate::sim::wave::pml::{Axis, LayerFields};
use crate::sim::wave::scene::Scene;
use crate::sim::wave::scene_cells::{EDGE_NONE, SceneCells, WALL};

use super::wave_tile::TILE;

/// A scene on the device: material ids and table, and the forced cells with their sources.
pub(super) struct SceneData {
    pub(super) scene: Scene,
    pub(super) ids: CudaSlice<u16>,
    /// `Material` (c2, a, b, mur, edge bits) per material id.
    pub(super) materials: CudaSlice<f32>,
    /// The scene has absorbing-edge cells (Mur), updated by a second launch.
    pub(super) edges: bool,
    /// Flat index of each forced cell and the source that forces it.
    pub(super) cells: CudaSlice<i64>,
    pub(super) source_of: CudaSlice<i32>,
    pub(super) n_cells: usize,
    /// The value of every source at each step of one `advance` (NaN: not forcing).
    pub(super) values: CudaSlice<f32>,
    /// `wave_scene_steps`' tile kinds from the cells alone ([`tile_kinds`]).
    walls_and_media: Vec<u16>,
    /// The same with the forced cells' tiles made general, on the device.
    pub(super) kinds: CudaSlice<u16>,
    /// (c2, a, b, mur) per material id, for `wave_scene_steps`.
    pub(super) mat4: CudaSlice<f32>,
    pub(super) n_mat: usize,
    /// The forced cells of each tile ([`tile_sources`]).
    pub(super) tile_offsets: CudaSlice<u32>,
    pub(super) tile_entries: CudaSlice<u32>,
    /// Tiles along `j` and `i`.
    pub(super) tiles: (u32, u32),
    /// The matched layer's auxiliary values (`LayerFields`; one unused word without a layer), two
    /// copies: the one-update path updates `aux[cur]` in place, the blocked one reads `aux[cur]`
    /// and writes `aux[cur ^ 1]` as it does the fields (`cur` the wave's current pair of fields).
    /// Then the layer's `Axis` coefficients (low then high, seven words each) and its width (0: none).
    pub(super) aux: [CudaSlice<f32>; 2],
    pub(super) layer: CudaSlice<f32>,
    pub(super) layer_w: i32,
    /// The [`LAYER`] tiles (row-major tile indices) and how many there are.
    pub(super) layer_tiles: CudaSlice<u32>,
    pub(super) n_layer_tiles: u32,
}

impl SceneData {
    pub(super) fn new(stream: &Arc<CudaStream>, scene: &Scene) -> Result<Self, BackendError> {
        let raster = SceneCells::new(scene);
        let ids = stream.clone_htod(&raster.ids).map_err(|e| runtime("uploading the scene's cells", e))?;
        let table: &[f32] = bytemuck::cast_slice(&raster.materials);
        let materials = stream.clone_htod(table).map_err(|e| runtime("uploading the scene's materials", e))?;
        let edges = raster.materials.iter().any(|m| m.edge != EDGE_NONE);
        let tiles = tile_grid(scene.nx, scene.ny);
        let walls_and_media = tile_kinds(&raster);
        let kinds =
            stream.alloc_zeros::<u16>(walls_and_media.len()).map_err(|e| runtime("allocating tile kinds", e))?;
        let mat4: Vec<f32> = raster.materials.iter().flat_map(|m| [m.c2, m.a, m.b, m.mur]).collect();
        let n_mat = raster.materials.len();
        let mat4 = stream.clone_htod(&mat4).map_err(|e| runtime("uploading the scene's materials", e))?;
        let aux_len = LayerFields::new(&raster).values.len().max(1);
        let aux = [
            stream.alloc_zeros::<f32>(aux_len).map_err(|e| runtime("allocating the layer's values", e))?,
            stream.alloc_zeros::<f32>(aux_len).map_err(|e| runtime("allocating the layer's values", e))?,
        ];
        let layer_list: Vec<u32> =
            (0..walls_and_media.len() as u32).filter(|&t| walls_and_media[t as usize] == LAYER).collect();
        let n_layer_tiles = layer_list.len() as u32;
        let layer_tiles = stream
            .clone_htod(&if layer_list.is_empty() { vec![0] } else { layer_list })
            .map_err(|e| runtime("uploading the layer's tiles", e))?;
        let axes: Vec<Axis> = raster.layer.as_ref().map_or_else(
            || vec![<Axis as bytemuck::Zeroable>::zeroed()],
            |l| l.low.iter().chain(&l.high).copied().collect(),
        );
        let layer = stream
            .clone_htod(bytemuck::cast_slice::<Axis, f32>(&axes))
            .map_err(|e| runtime("uploading the layer's coefficients", e))?;
        let layer_w = raster.layer.as_ref().map_or(0, |l| l.width as i32);
        let mut data = Self {
            scene: scene.clone(),
            ids,
            materials,
            edges,
            cells: stream.alloc_zeros::<i64>(1).map_err(|e| runtime("allocating source cells", e))?,
            source_of: stream.alloc_zeros::<i32>(1).map_err(|e| runtime("allocating source cells", e))?,
            n_cells: 0,
            values: stream.alloc_zeros::<f32>(1024).map_err(|e| runtime("allocating source values", e))?,
            walls_and_media,
            kinds,
            mat4,
            n_mat,
            tile_offsets: stream.alloc_zeros::<u32>(1).map_err(|e| runtime("allocating source cells", e))?,
            tile_entries: stream.alloc_zeros::<u32>(1).map_err(|e| runtime("allocating source cells", e))?,
            tiles,
            aux,
            layer,
            layer_w,
            layer_tiles,
            n_layer_tiles,
        };
        data.set_sources(stream, scene.clone())?;
        Ok(data)
    }

    /// Takes `scene`'s sources (its cells, walls and media must be this one's).
    pub(super) fn set_sources(&mut self, stream: &Arc<CudaStream>, scene: Scene) -> Result<(), BackendError> {
        let forced = scene.source_cells();
        let cells: Vec<i64> = forced.iter().map(|c| c.cell as i64).collect();
        let source_of: Vec<i32> = forced.iter().map(|c| c.source as i32).collect();
        if !forced.is_empty() {
            self.cells = stream.clone_htod(&cells).map_err(|e| runtime("uploading source cells", e))?;
            self.source_of = stream.clone_htod(&source_of).map_err(|e| runtime("uploading source cells", e))?;
        }
        self.n_cells = forced.len();
        let mut kinds = self.walls_and_media.clone();
        let (offsets, entries) = tile_sources(&mut kinds, scene.nx, scene.ny, &forced);
        stream.memcpy_htod(&kinds, &mut self.kinds).map_err(|e| runtime("uploading tile kinds", e))?;
        self.tile_offsets = stream.clone_htod(&offsets).map_err(|e| runtime("uploading source cells", e))?;
        if !entries.is_empty() {
            self.tile_entries = stream.clone_htod(&entries).map_err(|e| runtime("uploading source cells", e))?;
        }
        self.scene = scene;
        Ok(())
    }

    /// Time steps per launch of `wave_scene_steps` (see the kernel's note on validity): one fewer
    /// update pair where an absorbing-edge row or column is a tile's first output line.
    pub(super) fn steps_per_launch(&self) -> u32 {
        let (oj, oi) = TILE.out();
        let (nx, ny) = (self.scene.nx as u32, self.scene.ny as u32);
        if self.edges && ((nx - 2) % oi == 0 || (ny - 2) % oj == 0) { (TILE.halo - 1) / 2 } else { TILE.steps() }
    }

    /// True when the blocked kernels cannot run this scene: a matched layer together with Mur's
    /// edge cells (`wave_scene_layer_steps` has no twin of those). Such a scene runs one update
    /// per launch (`wave_scene_update`), whatever the variant.
    pub(super) fn one_update_only(&self) -> bool {
        self.layer_w > 0 && self.edges
    }

    /// Clears the matched layer's auxiliary values (the fields were written or reset: as on the
    /// CPU they start again from 0).
    pub(super) fn clear_aux(&mut self, stream: &Arc<CudaStream>) -> Result<(), BackendError> {
        for aux in &mut self.aux {
            stream.memset_zeros(aux).map_err(|e| runtime("clearing the layer's values", e))?;
        }
        Ok(())
    }

    /// Source values of steps `first..first + n`, `sources` per step, NaN where one does not force.
    pub(super) fn values(&self, first: u32, n: u32) -> Vec<f32> {
        (first..first + n)
            .flat_map(|t| self.scene.source_values(t).into_iter().map(|v| v.unwrap_or(f32::NAN)))
            .collect()
    }
}

/// `update(out, input)` of a scene: every cell but the absorbing edge, then (where the scene has
/// one) the edge ring, which reads its neighbours' new values. The layer's values are `aux[cur]`.
#[expect(clippy::too_many_arguments, reason = "the launch's device, stream, scene, shape, configurations and fields")]
pub(super) fn scene_update(
    dev: &Device,
    stream: &Arc<CudaStream>,
    sc: &mut SceneData,
    (nx, ny): (i32, i32),
    cfg: LaunchConfig,
    edge_cfg: LaunchConfig,
    out: &mut CudaSlice<f32>,
    input: &CudaSlice<f32>,
    cur: usize,
) -> Result<(), BackendError> {
    let mut l = stream.launch_builder(&dev.wave_scene_update);
    l.arg(&nx).arg(&ny).arg(&mut *out).arg(input).arg(&sc.ids).arg(&sc.materials);
    l.arg(&mut sc.aux[cur]).arg(&sc.layer).arg(&sc.layer_w);
    // Launch contract: arguments match `wave_scene_update`; both fields and `ids` hold nx*ny values,
    // `materials` five words for every id that occurs; with `layer_w` > 0, `aux` holds the
    // `LayerFields` values of this grid and `layer` 2*(layer_w+1) `Axis` records (each layer cell
    // writes only its own auxiliary values).
    launch(l, cfg, "launching wave_scene_update")?;
    if sc.edges {
        let mut l = stream.launch_builder(&dev.wave_scene_edges);
        l.arg(&nx).arg(&ny).arg(&mut *out).arg(input).arg(&sc.ids).arg(&sc.materials);
        // Launch contract: as above; the kernel touches only the ring of cells next to the border.
        launch(l, edge_cfg, "launching wave_scene_edges")?;
    }
    Ok(())
}

/// Tiles of `wave_scene_steps` along `j` and `i` for an `nx x ny` grid.
pub(super) fn tile_grid(nx: usize, ny: usize) -> (u32, u32) {
    let (oj, oi) = TILE.out();
    (ny.div_ceil(oj as usize) as u32, nx.div_ceil(oi as usize) as u32)
}

/// `wave_scene_steps`' kind of a tile of walls, several materials or forced cells, run in registers
/// with per-cell materials (`kernels/wave_scene.cu`).
pub(super) const MIXED: u16 = 0xfffe;
/// The kind of a tile with absorbing-edge cells, run in shared memory.
pub(super) const GENERAL_EDGES: u16 = 0xffff;
/// The kind of a tile whose footprint holds a matched-layer cell: `wave_scene_layer_steps` runs it.
pub(super) const LAYER: u16 = 0xfffc;
/// An 8x8 square with no interior cell.
const EMPTY: u16 = 0xfffd;

/// The first and last tile (along one axis) whose footprint holds cell `x`: tiles start `out`
/// apart at `-TILE.halo` and are `size` long.
fn tiles_holding(x: i64, out: u32, size: u32, tiles: u32) -> (i64, i64) {
    let (out, size, halo) = (i64::from(out), i64::from(size), i64::from(TILE.halo));
    // b*out - halo <= x < b*out - halo + size
    let lo = (x + halo - size).div_euclid(out) + 1;
    let hi = (x + halo).div_euclid(out);
    (lo.max(0), hi.min(i64::from(tiles) - 1))
}

/// The kind of each tile (row-major, `tile_grid` of them) from the scene's cells, forced cells not
/// counted: the material id where every interior cell of the tile (halo included) has it and it
/// is neither a wall nor an absorbing-edge cell (the tile runs in registers), else [`MIXED`] or
/// [`GENERAL_EDGES`]; with a matched layer, [`LAYER`] where a layer cell lies in the footprint
/// (whatever else does: a scene has the layer or Mur's edge cells, not both). Tiles start `TILE.out()` apart at `-TILE.halo` and are `TILE.width() x
/// TILE.height()`, all multiples of 8, so the interior is first folded into 8x8 squares.
#[must_use]
pub(super) fn tile_kinds(cells: &SceneCells) -> Vec<u16> {
    let (nx, ny) = (cells.nx, cells.ny);
    let (sq_i, sq_j) = (nx.div_ceil(8), ny.div_ceil(8));
    let w = cells.layer.as_ref().map_or(0, |l| l.width);
    let in_layer = |i: usize, j: usize| w > 0 && (i <= w || j <= w || i + 1 + w >= nx || j + 1 + w >= ny);
    let kind_of = |id: u16| -> u16 {
        if id == WALL {
            MIXED
        } else if cells.material(id).edge != EDGE_NONE {
            GENERAL_EDGES
        } else {
            id
        }
    };
    let merge = |a: u16, b: u16| -> u16 {
        match (a, b) {
            (EMPTY, x) | (x, EMPTY) => x,
            (LAYER, _) | (_, LAYER) => LAYER,
            (GENERAL_EDGES, _) | (_, GENERAL_EDGES) => GENERAL_EDGES,
            (x, y) if x == y => x,
            _ => MIXED,
        }
    };
    let mut squares = vec![EMPTY; sq_i * sq_j];
    for i in 1..nx - 1 {
        let row = &cells.ids[i * ny..(i + 1) * ny];
        for j in 1..ny - 1 {
            let sq = &mut squares[(i / 8) * sq_j + j / 8];
            *sq = merge(*sq, if in_layer(i, j) { LAYER } else { kind_of(row[j]) });
        }
    }
    let (tj, ti) = tile_grid(nx, ny);
    let (oj, oi) = TILE.out();
    let mut kinds = vec![EMPTY; (tj * ti) as usize];
    for si in 0..sq_i {
        let (bi0, bi1) = tiles_holding(8 * si as i64, oi, TILE.height(), ti);
        for sj in 0..sq_j {
            let sq = squares[si * sq_j + sj];
            let (bj0, bj1) = tiles_holding(8 * sj as i64, oj, TILE.width(), tj);
            for bi in bi0..=bi1 {
                for bj in bj0..=bj1 {
                    let k = &mut kinds[(bi * i64::from(tj) + bj) as usize];
                    *k = merge(*k, sq);
                }
            }
        }
    }
    // A tile of border cells only: any uniform kind does.
    for k in &mut kinds {
        if *k == EMPTY {
            *k = 0;
        }
    }
    kinds
}

/// The forced cells of each tile, for `wave_scene_steps`: `offsets[t]..offsets[t+1]` index
/// `entries`, each `(r*TILE.width() + c) << 16 | source` (the cell's place in the tile, the
/// source that forces it). Marks those tiles [`MIXED`] in `kinds`.
pub(super) fn tile_sources(
    kinds: &mut [u16],
    nx: usize,
    ny: usize,
    forced: &[crate::sim::wave::scene::SourceCell],
) -> (Vec<u32>, Vec<u32>) {
    let (tj, ti) = tile_grid(nx, ny);
    let (oj, oi) = TILE.out();
    let halo = i64::from(TILE.halo);
    let mut per_tile: Vec<(u32, u32)> = Vec::new();
    for c in forced {
        let (i, j) = ((c.cell / ny) as i64, (c.cell % ny) as i64);
        let (bi0, bi1) = tiles_holding(i, oi, TILE.height(), ti);
        let (bj0, bj1) = tiles_holding(j, oj, TILE.width(), tj);
        for bi in bi0..=bi1 {
            for bj in bj0..=bj1 {
                let t = (bi * i64::from(tj) + bj) as usize;
                if kinds[t] != GENERAL_EDGES && kinds[t] != LAYER {
                    kinds[t] = MIXED;
                }
                let r = i - (bi * i64::from(oi) - halo);
                let cc = j - (bj * i64::from(oj) - halo);
                let local = (r * i64::from(TILE.width()) + cc) as u32;
                per_tile.push((t as u32, local << 16 | c.source as u32));
            }
        }
    }
    per_tile.sort_unstable();
    let mut offsets = vec![0u32; kinds.len() + 1];
    for (t, _) in &per_tile {
        offsets[*t as usize + 1] += 1;
    }
    for t in 0..kinds.len() {
        offsets[t + 1] += offsets[t];
    }
    (offsets, per_tile.into_iter().map(|(_, e)| e).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scene with every kind of tile: absorbing edges, a wall, a lens, a line and a point source.
    fn scene(nx: usize, ny: usize) -> Scene {
        Scene::from_toml(&format!(
            r#"
description = "tiles"
nx = {nx}
ny = {ny}
c2 = 0.25
boundary = "mur"
[[source]]
kind = "point"
x = 70
y = 100
freq = 0.2
[[source]]
kind = "line"
x0 = 150
y0 = 3
x1 = 150
y1 = 40
freq = 0.1
[[wall]]
x0 = 100
y0 = 0
x1 = 103
y1 = 60
[[medium]]
shape = "circle"
x = 200
y = 150
r = 40.0
c2 = 0.125
"#
        ))
        .unwrap()
    }

    /// Every tile whose footprint holds a matched-layer cell is [`LAYER`] (else the blocked kernels
    /// would run a layer cell by the scene rule), forced cells or not; tiles far from it are not.
    #[test]
    fn tiles_holding_layer_cells_are_layer_tiles() {
        for (nx, ny) in [(290, 250), (251, 303), (242, 194)] {
            let mut s = scene(nx, ny);
            s.boundary = crate::sim::wave::scene::Boundary::Absorbing;
            let cells = SceneCells::new(&s);
            let w = cells.layer.as_ref().map_or(0, |l| l.width) as i64;
            assert!(w > 0, "{nx}x{ny}: the scene has a layer");
            let mut kinds = tile_kinds(&cells);
            let forced = s.source_cells();
            tile_sources(&mut kinds, nx, ny, &forced);
            let (tj, ti) = tile_grid(nx, ny);
            let (oj, oi) = TILE.out();
            let (n, m) = (nx as i64, ny as i64);
            let (mut layer, mut other) = (0, 0);
            for bi in 0..i64::from(ti) {
                for bj in 0..i64::from(tj) {
                    let k = kinds[(bi * i64::from(tj) + bj) as usize];
                    let (i0, j0) = (bi * i64::from(oi) - 8, bj * i64::from(oj) - 8);
                    let holds = (i0..i0 + 64).any(|i| {
                        (j0..j0 + 64).any(|j| {
                            i >= 1
                                && j >= 1
                                && i < n - 1
                                && j < m - 1
                                && (i <= w || j <= w || i + 1 + w >= n || j + 1 + w >= m)
                        })
                    });
                    if holds {
                        layer += 1;
                        assert_eq!(k, LAYER, "{nx}x{ny} tile ({bi}, {bj}) holds layer cells but is kind {k:#x}");
                    } else {
                        other += 1;
                        assert_ne!(k, LAYER, "{nx}x{ny} tile ({bi}, {bj}) holds no layer cell");
                    }
                }
            }
            println!("{nx}x{ny}, layer {w}: {layer} layer tiles, {other} others");
        }
    }

    #[test]
    fn uniform_tiles_hold_one_material_and_no_forced_cell() {
        for (nx, ny) in [(290, 250), (251, 303), (242, 194)] {
            let s = scene(nx, ny);
            let cells = SceneCells::new(&s);
            let mut kinds = tile_kinds(&cells);
            let forced = s.source_cells();
            let (offsets, entries) = tile_sources(&mut kinds, nx, ny, &forced);
            let (tj, ti) = tile_grid(nx, ny);
            let (oj, oi) = TILE.out();
            let (mut uniform, mut general) = (0, 0);
            for bi in 0..ti as i64 {
                for bj in 0..tj as i64 {
                    let t = (bi * i64::from(tj) + bj) as usize;
                    let (i0, j0) = (bi * i64::from(oi) - 8, bj * i64::from(oj) - 8);
                    let inside = |i: i64, j: i64| i >= 1 && j >= 1 && i < nx as i64 - 1 && j < ny as i64 - 1;
                    let footprint: Vec<usize> = (i0..i0 + 64)
                        .flat_map(|i| (j0..j0 + 64).map(move |j| (i, j)))
                        .filter(|&(i, j)| inside(i, j))
                        .map(|(i, j)| i as usize * ny + j as usize)
                        .collect();
                    let mine: Vec<u32> = entries[offsets[t] as usize..offsets[t + 1] as usize].to_vec();
                    let want: Vec<&crate::sim::wave::scene::SourceCell> =
                        forced.iter().filter(|c| footprint.contains(&c.cell)).collect();
                    assert_eq!(mine.len(), want.len(), "tile ({bi}, {bj}): forced cells listed");
                    for c in want {
                        let (r, cc) = ((c.cell / ny) as i64 - i0, (c.cell % ny) as i64 - j0);
                        let e = ((r * 64 + cc) as u32) << 16 | c.source as u32;
                        assert!(mine.contains(&e), "tile ({bi}, {bj}) lacks forced cell {} as {e:#x}", c.cell);
                    }
                    let k = kinds[t];
                    if k < MIXED {
                        uniform += 1;
                        assert!(footprint.iter().all(|&c| cells.ids[c] == k), "tile ({bi}, {bj}) is not all id {k}");
                        assert_eq!(cells.material(k).edge, EDGE_NONE);
                    } else {
                        general += 1;
                        let edges = footprint
                            .iter()
                            .any(|&c| cells.ids[c] != WALL && cells.material(cells.ids[c]).edge != EDGE_NONE);
                        assert_eq!(k == GENERAL_EDGES, edges, "tile ({bi}, {bj}): edge cells {edges}, kind {k:#x}");
                        let one = footprint.iter().all(|&c| cells.ids[c] == cells.ids[footprint[0]]);
                        assert!(
                            !one || edges || !mine.is_empty() || cells.ids[footprint[0]] == WALL,
                            "tile ({bi}, {bj}) is uniform but marked general"
                        );
                    }
                }
            }
            assert!(uniform > 0 && general > 0, "{nx}x{ny}: {uniform} uniform and {general} general tiles");
        }
    }
}
