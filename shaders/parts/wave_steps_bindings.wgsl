// The dispatch's parameters and the two field pairs of the temporal-blocking wave kernels
// (shaders/wave_blocked.wgsl and shaders/wave_blocked_workgroup.wgsl, where they say
// `//#include wave_steps_bindings.wgsl`); `Steps` is `BlockedSteps` in
// src/backend/wgpu/wave_blocked.rs. Reads go to (f_in, g_in), writes to (f_out, g_out).

struct Steps {
    nx: u32,
    ny: u32,
    src_i: u32,
    src_j: u32,
    c2: f32,
    // Always 0: see `exact`.
    opaque: u32,
    // Time steps in this dispatch, 1..=K/2.
    nsteps: u32,
    _pad: u32,
    // The source value of each of those steps.
    s: vec4<f32>,
}

@group(0) @binding(0) var<uniform> steps: Steps;
@group(0) @binding(1) var<storage, read> f_in: array<f32>;
@group(0) @binding(2) var<storage, read> g_in: array<f32>;
@group(0) @binding(3) var<storage, read_write> f_out: array<f32>;
@group(0) @binding(4) var<storage, read_write> g_out: array<f32>;
