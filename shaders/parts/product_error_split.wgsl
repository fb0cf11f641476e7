// `product_error` by Dekker's two-product on Veltkamp halves of `x` and `ys`, every step `exact`
// (`shader::Products::Split`): for a device whose `fma` may round twice.
fn product_error(x: f32, y: f32) -> f32 {
    let ys = exact(y * 0x1p64f);
    let hi = exact(x * ys);
    let cx = exact(4097.0 * x);
    let xh = exact(cx - exact(cx - x));
    let xl = exact(x - xh);
    let cy = exact(4097.0 * ys);
    let yh = exact(cy - exact(cy - ys));
    let yl = exact(ys - yh);
    return exact(exact(exact(exact(exact(xh * yh) - hi) + exact(xh * yl)) + exact(xl * yh)) + exact(xl * yl));
}
