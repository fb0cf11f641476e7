//! The wave view: settings and run controls, the lab (presets, tools on the field, scene
//! files) and the meters (energy, probes, Courant number).

pub mod lab;
pub mod lab_ui;
pub mod meters;
pub mod state;
pub mod view;
