//! The kernels and their backends, one module per file: every kernel family on the CPU, wgpu and
//! CUDA compared with `cpu1` (wave, its scene kernels wave_scene, mandelbrot, mandelbrot_deep,
//! julia, colormap, saxpy, reduction; distance: julia's distance variant; julia_distance: its
//! Julia mode), the deep zoom against an independent MPFR iteration (mandelbrot_deep_reference)
//! and its CLI flags (mandelbrot_deep_cli), each backend's own checks (cuda, wgpu,
//! shader_validation), `cpu1` against the seed's numpy program (golden), the palettes, the scene
//! physics (scene; its wave optics: scene_optics), the blocked wgpu scene kernel (scene_blocked),
//! the matched layer (pml), the screen (its maxima at the theory's angles) and `wavebrot sweep`.
//!
//! One test crate instead of one per file: each crate links eframe, wgpu and cudarc, so fewer
//! crates build much faster. Run one file's tests with its module as a filter:
//! `cargo test --release --test kernels -- wave::`.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "../common/mod.rs"]
mod common;

mod colormap;
mod cuda;
mod deep_distance;
mod distance;
mod fractal_properties;
mod golden;
mod julia;
mod julia_distance;
mod mandelbrot;
mod mandelbrot_deep;
mod mandelbrot_deep_cli;
mod mandelbrot_deep_reference;
mod palette;
mod periodic_reference;
mod pml;
mod pml_cuda;
mod reduction;
mod saxpy;
mod scene;
mod scene_blocked;
mod scene_optics;
mod scene_properties;
mod screen;
mod shader_validation;
mod sources;
mod sweep;
mod wave;
mod wave_scene;
mod wgpu;
