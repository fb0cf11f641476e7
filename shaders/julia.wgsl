// Julia sets of z^2 + c, and the Mandelbrot set with smooth values, in the precision `real` of
// the variant spliced in below (`mandelbrot_f32.wgsl` or `mandelbrot_f64.wgsl`, which also
// define `exact`). src/backend/wgpu/shader.rs assembles the two shaders from this one body.
//
// CPU twin: `julia_row` in src/sim/julia.rs (orbit: `escape_smooth_f32`/`_f64` in
// src/sim/mandelbrot.rs); CUDA twin: kernels/julia.cu. The point of each column and row is
// computed on the host in f64 (rounded to f32 for the f32 variant) and uploaded in `coords`
// (`width` real parts, `height` imaginary parts, then c's two parts). With `mandel` = 0 (Julia)
// the orbit starts at the pixel and c is fixed; with `mandel` = 1 (Mandelbrot) it starts at 0
// and c is the pixel: the seed's rule, which `Backend::mandelbrot_smooth` runs here. The count
// is the first k in 0..iters with |z_{k+1}|^2 >= 4, else iters; with `want_smooth` the smooth
// value goes to `smooth_values`. Every product and sum goes through `exact` (no FMA), as the CPU rounds.

struct Params {
    width: u32,
    height: u32,
    iters: u32,
    // Always 0: see `exact`.
    opaque: u32,
    mandel: u32,
    want_smooth: u32,
    pad0: u32,
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
//#include SMOOTH

struct Orbit {
    count: u32,
    nu: f32,
}

// `smooth_tail_f32`/`_f64` of src/sim/mandelbrot.rs: from the escaped z_n, up to
// SMOOTH_EXTRA_ITERS more iterations until |z|^2 >= SMOOTH_RADIUS_SQ.
fn smooth_tail(zr0: real, zi0: real, zr20: real, zi20: real, cr: real, ci: real, n0: u32) -> f32 {
    var zr = zr0;
    var zi = zi0;
    var zr2 = zr20;
    var zi2 = zi20;
    var n = n0;
    var mag2 = zr2 + zi2;
    for (var j = 0u; j < SMOOTH_EXTRA_ITERS; j++) {
        if mag2 >= real(SMOOTH_RADIUS_SQ) {
            break;
        }
        let p = exact(zr * zi);
        zr = exact(exact(zr2 - zi2) + cr);
        zi = exact(exact(p + p) + ci);
        zr2 = exact(zr * zr);
        zi2 = exact(zi * zi);
        mag2 = zr2 + zi2;
        n += 1u;
    }
    return smooth_value(n, f32(mag2), params.iters);
}

// `escape_smooth_f32`/`_f64` of src/sim/mandelbrot.rs: z*z + c with z*z as
// (zr*zr - zi*zi) + i(zr*zi + zi*zr), the squares computed once and reused by the escape test.
fn orbit(z0r: real, z0i: real, cr: real, ci: real, iters: u32) -> Orbit {
    var zr = z0r;
    var zi = z0i;
    var zr2 = exact(zr * zr);
    var zi2 = exact(zi * zi);
    for (var k = 0u; k < iters; k++) {
        let p = exact(zr * zi);
        zr = exact(exact(zr2 - zi2) + cr);
        zi = exact(exact(p + p) + ci);
        zr2 = exact(zr * zr);
        zi2 = exact(zi * zi);
        if zr2 + zi2 >= real(4.0) {
            var s = 0.0;
            if params.want_smooth != 0u {
                s = smooth_tail(zr, zi, zr2, zi2, cr, ci, k + 1u);
            }
            return Orbit(k, s);
        }
    }
    return Orbit(iters, f32(iters));
}

@compute @workgroup_size(16, 16, 1)
fn julia(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x = gid.x;
    let y = gid.y;
    var executed = 0u;
    if x < params.width && y < params.height {
        let pr = coords[x];
        let pi = coords[params.width + y];
        var o: Orbit;
        if params.mandel != 0u {
            o = orbit(real(0.0), real(0.0), pr, pi, params.iters);
        } else {
            let at_c = params.width + params.height;
            o = orbit(pr, pi, coords[at_c], coords[at_c + 1u], params.iters);
        }
        let at = y * params.width + x;
        counts[at] = o.count;
        if params.want_smooth != 0u {
            smooth_values[at] = o.nu;
        }
        executed = min(o.count + 1u, params.iters);
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
