//! Recording the wave view, or a zoom path through the Mandelbrot set, as an animated GIF (the
//! Record button, key G): the pictures shown are handed to the `wavebrot-gif` thread, which
//! encodes them as they come with [`crate::output::write_lut_gif`] (the picture's palette table:
//! hot for the waves, the Mandelbrot view's palette, exact colours) into a temporary file that
//! becomes the GIF when the recording stops (written whole or not at all). A frame that comes
//! while the encoder is still busy with earlier ones is dropped and counted, so recording never
//! slows the simulation down or fills the memory.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Frames waiting for the encoder at most.
const QUEUE: usize = 8;

/// A recording under way.
pub struct Recorder {
    pub path: PathBuf,
    pub size: (usize, usize),
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
    /// Starts recording `width`×`height` pictures coloured from `lut` to `path`, played at `fps`
    /// frames per second (a frame's delay in whole hundredths of a second), at most `max_frames`.
    ///
    /// # Errors
    /// The path cannot be written, or the thread could not be started.
    pub fn start(
        path: &Path,
        (width, height): (usize, usize),
        lut: Arc<[[u8; 4]]>,
        fps: u16,
        max_frames: Option<usize>,
    ) -> anyhow::Result<Self> {
        let fps = fps.clamp(1, 100);
        let delay_cs = (100 / fps).max(1);
        crate::output::check_writable(path)?;
        let (tx, rx): (SyncSender<Vec<u8>>, Receiver<Vec<u8>>) = mpsc::sync_channel(QUEUE);
        let p = path.to_owned();
        let table = Arc::clone(&lut);
        let thread = std::thread::Builder::new().name("wavebrot-gif".to_owned()).spawn(move || {
            crate::output::write_lut_gif(&p, width, height, delay_cs, &table, |push| {
                for frame in rx {
                    push(&frame)?;
                }
                Ok(())
            })
        })?;
        Ok(Self {
            path: path.to_owned(),
            size: (width, height),
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
