// `ordered` for backends whose shader compilers may reassociate floating-point sums (DX12,
// Metal, GL) and for the scene kernel: every sum of the cell rule rounds on its own, in
// numpy's order (see `update_cell` in wave_cell.wgsl).
fn ordered(x: f32) -> f32 {
    return exact(x);
}
