// The wave update of wavebrot: one half time step, `update(f, g)` of the seed's `wave2d`.
//
// CPU twin: `wave_update` in src/backend/cpu.rs (cell rule: `update_cell` in src/sim/wave.rs).
// Fields are row-major `f[i*ny + j]`; `j` is the fast index, so `global_invocation_id.x`
// walks `j` and each workgroup row reads and writes contiguous memory.
//
// The source is fused in (no separate dispatch): the host sets `src_in` on the first update
// of a time step, whose read field `g` holds the source, and `src_out` on the second, which
// writes into that field. Reads of the source cell then see `s = sin(freq * tstep)` (an f64
// value rounded to f32 on the host; no `sin` on the GPU), exactly as if `g[src] = s` had been
// stored before the step.

struct Step {
    nx: u32,
    ny: u32,
    // Flat index of the source cell in the read field `g`, or 0xffffffff.
    src_in: u32,
    // Flat index of the source cell in the written field `f`, or 0xffffffff.
    src_out: u32,
    c2: f32,
    // The source value of this time step.
    s: f32,
    // Always 0: see `exact`.
    opaque: u32,
    _pad: u32,
}

// One entry per dispatch, selected with a dynamic offset: a whole batch of steps is uploaded
// once and encoded into one compute pass.
@group(0) @binding(0) var<uniform> step: Step;
@group(0) @binding(1) var<storage, read_write> f: array<f32>;
@group(0) @binding(2) var<storage, read> g: array<f32>;

// `x` itself, through an operation the shader compiler cannot see through (`opaque` is 0 at
// run time). WGSL cannot forbid a driver to fuse a multiply and an add into one FMA or to
// reorder a sum (Mesa and NVIDIA both do); with every intermediate passed through here, each
// operation rounds on its own, in numpy's order, and the GPU gives the CPU's bits.
fn exact(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ step.opaque);
}

fn g_at(idx: u32) -> f32 {
    return select(g[idx], step.s, idx == step.src_in);
}

// The update of one interior cell from its neighbours in `g` and its old value `old`:
// c2*(up + down + left + right - 4*mid) + 2*mid - old, in numpy's order of operations
// (src/sim/wave.rs `update_cell`), each step rounded on its own.
fn update_cell(old: f32, mid: f32, up: f32, down: f32, left: f32, right: f32) -> f32 {
    let sum = exact(exact(exact(up + down) + left) + right);
    let lap = exact(sum - exact(4.0 * mid));
    return exact(exact(step.c2 * lap) + exact(2.0 * mid)) - old;
}

// One cell per invocation: a 32x8 workgroup covers 32 cells of 8 rows.
@compute @workgroup_size(32, 8, 1)
fn wave_update(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let i = gid.y;
    let nx = step.nx;
    let ny = step.ny;
    if i >= nx || j >= ny {
        return;
    }
    let idx = i * ny + j;
    if i == 0u || j == 0u || i + 1u == nx || j + 1u == ny {
        // The border stays as it is; a source on the border holds its value there.
        if idx == step.src_out {
            f[idx] = step.s;
        }
        return;
    }
    let old = select(f[idx], step.s, idx == step.src_out);
    f[idx] = update_cell(old, g_at(idx), g_at(idx - ny), g_at(idx + ny), g_at(idx - 1u), g_at(idx + 1u));
}

// Rows per invocation in `wave_update_rows`.
const ROWS: u32 = 4u;

// `ROWS` cells of one column per invocation, walking down `i` with the column of `g` kept in
// registers (one new load of `g` per cell instead of three); a 32x8 workgroup covers 32 cells
// of 32 rows. The host times both entry points on a large grid and keeps the faster.
@compute @workgroup_size(32, 8, 1)
fn wave_update_rows(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let i0 = gid.y * ROWS;
    let nx = step.nx;
    let ny = step.ny;
    if j >= ny || i0 >= nx {
        return;
    }
    let edge_j = j == 0u || j + 1u == ny;
    var idx = i0 * ny + j;
    var up = 0.0f;
    if i0 > 0u {
        up = g_at(idx - ny);
    }
    var mid = g_at(idx);
    for (var r = 0u; r < ROWS; r++) {
        let i = i0 + r;
        if i >= nx {
            break;
        }
        var down = 0.0f;
        if i + 1u < nx {
            down = g_at(idx + ny);
        }
        if edge_j || i == 0u || i + 1u == nx {
            if idx == step.src_out {
                f[idx] = step.s;
            }
        } else {
            let old = select(f[idx], step.s, idx == step.src_out);
            f[idx] = update_cell(old, mid, up, down, g_at(idx - 1u), g_at(idx + 1u));
        }
        up = mid;
        mid = down;
        idx += ny;
    }
}
