//! wavebrot: watch a GPU work. A 2D wave simulation and the Mandelbrot set on CUDA,
//! wgpu and the CPU, drawn through matplotlib's `hot`, timed side by side.
//!
//! `ARCHITECTURE.md` maps the folders.

pub mod app;
pub mod audio;
pub mod backend;
pub mod bench;
pub mod cli;
pub mod files;
#[cfg(test)]
mod house_rules;
pub mod output;
pub mod progress;
pub mod sim;
pub mod tempfiles;
#[cfg(test)]
mod test_skip;
pub mod video;
