//! Files wavebrot writes: PNG pictures, animated GIFs and `.npy` arrays.
//!
//! A regular file (or a new one) is written atomically: a temporary file in the target's
//! own folder, renamed into place only when whole, so a failed or interrupted write leaves
//! the old file or nothing. A symbolic link is followed and its target written that way,
//! the link kept. Anything else — a character device (`/dev/full`, a terminal), a FIFO,
//! `/dev/stdout` — is written straight through: renaming onto it would replace the node.
//! New files get the mode the umask gives (`0666 & !umask`); a replaced file keeps its mode.
//! In the browser build every file is a download instead (`download.rs`), named as the path's
//! last part.

use std::path::Path;

use anyhow::{Context, Result};

use crate::sim::colour::colormap;

// Where the bytes go: a file on disk, written atomically (native), or a download the browser
// hands to the user (the web build). The encoders below write through either the same way.
#[cfg(not(target_arch = "wasm32"))]
mod disk;
#[cfg(not(target_arch = "wasm32"))]
pub use disk::{check_writable, write_atomically, write_npy_streamed};
#[cfg(target_arch = "wasm32")]
mod download;
#[cfg(target_arch = "wasm32")]
pub use download::{check_writable, write_atomically, write_npy_streamed};

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

/// Writes an animated GIF of `width x height` pixels whose frames are `hot` pictures (RGBA8, as
/// [`colormap::wave_rgba`] makes them), looping, `delay_cs` hundredths of a second apart. The
/// palette is `hot`'s 256 colours, so every pixel keeps its exact colour. `frames` is called once
/// with a function that appends one frame; the frames are encoded as they come (one in memory at
/// a time). Returns the number of frames written.
///
/// # Errors
/// A side above 65535 (GIF's limit), a frame of the wrong size or with a colour outside `hot`, a
/// failure of `frames`, or the file cannot be written.
pub fn write_hot_gif(
    path: &Path,
    width: usize,
    height: usize,
    delay_cs: u16,
    frames: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
) -> Result<usize> {
    write_lut_gif(path, width, height, delay_cs, &colormap::HOT_LUT[..], frames)
}

/// [`write_hot_gif`] for pictures coloured from any palette table `lut` (the Mandelbrot
/// palettes of [`crate::sim::colour::palette`]): the GIF's palette is the table itself where it has at
/// most 256 colours, so every colour is exact; a longer table (`twilight`, 510) is sampled
/// evenly to 256 and each colour is written as its sample (at most one table step off).
///
/// # Errors
/// As [`write_hot_gif`]; a frame with a colour outside `lut`.
pub fn write_lut_gif(
    path: &Path,
    width: usize,
    height: usize,
    delay_cs: u16,
    lut: &[[u8; 4]],
    frames: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
) -> Result<usize> {
    let (w, h) = (u16::try_from(width), u16::try_from(height));
    let (Ok(w), Ok(h)) = (w, h) else {
        anyhow::bail!("a GIF is at most 65535 pixels a side; this picture is {width} x {height}");
    };
    anyhow::ensure!(!lut.is_empty(), "a GIF palette needs at least one colour");
    let slots = lut.len().min(256);
    // Table entry `k` is written as palette slot `k * slots / len` (the identity up to 256).
    let slot = |k: usize| k * slots / lut.len();
    let mut palette = vec![0u8; 3 * slots];
    for (k, c) in lut.iter().enumerate() {
        if k == 0 || slot(k) != slot(k - 1) {
            palette[3 * slot(k)..3 * slot(k) + 3].copy_from_slice(&c[..3]);
        }
    }
    let mut index = std::collections::HashMap::with_capacity(lut.len());
    for (k, c) in lut.iter().enumerate().rev() {
        index.insert([c[0], c[1], c[2]], slot(k) as u8);
    }
    // A slot no colour uses (tables with repeated colours, or under 256) marks the pixels a
    // frame leaves as they were.
    let transparent = (0..=255u8).find(|s| !index.values().any(|v| v == s));
    let mut count = 0;
    write_atomically(path, |out| {
        let mut enc = gif::Encoder::new(out, w, h, &palette)?;
        enc.set_repeat(gif::Repeat::Infinite)?;
        let mut indices = vec![0u8; width * height];
        let mut previous: Option<Vec<u8>> = None;
        let mut sub = Vec::new();
        let mut push = |rgba: &[u8]| -> Result<()> {
            anyhow::ensure!(
                rgba.len() == width * height * 4,
                "a GIF frame of {} bytes, not {width} x {height} x 4",
                rgba.len()
            );
            for (i, px) in indices.iter_mut().zip(rgba.chunks_exact(4)) {
                *i = *index
                    .get(&[px[0], px[1], px[2]])
                    .ok_or_else(|| anyhow::anyhow!("a GIF frame holds a colour outside its palette: {px:?}"))?;
            }
            let frame = match &previous {
                None => gif::Frame {
                    width: w,
                    height: h,
                    delay: delay_cs,
                    dispose: gif::DisposalMethod::Keep,
                    buffer: std::borrow::Cow::Borrowed(&indices),
                    ..gif::Frame::default()
                },
                Some(before) => {
                    // Only the rectangle that changed (one pixel when nothing did), drawn over
                    // the frame before; inside it, unchanged pixels transparent where a slot is free.
                    let (x0, y0, rw, rh) = changed_rect(before, &indices, width, height).unwrap_or((0, 0, 1, 1));
                    sub.clear();
                    for y in y0..y0 + rh {
                        let row = y * width + x0..y * width + x0 + rw;
                        match transparent {
                            Some(t) => sub.extend(
                                indices[row.clone()]
                                    .iter()
                                    .zip(&before[row])
                                    .map(|(&n, &o)| if n == o { t } else { n }),
                            ),
                            None => sub.extend_from_slice(&indices[row]),
                        }
                    }
                    gif::Frame {
                        left: x0 as u16,
                        top: y0 as u16,
                        width: rw as u16,
                        height: rh as u16,
                        delay: delay_cs,
                        dispose: gif::DisposalMethod::Keep,
                        transparent,
                        buffer: std::borrow::Cow::Borrowed(&sub),
                        ..gif::Frame::default()
                    }
                }
            };
            enc.write_frame(&frame)?;
            match &mut previous {
                Some(p) => p.copy_from_slice(&indices),
                None => previous = Some(indices.clone()),
            }
            count += 1;
            Ok(())
        };
        frames(&mut push)
    })?;
    Ok(count)
}

/// The smallest rectangle `(x, y, width, height)` holding every pixel where `a` and `b` (pictures
/// `width` pixels wide, `height` high) differ; `None` when they are equal.
fn changed_rect(a: &[u8], b: &[u8], width: usize, height: usize) -> Option<(usize, usize, usize, usize)> {
    let row_differs = |y: usize| a[y * width..(y + 1) * width] != b[y * width..(y + 1) * width];
    let top = (0..height).find(|&y| row_differs(y))?;
    let bottom = (top..height).rev().find(|&y| row_differs(y)).unwrap_or(top);
    let (mut left, mut right) = (width, 0);
    for y in top..=bottom {
        let (ra, rb) = (&a[y * width..(y + 1) * width], &b[y * width..(y + 1) * width]);
        if let Some(l) = (0..left).find(|&x| ra[x] != rb[x]) {
            left = l;
        }
        if let Some(r) = (right..width).rev().find(|&x| ra[x] != rb[x]) {
            right = r;
        }
    }
    Some((left, top, right + 1 - left, bottom + 1 - top))
}

/// Values `.npy` files hold: plain little-endian numbers (this is an x86-64/aarch64 program, both
/// little-endian), written as their bytes.
pub trait NpyElement: bytemuck::Pod {
    /// numpy's type string.
    const DESCR: &'static str;
}

impl NpyElement for f32 {
    const DESCR: &'static str = "<f4";
}

impl NpyElement for i32 {
    const DESCR: &'static str = "<i4";
}

/// The header of a version 1.0 `.npy` file of C-order `shape` and type `descr`, padded with
/// spaces to a multiple of 64 bytes as numpy writes it (so the data starts aligned).
#[must_use]
pub fn npy_header(descr: &str, shape: &[u64]) -> Vec<u8> {
    let dims = match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    let unpadded = 10 + dict.len() + 1;
    dict.extend(std::iter::repeat_n(' ', unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(dict.len()).unwrap_or(u16::MAX).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// Writes `data` as a little-endian `.npy` array of `shape` (`<f4` for `f32`, `<i4` for `i32`),
/// the data bytes written at their offsets by all cores at once ([`write_npy_streamed`]).
///
/// # Errors
/// The file cannot be written.
pub fn write_npy<T: NpyElement>(path: &Path, data: &[T], shape: &[u64]) -> Result<()> {
    let bytes: &[u8] = bytemuck::cast_slice(data);
    write_npy_streamed::<T>(path, shape, bytes.len(), |sink| sink(0, bytes))
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

/// `path` as the status line says it: the whole path, folder included (a relative `wave.png`
/// said alone left the user guessing where it went), or as given where it cannot be made whole.
#[must_use]
pub fn shown_path(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
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

#[cfg(test)]
mod tests {
    use super::disk::WRITE_PIECE;
    use super::*;
    use std::path::PathBuf;

    /// Seen: "saved wave.png" did not say the folder.
    #[test]
    fn a_shown_path_names_its_folder() {
        let cwd = std::env::current_dir().expect("a working folder");
        assert_eq!(shown_path(Path::new("wave.png")), cwd.join("wave.png").display().to_string());
        assert_eq!(shown_path(Path::new("/tmp/x.png")), "/tmp/x.png");
    }

    fn temp_path(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("wavebrot-output-{}-{name}", std::process::id()))
    }

    #[test]
    fn npy_files_read_back_whole() {
        let path = temp_path("a.npy");
        // Over one write piece, so several threads write it.
        let (h, w) = (3, (WRITE_PIECE / 4) + 17);
        let data: Vec<f32> = (0..h * w).map(|k| k as f32 * 0.5 - 7.0).collect();
        write_npy(&path, &data, &[h as u64, w as u64]).unwrap();
        let (back, shape) = read_npy::<f32>(&path).unwrap();
        assert_eq!(shape, [h as u64, w as u64]);
        assert!(back == data, "the array differs after a round trip");
        let counts: Vec<i32> = (0..11).map(|k| k * k - 3).collect();
        write_npy(&path, &counts, &[11]).unwrap();
        assert_eq!(read_npy::<i32>(&path).unwrap(), (counts, vec![11]));
        let bytes = std::fs::read(&path).unwrap();
        let header_len = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
        assert_eq!((10 + header_len) % 64, 0, "data aligned as numpy writes it");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn streamed_pieces_land_at_their_offsets() {
        let path = temp_path("b.npy");
        let data: Vec<i32> = (0..100_000).collect();
        let bytes: &[u8] = bytemuck::cast_slice(&data);
        write_npy_streamed::<i32>(&path, &[100, 1000], bytes.len(), |sink| {
            for (k, piece) in bytes.chunks(40_000).enumerate() {
                sink(k * 40_000, piece)?;
            }
            Ok(())
        })
        .unwrap();
        assert!(read_npy::<i32>(&path).unwrap().0 == data);
        // A gap, a short total or a failing producer leave the old file as it was.
        let gap = write_npy_streamed::<i32>(&path, &[100, 1000], bytes.len(), |sink| sink(8, &bytes[8..]));
        assert!(format!("{:#}", gap.unwrap_err()).contains("piece at byte 8, expected 0"));
        let short = write_npy_streamed::<i32>(&path, &[100, 1000], bytes.len(), |sink| sink(0, &bytes[..400]));
        assert!(format!("{:#}", short.unwrap_err()).contains("wrote 400 of 400000 bytes"));
        let failed = write_npy_streamed::<i32>(&path, &[100, 1000], bytes.len(), |_| anyhow::bail!("device lost"));
        assert!(format!("{:#}", failed.unwrap_err()).contains("device lost"));
        assert!(read_npy::<i32>(&path).unwrap().0 == data);
        std::fs::remove_file(&path).unwrap();
    }
}
