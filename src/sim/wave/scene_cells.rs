//! A scene rasterised for the kernels: a material id per cell and a small material table, the
//! exact per-cell update rule every backend computes, its scalar reference, and the discrete
//! energy.
//!
//! # The rule (every backend, bit for bit on the CPU)
//! Cell `(i, j)` of `f` (flat `i*ny + j`) has the id `ids[i*ny + j]`. The border (`i` or `j` at 0
//! or the far side) is never updated, as in the seed. An interior cell whose id is [`WALL`]
//! becomes 0; any other id picks `m = materials[id]` and `update(f, g)` computes, in `f32`, in this
//! order, with no fused multiply-add:
//! ```text
//! s = ((up + down) + left) + right        up = g[i-1][j], down = g[i+1][j], left = g[i][j-1], right = g[i][j+1]
//! t = s - 4*g                              g = g[i][j]
//! f_new = m.b * ((m.c2 * t + 2*g) - m.a * f)
//! ```
//! With `a = b = 1` this is the seed's `c2*(s - 4g) + 2g - f` bit for bit (`1*x == x`).
//!
//! # Damping
//! A cell with damping `sigma` solves `u_tt + 2 sigma u_t = c2 lap u` (time in updates):
//! `(1+sigma) u+ = c2 lap u + 2u - (1-sigma) u-`, so `a = 1 - sigma` and `b = 1/(1 + sigma)`,
//! computed in `f64` and rounded to `f32` once on the host; `sigma` is the scene's `damping` in
//! every non-wall cell. The material table holds each distinct material that occurs; id 0 is
//! always the open medium `(scene.c2, damping)`.
//!
//! # Mur's edge (first-order absorbing condition)
//! With `mur` (`absorbing` before the matched layer took its name), the cells next to the border (`i` = 1 or `nx-2`, or `j` = 1 or `ny-2`; the
//! border itself still stays 0) are edge cells: their material has `edge` set to the direction of
//! the neighbour `n` they look at (inwards) and `mur = (sqrt(c2) - 1)/(sqrt(c2) + 1)` (rounded
//! from `f64`), and `update(f, g)` sets them to
//! ```text
//! f_new = g[n] + m.mur * (f_new[n] - g)
//! ```
//! where `f_new[n]` is the neighbour's new value by the rule above (0 if it is a wall): compute it
//! inline from old values, or do edge cells after the others — the bits are the same. The four
//! corner cells `(1,1)`, `(1,ny-2)`, `(nx-2,1)`, `(nx-2,ny-2)` are held at 0 ([`WALL`]), so an
//! edge cell never looks at another edge cell. Measured (`tests/kernels/scene.rs`, one Hann pulse from a
//! point 100 cells away): 1.5% of a mirror's echo at normal incidence for freq 0.2, 17% at 45°
//! (first-order Mur's `(1 - cos θ)/(1 + cos θ)`). A damping sponge in front of it was measured
//! too ([`Sponge`]) and only added reflection at these wavelengths, so scenes use none: sponges 24
//! to 96 cells wide, quadratic, cubic and bump profiles with `sigma_max` 0.005 to 0.05, returned 4%
//! to 12% at normal incidence and 5% to 20% at 45° (`sponge_scan`). Damping mismatches a wave by
//! about `sigma/omega`, large at a pulse's low frequencies and in its 2D wake, and a sponge
//! still damped at the border spoils Mur's condition there; the issue's 0.5% / 1% need a
//! perfectly matched layer with auxiliary fields: the `absorbing` edge ([`crate::sim::wave::pml`]),
//! whose cells [`scene_update`] hands to [`pml_row`].

use crate::sim::wave::pml::{Layer, LayerCells, LayerFields, pml_row};
use crate::sim::wave::scene::{Boundary, Scene};

/// The id of wall cells (and of the corners of an absorbing edge): held at 0.
pub const WALL: u16 = u16::MAX;

/// An absorbing edge: Mur's condition on the cells next to the border (`mur`) and an optional
/// damping sponge in the outer `cells` cells, `sigma(d) = sigma_max * ((cells + 1 - d)/cells)^power`
/// at distance `d` from the border (or a bump, `power` 0). [`Sponge::MEASURED`] is what scenes use;
/// the others are for measuring it (`tests/kernels/scene.rs`, `sponge_scan`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sponge {
    pub cells: usize,
    pub sigma_max: f64,
    pub power: i32,
    /// Mur's first-order absorbing condition on the cells next to the border.
    pub mur: bool,
}

impl Sponge {
    /// The sponge of every absorbing scene.
    pub const MEASURED: Self = Self { cells: 0, sigma_max: 0.0, power: 2, mur: true };

    /// The width on an `nx x ny` grid: `cells`, or a quarter of the shorter side on grids too
    /// small for it.
    #[must_use]
    pub fn width(&self, nx: usize, ny: usize) -> usize {
        self.cells.min(nx.min(ny) / 4).max(1)
    }

    /// Sigma at level `level` (1 at the inner edge .. `w` at the border) of a sponge `w` wide.
    /// `power` 0 is a bump: `sigma_max * sin²(pi * level/(w+1))`, zero at both ends, so the
    /// Mur edge cells see an undamped neighbourhood.
    #[must_use]
    pub fn sigma(&self, level: usize, w: usize) -> f64 {
        if self.power == 0 {
            self.sigma_max * (std::f64::consts::PI * level as f64 / (w + 1) as f64).sin().powi(2)
        } else {
            self.sigma_max * (level as f64 / w as f64).powi(self.power)
        }
    }
}

/// One entry of the material table: the cell's `c2`, its damping coefficients and, for the cells
/// of an absorbing edge, the Mur coefficient and the direction of the cell it looks at. 20 bytes,
/// `#[repr(C)]`, ready to upload.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Material {
    pub c2: f32,
    /// `1 - sigma`, rounded to `f32` from `f64`.
    pub a: f32,
    /// `1 / (1 + sigma)`, rounded to `f32` from `f64`.
    pub b: f32,
    /// Mur's `(sqrt(c2) - 1)/(sqrt(c2) + 1)` for an edge cell (0 elsewhere), rounded from `f64`.
    pub mur: f32,
    /// [`EDGE_NONE`] for a cell of the plain rule; else which neighbour an absorbing-edge cell
    /// looks at ([`EDGE_I_PLUS`], [`EDGE_I_MINUS`], [`EDGE_J_PLUS`], [`EDGE_J_MINUS`]).
    pub edge: u32,
}

/// A cell of the plain (possibly damped) rule.
pub const EDGE_NONE: u32 = 0;
/// An absorbing-edge cell at `i = 1` (and the corners there): it looks at `(i+1, j)`.
pub const EDGE_I_PLUS: u32 = 1;
/// An absorbing-edge cell at `i = nx-2`: it looks at `(i-1, j)`.
pub const EDGE_I_MINUS: u32 = 2;
/// An absorbing-edge cell at `j = 1`: it looks at `(i, j+1)`.
pub const EDGE_J_PLUS: u32 = 3;
/// An absorbing-edge cell at `j = ny-2`: it looks at `(i, j-1)`.
pub const EDGE_J_MINUS: u32 = 4;

impl Material {
    /// The material of `c2` with damping `sigma`.
    #[must_use]
    pub fn new(c2: f32, sigma: f64) -> Self {
        Self { c2, a: (1.0 - sigma) as f32, b: (1.0 / (1.0 + sigma)) as f32, mur: 0.0, edge: EDGE_NONE }
    }

    /// An absorbing-edge cell of `c2` looking at its neighbour `edge`.
    #[must_use]
    pub fn edge(c2: f32, edge: u32) -> Self {
        let c = f64::from(c2).sqrt();
        Self { c2, a: 1.0, b: 1.0, mur: ((c - 1.0) / (c + 1.0)) as f32, edge }
    }

    /// True when the cell is undamped (`a = b = 1`): the seed's rule.
    #[must_use]
    pub fn is_undamped(&self) -> bool {
        self.a == 1.0 && self.b == 1.0
    }
}

/// `W + 1 - d` inside the sponge (1 at its inner edge, `W` at the border), 0 outside.
fn sponge_level(d: usize, w: usize) -> usize {
    if d > w { 0 } else { w + 1 - d.max(1) }
}

/// A scene as the kernels see it.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneCells {
    pub nx: usize,
    pub ny: usize,
    /// The material id of each cell, row-major like the fields; [`WALL`] for wall cells.
    pub ids: Vec<u16>,
    /// The material table: entry 0 is the open medium.
    pub materials: Vec<Material>,
    /// The perfectly matched layer of an `absorbing` edge: its cells run [`crate::sim::wave::pml`]'s
    /// rule with their material's `c2` (their `a`, `b` unused: the layer's coefficients hold the
    /// damping).
    pub layer: Option<Layer>,
}

impl SceneCells {
    /// Rasterises `scene` (which must be valid): media in file order (later over earlier), the
    /// sponge, then walls over everything.
    #[must_use]
    pub fn new(scene: &Scene) -> Self {
        Self::with_sponge(scene, Sponge::MEASURED)
    }

    /// [`SceneCells::new`] with another sponge (for measuring sponges).
    #[must_use]
    pub fn with_sponge(scene: &Scene, sponge: Sponge) -> Self {
        let (nx, ny) = (scene.nx, scene.ny);
        // Distinct c2 values: index 0 is the open medium.
        let mut c2s = vec![scene.c2 as f32];
        let medium_c2: Vec<u16> = scene
            .media
            .iter()
            .map(|m| {
                let c2 = m.c2() as f32;
                let k = c2s.iter().position(|&v| v.to_bits() == c2.to_bits()).unwrap_or_else(|| {
                    c2s.push(c2);
                    c2s.len() - 1
                });
                k as u16
            })
            .collect();
        // Per cell: the index of its c2 (media painted in order).
        let mut c2_index = vec![0u16; nx * ny];
        for (m, &k) in scene.media.iter().zip(&medium_c2) {
            let (x0, y0, x1, y1) = m.bounds(nx, ny);
            for i in x0..=x1 {
                for j in y0..=y1 {
                    if m.contains(i as i64, j as i64) {
                        c2_index[i * ny + j] = k;
                    }
                }
            }
        }
        let absorbing = scene.boundary == Boundary::Mur;
        let w = if absorbing && sponge.cells > 0 && sponge.sigma_max > 0.0 { sponge.width(nx, ny) } else { 0 };
        let mur = absorbing && sponge.mur;
        // Levels 0..=w of the sponge, then the four edge directions.
        let levels = w + 1 + 4;
        // (c2 index, sponge level) -> material id, made in scan order; id 0 the open medium.
        let mut lookup: Vec<Option<u16>> = vec![None; c2s.len() * levels];
        let mut materials = vec![Material::new(c2s[0], scene.damping)];
        lookup[0] = Some(0);
        let mut ids = vec![0u16; nx * ny];
        for i in 0..nx {
            for j in 0..ny {
                let d = i.min(j).min(nx - 1 - i).min(ny - 1 - j);
                let corner = i.min(nx - 1 - i) == 1 && j.min(ny - 1 - j) == 1;
                let edge = match (i, j) {
                    _ if !mur || d != 1 || corner => EDGE_NONE,
                    (1, _) => EDGE_I_PLUS,
                    _ if i == nx - 2 => EDGE_I_MINUS,
                    (_, 1) => EDGE_J_PLUS,
                    _ => EDGE_J_MINUS,
                };
                let level = if edge != EDGE_NONE {
                    w + edge as usize
                } else if w == 0 {
                    0
                } else {
                    sponge_level(d, w)
                };
                let ci = usize::from(c2_index[i * ny + j]);
                let slot = &mut lookup[ci * levels + level];
                let id = *slot.get_or_insert_with(|| {
                    materials.push(if edge == EDGE_NONE {
                        let sigma = scene.damping + if level == 0 { 0.0 } else { sponge.sigma(level, w) };
                        Material::new(c2s[ci], sigma)
                    } else {
                        Material::edge(c2s[ci], edge)
                    });
                    (materials.len() - 1) as u16
                });
                ids[i * ny + j] = id;
            }
        }
        if mur {
            for (i, j) in [(1, 1), (1, ny - 2), (nx - 2, 1), (nx - 2, ny - 2)] {
                ids[i * ny + j] = WALL;
            }
        }
        for wall in &scene.walls {
            let clip = |v: i64, n: usize| usize::try_from(v.max(0)).unwrap_or(0).min(n - 1);
            for i in clip(wall.x0, nx)..=clip(wall.x1, nx) {
                ids[i * ny + clip(wall.y0, ny)..=i * ny + clip(wall.y1, ny)].fill(WALL);
            }
        }
        let layer = (scene.boundary == Boundary::Absorbing).then(|| Layer::new(nx, ny, scene.damping));
        Self { nx, ny, ids, materials, layer }
    }

    /// True when interior cell `(i, j)` runs the layer's rule.
    #[must_use]
    pub fn in_layer(&self, i: usize, j: usize) -> bool {
        self.layer.as_ref().is_some_and(|l| l.full_row(i, self.nx) || l.in_y(j, self.ny))
    }

    /// The material of a non-wall id.
    #[must_use]
    pub fn material(&self, id: u16) -> Material {
        self.materials[usize::from(id)]
    }

    /// The `c2` of cell `k`, `None` for a wall.
    #[must_use]
    pub fn c2_at(&self, k: usize) -> Option<f32> {
        let id = self.ids[k];
        (id != WALL).then(|| self.material(id).c2)
    }
}

/// The layer's rule reads a scene's cells through this.
impl LayerCells for SceneCells {
    fn size(&self) -> (usize, usize) {
        (self.nx, self.ny)
    }

    fn layer(&self) -> Option<&Layer> {
        self.layer.as_ref()
    }

    fn row_ids(&self, i: usize) -> &[u16] {
        &self.ids[i * self.ny..(i + 1) * self.ny]
    }

    fn c2(&self, id: u16) -> Option<f32> {
        (id != WALL).then(|| self.material(id).c2)
    }
}

/// One interior cell of `update(f, g)` with material `m` (see the module's doc for the order).
#[inline(always)]
#[must_use]
pub fn scene_update_cell(m: Material, f: f32, g: f32, up: f32, down: f32, left: f32, right: f32) -> f32 {
    let s = up + down + left + right;
    let t = s - 4.0 * g;
    m.b * ((m.c2 * t + 2.0 * g) - m.a * f)
}

/// One absorbing-edge cell of `update(f, g)`: Mur's first-order condition
/// `f_new = g_n + mur * (f_new_n - g)`, where `n` is the neighbour the cell looks at and `f_new_n`
/// its new value (computed first: edge cells come after every other cell of the update).
#[inline(always)]
#[must_use]
pub fn edge_update_cell(mur: f32, g: f32, g_n: f32, f_new_n: f32) -> f32 {
    g_n + mur * (f_new_n - g)
}

/// `update(f, g)` over the whole grid, cell by cell: the plain statement of the rule. Edge cells
/// are done after all others, since they read their neighbour's new value; the cells of a
/// matched layer by [`pml_row`], with their auxiliary values in `aux`.
pub fn scene_update(cells: &SceneCells, f: &mut [f32], g: &[f32], aux: &mut LayerFields) {
    let (nx, ny) = (cells.nx, cells.ny);
    for i in 1..nx - 1 {
        if let Some(layer) = &cells.layer {
            let (start, end) = (aux.starts[i], aux.starts[i + 1]);
            let rows = (&g[(i - 1) * ny..i * ny], &g[i * ny..(i + 1) * ny], &g[(i + 1) * ny..(i + 2) * ny]);
            let f_row = &mut f[i * ny..(i + 1) * ny];
            pml_row(cells, layer, i, &mut aux.values[start..end], f_row, rows.0, rows.1, rows.2);
        }
        for j in 1..ny - 1 {
            let k = i * ny + j;
            let id = cells.ids[k];
            if cells.in_layer(i, j) {
                continue;
            }
            if id == WALL {
                f[k] = 0.0;
            } else {
                let m = cells.material(id);
                if m.edge == EDGE_NONE {
                    f[k] = scene_update_cell(m, f[k], g[k], g[k - ny], g[k + ny], g[k - 1], g[k + 1]);
                }
            }
        }
    }
    for i in 1..nx - 1 {
        for j in 1..ny - 1 {
            let k = i * ny + j;
            let id = cells.ids[k];
            if id != WALL {
                let m = cells.material(id);
                let n = match m.edge {
                    EDGE_I_PLUS => k + ny,
                    EDGE_I_MINUS => k - ny,
                    EDGE_J_PLUS => k + 1,
                    EDGE_J_MINUS => k - 1,
                    _ => continue,
                };
                f[k] = edge_update_cell(m.mur, g[k], g[n], f[n]);
            }
        }
    }
}

/// The scalar reference: time steps `tstep_from + 1 ..= tstep_to` of `scene` (rasterised as
/// `cells`), one thread, written plainly: each step writes the forcing sources into `g`, then
/// `update(f, g)`, `update(g, f)`. `aux` holds a matched layer's auxiliary fields
/// ([`LayerFields::new`] at the start; empty without a layer).
pub fn scene_reference_run(
    scene: &Scene,
    cells: &SceneCells,
    f: &mut [f32],
    g: &mut [f32],
    aux: &mut LayerFields,
    tstep_from: u32,
    tstep_to: u32,
) {
    let source_cells = scene.source_cells();
    for t in tstep_from + 1..=tstep_to {
        let values = scene.source_values(t);
        for sc in &source_cells {
            if let Some(v) = values[sc.source] {
                g[sc.cell] = v;
            }
        }
        scene_update(cells, f, g, aux);
        scene_update(cells, g, f, aux);
    }
}

/// Runs `scene` from zero for `tmax` steps and returns `f`.
#[must_use]
pub fn scene_reference(scene: &Scene, tmax: u32) -> Vec<f32> {
    let cells = SceneCells::new(scene);
    let mut f = vec![0.0f32; scene.cells()];
    let mut g = vec![0.0f32; scene.cells()];
    let mut aux = LayerFields::new(&cells);
    scene_reference_run(scene, &cells, &mut f, &mut g, &mut aux, 0, tmax);
    f
}

/// The discrete energy of the leapfrog scheme held by two consecutive time levels `f`, `g`
/// (after a whole step, `f` is level `n-1` and `g` level `n`), in `f64`:
/// ```text
/// E = sum over non-wall cells (f - g)^2 / c2  +  sum over neighbour pairs (a, b) (f_a - f_b)(g_a - g_b)
/// ```
/// (pairs over the whole grid; borders and walls hold 0). For `u+ - 2u + u- = c2 L u` with the
/// Dirichlet Laplacian `L = -DᵀD`, multiplying by `(u+ - u-)/c2` and summing shows that `E` is
/// the same at every step when nothing forces and nothing damps; damping makes it decay. With
/// `c2 <= 0.5` it is never negative. Summed over the cells of `x0..x1, y0..y1` (and the pairs
/// inside it) by [`energy_in`].
#[must_use]
pub fn energy(cells: &SceneCells, f: &[f32], g: &[f32]) -> f64 {
    energy_in(cells, f, g, 0..cells.nx, 0..cells.ny)
}

/// Columns of cells per piece of [`energy_parallel`]: fixed, so the sum is the same on any
/// number of threads.
const ENERGY_PIECE_COLUMNS: usize = 64;

/// [`energy`] on all cores: the same terms, summed per piece of `ENERGY_PIECE_COLUMNS`
/// columns (`x`) and the pieces' sums added in order. The terms are those of [`energy`]; only
/// the order of the additions differs (the two agree to `f64` rounding, about 1e-15 relative),
/// and the result does not depend on the number of threads. The app's energy meter uses it: at
/// 8192² one thread takes hundreds of ms.
#[must_use]
pub fn energy_parallel(cells: &SceneCells, f: &[f32], g: &[f32]) -> f64 {
    use rayon::prelude::*;
    let (nx, ny) = (cells.nx, cells.ny);
    let pieces: Vec<f64> = (0..nx.div_ceil(ENERGY_PIECE_COLUMNS))
        .into_par_iter()
        .map(|p| {
            let xs = p * ENERGY_PIECE_COLUMNS..((p + 1) * ENERGY_PIECE_COLUMNS).min(nx);
            let mut e = 0.0;
            for i in xs {
                for j in 0..ny {
                    let k = i * ny + j;
                    let (fk, gk) = (f64::from(f[k]), f64::from(g[k]));
                    if let Some(c2) = cells.c2_at(k) {
                        e += (fk - gk).powi(2) / f64::from(c2);
                    }
                    // Pairs with the next column belong to this column's piece, as in `energy`.
                    if i + 1 < nx {
                        e += (fk - f64::from(f[k + ny])) * (gk - f64::from(g[k + ny]));
                    }
                    if j + 1 < ny {
                        e += (fk - f64::from(f[k + 1])) * (gk - f64::from(g[k + 1]));
                    }
                }
            }
            e
        })
        .collect();
    pieces.iter().sum()
}

/// [`energy`] of the cells `x` in `xs`, `y` in `ys` and the neighbour pairs with both ends there.
#[must_use]
pub fn energy_in(
    cells: &SceneCells,
    f: &[f32],
    g: &[f32],
    xs: std::ops::Range<usize>,
    ys: std::ops::Range<usize>,
) -> f64 {
    let ny = cells.ny;
    let mut e = 0.0;
    for i in xs.clone() {
        for j in ys.clone() {
            let k = i * ny + j;
            let (fk, gk) = (f64::from(f[k]), f64::from(g[k]));
            if let Some(c2) = cells.c2_at(k) {
                e += (fk - gk).powi(2) / f64::from(c2);
            }
            if i + 1 < xs.end {
                e += (fk - f64::from(f[k + ny])) * (gk - f64::from(g[k + ny]));
            }
            if j + 1 < ys.end {
                e += (fk - f64::from(f[k + 1])) * (gk - f64::from(g[k + 1]));
            }
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::wave::scene::{Medium, Source, Wall};
    use crate::sim::wave::{WaveParams, reference};

    #[test]
    fn energy_on_all_cores_is_the_energy() {
        let mut scene = Scene::seed(150, 70, 0.1);
        assert!(scene.paint_wall(40, 10, 42, 50));
        let cells = SceneCells::new(&scene);
        let n = scene.cells();
        let f: Vec<f32> = (0..n).map(|k| ((k * 7919 % 1000) as f32 - 500.0) * 1e-3).collect();
        let g: Vec<f32> = (0..n).map(|k| ((k * 104_729 % 997) as f32 - 498.0) * 1e-3).collect();
        let (seq, par) = (energy(&cells, &f, &g), energy_parallel(&cells, &f, &g));
        assert!(seq != 0.0 && ((par - seq) / seq).abs() < 1e-12, "{par} against {seq}");
        assert_eq!(par.to_bits(), energy_parallel(&cells, &f, &g).to_bits(), "the same sum every time");
    }

    #[test]
    fn the_seed_scene_runs_the_seed_rule_bit_for_bit() {
        let p = WaveParams::new(37, 53, 0.1);
        assert_eq!(scene_reference(&Scene::seed(37, 53, 0.1), 120), reference(&p, 120));
    }

    #[test]
    fn materials_are_distinct_and_walls_win() {
        let mut s = Scene::seed(64, 48, 0.2);
        s.boundary = Boundary::Mur;
        s.media.push(Medium::Rect { x0: 0, y0: 0, x1: 20, y1: 47, c2: 0.1 });
        s.walls.push(Wall { x0: 30, y0: 0, x1: 31, y1: 47 });
        let c = SceneCells::new(&s);
        // Each medium and its three edges: the medium covers i = 1, the open medium i = nx-2.
        assert_eq!(c.materials.len(), 4 + 4, "{:?}", c.materials);
        assert_eq!(c.materials[0], Material::new(0.25, 0.0));
        assert_eq!(c.ids[30 * 48 + 20], WALL);
        assert_eq!(c.ids[48 + 1], WALL, "corners of the edge are held at 0");
        assert_eq!(c.c2_at(10 * 48 + 24), Some(0.1));
        assert_eq!(c.ids[40 * 48 + 24], 0);
        let edge = c.material(c.ids[40 * 48 + 1]);
        assert_eq!((edge.edge, edge.mur), (EDGE_J_PLUS, -1.0 / 3.0));
        assert_eq!(c.material(c.ids[62 * 48 + 7]).edge, EDGE_I_MINUS);
        let mut seen = c.materials.clone();
        seen.dedup();
        assert_eq!(seen.len(), c.materials.len());
        // A sponge (measured, not used) rises towards the border.
        let sponge = Sponge { cells: 8, sigma_max: 0.1, power: 2, mur: false };
        let c = SceneCells::with_sponge(&s, sponge);
        assert!(c.material(c.ids[40 * 48 + 1]).a < c.material(c.ids[40 * 48 + 5]).a);
    }

    #[test]
    fn energy_is_conserved_without_forcing_or_damping() {
        let mut s = Scene::seed(40, 30, 0.6);
        s.sources = vec![Source::Pulse { x: 13, y: 11, freq: 0.6, amplitude: 1.0, phase: 0.0, start: 1 }];
        s.media.push(Medium::Circle { x: 25, y: 15, r: 6.0, c2: 0.12 });
        let cells = SceneCells::new(&s);
        let (mut f, mut g) = (vec![0.0; s.cells()], vec![0.0; s.cells()]);
        let mut aux = LayerFields::new(&cells);
        scene_reference_run(&s, &cells, &mut f, &mut g, &mut aux, 0, 20);
        let e0 = energy(&cells, &f, &g);
        scene_reference_run(&s, &cells, &mut f, &mut g, &mut aux, 20, 1000);
        let e1 = energy(&cells, &f, &g);
        assert!(e0 > 0.0 && ((e1 - e0) / e0).abs() < 1e-4, "{e0} -> {e1}");
    }
}
