// Mandelbrot escape counts, in the precision `real` of the variant spliced in below:
// `mandelbrot_f32.wgsl` or `mandelbrot_f64.wgsl` (needs `SHADER_F64`), which also define
// `exact`. src/backend/wgpu/shader.rs assembles the two shaders from this one body.
//
// CPU twin: `mandelbrot_row` / `escape_count_f32`, `escape_count_f64` in src/sim/mandelbrot.rs.
// The point of each column (`minx + x*px`) and row (`miny + y*py`) is computed on the host in
// f64 (rounded to f32 for the f32 variant), as the CPU path does, and uploaded in `coords`
// (`width` real parts, then `height` imaginary parts). The iterations executed
// (`min(count + 1, iters)` per pixel) are summed per workgroup and added into a 64-bit total
// kept as two u32 words (`total[0]` low, `total[1]` high).

struct Params {
    width: u32,
    height: u32,
    iters: u32,
    // Always 0: see `exact`.
    opaque: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> coords: array<real>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
@group(0) @binding(3) var<storage, read_write> total: array<atomic<u32>, 2>;

var<workgroup> wg_lo: atomic<u32>;
var<workgroup> wg_hi: atomic<u32>;

//#include PRECISION

// `escape_count_f32`/`escape_count_f64` of src/sim/mandelbrot.rs: z*z + c with z*z as
// (zr*zr - zi*zi) + i(zr*zi + zi*zr), the squares computed once and reused by the escape test (the same products the CPU forms).
fn escape_count(cr: real, ci: real, iters: u32) -> u32 {
    var zr = real(0.0);
    var zi = real(0.0);
    var zr2 = real(0.0);
    var zi2 = real(0.0);
    for (var k = 0u; k < iters; k++) {
        let p = exact(zr * zi);
        zr = exact(exact(zr2 - zi2) + cr);
        zi = exact(exact(p + p) + ci);
        zr2 = exact(zr * zr);
        zi2 = exact(zi * zi);
        if zr2 + zi2 >= real(4.0) {
            return k;
        }
    }
    return iters;
}

@compute @workgroup_size(16, 16, 1)
fn mandelbrot(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x = gid.x;
    let y = gid.y;
    var executed = 0u;
    if x < params.width && y < params.height {
        let count = escape_count(coords[x], coords[params.width + y], params.iters);
        counts[y * params.width + x] = count;
        executed = min(count + 1u, params.iters);
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
