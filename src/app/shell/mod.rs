//! The shell arranges the window: the top bar, the side and central panels each view and page
//! fills, the keys every view shares, help and the getting-started page. It draws no view's
//! controls itself: those are the views' own (`wave/`, `mandel/`, `pages/`), and the parts they
//! share are in `parts/`.

pub mod dropped;
pub mod getting_started;
pub mod links;
pub mod panels;
pub mod recording;
