// The f64 variant of shaders/mandelbrot.wgsl (needs `SHADER_F64`), spliced in where it says
// `//#include PRECISION`.

alias real = f64;

// `x` itself, through an operation the shader compiler cannot see through (`opaque` is 0 at
// run time): no FMA contraction, so each product and sum rounds on its own, as on the CPU.
// WGSL has no f64 bitcast, so a select on a run-time value stands in for the f32 xor.
fn exact(x: f64) -> f64 {
    return select(x, f64(0.0), params.opaque != 0u);
}
