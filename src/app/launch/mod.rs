//! How the app starts: `wavebrot gui`'s options, the settings saved between runs, the window
//! in a guarded child process, and the headless harness the examples and tests drive.

pub mod headless;
pub mod run;
pub mod screenshot;
pub mod settings;
pub mod window_process;
