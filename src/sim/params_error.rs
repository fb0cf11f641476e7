//! [`ParamsError`]: why a problem's parameters (a wave grid, a Mandelbrot or Julia image, colour
//! settings) cannot run, each message naming the bad value. Scenes have their own
//! [`crate::sim::wave::scene::SceneError`] (which entry of which file).

/// Parameters that cannot run; the message names the value and the range it must be in.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    /// A grid or image side, or a cell or pixel count, out of range.
    #[error("{0}")]
    Size(String),
    /// A number out of its range: frequency, `c2`, iterations, bounds, `c`, colour offset or cycles.
    #[error("{0}")]
    Value(String),
    /// The wave source outside the grid.
    #[error("{0}")]
    Source(String),
    /// A value the chosen precision cannot hold.
    #[error("{0}")]
    Precision(String),
}

/// The message alone, for code that still reports errors as text (clap's value parsers, the
/// deep-zoom views and the app, whose own error types are still to come).
impl From<ParamsError> for String {
    fn from(e: ParamsError) -> Self {
        e.to_string()
    }
}
