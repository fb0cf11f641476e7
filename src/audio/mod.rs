//! Sound out: a stream of mono samples, pulled by a callback, played on the system's default
//! output. The wave lab's "listen to a probe" (`app/worker/sound.rs`) is its one user.
//!
//! On Linux the sound library, ALSA's `libasound.so.2`, is **loaded at run time** (`alsa.rs`,
//! through `libloading`), as libcuda and libnvrtc are: the binary builds with no `-dev` package
//! and no pkg-config, does not list libasound as NEEDED, and starts on a machine without it
//! (a headless server, a minimal container) — only the lab's sound then says why it is off.
//! Elsewhere `cpal` plays (`cpal_out.rs`: CoreAudio, WASAPI).

#[cfg(target_os = "linux")]
mod alsa;
#[cfg(not(target_os = "linux"))]
mod cpal_out;

/// Fills a buffer of mono samples (`-1..=1`); called on the audio thread.
pub type Source = Box<dyn FnMut(&mut [f32]) + Send>;

/// Why there is no sound; each says it in one line.
#[derive(Debug, thiserror::Error)]
pub enum SoundError {
    #[error("no audio output device: sound is off (the simulation runs on)")]
    NoDevice,
    #[error("no sound library: {0}; sound is off (the simulation runs on)")]
    NoLibrary(String),
    #[error("the audio device {device} cannot play: {error}")]
    Open { device: String, error: String },
    #[error("the audio stream on {device} did not start: {error}")]
    Stream { device: String, error: String },
}

/// A playing stream; dropping it stops the sound.
pub struct Output {
    #[cfg(target_os = "linux")]
    inner: alsa::Playback,
    #[cfg(not(target_os = "linux"))]
    inner: cpal_out::Playback,
    /// The device, for the panel.
    pub device: String,
    /// Samples per second.
    pub sample_rate: u32,
}

impl Output {
    /// Plays `source` on the default output (`device: None`) or on the named ALSA device (Linux;
    /// elsewhere a name is the device's description).
    ///
    /// # Errors
    /// No library, no device, or the device refused the stream.
    pub fn open(device: Option<&str>, source: Source) -> Result<Self, SoundError> {
        #[cfg(target_os = "linux")]
        let (inner, device, sample_rate) = alsa::Playback::open(device.unwrap_or("default"), source)?;
        #[cfg(not(target_os = "linux"))]
        let (inner, device, sample_rate) = cpal_out::Playback::open(device, source)?;
        Ok(Self { inner, device, sample_rate })
    }

    /// Sample frames handed to the device so far.
    #[must_use]
    pub fn frames_played(&self) -> u64 {
        self.inner.frames_played()
    }
}

/// Where sound comes from on this machine, or why there is none: `wavebrot info`'s line.
#[must_use]
pub fn describe() -> String {
    #[cfg(target_os = "linux")]
    return alsa::describe();
    #[cfg(not(target_os = "linux"))]
    return cpal_out::describe();
}
