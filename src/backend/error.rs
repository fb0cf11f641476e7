//! [`BackendError`], the one error type of every backend, the [`unsupported`] answer of the
//! trait defaults, and the checks that raise it before anything is allocated or launched.

use super::BackendKind;
use crate::sim::ParamsError;
use crate::sim::wave::scene::SceneError;

/// Errors a backend can report. A missing GPU is [`BackendError::Unavailable`], an
/// expected state that callers fall back from, never a panic.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("{kind} unavailable: {reason}")]
    Unavailable { kind: BackendKind, reason: String },
    #[error("out of memory on {kind}: {what} needs {needed_bytes} bytes, {available_bytes} available")]
    OutOfMemory { kind: BackendKind, what: String, needed_bytes: u64, available_bytes: u64 },
    #[error("{kind} kernel failed to compile:\n{log}")]
    Compile { kind: BackendKind, log: String },
    #[error("{kind}: {message}")]
    Runtime { kind: BackendKind, message: String },
    #[error("invalid problem: {0}")]
    Invalid(String),
}

impl From<SceneError> for BackendError {
    /// An invalid scene is an invalid problem (the scene's error names the entry).
    fn from(e: SceneError) -> Self {
        Self::Invalid(e.to_string())
    }
}

impl From<ParamsError> for BackendError {
    /// Parameters that cannot run are an invalid problem.
    fn from(e: ParamsError) -> Self {
        Self::Invalid(e.to_string())
    }
}

/// The answer of a [`super::Backend`] default for what this backend does not compute: an
/// expected state ([`BackendError::Unavailable`]) that callers fall back from. The reason says
/// "not implemented" (the app's Mandelbrot worker looks for it to drop smooth colouring).
#[must_use]
pub fn unsupported(kind: BackendKind, what: &str) -> BackendError {
    BackendError::Unavailable { kind, reason: format!("not implemented on this backend: {what}") }
}

/// Refuses a problem of `needed_bytes` on a device with `available_bytes`.
///
/// # Errors
/// [`BackendError::OutOfMemory`] when it does not fit.
pub fn check_fits(
    kind: BackendKind,
    what: &str,
    needed_bytes: u64,
    available_bytes: Option<u64>,
) -> Result<(), BackendError> {
    match available_bytes {
        Some(available_bytes) if needed_bytes > available_bytes => {
            Err(BackendError::OutOfMemory { kind, what: what.to_owned(), needed_bytes, available_bytes })
        }
        _ => Ok(()),
    }
}

/// Checks that `counts` and, when given, `smooth` hold one value per pixel.
///
/// # Errors
/// [`BackendError::Invalid`] naming the lengths.
pub fn check_image_len(counts: &[i32], smooth: Option<&[f32]>, pixels: usize) -> Result<(), BackendError> {
    if counts.len() != pixels {
        return Err(BackendError::Invalid(format!("counts hold {} values, image has {pixels}", counts.len())));
    }
    if let Some(s) = smooth
        && s.len() != pixels
    {
        return Err(BackendError::Invalid(format!("smooth values hold {}, image has {pixels}", s.len())));
    }
    Ok(())
}

/// Checks a distance buffer: [`crate::sim::fractal::distance::DE_VALUES`] numbers a pixel.
///
/// # Errors
/// [`BackendError::Invalid`] naming the lengths.
pub fn check_de_len(de: &[f32], pixels: usize) -> Result<(), BackendError> {
    let want = pixels * crate::sim::fractal::distance::DE_VALUES;
    if de.len() != want {
        return Err(BackendError::Invalid(format!(
            "distance buffer holds {} values, the image needs {want}",
            de.len()
        )));
    }
    Ok(())
}

/// Checks that `rgba` holds the picture of an `nx x ny` field taken every `stride`-th pixel
/// (for [`super::WaveSim::render_rgba_strided`]).
///
/// # Errors
/// [`BackendError::Invalid`] naming both sizes.
pub fn check_strided_len(nx: usize, ny: usize, stride: usize, rgba: &[u8]) -> Result<(), BackendError> {
    let (w, h) = crate::sim::colour::colormap::strided_size(nx, ny, stride);
    if rgba.len() == w * h * 4 {
        return Ok(());
    }
    Err(BackendError::Invalid(format!("RGBA buffer holds {} bytes, a {w}x{h} frame needs {}", rgba.len(), w * h * 4)))
}

/// Checks that `f` and `g` each hold the `cells` of a field (for [`super::WaveSim::write_fields`]).
///
/// # Errors
/// [`BackendError::Invalid`] naming the sizes.
pub fn check_field_sizes(f: &[f32], g: &[f32], cells: usize) -> Result<(), BackendError> {
    if f.len() != cells || g.len() != cells {
        return Err(BackendError::Invalid(format!(
            "fields of {} and {} values do not fit a grid of {cells} cells",
            f.len(),
            g.len()
        )));
    }
    Ok(())
}
