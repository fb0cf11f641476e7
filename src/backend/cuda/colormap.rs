//! The field through matplotlib's `hot` on CUDA: `kernels/colormap.cu` (`wave_rgba`, and
//! `wave_rgba_strided` for a picture of every `stride`-th cell), the twins of
//! `src/backend/cpu/colormap.rs` and `shaders/colormap.wgsl`.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

use super::launch::launch;
use super::{BackendError, Device, runtime};
use crate::sim::colour::colormap::HOT_LUT;

/// `hot` as one `u32` per entry (bytes R, G, B, A), uploaded once per problem.
pub(super) fn upload_lut(stream: &Arc<CudaStream>) -> Result<CudaSlice<u32>, BackendError> {
    let lut: Vec<u32> = HOT_LUT.iter().map(|px| u32::from_le_bytes(*px)).collect();
    stream.clone_htod(&lut).map_err(|e| runtime("uploading the colormap", e))
}

/// Queues `rgba = hot(f)` (`nx*ny` pixels, the seed's orientation: picture row `ny-1-j`,
/// column `i`) on `stream`.
#[expect(clippy::too_many_arguments, reason = "the kernel's own argument list, in its order")]
pub(super) fn wave_rgba(
    dev: &Device,
    stream: &Arc<CudaStream>,
    f: &CudaSlice<f32>,
    nx: usize,
    ny: usize,
    vmin: f32,
    vmax: f32,
    lut: &CudaSlice<u32>,
    rgba: &mut CudaSlice<u32>,
) -> Result<(), BackendError> {
    let (nx_i32, ny_i32) = (nx as i32, ny as i32);
    let (vmin, vmax) = (f64::from(vmin), f64::from(vmax));
    let cfg = LaunchConfig {
        grid_dim: (ny.div_ceil(32) as u32, nx.div_ceil(32) as u32, 1),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    let mut args = stream.launch_builder(&dev.wave_rgba);
    args.arg(f).arg(&nx_i32).arg(&ny_i32).arg(&vmin).arg(&vmax).arg(lut).arg(rgba);
    // Launch contract: arguments match `wave_rgba`; `f` holds nx*ny values, `rgba` nx*ny pixels.
    launch(args, cfg, "launching wave_rgba")
}

/// Queues `rgba = hot(f)` taken every `stride`-th pixel (`w*h` pixels,
/// [`crate::sim::colour::colormap::strided_size`]; the full picture subsampled) on `stream`.
#[expect(clippy::too_many_arguments, reason = "the kernel's own argument list, in its order")]
pub(super) fn wave_rgba_strided(
    dev: &Device,
    stream: &Arc<CudaStream>,
    f: &CudaSlice<f32>,
    nx: usize,
    ny: usize,
    vmin: f32,
    vmax: f32,
    stride: usize,
    lut: &CudaSlice<u32>,
    rgba: &mut CudaSlice<u32>,
) -> Result<(), BackendError> {
    let (w, h) = crate::sim::colour::colormap::strided_size(nx, ny, stride);
    if rgba.len() < w * h || f.len() < nx * ny {
        return Err(BackendError::Invalid(format!("wave_rgba_strided: buffers too small for {w}x{h} of {nx}x{ny}")));
    }
    let (nx_i32, ny_i32, stride_i32) = (nx as i32, ny as i32, stride.max(1) as i32);
    let (vmin, vmax) = (f64::from(vmin), f64::from(vmax));
    let cfg = LaunchConfig {
        grid_dim: (w.div_ceil(32) as u32, h.div_ceil(8) as u32, 1),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    let mut args = stream.launch_builder(&dev.wave_rgba_strided);
    args.arg(f).arg(&nx_i32).arg(&ny_i32).arg(&vmin).arg(&vmax).arg(&stride_i32).arg(lut).arg(rgba);
    // Launch contract: arguments match `wave_rgba_strided`; `f` holds nx*ny values, `rgba` at least w*h
    // pixels (checked above), and the kernel reads only cells i < nx, j < ny.
    launch(args, cfg, "launching wave_rgba_strided")
}
