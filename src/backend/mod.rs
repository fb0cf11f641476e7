//! Backends: one module per way of computing (CPU, CUDA, wgpu), each implementing the
//! same small traits so the CLI, the bench harness and the app can drive any of them.
//!
//! - [`Backend`] opens problems on one device: a [`WaveSim`] (state that lives on the
//!   device and is stepped in place) and Mandelbrot images.
//! - [`BackendKind`] names the choices for the picker and the CLI.
//! - [`open`] makes one; [`probe_all`] says which exist here and why others do not.
//!
//! One file per concern: [`kind`] (the names), [`error`] (the error and its checks),
//! [`timing`], [`wave_sim`] (the wave problem), [`device`] (the device), [`probe`] (opening
//! and probing); one folder per backend, one file per kernel family inside (ARCHITECTURE.md's
//! table).

pub mod bandwidth;
pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod device;
pub mod error;
#[cfg(test)]
mod families;
pub mod kind;
pub mod probe;
pub mod spread;
pub mod tiles;
pub mod timing;
pub mod wave_sim;
pub mod wgpu;
pub mod zoom_movie;

pub use device::{Backend, DeviceInfo, ReduceMethod, distance_tolerance, smooth_tolerance};
pub use error::{
    BackendError, check_de_len, check_field_sizes, check_fits, check_image_len, check_strided_len, unsupported,
};
pub use kind::{BackendChoice, BackendKind, WaveVariant};
pub use probe::{NotAvailable, Probe, open, open_choice, probe_all, probe_all_with_variants};
pub use timing::{LessonTiming, MandelbrotRun, Timing, TimingSource, monotonic_millis};
pub use wave_sim::{AsAny, BlockedDesign, ByteSink, WaveSim, scene_with_sources};
