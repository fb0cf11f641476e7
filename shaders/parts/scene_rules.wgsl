// The scene's cell rules, shared by the one-update scene kernel (shaders/wave_scene.wgsl) and the
// temporally blocked one (shaders/wave_scene_blocked.wgsl), spliced in after wave_cell.wgsl
// (`exact`); they bring `grid_product` (shaders/parts/grid_product.wgsl). CPU twins:
// `scene_update_cell` in src/sim/wave/scene_cells.rs and `pml_cell` in src/sim/wave/pml.rs; the
// same operations in the same order, each rounded on its own as the CPU rounds it.

//#include grid_product.wgsl

// A wall's material id; words per `Material` (c2, a, b, mur, edge) and per layer `Axis`; values
// per layer cell (`AUX` in src/sim/wave/pml.rs).
const WALL: u32 = 0xffffu;
const MAT: u32 = 5u;
const AXIS: u32 = 7u;
const AUX: u32 = 6u;

// One interior cell with material (c2, a, b), in the CPU's order, each operation rounded on its
// own: s = ((up + down) + left) + right; t = s - 4g; b * ((c2*t + 2g) - a*old), every product
// rounded once as the CPU rounds it (`grid_product`). With a = b = 1 and c2 = 0.25 this is
// `update_cell` bit for bit.
fn scene_cell(c2: f32, a: f32, b: f32, old: f32, mid: f32, up: f32, down: f32, left: f32, right: f32) -> f32 {
    let sum = exact(exact(exact(up + down) + left) + right);
    let t = exact(sum - exact(4.0 * mid));
    let x = exact(exact(grid_product(c2, t) + exact(2.0 * mid)) - grid_product(a, old));
    return grid_product(b, x);
}

// Where the `Axis` of index k of an axis of n cells starts in the layer's table (`Layer::axis_at`:
// low[0..=w], then high[0..=w]).
fn axis_base(k: u32, n: u32, w: u32) -> u32 {
    if k <= w {
        return AXIS * (w + 1u - k);
    }
    if k + 1u + w >= n {
        return AXIS * (w + 1u + (w + 2u + k - n));
    }
    return 0u;
}

// The matched layer's coefficients of one level along one axis (`Axis`).
struct Coef {
    a: f32,
    b: f32,
    e: f32,
    ds: f32,
    al: f32,
    w1: f32,
    w0: f32,
}

// A layer cell's auxiliary values: `ux` of the previous and current level, `phix`, `phiy`, and the
// last update's differences `gx`, `gy`.
struct Aux {
    pu: f32,
    cu: f32,
    px: f32,
    py: f32,
    gx: f32,
    gy: f32,
}

// A layer cell's new value and auxiliary values.
struct Pml {
    v: f32,
    aux: Aux,
}

// The layer's product `x ⊗ y` (`layer_product` in src/sim/wave/pml.rs): the product, or 0 where
// its magnitude is below 2^-125 (2^-101 at the field's scale 2^24). Scaled, the product is
// normal and rounded to 24 bits as the CPU rounds any product of 2^-126 and up; one the CPU would
// round to its subnormal grid is under the threshold on both. No tie, no branch: the layer's
// rule ran 81.8 µs an update with `grid_product`, 70.4 with this (4096², H100, stop 36).
fn layer_product(x: f32, y: f32) -> f32 {
    let p = exact(x * y);
    return select(p, 0.0f, abs(p) < 0x1p-101f);
}

// One non-wall cell of the matched layer (`pml_cell`): material `c2`, coefficients `x` (its row's
// level) and `y` (its column's), auxiliary values `q`, old value `old`, stencil of the field read.
fn pml_rule(c2: f32, x: Coef, y: Coef, q: Aux, old: f32, mid: f32, up: f32, down: f32, left: f32, right: f32) -> Pml {
    let gx = layer_product(exact(down - up), 0.5);
    let gy = layer_product(exact(right - left), 0.5);
    let px = exact(layer_product(x.al, q.px) + exact(layer_product(x.w1, gx) + layer_product(x.w0, q.gx)));
    let py = exact(layer_product(y.al, q.py) + exact(layer_product(y.w1, gy) + layer_product(y.w0, q.gy)));
    let dxx = exact(exact(up + down) - exact(2.0 * mid));
    let dyy = exact(exact(left + right) - exact(2.0 * mid));
    let tx = exact(exact(layer_product(c2, exact(dxx - layer_product(x.ds, px))) + layer_product(x.e, q.cu)) - layer_product(x.a, q.pu));
    let ux = layer_product(x.b, tx);
    let ty = exact(exact(layer_product(c2, exact(dyy - layer_product(y.ds, py))) + layer_product(y.e, exact(mid - q.cu))) - layer_product(y.a, exact(old - q.pu)));
    let uy = layer_product(y.b, ty);
    return Pml(exact(ux + uy), Aux(q.cu, ux, px, py, gx, gy));
}

// Where the auxiliary values of layer cell (i, j) start in `LayerFields` (row by row: a row in the
// layer from side to side holds its ny - 2 interior cells, any other its 2w cells at the ends;
// within a row one plane per value), and the row's plane length.
fn aux_at(i: u32, j: u32, nx: u32, ny: u32, w: u32) -> vec2<u32> {
    let full = i <= w || i + 1u + w >= nx;
    var start: u32;
    if i <= w {
        start = (i - 1u) * (ny - 2u);
    } else if i + 1u + w < nx {
        start = w * (ny - 2u) + (i - 1u - w) * 2u * w;
    } else {
        start = w * (ny - 2u) + (nx - 2u - 2u * w) * 2u * w + (i - (nx - 1u - w)) * (ny - 2u);
    }
    var len = 2u * w;
    var slot = 2u * w + j + 1u - ny;
    if full {
        len = ny - 2u;
    }
    if full || j <= w {
        slot = j - 1u;
    }
    return vec2<u32>(AUX * start + slot, len);
}
