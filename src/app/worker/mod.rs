//! Everything off the UI thread: the simulation loop, how frames reach the screen, the
//! Mandelbrot passes, the CPU comparison, the meters, the GIF recorder, and the messages the
//! threads send each other. Nothing here draws on screen (`wave_picture` draws a saved
//! picture's overlay into a bitmap).

pub mod compare;
pub mod display;
pub mod mandel;
mod mandel_loop;
pub mod messages;
pub mod meter;
pub mod recorder;
pub mod simulation;
mod wave_loop;
pub mod wave_picture;
