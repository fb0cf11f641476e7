//! The wave view: settings and run controls, the lab (presets, tools on the field, scene
//! files), the measuring tools (units, ruler, angle, stopwatch, the screen's plot) and the
//! meters (energy, probes, Courant number), the probe's sound, and the 3D surface (`surface_ui.rs` the camera and toggle, `surface_gpu.rs`
//! the wgpu paint callback).

pub mod lab;
pub mod lab_ui;
pub mod meters;
pub mod panel;
pub mod sound_ui;
pub mod state;
pub mod surface_gpu;
pub mod surface_ui;
pub mod tools_ui;
pub mod view;
