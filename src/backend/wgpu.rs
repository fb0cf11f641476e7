//! wgpu backend (see issue 4): not built yet.

use super::{Backend, BackendError, BackendKind};

/// # Errors
/// Always: the wgpu backend is not built yet.
pub fn open() -> Result<Box<dyn Backend>, BackendError> {
    Err(BackendError::Unavailable { kind: BackendKind::Wgpu, reason: "the wgpu backend is not built yet".into() })
}
