// `ordered` on Vulkan: SPIR-V lets a driver contract a multiply and an add (absent
// NoContraction) but never reassociate, so a sum of values none of which is an inexact product
// already rounds in numpy's order (see `update_cell` in wave_cell.wgsl).
fn ordered(x: f32) -> f32 {
    return x;
}
