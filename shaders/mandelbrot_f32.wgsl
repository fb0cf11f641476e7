// The f32 variant of shaders/mandelbrot.wgsl and shaders/julia.wgsl, spliced in where they say
// `//#include PRECISION`: `real`, `exact`, the chunk of the escape loop and the interior test.

alias real = f32;

// `x` itself, through an operation the shader compiler cannot see through (`opaque` is 0 at
// run time). WGSL cannot forbid a driver to fuse a multiply and an add into one FMA (Mesa and
// NVIDIA both do), which changes the rounding and, near the set's boundary, the count; with
// every product and sum passed through here each rounds on its own, as on the CPU.
fn exact(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ params.opaque);
}

// Iterations between escape checks (CUDA: MB_CHUNK = 8 in kernels/mandelbrot.cu). Four here, so
// that a chunk never overflows f32: from |z|^2 < 4 with |c| < 1.975 (parts/orbit.wgsl keeps
// larger |c| off the chunked loop), |z|^2 stays below 36, 1.5e3, 2.1e6, 4.1e12 over four steps,
// far under f32's 3.4e38 (a sixth step could pass it). No inf or NaN ever reaches the check.
const CHUNK: u32 = 4u;

// `surely_inside` of kernels/mandelbrot.cu, in f32 for adapters without f64: true when c lies
// well inside the main cardioid or the period-2 bulb, where the count is `iters`.
//
// CUDA tests |lambda|^2 < 0.9 for the attracting cycle's multiplier lambda, in double, on the
// very f32 point the f32 kernel iterates. Here the same expression is evaluated in f32: about
// ten roundings of values below 40 (WGSL's sqrt within a few ULP) put the computed |lambda|^2
// within 1e-5 of the true one wherever it is below 1 (the one cancellation, r - a for a small
// imaginary part, errs by an ULP of r before it is halved, never before a square root that
// would magnify it; where r + a cancels, c is outside the cardioid and |lambda|^2 > 0.99).
// So a computed value under 0.88 means a true |lambda|^2 under 0.8801, inside CUDA's margin:
// every pixel declared inside here is declared inside by CUDA's f32 kernel, whose counts equal
// the CPU's. Why such a point never escapes in rounded arithmetic: its orbit is drawn to the
// attracting fixed point alpha (|2 alpha| = |lambda| < 0.94), and f(z) - alpha =
// (z - alpha)(z + alpha) maps the disc |z - alpha| <= 0.025 into |z - alpha| <= 0.0241: a gap
// of 9e-4, thousands of times one step's f32 rounding, so once there the rounded orbit stays
// (the bulb's 2-cycle likewise under f(f(z))). Tested on the margin's boundary, every angle:
// `interior_margin_never_escapes` in tests/mandelbrot.rs.
fn surely_inside(cr: f32, ci: f32) -> bool {
    // Period-2 bulb: lambda = 4(c + 1).
    let br = cr + 1.0;
    if 16.0 * (br * br + ci * ci) < 0.88 {
        return true;
    }
    // Main cardioid: lambda = 1 - w, w = sqrt(1 - 4c) (principal root); |lambda|^2 needs
    // only Im(w)^2 = (r - a)/2, not its sign.
    let a = 1.0 - 4.0 * cr;
    let b = -4.0 * ci;
    let r = sqrt(a * a + b * b);
    let wr = sqrt(0.5 * (r + a));
    let wi2 = max(0.0, 0.5 * (r - a));
    let lr = 1.0 - wr;
    return lr * lr + wi2 < 0.88;
}
