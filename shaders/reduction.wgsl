// Sum reductions of u32 values (wrapping): the WGSL twins of kernels/reduction.cu and
// src/backend/cpu/reduction.rs. `reduce_tree` halves a workgroup array in 8 steps and writes one
// partial sum per workgroup; `reduce_atomic` adds every element to one counter atomically.

struct Params {
    n: u32,
    // Invocations in the whole dispatch (the grid stride).
    stride: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<u32>;
@group(0) @binding(2) var<storage, read_write> partial: array<u32>;
@group(0) @binding(3) var<storage, read_write> total: atomic<u32>;

var<workgroup> s: array<u32, 256>;

@compute @workgroup_size(256)
fn reduce_tree(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    var acc = 0u;
    var i = id.x;
    while (i < params.n) {
        acc += x[i];
        i += params.stride;
    }
    s[lid] = acc;
    workgroupBarrier();
    var half = 128u;
    while (half > 0u) {
        if (lid < half) {
            s[lid] += s[lid + half];
        }
        workgroupBarrier();
        half /= 2u;
    }
    if (lid == 0u) {
        partial[wg.x] = s[0];
    }
}

@compute @workgroup_size(256)
fn reduce_atomic(@builtin(global_invocation_id) id: vec3<u32>) {
    var i = id.x;
    while (i < params.n) {
        atomicAdd(&total, x[i]);
        i += params.stride;
    }
}
