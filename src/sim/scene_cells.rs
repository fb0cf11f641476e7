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
//! # Damping and the absorbing sponge
//! A cell with damping `sigma` solves `u_tt + 2 sigma u_t = c2 lap u` (time in updates):
//! `(1+sigma) u+ = c2 lap u + 2u - (1-sigma) u-`, so `a = 1 - sigma` and `b = 1/(1 + sigma)`,
//! computed in `f64` and rounded to `f32` once on the host. `sigma = damping + sponge(d)` where
//! `d` is the cell's distance to the nearest border (border cells `d = 0`): with `absorbing`,
//! `sponge(d) = SPONGE_SIGMA_MAX * ((W + 1 - d)/W)^2` for `1 <= d <= W` (W = [`sponge_cells`]),
//! else 0. The material table holds each distinct `(c2, sigma)` pair that occurs; id 0 is
//! always the open medium `(scene.c2, damping)`.

use super::scene::{Boundary, Scene};

/// The id of wall cells: held at 0.
pub const WALL: u16 = u16::MAX;

/// Width of the absorbing sponge in cells (measured: see `tests/scene.rs`).
pub const SPONGE_CELLS: usize = 32;

/// Sigma of the sponge's outermost updated cell (`d = 1`).
pub const SPONGE_SIGMA_MAX: f64 = 0.15;

/// One entry of the material table: the cell's `c2` and its damping coefficients. 12 bytes,
/// `#[repr(C)]`, ready to upload.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Material {
    pub c2: f32,
    /// `1 - sigma`, rounded to `f32` from `f64`.
    pub a: f32,
    /// `1 / (1 + sigma)`, rounded to `f32` from `f64`.
    pub b: f32,
}

impl Material {
    /// The material of `c2` with damping `sigma`.
    #[must_use]
    pub fn new(c2: f32, sigma: f64) -> Self {
        Self { c2, a: (1.0 - sigma) as f32, b: (1.0 / (1.0 + sigma)) as f32 }
    }

    /// True when the cell is undamped (`a = b = 1`): the seed's rule.
    #[must_use]
    pub fn is_undamped(&self) -> bool {
        self.a == 1.0 && self.b == 1.0
    }
}

/// The sponge width on an `nx x ny` grid: [`SPONGE_CELLS`], or a quarter of the shorter side on
/// grids too small for it.
#[must_use]
pub fn sponge_cells(nx: usize, ny: usize) -> usize {
    SPONGE_CELLS.min(nx.min(ny) / 4).max(1)
}

/// Sigma of the sponge at distance `d` from the border (`d = 0` is the border row, which is never
/// updated and gets the outermost value), for a sponge `w` cells wide.
#[must_use]
pub fn sponge_sigma(d: usize, w: usize) -> f64 {
    let level = sponge_level(d, w);
    SPONGE_SIGMA_MAX * (level as f64 / w as f64).powi(2)
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
}

impl SceneCells {
    /// Rasterises `scene` (which must be valid): media in file order (later over earlier), the
    /// sponge, then walls over everything.
    #[must_use]
    pub fn new(scene: &Scene) -> Self {
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
        let w = if scene.boundary == Boundary::Absorbing { sponge_cells(nx, ny) } else { 0 };
        let levels = w + 1;
        // (c2 index, sponge level) -> material id, made in scan order; id 0 the open medium.
        let mut lookup: Vec<Option<u16>> = vec![None; c2s.len() * levels];
        let mut materials = vec![Material::new(c2s[0], scene.damping)];
        lookup[0] = Some(0);
        let mut ids = vec![0u16; nx * ny];
        for i in 0..nx {
            for j in 0..ny {
                let d = i.min(j).min(nx - 1 - i).min(ny - 1 - j);
                let level = if w == 0 { 0 } else { sponge_level(d, w) };
                let ci = usize::from(c2_index[i * ny + j]);
                let slot = &mut lookup[ci * levels + level];
                let id = *slot.get_or_insert_with(|| {
                    let sigma = scene.damping + if level == 0 { 0.0 } else { sponge_sigma(w + 1 - level, w) };
                    materials.push(Material::new(c2s[ci], sigma));
                    (materials.len() - 1) as u16
                });
                ids[i * ny + j] = id;
            }
        }
        for wall in &scene.walls {
            let clip = |v: i64, n: usize| usize::try_from(v.max(0)).unwrap_or(0).min(n - 1);
            for i in clip(wall.x0, nx)..=clip(wall.x1, nx) {
                ids[i * ny + clip(wall.y0, ny)..=i * ny + clip(wall.y1, ny)].fill(WALL);
            }
        }
        Self { nx, ny, ids, materials }
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

/// One interior cell of `update(f, g)` with material `m` (see the module's doc for the order).
#[inline(always)]
#[must_use]
pub fn scene_update_cell(m: Material, f: f32, g: f32, up: f32, down: f32, left: f32, right: f32) -> f32 {
    let s = up + down + left + right;
    let t = s - 4.0 * g;
    m.b * ((m.c2 * t + 2.0 * g) - m.a * f)
}

/// `update(f, g)` over the whole grid, cell by cell: the plain statement of the rule.
pub fn scene_update(cells: &SceneCells, f: &mut [f32], g: &[f32]) {
    let (nx, ny) = (cells.nx, cells.ny);
    for i in 1..nx - 1 {
        for j in 1..ny - 1 {
            let k = i * ny + j;
            let id = cells.ids[k];
            f[k] = if id == WALL {
                0.0
            } else {
                scene_update_cell(cells.material(id), f[k], g[k], g[k - ny], g[k + ny], g[k - 1], g[k + 1])
            };
        }
    }
}

/// The scalar reference: time steps `tstep_from + 1 ..= tstep_to` of `scene` (rasterised as
/// `cells`), one thread, written plainly: each step writes the forcing sources into `g`, then
/// `update(f, g)`, `update(g, f)`.
pub fn scene_reference_run(
    scene: &Scene,
    cells: &SceneCells,
    f: &mut [f32],
    g: &mut [f32],
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
        scene_update(cells, f, g);
        scene_update(cells, g, f);
    }
}

/// Runs `scene` from zero for `tmax` steps and returns `f`.
#[must_use]
pub fn scene_reference(scene: &Scene, tmax: u32) -> Vec<f32> {
    let cells = SceneCells::new(scene);
    let mut f = vec![0.0f32; scene.cells()];
    let mut g = vec![0.0f32; scene.cells()];
    scene_reference_run(scene, &cells, &mut f, &mut g, 0, tmax);
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
    use crate::sim::scene::{Medium, Source, Wall};
    use crate::sim::wave::{WaveParams, reference};

    #[test]
    fn the_seed_scene_runs_the_seed_rule_bit_for_bit() {
        let p = WaveParams::new(37, 53, 0.1);
        assert_eq!(scene_reference(&Scene::seed(37, 53, 0.1), 120), reference(&p, 120));
    }

    #[test]
    fn materials_are_distinct_and_walls_win() {
        let mut s = Scene::seed(64, 48, 0.2);
        s.boundary = Boundary::Absorbing;
        s.media.push(Medium::Rect { x0: 0, y0: 0, x1: 20, y1: 47, c2: 0.1 });
        s.walls.push(Wall { x0: 30, y0: 0, x1: 31, y1: 47 });
        let c = SceneCells::new(&s);
        let w = sponge_cells(64, 48);
        assert_eq!(w, 12);
        // Open medium, its sponge levels, the medium's and its sponge levels.
        assert_eq!(c.materials.len(), 2 * (w + 1));
        assert_eq!(c.materials[0], Material { c2: 0.25, a: 1.0, b: 1.0 });
        assert_eq!(c.ids[30 * 48 + 20], WALL);
        assert_eq!(c.c2_at(10 * 48 + 24), Some(0.1));
        assert_eq!(c.ids[40 * 48 + 24], 0);
        let mut seen = c.materials.clone();
        seen.dedup();
        assert_eq!(seen.len(), c.materials.len());
        // The sponge rises towards the border.
        assert!(c.material(c.ids[40 * 48 + 1]).a < c.material(c.ids[40 * 48 + 5]).a);
    }

    #[test]
    fn energy_is_conserved_without_forcing_or_damping() {
        let mut s = Scene::seed(40, 30, 0.6);
        s.sources = vec![Source::Pulse { x: 13, y: 11, freq: 0.6, amplitude: 1.0, phase: 0.0 }];
        s.media.push(Medium::Circle { x: 25, y: 15, r: 6.0, c2: 0.12 });
        let cells = SceneCells::new(&s);
        let (mut f, mut g) = (vec![0.0; s.cells()], vec![0.0; s.cells()]);
        scene_reference_run(&s, &cells, &mut f, &mut g, 0, 20);
        let e0 = energy(&cells, &f, &g);
        scene_reference_run(&s, &cells, &mut f, &mut g, 20, 1000);
        let e1 = energy(&cells, &f, &g);
        assert!(e0 > 0.0 && ((e1 - e0) / e0).abs() < 1e-4, "{e0} -> {e1}");
    }
}
