// Temporal blocking for the wave: up to K/2 whole time steps (K updates) per dispatch.
//
// The WGSL twin of `wave_steps` in kernels/wave.cu; bit for bit the CPU's `wave_update`
// (src/backend/cpu.rs, cell rule `update_cell` in src/sim/wave.rs) run `nsteps` times.
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

struct Steps {
    nx: u32,
    ny: u32,
    src_i: u32,
    src_j: u32,
    c2: f32,
    // Always 0: see `exact`.
    opaque: u32,
    // Time steps in this dispatch, 1..=K/2.
    nsteps: u32,
    _pad: u32,
    // The source value of each of those steps.
    s: vec4<f32>,
}

@group(0) @binding(0) var<uniform> steps: Steps;
@group(0) @binding(1) var<storage, read> f_in: array<f32>;
@group(0) @binding(2) var<storage, read> g_in: array<f32>;
@group(0) @binding(3) var<storage, read_write> f_out: array<f32>;
@group(0) @binding(4) var<storage, read_write> g_out: array<f32>;

// One field of the tile, for the neighbours (16 KiB: fits wgpu's default limits).
var<workgroup> tile: array<f32, 4096>;

// `x` itself, through an operation the shader compiler cannot see through (`opaque` is 0 at
// run time): no FMA contraction, no reordering; see shaders/wave.wgsl.
fn exact(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ steps.opaque);
}

// c2*(up + down + left + right - 4*mid) + 2*mid - old, in numpy's order, each step rounded.
fn update_cell(old: f32, mid: f32, up: f32, down: f32, left: f32, right: f32) -> f32 {
    let sum = exact(exact(exact(up + down) + left) + right);
    let lap = exact(sum - exact(4.0 * mid));
    return exact(exact(steps.c2 * lap) + exact(2.0 * mid)) - old;
}

// a = update(a, b) on the invocation's column (tile rows ty*R .. ty*R + R, tile column tx);
// rows whose bit is clear in `mask` keep their value.
fn half_step(a: ptr<function, array<f32, R>>, b: ptr<function, array<f32, R>>, tx: u32, ty: u32, mask: u32) {
    let base = ty * R * TJ + tx;
    for (var r = 0u; r < R; r++) {
        tile[base + r * TJ] = (*b)[r];
    }
    workgroupBarrier();
    // Values past the tile are never in the right region; any finite value does.
    var above = 0.0f;
    var below = 0.0f;
    if ty > 0u {
        above = tile[base - TJ];
    }
    if ty + 1u < WY {
        below = tile[base + R * TJ];
    }
    for (var r = 0u; r < R; r++) {
        let at = base + r * TJ;
        var left = 0.0f;
        var right = 0.0f;
        if tx > 0u {
            left = tile[at - 1u];
        }
        if tx + 1u < TJ {
            right = tile[at + 1u];
        }
        var up = above;
        if r > 0u {
            up = (*b)[r - 1u];
        }
        var down = below;
        if r + 1u < R {
            down = (*b)[r + 1u];
        }
        let v = update_cell((*a)[r], (*b)[r], up, down, left, right);
        if (mask & (1u << r)) != 0u {
            (*a)[r] = v;
        }
    }
    // Everyone has read `tile` before the next half step overwrites it.
    workgroupBarrier();
}

@compute @workgroup_size(64, 4, 1)
fn wave_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let nx = i32(steps.nx);
    let ny = i32(steps.ny);
    let tx = lid.x;
    let ty = lid.y;
    // Grid cell of the invocation's first row.
    let i0 = i32(wid.y) * OI - K + i32(ty * R);
    let j = i32(wid.x) * OJ - K + i32(tx);
    let j_in = j >= 0 && j < ny;
    let j_interior = j >= 1 && j + 1 < ny;
    var f: array<f32, R>;
    var g: array<f32, R>;
    var mask = 0u;
    for (var r = 0u; r < R; r++) {
        let i = i0 + i32(r);
        f[r] = 0.0f;
        g[r] = 0.0f;
        if j_in && i >= 0 && i < nx {
            let idx = u32(i) * steps.ny + u32(j);
            f[r] = f_in[idx];
            g[r] = g_in[idx];
        }
        if j_interior && i >= 1 && i + 1 < nx {
            mask |= 1u << r;
        }
    }
    // The source's row in the column, or a row that is never matched.
    var src_r = R;
    let sr = i32(steps.src_i) - i0;
    if j == i32(steps.src_j) && sr >= 0 && sr < i32(R) {
        src_r = u32(sr);
    }
    for (var s = 0u; s < steps.nsteps; s++) {
        let sv = steps.s[s];
        for (var r = 0u; r < R; r++) {
            if r == src_r {
                g[r] = sv;
            }
        }
        half_step(&f, &g, tx, ty, mask);
        half_step(&g, &f, tx, ty, mask);
    }
    // The output block: K cells in from each tile edge, inside the grid.
    let tj = i32(tx);
    if !j_in || tj < K || tj >= K + OJ {
        return;
    }
    for (var r = 0u; r < R; r++) {
        let ti = i32(ty * R + r);
        let i = i0 + i32(r);
        if ti >= K && ti < K + OI && i < nx {
            let idx = u32(i) * steps.ny + u32(j);
            f_out[idx] = f[r];
            g_out[idx] = g[r];
        }
    }
}
