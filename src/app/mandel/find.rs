//! "Find minibrot" (key N, the button under the view's controls): the lowest-period minibrot
//! near the pointer (the centre when the pointer is off the picture) is found on the
//! `wavebrot-minibrot` thread (`sim::fractal::minibrot`: the ball method's period, then
//! Newton's nucleus), and the camera is framed on it so it fills about a third of the picture.
//! Asked again at the minibrot it framed last, the disk searched shrinks to a quarter of the
//! view about the pointer, so the next one found is smaller and deeper (a minibrot of higher
//! period, off in the decorations). No drawing here: `panel.rs` draws the button and the result.

use std::sync::mpsc::{Receiver, TryRecvError, channel};

use crate::sim::fractal::bla::FloatExp;
use crate::sim::fractal::deep::{View, ViewError};
use crate::sim::fractal::minibrot::format_size;
use crate::sim::fractal::minibrot_search::find_island;
use crate::sim::fractal::nav;
use crate::sim::fractal::nav::NavError;

/// Picture height the search's precision is chosen for.
const SEARCH_HEIGHT: usize = 2160;

/// A minibrot found, and the view framing it.
#[derive(Clone, Debug)]
pub struct Found {
    pub view: View,
    pub period: u32,
    /// Its size, as text (`1.234e-56`).
    pub size: String,
}

/// Why no minibrot was framed.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error(transparent)]
    View(#[from] ViewError),
    #[error(transparent)]
    Nav(#[from] NavError),
    /// The search's own one line (no period, Newton did not converge, ...).
    #[error("{0}")]
    Search(String),
    #[error("starting the minibrot search: {0}")]
    Thread(std::io::Error),
    #[error("the minibrot search stopped")]
    Stopped,
}

/// The search running, and what the last one found.
#[derive(Debug, Default)]
pub struct FindMinibrot {
    rx: Option<Receiver<Result<Found, FindError>>>,
    /// The last minibrot found (shown under the button).
    pub last: Option<Found>,
}

impl FindMinibrot {
    /// True while a search runs.
    #[must_use]
    pub fn running(&self) -> bool {
        self.rx.is_some()
    }

    /// Starts a search in `view` (a picture of `aspect`) about the point at `at` (fractions of
    /// the picture from its top-left), the centre's orbit run for at most `iters` steps.
    ///
    /// # Errors
    /// The thread could not start.
    pub fn start(&mut self, view: &View, at: [f64; 2], aspect: f64, iters: u32) -> Result<(), FindError> {
        if self.running() {
            return Ok(());
        }
        // At the minibrot framed last: a quarter of the view, so the search goes deeper.
        let again = self.last.as_ref().is_some_and(|f| (f.view.zoom_log10() - view.zoom_log10()).abs() < 0.5);
        let scale = if again { 0.25 } else { 1.0 };
        let (dx, dy) = ((at[0] - 0.5) * 2.0 * aspect, (0.5 - at[1]) * 2.0);
        let about = nav::moved(view, dx, dy, view.zoom_log10())?;
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name("wavebrot-minibrot".into())
            .spawn(move || {
                let _ = tx.send(search(&about, aspect, scale, iters));
            })
            .map_err(FindError::Thread)?;
        self.rx = Some(rx);
        Ok(())
    }

    /// The search's result once it is done.
    pub fn poll(&mut self) -> Option<Result<Found, FindError>> {
        let r = match self.rx.as_ref()?.try_recv() {
            Ok(r) => r,
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => Err(FindError::Stopped),
        };
        self.rx = None;
        if let Ok(f) = &r {
            self.last = Some(f.clone());
        }
        Some(r)
    }
}

/// The minibrot nearest the centre of `view` within `scale` of its disk, framed.
fn search(view: &View, aspect: f64, scale: f64, iters: u32) -> Result<Found, FindError> {
    let width = (SEARCH_HEIGHT as f64 * aspect).round().max(1.0) as usize;
    let bits = view.bits(SEARCH_HEIGHT);
    let b = view.bounds_big(width, SEARCH_HEIGHT, bits)?;
    let r = view.radius(width, SEARCH_HEIGHT);
    let radius = FloatExp::new(r.m * scale, r.e);
    // Deeper than the view (never a zoom out); pressed again at the minibrot framed last, deeper
    // than it by a factor of 3 at least, so the search goes on into the next island.
    let min_zoom_log10 = view.zoom_log10() + if scale < 1.0 { 0.5 } else { 0.0 };
    let m =
        find_island(&b.re, &b.im, radius, iters, bits, min_zoom_log10).map_err(|e| FindError::Search(e.to_string()))?;
    let (re, im) = m.decimals().map_err(|e| FindError::Search(e.to_string()))?;
    // Framed for a 16:9 picture; a narrower one (a portrait panel) zooms out by its aspect so
    // the minibrot still spans about a third of its width.
    let zoom_log10 = m.framing_zoom_log10() + aspect.min(16.0 / 9.0).log10() - (16.0f64 / 9.0).log10();
    let zoom = nav::zoom_string(zoom_log10.min(nav::MAX_ZOOM_LOG10));
    Ok(Found { view: View { re, im, zoom }, period: m.period, size: format_size(m.size_abs()) })
}
