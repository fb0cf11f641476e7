// The wave update of a scene (walls, media, damping, an absorbing sponge, several sources): one
// half time step `update(f, g)` with a material per cell, in the `simple` shape (one update per
// dispatch), and the forced cells written before each time step.
//
// CPU twin: `scene_update_cell` / `scene_update` in src/sim/scene_cells.rs (run by
// src/backend/cpu/wave_scene.rs); CUDA twin: `wave_scene_update` / `wave_scene_sources` in
// kernels/wave_scene.cu. Fields are row-major `f[i*ny + j]` and held times 2^24 (`FIELD_SCALE`,
// src/backend/wgpu/field.rs), as in shaders/wave.wgsl. The matched layer's cells (`layer_cell`) are
// the twin of `pml_cell` in src/sim/wave/pml.rs (no CUDA twin yet).

struct SceneStep {
    nx: u32,
    ny: u32,
    // Always 0: see `exact`.
    opaque: u32,
    // Forced cells, and where this time step's source values start in `values`.
    n_forced: u32,
    value_base: u32,
    // The matched layer's width (0: none).
    layer_w: u32,
    _pad1: u32,
    _pad2: u32,
}

// One record per time step, selected with a dynamic offset.
@group(0) @binding(0) var<uniform> step: SceneStep;
// The field written: `f` of update(f, g), or `g` for the forced cells.
@group(0) @binding(1) var<storage, read_write> f: array<f32>;
@group(0) @binding(2) var<storage, read> g: array<f32>;
// Material ids, two u16 per word (the lower half first); 0xffff is a wall.
@group(0) @binding(3) var<storage, read> ids: array<u32>;
// `Material` per id (src/sim/scene_cells.rs): c2, a, b, mur, edge (u32 bits); MAT words each.
@group(0) @binding(4) var<storage, read> materials: array<f32>;
// (cell, source) per forced cell.
@group(0) @binding(5) var<storage, read> forced: array<u32>;
// The scaled value of each source at each step of a batch, as bits; 0xffffffff: not forcing.
@group(0) @binding(6) var<storage, read> values: array<u32>;
// The matched layer's auxiliary values (src/sim/wave/pml.rs `LayerFields`, scaled like the fields):
// row by row, AUX planes of the row's layer cells each.
@group(0) @binding(7) var<storage, read_write> aux: array<f32>;
// The layer's `Axis` coefficients: low[0..=w], then high[0..=w], AXIS words each.
@group(0) @binding(8) var<storage, read> layer: array<f32>;

fn opaque() -> u32 {
    return step.opaque;
}

//#include wave_cell.wgsl

//#include scene_rules.wgsl

fn material_id(idx: u32) -> u32 {
    let w = ids[idx >> 1u];
    return select(w & 0xffffu, w >> 16u, (idx & 1u) == 1u);
}

fn coef(k: u32) -> Coef {
    return Coef(layer[k], layer[k + 1u], layer[k + 2u], layer[k + 3u], layer[k + 4u], layer[k + 5u], layer[k + 6u]);
}

// One cell of the matched layer (`pml_rule`), its auxiliary values read and written in place.
fn layer_cell(i: u32, j: u32, idx: u32, c2: f32) {
    let nx = step.nx;
    let ny = step.ny;
    let w = step.layer_w;
    let at = aux_at(i, j, nx, ny, w);
    let base = at.x;
    let len = at.y;
    let q = Aux(aux[base], aux[base + len], aux[base + 2u * len], aux[base + 3u * len], aux[base + 4u * len], aux[base + 5u * len]);
    let x = coef(axis_base(i, nx, w));
    let y = coef(axis_base(j, ny, w));
    let out = pml_rule(c2, x, y, q, f[idx], g[idx], g[idx - ny], g[idx + ny], g[idx - 1u], g[idx + 1u]);
    aux[base] = out.aux.pu;
    aux[base + len] = out.aux.cu;
    aux[base + 2u * len] = out.aux.px;
    aux[base + 3u * len] = out.aux.py;
    aux[base + 4u * len] = out.aux.gx;
    aux[base + 5u * len] = out.aux.gy;
    f[idx] = out.v;
}

@compute @workgroup_size(32, 8, 1)
fn wave_scene_update(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let i = gid.y;
    let nx = step.nx;
    let ny = step.ny;
    if i < 1u || j < 1u || i + 1u >= nx || j + 1u >= ny {
        return;
    }
    let idx = i * ny + j;
    let id = material_id(idx);
    if id == WALL {
        f[idx] = 0.0;
        return;
    }
    let m = MAT * id;
    let w = step.layer_w;
    if w > 0u && (i <= w || j <= w || i + 1u + w >= nx || j + 1u + w >= ny) {
        layer_cell(i, j, idx, materials[m]);
        return;
    }
    if bitcast<u32>(materials[m + 4u]) != 0u {
        // An absorbing-edge cell: `wave_scene_edges`, after this pass.
        return;
    }
    f[idx] = scene_cell(materials[m], materials[m + 1u], materials[m + 2u], f[idx], g[idx], g[idx - ny], g[idx + ny], g[idx - 1u], g[idx + 1u]);
}

// The absorbing edge (Mur's first-order condition), after `wave_scene_update` of the same update:
// the ring of cells next to the border, one invocation each (2*(ny-2) + 2*(nx-2)). An edge cell
// looking at neighbour n: f = g[n] + mur * (f_new[n] - g), with f_new[n] already written.
@compute @workgroup_size(64, 1, 1)
fn wave_scene_edges(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    let nx = step.nx;
    let ny = step.ny;
    let ri = nx - 2u;
    let rj = ny - 2u;
    var i: u32;
    var j: u32;
    if k < rj {
        i = 1u;
        j = 1u + k;
    } else if k < 2u * rj {
        i = nx - 2u;
        j = 1u + (k - rj);
    } else if k < 2u * rj + ri {
        i = 1u + (k - 2u * rj);
        j = 1u;
    } else if k < 2u * rj + 2u * ri {
        i = 1u + (k - 2u * rj - ri);
        j = ny - 2u;
    } else {
        return;
    }
    let idx = i * ny + j;
    let id = material_id(idx);
    if id == WALL {
        return;
    }
    let m = MAT * id;
    let edge = bitcast<u32>(materials[m + 4u]);
    var n: u32;
    switch edge {
        case 1u: { n = idx + ny; }
        case 2u: { n = idx - ny; }
        case 3u: { n = idx + 1u; }
        case 4u: { n = idx - 1u; }
        default: { return; }
    }
    f[idx] = exact(g[n] + grid_product(materials[m + 3u], exact(f[n] - g[idx])));
}

// The forced cells of one time step, into the field bound as `f` (the step's `g`).
@compute @workgroup_size(64, 1, 1)
fn wave_scene_sources(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if k >= step.n_forced {
        return;
    }
    let bits = values[step.value_base + forced[2u * k + 1u]];
    if bits != 0xffffffffu {
        f[forced[2u * k]] = bitcast<f32>(bits);
    }
}
