//! Files wavebrot writes: PNG pictures and `.npy` arrays, each written to a temporary
//! file beside the target and renamed into place, so a failed write leaves nothing half.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};

use crate::sim::colormap;

/// Writes `path` atomically: `write` fills a temporary file in the same folder, which is
/// renamed onto `path` only when it succeeded.
///
/// # Errors
/// The folder cannot be written, or `write` failed.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&mut std::fs::File>) -> Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".wavebrot-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("cannot write {}: cannot create a file in {}", path.display(), dir.display()))?;
    {
        let mut w = BufWriter::new(tmp.as_file_mut());
        write(&mut w).with_context(|| format!("cannot write {}", path.display()))?;
        w.flush().with_context(|| format!("cannot write {}", path.display()))?;
    }
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Writes an RGBA8 image as PNG.
///
/// # Errors
/// The file cannot be written.
pub fn write_png(path: &Path, rgba: &[u8], width: usize, height: usize) -> Result<()> {
    let (w, h) = (u32::try_from(width)?, u32::try_from(height)?);
    write_atomically(path, |out| {
        image::write_buffer_with_format(out, rgba, w, h, image::ExtendedColorType::Rgba8, image::ImageFormat::Png)?;
        Ok(())
    })
}

/// Writes `data` as a little-endian `.npy` array of `shape` (`<f4` for `f32`, `<i4` for `i32`).
///
/// # Errors
/// The file cannot be written.
pub fn write_npy<T: npyz::Serialize + npyz::AutoSerialize + Copy>(
    path: &Path,
    data: &[T],
    shape: &[u64],
) -> Result<()> {
    write_atomically(path, |out| {
        use npyz::WriterBuilder;
        let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(out).begin_nd()?;
        w.extend(data.iter().copied())?;
        w.finish()?;
        Ok(())
    })
}

/// Reads a `.npy` array and its shape.
///
/// # Errors
/// The file cannot be read or holds another type.
pub fn read_npy<T: npyz::Deserialize>(path: &Path) -> Result<(Vec<T>, Vec<u64>)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let npy = npyz::NpyFile::new(&bytes[..]).with_context(|| format!("{} is not a .npy file", path.display()))?;
    let shape = npy.shape().to_vec();
    let data = npy.into_vec::<T>().with_context(|| format!("cannot read the array in {}", path.display()))?;
    Ok((data, shape))
}

/// The wave field as the seed would plot it, written to a PNG of `nx x ny` pixels.
///
/// # Errors
/// The file cannot be written.
pub fn write_wave_png(path: &Path, field: &[f32], nx: usize, ny: usize, vmin: f32, vmax: f32) -> Result<()> {
    let mut rgba = vec![0u8; nx * ny * 4];
    colormap::wave_rgba(field, nx, ny, vmin, vmax, &mut rgba);
    write_png(path, &rgba, nx, ny)
}

/// Checks before a long computation that `path` can be created, so a run does not end
/// in a write error. Nothing is left behind.
///
/// # Errors
/// The folder does not exist or cannot be written.
pub fn check_writable(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if path.is_dir() {
        anyhow::bail!("cannot write {}: it is a folder", path.display());
    }
    tempfile::Builder::new()
        .prefix(".wavebrot-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot write {}: {} is not a writable folder", path.display(), dir.display()))?;
    Ok(())
}

/// Writes one line to stdout. When the reader has gone (`wavebrot bench | head`), the
/// program ends quietly with status 0 instead of panicking as `println!` would.
pub fn print_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{args}").and_then(|()| out.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

/// `println!` that survives a closed pipe (see [`print_line`]).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::print_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::print_line(format_args!($($arg)*))
    };
}
