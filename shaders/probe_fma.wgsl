// Does this device's `fma` round once? For each pair (x, y) of `pairs`: hi = x * y rounded on
// its own (`exact`: `opaque[0]` is 0 at run time), lo = fma(x, y, -hi), the product's rounding
// error where the fma is fused and 0 where it rounds twice. The host compares lo with the CPU's
// fused multiply-add (`fma_is_fused` in src/backend/wgpu/probe_fma.rs) and picks the scene
// kernels' `product_error` by it (shaders/parts/product_error_fma.wgsl).

@group(0) @binding(0) var<storage, read_write> pairs: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> opaque: array<u32>;

fn exact(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ opaque[0]);
}

@compute @workgroup_size(64)
fn probe_fma(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&pairs) {
        return;
    }
    let x = pairs[i].x;
    let y = pairs[i].y;
    let hi = exact(x * y);
    pairs[i] = vec4<f32>(x, y, hi, fma(x, y, -hi));
}
