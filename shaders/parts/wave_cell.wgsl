// The wave's cell rule, shared by shaders/wave.wgsl and shaders/wave_blocked.wgsl (spliced in
// where they say `//#include wave_cell.wgsl`). The including shader defines `opaque()`: a
// uniform that is 0 at run time.
//
// CPU twin: `update_cell` in src/sim/wave.rs.

// `x` itself, through an operation the shader compiler cannot see through (`opaque()` is 0 at
// run time). WGSL cannot forbid a driver to fuse a multiply and an add into one FMA or to
// reorder a sum (Mesa and NVIDIA both do); with every intermediate passed through here, each
// operation rounds on its own, in numpy's order, and the GPU gives the CPU's bits.
fn exact(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ opaque());
}

// The GPU holds the field times 2^24 (`FIELD_SCALE` in src/backend/wgpu/wave.rs), so that no
// value is subnormal: drivers may flush subnormals to zero (NVIDIA's Vulkan driver does), the
// CPU keeps them. Scaled, sums and differences round as the CPU's do (a subnormal sum is exact);
// a product whose unscaled value would be subnormal (below 2^-126, 2^-102 scaled) is rounded
// here to the CPU's subnormal grid, 2^-149 (2^-125 scaled), half to even as IEEE does.
fn cpu_product(p: f32) -> f32 {
    if abs(p) >= 0x1p-102f {
        return p;
    }
    return exact(round(exact(p * 0x1p125f)) * 0x1p-125f);
}

// The update of one interior cell from its neighbours in `g` and its old value `old`:
// c2*(up + down + left + right - 4*mid) + 2*mid - old, in numpy's order of operations,
// each step rounded on its own, as the CPU rounds it.
fn update_cell(c2: f32, old: f32, mid: f32, up: f32, down: f32, left: f32, right: f32) -> f32 {
    let sum = exact(exact(exact(up + down) + left) + right);
    let lap = exact(sum - exact(4.0 * mid));
    return exact(cpu_product(exact(c2 * lap)) + exact(2.0 * mid)) - old;
}
