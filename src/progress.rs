//! Progress bars for long renders and benches: drawn on a terminal, silent when piped.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar on stderr that hides itself when stderr is not a terminal.
pub struct Progress(ProgressBar);

impl Progress {
    /// A bar of `len` steps labelled `what`.
    #[must_use]
    pub fn new(len: u64, what: &str) -> Self {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} {elapsed_precise} eta {eta}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(what.to_owned());
        Self(bar)
    }

    /// A bar over `total` units of work (not steps: steps of unequal cost), labelled `what`;
    /// [`Progress::set`] takes the work done and [`Progress::set_message`] says which step is
    /// on and the time left, which the caller estimates.
    #[must_use]
    pub fn weighted(total: u64, what: &str) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total.max(1)), ProgressDrawTarget::stderr());
        let template = format!("{what} [{{bar:24}}] {{percent:>3}}% {{elapsed_precise}} {{msg}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        Self(bar)
    }

    /// A spinner for work of unknown length.
    #[must_use]
    pub fn spinner(what: &str) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_message(what.to_owned());
        bar.enable_steady_tick(std::time::Duration::from_millis(100));
        Self(bar)
    }

    /// Turns a spinner into a bar of `len` steps labelled `what`, its time left from the rate
    /// measured so far (indicatif's estimate over the recent steps).
    pub fn into_bar(&self, len: u64, what: &str) {
        self.0.disable_steady_tick();
        self.0.set_length(len);
        self.0.set_position(0);
        self.0.reset_eta();
        if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:40}] {percent:>3}% {elapsed} elapsed, {eta} left")
        {
            self.0.set_style(style.progress_chars("=> "));
        }
        self.0.set_message(what.to_owned());
        self.0.enable_steady_tick(std::time::Duration::from_millis(250));
    }

    pub fn set(&self, pos: u64) {
        self.0.set_position(pos);
    }

    pub fn set_message(&self, msg: String) {
        self.0.set_message(msg);
    }

    /// Prints `line` on stdout, above the bar on a terminal, plainly when piped.
    pub fn println(&self, line: impl AsRef<str>) {
        self.0.suspend(|| crate::outln!("{}", line.as_ref()));
    }

    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}
