//! The compiled kernels kept on disk, so a second process skips NVRTC and the PTX assembler. They
//! are kept as the device's own machine code (a CUBIN from NVRTC, `nvrtc.rs`), so loading needs
//! no JIT either: on the H200 a process without a warm driver JIT cache spent ~9 s assembling the
//! PTX, with the cache a second `render` starts in a few hundred ms. One file per program, named
//! by a hash of everything that decides its code: the source, the compile options (architecture,
//! defines, fmad), the device's compute capability, the driver's and NVRTC's versions, and
//! wavebrot's version.
//!
//! A file holds a header (that key in full, the payload's length and CRC-32) and the CUBIN. Any
//! mismatch — another key under the same hash, a short or torn file, a flipped byte — is a miss:
//! the program is compiled again and the file rewritten (atomically, through a temporary file and a
//! rename). Code the driver still refuses is dropped and rebuilt by the caller ([`forget`]).
//! Every failure to read or write the folder is a miss, never an error: a read-only home or a
//! missing cache folder only costs the compile.
//!
//! The folder: `$WAVEBROT_CACHE_DIR`, else `$XDG_CACHE_HOME/wavebrot/cuda`, else
//! `$HOME/.cache/wavebrot/cuda`; `WAVEBROT_CACHE_DIR=off` turns the cache off.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The first line of every cache file (its format's version).
const MAGIC: &str = "wavebrot kernel cache 1";

/// The cache folder, or `None` when there is no home to put it in or it is turned off.
#[must_use]
pub fn folder() -> Option<PathBuf> {
    folder_from(|k| std::env::var_os(k))
}

fn folder_from(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty());
    if let Some(d) = set("WAVEBROT_CACHE_DIR") {
        return (d != "off").then(|| PathBuf::from(d));
    }
    let base =
        set("XDG_CACHE_HOME").map(PathBuf::from).or_else(|| set("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("wavebrot").join("cuda"))
}

/// What decides a program's code, written in full into its file and hashed for its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    pub name: String,
    /// Everything but the source, on one line.
    pub line: String,
    source_crc: u32,
    source_len: usize,
}

impl Key {
    /// The key of `name` compiled from `source` with `facts` (options, architecture, versions).
    #[must_use]
    pub fn new(name: &str, source: &str, facts: &[&str]) -> Self {
        let line =
            format!("{name} | wavebrot {} | {}", env!("CARGO_PKG_VERSION"), facts.join(" | ")).replace('\n', " ");
        Self { name: name.to_owned(), line, source_crc: crc32fast::hash(source.as_bytes()), source_len: source.len() }
    }

    fn header(&self) -> String {
        format!("{MAGIC}\n{} | source {} bytes crc {:08x}\n", self.line, self.source_len, self.source_crc)
    }

    fn file(&self, folder: &Path) -> PathBuf {
        // FNV-1a, 64 bits, of the header: stable across Rust versions (the name only has to find
        // the file; the header inside it is what is checked).
        let hash = self
            .header()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        let stem = self.name.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
        folder.join(format!("{stem}-{hash:016x}.cubin"))
    }
}

/// The code kept for `key`, if a whole and matching file holds it.
#[must_use]
pub fn load(folder: &Path, key: &Key) -> Option<Vec<u8>> {
    let bytes = std::fs::read(key.file(folder)).ok()?;
    let rest = bytes.strip_prefix(key.header().as_bytes())?;
    let end = rest.iter().position(|&b| b == b'\n')?;
    let (sizes, payload) = (std::str::from_utf8(&rest[..end]).ok()?, &rest[end + 1..]);
    let (len, crc) = sizes.split_once(' ')?;
    let ok =
        len.parse::<usize>().ok()? == payload.len() && u32::from_str_radix(crc, 16).ok()? == crc32fast::hash(payload);
    ok.then(|| payload.to_vec())
}

/// Keeps `code` for `key`, whole or not at all; a folder that cannot be written is left alone.
pub fn store(folder: &Path, key: &Key, code: &[u8]) {
    let write = || -> anyhow::Result<()> {
        std::fs::create_dir_all(folder)?;
        crate::output::write_atomically(&key.file(folder), |w| {
            w.write_all(key.header().as_bytes())?;
            writeln!(w, "{} {:08x}", code.len(), crc32fast::hash(code))?;
            Ok(w.write_all(code)?)
        })
    };
    if let Err(e) = write() {
        log::info!("CUDA kernel cache: cannot write {}: {e}", folder.display());
    }
}

/// Drops the file of `key` (its code was refused by the driver).
pub fn forget(folder: &Path, key: &Key) {
    let _ = std::fs::remove_file(key.file(folder));
}

/// The code of `key` from the cache in `folder`, or `build`'s, then kept.
///
/// # Errors
/// `build`'s.
pub fn get_or_build<E>(
    folder: Option<&Path>,
    key: &Key,
    build: impl FnOnce() -> Result<Vec<u8>, E>,
) -> Result<Vec<u8>, E> {
    if let Some(code) = folder.and_then(|f| load(f, key)) {
        return Ok(code);
    }
    let code = build()?;
    if let Some(f) = folder {
        store(f, key, &code);
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stands for a CUBIN: binary, with a NUL and newlines inside.
    const CODE: &[u8] = b"\x7fELF\x02\x01\x01\x00\nnot text\n\xff\xfe\x00 a kernel";

    fn key() -> Key {
        Key::new("wave.cu", "__global__ void k() {}", &["--gpu-architecture=sm_90", "fmad", "driver 13.0"])
    }

    /// Builds through the cache and counts the compiles.
    fn through(folder: &Path, key: &Key, compiles: &mut u32) -> Vec<u8> {
        get_or_build::<()>(Some(folder), key, || {
            *compiles += 1;
            Ok(CODE.to_vec())
        })
        .expect("builds")
    }

    #[test]
    fn the_second_build_is_read_back_and_any_other_key_misses() {
        let dir = tempfile::tempdir().expect("a folder");
        let mut compiles = 0;
        assert_eq!(through(dir.path(), &key(), &mut compiles), CODE);
        assert_eq!(through(dir.path(), &key(), &mut compiles), CODE);
        assert_eq!(compiles, 1, "the second build came from the cache");
        for other in [
            Key::new("wave.cu", "__global__ void k() { }", &["--gpu-architecture=sm_90", "fmad", "driver 13.0"]),
            Key::new("wave.cu", "__global__ void k() {}", &["--gpu-architecture=sm_80", "fmad", "driver 13.0"]),
            Key::new("wave.cu", "__global__ void k() {}", &["--gpu-architecture=sm_90", "fmad", "driver 12.8"]),
        ] {
            assert!(load(dir.path(), &other).is_none(), "{other:?} found another key's code");
        }
    }

    #[test]
    fn a_corrupt_or_torn_file_is_rebuilt_never_used() {
        let dir = tempfile::tempdir().expect("a folder");
        let mut compiles = 0;
        through(dir.path(), &key(), &mut compiles);
        let file = key().file(dir.path());
        let good = std::fs::read(&file).expect("stored");
        // One flipped bit in the payload, the payload cut short, the header's key changed, an empty
        // file, bytes that are not text: each is rebuilt, and the file holds good code again.
        let mut flipped = good.clone();
        *flipped.last_mut().expect("not empty") ^= 1;
        let mut rekeyed = good.clone();
        rekeyed[MAGIC.len() + 1] ^= 0x20;
        let bad: [Vec<u8>; 5] = [flipped, good[..good.len() - 3].to_vec(), rekeyed, Vec::new(), vec![0xff, 0xfe, 0]];
        for (i, b) in bad.iter().enumerate() {
            std::fs::write(&file, b).expect("corrupted");
            let before = compiles;
            assert_eq!(through(dir.path(), &key(), &mut compiles), CODE, "case {i}");
            assert_eq!(compiles, before + 1, "case {i}: a bad file was used");
            assert_eq!(std::fs::read(&file).expect("rewritten"), good, "case {i}: not rewritten");
        }
    }

    #[test]
    fn an_unwritable_or_missing_folder_only_costs_the_compile() {
        let dir = tempfile::tempdir().expect("a folder");
        let file_not_folder = dir.path().join("a-file");
        std::fs::write(&file_not_folder, "x").expect("written");
        let mut compiles = 0;
        assert_eq!(through(&file_not_folder.join("cuda"), &key(), &mut compiles), CODE);
        assert_eq!(through(&file_not_folder.join("cuda"), &key(), &mut compiles), CODE);
        assert_eq!(compiles, 2);
        assert_eq!(get_or_build::<()>(None, &key(), || Ok(CODE.to_vec())), Ok(CODE.to_vec()));
    }

    #[test]
    fn the_folder_follows_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| std::ffi::OsString::from(v))
        };
        assert_eq!(folder_from(env(&[("WAVEBROT_CACHE_DIR", "/c"), ("HOME", "/h")])), Some(PathBuf::from("/c")));
        assert_eq!(folder_from(env(&[("WAVEBROT_CACHE_DIR", "off"), ("HOME", "/h")])), None);
        assert_eq!(
            folder_from(env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/wavebrot/cuda"))
        );
        assert_eq!(folder_from(env(&[("HOME", "/h")])), Some(PathBuf::from("/h/.cache/wavebrot/cuda")));
        assert_eq!(folder_from(env(&[])), None);
    }
}
