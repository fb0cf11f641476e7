//! How the app starts: `wavebrot gui`'s options, the settings saved between runs, the window
//! in a guarded child process, and the headless harness the examples and tests drive.

#[cfg(not(target_arch = "wasm32"))]
pub mod headless;
#[cfg(not(target_arch = "wasm32"))]
pub mod run;
pub mod screenshot;
pub mod settings;
#[cfg(not(target_arch = "wasm32"))]
pub mod window_process;
