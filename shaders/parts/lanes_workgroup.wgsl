// Lanes of shaders/wave_blocked.wgsl without subgroups: no invocation reaches another's
// registers, so every neighbour along j comes through workgroup memory (`Lane.left` and
// `Lane.right` are false for every invocation but those at the tile's edges).

struct Lanes {
    @builtin(local_invocation_index) index: u32,
}

fn lane_sources(l: Lanes) -> vec2<u32> {
    return vec2<u32>(0u, 0u);
}

// Never a neighbour's value: the index check of `Lane.left`/`Lane.right` fails (0xffffffff is no
// invocation of a 256-invocation workgroup), and the value is replaced from workgroup memory.
fn from_lane(x: f32, src: u32) -> f32 {
    return 0.0f;
}

fn from_lane_u32(x: u32, src: u32) -> u32 {
    return 0xffffffffu;
}
