//! How the wave field is held on the GPU, shared by both wave variants (`wave.rs`,
//! `wave_blocked.rs`) and the colormap: its scale (the bindings are in `layout.rs`).

/// The GPU holds the field times this, 2^24, so that no value it works with is subnormal.
///
/// Vulkan drivers may flush subnormal `f32` values to zero in shaders (NVIDIA's does; WGSL
/// cannot ask for them to be kept), while the CPU reference — numpy's arithmetic — keeps them.
/// Ahead of a wave front the field holds values down to 2^-149; flushing them changed the last
/// bits there, and roundings then drifted to 2.5e-6 after 1000 steps on the H100.
/// Scaled by 2^24 every value the CPU can hold is a normal `f32` on the GPU (2^-149 becomes
/// 2^-125), sums and differences round exactly as the CPU's (a subnormal result of an addition is
/// exact), and the one product that can round in the subnormal range, `c2 * lap`, is rounded to
/// the CPU's grid in the shader (`grid_product`, `shaders/parts/wave_cell.wgsl`, also for the scene
/// kernel's other coefficients: damping and Mur's; the matched layer's rule flushes its products
/// below 2^-125 on every backend instead, `layer_product` in `src/sim/wave/pml.rs`). Source values are
/// scaled on upload, the field unscaled on read-back and the colormap's thresholds scaled: all
/// exact, being multiplications by powers of two.
pub const FIELD_SCALE: f32 = 16_777_216.0;
