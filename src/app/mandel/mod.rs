//! The Mandelbrot explorer: the camera in arbitrary precision, its moves, panels and keys,
//! bookmarks, picture export, the zoom movie of the dive and finding minibrots.

pub mod bookmarks_ui;
pub mod export;
pub mod find;
pub mod goto_ui;
#[cfg(not(target_arch = "wasm32"))]
pub mod movie_ui;
mod panel;
pub mod state;
pub mod view;
