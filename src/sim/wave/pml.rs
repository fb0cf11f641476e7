//! The perfectly matched layer of a scene's `absorbing` edge (`matched` in older scene files): its coefficients, its auxiliary
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
//! gx  = (down - up)⊗0.5                           up = g[i-1][j], down = g[i+1][j]
//! gy  = (right - left)⊗0.5                        left = g[i][j-1], right = g[i][j+1]
//! px' = X.al⊗px + (X.w1⊗gx + X.w0⊗gx_prev)        (gx_prev, gy_prev: the last update's gx, gy)
//! py' = Y.al⊗py + (Y.w1⊗gy + Y.w0⊗gy_prev)
//! dxx = (up + down) - 2*g
//! dyy = (left + right) - 2*g
//! ux  = X.b⊗((c2⊗(dxx - X.ds⊗px') + X.e⊗cu) - X.a⊗pu)
//! uy  = Y.b⊗((c2⊗(dyy - Y.ds⊗py') + Y.e⊗(g - cu)) - Y.a⊗(f - pu))
//! f'  = ux + uy;      then pu' = cu, cu' = ux, gx_prev' = gx, gy_prev' = gy
//! ```
//! `a⊗b` is [`layer_product`]: the product, or 0 where it is below 2^-125 in magnitude (every
//! coefficient is at most 2 in magnitude, so a product with a subnormal factor is always 0). No
//! backend then rounds on the CPU's subnormal grid: the GPUs' drivers flush subnormals, and
//! wgpu's scaled fields (`FIELD_SCALE`) round a tiny product to 24 bits where the CPU rounds it to
//! its grid 2^-149; a flushed product is 0 on all of them alike. (Until stop 36 the products were
//! the CPU's, and wgpu settled the grid's ties in `grid_product`: the layer scene took 81.8 µs
//! an update at 4096² on the H100, 70.4 with this rule; docs/PERFORMANCE.md.) `2*g` is exact.
//! A wall cell of the layer becomes 0 and its auxiliary values 0. Every layer cell is updated once
//! per update (the auxiliary values roll: the previous level is dropped), so `update(f, g)` and
//! `update(g, f)` need no separate copies.

/// What the layer's rule reads of a scene's cells (`scene_cells::SceneCells` implements it), so
/// this file takes nothing from `scene_cells`.
pub trait LayerCells {
    /// `(nx, ny)`.
    fn size(&self) -> (usize, usize);
    /// The matched layer, where the edge is one.
    fn layer(&self) -> Option<&Layer>;
    /// The material ids of row `i`.
    fn row_ids(&self, i: usize) -> &[u16];
    /// `c2` of material `id`, or `None` for a wall.
    fn c2(&self, id: u16) -> Option<f32>;
}

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
    /// The `y` coefficients of each `j` (`ny` of them, as planes: the row kernel's vector loop
    /// reads them side by side).
    pub y: AxisPlanes,
}

/// [`Axis`] values of a row of cells, one plane per coefficient.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AxisPlanes {
    pub a: Vec<f32>,
    pub b: Vec<f32>,
    pub e: Vec<f32>,
    pub ds: Vec<f32>,
    pub al: Vec<f32>,
    pub w1: Vec<f32>,
    pub w0: Vec<f32>,
}

impl AxisPlanes {
    fn push(&mut self, v: Axis) {
        self.a.push(v.a);
        self.b.push(v.b);
        self.e.push(v.e);
        self.ds.push(v.ds);
        self.al.push(v.al);
        self.w1.push(v.w1);
        self.w0.push(v.w0);
    }

    fn at(&self, k: usize) -> Axis {
        Axis {
            a: self.a[k],
            b: self.b[k],
            e: self.e[k],
            ds: self.ds[k],
            al: self.al[k],
            w1: self.w1[k],
            w0: self.w0[k],
        }
    }
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
        let mut layer = Self {
            width: w,
            low: (0..=w).map(|l| axis(l, -1.0)).collect(),
            high: (0..=w).map(|l| axis(l, 1.0)).collect(),
            y: AxisPlanes::default(),
        };
        for j in 0..ny {
            let v = if j == 0 || j + 1 == ny { layer.low[0] } else { layer.axis_at(j, ny) };
            layer.y.push(v);
        }
        layer
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
/// at the two ends; within a row, one plane of its cells per value (`ux` previous, `ux` current,
/// `phix`, `phiy`, `gx`, `gy`), so the row kernel's loops run over plain slices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayerFields {
    /// `starts[i]`: where row `i`'s values begin (`starts[nx]` the end).
    pub starts: Vec<usize>,
    pub values: Vec<f32>,
}

impl LayerFields {
    /// Zeroed fields for `cells` (empty without a layer).
    #[must_use]
    pub fn new<C: LayerCells + ?Sized>(cells: &C) -> Self {
        let Some(layer) = cells.layer() else { return Self::default() };
        let (nx, ny) = cells.size();
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

/// The auxiliary planes of a span of layer cells.
struct Planes<'a> {
    pu: &'a mut [f32],
    cu: &'a mut [f32],
    px: &'a mut [f32],
    py: &'a mut [f32],
    gx: &'a mut [f32],
    gy: &'a mut [f32],
}

impl<'a> Planes<'a> {
    /// Row values of `len` cells split into their planes.
    fn of(aux: &'a mut [f32], len: usize) -> Self {
        let (pu, rest) = aux.split_at_mut(len);
        let (cu, rest) = rest.split_at_mut(len);
        let (px, rest) = rest.split_at_mut(len);
        let (py, rest) = rest.split_at_mut(len);
        let (gx, gy) = rest.split_at_mut(len);
        Self { pu, cu, px, py, gx, gy }
    }

    fn span(&mut self, from: usize, n: usize) -> Planes<'_> {
        let r = from..from + n;
        Planes {
            pu: &mut self.pu[r.clone()],
            cu: &mut self.cu[r.clone()],
            px: &mut self.px[r.clone()],
            py: &mut self.py[r.clone()],
            gx: &mut self.gx[r.clone()],
            gy: &mut self.gy[r],
        }
    }
}

/// Products below this magnitude (2^-125) are 0 in the layer's rule ([`layer_product`]).
pub const LAYER_FLUSH: f32 = f32::from_bits(0x0100_0000);

/// The layer rule's product `x ⊗ y`: `x * y`, or 0 where its magnitude is below [`LAYER_FLUSH`].
/// For `|x| <= 2` and any `y` this is the same on a device that flushes subnormals (inputs or
/// results) as on one that keeps them, and on wgpu's fields scaled by 2^24 (compared with
/// 2^-101): the product is either at least 2^-126 before rounding, so normal and rounded alike
/// everywhere, or at most 2^-126 after it, so flushed everywhere.
#[inline(always)]
#[must_use]
pub fn layer_product(x: f32, y: f32) -> f32 {
    let p = x * y;
    if p.abs() < LAYER_FLUSH { 0.0 } else { p }
}

/// One non-wall layer cell (see the module's doc for the order): `aux` its [`AUX`] values
/// (`ux` previous, `ux` current, `phix`, `phiy`, `gx`, `gy`), updated; returns `f'`.
#[inline(always)]
#[expect(clippy::too_many_arguments, reason = "the cell's coefficients, its old value and its stencil")]
#[must_use]
pub fn pml_cell(
    c2: f32,
    x: Axis,
    y: Axis,
    aux: &mut [f32; AUX],
    f: f32,
    g: f32,
    up: f32,
    down: f32,
    left: f32,
    right: f32,
) -> f32 {
    let [pu, cu, px0, py0, gx0, gy0] = *aux;
    let m = layer_product;
    let gx = m(down - up, 0.5);
    let gy = m(right - left, 0.5);
    let px = m(x.al, px0) + (m(x.w1, gx) + m(x.w0, gx0));
    let py = m(y.al, py0) + (m(y.w1, gy) + m(y.w0, gy0));
    let dxx = (up + down) - 2.0 * g;
    let dyy = (left + right) - 2.0 * g;
    let ux = m(x.b, (m(c2, dxx - m(x.ds, px)) + m(x.e, cu)) - m(x.a, pu));
    let uy = m(y.b, (m(c2, dyy - m(y.ds, py)) + m(y.e, g - cu)) - m(y.a, f - pu));
    *aux = [cu, ux, px, py, gx, gy];
    ux + uy
}

/// [`pml_cell`] over a span of cells of one material `c2` (`f`, `up`, `down` the span's cells,
/// `g` the span widened by one cell each side, `y` the span's `y` coefficients): the same
/// operations in the same order, lane by lane. Compiled for AVX-512, AVX2 and SSE4.1 like
/// [`crate::sim::wave::update_row`].
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl", "x86_64+avx2+avx", "x86_64+sse4.1"))]
#[expect(clippy::too_many_arguments, reason = "the span's coefficients, planes and stencil")]
fn pml_span(
    c2: f32,
    x: Axis,
    ya: &AxisPlanes,
    y0: usize,
    aux: &mut Planes<'_>,
    f: &mut [f32],
    up: &[f32],
    down: &[f32],
    g: &[f32],
) {
    let n = f.len();
    let (up, down) = (&up[..n], &down[..n]);
    let (left, mid, right) = (&g[..n], &g[1..=n], &g[2..n + 2]);
    let r = y0..y0 + n;
    let (ya_, yb, ye, yds, yal, yw1, yw0) = (
        &ya.a[r.clone()],
        &ya.b[r.clone()],
        &ya.e[r.clone()],
        &ya.ds[r.clone()],
        &ya.al[r.clone()],
        &ya.w1[r.clone()],
        &ya.w0[r],
    );
    let Planes { pu, cu, px, py, gx, gy } = aux;
    let (pu, cu, px, py, gx, gy) = (&mut pu[..n], &mut cu[..n], &mut px[..n], &mut py[..n], &mut gx[..n], &mut gy[..n]);
    for k in 0..n {
        let (p, c, gm) = (pu[k], cu[k], mid[k]);
        let m = layer_product;
        let gxn = m(down[k] - up[k], 0.5);
        let gyn = m(right[k] - left[k], 0.5);
        let pxn = m(x.al, px[k]) + (m(x.w1, gxn) + m(x.w0, gx[k]));
        let pyn = m(yal[k], py[k]) + (m(yw1[k], gyn) + m(yw0[k], gy[k]));
        let dxx = (up[k] + down[k]) - 2.0 * gm;
        let dyy = (left[k] + right[k]) - 2.0 * gm;
        let ux = m(x.b, (m(c2, dxx - m(x.ds, pxn)) + m(x.e, c)) - m(x.a, p));
        let uy = m(yb[k], (m(c2, dyy - m(yds[k], pyn)) + m(ye[k], gm - c)) - m(ya_[k], f[k] - p));
        pu[k] = c;
        cu[k] = ux;
        px[k] = pxn;
        py[k] = pyn;
        gx[k] = gxn;
        gy[k] = gyn;
        f[k] = ux + uy;
    }
}

/// `update` of the layer's cells of interior row `i`: `f_row` row `i` of the field written, the
/// others rows `i-1`, `i`, `i+1` of the one read, `aux` row `i`'s values of [`LayerFields`]. The
/// row's other cells are left as they are (the scene rule does them). Spans of one material run
/// as vector loops (`pml_span`); spans with walls or several media cell by cell ([`pml_cell`]):
/// the same bits.
#[expect(clippy::too_many_arguments, reason = "the grid, the row and its stencil")]
pub fn pml_row<C: LayerCells + ?Sized>(
    cells: &C,
    layer: &Layer,
    i: usize,
    aux: &mut [f32],
    f_row: &mut [f32],
    g_up: &[f32],
    g_mid: &[f32],
    g_down: &[f32],
) {
    let (nx, ny) = cells.size();
    let w = layer.width;
    let x = layer.axis_at(i, nx);
    let ids = cells.row_ids(i);
    let len = aux.len() / AUX;
    let mut planes = Planes::of(aux, len);
    // (first cell, end, first slot)
    let spans: &[(usize, usize, usize)] =
        if layer.full_row(i, nx) { &[(1, ny - 1, 0)] } else { &[(1, w + 1, 0), (ny - 1 - w, ny - 1, w)] };
    for &(j0, j1, s0) in spans {
        let n = j1 - j0;
        let mut span = planes.span(s0, n);
        let id = ids[j0];
        if let Some(c2) = cells.c2(id)
            && ids[j0..j1].iter().all(|&v| v == id)
        {
            let (f, up, down) = (&mut f_row[j0..j1], &g_up[j0..j1], &g_down[j0..j1]);
            pml_span(c2, x, &layer.y, j0, &mut span, f, up, down, &g_mid[j0 - 1..=j1]);
            continue;
        }
        for (k, j) in (j0..j1).enumerate() {
            let mut a = [span.pu[k], span.cu[k], span.px[k], span.py[k], span.gx[k], span.gy[k]];
            if let Some(c2) = cells.c2(ids[j]) {
                let y = layer.y.at(j);
                f_row[j] =
                    pml_cell(c2, x, y, &mut a, f_row[j], g_mid[j], g_up[j], g_down[j], g_mid[j - 1], g_mid[j + 1]);
            } else {
                // A wall: held at 0, its auxiliary values too.
                a = [0.0; AUX];
                f_row[j] = 0.0;
            }
            [span.pu[k], span.cu[k], span.px[k], span.py[k], span.gx[k], span.gy[k]] = a;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::wave::scene::{Boundary, Scene, Wall};
    use crate::sim::wave::scene_cells::{SceneCells, WALL};

    /// The vector spans give [`pml_cell`]'s bits: a full row and a side strip of an open scene
    /// against the cell rule on copies, and a strip with a wall (the cell-by-cell path).
    #[test]
    fn the_vector_span_is_the_cell_rule_bit_for_bit() {
        let (nx, ny) = (70, 90);
        let mut s = Scene::seed(nx, ny, 0.2);
        s.boundary = Boundary::Absorbing;
        s.damping = 0.001;
        s.walls.push(Wall { x0: 40, y0: 0, x1: 40, y1: 3 });
        let cells = SceneCells::new(&s);
        let layer = cells.layer.clone().unwrap();
        let noise = |k: usize, m: usize| ((k * 7919 + m * 104_729) % 1000) as f32 * 1e-3 - 0.5;
        for i in [3, 30, 40] {
            let aux = LayerFields::new(&cells);
            let len = aux.row(i).len() / AUX;
            let mut row_aux: Vec<f32> = (0..AUX * len).map(|k| noise(k, i)).collect();
            let g: Vec<f32> = (0..3 * ny).map(|k| noise(k, 7 + i)).collect();
            let mut f: Vec<f32> = (0..ny).map(|k| noise(k, 13 + i)).collect();
            let (mut want_f, mut want_aux) = (f.clone(), row_aux.clone());
            let (up, mid, down) = (&g[..ny], &g[ny..2 * ny], &g[2 * ny..]);
            pml_row(&cells, &layer, i, &mut row_aux, &mut f, up, mid, down);
            let x = layer.axis_at(i, nx);
            let full = layer.full_row(i, nx);
            let w = layer.width;
            for j in 1..ny - 1 {
                let slot = if full || j <= w {
                    j - 1
                } else if j + 1 + w >= ny {
                    2 * w + j + 1 - ny
                } else {
                    continue;
                };
                let mut a: [f32; AUX] = std::array::from_fn(|p| want_aux[p * len + slot]);
                if cells.ids[i * ny + j] == WALL {
                    a = [0.0; AUX];
                    want_f[j] = 0.0;
                } else {
                    let y = layer.axis_at(j, ny);
                    want_f[j] = pml_cell(0.25, x, y, &mut a, want_f[j], mid[j], up[j], down[j], mid[j - 1], mid[j + 1]);
                }
                for (p, v) in a.into_iter().enumerate() {
                    want_aux[p * len + slot] = v;
                }
            }
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&f), bits(&want_f), "row {i}: the field");
            assert_eq!(bits(&row_aux), bits(&want_aux), "row {i}: the auxiliary values");
            assert!(f.iter().zip(mid).any(|(a, b)| a != b), "row {i} changed");
        }
    }

    /// `x ⊗ y` computed as each kind of device computes it, at a threshold `t`: the CPU's IEEE
    /// product; wgpu's field scaled by 2^24 (threshold `t * 2^24`); a device that flushes
    /// subnormal inputs and results (results flushed before rounding, or after it). The reference
    /// is independent of all of them: the exact product in `f64`, rounded to 24 bits without an
    /// exponent limit, then flushed.
    fn products(x: f32, y: f32, t: f32) -> [f32; 5] {
        let flush = |p: f32| if p.abs() < t { 0.0 } else { p };
        let cpu = flush(x * y);
        let scale = 2f32.powi(24);
        let ps = x * (y * scale);
        let scaled = if ps.abs() < t * scale { 0.0 } else { ps / scale };
        let daz = |v: f32| if v.is_subnormal() { 0.0 } else { v };
        let exact = f64::from(x) * f64::from(daz(y));
        let before = if exact.abs() < f64::from(f32::MIN_POSITIVE) { 0.0 } else { exact as f32 };
        let after = flush(daz(x * daz(y)));
        let big = 2f64.powi(200);
        let rounded = f64::from(((f64::from(x) * f64::from(y)) * big) as f32) / big;
        let reference = if rounded.abs() < f64::from(t) { 0.0 } else { rounded as f32 };
        [reference, cpu, scaled, flush(before), after]
    }

    /// [`layer_product`] is the same on the CPU, on wgpu's scaled fields and on a device that
    /// flushes subnormals, for coefficients up to 2 and values from subnormal to 2^-90, most
    /// near the threshold; and a threshold at the smallest normal (2^-126) would not be: a
    /// product just under it rounds up to it on the CPU's subnormal grid, not on the others.
    #[test]
    fn the_layer_product_is_the_same_on_every_kind_of_device() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let layer = Layer::new(200, 200, 0.001);
        let mut coefs: Vec<f32> = vec![0.5, 0.25, 0.125, 2.0, 1.0, 1.5, 0.75];
        for v in layer.low.iter().chain(&layer.high) {
            coefs.extend([v.a, v.b, v.e, v.ds, v.al, v.w1, v.w0]);
        }
        coefs.retain(|&c| c != 0.0);
        let (mut tried, mut at_two_126) = (0, 0);
        for round in 0..200_000 {
            let x = if round % 2 == 0 {
                coefs[(next() % coefs.len() as u64) as usize]
            } else {
                f32::from_bits(0x3580_0000 + (next() % 0x0880_0000) as u32)
            };
            // y near 2^-125 / x (most), or anywhere from subnormal to 2^-90.
            let y = if round % 4 != 3 {
                let target = 2f32.powi(-125) / x.abs();
                f32::from_bits(target.to_bits().wrapping_add((next() % 64) as u32).wrapping_sub(32))
            } else {
                f32::from_bits((next() % 0x1b00_0000) as u32)
            };
            let y = if next() % 2 == 0 { -y } else { y };
            let x = if next() % 8 == 0 { -x } else { x };
            let got = products(x, y, LAYER_FLUSH);
            let bits = got.map(f32::to_bits);
            assert!(
                bits.iter().all(|&b| b == bits[0]),
                "x {x:e} y {y:e}: reference, cpu, scaled, flush before, flush after = {got:?}"
            );
            assert_eq!(layer_product(x, y).to_bits(), bits[0], "x {x:e} y {y:e}");
            let low = products(x, y, f32::MIN_POSITIVE).map(f32::to_bits);
            if low.iter().any(|&b| b != low[0]) {
                at_two_126 += 1;
            }
            tried += 1;
        }
        assert!(
            at_two_126 > 0,
            "a threshold of 2^-126 agreed on all {tried} products: the test does not reach the window it guards"
        );
    }
}
