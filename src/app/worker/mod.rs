//! Everything off the UI thread: the simulation loop, how frames reach the screen, the
//! Mandelbrot passes, the CPU comparison, the meters, the GIF recorder, the zoom movie, the probe's sound
//! stream, and the messages the threads send each other. Nothing here draws on screen
//! (`wave_picture` draws a saved picture's overlay into a bitmap).

pub mod compare;
pub mod display;
pub mod hush;
pub mod look;
pub mod mandel;
mod mandel_loop;
pub mod messages;
pub mod meter;
#[cfg(not(target_arch = "wasm32"))]
pub mod movie;
pub mod recorder;
pub mod simulation;
pub mod sound;
pub mod sound_tape;
mod wave_loop;
pub mod wave_picture;
