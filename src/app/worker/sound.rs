//! The audio stream of "listen to a probe": an [`Output`] (`src/audio/`) on the default device
//! whose callback plays the probe's [`Tape`] through a [`Playhead`] (`sound_tape.rs`: the shift and
//! the resampling). The UI thread pushes the probe's samples as frames arrive and sets the
//! shift and volume; nothing here draws.
//!
//! No audio device (CI, a headless GPU machine, a container) is an expected state: [`Sound::open`]
//! returns a [`SoundError`] whose text is the one-line note the lab shows. The stream is opened
//! only when sound is switched on, so a machine without audio never touches its sound system.

use std::sync::{Arc, Mutex, PoisonError};

use crate::audio::Output;
pub use crate::audio::SoundError;

use crate::app::worker::sound_tape::{Playhead, Tape};

/// What the audio thread and the UI thread share.
struct Shared {
    tape: Tape,
    head: Playhead,
}

/// A playing audio stream fed from a probe.
pub struct Sound {
    /// Kept to keep playing: dropping it stops the sound.
    output: Output,
    shared: Arc<Mutex<Shared>>,
    /// The device's name, for the panel.
    pub device: String,
    /// Sound samples per second of the device.
    pub sample_rate: u32,
}

impl Sound {
    /// Opens the default output device and starts playing silence until samples come.
    ///
    /// # Errors
    /// No sound library, no device, or it refused the stream.
    pub fn open(steps_per_second: f64, volume: f32) -> Result<Self, SoundError> {
        Self::open_on(Some(None), steps_per_second, volume)
    }

    /// [`Sound::open`] on `device`: `Some(None)` the default one, `Some(Some(name))` a named ALSA
    /// device (`"null"` in the tests), `None` there is none.
    ///
    /// # Errors
    /// As [`Sound::open`].
    pub fn open_on(device: Option<Option<&str>>, steps_per_second: f64, volume: f32) -> Result<Self, SoundError> {
        let device = device.ok_or(SoundError::NoDevice)?;
        // The device's rate is known only once it is open: the head's rate is set then, before
        // the first sample is asked for (the stream's thread waits on the lock meanwhile).
        let mut head = Playhead::new(steps_per_second, 48_000.0);
        head.volume = volume;
        let shared = Arc::new(Mutex::new(Shared { tape: Tape::default(), head }));
        let mut guard = shared.lock().unwrap_or_else(PoisonError::into_inner);
        let feed = Arc::clone(&shared);
        let output = Output::open(
            device,
            Box::new(move |mono: &mut [f32]| {
                // The UI thread holds the lock only to append a frame's samples; a callback that
                // finds it poisoned still plays.
                let mut s = feed.lock().unwrap_or_else(PoisonError::into_inner);
                let s = &mut *s;
                s.head.render(&mut s.tape, mono);
            }),
        )?;
        guard.head.sample_rate = f64::from(output.sample_rate);
        drop(guard);
        Ok(Self { device: output.device.clone(), sample_rate: output.sample_rate, output, shared })
    }

    /// Sample frames handed to the device so far.
    #[must_use]
    pub fn frames_played(&self) -> u64 {
        self.output.frames_played()
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

    /// A card that is not there (`hw:99`): one line naming it, from ALSA's own message, and
    /// nothing printed by alsa-lib itself (its error handler is silenced).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_missing_alsa_card_is_one_line() {
        match Sound::open_on(Some(Some("hw:99")), 8800.0, 0.5) {
            Err(SoundError::NoLibrary(why)) if std::env::var_os("WAVEBROT_REQUIRE").is_none() => {
                eprintln!("SKIP a_missing_alsa_card_is_one_line: {why}");
            }
            Err(e @ SoundError::Open { .. }) => {
                let note = e.to_string();
                assert!(note.starts_with("the audio device ALSA hw:99 cannot play: "), "{note}");
                assert!(!note.contains('\n'), "{note}");
            }
            Err(e) => panic!("another error for a missing card: {e}"),
            Ok(_) => panic!("hw:99 opened"),
        }
    }

    /// A real ALSA device, alsa-lib's `null` PCM (in every alsa-lib's configuration): the library
    /// is loaded at run time, the device opened, and frames are written at the device's pace.
    #[cfg(target_os = "linux")]
    #[test]
    fn plays_on_alsa_null_device() {
        let sound = match Sound::open_on(Some(Some("null")), 8800.0, 0.5) {
            Ok(s) => s,
            Err(SoundError::NoLibrary(why)) if std::env::var_os("WAVEBROT_REQUIRE").is_none() => {
                eprintln!("SKIP plays_on_alsa_null_device: {why}");
                return;
            }
            Err(e) => panic!("the null device did not open: {e}"),
        };
        assert_eq!(sound.device, "ALSA null");
        sound.push(&(0..4000).map(|t| (t, (f64::from(t) * 0.2).sin() as f32)).collect::<Vec<_>>());
        let start = web_time::Instant::now();
        while sound.frames_played() < 4800 && start.elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(sound.frames_played() >= 4800, "{} frames in 10 s", sound.frames_played());
        // At the device's pace: 0.1 s of sound takes about 0.1 s (less the buffer ahead), not a spin.
        let (frames, secs) = (sound.frames_played(), start.elapsed().as_secs_f64());
        let ahead = frames as f64 / f64::from(sound.sample_rate) - secs;
        assert!(ahead < 0.2, "{frames} frames in {secs:.3} s: {ahead:.3} s ahead of real time");
        drop(sound);
    }
}
