//! Work that natively runs on a thread of its own (a name in a profiler, a stack not shared with
//! the caller's deep frames) and in a browser tab, which has no threads, on the caller's.

/// Why work meant for its own thread did not end: it could not start, or it panicked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ThreadError(pub String);

/// Runs `f` on a thread called `name` and waits for it; in the browser build, runs it here.
///
/// # Errors
/// The thread could not start, or `f` panicked (its message, where it had one).
pub fn run_on_own_thread<T: Send>(name: &str, f: impl FnOnce() -> T + Send) -> Result<T, ThreadError> {
    #[cfg(target_arch = "wasm32")]
    {
        let _ = name;
        Ok(f())
    }
    #[cfg(not(target_arch = "wasm32"))]
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn_scoped(scope, f)
            .map_err(|e| ThreadError(format!("starting the {name} thread: {e}")))?;
        handle.join().map_err(|panic| {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            ThreadError(format!("the {name} thread panicked{}{why}", if why.is_empty() { "" } else { ": " }))
        })
    })
}
