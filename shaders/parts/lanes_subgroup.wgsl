// Lanes of shaders/wave_blocked.wgsl with subgroups (`wgpu::Features::SUBGROUP`): a value
// from another invocation of the subgroup by a shuffle. (WGSL's `enable subgroups;` is not
// needed, nor accepted yet, by naga 30: the device feature alone allows these builtins.)

struct Lanes {
    @builtin(local_invocation_index) index: u32,
    @builtin(subgroup_invocation_id) id: u32,
    @builtin(subgroup_size) size: u32,
}

// The subgroup lanes the invocation reads its left and right neighbours' values from: one
// lane down and one up, kept inside the subgroup (an edge lane reads itself, and is not
// linked: `Lane.left`, `Lane.right`).
fn lane_sources(l: Lanes) -> vec2<u32> {
    return vec2<u32>(max(l.id, 1u) - 1u, min(l.id + 1u, l.size - 1u));
}

// `x` of subgroup lane `src`.
fn from_lane(x: f32, src: u32) -> f32 {
    return subgroupShuffle(x, src);
}

fn from_lane_u32(x: u32, src: u32) -> u32 {
    return subgroupShuffle(x, src);
}
