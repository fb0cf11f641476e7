//! The wave view: settings and run controls, the lab (presets, tools on the field, scene
//! files), the measuring tools (units, ruler, angle, stopwatch, the screen's plot) and the
//! meters (energy, probes, Courant number), and the probe's sound.

pub mod lab;
pub mod lab_ui;
pub mod meters;
pub mod sound_ui;
pub mod state;
pub mod tools_ui;
pub mod view;
