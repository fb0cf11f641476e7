// The Mandelbrot set and Julia sets with smooth values and the exterior distance estimate: the
// variant of shaders/julia.wgsl that carries a derivative beside the orbit, in the precision
// `real` of the variant spliced in below (`mandelbrot_f32.wgsl` / `mandelbrot_f64.wgsl`); a
// shader of its own, so julia.wgsl keeps its speed. With `mandel` = 1 (the Mandelbrot set: the
// orbit starts at 0, c is the pixel) the derivative is dz/dc (dz0 = 0, dz' = 2 z dz + 1); with
// `mandel` = 0 (the Julia set of c, the orbit starts at the pixel) it is dz/dz0 (dz0 = 1,
// dz' = 2 z dz + 0).
//
// CPU twins: `distance_row` (Mandelbrot) and `julia_distance_row` (Julia) in
// src/sim/fractal/distance.rs; CUDA twin: `julia_de_f32` / `julia_de_f64` in kernels/julia.cu. Every iteration is checked (no chunks, no interior
// shortcut: the derivative needs every step). The count is the first k in 0..iters with
// |z_{k+1}|^2 >= 4, else iters (the orbit through `step`, every product and sum rounded as the
// CPU's); the smooth value as shaders/julia.wgsl; then per pixel three f32 in `de`: the distance
// |z| ln|z| / |dz| in pixels (of width `coords[width + height]`) and the unit normal z/dz / |z/dz|,
// formed in f32 from `real` ratios. c's two parts follow the pixel width in `coords` (Julia
// mode). One pixel an invocation; counts one u32 a pixel.

struct Params {
    width: u32,
    height: u32,
    iters: u32,
    // Always 0: see `exact`.
    opaque: u32,
    // 1: the Mandelbrot set; 0: the Julia set of c.
    mandel: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> coords: array<real>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
@group(0) @binding(3) var<storage, read_write> smooth_values: array<f32>;
@group(0) @binding(4) var<storage, read_write> de: array<f32>;
@group(0) @binding(5) var<storage, read_write> total: array<atomic<u32>, 2>;

var<workgroup> wg_lo: atomic<u32>;
var<workgroup> wg_hi: atomic<u32>;

//#include PRECISION
//#include orbit.wgsl
//#include SMOOTH

// The derivative: dz/dc (Mandelbrot) or dz/dz0 (Julia).
struct D {
    dr: real,
    di: real,
}

// dz' = 2 z dz + add (1: dz/dc; 0: dz/dz0) from the z before the step, as `orbit_distance_*`
// writes it.
fn de_step(z: Z, d: D, add: real) -> D {
    let dr = ordered_sum(exact(real(2.0) * ordered_sum(exact(z.zr * d.dr) - exact(z.zi * d.di))) + add);
    let di = exact(real(2.0) * ordered_sum(exact(z.zr * d.di) + exact(z.zi * d.dr)));
    return D(dr, di);
}

// `distance_and_normal` of src/sim/fractal/distance.rs over the pixel width `px`: the distance in
// pixels and the normal's direction are ratios formed in `real` with the derivative scaled by its
// largest part (no square of it, which overflows f32 long before the derivative does), the
// logarithm in f32.
fn de_out(z: Z, d: D, px: real, at: u32) {
    let mag2 = z.zr2 + z.zi2;
    let dbig = max(abs(d.dr), abs(d.di));
    // A zero derivative (a Julia orbit from the critical point 0): no distance, as the CPU's
    // infinite one becomes 0. Tested here, not left to `dist - dist` below, which a driver
    // may fold to 0 for a NaN (lavapipe does).
    var dist = 0.0;
    if dbig > real(0.0) {
        let nr = d.dr / dbig;
        let ni = d.di / dbig;
        let ratio = sqrt(mag2) / dbig / sqrt(nr * nr + ni * ni) / px;
        dist = f32(ratio) * 0.5 * log(f32(mag2));
    }
    let ur = z.zr * d.dr + z.zi * d.di;
    let ui = z.zi * d.dr - z.zr * d.di;
    let big = max(abs(ur), abs(ui));
    var u = vec2<f32>(0.0, 0.0);
    if big > real(0.0) && big - big == real(0.0) {
        u = normalize(vec2<f32>(f32(ur / big), f32(ui / big)));
    }
    de[3u * at] = select(0.0, dist, dist - dist == 0.0);
    de[3u * at + 1u] = u.x;
    de[3u * at + 2u] = u.y;
}

// Pixel `at` at the point (pr, pi): its count, written out with the smooth value and distance.
fn pixel(pr: real, pi: real, px: real, at: u32) -> u32 {
    let mandel = params.mandel != 0u;
    let at_c = params.width + params.height + 1u;
    let cr = select(coords[at_c], pr, mandel);
    let ci = select(coords[at_c + 1u], pi, mandel);
    var z = orbit_start(select(pr, real(0.0), mandel), select(pi, real(0.0), mandel));
    var d = D(select(real(1.0), real(0.0), mandel), real(0.0));
    let add = select(real(0.0), real(1.0), mandel);
    let iters = params.iters;
    for (var k = 0u; k < iters; k++) {
        d = de_step(z, d, add);
        z = step(z, cr, ci);
        if z.zr2 + z.zi2 >= real(4.0) {
            var n = k + 1u;
            var mag2 = z.zr2 + z.zi2;
            for (var j = 0u; j < SMOOTH_EXTRA_ITERS; j++) {
                if mag2 >= real(SMOOTH_RADIUS_SQ) {
                    break;
                }
                d = de_step(z, d, add);
                z = step(z, cr, ci);
                mag2 = z.zr2 + z.zi2;
                n += 1u;
            }
            smooth_values[at] = smooth_value(n, f32(mag2), iters);
            de_out(z, d, px, at);
            return k;
        }
    }
    smooth_values[at] = f32(iters);
    de[3u * at] = 0.0;
    de[3u * at + 1u] = 0.0;
    de[3u * at + 2u] = 0.0;
    return iters;
}

@compute @workgroup_size(16, 16, 1)
fn julia_de(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x = gid.x;
    let y = gid.y;
    var executed = 0u;
    if x < params.width && y < params.height {
        let at = y * params.width + x;
        let px = coords[params.width + params.height];
        let count = pixel(coords[x], coords[params.width + y], px, at);
        counts[at] = count;
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
