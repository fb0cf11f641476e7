//! [`ViewError`]: why a deep-zoom view (or a job made from it) cannot be computed, each message
//! naming the value by [`ValueNames`]: the command line's words or a location file's keys.

pub use super::perturb::OrbitTooLong;

/// The deepest zoom a view may have (`log10`): 1e1000000, 3.3 million bits a coordinate. The
/// deltas' integer exponents (`i32`, with [`super::perturb::extended_step`]'s zero term at
/// `-2^24`) hold views far deeper; the arbitrary-precision orbit is what grows slow.
pub const MAX_ZOOM_LOG10: f64 = 1e6;

/// Why a view (or a job made from it) cannot be computed: one line naming the bad value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ViewError {
    /// A value that is not a decimal number.
    #[error("{what} '{text}' is not a decimal number (such as -0.75, 1e300 or 2.5e-12)")]
    NotDecimal { what: String, text: String },
    /// A number beyond what arbitrary precision holds.
    #[error("{what} '{text}' is out of the range arbitrary precision can hold")]
    OutOfRange { what: String, text: String },
    /// `astro-float`'s constants could not be made.
    #[error("arbitrary precision unavailable: {0}")]
    Precision(String),
    /// A centre that is not `RE,IM`.
    #[error("centre '{center}' has {count} values; expected 2: RE,IM")]
    Centre { center: String, count: usize },
    /// A zoom of 0 or below (`what` names it: `zoom`, or a location file's key).
    #[error("{what} '{zoom}' must be above 0 (1 is the whole set, 1e300 is deep)")]
    ZoomNotPositive { what: String, zoom: String },
    /// A zoom past [`MAX_ZOOM_LOG10`].
    #[error(
        "{what} '{zoom}' is beyond the deepest wavebrot computes, 1e{MAX_ZOOM_LOG10} (its coordinates would need \
         {million_bits:.0} million bits)"
    )]
    TooDeep { what: String, zoom: String, million_bits: f64 },
    /// A view so wide its bounds leave `f64`.
    #[error("the view at zoom {0} is wider than f64 can hold; use a zoom of at least 1e-300")]
    TooWide(String),
    /// A direct precision that cannot tell the view's pixels apart.
    #[error(
        "zoom {zoom} at {width}x{height} is too deep for {precision}: its pixels are below what it resolves; use \
         {better} (or leave --precision out)"
    )]
    ArithTooWeak { zoom: String, width: usize, height: usize, precision: &'static str, better: &'static str },
    /// An image side out of range.
    #[error("image {width}x{height} must be 1..=65536 pixels a side")]
    ImageSize { width: usize, height: usize },
    /// Iterations out of range.
    #[error("iterations {0} must be in 1..={max}", max = i32::MAX)]
    Iterations(u32),
    /// The reference orbit would outgrow the memory.
    #[error(transparent)]
    OrbitTooLong(#[from] OrbitTooLong),
    /// The reference-orbit thread could not start or panicked.
    #[error("{0}")]
    Thread(String),
}

/// The names a view's values go by in messages: the CLI's words, or a location file's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueNames {
    pub re: &'static str,
    pub im: &'static str,
    pub zoom: &'static str,
}

impl ValueNames {
    /// The command line's: `centre's real part`, `centre's imaginary part`, `zoom`.
    pub const WORDS: Self = Self { re: "centre's real part", im: "centre's imaginary part", zoom: "zoom" };
    /// A location file's keys: `re`, `im`, `zoom`.
    pub const KEYS: Self = Self { re: "re", im: "im", zoom: "zoom" };
}
