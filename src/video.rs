//! A movie's frames to files, whole or not at all:
//! - `FILE.mp4` (`.mkv`, `.mov`) through `ffmpeg` when it is on `PATH`: raw RGB frames piped to its
//!   stdin, H.264 (`libx264`, `yuv420p`) into a temporary file beside `FILE`
//!   ([`crate::tempfiles`]: deleted on Ctrl-C or failure) renamed onto `FILE` when ffmpeg ends well;
//! - without ffmpeg, a numbered PNG sequence in the folder `FILE`'s stem + `-frames`
//!   (`zoom.mp4` → `zoom-frames/frame-000000.png`, each frame written atomically) and the ffmpeg
//!   command that makes the movie of it;
//! - `FILE.rgb`, or a device or FIFO (`/dev/null`, a pipe to any encoder): the raw `rgb24`
//!   frames one after the other.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::output;
use crate::tempfiles::TempFile;

/// Where the frames go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VideoTarget {
    /// Encoded by the `ffmpeg` found at this path, in this container (`-f`).
    Ffmpeg { ffmpeg: PathBuf, container: &'static str },
    /// A PNG sequence in this folder (no ffmpeg on `PATH`).
    Pngs { dir: PathBuf },
    /// Raw `rgb24` frames.
    Raw,
}

/// The containers ffmpeg writes, by the file's extension.
const CONTAINERS: [(&str, &str); 3] = [("mp4", "mp4"), ("mkv", "matroska"), ("mov", "mov")];

/// Why a movie file cannot be written as asked.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VideoError {
    #[error("--video {0}: give a file ending in .mp4, .mkv or .mov (or .rgb for raw RGB frames)")]
    Extension(String),
}

/// The target for `path`: raw for `.rgb` or an existing device or FIFO, else by its extension
/// through ffmpeg when `ffmpeg` (a path found on `PATH`) is given, else a PNG sequence.
///
/// # Errors
/// An extension that is none of these.
pub fn choose(path: &Path, ffmpeg: Option<PathBuf>) -> Result<VideoTarget, VideoError> {
    let stream = std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    if stream || ext == "rgb" {
        return Ok(VideoTarget::Raw);
    }
    let Some(&(_, container)) = CONTAINERS.iter().find(|(e, _)| *e == ext) else {
        return Err(VideoError::Extension(path.display().to_string()));
    };
    Ok(match ffmpeg {
        Some(ffmpeg) => VideoTarget::Ffmpeg { ffmpeg, container },
        None => VideoTarget::Pngs { dir: frames_dir(path) },
    })
}

/// The PNG sequence's folder for a movie `path`: its stem + `-frames`, beside it.
#[must_use]
pub fn frames_dir(path: &Path) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "movie".to_owned());
    path.with_file_name(format!("{stem}-frames"))
}

/// `name` as found on `PATH` (an executable file), as a shell would find it.
#[must_use]
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(name))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// The ffmpeg command that encodes a PNG sequence in `dir` at `fps` into `out`.
#[must_use]
pub fn ffmpeg_command(dir: &Path, fps: u32, out: &Path) -> String {
    format!(
        "ffmpeg -framerate {fps} -i {}/frame-%06d.png -c:v libx264 -pix_fmt yuv420p {}",
        shell_quote(&dir.display().to_string()),
        shell_quote(&out.display().to_string())
    )
}

fn shell_quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+,=:".contains(c)) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A movie being written.
pub struct VideoWriter {
    sink: Sink,
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

enum Sink {
    Ffmpeg {
        child: Child,
        stdin: Option<ChildStdin>,
        tmp: TempFile,
        target: PathBuf,
    },
    /// `created`: the folder was made for this movie; `written`: frames `0..written` are in it.
    Pngs {
        dir: PathBuf,
        created: bool,
        written: u32,
    },
    RawFile {
        out: std::io::BufWriter<std::fs::File>,
        tmp: Option<(TempFile, PathBuf)>,
    },
}

impl VideoWriter {
    /// Starts writing `path` as `target` says: `width x height` frames at `fps`.
    ///
    /// # Errors
    /// The folder cannot be written, or ffmpeg cannot be started.
    pub fn open(target: &VideoTarget, path: &Path, width: usize, height: usize, fps: u32) -> Result<Self> {
        let cannot = || format!("cannot write {}", path.display());
        let folder = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let sink = match target {
            VideoTarget::Ffmpeg { ffmpeg, container } => {
                let tmp = TempFile::create_in(&folder).with_context(cannot)?;
                let mut child = Command::new(ffmpeg)
                    .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24"])
                    .args(["-s", &format!("{width}x{height}"), "-framerate", &fps.to_string(), "-i", "pipe:0"])
                    .args(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", container])
                    .arg(tmp.path())
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .spawn()
                    .with_context(|| format!("cannot start {}", ffmpeg.display()))?;
                let stdin = child.stdin.take();
                Sink::Ffmpeg { child, stdin, tmp, target: path.to_path_buf() }
            }
            VideoTarget::Pngs { dir } => {
                let created = !dir.exists();
                std::fs::create_dir_all(dir).with_context(|| format!("cannot make the folder {}", dir.display()))?;
                Sink::Pngs { dir: dir.clone(), created, written: 0 }
            }
            VideoTarget::Raw => {
                let stream = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
                if stream {
                    let f = std::fs::OpenOptions::new().append(true).open(path).with_context(cannot)?;
                    Sink::RawFile { out: std::io::BufWriter::new(f), tmp: None }
                } else {
                    output::check_writable(path)?;
                    let mut tmp = TempFile::create_in(&folder).with_context(cannot)?;
                    let f = tmp.file_mut().try_clone().with_context(cannot)?;
                    Sink::RawFile { out: std::io::BufWriter::new(f), tmp: Some((tmp, path.to_path_buf())) }
                }
            }
        };
        Ok(Self { sink, width, height, rgb: Vec::new() })
    }

    /// Writes `frames` (RGBA, `first` the index of the first).
    ///
    /// # Errors
    /// A frame of the wrong size, ffmpeg gone, or a write failed.
    pub fn push(&mut self, first: u32, frames: &[Vec<u8>]) -> Result<()> {
        let (w, h) = (self.width, self.height);
        if let Some(f) = frames.iter().find(|f| f.len() != w * h * 4) {
            bail!("a frame of {} bytes for a {w}x{h} movie", f.len());
        }
        match &mut self.sink {
            Sink::Pngs { dir, written, .. } => {
                use rayon::prelude::*;
                *written = (*written).max(first + frames.len() as u32);
                frames.par_iter().enumerate().try_for_each(|(i, f)| {
                    output::write_png(&dir.join(format!("frame-{:06}.png", first as usize + i)), f, w, h)
                })?;
            }
            Sink::Ffmpeg { child, stdin, .. } => {
                let Some(pipe) = stdin.as_mut() else { bail!("ffmpeg's input is closed") };
                for f in frames {
                    rgba_to_rgb(f, &mut self.rgb);
                    if let Err(e) = pipe.write_all(&self.rgb) {
                        let status = child.wait().ok().map(|s| s.to_string()).unwrap_or_default();
                        bail!("ffmpeg stopped taking frames ({e}; {status})");
                    }
                }
            }
            Sink::RawFile { out, .. } => {
                for f in frames {
                    rgba_to_rgb(f, &mut self.rgb);
                    out.write_all(&self.rgb).context("writing the raw frames")?;
                }
            }
        }
        Ok(())
    }

    /// Gives the movie up and leaves nothing of it: ffmpeg stopped and its temporary file
    /// removed, the PNG frames written so far removed (and their folder, when it was made for
    /// them and is empty), the raw temporary file removed (a stream keeps what it was sent).
    pub fn abandon(self) {
        match self.sink {
            Sink::Ffmpeg { mut child, stdin, tmp, .. } => {
                drop(stdin);
                // Stopped before its file goes: else ffmpeg could create it again after the removal.
                let _ = child.kill();
                let _ = child.wait();
                drop(tmp);
            }
            Sink::Pngs { dir, created, written } => {
                for j in 0..written {
                    let _ = std::fs::remove_file(dir.join(format!("frame-{j:06}.png")));
                }
                if created {
                    let _ = std::fs::remove_dir(&dir);
                }
            }
            Sink::RawFile { out, tmp } => {
                drop(out);
                drop(tmp);
            }
        }
    }

    /// Ends the movie: waits for ffmpeg and renames its file onto the target, or closes the raw
    /// file (renamed likewise).
    ///
    /// # Errors
    /// ffmpeg failed, or the file could not be finished.
    pub fn finish(self) -> Result<()> {
        match self.sink {
            Sink::Pngs { .. } => Ok(()),
            Sink::Ffmpeg { mut child, stdin, tmp, target } => {
                drop(stdin);
                let status = child.wait().context("waiting for ffmpeg")?;
                if !status.success() {
                    bail!("ffmpeg failed ({status}); no movie was written");
                }
                tmp.persist(&target).with_context(|| format!("cannot write {}", target.display()))
            }
            Sink::RawFile { out, tmp } => {
                let f = out.into_inner().map_err(|e| e.into_error()).context("writing the raw frames")?;
                if let Some((tmp, target)) = tmp {
                    f.sync_all().context("writing the raw frames")?;
                    tmp.persist(&target).with_context(|| format!("cannot write {}", target.display()))?;
                }
                Ok(())
            }
        }
    }
}

/// RGBA bytes as RGB into `rgb`.
fn rgba_to_rgb(rgba: &[u8], rgb: &mut Vec<u8>) {
    rgb.clear();
    rgb.extend(rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_follow_the_extension_and_ffmpeg() {
        let ff = Some(PathBuf::from("/usr/bin/ffmpeg"));
        let mp4 = choose(Path::new("out/zoom.mp4"), ff.clone());
        assert_eq!(mp4, Ok(VideoTarget::Ffmpeg { ffmpeg: PathBuf::from("/usr/bin/ffmpeg"), container: "mp4" }));
        assert_eq!(
            choose(Path::new("out/zoom.mp4"), None),
            Ok(VideoTarget::Pngs { dir: PathBuf::from("out/zoom-frames") })
        );
        assert_eq!(
            choose(Path::new("z.MKV"), ff.clone())
                .map(|t| matches!(t, VideoTarget::Ffmpeg { container: "matroska", .. })),
            Ok(true)
        );
        assert_eq!(choose(Path::new("z.rgb"), None), Ok(VideoTarget::Raw));
        assert_eq!(choose(Path::new("/dev/null"), None), Ok(VideoTarget::Raw));
        assert!(matches!(choose(Path::new("z.gif"), ff), Err(VideoError::Extension(_))));
    }

    #[test]
    fn an_abandoned_png_sequence_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let frames = dir.path().join("dive-frames");
        let target = VideoTarget::Pngs { dir: frames.clone() };
        let mut w = VideoWriter::open(&target, &dir.path().join("dive.mp4"), 2, 2, 10).unwrap();
        w.push(0, &[vec![255u8; 16], vec![0u8; 16]]).unwrap();
        assert_eq!(std::fs::read_dir(&frames).unwrap().count(), 2, "two frames written");
        w.abandon();
        assert!(!frames.exists(), "the frames and their folder are removed");
        // A folder that was there before stays, without the frames.
        std::fs::create_dir(&frames).unwrap();
        std::fs::write(frames.join("mine.txt"), "keep").unwrap();
        let mut w = VideoWriter::open(&target, &dir.path().join("dive.mp4"), 2, 2, 10).unwrap();
        w.push(0, &[vec![255u8; 16]]).unwrap();
        w.abandon();
        let left: Vec<_> = std::fs::read_dir(&frames).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("mine.txt")]);
    }

    #[test]
    fn the_printed_command_quotes_odd_paths() {
        let c = ffmpeg_command(Path::new("my dir/z-frames"), 30, Path::new("z.mp4"));
        assert_eq!(c, "ffmpeg -framerate 30 -i 'my dir/z-frames'/frame-%06d.png -c:v libx264 -pix_fmt yuv420p z.mp4");
    }
}
