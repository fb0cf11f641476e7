// The f32 variant of shaders/mandelbrot.wgsl, spliced in where it says `//#include PRECISION`.

alias real = f32;

// `x` itself, through an operation the shader compiler cannot see through (`opaque` is 0 at
// run time). WGSL cannot forbid a driver to fuse a multiply and an add into one FMA (Mesa and
// NVIDIA both do), which changes the rounding and, near the set's boundary, the count; with
// every product and sum passed through here each rounds on its own, as on the CPU.
fn exact(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ params.opaque);
}
