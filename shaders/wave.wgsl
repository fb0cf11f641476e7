// The wave update of wavebrot: one half time step, `update(f, g)` of the seed's `wave2d`.
//
// The `simple` variant (one update per dispatch); `wave_blocked.wgsl` is the `blocked` one.
// CPU twin: `wave_update` in src/backend/cpu/wave.rs (cell rule: `update_cell` in src/sim/wave.rs;
// its WGSL form is shaders/parts/wave_cell.wgsl, shared by both variants).
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

fn g_at(idx: u32) -> f32 {
    return select(g[idx], step.s, idx == step.src_in);
}

fn opaque() -> u32 {
    return step.opaque;
}

//#include wave_cell.wgsl

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
    f[idx] = update_cell(step.c2, old, g_at(idx), g_at(idx - ny), g_at(idx + ny), g_at(idx - 1u), g_at(idx + 1u));
}
