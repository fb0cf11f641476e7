// The wave's cell rule, shared by shaders/wave.wgsl and the blocked kernels (spliced in where
// they say `//#include wave_cell.wgsl`). The including shader defines `opaque()`: a uniform
// that is 0 at run time. `ordered` comes from a part the host picks per backend
// (shaders/parts/order_*.wgsl, `shader::Order`).
//
// CPU twin: `update_cell` in src/sim/wave.rs.

// `x` itself, through an operation the shader compiler cannot see through (`opaque()` is 0 at
// run time). WGSL cannot forbid a driver to fuse a multiply and an add into one FMA or to
// reorder a sum (Mesa and NVIDIA both fuse); a value passed through here is rounded on its
// own before it is used, so the GPU gives the CPU's bits.
fn exact(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ opaque());
}

//#include ORDER

// The GPU holds the field times 2^24 (`FIELD_SCALE` in src/backend/wgpu/wave.rs), so that no
// value is subnormal: drivers may flush subnormals to zero (NVIDIA's Vulkan driver does), the
// CPU keeps them. Scaled, sums and differences round as the CPU's do (a subnormal sum is exact);
// a product whose unscaled value would be subnormal (below 2^-126, 2^-102 scaled) is rounded
// here to the CPU's subnormal grid, 2^-149 (2^-125 scaled), half to even as IEEE does.
// No fence inside: `p * 2^125` and `r * 2^-125` (r an integer below 2^23) are exact products,
// so a driver that fuses either into a neighbouring add rounds nothing differently.
fn cpu_product(p: f32) -> f32 {
    if abs(p) >= 0x1p-102f {
        return p;
    }
    return round(p * 0x1p125f) * 0x1p-125f;
}

// The update of one interior cell from its neighbours in `g` and its old value `old`:
// c2*(up + down + left + right - 4*mid) + 2*mid - old, in numpy's order of operations,
// each step rounded on its own, as the CPU rounds it. Fence by fence:
// - `exact(c2 * lap)`: needed everywhere. The product is added to 2*mid next; fused into an
//   FMA it would skip its own rounding (llvmpipe did: 3.7e-6 off at 37x53 after 300 steps).
// - `4.0 * mid`, `2.0 * mid`: no fence. Multiplying by a power of two is exact (no overflow at
//   the field's scale), so `fma(-4, mid, sum)` and `fma(2, mid, p)` round exactly as the
//   separate multiply and add do.
// - `ordered(..)` on the sums: no add here has a product as an operand that could be fused
//   (the two that do take exact products), so only reassociation could change a rounding.
//   SPIR-V (Vulkan) allows contraction and nothing else, so on Vulkan `ordered` is the value
//   itself; on other backends, whose compilers may reassociate (HLSL without `precise`, MSL's
//   fast math, GLSL), it is `exact`.
fn update_cell(c2: f32, old: f32, mid: f32, up: f32, down: f32, left: f32, right: f32) -> f32 {
    let sum = ordered(ordered(ordered(up + down) + left) + right);
    let lap = ordered(sum - 4.0 * mid);
    return ordered(cpu_product(exact(c2 * lap)) + 2.0 * mid) - old;
}
