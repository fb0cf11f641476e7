// The layer tiles of shaders/wave_scene_blocked.wgsl (spliced in at its end): tiles that hold cells of
// a matched layer, each layer cell by `pml_rule` with its six auxiliary values in registers, read
// from `aux_in` and written to `aux_out`; the tile's other cells by the scene rule.

// One cell: outside `update` it keeps its value; a wall becomes 0 (in the layer its auxiliary
// values too); a layer cell (`layer`) takes `pml_rule` with its row's coefficients (row i) and the
// column's `yc`; any other the scene rule.
fn layer_row(old: f32, mid: f32, up: f32, down: f32, at: u32, tx: u32, id: u32, update: bool, layer: bool, i: i32, yc: Coef, q: Aux) -> Pml {
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
        return Pml(old, q);
    }
    if id == WALL {
        return Pml(0.0f, Aux(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f));
    }
    let m = MAT * id;
    if layer {
        let xc = coef(axis_base(u32(i), steps.nx, steps.layer_w));
        return pml_rule(word_f32(m), xc, yc, q, old, mid, up, down, left, right);
    }
    return Pml(scene_cell(word_f32(m), word_f32(m + 1u), word_f32(m + 2u), old, mid, up, down, left, right), q);
}

// A column's new values and auxiliary values.
struct LayerHalf {
    v: array<f32, R>,
    aux: array<Aux, R>,
}

// update(a, b) on the invocation's column, the layer's cells (`layer_bits`) with their auxiliary
// values `q`.
fn layer_half(a: array<f32, R>, b: array<f32, R>, q: array<Aux, R>, cell_ids: array<u32, R>, tx: u32, ty: u32, mask: u32, layer_bits: u32, i0: i32, yc: Coef) -> LayerHalf {
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
    let c0 = layer_row(a[0], b[0], above, b[1], base + 0u * TJ, tx, cell_ids[0], (mask & 0x1u) != 0u, (layer_bits & 0x1u) != 0u, i0 + 0, yc, q[0]);
    let c1 = layer_row(a[1], b[1], b[0], b[2], base + 1u * TJ, tx, cell_ids[1], (mask & 0x2u) != 0u, (layer_bits & 0x2u) != 0u, i0 + 1, yc, q[1]);
    let c2 = layer_row(a[2], b[2], b[1], b[3], base + 2u * TJ, tx, cell_ids[2], (mask & 0x4u) != 0u, (layer_bits & 0x4u) != 0u, i0 + 2, yc, q[2]);
    let c3 = layer_row(a[3], b[3], b[2], b[4], base + 3u * TJ, tx, cell_ids[3], (mask & 0x8u) != 0u, (layer_bits & 0x8u) != 0u, i0 + 3, yc, q[3]);
    let c4 = layer_row(a[4], b[4], b[3], b[5], base + 4u * TJ, tx, cell_ids[4], (mask & 0x10u) != 0u, (layer_bits & 0x10u) != 0u, i0 + 4, yc, q[4]);
    let c5 = layer_row(a[5], b[5], b[4], b[6], base + 5u * TJ, tx, cell_ids[5], (mask & 0x20u) != 0u, (layer_bits & 0x20u) != 0u, i0 + 5, yc, q[5]);
    let c6 = layer_row(a[6], b[6], b[5], b[7], base + 6u * TJ, tx, cell_ids[6], (mask & 0x40u) != 0u, (layer_bits & 0x40u) != 0u, i0 + 6, yc, q[6]);
    let c7 = layer_row(a[7], b[7], b[6], b[8], base + 7u * TJ, tx, cell_ids[7], (mask & 0x80u) != 0u, (layer_bits & 0x80u) != 0u, i0 + 7, yc, q[7]);
    let c8 = layer_row(a[8], b[8], b[7], b[9], base + 8u * TJ, tx, cell_ids[8], (mask & 0x100u) != 0u, (layer_bits & 0x100u) != 0u, i0 + 8, yc, q[8]);
    let c9 = layer_row(a[9], b[9], b[8], b[10], base + 9u * TJ, tx, cell_ids[9], (mask & 0x200u) != 0u, (layer_bits & 0x200u) != 0u, i0 + 9, yc, q[9]);
    let c10 = layer_row(a[10], b[10], b[9], b[11], base + 10u * TJ, tx, cell_ids[10], (mask & 0x400u) != 0u, (layer_bits & 0x400u) != 0u, i0 + 10, yc, q[10]);
    let c11 = layer_row(a[11], b[11], b[10], b[12], base + 11u * TJ, tx, cell_ids[11], (mask & 0x800u) != 0u, (layer_bits & 0x800u) != 0u, i0 + 11, yc, q[11]);
    let c12 = layer_row(a[12], b[12], b[11], b[13], base + 12u * TJ, tx, cell_ids[12], (mask & 0x1000u) != 0u, (layer_bits & 0x1000u) != 0u, i0 + 12, yc, q[12]);
    let c13 = layer_row(a[13], b[13], b[12], b[14], base + 13u * TJ, tx, cell_ids[13], (mask & 0x2000u) != 0u, (layer_bits & 0x2000u) != 0u, i0 + 13, yc, q[13]);
    let c14 = layer_row(a[14], b[14], b[13], b[15], base + 14u * TJ, tx, cell_ids[14], (mask & 0x4000u) != 0u, (layer_bits & 0x4000u) != 0u, i0 + 14, yc, q[14]);
    let c15 = layer_row(a[15], b[15], b[14], below, base + 15u * TJ, tx, cell_ids[15], (mask & 0x8000u) != 0u, (layer_bits & 0x8000u) != 0u, i0 + 15, yc, q[15]);
    // Everyone has read `tile` before the next half step overwrites it.
    workgroupBarrier();
    return LayerHalf(
        array<f32, R>(c0.v, c1.v, c2.v, c3.v, c4.v, c5.v, c6.v, c7.v, c8.v, c9.v, c10.v, c11.v, c12.v, c13.v, c14.v, c15.v),
        array<Aux, R>(c0.aux, c1.aux, c2.aux, c3.aux, c4.aux, c5.aux, c6.aux, c7.aux, c8.aux, c9.aux, c10.aux, c11.aux, c12.aux, c13.aux, c14.aux, c15.aux),
    );
}

// The auxiliary values of cell (i, j) where `layer`, else zeros.
fn load_aux(i: i32, j: i32, layer: bool) -> Aux {
    if !layer {
        return Aux(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
    }
    let at = aux_at(u32(i), u32(j), steps.nx, steps.ny, steps.layer_w);
    let b = at.x;
    let n = at.y;
    return Aux(aux_in[b], aux_in[b + n], aux_in[b + 2u * n], aux_in[b + 3u * n], aux_in[b + 4u * n], aux_in[b + 5u * n]);
}

// Row r's auxiliary values to `aux_out` where the cell is a layer cell of the output block (the
// caller checks the column).
fn store_aux(i0: i32, ti0: u32, r: u32, j: i32, layer: bool, q: Aux) {
    let ti = i32(ti0 + r);
    let i = i0 + i32(r);
    if layer && ti >= K && ti < K + OI {
        let at = aux_at(u32(i), u32(j), steps.nx, steps.ny, steps.layer_w);
        let b = at.x;
        let n = at.y;
        aux_out[b] = q.pu;
        aux_out[b + n] = q.cu;
        aux_out[b + 2u * n] = q.px;
        aux_out[b + 3u * n] = q.py;
        aux_out[b + 4u * n] = q.gx;
        aux_out[b + 5u * n] = q.gy;
    }
}

@compute @workgroup_size(64, 4, 1)
fn scene_layer(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = tile_of(steps.layered, steps.n_layered, wid);
    if t.x == 0xffffffffu {
        return;
    }
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
    let cell_ids = column_ids(i0, j);
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
    var yc = coef(0u);
    if j >= 1 && j + 1 < ny {
        yc = coef(axis_base(u32(j), steps.ny, steps.layer_w));
    }
    var q = array<Aux, R>(
        load_aux(i0 + 0, j, (layer_bits & 0x1u) != 0u),
        load_aux(i0 + 1, j, (layer_bits & 0x2u) != 0u),
        load_aux(i0 + 2, j, (layer_bits & 0x4u) != 0u),
        load_aux(i0 + 3, j, (layer_bits & 0x8u) != 0u),
        load_aux(i0 + 4, j, (layer_bits & 0x10u) != 0u),
        load_aux(i0 + 5, j, (layer_bits & 0x20u) != 0u),
        load_aux(i0 + 6, j, (layer_bits & 0x40u) != 0u),
        load_aux(i0 + 7, j, (layer_bits & 0x80u) != 0u),
        load_aux(i0 + 8, j, (layer_bits & 0x100u) != 0u),
        load_aux(i0 + 9, j, (layer_bits & 0x200u) != 0u),
        load_aux(i0 + 10, j, (layer_bits & 0x400u) != 0u),
        load_aux(i0 + 11, j, (layer_bits & 0x800u) != 0u),
        load_aux(i0 + 12, j, (layer_bits & 0x1000u) != 0u),
        load_aux(i0 + 13, j, (layer_bits & 0x2000u) != 0u),
        load_aux(i0 + 14, j, (layer_bits & 0x4000u) != 0u),
        load_aux(i0 + 15, j, (layer_bits & 0x8000u) != 0u)
    );
    for (var s = 0u; s < steps.nsteps; s++) {
        g = forced(g, first, last, s, tx, ty);
        let h0 = layer_half(f, g, q, cell_ids, tx, ty, mask, layer_bits, i0, yc);
        f = h0.v;
        let h1 = layer_half(g, f, h0.aux, cell_ids, tx, ty, mask, layer_bits, i0, yc);
        g = h1.v;
        q = h1.aux;
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
    store_aux(i0, ti0, 0u, j, (layer_bits & 0x1u) != 0u, q[0]);
    store_aux(i0, ti0, 1u, j, (layer_bits & 0x2u) != 0u, q[1]);
    store_aux(i0, ti0, 2u, j, (layer_bits & 0x4u) != 0u, q[2]);
    store_aux(i0, ti0, 3u, j, (layer_bits & 0x8u) != 0u, q[3]);
    store_aux(i0, ti0, 4u, j, (layer_bits & 0x10u) != 0u, q[4]);
    store_aux(i0, ti0, 5u, j, (layer_bits & 0x20u) != 0u, q[5]);
    store_aux(i0, ti0, 6u, j, (layer_bits & 0x40u) != 0u, q[6]);
    store_aux(i0, ti0, 7u, j, (layer_bits & 0x80u) != 0u, q[7]);
    store_aux(i0, ti0, 8u, j, (layer_bits & 0x100u) != 0u, q[8]);
    store_aux(i0, ti0, 9u, j, (layer_bits & 0x200u) != 0u, q[9]);
    store_aux(i0, ti0, 10u, j, (layer_bits & 0x400u) != 0u, q[10]);
    store_aux(i0, ti0, 11u, j, (layer_bits & 0x800u) != 0u, q[11]);
    store_aux(i0, ti0, 12u, j, (layer_bits & 0x1000u) != 0u, q[12]);
    store_aux(i0, ti0, 13u, j, (layer_bits & 0x2000u) != 0u, q[13]);
    store_aux(i0, ti0, 14u, j, (layer_bits & 0x4000u) != 0u, q[14]);
    store_aux(i0, ti0, 15u, j, (layer_bits & 0x8000u) != 0u, q[15]);
}
