//! What every view shares: the top bar, panels and keys, the timing panel, the frame profile,
//! the backend picker and the colour widgets.

pub mod controls;
pub mod getting_started;
pub mod load;
pub mod palette_ui;
pub mod panels;
pub mod profile;
pub mod profile_ui;
pub mod recording;
pub mod timing_panel;
pub mod timing_stats;
