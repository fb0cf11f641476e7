// The blocked scene kernel's tile (shaders/wave_scene_blocked.wgsl includes it): the table's
// words, loading the fields and cell ids into a tile column of R rows, the rows' neighbours
// across invocations, storing a column back, the forced cells, and where each tile lies
// (`tile_first`, `tile_end`: src/backend/wgpu/scene_tiles.rs is the host's twin) and which tile a
// list entry names. It uses the kernel's bindings and workgroup memory, so it is a part of that
// kernel alone.

fn word_f32(k: u32) -> f32 {
    return bitcast<f32>(table[k]);
}

fn coef(k: u32) -> Coef {
    let b = steps.axes + k;
    return Coef(word_f32(b), word_f32(b + 1u), word_f32(b + 2u), word_f32(b + 3u), word_f32(b + 4u), word_f32(b + 5u), word_f32(b + 6u));
}

// The field values and material ids of a column of R cells from row i0; 0 outside the grid.
fn load_f(i: i32, j: i32) -> f32 {
    if i >= 0 && i < i32(steps.nx) && j >= 0 && j < i32(steps.ny) {
        return f_in[u32(i) * steps.ny + u32(j)];
    }
    return 0.0f;
}

fn load_g(i: i32, j: i32) -> f32 {
    if i >= 0 && i < i32(steps.nx) && j >= 0 && j < i32(steps.ny) {
        return g_in[u32(i) * steps.ny + u32(j)];
    }
    return 0.0f;
}

fn load_id(i: i32, j: i32) -> u32 {
    if i >= 0 && i < i32(steps.nx) && j >= 0 && j < i32(steps.ny) {
        let idx = u32(i) * steps.ny + u32(j);
        let w = ids[idx >> 1u];
        return select(w & 0xffffu, w >> 16u, (idx & 1u) == 1u);
    }
    return 0u;
}
fn column_f(i0: i32, j: i32) -> array<f32, R> {
    return array<f32, R>(
        load_f(i0 + 0, j),
        load_f(i0 + 1, j),
        load_f(i0 + 2, j),
        load_f(i0 + 3, j),
        load_f(i0 + 4, j),
        load_f(i0 + 5, j),
        load_f(i0 + 6, j),
        load_f(i0 + 7, j),
        load_f(i0 + 8, j),
        load_f(i0 + 9, j),
        load_f(i0 + 10, j),
        load_f(i0 + 11, j),
        load_f(i0 + 12, j),
        load_f(i0 + 13, j),
        load_f(i0 + 14, j),
        load_f(i0 + 15, j)
    );
}
fn column_g(i0: i32, j: i32) -> array<f32, R> {
    return array<f32, R>(
        load_g(i0 + 0, j),
        load_g(i0 + 1, j),
        load_g(i0 + 2, j),
        load_g(i0 + 3, j),
        load_g(i0 + 4, j),
        load_g(i0 + 5, j),
        load_g(i0 + 6, j),
        load_g(i0 + 7, j),
        load_g(i0 + 8, j),
        load_g(i0 + 9, j),
        load_g(i0 + 10, j),
        load_g(i0 + 11, j),
        load_g(i0 + 12, j),
        load_g(i0 + 13, j),
        load_g(i0 + 14, j),
        load_g(i0 + 15, j)
    );
}
fn column_ids(i0: i32, j: i32) -> array<u32, R> {
    return array<u32, R>(
        load_id(i0 + 0, j),
        load_id(i0 + 1, j),
        load_id(i0 + 2, j),
        load_id(i0 + 3, j),
        load_id(i0 + 4, j),
        load_id(i0 + 5, j),
        load_id(i0 + 6, j),
        load_id(i0 + 7, j),
        load_id(i0 + 8, j),
        load_id(i0 + 9, j),
        load_id(i0 + 10, j),
        load_id(i0 + 11, j),
        load_id(i0 + 12, j),
        load_id(i0 + 13, j),
        load_id(i0 + 14, j),
        load_id(i0 + 15, j)
    );
}
// 1 bit per row of the column (first row i0, column j): set where the cell is interior.
fn interior_mask(i0: i32, j: i32) -> u32 {
    if j < 1 || j + 1 >= i32(steps.ny) {
        return 0u;
    }
    let lo = clamp(1 - i0, 0, i32(R));
    let hi = clamp(i32(steps.nx) - 1 - i0, 0, i32(R));
    if hi <= lo {
        return 0u;
    }
    return ((1u << u32(hi - lo)) - 1u) << u32(lo);
}

// Row r of the column to the output pair, where it is in the output block and in the grid.
fn store(i0: i32, ti0: u32, r: u32, j: i32, fv: f32, gv: f32) {
    let ti = i32(ti0 + r);
    let i = i0 + i32(r);
    if ti >= K && i < row_end {
        let idx = u32(i) * steps.ny + u32(j);
        f_out[idx] = fv;
        g_out[idx] = gv;
    }
}

// The column's output rows, where its column is in the output block and in the grid.
fn store_column(i0: i32, ti0: u32, tx: u32, j: i32, f: array<f32, R>, g: array<f32, R>) {
    let tj = i32(tx);
    if j < 0 || j >= col_end || tj < K {
        return;
    }
    store(i0, ti0, 0u, j, f[0], g[0]);
    store(i0, ti0, 1u, j, f[1], g[1]);
    store(i0, ti0, 2u, j, f[2], g[2]);
    store(i0, ti0, 3u, j, f[3], g[3]);
    store(i0, ti0, 4u, j, f[4], g[4]);
    store(i0, ti0, 5u, j, f[5], g[5]);
    store(i0, ti0, 6u, j, f[6], g[6]);
    store(i0, ti0, 7u, j, f[7], g[7]);
    store(i0, ti0, 8u, j, f[8], g[8]);
    store(i0, ti0, 9u, j, f[9], g[9]);
    store(i0, ti0, 10u, j, f[10], g[10]);
    store(i0, ti0, 11u, j, f[11], g[11]);
    store(i0, ti0, 12u, j, f[12], g[12]);
    store(i0, ti0, 13u, j, f[13], g[13]);
    store(i0, ti0, 14u, j, f[14], g[14]);
    store(i0, ti0, 15u, j, f[15], g[15]);
}

// The neighbours above and below row r of the column (its place `at` in `tile`), `above` and
// `below` past the column's ends.
fn vertical(at: u32, r: u32, above: f32, below: f32) -> vec2<f32> {
    var up = above;
    var down = below;
    if r > 0u {
        up = tile[at - TJ];
    }
    if r + 1u < R {
        down = tile[at + TJ];
    }
    return vec2<f32>(up, down);
}

// The column with the value v in row r.
fn put(x: array<f32, R>, v: f32, r: u32) -> array<f32, R> {
    return array<f32, R>(
        select(x[0], v, r == 0u),
        select(x[1], v, r == 1u),
        select(x[2], v, r == 2u),
        select(x[3], v, r == 3u),
        select(x[4], v, r == 4u),
        select(x[5], v, r == 5u),
        select(x[6], v, r == 6u),
        select(x[7], v, r == 7u),
        select(x[8], v, r == 8u),
        select(x[9], v, r == 9u),
        select(x[10], v, r == 10u),
        select(x[11], v, r == 11u),
        select(x[12], v, r == 12u),
        select(x[13], v, r == 13u),
        select(x[14], v, r == 14u),
        select(x[15], v, r == 15u)
    );
}

// Row r of the column.
fn row_value(x: array<f32, R>, r: u32) -> f32 {
    var v = x[0];
    v = select(v, x[1], r == 1u);
    v = select(v, x[2], r == 2u);
    v = select(v, x[3], r == 3u);
    v = select(v, x[4], r == 4u);
    v = select(v, x[5], r == 5u);
    v = select(v, x[6], r == 6u);
    v = select(v, x[7], r == 7u);
    v = select(v, x[8], r == 8u);
    v = select(v, x[9], r == 9u);
    v = select(v, x[10], r == 10u);
    v = select(v, x[11], r == 11u);
    v = select(v, x[12], r == 12u);
    v = select(v, x[13], r == 13u);
    v = select(v, x[14], r == 14u);
    v = select(v, x[15], r == 15u);
    return v;
}

// The tile's forced cells of step s in the column (tile column tx, rows ty*R ..): the entries
// first..last of `table`, in order (a later entry for the same cell wins, as on the CPU).
fn forced(g: array<f32, R>, first: u32, last: u32, s: u32, tx: u32, ty: u32) -> array<f32, R> {
    var out = g;
    for (var q = first; q < last; q++) {
        let e = table[q];
        let place = e >> 16u;
        let row = place >> 6u;
        if (place & 63u) == tx && row / R == ty {
            let bits = table[steps.value_base + s * steps.sources + (e & 0xffffu)];
            if bits != NOT_FORCING {
                out = put(out, bitcast<f32>(bits), row % R);
            }
        }
    }
    return out;
}

// The tiles of an axis of n cells: the middle one (at least tile 1) outputs what is left of n
// after whole tiles from both ends, those before it start at OI t, those after it end at multiples
// of OI from the far end (`origin`, `out_end` and `short_tile` in
// src/backend/wgpu/scene_tiles.rs): the layer's far side then lies in the last tile alone.
// Tile t's first cell, halo included.
fn tile_first(t: u32, n: u32) -> i32 {
    let count = (n + u32(OI) - 1u) / u32(OI);
    let shift = select(0u, count * u32(OI) - n, t > max(count / 2u, 1u));
    return i32(t) * OI - i32(shift) - K;
}

// One past the last cell tile t (first cell `first`, from `tile_first`) outputs.
fn tile_end(t: u32, n: u32, first: i32) -> i32 {
    let count = (n + u32(OI) - 1u) / u32(OI);
    let cut = select(0u, count * u32(OI) - n, t == max(count / 2u, 1u));
    return min(first + K + OI - i32(cut), i32(n));
}

// The invocation's tile's output rows and columns end (`tile_end`), set by `enter_tile`.
var<private> row_end: i32;
var<private> col_end: i32;

// Tile t's first row and column (halo included); sets `row_end` and `col_end`.
fn enter_tile(t: vec3<u32>) -> vec2<i32> {
    let first = vec2<i32>(tile_first(t.x, steps.nx), tile_first(t.y, steps.ny));
    row_end = tile_end(t.x, steps.nx, first.x);
    col_end = tile_end(t.y, steps.ny, first.y);
    return first;
}

// Entry `index` of a list of `count` tiles from word `list`: (tile row, tile column, second
// word), or none (x = 0xffffffff) past the list's end.
fn tile_at(list: u32, count: u32, index: u32) -> vec3<u32> {
    if index >= count {
        return vec3<u32>(0xffffffffu, 0u, 0u);
    }
    let t = table[list + 2u * index];
    return vec3<u32>(t >> 16u, t & 0xffffu, table[list + 2u * index + 1u]);
}
