// The layer tiles of shaders/wave_scene_blocked.wgsl (spliced in at its end): tiles that hold cells of
// a matched layer, each layer cell by `pml_rule`, the tile's other cells by the scene rule. A layer
// cell's six auxiliary values live in `scratch` while the dispatch runs: copied there from `aux_in`
// before the first update, read and written there by every update (by the cell's own invocation
// only, so no barrier guards them), and copied to `aux_out` for the output block after the last.
// (Kept in registers they were 96 values an invocation: NVIDIA's Vulkan compiler spilled them, and
// the layer tiles cost ~7x the rest of the dispatch; docs/PERFORMANCE.md.) Where the tile's cells
// but walls share one material that takes the plain rule (the list's second word; most layer
// tiles: the open medium), the cells outside the layer run the plain rule and the layer's cells
// that material's c2, walls from a mask made once: no material id read per cell and update
// (4096² on the H100: 70.4 -> 66.1 µs an update, stop 36).

// Per layer tile of a dispatch (its place in the layer list): the six auxiliary values of each of
// its TI x TJ cells, plane by plane (`scratch_cell`).
@group(0) @binding(9) var<storage, read_write> scratch: array<f32>;

// The layer's coefficients (`Coef`, AXIS words) of each of the tile's TI rows, loaded once a
// dispatch: a layer cell's row coefficients then come from workgroup memory, not from `table`.
var<workgroup> row_coefs: array<f32, 448>;

// The scratch index of value 0 of cell (ti, tj) of layer tile `slot`; value k is TI * TJ further.
fn scratch_cell(slot: u32, ti: u32, tj: u32) -> u32 {
    return (slot * 6u * TI + ti) * TJ + tj;
}

fn scratch_aux(c: u32) -> Aux {
    let n = TI * TJ;
    return Aux(scratch[c], scratch[c + n], scratch[c + 2u * n], scratch[c + 3u * n], scratch[c + 4u * n], scratch[c + 5u * n]);
}

fn put_scratch(c: u32, q: Aux) {
    let n = TI * TJ;
    scratch[c] = q.pu;
    scratch[c + n] = q.cu;
    scratch[c + 2u * n] = q.px;
    scratch[c + 3u * n] = q.py;
    scratch[c + 4u * n] = q.gx;
    scratch[c + 5u * n] = q.gy;
}

// Layer cell r of the invocation's column (rows from i0, column j; `at` its place in `tile`, which
// holds the field read; `above`/`below` the rows past the column's ends), old value `old`: a wall
// becomes 0 with its auxiliary values, any other cell takes `pml_rule` with its row's coefficients,
// the column's `yc` and its auxiliary values at scratch cell `c`.
fn layer_cell(old: f32, at: u32, r: u32, above: f32, below: f32, tx: u32, i: i32, j: i32, yc: Coef, c: u32, pc2: f32, wall: bool, q: Aux) -> f32 {
    let mid = tile[at];
    let ud = vertical(at, r, above, below);
    let up = ud.x;
    let down = ud.y;
    // Values past the tile are never in the right region; any finite value does.
    var left = 0.0f;
    var right = 0.0f;
    if tx > 0u {
        left = tile[at - 1u];
    }
    if tx + 1u < TJ {
        right = tile[at + 1u];
    }
    // The tile's one material (`pc2` its c2, walls in `wall`), or each cell's own.
    var c2 = pc2;
    var is_wall = wall;
    if pc2 <= 0.0 {
        let id = load_id(i, j);
        is_wall = id == WALL;
        if !is_wall {
            c2 = word_f32(MAT * id);
        }
    }
    if is_wall {
        put_scratch(c, Aux(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f));
        return 0.0f;
    }
    let k = AXIS * (at / TJ);
    let xc = Coef(row_coefs[k], row_coefs[k + 1u], row_coefs[k + 2u], row_coefs[k + 3u], row_coefs[k + 4u], row_coefs[k + 5u], row_coefs[k + 6u]);
    let p = pml_rule(c2, xc, yc, q, old, mid, up, down, left, right);
    put_scratch(c, p.aux);
    return p.v;
}

// update(a, b) on the invocation's column (first row i0, column j; scratch cell `c0` for its
// first row): each interior cell in one loop over the column's rows, a layer cell (`layer_bits`)
// by the layer's rule, any other by the scene rule, so that each rule is in the shader once (the
// layer's rule written out 16 times measured ~4x slower than one update per dispatch on the H100,
// and the scene rule's 16 rows beside a loop of the layer's cells made the kernel's code 264 KB:
// docs/PERFORMANCE.md).
fn layer_half(a: array<f32, R>, b: array<f32, R>, tx: u32, ty: u32, mask: u32, layer_bits: u32, i0: i32, j: i32, yc: Coef, c0: u32, pc2: f32, wall_bits: u32) -> array<f32, R> {
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
    // Rows outside the grid's interior keep their value.
    var out = a;
    var rows = mask;
    // The next layer row's auxiliary values are read one row ahead, so that their trip to
    // memory overlaps the row before (4096² on the H100: layer scene 66.0 -> 65.2 µs, and the Mur
    // scene, whose kernel is the same pipeline, 41.1 -> 38.7; stop 36).
    var lrows = layer_bits;
    var q = Aux(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
    if lrows != 0u {
        q = scratch_aux(c0 + firstTrailingBit(lrows) * TJ);
    }
    while rows != 0u {
        let r = firstTrailingBit(rows);
        rows = rows & (rows - 1u);
        let at = base + r * TJ;
        let old = row_value(a, r);
        let wall = (wall_bits & (1u << r)) != 0u;
        var v: f32;
        if (layer_bits & (1u << r)) != 0u {
            lrows = lrows & (lrows - 1u);
            var qn = q;
            if lrows != 0u {
                qn = scratch_aux(c0 + firstTrailingBit(lrows) * TJ);
            }
            v = layer_cell(old, at, r, above, below, tx, i0 + i32(r), j, yc, c0 + r * TJ, pc2, wall, q);
            q = qn;
        } else if pc2 > 0.0 {
            // The tile's one material outside the layer: the plain rule, the same bits.
            let ud = vertical(at, r, above, below);
            v = select(plain_row(pc2, old, tile[at], ud.x, ud.y, at, tx, true), 0.0f, wall);
        } else {
            let ud = vertical(at, r, above, below);
            v = general_row(old, tile[at], ud.x, ud.y, at, tx, load_id(i0 + i32(r), j), true);
        }
        out = put(out, v, r);
    }
    // Everyone has read `tile` before the next half step overwrites it.
    workgroupBarrier();
    return out;
}

// Row r's auxiliary values from `aux_in` to scratch cell `c` where the cell is a layer cell.
fn load_aux(i: i32, j: i32, layer: bool, c: u32) {
    if layer {
        let at = aux_at(u32(i), u32(j), steps.nx, steps.ny, steps.layer_w);
        let b = at.x;
        let n = at.y;
        put_scratch(c, Aux(aux_in[b], aux_in[b + n], aux_in[b + 2u * n], aux_in[b + 3u * n], aux_in[b + 4u * n], aux_in[b + 5u * n]));
    }
}

// Row r's auxiliary values from scratch cell `c` to `aux_out` where the cell is a layer cell of the
// output block (the caller checks the column).
fn store_aux(i0: i32, ti0: u32, r: u32, j: i32, layer: bool, c: u32) {
    let ti = i32(ti0 + r);
    let i = i0 + i32(r);
    if layer && ti >= K && ti < K + OI {
        let at = aux_at(u32(i), u32(j), steps.nx, steps.ny, steps.layer_w);
        let b = at.x;
        let n = at.y;
        let q = scratch_aux(c);
        aux_out[b] = q.pu;
        aux_out[b + n] = q.cu;
        aux_out[b + 2u * n] = q.px;
        aux_out[b + 3u * n] = q.py;
        aux_out[b + 4u * n] = q.gx;
        aux_out[b + 5u * n] = q.gy;
    }
}

// Layer tile `t` (from `tile_at`), entry `slot` of the layer list, on the workgroup of invocation
// `lid`.
fn layer_tile(t: vec3<u32>, slot: u32, lid: vec3<u32>) {
    let tx = lid.x;
    let ty = lid.y;
    let ti0 = ty * R;
    let i0 = i32(t.x) * OI - K + i32(ti0);
    let j = i32(t.y) * OJ - K + i32(tx);
    let at = t.x * steps.tiles_x + t.y;
    let first = table[steps.offsets + at];
    let last = table[steps.offsets + at + 1u];
    var f = column_f(i0, j);
    var g = column_g(i0, j);
    let mask = interior_mask(i0, j);
    // The layer's cells of the column: interior cells in a row of the layer from side to side,
    // or all interior cells where the column is in the layer.
    let w = i32(steps.layer_w);
    let nx = i32(steps.nx);
    let ny = i32(steps.ny);
    var rows = 0u;
    if j <= w || j + 1 + w >= ny {
        rows = 0xffffu;
    } else {
        // Rows i <= w and i >= nx - 1 - w.
        let lo = clamp(w + 1 - i0, 0, i32(R));
        let hi = clamp(nx - 1 - w - i0, 0, i32(R));
        rows = 0xffffu;
        if hi > lo {
            rows = rows ^ (((1u << u32(hi - lo)) - 1u) << u32(lo));
        }
    }
    let layer_bits = mask & rows;
    // The tile's one material where its cells but walls share one that takes the plain rule (the
    // list's second word; WALL: several), and the column's walls.
    var pc2 = 0.0f;
    var wall_bits = 0u;
    if t.z != WALL {
        pc2 = word_f32(MAT * t.z);
        for (var r = 0u; r < R; r++) {
            wall_bits |= select(0u, 1u << r, load_id(i0 + i32(r), j) == WALL);
        }
    }
    var yc = coef(0u);
    if j >= 1 && j + 1 < ny {
        yc = coef(axis_base(u32(j), steps.ny, steps.layer_w));
    }
    if ty == 0u {
        // Row tx of the tile: its coefficients (level 0 outside the interior: never a layer cell).
        let i = i32(t.x) * OI - K + i32(tx);
        var b = 0u;
        if i >= 1 && i + 1 < nx {
            b = axis_base(u32(i), steps.nx, steps.layer_w);
        }
        for (var k = 0u; k < AXIS; k++) {
            row_coefs[AXIS * tx + k] = word_f32(steps.axes + b + k);
        }
    }
    let c0 = scratch_cell(slot, ti0, tx);
    load_aux(i0 + 0, j, (layer_bits & 0x1u) != 0u, c0 + 0u * TJ);
    load_aux(i0 + 1, j, (layer_bits & 0x2u) != 0u, c0 + 1u * TJ);
    load_aux(i0 + 2, j, (layer_bits & 0x4u) != 0u, c0 + 2u * TJ);
    load_aux(i0 + 3, j, (layer_bits & 0x8u) != 0u, c0 + 3u * TJ);
    load_aux(i0 + 4, j, (layer_bits & 0x10u) != 0u, c0 + 4u * TJ);
    load_aux(i0 + 5, j, (layer_bits & 0x20u) != 0u, c0 + 5u * TJ);
    load_aux(i0 + 6, j, (layer_bits & 0x40u) != 0u, c0 + 6u * TJ);
    load_aux(i0 + 7, j, (layer_bits & 0x80u) != 0u, c0 + 7u * TJ);
    load_aux(i0 + 8, j, (layer_bits & 0x100u) != 0u, c0 + 8u * TJ);
    load_aux(i0 + 9, j, (layer_bits & 0x200u) != 0u, c0 + 9u * TJ);
    load_aux(i0 + 10, j, (layer_bits & 0x400u) != 0u, c0 + 10u * TJ);
    load_aux(i0 + 11, j, (layer_bits & 0x800u) != 0u, c0 + 11u * TJ);
    load_aux(i0 + 12, j, (layer_bits & 0x1000u) != 0u, c0 + 12u * TJ);
    load_aux(i0 + 13, j, (layer_bits & 0x2000u) != 0u, c0 + 13u * TJ);
    load_aux(i0 + 14, j, (layer_bits & 0x4000u) != 0u, c0 + 14u * TJ);
    load_aux(i0 + 15, j, (layer_bits & 0x8000u) != 0u, c0 + 15u * TJ);
    // Half steps: update(f, g) after the step's forced cells, then update(g, f); one call of
    // `layer_half` in the shader rather than two.
    for (var h = 0u; h < 2u * steps.nsteps; h++) {
        if (h & 1u) == 0u {
            g = forced(g, first, last, h / 2u, tx, ty);
        }
        let next = layer_half(f, g, tx, ty, mask, layer_bits, i0, j, yc, c0, pc2, wall_bits);
        f = g;
        g = next;
    }
    let tj = i32(tx);
    if j < 0 || j >= ny || tj < K || tj >= K + OJ {
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
    store_aux(i0, ti0, 0u, j, (layer_bits & 0x1u) != 0u, c0 + 0u * TJ);
    store_aux(i0, ti0, 1u, j, (layer_bits & 0x2u) != 0u, c0 + 1u * TJ);
    store_aux(i0, ti0, 2u, j, (layer_bits & 0x4u) != 0u, c0 + 2u * TJ);
    store_aux(i0, ti0, 3u, j, (layer_bits & 0x8u) != 0u, c0 + 3u * TJ);
    store_aux(i0, ti0, 4u, j, (layer_bits & 0x10u) != 0u, c0 + 4u * TJ);
    store_aux(i0, ti0, 5u, j, (layer_bits & 0x20u) != 0u, c0 + 5u * TJ);
    store_aux(i0, ti0, 6u, j, (layer_bits & 0x40u) != 0u, c0 + 6u * TJ);
    store_aux(i0, ti0, 7u, j, (layer_bits & 0x80u) != 0u, c0 + 7u * TJ);
    store_aux(i0, ti0, 8u, j, (layer_bits & 0x100u) != 0u, c0 + 8u * TJ);
    store_aux(i0, ti0, 9u, j, (layer_bits & 0x200u) != 0u, c0 + 9u * TJ);
    store_aux(i0, ti0, 10u, j, (layer_bits & 0x400u) != 0u, c0 + 10u * TJ);
    store_aux(i0, ti0, 11u, j, (layer_bits & 0x800u) != 0u, c0 + 11u * TJ);
    store_aux(i0, ti0, 12u, j, (layer_bits & 0x1000u) != 0u, c0 + 12u * TJ);
    store_aux(i0, ti0, 13u, j, (layer_bits & 0x2000u) != 0u, c0 + 13u * TJ);
    store_aux(i0, ti0, 14u, j, (layer_bits & 0x4000u) != 0u, c0 + 14u * TJ);
    store_aux(i0, ti0, 15u, j, (layer_bits & 0x8000u) != 0u, c0 + 15u * TJ);
}
