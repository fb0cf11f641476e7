// `ordered_sum` of parts/orbit.wgsl for backends whose shader compilers may reassociate
// floating-point sums (DX12, Metal, GL): every sum fenced by `exact`.
fn ordered_sum(x: real) -> real {
    return exact(x);
}
