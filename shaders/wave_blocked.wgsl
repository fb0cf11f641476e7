// Temporal blocking for the wave: up to K/2 whole time steps (K updates) per dispatch; the
// `blocked` variant of shaders/wave.wgsl (cell rule shared: shaders/parts/wave_cell.wgsl).
// Assembled twice (src/backend/wgpu/shader.rs): with subgroups (shaders/parts/lanes_subgroup.wgsl,
// where the device has `Features::SUBGROUP`) and without (shaders/parts/lanes_workgroup.wgsl).
//
// The WGSL twin of `wave_steps` in kernels/wave.cu, in its shape: bit for bit the CPU's
// `wave_update` (src/backend/cpu/wave.rs, cell rule `update_cell` in src/sim/wave.rs) run
// `nsteps` times.
//
// A workgroup of 32x8 invocations owns a TJ x TI = 64 x 64 tile of both fields (f, g): each invocation keeps
// R = 8 rows of 2 adjacent columns of each in registers (a `vec2` per row). The tile is the
// workgroup's output block (OJ x OI = 48 x 48) plus a halo of K = 8 cells on every side. The
// region that is still right shrinks by one cell per update from every tile edge inside the
// grid, so after K updates the output block is exact. Cells outside the grid and the grid's
// border are never updated (the border keeps what it holds: 0, or the source value where the
// source sits on the border), so a tile edge on the grid's edge costs nothing.
//
// Neighbours, per update (one barrier, as `wave_steps`):
// - along i, within the invocation's 8 rows from registers; past them, the first and last row
//   of every strip go through workgroup memory (`edge`, double-buffered by update parity, so
//   one barrier per update suffices: a buffer is written again only after the next barrier,
//   which every reader of it has passed);
// - along j, the other column of the pair from registers; the neighbouring invocation's
//   column by a subgroup shuffle where that invocation is the next lane of the same subgroup
//   (checked once per dispatch: `Lane.left`, `Lane.right`), else through workgroup memory
//   (`side_l`, `side_r`). On NVIDIA (32 lanes, a tile row of invocations is one subgroup) and
//   AMD (32 or 64) every link is a shuffle; with 8- or 16-wide subgroups (Intel, lavapipe) the
//   invocations at a subgroup's ends use memory; with no subgroups all do. The side columns
//   are not double-buffered (that would take 40 KiB: more than lavapipe's 32): a workgroup with
//   any unlinked invocation (`slow`, the same for the whole workgroup) takes a second barrier
//   per update, after the reads.
//
// Reads go to (f_in, g_in) and writes to (f_out, g_out), two other buffers: workgroups never
// race. The host alternates the two pairs from dispatch to dispatch.
//
// Each step first sets g at the source to that step's value (uploaded: `sin` in f64 on the
// host, as the CPU), then runs update(f, g) and update(g, f): exactly the seed's loop.

//#include LANES

// Rows per invocation, invocations along j (2 columns each) and along i.
const R: u32 = 8u;
const WX: u32 = 32u;
const WY: u32 = 8u;
// Tile (halo included), halo (updates per dispatch at most), output block.
const TJ: u32 = 64u;
const TI: u32 = 64u;
const K: i32 = 8;
const OI: i32 = 48;
const OJ: i32 = 48;

//#include wave_steps_bindings.wgsl

// The per-row code below is written out for all R rows (constant indices only): the register
// arrays are values, never indexed at run time, so no driver puts them in local memory, and
// there are no inner loops for naga's loop bounding to wrap.

// The first (0) and last (1) row of every strip: [parity][0|1][ty][tile column] (8 KiB).
var<workgroup> edge: array<f32, 2048>;
// Columns for invocations not linked by a shuffle: [tile row][tx], the invocation's first
// column (`side_l`, read by tx - 1) and second (`side_r`, read by tx + 1) (16 KiB).
var<workgroup> side_l: array<f32, 2048>;
var<workgroup> side_r: array<f32, 2048>;
// Invocations not linked on both sides, counted once per dispatch, and the count as read by
// invocation 0 (for `workgroupUniformLoad`). With the rest: 24 KiB + 8 bytes
// (`WORKGROUP_BYTES` in src/backend/wgpu/wave_blocked.rs).
var<workgroup> unlinked: atomic<u32>;
var<workgroup> unlinked_count: u32;

fn opaque() -> u32 {
    return steps.opaque;
}

//#include wave_cell.wgsl

// The invocation's place in the tile and how it reaches its neighbours along j.
struct Lane {
    tx: u32,
    ty: u32,
    // The subgroup lanes that hold the left and right neighbours, where linked.
    src: vec2<u32>,
    // Whether the shuffle from `src.x` (`src.y`) gives the left (right) neighbour's column;
    // true where there is none to fetch (tile column 0, 63).
    left: bool,
    right: bool,
}

fn edge_at(p: u32, which: u32, ty: u32, col: u32) -> u32 {
    return ((p * 2u + which) * WY + ty) * TJ + col;
}

fn side_at(row: u32, tx: u32) -> u32 {
    return row * WX + tx;
}

// One row of update(a, b) on the invocation's two columns; bit 0 (1) of `bits` clear: column
// 0 (1) keeps its value.
fn row(a: vec2<f32>, b: vec2<f32>, up: vec2<f32>, down: vec2<f32>, left: f32, right: f32, bits: u32) -> vec2<f32> {
    let c2 = steps.c2;
    let n0 = update_cell(c2, a.x, b.x, up.x, down.x, left, b.y);
    let n1 = update_cell(c2, a.y, b.y, up.y, down.y, b.x, right);
    return vec2<f32>(select(a.x, n0, (bits & 1u) != 0u), select(a.y, n1, (bits & 2u) != 0u));
}

// update(a, b) on the invocation's 8 x 2 cells, with edge buffers of parity `p`; cells whose bit
// (2 r + c) is clear in `mask` (the grid's border, outside the grid) keep their value. `slow`
// (uniform in the workgroup): some invocation uses the side columns, which are reused by the
// next update only after a second barrier.
fn half_step(a: array<vec2<f32>, R>, b: array<vec2<f32>, R>, p: u32, ln: Lane, mask: u32, slow: bool) -> array<vec2<f32>, R> {
    let col = 2u * ln.tx;
    let row0 = ln.ty * R;
    edge[edge_at(p, 0u, ln.ty, col)] = b[0].x;
    edge[edge_at(p, 0u, ln.ty, col + 1u)] = b[0].y;
    edge[edge_at(p, 1u, ln.ty, col)] = b[7].x;
    edge[edge_at(p, 1u, ln.ty, col + 1u)] = b[7].y;
    // Linking is symmetric (the right neighbour is unlinked to the left exactly when this
    // invocation is unlinked to the right), so these are the columns an unlinked neighbour reads.
    if !ln.right {
        let s = side_at(row0, ln.tx);
        side_r[s] = b[0].y;
        side_r[s + 1u * WX] = b[1].y;
        side_r[s + 2u * WX] = b[2].y;
        side_r[s + 3u * WX] = b[3].y;
        side_r[s + 4u * WX] = b[4].y;
        side_r[s + 5u * WX] = b[5].y;
        side_r[s + 6u * WX] = b[6].y;
        side_r[s + 7u * WX] = b[7].y;
    }
    if !ln.left {
        let s = side_at(row0, ln.tx);
        side_l[s] = b[0].x;
        side_l[s + 1u * WX] = b[1].x;
        side_l[s + 2u * WX] = b[2].x;
        side_l[s + 3u * WX] = b[3].x;
        side_l[s + 4u * WX] = b[4].x;
        side_l[s + 5u * WX] = b[5].x;
        side_l[s + 6u * WX] = b[6].x;
        side_l[s + 7u * WX] = b[7].x;
    }
    workgroupBarrier();
    // Rows past the tile are never in the right region; any finite value does.
    var above = vec2<f32>(0.0f);
    var below = vec2<f32>(0.0f);
    if ln.ty > 0u {
        above = vec2<f32>(edge[edge_at(p, 1u, ln.ty - 1u, col)], edge[edge_at(p, 1u, ln.ty - 1u, col + 1u)]);
    }
    if ln.ty + 1u < WY {
        below = vec2<f32>(edge[edge_at(p, 0u, ln.ty + 1u, col)], edge[edge_at(p, 0u, ln.ty + 1u, col + 1u)]);
    }
    // Every invocation shuffles (subgroup operations in uniform control flow); an unlinked one
    // then takes its neighbour's column from memory instead. At tile columns 0 and 63 the
    // value is a finite field value of some invocation, never used for a cell that is right.
    var left = array<f32, R>(
        from_lane(b[0].y, ln.src.x), from_lane(b[1].y, ln.src.x), from_lane(b[2].y, ln.src.x),
        from_lane(b[3].y, ln.src.x), from_lane(b[4].y, ln.src.x), from_lane(b[5].y, ln.src.x),
        from_lane(b[6].y, ln.src.x), from_lane(b[7].y, ln.src.x),
    );
    var right = array<f32, R>(
        from_lane(b[0].x, ln.src.y), from_lane(b[1].x, ln.src.y), from_lane(b[2].x, ln.src.y),
        from_lane(b[3].x, ln.src.y), from_lane(b[4].x, ln.src.y), from_lane(b[5].x, ln.src.y),
        from_lane(b[6].x, ln.src.y), from_lane(b[7].x, ln.src.y),
    );
    if !ln.left {
        let s = side_at(row0, ln.tx - 1u);
        left = array<f32, R>(
            side_r[s], side_r[s + 1u * WX], side_r[s + 2u * WX], side_r[s + 3u * WX],
            side_r[s + 4u * WX], side_r[s + 5u * WX], side_r[s + 6u * WX], side_r[s + 7u * WX],
        );
    }
    if !ln.right {
        let s = side_at(row0, ln.tx + 1u);
        right = array<f32, R>(
            side_l[s], side_l[s + 1u * WX], side_l[s + 2u * WX], side_l[s + 3u * WX],
            side_l[s + 4u * WX], side_l[s + 5u * WX], side_l[s + 6u * WX], side_l[s + 7u * WX],
        );
    }
    if slow {
        // Every invocation has read the side columns before the next update writes them.
        workgroupBarrier();
    }
    return array<vec2<f32>, R>(
        row(a[0], b[0], above, b[1], left[0], right[0], mask),
        row(a[1], b[1], b[0], b[2], left[1], right[1], mask >> 2u),
        row(a[2], b[2], b[1], b[3], left[2], right[2], mask >> 4u),
        row(a[3], b[3], b[2], b[4], left[3], right[3], mask >> 6u),
        row(a[4], b[4], b[3], b[5], left[4], right[4], mask >> 8u),
        row(a[5], b[5], b[4], b[6], left[5], right[5], mask >> 10u),
        row(a[6], b[6], b[5], b[7], left[6], right[6], mask >> 12u),
        row(a[7], b[7], b[6], below, left[7], right[7], mask >> 14u),
    );
}

// The fields at (i, j), (i, j + 1); 0 outside the grid.
fn load_f(i: i32, j: i32) -> vec2<f32> {
    var v = vec2<f32>(0.0f);
    if i >= 0 && i < i32(steps.nx) {
        let base = u32(i) * steps.ny;
        if j >= 0 && j < i32(steps.ny) {
            v.x = f_in[base + u32(j)];
        }
        if j + 1 >= 0 && j + 1 < i32(steps.ny) {
            v.y = f_in[base + u32(j + 1)];
        }
    }
    return v;
}

fn load_g(i: i32, j: i32) -> vec2<f32> {
    var v = vec2<f32>(0.0f);
    if i >= 0 && i < i32(steps.nx) {
        let base = u32(i) * steps.ny;
        if j >= 0 && j < i32(steps.ny) {
            v.x = g_in[base + u32(j)];
        }
        if j + 1 >= 0 && j + 1 < i32(steps.ny) {
            v.y = g_in[base + u32(j + 1)];
        }
    }
    return v;
}

// Row i of the pair of columns j, j + 1 to the output pair, where in the grid (the caller
// checks the output block).
fn store(i: i32, j: i32, fv: vec2<f32>, gv: vec2<f32>) {
    if i < i32(steps.nx) {
        let base = u32(i) * steps.ny;
        if j < i32(steps.ny) {
            f_out[base + u32(j)] = fv.x;
            g_out[base + u32(j)] = gv.x;
        }
        if j + 1 < i32(steps.ny) {
            f_out[base + u32(j + 1)] = fv.y;
            g_out[base + u32(j + 1)] = gv.y;
        }
    }
}

// Bit (2 r + c) set where cell (i0 + r, j0 + c) is interior.
fn interior_mask(i0: i32, j0: i32) -> u32 {
    // Rows i0 + r for r in lo..hi are interior: 1 <= i <= nx - 2.
    let lo = clamp(1 - i0, 0, i32(R));
    let hi = clamp(i32(steps.nx) - 1 - i0, 0, i32(R));
    if hi <= lo {
        return 0u;
    }
    // Bit r per interior row, then spread to bit 2 r.
    var m = ((1u << u32(hi - lo)) - 1u) << u32(lo);
    m = (m | (m << 4u)) & 0x0f0fu;
    m = (m | (m << 2u)) & 0x3333u;
    m = (m | (m << 1u)) & 0x5555u;
    let ny = i32(steps.ny);
    let c0 = select(0u, m, j0 >= 1 && j0 + 1 < ny);
    let c1 = select(0u, m << 1u, j0 + 1 >= 1 && j0 + 2 < ny);
    return c0 | c1;
}

// The cell (r, c) of a column pair set to `v` where `k` = 2 r + c.
fn put(x: vec2<f32>, v: f32, k: u32, r: u32) -> vec2<f32> {
    return vec2<f32>(select(x.x, v, k == 2u * r), select(x.y, v, k == 2u * r + 1u));
}

// One-dimensional (naga gives subgroup ids only there): invocation `index` is (tx, ty) =
// (index % 32, index / 32).
@compute @workgroup_size(256, 1, 1)
fn wave_blocked(@builtin(workgroup_id) wid: vec3<u32>, lanes: Lanes) {
    let index = lanes.index;
    let tx = index % WX;
    let ty = index / WX;
    // Who holds the neighbours: the lanes next to this one, if they are tx - 1 and tx + 1.
    let src = lane_sources(lanes);
    let got_left = from_lane_u32(index, src.x);
    let got_right = from_lane_u32(index, src.y);
    let ln = Lane(tx, ty, src, tx == 0u || got_left == index - 1u, tx + 1u == WX || got_right == index + 1u);
    // Whether any invocation of the workgroup is unlinked (workgroup memory is not zeroed).
    if index == 0u {
        atomicStore(&unlinked, 0u);
    }
    workgroupBarrier();
    if !(ln.left && ln.right) {
        atomicAdd(&unlinked, 1u);
    }
    workgroupBarrier();
    if index == 0u {
        unlinked_count = atomicLoad(&unlinked);
    }
    let slow = workgroupUniformLoad(&unlinked_count) != 0u;
    // Grid row and column of the invocation's first cell.
    let i0 = i32(wid.y) * OI - K + i32(ty * R);
    let j0 = i32(wid.x) * OJ - K + i32(2u * tx);
    var f = array<vec2<f32>, R>(
        load_f(i0 + 0, j0), load_f(i0 + 1, j0), load_f(i0 + 2, j0), load_f(i0 + 3, j0),
        load_f(i0 + 4, j0), load_f(i0 + 5, j0), load_f(i0 + 6, j0), load_f(i0 + 7, j0),
    );
    var g = array<vec2<f32>, R>(
        load_g(i0 + 0, j0), load_g(i0 + 1, j0), load_g(i0 + 2, j0), load_g(i0 + 3, j0),
        load_g(i0 + 4, j0), load_g(i0 + 5, j0), load_g(i0 + 6, j0), load_g(i0 + 7, j0),
    );
    let mask = interior_mask(i0, j0);
    // The source's cell in the invocation (2 r + c), or 2 R (none).
    var src_k = 2u * R;
    let sr = i32(steps.src_i) - i0;
    let sc = i32(steps.src_j) - j0;
    if sr >= 0 && sr < i32(R) && sc >= 0 && sc < 2 {
        src_k = u32(2 * sr + sc);
    }
    for (var s = 0u; s < steps.nsteps; s++) {
        if src_k < 2u * R {
            let v = steps.s[s];
            g = array<vec2<f32>, R>(
                put(g[0], v, src_k, 0u), put(g[1], v, src_k, 1u), put(g[2], v, src_k, 2u),
                put(g[3], v, src_k, 3u), put(g[4], v, src_k, 4u), put(g[5], v, src_k, 5u),
                put(g[6], v, src_k, 6u), put(g[7], v, src_k, 7u),
            );
        }
        f = half_step(f, g, 0u, ln, mask, slow);
        g = half_step(g, f, 1u, ln, mask, slow);
    }
    // Only strips and columns of the output block write: tile rows 8..56 are ty 1..7, tile
    // columns 8..56 are tx 4..28.
    if ty < 1u || ty >= 7u || tx < 4u || tx >= 28u {
        return;
    }
    store(i0 + 0, j0, f[0], g[0]);
    store(i0 + 1, j0, f[1], g[1]);
    store(i0 + 2, j0, f[2], g[2]);
    store(i0 + 3, j0, f[3], g[3]);
    store(i0 + 4, j0, f[4], g[4]);
    store(i0 + 5, j0, f[5], g[5]);
    store(i0 + 6, j0, f[6], g[6]);
    store(i0 + 7, j0, f[7], g[7]);
}
