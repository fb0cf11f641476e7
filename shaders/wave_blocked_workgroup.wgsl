// Temporal blocking for the wave, the issue-8 kernel: the `blocked-workgroup` variant
// (`WaveVariant::BlockedWorkgroup`), kept for A/B against shaders/wave_blocked.wgsl and for
// devices with less than the 24 KiB of workgroup memory that one needs (this one: 16 KiB, wgpu's
// default limit). Up to K/2 whole time steps (K updates) per dispatch (cell rule shared:
// shaders/parts/wave_cell.wgsl).
//
// Bit for bit the CPU's `wave_update`
// (src/backend/cpu/wave.rs, cell rule `update_cell` in src/sim/wave.rs) run `nsteps` times.
//
// A 64x4 workgroup owns a TJ x TI = 64 x 64 tile of both fields (f, g): each invocation keeps
// a column of R = 16 cells of each in registers. The tile is the workgroup's output block
// (OJ x OI = 48 x 48) plus a halo of K = 8 cells on every side. Each update reads the
// neighbours along `j` (other invocations' columns) and across the column's ends through
// workgroup memory; the region that is still right shrinks by one cell per update from every
// tile edge that lies inside the grid, so after K updates the output block is exact.
// Cells outside the grid and the grid's border are never updated (the border keeps what it
// holds: 0, or the source value where the source sits on the border), so a tile edge on the
// grid's edge costs nothing.
//
// Reads go to (f_in, g_in) and writes to (f_out, g_out), two other buffers: workgroups never
// race. The host alternates the two pairs from dispatch to dispatch.
//
// Each step first sets g at the source to that step's value (uploaded: `sin` in f64 on the
// host, as the CPU), then runs update(f, g) and update(g, f): exactly the seed's loop.

// Rows per invocation, invocations along i, tile height.
const R: u32 = 16u;
const WY: u32 = 4u;
const TI: u32 = 64u;
// Tile width (invocations along j), halo (updates per dispatch at most), output block.
const TJ: u32 = 64u;
const K: i32 = 8;
const OI: i32 = 48;
const OJ: i32 = 48;

//#include wave_steps_bindings.wgsl

// The per-row code below is written out for all R rows (constant indices only): the register
// arrays are values, never indexed at run time, so no driver puts them in local memory, and
// there are no inner loops for naga's loop bounding to wrap.

// One field of the tile, for the neighbours (16 KiB: fits wgpu's default limits).
var<workgroup> tile: array<f32, 4096>;

fn opaque() -> u32 {
    return steps.opaque;
}

//#include wave_cell.wgsl

// One row of update(a, b): the cell at `at` in the tile, with its neighbours along `j` read
// from the tile; where `update` is false the cell keeps its old value.
fn row(old: f32, mid: f32, up: f32, down: f32, at: u32, tx: u32, update: bool) -> f32 {
    // Values past the tile are never in the right region; any finite value does.
    var left = 0.0f;
    var right = 0.0f;
    if tx > 0u {
        left = tile[at - 1u];
    }
    if tx + 1u < TJ {
        right = tile[at + 1u];
    }
    return select(old, update_cell(steps.c2, old, mid, up, down, left, right), update);
}

// update(a, b) on the invocation's column (tile rows ty*R .. ty*R + R, tile column tx); rows
// whose bit is clear in `mask` (the grid's border, outside the grid) keep their value.
fn half_step(a: array<f32, R>, b: array<f32, R>, tx: u32, ty: u32, mask: u32) -> array<f32, R> {
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
        row(a[0], b[0], above, b[1], base + 0u * TJ, tx, (mask & 0x1u) != 0u),
        row(a[1], b[1], b[0], b[2], base + 1u * TJ, tx, (mask & 0x2u) != 0u),
        row(a[2], b[2], b[1], b[3], base + 2u * TJ, tx, (mask & 0x4u) != 0u),
        row(a[3], b[3], b[2], b[4], base + 3u * TJ, tx, (mask & 0x8u) != 0u),
        row(a[4], b[4], b[3], b[5], base + 4u * TJ, tx, (mask & 0x10u) != 0u),
        row(a[5], b[5], b[4], b[6], base + 5u * TJ, tx, (mask & 0x20u) != 0u),
        row(a[6], b[6], b[5], b[7], base + 6u * TJ, tx, (mask & 0x40u) != 0u),
        row(a[7], b[7], b[6], b[8], base + 7u * TJ, tx, (mask & 0x80u) != 0u),
        row(a[8], b[8], b[7], b[9], base + 8u * TJ, tx, (mask & 0x100u) != 0u),
        row(a[9], b[9], b[8], b[10], base + 9u * TJ, tx, (mask & 0x200u) != 0u),
        row(a[10], b[10], b[9], b[11], base + 10u * TJ, tx, (mask & 0x400u) != 0u),
        row(a[11], b[11], b[10], b[12], base + 11u * TJ, tx, (mask & 0x800u) != 0u),
        row(a[12], b[12], b[11], b[13], base + 12u * TJ, tx, (mask & 0x1000u) != 0u),
        row(a[13], b[13], b[12], b[14], base + 13u * TJ, tx, (mask & 0x2000u) != 0u),
        row(a[14], b[14], b[13], b[15], base + 14u * TJ, tx, (mask & 0x4000u) != 0u),
        row(a[15], b[15], b[14], below, base + 15u * TJ, tx, (mask & 0x8000u) != 0u),
    );
    // Everyone has read `tile` before the next half step overwrites it.
    workgroupBarrier();
    return out;
}

// The fields at (i, j); 0 outside the grid.
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

// Row r of the column (grid row i0 + r, tile row ti0 + r, column j in the grid and the
// output block) to the output pair, where it is in the output block and in the grid.
fn store(i0: i32, ti0: u32, r: u32, j: i32, fv: f32, gv: f32) {
    let ti = i32(ti0 + r);
    let i = i0 + i32(r);
    if ti >= K && ti < K + OI && i < i32(steps.nx) {
        let idx = u32(i) * steps.ny + u32(j);
        f_out[idx] = fv;
        g_out[idx] = gv;
    }
}

// 1 bit per row of the column (first row i0, column j): set where the cell is interior.
fn interior_mask(i0: i32, j: i32) -> u32 {
    if j < 1 || j + 1 >= i32(steps.ny) {
        return 0u;
    }
    // Rows i0 + r for r in lo..hi are interior: 1 <= i <= nx - 2.
    let lo = clamp(1 - i0, 0, i32(R));
    let hi = clamp(i32(steps.nx) - 1 - i0, 0, i32(R));
    if hi <= lo {
        return 0u;
    }
    // Bits lo..hi (hi - lo <= 16, so no shift reaches 32).
    return ((1u << u32(hi - lo)) - 1u) << u32(lo);
}

@compute @workgroup_size(64, 4, 1)
fn wave_blocked_workgroup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let tx = lid.x;
    let ty = lid.y;
    // Tile row of the invocation's first cell, and its grid row and column.
    let ti0 = ty * R;
    let i0 = i32(wid.y) * OI - K + i32(ti0);
    let j = i32(wid.x) * OJ - K + i32(tx);
    var f = array<f32, R>(
        load_f(i0 + 0, j), load_f(i0 + 1, j), load_f(i0 + 2, j), load_f(i0 + 3, j),
        load_f(i0 + 4, j), load_f(i0 + 5, j), load_f(i0 + 6, j), load_f(i0 + 7, j),
        load_f(i0 + 8, j), load_f(i0 + 9, j), load_f(i0 + 10, j), load_f(i0 + 11, j),
        load_f(i0 + 12, j), load_f(i0 + 13, j), load_f(i0 + 14, j), load_f(i0 + 15, j)
    );
    var g = array<f32, R>(
        load_g(i0 + 0, j), load_g(i0 + 1, j), load_g(i0 + 2, j), load_g(i0 + 3, j),
        load_g(i0 + 4, j), load_g(i0 + 5, j), load_g(i0 + 6, j), load_g(i0 + 7, j),
        load_g(i0 + 8, j), load_g(i0 + 9, j), load_g(i0 + 10, j), load_g(i0 + 11, j),
        load_g(i0 + 12, j), load_g(i0 + 13, j), load_g(i0 + 14, j), load_g(i0 + 15, j)
    );
    let mask = interior_mask(i0, j);
    // The source's row in the column, or R (never matched).
    var src_r = R;
    let sr = i32(steps.src_i) - i0;
    if j == i32(steps.src_j) && sr >= 0 && sr < i32(R) {
        src_r = u32(sr);
    }
    for (var s = 0u; s < steps.nsteps; s++) {
        let v = steps.s[s];
        g = array<f32, R>(
            select(g[0], v, src_r == 0u),
            select(g[1], v, src_r == 1u),
            select(g[2], v, src_r == 2u),
            select(g[3], v, src_r == 3u),
            select(g[4], v, src_r == 4u),
            select(g[5], v, src_r == 5u),
            select(g[6], v, src_r == 6u),
            select(g[7], v, src_r == 7u),
            select(g[8], v, src_r == 8u),
            select(g[9], v, src_r == 9u),
            select(g[10], v, src_r == 10u),
            select(g[11], v, src_r == 11u),
            select(g[12], v, src_r == 12u),
            select(g[13], v, src_r == 13u),
            select(g[14], v, src_r == 14u),
            select(g[15], v, src_r == 15u),
        );
        f = half_step(f, g, tx, ty, mask);
        g = half_step(g, f, tx, ty, mask);
    }
    // Only columns of the output block in the grid write.
    let tj = i32(tx);
    if j < 0 || j >= i32(steps.ny) || tj < K || tj >= K + OJ {
        return;
    }
    store(i0, ti0, 0, j, f[0], g[0]);
    store(i0, ti0, 1, j, f[1], g[1]);
    store(i0, ti0, 2, j, f[2], g[2]);
    store(i0, ti0, 3, j, f[3], g[3]);
    store(i0, ti0, 4, j, f[4], g[4]);
    store(i0, ti0, 5, j, f[5], g[5]);
    store(i0, ti0, 6, j, f[6], g[6]);
    store(i0, ti0, 7, j, f[7], g[7]);
    store(i0, ti0, 8, j, f[8], g[8]);
    store(i0, ti0, 9, j, f[9], g[9]);
    store(i0, ti0, 10, j, f[10], g[10]);
    store(i0, ti0, 11, j, f[11], g[11]);
    store(i0, ti0, 12, j, f[12], g[12]);
    store(i0, ti0, 13, j, f[13], g[13]);
    store(i0, ti0, 14, j, f[14], g[14]);
    store(i0, ti0, 15, j, f[15], g[15]);
}
