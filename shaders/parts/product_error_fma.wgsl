// `product_error` by one fused multiply-add (`shader::Products::Fused`): the host picks this part
// only where a probe saw the device's `fma` round once (`fma_is_fused` in
// src/backend/wgpu/probe_fma.rs), so `fma(x, ys, -hi)` is the product's exact error.
fn product_error(x: f32, y: f32) -> f32 {
    let ys = exact(y * 0x1p64f);
    let hi = exact(x * ys);
    return fma(x, ys, -hi);
}
