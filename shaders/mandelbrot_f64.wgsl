// The f64 variant of shaders/mandelbrot.wgsl and shaders/julia.wgsl (needs `SHADER_F64`),
// spliced in where they say `//#include PRECISION`: `real`, `exact`, the chunk of the escape
// loop and the interior test.

alias real = f64;

// `x` itself, through an operation the shader compiler cannot see through (`opaque` is 0 at
// run time): no FMA contraction, so each product and sum rounds on its own, as on the CPU.
// WGSL has no f64 bitcast, so a select on a run-time value stands in for the f32 xor.
fn exact(x: f64) -> f64 {
    return select(x, f64(0.0), params.opaque != 0u);
}

// Iterations between escape checks: MB_CHUNK = 8 of kernels/mandelbrot.cu. A chunk never
// overflows f64: from |z|^2 < 4 with |c| < 1.975 (parts/orbit.wgsl keeps larger |c| off the
// chunked loop), eight steps keep |z|^2 below 7e201, under f64's 1.8e308.
const CHUNK: u32 = 8u;

// `surely_inside` of kernels/mandelbrot.cu, in f64 with its margin: true when c lies well
// inside the main cardioid or the period-2 bulb, where the orbit is drawn to an attracting
// fixed point (2-cycle) with multiplier |lambda|^2 < 0.9, so it never escapes, in exact or
// rounded arithmetic, and the count is `iters`. The margin keeps every point near the
// boundary, where rounding could matter, on the full loop. (|lambda|^2 needs only
// Im(w)^2 = (r - a)/2, so CUDA's copysign has no counterpart here.)
fn surely_inside(cr: f64, ci: f64) -> bool {
    // Period-2 bulb: lambda = 4(c + 1).
    let br = cr + f64(1.0);
    if f64(16.0) * (br * br + ci * ci) < f64(0.9) {
        return true;
    }
    // Main cardioid: lambda = 1 - w, w = sqrt(1 - 4c) (principal root).
    let a = f64(1.0) - f64(4.0) * cr;
    let b = f64(-4.0) * ci;
    let r = sqrt(a * a + b * b);
    let wr = sqrt(f64(0.5) * (r + a));
    let wi2 = max(f64(0.0), f64(0.5) * (r - a));
    let lr = f64(1.0) - wr;
    return lr * lr + wi2 < f64(0.9);
}
