//! The audio stream of "listen to a probe": a `cpal` output stream on the default device whose
//! callback plays the probe's [`Tape`] through a [`Playhead`] (`sound_tape.rs`: the shift and
//! the resampling). The UI thread pushes the probe's samples as frames arrive and sets the
//! shift and volume; nothing here draws.
//!
//! No audio device (CI, a headless GPU machine, a container) is an expected state: [`Sound::open`]
//! returns a [`SoundError`] whose text is the one-line note the lab shows. The stream is opened
//! only when sound is switched on, so a machine without audio never touches its sound system.

use std::sync::{Arc, Mutex, PoisonError};

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};

use crate::app::worker::sound_tape::{Playhead, Tape};

/// Why there is no sound; each says it in one line.
#[derive(Debug, thiserror::Error)]
pub enum SoundError {
    #[error("no audio output device: sound is off (the simulation runs on)")]
    NoDevice,
    #[error("the audio device {device} cannot play: {error}")]
    Config { device: String, error: cpal::Error },
    #[error("the audio device {device} plays {format} samples, which wavebrot does not write")]
    Format { device: String, format: cpal::SampleFormat },
    #[error("the audio stream on {device} did not start: {error}")]
    Stream { device: String, error: cpal::Error },
}

/// What the callback and the UI thread share.
struct Shared {
    tape: Tape,
    head: Playhead,
    /// Mono samples of the last callback (reused).
    mono: Vec<f32>,
}

/// A playing audio stream fed from a probe.
pub struct Sound {
    /// Kept to keep playing: dropping it stops the sound.
    _stream: cpal::Stream,
    shared: Arc<Mutex<Shared>>,
    /// The device's name, for the panel.
    pub device: String,
    /// Sound samples per second of the device.
    pub sample_rate: u32,
}

impl Sound {
    /// Opens the default output device of the default host and starts playing silence until
    /// samples come.
    ///
    /// # Errors
    /// No device, or it refused the stream.
    pub fn open(steps_per_second: f64, volume: f32) -> Result<Self, SoundError> {
        Self::open_on(cpal::default_host().default_output_device(), steps_per_second, volume)
    }

    /// [`Sound::open`] on `device` (`None`: there is none).
    ///
    /// # Errors
    /// As [`Sound::open`].
    pub fn open_on(device: Option<cpal::Device>, steps_per_second: f64, volume: f32) -> Result<Self, SoundError> {
        let device = device.ok_or(SoundError::NoDevice)?;
        let name = device.description().map_or_else(|_| "(unnamed)".to_owned(), |d| d.to_string());
        let config =
            device.default_output_config().map_err(|error| SoundError::Config { device: name.clone(), error })?;
        let format = config.sample_format();
        let config: cpal::StreamConfig = config.into();
        let channels = usize::from(config.channels.max(1));
        let sample_rate = config.sample_rate;
        let mut head = Playhead::new(steps_per_second, f64::from(sample_rate));
        head.volume = volume;
        let shared = Arc::new(Mutex::new(Shared { tape: Tape::default(), head, mono: Vec::new() }));
        let stream = match format {
            cpal::SampleFormat::F32 => build::<f32>(&device, &config, channels, &shared),
            cpal::SampleFormat::I16 => build::<i16>(&device, &config, channels, &shared),
            cpal::SampleFormat::I32 => build::<i32>(&device, &config, channels, &shared),
            cpal::SampleFormat::U16 => build::<u16>(&device, &config, channels, &shared),
            format => return Err(SoundError::Format { device: name, format }),
        }
        .map_err(|error| SoundError::Stream { device: name.clone(), error })?;
        stream.play().map_err(|error| SoundError::Stream { device: name.clone(), error })?;
        Ok(Self { _stream: stream, shared, device: name, sample_rate })
    }

    /// Hands the probe's new samples `(time step, f)` to the callback.
    pub fn push(&self, samples: &[(u32, f32)]) {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner).tape.push(samples);
    }

    /// Sets the pitch shift (time steps per second of sound) and the volume (0..=1).
    pub fn set(&self, steps_per_second: f64, volume: f32) {
        let mut s = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        s.head.steps_per_second = steps_per_second;
        s.head.volume = volume.clamp(0.0, 1.0);
    }

    /// Forgets the samples (another probe, a reset).
    pub fn clear(&self) {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner).tape.clear();
    }

    /// Whether the sound is playing now rather than waiting for the simulation.
    #[must_use]
    pub fn playing(&self) -> bool {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner).head.playing()
    }
}

fn build<T>(
    device: &cpal::Device,
    config: &cpal::StreamConfig,
    channels: usize,
    shared: &Arc<Mutex<Shared>>,
) -> Result<cpal::Stream, cpal::Error>
where
    T: cpal::SizedSample + cpal::FromSample<f32>,
{
    let shared = Arc::clone(shared);
    device.build_output_stream::<T, _, _>(
        *config,
        move |out: &mut [T], _| {
            // The UI thread holds the lock only to append a frame's samples; a callback that finds
            // it poisoned still plays.
            let mut guard = shared.lock().unwrap_or_else(PoisonError::into_inner);
            let s = &mut *guard;
            s.mono.resize(out.len() / channels, 0.0);
            s.head.render(&mut s.tape, &mut s.mono);
            for (frame, &v) in out.chunks_mut(channels).zip(&s.mono) {
                frame.fill(T::from_sample(v));
            }
        },
        // Underruns and device changes are heard, not shown; the stream keeps going.
        |_error| {},
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_device_is_a_one_line_note() {
        let Err(e) = Sound::open_on(None, 8800.0, 0.5) else { panic!("a sound without a device") };
        let note = e.to_string();
        assert!(matches!(e, SoundError::NoDevice));
        assert_eq!(note, "no audio output device: sound is off (the simulation runs on)");
        assert!(!note.contains('\n'));
    }
}
