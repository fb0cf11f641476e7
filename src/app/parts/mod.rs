//! The parts every view shares, below the views and the shell: the backend picker and what the
//! probes found, the colour widgets and bars, the timing panel and its statistics, the CPU load
//! meter, and the frame profile.

pub mod controls;
pub mod load;
pub mod palette_ui;
pub mod profile;
pub mod profile_ui;
pub mod share;
pub mod timing_panel;
pub mod timing_stats;
pub mod timing_words;
