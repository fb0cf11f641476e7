//! The perfectly matched layer of a scene's `matched` edge: its coefficients, its auxiliary
//! fields (only at the layer's cells) and its per-cell rule.
//!
//! # The layer
//! The outer [`Layer::width`] cells of every side (inside the grid; the border itself still stays
//! 0) stretch space with `s = 1 + sigma/p` (`p` the Laplace variable of time, in updates). The field
//! is split there into `u = ux + uy`, each part damped along its own axis; the stretch of
//! `(1/s) d/dx ((1/s) du/dx)` keeps a term in `sigma'`, carried by `phi` (Laplace: `phi = du/dx/(p + sigma)`):
//! ```text
//! (d/dt + sx)^2 ux = c2 (Dxx u - sx' phix),    (d/dt + sx) phix = Dx u        (and the same in y)
//! ```
//! `phi` is integrated exactly over one update with its source `G = Dx u` linear between updates.
//! Measured in `tools/pml_prototype.py` (echo of a Hann pulse in % of a mirror's, normal / 45° /
//! 60°, at freq 0.2 on a 32-cell layer): 0.048 / 0.054 / 0.116. Dropping the `sigma'` term (the
//! textbook split form) returned 21% head-on on a 16-cell layer, more with more `sigma`; holding
//! `G` over the update instead of interpolating it, 0.40 / 0.68 / 1.18 (32 cells, `sigma_max` 0.25).
//!
//! # The rule (every backend, in this order, `f32`, no fused multiply-add)
//! A non-wall cell of the layer with `c2` of its material, levels `lx`, `ly` (0 outside the layer
//! along that axis, 1 at its inner edge, `width` next to the border) and coefficients `X = x[lx]`,
//! `Y = y[ly]` ([`Axis`]), `f`, `g` the two fields, `pu`, `cu` the auxiliary `ux` of the previous
//! and the current level, `px`, `py` the two `phi`:
//! ```text
//! gx  = (down - up)*0.5                           up = g[i-1][j], down = g[i+1][j]
//! gy  = (right - left)*0.5                        left = g[i][j-1], right = g[i][j+1]
//! px' = X.al*px + (X.w1*gx + X.w0*gx_prev)        (gx_prev, gy_prev: the last update's gx, gy)
//! py' = Y.al*py + (Y.w1*gy + Y.w0*gy_prev)
//! dxx = (up + down) - 2*g
//! dyy = (left + right) - 2*g
//! ux  = X.b*((c2*(dxx - X.ds*px') + X.e*cu) - X.a*pu)
//! uy  = Y.b*((c2*(dyy - Y.ds*py') + Y.e*(g - cu)) - Y.a*(f - pu))
//! f'  = ux + uy;      then pu' = cu, cu' = ux, gx_prev' = gx, gy_prev' = gy
//! ```
//! A wall cell of the layer becomes 0 and its auxiliary values 0. Every layer cell is updated once
//! per update (the auxiliary values roll: the previous level is dropped), so `update(f, g)` and
//! `update(g, f)` need no separate copies.

use crate::sim::wave::scene_cells::{SceneCells, WALL};

/// The layer's width in cells on grids large enough (see [`Layer::width_on`]).
pub const PML_CELLS: usize = 32;
/// `sigma` next to the border, per update.
pub const PML_SIGMA_MAX: f64 = 0.3;
/// `sigma(level) = PML_SIGMA_MAX * (level / width)^PML_POWER`.
pub const PML_POWER: i32 = 2;

/// The coefficients of one level along one axis, rounded to `f32` from `f64` once.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Axis {
    /// `1 - sigma - damping`.
    pub a: f32,
    /// `1/(1 + sigma + damping)`.
    pub b: f32,
    /// `2 - sigma^2`.
    pub e: f32,
    /// `d sigma / d i` (or `/ d j`), the sign of the side: negative on the low side.
    pub ds: f32,
    /// `exp(-sigma)`: `phi`'s decay per update (0 outside the layer, where `phi` stays 0).
    pub al: f32,
    /// The weight of this update's difference `G` in `phi`: `(d/dt + sigma) phi = G` integrated
    /// exactly over one update with `G` linear between updates, `int_0^1 exp(-sigma s)(1 - s) ds`
    /// (0 outside the layer).
    pub w1: f32,
    /// The weight of the previous update's `G`: `int_0^1 exp(-sigma s) s ds`.
    pub w0: f32,
}

/// The layer of a grid: its width and its coefficients per level, low and high side.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub width: usize,
    /// `low[level]` for the cells near index 0, `high[level]` near the far side; level 0 is the
    /// interior (sigma 0, the scene's damping only).
    pub low: Vec<Axis>,
    pub high: Vec<Axis>,
}

impl Layer {
    /// The width on an `nx x ny` grid: [`PML_CELLS`], or a quarter of the shorter side.
    #[must_use]
    pub fn width_on(nx: usize, ny: usize) -> usize {
        PML_CELLS.min(nx.min(ny) / 4).max(1)
    }

    /// The layer of an `nx x ny` grid whose medium has `damping`.
    #[must_use]
    pub fn new(nx: usize, ny: usize, damping: f64) -> Self {
        let w = Self::width_on(nx, ny);
        let axis = |level: usize, side: f64| {
            let x = level as f64 / w as f64;
            let sigma = PML_SIGMA_MAX * x.powi(PML_POWER);
            let ds = PML_SIGMA_MAX * f64::from(PML_POWER) * x.powi(PML_POWER - 1) / w as f64;
            // int_0^1 e^{-sigma s} ds and int_0^1 s e^{-sigma s} ds.
            let (al, w1, w0) = if level == 0 {
                (0.0, 0.0, 0.0)
            } else {
                let al = (-sigma).exp();
                let be = -(-sigma).exp_m1() / sigma;
                let w0 = (1.0 - al * (1.0 + sigma)) / (sigma * sigma);
                (al, be - w0, w0)
            };
            let s = sigma + damping;
            Axis {
                a: (1.0 - s) as f32,
                b: (1.0 / (1.0 + s)) as f32,
                e: (2.0 - sigma * sigma) as f32,
                ds: (side * ds) as f32,
                al: al as f32,
                w1: w1 as f32,
                w0: w0 as f32,
            }
        };
        Self { width: w, low: (0..=w).map(|l| axis(l, -1.0)).collect(), high: (0..=w).map(|l| axis(l, 1.0)).collect() }
    }

    /// The coefficients at index `k` of an axis of `n` cells (`k` in `1..n-1`).
    #[must_use]
    pub fn axis_at(&self, k: usize, n: usize) -> Axis {
        let w = self.width;
        if k <= w {
            self.low[w + 1 - k]
        } else if k + 1 + w >= n {
            self.high[w + 2 + k - n]
        } else {
            self.low[0]
        }
    }

    /// True when row `i` of `nx` lies in the layer from side to side.
    #[must_use]
    pub fn full_row(&self, i: usize, nx: usize) -> bool {
        i <= self.width || i + 1 + self.width >= nx
    }

    /// True when the interior cell `j` of a row of `ny` lies in the layer of `y`.
    #[must_use]
    pub fn in_y(&self, j: usize, ny: usize) -> bool {
        j <= self.width || j + 1 + self.width >= ny
    }
}

/// Values per layer cell in [`LayerFields`]: `ux` of the previous and current level, `phix`,
/// `phiy`, and the differences `Gx`, `Gy` of the previous update.
pub const AUX: usize = 6;

/// The auxiliary fields of a layer, [`AUX`] values per layer cell, row by row: a row in the
/// layer from side to side holds its `ny - 2` interior cells, any other row its `2*width` cells
/// at the two ends.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayerFields {
    /// `starts[i]`: where row `i`'s values begin (`starts[nx]` the end).
    pub starts: Vec<usize>,
    pub values: Vec<f32>,
}

impl LayerFields {
    /// Zeroed fields for `cells` (empty without a layer).
    #[must_use]
    pub fn new(cells: &SceneCells) -> Self {
        let Some(layer) = &cells.layer else { return Self::default() };
        let (nx, ny) = (cells.nx, cells.ny);
        let mut starts = Vec::with_capacity(nx + 1);
        let mut n = 0;
        for i in 0..nx {
            starts.push(n);
            if i > 0 && i + 1 < nx {
                n += AUX * if layer.full_row(i, nx) { ny - 2 } else { 2 * layer.width };
            }
        }
        starts.push(n);
        Self { starts, values: vec![0.0; n] }
    }

    /// Row `i`'s values.
    #[must_use]
    pub fn row(&self, i: usize) -> &[f32] {
        &self.values[self.starts[i]..self.starts[i + 1]]
    }

    /// Back to zero.
    pub fn reset(&mut self) {
        self.values.fill(0.0);
    }
}

/// The slot (in cells, not values) of cell `j` within its row's values, `None` outside the layer.
#[must_use]
pub fn slot_in_row(layer: &Layer, full: bool, j: usize, ny: usize) -> Option<usize> {
    let w = layer.width;
    if full {
        Some(j - 1)
    } else if j <= w {
        Some(j - 1)
    } else if j + 1 + w >= ny {
        Some(w + j + w + 1 - ny)
    } else {
        None
    }
}

/// One non-wall layer cell (see the module's doc for the order); `aux` its [`AUX`] values,
/// updated; returns `f'`.
#[inline(always)]
#[expect(clippy::too_many_arguments, reason = "the cell's coefficients, its old value and its stencil")]
#[must_use]
pub fn pml_cell(
    c2: f32,
    x: Axis,
    y: Axis,
    aux: &mut [f32],
    f: f32,
    g: f32,
    up: f32,
    down: f32,
    left: f32,
    right: f32,
) -> f32 {
    let (pu, cu) = (aux[0], aux[1]);
    let gx = (down - up) * 0.5;
    let gy = (right - left) * 0.5;
    let px = x.al * aux[2] + (x.w1 * gx + x.w0 * aux[4]);
    let py = y.al * aux[3] + (y.w1 * gy + y.w0 * aux[5]);
    let dxx = (up + down) - 2.0 * g;
    let dyy = (left + right) - 2.0 * g;
    let ux = x.b * ((c2 * (dxx - x.ds * px) + x.e * cu) - x.a * pu);
    let uy = y.b * ((c2 * (dyy - y.ds * py) + y.e * (g - cu)) - y.a * (f - pu));
    aux[0] = cu;
    aux[1] = ux;
    aux[2] = px;
    aux[3] = py;
    aux[4] = gx;
    aux[5] = gy;
    ux + uy
}

/// `update` of the layer's cells of interior row `i`: `f_row` row `i` of the field written, the
/// others rows `i-1`, `i`, `i+1` of the one read, `aux` row `i`'s values of [`LayerFields`]. The
/// row's other cells are left as they are (the scene rule does them).
#[expect(clippy::too_many_arguments, reason = "the grid, the row and its stencil")]
pub fn pml_row(
    cells: &SceneCells,
    layer: &Layer,
    i: usize,
    aux: &mut [f32],
    f_row: &mut [f32],
    g_up: &[f32],
    g_mid: &[f32],
    g_down: &[f32],
) {
    let (nx, ny) = (cells.nx, cells.ny);
    let full = layer.full_row(i, nx);
    let x = layer.axis_at(i, nx);
    let ids = &cells.ids[i * ny..(i + 1) * ny];
    let mut cell = |j: usize, slot: usize| {
        let a = &mut aux[AUX * slot..AUX * (slot + 1)];
        let id = ids[j];
        if id == WALL {
            a.fill(0.0);
            f_row[j] = 0.0;
        } else {
            let y = layer.axis_at(j, ny);
            let c2 = cells.material(id).c2;
            f_row[j] = pml_cell(c2, x, y, a, f_row[j], g_mid[j], g_up[j], g_down[j], g_mid[j - 1], g_mid[j + 1]);
        }
    };
    if full {
        for j in 1..ny - 1 {
            cell(j, j - 1);
        }
    } else {
        let w = layer.width;
        for j in 1..=w {
            cell(j, j - 1);
        }
        for j in ny - 1 - w..ny - 1 {
            cell(j, w + j + w + 1 - ny);
        }
    }
}
