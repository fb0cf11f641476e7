//! The field through matplotlib's `hot` on CUDA: `kernels/colormap.cu` (`wave_rgba`), the twin
//! of `src/backend/cpu/colormap.rs` and `shaders/colormap.wgsl`.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

use super::{BackendError, Device, runtime};
use crate::sim::colormap::HOT_LUT;

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
    let mut launch = stream.launch_builder(&dev.wave_rgba);
    launch.arg(f).arg(&nx_i32).arg(&ny_i32).arg(&vmin).arg(&vmax).arg(lut).arg(rgba);
    // SAFETY: arguments match `wave_rgba`; `f` holds nx*ny values, `rgba` nx*ny pixels.
    unsafe { launch.launch(cfg) }.map(|_| ()).map_err(|e| runtime("launching wave_rgba", e))
}
