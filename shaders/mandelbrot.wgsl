// Mandelbrot escape counts, in the precision `real` of the variant spliced in below:
// `mandelbrot_f32.wgsl` or `mandelbrot_f64.wgsl` (needs `SHADER_F64`), which also define
// `exact`, `CHUNK` and `surely_inside`; the orbit is shaders/parts/orbit.wgsl.
// src/backend/wgpu/shader.rs assembles the two shaders from this one body.
//
// CPU twin: `mandelbrot_row` / `escape_count_f32`, `escape_count_f64` in src/sim/mandelbrot.rs.
// CUDA twin: `mandelbrot_f32` / `mandelbrot_f64` in kernels/mandelbrot.cu (the same interior
// shortcut, chunked escape checks and 16-bit counts).
// The point of each column (`minx + x*px`) and row (`miny + y*py`) is computed on the host in
// f64 (rounded to f32 for the f32 variant), as the CPU path does, and uploaded in `coords`
// (`width` real parts, then `height` imaginary parts). Each invocation computes two pixels side
// by side, (2*gid.x, gid.y) and the next. With `narrow` (iters <= 65535) their counts go out
// as one u32, the left pixel in the low half, in rows of ceil(width/2) words (the last word of
// an odd row has 0 in its high half): half the bytes to the host. Otherwise each count is a u32
// at y*width + x. The iterations of the rule (`min(count + 1, iters)` per pixel, `iters` for a
// pixel the shortcut skips, as CUDA counts them) are summed per workgroup and added into a
// 64-bit total kept as two u32 words (`total[0]` low, `total[1]` high).

struct Params {
    width: u32,
    height: u32,
    iters: u32,
    // Always 0: see `exact`.
    opaque: u32,
    // 1: counts as u16 pairs (iters <= 65535).
    narrow: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> coords: array<real>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
@group(0) @binding(3) var<storage, read_write> total: array<atomic<u32>, 2>;

var<workgroup> wg_lo: atomic<u32>;
var<workgroup> wg_hi: atomic<u32>;

//#include PRECISION
//#include orbit.wgsl

// The count of pixel (x, y): `iters` where the point is surely inside the main cardioid or the
// period-2 bulb, else the orbit's (`escape_count_f32`/`_f64` of src/sim/mandelbrot.rs).
fn escape_count(x: u32, y: u32) -> u32 {
    let cr = coords[x];
    let ci = coords[params.width + y];
    if surely_inside(cr, ci) {
        return params.iters;
    }
    return escape(orbit_start(real(0.0), real(0.0)), cr, ci, params.iters).k;
}

@compute @workgroup_size(16, 16, 1)
fn mandelbrot(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x = 2u * gid.x;
    let y = gid.y;
    var executed = 0u;
    if x < params.width && y < params.height {
        let left = escape_count(x, y);
        executed = min(left + 1u, params.iters);
        var right = 0u;
        let has_right = x + 1u < params.width;
        if has_right {
            right = escape_count(x + 1u, y);
            executed += min(right + 1u, params.iters);
        }
        if params.narrow != 0u {
            counts[y * ((params.width + 1u) / 2u) + gid.x] = left | (right << 16u);
        } else {
            counts[y * params.width + x] = left;
            if has_right {
                counts[y * params.width + x + 1u] = right;
            }
        }
    }
    // Each add detects its own carry, so the pair is an exact 64-bit sum.
    let before = atomicAdd(&wg_lo, executed);
    if before + executed < before {
        atomicAdd(&wg_hi, 1u);
    }
    workgroupBarrier();
    if lid == 0u {
        let lo = atomicLoad(&wg_lo);
        let hi = atomicLoad(&wg_hi);
        let old = atomicAdd(&total[0], lo);
        atomicAdd(&total[1], hi + select(0u, 1u, old + lo < old));
    }
}
