//! The `wavebrot` binary run as a user runs it, one module per file: the CLI's contracts (cli),
//! malformed input (bad_input), a centre's every digit (centre_digits), output files, FIFOs, full disks and interrupted writes (files),
//! the app's window process (window), GIF output (gif), the screen's CSV (screen), the
//! community's location files (locations), find-minibrot against mpmath (minibrot) and zoom
//! movies (movie), custom palettes in location files (palette).
//!
//! One test crate instead of one per file: each crate links eframe, wgpu and cudarc, so fewer
//! crates build much faster. Run one file's tests with its module as a filter:
//! `cargo test --release --test cli -- files::`.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "../common/mod.rs"]
mod common;
#[path = "../support/gif.rs"]
mod gif_support;

mod bad_input;
mod centre_digits;
mod cli;
mod files;
mod gif;
mod locations;
mod minibrot;
mod movie;
mod palette;
mod progress;
mod screen;
mod window;
