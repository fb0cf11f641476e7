//! Temporary files that must not outlive the process.
//!
//! Every file wavebrot writes goes first to a hidden temporary file beside its target,
//! named `.wavebrot-<pid>-<random>.tmp`. Each one lives in a small registry while it exists:
//! on SIGINT or SIGTERM the registry is emptied (the files deleted) and the process exits
//! with 130 or 143, as a shell would report the signal. A SIGKILL cannot be caught, so it
//! can leave a temporary file behind; the PID in its name lets the next run that writes to
//! the same folder see that its owner is gone and delete it.
//!
//! Signals are handled with `signal-hook` rather than `ctrlc`: it tells which signal came
//! (SIGINT and SIGTERM must give different statuses, and `ctrlc`'s `termination` feature
//! folds them into one callback), it is the crate `ctrlc` itself builds on, and its
//! iterator runs the clean-up on an ordinary thread, where taking a lock and deleting files
//! is safe (inside a signal handler it would not be).

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

/// Paths of the temporary files that exist now.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Folders already swept for stale temporary files in this run.
static SWEPT: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
static HANDLER: Once = Once::new();

const PREFIX: &str = ".wavebrot-";
const SUFFIX: &str = ".tmp";

fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The exit status for a terminating signal: 128 + its number (130 SIGINT, 143 SIGTERM).
#[must_use]
pub fn signal_exit_code(signal: i32) -> i32 {
    128 + signal
}

/// Installs the SIGINT/SIGTERM handler (once): delete every registered file, then exit
/// with [`signal_exit_code`]. Without a handler (it could not be installed) the signals
/// keep their default action.
pub fn install_signal_handler() {
    HANDLER.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
            Ok(s) => s,
            Err(e) => {
                log::warn!("cannot watch SIGINT/SIGTERM ({e}); an interrupted write may leave a temporary file");
                return;
            }
        };
        let spawned = std::thread::Builder::new().name("wavebrot-signals".to_owned()).spawn(move || {
            if let Some(signal) = signals.forever().next() {
                remove_all_and_exit(signal);
            }
        });
        if let Err(e) = spawned {
            log::warn!("cannot start the signal thread ({e}); an interrupted write may leave a temporary file");
        }
    });
}

fn remove_all_and_exit(signal: i32) -> ! {
    // Holding the lock until exit: no file is created or renamed after this point.
    let files = live();
    for path in files.iter() {
        let _ = std::fs::remove_file(path);
    }
    std::process::exit(signal_exit_code(signal));
}

/// Registers `path` (an extra file, such as a marker) to be deleted on SIGINT/SIGTERM.
pub fn register(path: &Path) {
    install_signal_handler();
    live().push(path.to_owned());
}

/// Takes `path` off the registry (it was deleted, renamed or is to be kept).
pub fn unregister(path: &Path) {
    unregister_locked(&mut live(), path);
}

fn unregister_locked(files: &mut Vec<PathBuf>, path: &Path) {
    if let Some(i) = files.iter().position(|p| p == path) {
        files.swap_remove(i);
    }
}

/// A hidden temporary file in a folder, registered while it exists; deleted when dropped
/// unless [`Self::persist`] renamed it.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    file: File,
    renamed: bool,
}

impl TempFile {
    /// Creates `.wavebrot-<pid>-<random>.tmp` in `dir` with the mode a new file gets from
    /// the umask (`0666 & !umask`), after deleting stale ones of dead wavebrot processes.
    ///
    /// # Errors
    /// The folder cannot be written.
    pub fn create_in(dir: &Path) -> io::Result<Self> {
        install_signal_handler();
        sweep_stale_once(dir);
        let pid = std::process::id();
        let mut last = None;
        for _ in 0..16 {
            let path = dir.join(format!("{PREFIX}{pid}-{}{SUFFIX}", random_tag()));
            let mut files = live();
            match OpenOptions::new().write(true).create_new(true).mode(0o666).open(&path) {
                Ok(file) => {
                    files.push(path.clone());
                    return Ok(Self { path, file, renamed: false });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free temporary file name")))
    }

    /// The open file.
    pub fn file_mut(&mut self) -> &mut File {
        &mut self.file
    }

    /// The temporary file's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file onto `to` (same file system) and takes it off the registry.
    ///
    /// # Errors
    /// The rename failed; the temporary file is deleted.
    pub fn persist(mut self, to: &Path) -> io::Result<()> {
        let mut files = live();
        std::fs::rename(&self.path, to)?;
        unregister_locked(&mut files, &self.path);
        self.renamed = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.renamed {
            return;
        }
        let mut files = live();
        let _ = std::fs::remove_file(&self.path);
        unregister_locked(&mut files, &self.path);
    }
}

/// Six random letters and digits (from the standard library's randomly seeded hasher).
fn random_tag() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(web_time::SystemTime::now().duration_since(web_time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    let mut bits = hasher.finish();
    (0..6)
        .map(|_| {
            let c = ALPHABET[(bits % ALPHABET.len() as u64) as usize];
            bits /= ALPHABET.len() as u64;
            char::from(c)
        })
        .collect()
}

/// The PID in a temporary file's name `.wavebrot-<pid>-<tag>.tmp`, if it is one.
#[must_use]
pub fn owner_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let (pid, tag) = rest.split_once('-')?;
    if tag.is_empty() {
        return None;
    }
    pid.parse().ok()
}

/// Whether a process with this PID runs on this machine (Linux: `/proc/<pid>`); `None`
/// where that cannot be told.
fn process_alive(pid: u32) -> Option<bool> {
    if !Path::new("/proc/self").exists() {
        return None;
    }
    Some(Path::new("/proc").join(pid.to_string()).exists())
}

/// Deletes the temporary files in `dir` whose wavebrot process has gone (killed with
/// SIGKILL, or the machine went down), once per folder and run. Returns how many.
pub fn sweep_stale(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let me = std::process::id();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(owner_pid) else { continue };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if pid != me && is_file && process_alive(pid) == Some(false) && std::fs::remove_file(entry.path()).is_ok() {
            log::info!("removed {}, left by wavebrot process {pid}, which has gone", entry.path().display());
            removed += 1;
        }
    }
    removed
}

fn sweep_stale_once(dir: &Path) {
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    let first = SWEPT.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert_with(HashSet::new).insert(key);
    if first {
        sweep_stale(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_pid() {
        assert_eq!(owner_pid(".wavebrot-1234-aB3xYz.tmp"), Some(1234));
        assert_eq!(owner_pid(".wavebrot-aB3xYz.tmp"), None);
        assert_eq!(owner_pid(".wavebrot-1234-.tmp"), None);
        assert_eq!(owner_pid("wave.npy"), None);
        assert_eq!(signal_exit_code(2), 130);
        assert_eq!(signal_exit_code(15), 143);
    }

    #[test]
    fn a_temporary_file_is_registered_while_it_lives() {
        let dir = tempfile::tempdir().unwrap();
        let t = TempFile::create_in(dir.path()).unwrap();
        let path = t.path().to_owned();
        assert!(path.exists());
        assert!(live().contains(&path));
        assert_eq!(owner_pid(path.file_name().unwrap().to_str().unwrap()), Some(std::process::id()));
        drop(t);
        assert!(!path.exists());
        assert!(!live().contains(&path));

        let t = TempFile::create_in(dir.path()).unwrap();
        let path = t.path().to_owned();
        let target = dir.path().join("out.bin");
        t.persist(&target).unwrap();
        assert!(target.exists() && !path.exists() && !live().contains(&path));
    }

    #[test]
    fn stale_files_of_gone_processes_are_swept_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        // PIDs above the kernel's maximum (4194304) never run.
        let stale = dir.path().join(".wavebrot-99999999-abcdef.tmp");
        let mine = dir.path().join(format!(".wavebrot-{}-abcdef.tmp", std::process::id()));
        let other = dir.path().join(".wavebrot-abcdef.tmp");
        for p in [&stale, &mine, &other] {
            std::fs::write(p, b"x").unwrap();
        }
        assert_eq!(sweep_stale(dir.path()), 1);
        assert!(!stale.exists() && mine.exists() && other.exists());
    }
}
