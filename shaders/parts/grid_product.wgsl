// The scene kernels' products, rounded as the CPU rounds them (spliced in by
// shaders/parts/scene_rules.wgsl after wave_cell.wgsl, which defines `exact`). `product_error`
// comes from a part the host picks per device (`shader::Products`): one fused multiply-add where
// the device's `fma` is fused (shaders/parts/product_error_fma.wgsl), Dekker's two-product
// elsewhere (shaders/parts/product_error_split.wgsl).

// `x * y` rounded once, as the CPU rounds the unscaled product, for a coefficient `x` (c2, a
// damping factor, Mur's coefficient: between 2^-20 and 2, or 0; the matched layer's rule flushes its
// products instead, `layer_product` in shaders/parts/scene_rules.wgsl)
// and a scaled field value `y`.
// Where the unscaled product is normal (2^-102 and up, scaled) the GPU's product is the CPU's.
// Below, the CPU rounds to its subnormal grid 2^-149 (2^-125 scaled), half to even. The GPU's
// product `p` is first rounded to 24 bits, then here to the grid: the same result unless the
// first rounding landed exactly on a half-way point of the grid (no half-way point lies strictly
// between the product and its nearest 24-bit value), where the product's own error says which
// way to go. A product flushed to zero by the driver was under half a grid step: 0 either way.
// Before the ties were settled, every scene with a c2 other than 0.25 or with damping drifted
// from cpu1: 5.5e-6 after 3000 steps on the H100, 7.3e-6 on llvmpipe after 800.
fn grid_product(x: f32, y: f32) -> f32 {
    let p = exact(x * y);
    if abs(p) >= 0x1p-102f || y == 0.0 {
        return p;
    }
    // In units of the grid (an exact scaling by a power of two).
    let q = exact(p * 0x1p125f);
    var r = round(q);
    let d = exact(q - r);
    if abs(d) == 0.5 {
        let lo = product_error(x, y);
        if d == 0.5 && lo > 0.0 {
            r = exact(r + 1.0);
        } else if d == -0.5 && lo < 0.0 {
            r = exact(r - 1.0);
        }
    }
    return exact(r * 0x1p-125f);
}

// `product_error(x, y)` is the sign-bearing error `x * ys - round24(x * ys)` of `ys = y * 2^64`
// (an exact scaling), exactly. Why 2^64: a tie needs a grid half-step, so |x * y| >= 2^-126,
// and with |x| <= 2 the scaled product is at least 2^-63; a nonzero error of a product of two
// 24-bit values is a multiple of ulp(x) * ulp(ys) > |x * ys| * 2^-48 >= 2^-111, normal, so a
// driver that flushes subnormals cannot lose it (nor any partial product of Dekker's). At the
// top, |x * ys| < 2^-102 * 2^64 is far from overflow.
//#include PRODUCT_ERROR
