//! Recording the wave view, or a zoom path through the Mandelbrot set, as an animated GIF (the
//! Record button, key G): the pictures shown are handed to the `wavebrot-gif` thread, which
//! encodes them as they come with [`crate::output::write_lut_gif`] (the picture's palette table:
//! hot for the waves, the Mandelbrot view's palette, exact colours) into a temporary file that
//! becomes the GIF when the recording stops (written whole or not at all). A frame that comes
//! while the encoder is still busy with earlier ones is dropped and counted, so recording never
//! slows the simulation down or fills the memory.
//!
//! A recording can be made smaller ([`Shrink`]): its pictures thinned to a narrower width (each
//! GIF pixel the picture's pixel under its centre, so every colour stays one of the table's)
//! and its colours cut to fewer levels of the table (longer runs of one colour, which the GIF's
//! compression and its frame differencing both pay off on).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::thread::JoinHandle;
use web_time::{Duration, Instant};

/// Frames waiting for the encoder at most.
const QUEUE: usize = 8;

/// How a recording is made smaller than the pictures shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shrink {
    /// The GIF's widest width in pixels (`None`: the picture's own).
    pub max_width: Option<usize>,
    /// Colour levels of the table kept (256 or more: every colour).
    pub levels: usize,
}

impl Default for Shrink {
    fn default() -> Self {
        Self { max_width: None, levels: 256 }
    }
}

impl Shrink {
    /// The GIF's size for pictures of `size`: the width at most `max_width`, the height in
    /// proportion (at least one pixel).
    #[must_use]
    pub fn size(&self, (w, h): (usize, usize)) -> (usize, usize) {
        match self.max_width {
            Some(m) if m < w => (m.max(1), ((h as f64 * m as f64 / w as f64).round() as usize).max(1)),
            _ => (w, h),
        }
    }
}

/// A picture `from` (RGBA, `src` pixels) as the GIF takes it: thinned to `dst` pixels (each
/// the source pixel under its centre) and each colour replaced by the middle one of its level,
/// `levels` of them over `lut` (`index` maps a colour to its place in `lut`). Colours outside
/// the table are left as they are (the encoder refuses them, naming the colour).
#[must_use]
pub fn shrink_frame(
    from: &[u8],
    src: (usize, usize),
    dst: (usize, usize),
    lut: &[[u8; 4]],
    index: &std::collections::HashMap<[u8; 3], usize>,
    levels: usize,
) -> Vec<u8> {
    let step = lut.len().div_ceil(levels.max(1)).max(1);
    let cols: Vec<usize> = (0..dst.0).map(|i| ((i * 2 + 1) * src.0 / (dst.0 * 2)).min(src.0 - 1)).collect();
    let mut out = Vec::with_capacity(dst.0 * dst.1 * 4);
    for j in 0..dst.1 {
        let row = ((j * 2 + 1) * src.1 / (dst.1 * 2)).min(src.1 - 1);
        for &c in &cols {
            let p = &from[(row * src.0 + c) * 4..(row * src.0 + c) * 4 + 4];
            match index.get(&[p[0], p[1], p[2]]) {
                Some(&k) if step > 1 => out.extend_from_slice(&lut[(k / step * step + step / 2).min(lut.len() - 1)]),
                _ => out.extend_from_slice(p),
            }
        }
    }
    out
}

/// Encodes `frames` (RGBA pictures of `size`, coloured from `lut`) as the GIF at `path`, each
/// shown `delay_cs` hundredths of a second, made smaller by `shrink`: what the `wavebrot-gif`
/// thread runs. Returns the frames written.
///
/// # Errors
/// A frame of another size or with a colour outside `lut`, or the file cannot be written (no
/// file is left).
pub fn encode(
    path: &Path,
    size: (usize, usize),
    lut: &[[u8; 4]],
    delay_cs: u16,
    shrink: Shrink,
    frames: impl IntoIterator<Item = Vec<u8>>,
) -> anyhow::Result<usize> {
    let gif_size = shrink.size(size);
    let whole = gif_size == size && shrink.levels >= lut.len();
    let mut index = std::collections::HashMap::with_capacity(lut.len());
    for (k, c) in lut.iter().enumerate().rev() {
        index.insert([c[0], c[1], c[2]], k);
    }
    crate::output::write_lut_gif(path, gif_size.0, gif_size.1, delay_cs, lut, |push| {
        for frame in frames {
            anyhow::ensure!(frame.len() == size.0 * size.1 * 4, "a frame of {} bytes, not {size:?} RGBA", frame.len());
            if whole {
                push(&frame)?;
            } else {
                push(&shrink_frame(&frame, size, gif_size, lut, &index, shrink.levels))?;
            }
        }
        Ok(())
    })
}

/// A recording under way.
pub struct Recorder {
    pub path: PathBuf,
    /// The pictures' size, and the GIF's.
    pub size: (usize, usize),
    pub gif_size: (usize, usize),
    /// Every colour the pictures hold (the palette table, and an interior colour of its own).
    pub lut: Arc<[[u8; 4]]>,
    /// GIF frames per second, and the most frames to take (`None`: until stopped).
    pub fps: u16,
    pub max_frames: Option<usize>,
    /// When the last picture was taken (pictures of the running waves come at the frame rate).
    last: Option<Instant>,
    frames: Option<SyncSender<Vec<u8>>>,
    thread: Option<JoinHandle<anyhow::Result<usize>>>,
    /// Frames handed to the encoder and frames dropped because it was busy.
    pub sent: usize,
    pub dropped: usize,
}

impl Recorder {
    /// Starts recording `size` pictures coloured from `lut` to `path`, played at `fps` frames
    /// per second (a frame's delay in whole hundredths of a second), at most `max_frames`, made
    /// smaller by `shrink` on the encoder's thread.
    ///
    /// # Errors
    /// The path cannot be written, or the thread could not be started.
    pub fn start(
        path: &Path,
        size: (usize, usize),
        lut: Arc<[[u8; 4]]>,
        (fps, max_frames): (u16, Option<usize>),
        shrink: Shrink,
    ) -> anyhow::Result<Self> {
        let fps = fps.clamp(1, 100);
        let delay_cs = (100 / fps).max(1);
        crate::output::check_writable(path)?;
        let (tx, rx): (SyncSender<Vec<u8>>, Receiver<Vec<u8>>) = mpsc::sync_channel(QUEUE);
        let p = path.to_owned();
        let table = Arc::clone(&lut);
        let gif_size = shrink.size(size);
        let thread = std::thread::Builder::new()
            .name("wavebrot-gif".to_owned())
            .spawn(move || encode(&p, size, &table, delay_cs, shrink, rx))?;
        Ok(Self {
            path: path.to_owned(),
            size,
            gif_size,
            lut,
            fps,
            max_frames,
            last: None,
            frames: Some(tx),
            thread: Some(thread),
            sent: 0,
            dropped: 0,
        })
    }

    /// True when a picture of a running simulation is due: a frame's time has passed since the
    /// last one taken.
    #[must_use]
    pub fn due(&self) -> bool {
        let every = Duration::from_secs_f64(1.0 / f64::from(self.fps));
        self.last.is_none_or(|t| t.elapsed() >= every)
    }

    /// True when the longest length chosen is reached.
    #[must_use]
    pub fn full(&self) -> bool {
        self.max_frames.is_some_and(|m| self.sent >= m)
    }

    /// Adds a picture (RGBA, the recording's size); false when its size differs (the grid changed).
    pub fn push(&mut self, rgba: &[u8], width: usize, height: usize) -> bool {
        if (width, height) != self.size {
            return false;
        }
        self.last = Some(Instant::now());
        if let Some(tx) = &self.frames {
            match tx.try_send(rgba.to_vec()) {
                Ok(()) => self.sent += 1,
                Err(TrySendError::Full(_)) => self.dropped += 1,
                Err(TrySendError::Disconnected(_)) => {}
            }
        }
        true
    }

    /// Stops: the encoder finishes the frames it has and the file is put in place. Returns the
    /// frames written.
    ///
    /// # Errors
    /// Encoding or writing failed (no file is left).
    pub fn stop(mut self) -> anyhow::Result<usize> {
        self.frames = None;
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(_)) => anyhow::bail!("the GIF encoder stopped unexpectedly"),
            None => Ok(0),
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.frames = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrower_gif_keeps_the_shape_and_the_table_s_colours() {
        let s = Shrink { max_width: Some(480), levels: 32 };
        assert_eq!(s.size((640, 480)), (480, 360));
        assert_eq!(s.size((320, 240)), (320, 240), "never wider than the picture");
        assert_eq!(Shrink::default().size((640, 480)), (640, 480));
        // A 4x2 picture of table colours 0..8, thinned to 2x1 and cut to 2 levels of 8.
        let lut: Vec<[u8; 4]> = (0..8u8).map(|k| [k * 30, 0, 0, 255]).collect();
        let index: std::collections::HashMap<[u8; 3], usize> =
            lut.iter().enumerate().map(|(k, c)| ([c[0], c[1], c[2]], k)).collect();
        let picture: Vec<u8> = (0..8).flat_map(|k| lut[k]).collect();
        let out = shrink_frame(&picture, (4, 2), (2, 1), &lut, &index, 8);
        // Row 1 (under the centre of the one GIF row), columns 1 and 3: colours 5 and 7.
        assert_eq!(out, [lut[5], lut[7]].concat());
        let out = shrink_frame(&picture, (4, 2), (2, 1), &lut, &index, 2);
        // Two levels of four: 5 and 7 are both in 4..8, drawn as its middle, 6.
        assert_eq!(out, [lut[6], lut[6]].concat());
    }
}
