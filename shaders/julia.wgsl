// Julia sets of z^2 + c, and the Mandelbrot set with smooth values, in the precision `real` of
// the variant spliced in below (`mandelbrot_f32.wgsl` or `mandelbrot_f64.wgsl`, which also
// define `exact`, `CHUNK` and `surely_inside`); the orbit is shaders/parts/orbit.wgsl, as in
// shaders/mandelbrot.wgsl. src/backend/wgpu/shader.rs assembles the two shaders from this body.
//
// CPU twin: `julia_row` in src/sim/julia.rs (orbit: `escape_smooth_f32`/`_f64` in
// src/sim/mandelbrot.rs; Mandelbrot mode: `mandelbrot_row_smooth`); CUDA twin: kernels/julia.cu
// (`julia_f32`/`julia_f64`, which checks every iteration and has no interior shortcut). The point
// of each column and row is computed on the host in f64 (rounded to f32 for the f32 variant) and
// uploaded in `coords` (`width` real parts, `height` imaginary parts, then c's two parts). With
// `mandel` = 0 (Julia) the orbit starts at the pixel and c is fixed; with `mandel` = 1
// (Mandelbrot) it starts at 0 and c is the pixel: the seed's rule, which
// `Backend::mandelbrot_smooth` runs here, with the interior shortcut of shaders/mandelbrot.wgsl
// (a skipped pixel has count and smooth value `iters`, as its full orbit gives). The count is
// the first k in 0..iters with |z_{k+1}|^2 >= 4, else iters; with `want_smooth` the smooth value
// goes to `smooth_values` (one f32 per pixel at y*width + x). Each invocation computes two
// pixels side by side, (2*gid.x, gid.y) and the next; their counts go out as
// shaders/mandelbrot.wgsl writes them (u16 pairs in rows of ceil(width/2) words with `narrow`).
// Every product and sum goes through `exact` (no FMA), as the CPU rounds.

struct Params {
    width: u32,
    height: u32,
    iters: u32,
    // Always 0: see `exact`.
    opaque: u32,
    mandel: u32,
    want_smooth: u32,
    // 1: counts as u16 pairs (iters <= 65535).
    narrow: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> coords: array<real>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
@group(0) @binding(3) var<storage, read_write> smooth_values: array<f32>;
@group(0) @binding(4) var<storage, read_write> total: array<atomic<u32>, 2>;

var<workgroup> wg_lo: atomic<u32>;
var<workgroup> wg_hi: atomic<u32>;

//#include PRECISION
//#include orbit.wgsl
//#include SMOOTH

struct Orbit {
    count: u32,
    nu: f32,
}

// `smooth_tail_f32`/`_f64` of src/sim/mandelbrot.rs: from the escaped z_n, up to
// SMOOTH_EXTRA_ITERS more iterations until |z|^2 >= SMOOTH_RADIUS_SQ.
fn smooth_tail(z0: Z, cr: real, ci: real, n0: u32) -> f32 {
    var z = z0;
    var n = n0;
    var mag2 = z.zr2 + z.zi2;
    for (var j = 0u; j < SMOOTH_EXTRA_ITERS; j++) {
        if mag2 >= real(SMOOTH_RADIUS_SQ) {
            break;
        }
        z = step(z, cr, ci);
        mag2 = z.zr2 + z.zi2;
        n += 1u;
    }
    return smooth_value(n, f32(mag2), params.iters);
}

// `escape_smooth_f32`/`_f64` of src/sim/mandelbrot.rs: the count of the orbit from z0 and,
// with `want_smooth`, its smooth value.
fn orbit(z0r: real, z0i: real, cr: real, ci: real, iters: u32) -> Orbit {
    let e = escape(orbit_start(z0r, z0i), cr, ci, iters);
    if e.k < iters {
        var s = 0.0;
        if params.want_smooth != 0u {
            s = smooth_tail(e.z, cr, ci, e.k + 1u);
        }
        return Orbit(e.k, s);
    }
    return Orbit(iters, f32(iters));
}

// Pixel (x, y) in the kernel's mode.
fn pixel(x: u32, y: u32) -> Orbit {
    let pr = coords[x];
    let pi = coords[params.width + y];
    if params.mandel != 0u {
        if surely_inside(pr, pi) {
            return Orbit(params.iters, f32(params.iters));
        }
        return orbit(real(0.0), real(0.0), pr, pi, params.iters);
    }
    let at_c = params.width + params.height;
    return orbit(pr, pi, coords[at_c], coords[at_c + 1u], params.iters);
}

@compute @workgroup_size(16, 16, 1)
fn julia(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x = 2u * gid.x;
    let y = gid.y;
    var executed = 0u;
    if x < params.width && y < params.height {
        let at = y * params.width + x;
        let left = pixel(x, y);
        executed = min(left.count + 1u, params.iters);
        var right = Orbit(0u, 0.0);
        let has_right = x + 1u < params.width;
        if has_right {
            right = pixel(x + 1u, y);
            executed += min(right.count + 1u, params.iters);
        }
        if params.narrow != 0u {
            counts[y * ((params.width + 1u) / 2u) + gid.x] = left.count | (right.count << 16u);
        } else {
            counts[at] = left.count;
            if has_right {
                counts[at + 1u] = right.count;
            }
        }
        if params.want_smooth != 0u {
            smooth_values[at] = left.nu;
            if has_right {
                smooth_values[at + 1u] = right.nu;
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
