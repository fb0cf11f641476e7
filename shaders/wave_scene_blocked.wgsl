// Temporal blocking for scenes: the `blocked` scene variant (`WaveVariant::Blocked` of a scene on
// wgpu), up to K/2 whole time steps (K updates) per dispatch on the tiles of
// shaders/wave_blocked_workgroup.wgsl (the plain kernel wgpu runs on GPUs, `auto`), in the scheme of
// CUDA's `wave_scene_steps` (kernels/wave_scene.cu): the host sorts the tiles by what they hold
// (src/backend/wgpu/wave_scene_blocked.rs, `TileKinds`) and runs two dispatches, `scene_mixed` over
// the general tiles then the plain ones (the kind is the workgroup's) and `scene_layer` over the
// layer tiles, all reading (f_in, g_in) and writing (f_out, g_out):
// - plain tiles (`plain_tile`): every interior cell of the tile (halo included) has one material, undamped, not
//   an absorbing-edge or layer cell, with a power-of-two c2 (0.25 in the open medium of most
//   scenes, 0.125 in the budget's lens) and no forced cell: the plain kernel's code, `update_cell`
//   with that c2 (exact for a power of two: `cpu_product`), the same bits as the scene rule;
// - general tiles (`general_tile`): walls, media, damping, forced cells and Mur's absorbing edge, each cell's
//   material id held in registers and its (c2, a, b) from the table, the scene rule
//   (`scene_cell`, every product `grid_product`); tiles on an absorbing edge add an exchange of
//   the new values of the lines the edge cells look at (`mur_rows`, `mur_cols`) and a third
//   barrier per update. Where every cell but walls and edge cells has one plain material (the
//   tile list's second word; most of Mur's edge ring, walls in the open medium, plain tiles
//   with forced cells) the plain rule runs instead of the scene rule: the same bits, walls 0,
//   and an edge cell's value is Mur's anyway;
// - `scene_layer`: tiles that hold cells of a matched layer: as the general tiles (no Mur edge exists
//   with a layer), the layer's cells by `pml_rule` with their six auxiliary values in a per-tile
//   scratch buffer while the dispatch runs, read from `aux_in` and written to `aux_out` (the host
//   alternates two buffers like the fields).
//
// CPU twin: `scene_reference_run` in src/sim/wave/scene_cells.rs; one-update twin: wave_scene.wgsl.
//
// A 64x4 workgroup owns a TJ x TI = 64 x 64 tile of both fields: each invocation keeps a column of
// R = 16 cells of each in registers; the tile is the output block (OI x OI = 48 x 48; less for
// an axis' middle tile, `tile_first`) plus a halo of K = 8 cells, and the region that is still
// right shrinks by one cell per update from every tile edge inside the grid. Mur's edge cells
// read their neighbour's new value, so their value reaches two cells along one axis in one
// update: where an edge line `nx-2` (`ny-2`) is a tile's first output row (column), the host runs
// at most (K-2)/2 steps per dispatch (as CUDA does).
// Cells outside the grid and the grid's border are never updated.
//
// Each step first writes the forced cells of the tile (halo included) into g from this dispatch's
// source values, in the order of `Scene::source_cells`, then runs update(f, g) and update(g, f).

const R: u32 = 16u;
const WY: u32 = 4u;
const TI: u32 = 64u;
const TJ: u32 = 64u;
const K: i32 = 8;
// The output block's side (the middle tile of an axis outputs less: `tile_end`).
const OI: i32 = 48;
// Workgroups along x of a dispatch at most; a longer list of tiles takes rows of them.
const ROW: u32 = 32768u;
const NOT_FORCING: u32 = 0xffffffffu;
// A general tile's second word: its cells but walls and edge cells hold several undamped
// materials with power-of-two c2 (`OWN_C2` in src/backend/wgpu/wave_scene_blocked.rs).
const OWN_C2: u32 = 0xfffeu;

// One dispatch's parameters (`SceneSteps` in src/backend/wgpu/wave_scene_blocked.rs); the offsets
// are words of `table`.
struct SceneSteps {
    nx: u32,
    ny: u32,
    // Always 0: see `exact`.
    opaque: u32,
    // Time steps in this dispatch.
    nsteps: u32,
    // This dispatch's source values: nsteps x sources words (bits; NOT_FORCING: not forcing).
    value_base: u32,
    sources: u32,
    // Tiles per row of the grid, and where the tiles' forced-cell ranges start.
    tiles_x: u32,
    offsets: u32,
    // Each kind's list of tiles (two words a tile: (tile row << 16) | tile column, material id)
    // and its length.
    plain: u32,
    n_plain: u32,
    general: u32,
    n_general: u32,
    layered: u32,
    n_layered: u32,
    // The matched layer's `Axis` table and width (0: none).
    axes: u32,
    layer_w: u32,
    // 1 where the scene has Mur's absorbing edge.
    mur: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> steps: SceneSteps;
@group(0) @binding(1) var<storage, read> f_in: array<f32>;
@group(0) @binding(2) var<storage, read> g_in: array<f32>;
@group(0) @binding(3) var<storage, read_write> f_out: array<f32>;
@group(0) @binding(4) var<storage, read_write> g_out: array<f32>;
// Material ids, two u16 per word (the lower half first); 0xffff is a wall.
@group(0) @binding(5) var<storage, read> ids: array<u32>;
// The material table (`Material`, MAT words each, from word 0), the layer's `Axis` table, the tile
// lists, the forced-cell ranges per tile and entries ((place in the tile << 16) | source), and
// the source values of one submission: one buffer, so that the kernel needs 8 storage buffers.
@group(0) @binding(6) var<storage, read> table: array<u32>;
// The matched layer's auxiliary values (`LayerFields`, scaled like the fields), read and written.
@group(0) @binding(7) var<storage, read> aux_in: array<f32>;
@group(0) @binding(8) var<storage, read_write> aux_out: array<f32>;

// One field of the tile, for the neighbours (16 KiB).
var<workgroup> tile: array<f32, 4096>;
// Mur's edge: the new values of the lines the edge cells look at: rows i = 2 and nx-3 by tile
// column, columns j = 2 and ny-3 by tile row (1 KiB, general tiles only).
var<workgroup> mur_rows: array<f32, 128>;
var<workgroup> mur_cols: array<f32, 128>;

fn opaque() -> u32 {
    return steps.opaque;
}

//#include wave_cell.wgsl

//#include scene_rules.wgsl

//#include scene_blocked_tile.wgsl

// ---- Plain tiles: the plain kernel's rule with the tile's c2 ----

fn plain_row(c2: f32, old: f32, mid: f32, up: f32, down: f32, at: u32, tx: u32, update: bool) -> f32 {
    // Values past the tile are never in the right region; any finite value does.
    var left = 0.0f;
    var right = 0.0f;
    if tx > 0u {
        left = tile[at - 1u];
    }
    if tx + 1u < TJ {
        right = tile[at + 1u];
    }
    return select(old, update_cell(c2, old, mid, up, down, left, right), update);
}

// update(a, b) on the invocation's column; rows whose bit is clear in `mask` keep their value.
fn plain_half(c2: f32, a: array<f32, R>, b: array<f32, R>, tx: u32, ty: u32, mask: u32) -> array<f32, R> {
    let base = ty * R * TJ + tx;
    tile[base + 0u * TJ] = b[0];
    tile[base + 1u * TJ] = b[1];
    tile[base + 2u * TJ] = b[2];
    tile[base + 3u * TJ] = b[3];
    tile[base + 4u * TJ] = b[4];
    tile[base + 5u * TJ] = b[5];
    tile[base + 6u * TJ] = b[6];
    tile[base + 7u * TJ] = b[7];
    tile[base + 8u * TJ] = b[8];
    tile[base + 9u * TJ] = b[9];
    tile[base + 10u * TJ] = b[10];
    tile[base + 11u * TJ] = b[11];
    tile[base + 12u * TJ] = b[12];
    tile[base + 13u * TJ] = b[13];
    tile[base + 14u * TJ] = b[14];
    tile[base + 15u * TJ] = b[15];
    workgroupBarrier();
    var above = 0.0f;
    var below = 0.0f;
    if ty > 0u {
        above = tile[base - TJ];
    }
    if ty + 1u < WY {
        below = tile[base + R * TJ];
    }
    let out = array<f32, R>(
        plain_row(c2, a[0], b[0], above, b[1], base + 0u * TJ, tx, (mask & 0x1u) != 0u),
        plain_row(c2, a[1], b[1], b[0], b[2], base + 1u * TJ, tx, (mask & 0x2u) != 0u),
        plain_row(c2, a[2], b[2], b[1], b[3], base + 2u * TJ, tx, (mask & 0x4u) != 0u),
        plain_row(c2, a[3], b[3], b[2], b[4], base + 3u * TJ, tx, (mask & 0x8u) != 0u),
        plain_row(c2, a[4], b[4], b[3], b[5], base + 4u * TJ, tx, (mask & 0x10u) != 0u),
        plain_row(c2, a[5], b[5], b[4], b[6], base + 5u * TJ, tx, (mask & 0x20u) != 0u),
        plain_row(c2, a[6], b[6], b[5], b[7], base + 6u * TJ, tx, (mask & 0x40u) != 0u),
        plain_row(c2, a[7], b[7], b[6], b[8], base + 7u * TJ, tx, (mask & 0x80u) != 0u),
        plain_row(c2, a[8], b[8], b[7], b[9], base + 8u * TJ, tx, (mask & 0x100u) != 0u),
        plain_row(c2, a[9], b[9], b[8], b[10], base + 9u * TJ, tx, (mask & 0x200u) != 0u),
        plain_row(c2, a[10], b[10], b[9], b[11], base + 10u * TJ, tx, (mask & 0x400u) != 0u),
        plain_row(c2, a[11], b[11], b[10], b[12], base + 11u * TJ, tx, (mask & 0x800u) != 0u),
        plain_row(c2, a[12], b[12], b[11], b[13], base + 12u * TJ, tx, (mask & 0x1000u) != 0u),
        plain_row(c2, a[13], b[13], b[12], b[14], base + 13u * TJ, tx, (mask & 0x2000u) != 0u),
        plain_row(c2, a[14], b[14], b[13], b[15], base + 14u * TJ, tx, (mask & 0x4000u) != 0u),
        plain_row(c2, a[15], b[15], b[14], below, base + 15u * TJ, tx, (mask & 0x8000u) != 0u)
    );
    // Everyone has read `tile` before the next half step overwrites it.
    workgroupBarrier();
    return out;
}

// A plain tile `t` (from `tile_at`) on the workgroup of invocation `lid`.
fn plain_tile(t: vec3<u32>, lid: vec3<u32>) {
    let c2 = word_f32(MAT * t.z);
    let tx = lid.x;
    let ty = lid.y;
    let ti0 = ty * R;
    let corner = enter_tile(t);
    let i0 = corner.x + i32(ti0);
    let j = corner.y + i32(tx);
    var f = column_f(i0, j);
    var g = column_g(i0, j);
    let mask = interior_mask(i0, j);
    for (var s = 0u; s < steps.nsteps; s++) {
        f = plain_half(c2, f, g, tx, ty, mask);
        g = plain_half(c2, g, f, tx, ty, mask);
    }
    store_column(i0, ti0, tx, j, f, g);
}
// ---- General tiles: walls, media, damping, forced cells, Mur's edge ----

// One cell by the scene rule with material `id` (a wall: 0); where `update` is false (the border,
// outside the grid) the cell keeps its value. An absorbing-edge cell gets its value by Mur's rule
// after this (`mur_cell`).
fn general_row(old: f32, mid: f32, up: f32, down: f32, at: u32, tx: u32, id: u32, update: bool) -> f32 {
    // Values past the tile are never in the right region; any finite value does.
    var left = 0.0f;
    var right = 0.0f;
    if tx > 0u {
        left = tile[at - 1u];
    }
    if tx + 1u < TJ {
        right = tile[at + 1u];
    }
    if !update {
        return old;
    }
    if id == WALL {
        return 0.0f;
    }
    let m = MAT * id;
    return scene_cell(word_f32(m), word_f32(m + 1u), word_f32(m + 2u), old, mid, up, down, left, right);
}

// Mur's rule for an absorbing-edge cell (`edge`) at tile row `row`, column tx: g_n + mur*(f_n - g),
// with g_n its neighbour's old value (still in `tile`) and f_n its new one (`mur_rows`/`mur_cols`);
// any other cell keeps `v`. Reads past the tile are clamped: such a cell is never right.
fn mur_cell(v: f32, mid: f32, id: u32, row: u32, tx: u32, edge: bool) -> f32 {
    if !edge {
        return v;
    }
    let m = MAT * id;
    let at = row * TJ + tx;
    var gn: f32;
    var fn_new: f32;
    switch table[m + 4u] {
        case 1u: {
            gn = tile[min(at + TJ, TI * TJ - 1u)];
            fn_new = mur_rows[tx];
        }
        case 2u: {
            gn = tile[max(at, TJ) - TJ];
            fn_new = mur_rows[TJ + tx];
        }
        case 3u: {
            gn = tile[min(at + 1u, TI * TJ - 1u)];
            fn_new = mur_cols[row];
        }
        default: {
            gn = tile[max(at, 1u) - 1u];
            fn_new = mur_cols[TI + row];
        }
    }
    return exact(gn + grid_product(word_f32(m + 3u), exact(fn_new - mid)));
}

// 1 where material `id` is an absorbing-edge cell's.
fn edge_bit(id: u32) -> u32 {
    if id == WALL {
        return 0u;
    }
    return select(0u, 1u, table[MAT * id + 4u] != 0u);
}

// The plain rule for a cell of a general tile whose cells but walls and edge cells share one
// plain material: a wall cell that is updated gets 0, as `general_row` gives it.
fn plain_wall(c2: f32, old: f32, mid: f32, up: f32, down: f32, at: u32, tx: u32, update: bool, id: u32) -> f32 {
    return select(plain_row(c2, old, mid, up, down, at, tx, update), 0.0f, update && id == WALL);
}

// The c2 a general tile's cell takes the plain rule with: the tile's one material's (`pc2` > 0,
// uniform), or its own where the tile's materials are several (`OWN_C2`, `pc2` < 0); a wall 0.
fn row_c2(pc2: f32, id: u32) -> f32 {
    if pc2 > 0.0 {
        return pc2;
    }
    if id == WALL {
        return 0.0f;
    }
    return word_f32(MAT * id);
}

// update(a, b) on the invocation's column (grid rows i0.., column j), material ids `cell_ids`;
// with `edges` (uniform: the tile holds absorbing-edge lines) the rows in `edge_bits` then take
// Mur's rule.
fn general_half(pc2: f32, a: array<f32, R>, b: array<f32, R>, cell_ids: array<u32, R>, tx: u32, ty: u32, mask: u32, edge_bits: u32, edges: bool, i0: i32, j: i32) -> array<f32, R> {
    let base = ty * R * TJ + tx;
    tile[base + 0u * TJ] = b[0];
    tile[base + 1u * TJ] = b[1];
    tile[base + 2u * TJ] = b[2];
    tile[base + 3u * TJ] = b[3];
    tile[base + 4u * TJ] = b[4];
    tile[base + 5u * TJ] = b[5];
    tile[base + 6u * TJ] = b[6];
    tile[base + 7u * TJ] = b[7];
    tile[base + 8u * TJ] = b[8];
    tile[base + 9u * TJ] = b[9];
    tile[base + 10u * TJ] = b[10];
    tile[base + 11u * TJ] = b[11];
    tile[base + 12u * TJ] = b[12];
    tile[base + 13u * TJ] = b[13];
    tile[base + 14u * TJ] = b[14];
    tile[base + 15u * TJ] = b[15];
    workgroupBarrier();
    var above = 0.0f;
    var below = 0.0f;
    if ty > 0u {
        above = tile[base - TJ];
    }
    if ty + 1u < WY {
        below = tile[base + R * TJ];
    }
    // A tile whose cells but walls and edge cells share one plain material (`pc2` its c2,
    // uniform), or take the plain rule each with its own c2 (`OWN_C2`, `pc2` < 0: the ids are the
    // column's, in registers, where the loop below read each row's id from memory; stop 42):
    // the plain rule, the same bits; walls 0; the edge cells' value is Mur's below.
    var out: array<f32, R>;
    if pc2 != 0.0 {
    out = array<f32, R>(
            plain_wall(row_c2(pc2, cell_ids[0]), a[0], b[0], above, b[1], base + 0u * TJ, tx, (mask & 0x1u) != 0u, cell_ids[0]),
            plain_wall(row_c2(pc2, cell_ids[1]), a[1], b[1], b[0], b[2], base + 1u * TJ, tx, (mask & 0x2u) != 0u, cell_ids[1]),
            plain_wall(row_c2(pc2, cell_ids[2]), a[2], b[2], b[1], b[3], base + 2u * TJ, tx, (mask & 0x4u) != 0u, cell_ids[2]),
            plain_wall(row_c2(pc2, cell_ids[3]), a[3], b[3], b[2], b[4], base + 3u * TJ, tx, (mask & 0x8u) != 0u, cell_ids[3]),
            plain_wall(row_c2(pc2, cell_ids[4]), a[4], b[4], b[3], b[5], base + 4u * TJ, tx, (mask & 0x10u) != 0u, cell_ids[4]),
            plain_wall(row_c2(pc2, cell_ids[5]), a[5], b[5], b[4], b[6], base + 5u * TJ, tx, (mask & 0x20u) != 0u, cell_ids[5]),
            plain_wall(row_c2(pc2, cell_ids[6]), a[6], b[6], b[5], b[7], base + 6u * TJ, tx, (mask & 0x40u) != 0u, cell_ids[6]),
            plain_wall(row_c2(pc2, cell_ids[7]), a[7], b[7], b[6], b[8], base + 7u * TJ, tx, (mask & 0x80u) != 0u, cell_ids[7]),
            plain_wall(row_c2(pc2, cell_ids[8]), a[8], b[8], b[7], b[9], base + 8u * TJ, tx, (mask & 0x100u) != 0u, cell_ids[8]),
            plain_wall(row_c2(pc2, cell_ids[9]), a[9], b[9], b[8], b[10], base + 9u * TJ, tx, (mask & 0x200u) != 0u, cell_ids[9]),
            plain_wall(row_c2(pc2, cell_ids[10]), a[10], b[10], b[9], b[11], base + 10u * TJ, tx, (mask & 0x400u) != 0u, cell_ids[10]),
            plain_wall(row_c2(pc2, cell_ids[11]), a[11], b[11], b[10], b[12], base + 11u * TJ, tx, (mask & 0x800u) != 0u, cell_ids[11]),
            plain_wall(row_c2(pc2, cell_ids[12]), a[12], b[12], b[11], b[13], base + 12u * TJ, tx, (mask & 0x1000u) != 0u, cell_ids[12]),
            plain_wall(row_c2(pc2, cell_ids[13]), a[13], b[13], b[12], b[14], base + 13u * TJ, tx, (mask & 0x2000u) != 0u, cell_ids[13]),
            plain_wall(row_c2(pc2, cell_ids[14]), a[14], b[14], b[13], b[15], base + 14u * TJ, tx, (mask & 0x4000u) != 0u, cell_ids[14]),
            plain_wall(row_c2(pc2, cell_ids[15]), a[15], b[15], b[14], below, base + 15u * TJ, tx, (mask & 0x8000u) != 0u, cell_ids[15])
        );
    } else {
        // The scene rule row by row in a loop: its products' tie path is long, and written out
        // for 16 rows it measured slower (docs/PERFORMANCE.md). The old column turns into the new
        // one as the rows go (each row's old value and id at the front, its new value at the
        // back), as in the layer tiles' loop: no index is the loop's, so no select chains.
        var c = a;
        var ids = cell_ids;
        for (var r = 0u; r < R; r++) {
            let at = base + r * TJ;
            let ud = vertical(at, r, above, below);
            let v = general_row(c[0], tile[at], ud.x, ud.y, at, tx, ids[0], (mask & (1u << r)) != 0u);
            c = array<f32, R>(c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15], v);
            ids = array<u32, R>(ids[1], ids[2], ids[3], ids[4], ids[5], ids[6], ids[7], ids[8], ids[9], ids[10], ids[11], ids[12], ids[13], ids[14], ids[15], ids[0]);
        }
        out = c;
    }
    if edges {
        // The new values of the lines the edge cells look at: j = 2, ny-3 and i = 2, nx-3.
        let ny = i32(steps.ny);
        let nx = i32(steps.nx);
        if j == 2 {
            mur_cols[ty * R + 0u] = out[0];
            mur_cols[ty * R + 1u] = out[1];
            mur_cols[ty * R + 2u] = out[2];
            mur_cols[ty * R + 3u] = out[3];
            mur_cols[ty * R + 4u] = out[4];
            mur_cols[ty * R + 5u] = out[5];
            mur_cols[ty * R + 6u] = out[6];
            mur_cols[ty * R + 7u] = out[7];
            mur_cols[ty * R + 8u] = out[8];
            mur_cols[ty * R + 9u] = out[9];
            mur_cols[ty * R + 10u] = out[10];
            mur_cols[ty * R + 11u] = out[11];
            mur_cols[ty * R + 12u] = out[12];
            mur_cols[ty * R + 13u] = out[13];
            mur_cols[ty * R + 14u] = out[14];
            mur_cols[ty * R + 15u] = out[15];
        }
        if j == ny - 3 {
            mur_cols[TI + ty * R + 0u] = out[0];
            mur_cols[TI + ty * R + 1u] = out[1];
            mur_cols[TI + ty * R + 2u] = out[2];
            mur_cols[TI + ty * R + 3u] = out[3];
            mur_cols[TI + ty * R + 4u] = out[4];
            mur_cols[TI + ty * R + 5u] = out[5];
            mur_cols[TI + ty * R + 6u] = out[6];
            mur_cols[TI + ty * R + 7u] = out[7];
            mur_cols[TI + ty * R + 8u] = out[8];
            mur_cols[TI + ty * R + 9u] = out[9];
            mur_cols[TI + ty * R + 10u] = out[10];
            mur_cols[TI + ty * R + 11u] = out[11];
            mur_cols[TI + ty * R + 12u] = out[12];
            mur_cols[TI + ty * R + 13u] = out[13];
            mur_cols[TI + ty * R + 14u] = out[14];
            mur_cols[TI + ty * R + 15u] = out[15];
        }
        let r2 = 2 - i0;
        if r2 >= 0 && r2 < i32(R) {
            mur_rows[tx] = row_value(out, u32(r2));
        }
        let r3 = nx - 3 - i0;
        if r3 >= 0 && r3 < i32(R) {
            mur_rows[TJ + tx] = row_value(out, u32(r3));
        }
    }
    // Everyone has read `tile` (and written the lines) before it changes.
    workgroupBarrier();
    if !edges {
        return out;
    }
    let edged = array<f32, R>(
        mur_cell(out[0], b[0], cell_ids[0], ty * R + 0u, tx, (edge_bits & 0x1u) != 0u),
        mur_cell(out[1], b[1], cell_ids[1], ty * R + 1u, tx, (edge_bits & 0x2u) != 0u),
        mur_cell(out[2], b[2], cell_ids[2], ty * R + 2u, tx, (edge_bits & 0x4u) != 0u),
        mur_cell(out[3], b[3], cell_ids[3], ty * R + 3u, tx, (edge_bits & 0x8u) != 0u),
        mur_cell(out[4], b[4], cell_ids[4], ty * R + 4u, tx, (edge_bits & 0x10u) != 0u),
        mur_cell(out[5], b[5], cell_ids[5], ty * R + 5u, tx, (edge_bits & 0x20u) != 0u),
        mur_cell(out[6], b[6], cell_ids[6], ty * R + 6u, tx, (edge_bits & 0x40u) != 0u),
        mur_cell(out[7], b[7], cell_ids[7], ty * R + 7u, tx, (edge_bits & 0x80u) != 0u),
        mur_cell(out[8], b[8], cell_ids[8], ty * R + 8u, tx, (edge_bits & 0x100u) != 0u),
        mur_cell(out[9], b[9], cell_ids[9], ty * R + 9u, tx, (edge_bits & 0x200u) != 0u),
        mur_cell(out[10], b[10], cell_ids[10], ty * R + 10u, tx, (edge_bits & 0x400u) != 0u),
        mur_cell(out[11], b[11], cell_ids[11], ty * R + 11u, tx, (edge_bits & 0x800u) != 0u),
        mur_cell(out[12], b[12], cell_ids[12], ty * R + 12u, tx, (edge_bits & 0x1000u) != 0u),
        mur_cell(out[13], b[13], cell_ids[13], ty * R + 13u, tx, (edge_bits & 0x2000u) != 0u),
        mur_cell(out[14], b[14], cell_ids[14], ty * R + 14u, tx, (edge_bits & 0x4000u) != 0u),
        mur_cell(out[15], b[15], cell_ids[15], ty * R + 15u, tx, (edge_bits & 0x8000u) != 0u)
    );
    // Everyone has read `tile` and the lines before the next half step overwrites them.
    workgroupBarrier();
    return edged;
}

// A general tile `t` (from `tile_at`) on the workgroup of invocation `lid`.
fn general_tile(t: vec3<u32>, lid: vec3<u32>) {
    let tx = lid.x;
    let ty = lid.y;
    let ti0 = ty * R;
    let corner = enter_tile(t);
    let ti_first = corner.x;
    let tj_first = corner.y;
    let i0 = ti_first + i32(ti0);
    let j = tj_first + i32(tx);
    // Whether the tile holds an absorbing-edge line (uniform in the workgroup).
    let nx = i32(steps.nx);
    let ny = i32(steps.ny);
    let rows_hit = (1 >= ti_first && 1 < ti_first + i32(TI)) || (nx - 2 >= ti_first && nx - 2 < ti_first + i32(TI));
    let cols_hit = (1 >= tj_first && 1 < tj_first + i32(TJ)) || (ny - 2 >= tj_first && ny - 2 < tj_first + i32(TJ));
    let edges = steps.mur != 0u && (rows_hit || cols_hit);
    // The invocation's forced cells: a tile that has any keeps them behind a block of one range
    // an invocation (`Lists` in src/backend/wgpu/wave_scene_blocked.rs).
    let at = t.x * steps.tiles_x + t.y;
    let block = table[steps.offsets + at];
    var first = 0u;
    var last = 0u;
    if block != table[steps.offsets + at + 1u] {
        let inv = ty * TJ + tx;
        first = table[block + inv];
        last = table[block + inv + 1u];
    }
    var f = column_f(i0, j);
    var g = column_g(i0, j);
    let cell_ids = column_ids(i0, j);
    let mask = interior_mask(i0, j);
    var edge_bits = 0u;
    if edges {
        edge_bits = mask & (
            (edge_bit(cell_ids[0]) << 0u) |
            (edge_bit(cell_ids[1]) << 1u) |
            (edge_bit(cell_ids[2]) << 2u) |
            (edge_bit(cell_ids[3]) << 3u) |
            (edge_bit(cell_ids[4]) << 4u) |
            (edge_bit(cell_ids[5]) << 5u) |
            (edge_bit(cell_ids[6]) << 6u) |
            (edge_bit(cell_ids[7]) << 7u) |
            (edge_bit(cell_ids[8]) << 8u) |
            (edge_bit(cell_ids[9]) << 9u) |
            (edge_bit(cell_ids[10]) << 10u) |
            (edge_bit(cell_ids[11]) << 11u) |
            (edge_bit(cell_ids[12]) << 12u) |
            (edge_bit(cell_ids[13]) << 13u) |
            (edge_bit(cell_ids[14]) << 14u) |
            (edge_bit(cell_ids[15]) << 15u)
        );
    }
    // The plain rule's c2 where the host found one material for the non-edge cells (0: none;
    // -1: `OWN_C2`, several materials, each cell its own c2).
    var pc2 = 0.0f;
    if t.z == OWN_C2 {
        pc2 = -1.0f;
    } else if t.z != WALL {
        pc2 = word_f32(MAT * t.z);
    }
    // Half steps: update(f, g) after the step's forced cells, then update(g, f); one call of
    // `general_half` in the shader rather than two.
    for (var h = 0u; h < 2u * steps.nsteps; h++) {
        if (h & 1u) == 0u {
            g = forced(g, first, last, h / 2u, tx, ty);
        }
        let next = general_half(pc2, f, g, cell_ids, tx, ty, mask, edge_bits, edges, i0, j);
        f = g;
        g = next;
    }
    store_column(i0, ti0, tx, j, f, g);
}

// The layer tiles, the general tiles, then the plain ones, in one dispatch: the slow tiles start
// first and the plain ones fill the GPU behind them, where a dispatch per kind waited for the last
// slow tile (and a barrier) before any plain one ran. The kind is the workgroup's (uniform: `wid`,
// `steps`).
@compute @workgroup_size(64, 4, 1)
fn scene_mixed(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let index = wid.y * ROW + wid.x;
    let n_slow = steps.n_layered + steps.n_general;
    if index < steps.n_layered {
        layer_tile(tile_at(steps.layered, steps.n_layered, index), index, lid);
    } else if index < n_slow {
        general_tile(tile_at(steps.general, steps.n_general, index - steps.n_layered), lid);
    } else if index - n_slow < steps.n_plain {
        plain_tile(tile_at(steps.plain, steps.n_plain, index - n_slow), lid);
    }
}
//#include scene_layer_tiles.wgsl
