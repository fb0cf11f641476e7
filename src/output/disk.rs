//! Writing a file on disk: atomically for a regular or new file (a temporary file in the
//! target's folder, renamed into place when whole; links followed), straight through for
//! anything else (a device, a FIFO, `/dev/stdout`). See the module above for the rules.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::NpyElement;
use super::npy_header;
use crate::tempfiles::TempFile;

/// Where the bytes for an output path go.
#[derive(Debug)]
enum Target {
    /// A regular file, existing (its metadata) or new, at this path with no links left in it.
    Regular { path: PathBuf, existing: Option<Metadata> },
    /// Not a regular file (device, FIFO, an open descriptor such as `/dev/stdout`): written
    /// in place.
    Stream,
}

/// Symbolic links followed before giving up, as the kernel does (`ELOOP`).
const MAX_LINKS: usize = 40;

/// Paths naming an open file descriptor (`/dev/stdout` leads to `/proc/self/fd/1`): write
/// to the descriptor's file in place, whatever it is, as a shell redirection expects.
fn names_a_descriptor(path: &Path) -> bool {
    ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"].iter().any(|p| path.starts_with(p))
        || (path.starts_with("/proc/") && path.components().nth(3).is_some_and(|c| c.as_os_str() == "fd"))
}

/// Follows `path`'s links one by one; the last path and whether any hop named a descriptor.
fn follow_links(path: &Path) -> std::io::Result<(PathBuf, bool)> {
    let mut p = path.to_owned();
    let mut descriptor = names_a_descriptor(&p);
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = if to.is_absolute() { to } else { p.parent().unwrap_or(Path::new("")).join(to) };
                descriptor |= names_a_descriptor(&p);
            }
            _ => return Ok((p, descriptor)),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

fn resolve(path: &Path) -> Result<Target> {
    let cannot = || format!("cannot write {}", path.display());
    let (last, descriptor) = follow_links(path).with_context(cannot)?;
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => anyhow::bail!("cannot write {}: it is a folder", path.display()),
        Ok(m) if m.is_file() && !descriptor => {
            Ok(Target::Regular { path: std::fs::canonicalize(path).with_context(cannot)?, existing: Some(m) })
        }
        Ok(_) => Ok(Target::Stream),
        // New, or a link to a file still to be made: create the link's target.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !descriptor => {
            Ok(Target::Regular { path: last, existing: None })
        }
        Err(e) => Err(e).with_context(cannot),
    }
}

/// The folder a file is created in.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Writes `path`: atomically for a regular or new file (through links), straight through for
/// anything else (see the module's documentation).
///
/// # Errors
/// The folder cannot be written, `write` failed, or the device refused the bytes.
pub fn write_atomically(path: &Path, write: impl FnOnce(&mut BufWriter<&mut File>) -> Result<()>) -> Result<()> {
    write_atomically_with(path, |w, _| write(w))
}

/// [`write_atomically`], telling `write` whether the file is a fresh regular file (`true`: it may
/// also be written at offsets, [`std::os::unix::fs::FileExt::write_all_at`], from several
/// threads) or a stream, opened for appending (`false`: bytes in order only).
fn write_atomically_with(path: &Path, write: impl FnOnce(&mut BufWriter<&mut File>, bool) -> Result<()>) -> Result<()> {
    let cannot = || format!("cannot write {}", path.display());
    match resolve(path)? {
        Target::Stream => {
            let mut file = OpenOptions::new().append(true).open(path).with_context(cannot)?;
            let mut w = BufWriter::new(&mut file);
            write(&mut w, false).with_context(cannot)?;
            w.flush().with_context(cannot)?;
        }
        Target::Regular { path: target, existing } => {
            let dir = folder_of(&target);
            let mut tmp = TempFile::create_in(dir).with_context(|| {
                format!("cannot write {}: cannot create a file in {}", path.display(), dir.display())
            })?;
            if let Some(m) = &existing {
                keep_mode_and_owner(tmp.file_mut(), m).with_context(cannot)?;
            }
            {
                let mut w = BufWriter::new(tmp.file_mut());
                write(&mut w, true).with_context(cannot)?;
                w.flush().with_context(cannot)?;
            }
            // On disk before the rename, so a crash cannot leave an empty file in its place.
            tmp.file_mut().sync_all().with_context(cannot)?;
            tmp.persist(&target).with_context(cannot)?;
        }
    }
    Ok(())
}

/// Gives the replacement the replaced file's permission bits and, where allowed (root), its
/// owner and group.
fn keep_mode_and_owner(file: &File, old: &Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777))?;
    // Only root may give a file away; for anyone else the new file is theirs, as with any editor.
    let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    Ok(())
}

/// Bytes each thread writes at once to a regular file (large writes, many of them in flight).
pub(super) const WRITE_PIECE: usize = 4 << 20;

/// Writes a `.npy` array of `shape` and type `T` whose `nbytes` data bytes come in pieces:
/// `produce` is handed a sink and calls it with `(offset, bytes)` for every piece, in order of
/// offset (a backend copying from device memory through pinned chunks passes them straight on, so
/// the array never sits whole in pageable memory). A regular file gets each piece written at its
/// offset by all cores at once; a stream gets the bytes in order. Atomic like
/// [`write_atomically`]; a sink error or a short total fails the write.
///
/// # Errors
/// The file cannot be written, `produce` failed, or the pieces do not cover `nbytes` in order.
pub fn write_npy_streamed<T: NpyElement>(
    path: &Path,
    shape: &[u64],
    nbytes: usize,
    produce: impl FnOnce(&mut dyn FnMut(usize, &[u8]) -> Result<()>) -> Result<()>,
) -> Result<()> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    let header = npy_header(T::DESCR, shape);
    let values: u64 = shape.iter().product();
    anyhow::ensure!(values * size_of::<T>() as u64 == nbytes as u64, "{nbytes} bytes do not hold shape {shape:?}");
    write_atomically_with(path, |out, regular| {
        out.write_all(&header)?;
        out.flush()?;
        let mut done = 0usize;
        if regular {
            let file: &File = out.get_ref();
            let base = header.len() as u64;
            produce(&mut |offset, bytes| {
                anyhow::ensure!(offset == done, "piece at byte {offset}, expected {done}");
                bytes
                    .par_chunks(WRITE_PIECE)
                    .enumerate()
                    .try_for_each(|(k, piece)| file.write_all_at(piece, base + (offset + k * WRITE_PIECE) as u64))?;
                done += bytes.len();
                Ok(())
            })?;
        } else {
            produce(&mut |offset, bytes| {
                anyhow::ensure!(offset == done, "piece at byte {offset}, expected {done}");
                out.write_all(bytes)?;
                done += bytes.len();
                Ok(())
            })?;
        }
        anyhow::ensure!(done == nbytes, "wrote {done} of {nbytes} bytes");
        Ok(())
    })
}

/// Checks before a long computation that `path` can be written, so a run does not end
/// in a write error. Nothing is left behind (a FIFO is not opened: that would wait for a reader).
///
/// # Errors
/// The folder does not exist or cannot be written, or the device cannot be opened.
pub fn check_writable(path: &Path) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    match resolve(path)? {
        Target::Stream => {
            let fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
            if !fifo {
                OpenOptions::new()
                    .append(true)
                    .open(path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
        }
        Target::Regular { path: target, .. } => {
            let dir = folder_of(&target);
            TempFile::create_in(dir).with_context(|| {
                format!("cannot write {}: {} is not a writable folder", path.display(), dir.display())
            })?;
        }
    }
    Ok(())
}
