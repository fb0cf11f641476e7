// SAXPY, y = a*x + y: the WGSL twin of `saxpy` in kernels/saxpy.cu and
// src/backend/cpu/saxpy.rs. One invocation per element, grid-stride. (A driver may fuse the
// multiply and add: the lesson checks within a rounding tolerance.)

struct Params {
    n: u32,
    a: f32,
    // Invocations in the whole dispatch (the grid stride).
    stride: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn saxpy(@builtin(global_invocation_id) id: vec3<u32>) {
    var i = id.x;
    while (i < params.n) {
        y[i] = params.a * x[i] + y[i];
        i += params.stride;
    }
}
