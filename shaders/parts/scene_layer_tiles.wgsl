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

// Layer cell (i, j) (`at` its place in `tile`, which holds the field read; `up`, `down` its
// neighbours there), old value `old`: a wall becomes 0 with its auxiliary values, any other cell
// takes `pml_rule` with its row's coefficients, the column's `yc` and its auxiliary values `q`
// (read ahead from scratch cell `c`, where they go back).
fn layer_cell(old: f32, at: u32, up: f32, down: f32, tx: u32, i: i32, j: i32, yc: Coef, c: u32, pc2: f32, wall: bool, q: Aux) -> f32 {
    let mid = tile[at];
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

// update(a, b) on the invocation's rows (tile rows ty, ty + WY, ..., grid rows i0, i0 + WY, ...;
// column j; scratch cell `c0` for its first row): each interior cell in one loop over the rows, a
// layer cell (`layer_bits`) by the layer's rule, any other by the plain rule of the tile's one
// material (`pc2` > 0) or the scene rule, so that each rule is in the shader once. The rows are
// interleaved (a layer tile's rows of the layer, at its top or bottom, then fall to every
// invocation alike, where a column of R consecutive rows gave some invocations all 16 rows of the
// layer and others none); their neighbours above and below come from `tile`. The invocation's
// column is `txa` in even rows r and `txb` in odd ones (the same but in a band tile, `layer_tile`);
// `j0` is the tile's first grid column, `cs` the tile's scratch (a cell's values at `cs` plus its
// place in `tile`).
fn layer_half(a: array<f32, R>, b: array<f32, R>, txa: u32, txb: u32, ty: u32, mask: u32, layer_bits: u32, i0: i32, j0: i32, yc: Coef, cs: u32, pc2: f32, wall_bits: u32) -> array<f32, R> {
    let base_a = ty * TJ + txa;
    let base_b = ty * TJ + txb;
    let step = WY * TJ;
    tile[base_a + 0u * step] = b[0];
    tile[base_b + 1u * step] = b[1];
    tile[base_a + 2u * step] = b[2];
    tile[base_b + 3u * step] = b[3];
    tile[base_a + 4u * step] = b[4];
    tile[base_b + 5u * step] = b[5];
    tile[base_a + 6u * step] = b[6];
    tile[base_b + 7u * step] = b[7];
    tile[base_a + 8u * step] = b[8];
    tile[base_b + 9u * step] = b[9];
    tile[base_a + 10u * step] = b[10];
    tile[base_b + 11u * step] = b[11];
    tile[base_a + 12u * step] = b[12];
    tile[base_b + 13u * step] = b[13];
    tile[base_a + 14u * step] = b[14];
    tile[base_b + 15u * step] = b[15];
    workgroupBarrier();
    // The old column becomes the new one row by row, in order: each row takes its old value from
    // the front and puts its new value at the back, so after R rows the column is the new one.
    // (Read and put by the row's index, the loop's and so different in each lane, each took a
    // chain of 16 selects: NVIDIA cannot index registers; docs/PERFORMANCE.md, stop 40.) Rows
    // outside `mask` (the grid's border and beyond, the halo's wrong rows) keep their value.
    var c = a;
    // The next layer row's auxiliary values are read one row ahead, so that their trip to
    // memory overlaps the row before (4096² on the H100: layer scene 66.0 -> 65.2 µs, and the Mur
    // scene, whose kernel is the same pipeline, 41.1 -> 38.7; stop 36).
    var lrows = layer_bits;
    var q = Aux(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
    if lrows != 0u {
        let r = firstTrailingBit(lrows);
        q = scratch_aux(cs + select(base_a, base_b, (r & 1u) == 1u) + r * step);
    }
    for (var r = 0u; r < R; r++) {
        let old = c[0];
        var v = old;
        if (mask & (1u << r)) != 0u {
            let odd = (r & 1u) == 1u;
            let tx = select(txa, txb, odd);
            let at = select(base_a, base_b, odd) + r * step;
            let ti = ty + WY * r;
            // Values past the tile are never in the right region; any finite value does.
            var up = 0.0f;
            var down = 0.0f;
            if ti > 0u {
                up = tile[at - TJ];
            }
            if ti + 1u < TI {
                down = tile[at + TJ];
            }
            let wall = (wall_bits & (1u << r)) != 0u;
            let i = i0 + i32(WY * r);
            let j = j0 + i32(tx);
            if (layer_bits & (1u << r)) != 0u {
                lrows = lrows & (lrows - 1u);
                var qn = q;
                if lrows != 0u {
                    let rn = firstTrailingBit(lrows);
                    qn = scratch_aux(cs + select(base_a, base_b, (rn & 1u) == 1u) + rn * step);
                }
                v = layer_cell(old, at, up, down, tx, i, j, yc, cs + at, pc2, wall, q);
                q = qn;
            } else if pc2 > 0.0 {
                // The tile's one material outside the layer: the plain rule, the same bits.
                v = select(plain_row(pc2, old, tile[at], up, down, at, tx, true), 0.0f, wall);
            } else {
                v = general_row(old, tile[at], up, down, at, tx, load_id(i, j), true);
            }
        }
        c = array<f32, R>(c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15], v);
    }
    // Everyone has read `tile` before the next half step overwrites it.
    workgroupBarrier();
    return c;
}

// The invocation's rows r (tile rows ty + WY r) that are still right after update h (from 0) of
// a dispatch: tile rows h + 1 ..= TI - 2 - h (a row's new value needs both neighbours' last ones,
// so the wrong region grows by a row a side each update from the tile's edges; rows outside the
// grid are never right and never updated, `mask`).
fn live_rows(h: u32, ty: u32) -> u32 {
    let lo = (max(i32(h) + 1 - i32(ty), 0) + i32(WY) - 1) / i32(WY);
    let hi = (i32(TI) - 2 - i32(h) - i32(ty)) / i32(WY);
    return ((2u << u32(hi)) - 1u) & ~((1u << u32(lo)) - 1u);
}

// The tile's forced cells of step s in the invocation's rows (tile rows ty, ty + WY, ...; tile
// column txa in even rows, txb in odd ones): as `forced`, for the interleaved rows. (This,
// `layer_store` and the layer tile's column loads repeat the other tiles' helpers with a row
// stride: one set of helpers with a stride for every kind made every scene slower on the H100,
// Mur 38.3 -> 41.9 µs at 4096², layer 59.6 -> 63.0; docs/PERFORMANCE.md, stop 36.)
fn layer_forced(g: array<f32, R>, first: u32, last: u32, s: u32, txa: u32, txb: u32, ty: u32) -> array<f32, R> {
    var out = g;
    for (var q = first; q < last; q++) {
        let e = table[q];
        let place = e >> 16u;
        let row = place >> 6u;
        if (place & 63u) == select(txa, txb, ((row / WY) & 1u) == 1u) && row % WY == ty {
            let bits = table[steps.value_base + s * steps.sources + (e & 0xffffu)];
            if bits != NOT_FORCING {
                out = put(out, bitcast<f32>(bits), row / WY);
            }
        }
    }
    return out;
}

// Grid row i (tile row ti) of column j to the output pair, where it is in the output block and in
// the grid (`column`: its column is in both).
fn layer_store(i: i32, ti: i32, j: i32, column: bool, fv: f32, gv: f32) {
    if column && ti >= K && i < row_end {
        let idx = u32(i) * steps.ny + u32(j);
        f_out[idx] = fv;
        g_out[idx] = gv;
    }
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

// Grid row i's (tile row ti's) auxiliary values from scratch cell `c` to `aux_out` where the cell is
// a layer cell of the output block (`layer` false where the column is not in it).
fn store_aux(i: i32, ti: i32, j: i32, layer: bool, c: u32) {
    if layer && ti >= K && i < row_end {
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
    // The invocation's column: tile column tx, the lane rotated so that the tile's part of a layer
    // band along the grid's left or right side (at most 32 columns) starts at lane 0 and so fills
    // one warp, where it straddled two and made both run the layer's and the plain rule.
    let w = i32(steps.layer_w);
    let ny = i32(steps.ny);
    let nx = i32(steps.nx);
    let corner = enter_tile(t);
    let i_first = corner.x;
    let j0 = corner.y;
    var rot = 0;
    if w + 1 > j0 && 1 - j0 < i32(TJ) {
        rot = max(1 - j0, 0);
    } else if ny - 1 > j0 && ny - 1 - w - j0 < i32(TJ) {
        rot = max(ny - 1 - w - j0, 0);
    }
    // A band tile (its rows clear of the layer, its columns reaching one side's band): rotated,
    // the band's columns are lanes 0..31 and the rest 32..63, so that in even rows r the first
    // warp of a row group takes the band's cells and the second the others, in odd rows the
    // other way about: each warp runs 8 rows of the layer's rule an update, where the band's warp
    // ran 16 and the other none (the interleaved rows did the same for the top and bottom tiles;
    // 2048² on the H100: 20.2 -> 19.8 µs an update, 4096² 51.3 -> 51.2; docs/PERFORMANCE.md,
    // stop 38).
    let rows_clear = i_first > w && i_first + i32(TI) + w < nx;
    let left = j0 <= w && j0 + i32(TJ) > 1;
    let right = j0 + i32(TJ) > ny - 1 - w && j0 + 1 < ny;
    let band = rows_clear && left != right;
    let txa = (lid.x + u32(rot)) % TJ;
    let txb = select(txa, ((lid.x ^ 32u) + u32(rot)) % TJ, band);
    let ty = lid.y;
    // The invocation's rows: tile rows ty + WY r, grid rows i0 + WY r (r < R), columns ja (r even)
    // and jb (r odd); its layer cells' column (a band tile's are all in its band lanes' column).
    let i0 = i_first + i32(ty);
    let ja = j0 + i32(txa);
    let jb = j0 + i32(txb);
    let jy = select(ja, jb, band && lid.x >= 32u);
    let at = t.x * steps.tiles_x + t.y;
    let first = table[steps.offsets + at];
    let last = table[steps.offsets + at + 1u];
    let d = i32(WY);
    var f = array<f32, R>(
        load_f(i0 + 0 * d, ja),
        load_f(i0 + 1 * d, jb),
        load_f(i0 + 2 * d, ja),
        load_f(i0 + 3 * d, jb),
        load_f(i0 + 4 * d, ja),
        load_f(i0 + 5 * d, jb),
        load_f(i0 + 6 * d, ja),
        load_f(i0 + 7 * d, jb),
        load_f(i0 + 8 * d, ja),
        load_f(i0 + 9 * d, jb),
        load_f(i0 + 10 * d, ja),
        load_f(i0 + 11 * d, jb),
        load_f(i0 + 12 * d, ja),
        load_f(i0 + 13 * d, jb),
        load_f(i0 + 14 * d, ja),
        load_f(i0 + 15 * d, jb)
    );
    var g = array<f32, R>(
        load_g(i0 + 0 * d, ja),
        load_g(i0 + 1 * d, jb),
        load_g(i0 + 2 * d, ja),
        load_g(i0 + 3 * d, jb),
        load_g(i0 + 4 * d, ja),
        load_g(i0 + 5 * d, jb),
        load_g(i0 + 6 * d, ja),
        load_g(i0 + 7 * d, jb),
        load_g(i0 + 8 * d, ja),
        load_g(i0 + 9 * d, jb),
        load_g(i0 + 10 * d, ja),
        load_g(i0 + 11 * d, jb),
        load_g(i0 + 12 * d, ja),
        load_g(i0 + 13 * d, jb),
        load_g(i0 + 14 * d, ja),
        load_g(i0 + 15 * d, jb)
    );
    // The interior rows, and of them the layer's: cells with i <= w or i >= nx - 1 - w, or j
    // likewise; the tile's one material where its cells but walls share one that takes the plain
    // rule (the list's second word; WALL: several), and the rows' walls.
    var pc2 = 0.0f;
    if t.z != WALL {
        pc2 = word_f32(MAT * t.z);
    }
    var mask = 0u;
    var rows = 0u;
    var wall_bits = 0u;
    for (var r = 0u; r < R; r++) {
        let i = i0 + i32(WY * r);
        let j = select(ja, jb, (r & 1u) == 1u);
        let bit = 1u << r;
        if j >= 1 && j + 1 < ny && i >= 1 && i + 1 < nx {
            mask |= bit;
        }
        if j <= w || j + 1 + w >= ny || i <= w || i + 1 + w >= nx {
            rows |= bit;
        }
        if pc2 > 0.0 && load_id(i, j) == WALL {
            wall_bits |= bit;
        }
    }
    let layer_bits = mask & rows;
    var yc = coef(0u);
    if jy >= 1 && jy + 1 < ny {
        yc = coef(axis_base(u32(jy), steps.ny, steps.layer_w));
    }
    if ty == 0u {
        // Row lid.x of the tile: its coefficients (level 0 outside the interior: never a layer cell).
        let i = i_first + i32(lid.x);
        var b = 0u;
        if i >= 1 && i + 1 < nx {
            b = axis_base(u32(i), steps.nx, steps.layer_w);
        }
        for (var k = 0u; k < AXIS; k++) {
            row_coefs[AXIS * lid.x + k] = word_f32(steps.axes + b + k);
        }
    }
    // The tile's scratch, and the invocation's first cell there in even and odd rows.
    let cs = scratch_cell(slot, 0u, 0u);
    let step = WY * TJ;
    let ca = cs + ty * TJ + txa;
    let cb = cs + ty * TJ + txb;
    load_aux(i0 + 0 * d, ja, (layer_bits & 0x1u) != 0u, ca + 0u * step);
    load_aux(i0 + 1 * d, jb, (layer_bits & 0x2u) != 0u, cb + 1u * step);
    load_aux(i0 + 2 * d, ja, (layer_bits & 0x4u) != 0u, ca + 2u * step);
    load_aux(i0 + 3 * d, jb, (layer_bits & 0x8u) != 0u, cb + 3u * step);
    load_aux(i0 + 4 * d, ja, (layer_bits & 0x10u) != 0u, ca + 4u * step);
    load_aux(i0 + 5 * d, jb, (layer_bits & 0x20u) != 0u, cb + 5u * step);
    load_aux(i0 + 6 * d, ja, (layer_bits & 0x40u) != 0u, ca + 6u * step);
    load_aux(i0 + 7 * d, jb, (layer_bits & 0x80u) != 0u, cb + 7u * step);
    load_aux(i0 + 8 * d, ja, (layer_bits & 0x100u) != 0u, ca + 8u * step);
    load_aux(i0 + 9 * d, jb, (layer_bits & 0x200u) != 0u, cb + 9u * step);
    load_aux(i0 + 10 * d, ja, (layer_bits & 0x400u) != 0u, ca + 10u * step);
    load_aux(i0 + 11 * d, jb, (layer_bits & 0x800u) != 0u, cb + 11u * step);
    load_aux(i0 + 12 * d, ja, (layer_bits & 0x1000u) != 0u, ca + 12u * step);
    load_aux(i0 + 13 * d, jb, (layer_bits & 0x2000u) != 0u, cb + 13u * step);
    load_aux(i0 + 14 * d, ja, (layer_bits & 0x4000u) != 0u, ca + 14u * step);
    load_aux(i0 + 15 * d, jb, (layer_bits & 0x8000u) != 0u, cb + 15u * step);
    // Half steps: update(f, g) after the step's forced cells, then update(g, f); one call of
    // `layer_half` in the shader rather than two.
    for (var h = 0u; h < 2u * steps.nsteps; h++) {
        if (h & 1u) == 0u {
            g = layer_forced(g, first, last, h / 2u, txa, txb, ty);
        }
        // Rows that go wrong at this update (the halo's, one more a side each update) are not
        // updated: their values and auxiliary values are never read by a row that stays right
        // (4096² on the H100: 52.8 -> 51.3 µs an update; docs/PERFORMANCE.md, stop 37).
        let live = mask & live_rows(h, ty);
        let next = layer_half(f, g, txa, txb, ty, live, layer_bits & live, i0, j0, yc, cs, pc2, wall_bits);
        f = g;
        g = next;
    }
    // The output block's columns.
    let in_a = ja >= 0 && ja < col_end && i32(txa) >= K;
    let in_b = jb >= 0 && jb < col_end && i32(txb) >= K;
    let ti0 = i32(ty);
    layer_store(i0 + 0 * d, ti0 + 0 * d, ja, in_a, f[0], g[0]);
    layer_store(i0 + 1 * d, ti0 + 1 * d, jb, in_b, f[1], g[1]);
    layer_store(i0 + 2 * d, ti0 + 2 * d, ja, in_a, f[2], g[2]);
    layer_store(i0 + 3 * d, ti0 + 3 * d, jb, in_b, f[3], g[3]);
    layer_store(i0 + 4 * d, ti0 + 4 * d, ja, in_a, f[4], g[4]);
    layer_store(i0 + 5 * d, ti0 + 5 * d, jb, in_b, f[5], g[5]);
    layer_store(i0 + 6 * d, ti0 + 6 * d, ja, in_a, f[6], g[6]);
    layer_store(i0 + 7 * d, ti0 + 7 * d, jb, in_b, f[7], g[7]);
    layer_store(i0 + 8 * d, ti0 + 8 * d, ja, in_a, f[8], g[8]);
    layer_store(i0 + 9 * d, ti0 + 9 * d, jb, in_b, f[9], g[9]);
    layer_store(i0 + 10 * d, ti0 + 10 * d, ja, in_a, f[10], g[10]);
    layer_store(i0 + 11 * d, ti0 + 11 * d, jb, in_b, f[11], g[11]);
    layer_store(i0 + 12 * d, ti0 + 12 * d, ja, in_a, f[12], g[12]);
    layer_store(i0 + 13 * d, ti0 + 13 * d, jb, in_b, f[13], g[13]);
    layer_store(i0 + 14 * d, ti0 + 14 * d, ja, in_a, f[14], g[14]);
    layer_store(i0 + 15 * d, ti0 + 15 * d, jb, in_b, f[15], g[15]);
    store_aux(i0 + 0 * d, ti0 + 0 * d, ja, in_a && (layer_bits & 0x1u) != 0u, ca + 0u * step);
    store_aux(i0 + 1 * d, ti0 + 1 * d, jb, in_b && (layer_bits & 0x2u) != 0u, cb + 1u * step);
    store_aux(i0 + 2 * d, ti0 + 2 * d, ja, in_a && (layer_bits & 0x4u) != 0u, ca + 2u * step);
    store_aux(i0 + 3 * d, ti0 + 3 * d, jb, in_b && (layer_bits & 0x8u) != 0u, cb + 3u * step);
    store_aux(i0 + 4 * d, ti0 + 4 * d, ja, in_a && (layer_bits & 0x10u) != 0u, ca + 4u * step);
    store_aux(i0 + 5 * d, ti0 + 5 * d, jb, in_b && (layer_bits & 0x20u) != 0u, cb + 5u * step);
    store_aux(i0 + 6 * d, ti0 + 6 * d, ja, in_a && (layer_bits & 0x40u) != 0u, ca + 6u * step);
    store_aux(i0 + 7 * d, ti0 + 7 * d, jb, in_b && (layer_bits & 0x80u) != 0u, cb + 7u * step);
    store_aux(i0 + 8 * d, ti0 + 8 * d, ja, in_a && (layer_bits & 0x100u) != 0u, ca + 8u * step);
    store_aux(i0 + 9 * d, ti0 + 9 * d, jb, in_b && (layer_bits & 0x200u) != 0u, cb + 9u * step);
    store_aux(i0 + 10 * d, ti0 + 10 * d, ja, in_a && (layer_bits & 0x400u) != 0u, ca + 10u * step);
    store_aux(i0 + 11 * d, ti0 + 11 * d, jb, in_b && (layer_bits & 0x800u) != 0u, cb + 11u * step);
    store_aux(i0 + 12 * d, ti0 + 12 * d, ja, in_a && (layer_bits & 0x1000u) != 0u, ca + 12u * step);
    store_aux(i0 + 13 * d, ti0 + 13 * d, jb, in_b && (layer_bits & 0x2000u) != 0u, cb + 13u * step);
    store_aux(i0 + 14 * d, ti0 + 14 * d, ja, in_a && (layer_bits & 0x4000u) != 0u, ca + 14u * step);
    store_aux(i0 + 15 * d, ti0 + 15 * d, jb, in_b && (layer_bits & 0x8000u) != 0u, cb + 15u * step);
}
