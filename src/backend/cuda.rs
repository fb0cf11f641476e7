//! CUDA backend (see issue 3): not built yet.

use super::{Backend, BackendError, BackendKind};

/// # Errors
/// Always: the CUDA backend is not built yet.
pub fn open() -> Result<Box<dyn Backend>, BackendError> {
    Err(BackendError::Unavailable { kind: BackendKind::Cuda, reason: "the CUDA backend is not built yet".into() })
}
