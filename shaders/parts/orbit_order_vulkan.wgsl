// `ordered_sum` of parts/orbit.wgsl on Vulkan: SPIR-V lets a driver contract a multiply and an
// add (absent NoContraction) but never reassociate, and none of the orbit's sums has an
// unfenced product for an operand, so each sum already rounds on its own, in the CPU's order.
fn ordered_sum(x: real) -> real {
    return x;
}
