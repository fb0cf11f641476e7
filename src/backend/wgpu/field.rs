//! How the wave field is held on the GPU, shared by both wave variants (`wave.rs`,
//! `wave_blocked.rs`) and the colormap: its scale, and the entries of the wave bind groups.

/// The GPU holds the field times this, 2^24, so that no value it works with is subnormal.
///
/// Vulkan drivers may flush subnormal `f32` values to zero in shaders (NVIDIA's does; WGSL
/// cannot ask for them to be kept), while the CPU reference — numpy's arithmetic — keeps them.
/// Ahead of a wave front the field holds values down to 2^-149; flushing them changed the last
/// bits there, and roundings then drifted to 2.5e-6 after 1000 steps on the H100 (issue 13).
/// Scaled by 2^24 every value the CPU can hold is a normal `f32` on the GPU (2^-149 becomes
/// 2^-125), sums and differences round exactly as the CPU's (a subnormal result of an addition is
/// exact), and the one product that can round in the subnormal range, `c2 * lap`, is rounded to
/// the CPU's grid in the shader (`cpu_product`, `shaders/parts/wave_cell.wgsl`). Source values are
/// scaled on upload, the field unscaled on read-back and the colormap's thresholds scaled: all
/// exact, being multiplications by powers of two.
pub const FIELD_SCALE: f32 = 16_777_216.0;

/// A storage-buffer entry of a wave bind group layout.
pub(super) fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The per-dispatch step record of `size` bytes at binding 0, picked by a dynamic offset into
/// one uniform buffer.
pub(super) fn step_record_entry(size: usize) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: wgpu::BufferSize::new(size as u64),
        },
        count: None,
    }
}
