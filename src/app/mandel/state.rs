//! What the app keeps for the Mandelbrot view besides its settings: the picture shown and asked
//! for, the zoom box, bookmarks and export state, the pointer and the colour bar's cache. Its own
//! file so the view ([`crate::app::mandel::view`]), bookmarks and export need not know each other.

use std::sync::mpsc::Receiver;

use crate::app::Shown;
use crate::app::mandel::bookmarks_ui::Bookmarks;
use crate::app::mandel::export::ExportState;
use crate::app::mandel::find::FindMinibrot;
use crate::app::mandel::view::{MandelShown, PictureState};
use crate::app::worker::compare::MandelCheck;
use crate::app::worker::messages::MandelRequest;
use crate::sim::colour::palette::{ColourSettings, Colouring};

/// What the app keeps for the Mandelbrot view besides the settings.
#[derive(Debug, Default)]
pub struct MandelUi {
    /// The picture shown last.
    pub shown: Option<MandelShown>,
    /// The picture asked of the worker last.
    pub sent: Option<MandelRequest>,
    pub picture: PictureState,
    pub bookmarks: Bookmarks,
    /// The typed centre and zoom, and the held zoom buttons.
    pub goto: crate::app::mandel::goto_ui::GoTo,
    pub export: ExportState,
    /// The picture's size on screen in pixels (last frame).
    pub window: [usize; 2],
    /// Where the pointer is over the picture (fractions from its top-left), if it is.
    pub hover: Option<[f64; 2]>,
    /// Pictures taken in so far (keys the colour bar's cache).
    pub frames: u64,
    /// The colour bar's colouring: for the colour settings, iterations and picture it was made for.
    pub bar: Option<((ColourSettings, u32, u64), Colouring)>,
    /// The picture on screen.
    pub(crate) tex: Option<Shown>,
    /// The Mandelbrot check: the last result and the one running.
    pub check: Option<MandelCheck>,
    pub check_rx: Option<Receiver<MandelCheck>>,
    /// Find minibrot (key N): the search running and the last one found.
    pub find: FindMinibrot,
    /// Record dive: the zoom movie's settings and the one being made.
    #[cfg(not(target_arch = "wasm32"))]
    pub movie: crate::app::mandel::movie_ui::MovieState,
}

impl MandelUi {
    /// Width over height of the picture on screen (1.5 before the first frame).
    #[must_use]
    pub fn aspect(&self) -> f64 {
        if self.window[0] == 0 || self.window[1] == 0 { 1.5 } else { self.window[0] as f64 / self.window[1] as f64 }
    }
}
