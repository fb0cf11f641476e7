//! The math of wavebrot, free of any backend: the exact wave rule, wave scenes (sources,
//! walls, media, absorbing edges) and their per-cell rule, the exact Mandelbrot escape-count
//! rule (with its continuous escape value) and matplotlib's `hot` colormap, the palettes and
//! scalings of `palette`; what the wave lab measures on a field (time-averaged
//! intensity, auto contrast) and what theory predicts for it (`d·sin θ = m·λ`).
//!
//! Every backend (CPU, CUDA, wgpu) is checked against the reference functions
//! here, and these are checked against the seed's numpy program
//! (`tests/data/`, made by `tools/make_golden.py`).

pub mod colour;
pub mod fractal;
pub mod own_thread;
pub mod params_error;
pub mod wave;

pub use params_error::ParamsError;
