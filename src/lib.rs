//! wavebrot: watch a GPU work. A 2D wave simulation and the Mandelbrot set on CUDA,
//! wgpu and the CPU, drawn through matplotlib's `hot`, timed side by side.
//!
//! `ARCHITECTURE.md` maps the folders.

pub mod app;
pub mod audio;
pub mod backend;
pub mod bench;
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod files;
#[cfg(test)]
mod house_rules;
pub mod link;
pub mod output;
pub mod progress;
pub mod sim;
#[cfg(not(target_arch = "wasm32"))]
pub mod tempfiles;
#[cfg(test)]
mod test_skip;
#[cfg(not(target_arch = "wasm32"))]
pub mod video;
