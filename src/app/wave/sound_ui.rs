//! "Listen to a probe": the lab's sound control (a toggle, key L; the probe; the pitch and the
//! volume) and the sentence that explains the mapping from the simulation's frequencies to the
//! sound's. The stream itself is `worker/sound.rs`; the shift and resampling
//! `worker/sound_tape.rs`.

use std::collections::VecDeque;
use web_time::Instant;

use crate::sim::wave::scene::Scene;

use crate::app::worker::messages::Measured;
use crate::app::worker::sound::{Sound, SoundError};

/// The pitch the first source sounds at, Hz (the slider's range: audible on any speaker).
pub const PITCH_RANGE_HZ: std::ops::RangeInclusive<f32> = 200.0..=1000.0;

/// How the stream is opened: the default device, or a stand-in in tests.
pub type Opener = fn(steps_per_second: f64, volume: f32) -> Result<Sound, SoundError>;

/// The sound's state in the lab.
pub struct SoundUi {
    /// Sound asked for (the stream may still be missing: see `note`).
    pub on: bool,
    /// Which probe is heard (0-based).
    pub probe: usize,
    pub volume: f32,
    /// The pitch of the first source, Hz.
    pub pitch_hz: f32,
    /// Why there is no sound, one line.
    pub note: Option<String>,
    sound: Option<Sound>,
    opener: Opener,
    /// `(time step, when)` of the recent frames, for the steps per second.
    frames: VecDeque<(u32, Instant)>,
}

impl Default for SoundUi {
    fn default() -> Self {
        Self::with_opener(Sound::open)
    }
}

impl SoundUi {
    #[must_use]
    pub fn with_opener(opener: Opener) -> Self {
        Self {
            on: false,
            probe: 0,
            volume: 0.5,
            pitch_hz: 440.0,
            note: None,
            sound: None,
            opener,
            frames: VecDeque::new(),
        }
    }

    /// Whether a stream is open and fed.
    #[must_use]
    pub fn sounding(&self) -> bool {
        self.sound.is_some()
    }

    /// Switches the sound on (opening the device) or off (closing it). Without a device the
    /// toggle stays off and [`SoundUi::note`] says why.
    pub fn set_on(&mut self, on: bool, scene: &Scene) {
        self.on = on;
        self.sound = None;
        self.note = None;
        if on {
            match (self.opener)(self.steps_per_second(scene), self.volume) {
                Ok(s) => self.sound = Some(s),
                Err(e) => {
                    self.note = Some(e.to_string());
                    self.on = false;
                }
            }
        }
    }

    /// Time steps per second of sound: the first source at [`SoundUi::pitch_hz`].
    #[must_use]
    pub fn steps_per_second(&self, scene: &Scene) -> f64 {
        let f0 = cycles_per_step(scene, 0).unwrap_or(0.0);
        if f0 > 0.0 { f64::from(self.pitch_hz) / f0 } else { 0.0 }
    }

    /// The simulation's time steps per second over the last second of frames.
    #[must_use]
    pub fn sim_steps_per_second(&self) -> Option<f64> {
        let (&(t0, i0), &(t1, i1)) = (self.frames.front()?, self.frames.back()?);
        let secs = i1.duration_since(i0).as_secs_f64();
        (secs > 0.2 && t1 > t0).then(|| f64::from(t1 - t0) / secs)
    }

    /// Takes a frame in: its probe samples go to the stream.
    pub fn feed(&mut self, tstep: u32, m: &Measured, scene: &Scene) {
        let now = Instant::now();
        if self.frames.back().is_some_and(|&(t, _)| t > tstep) {
            self.frames.clear();
        }
        self.frames.push_back((tstep, now));
        while self.frames.len() > 2
            && self.frames.front().is_some_and(|&(_, i)| now.duration_since(i).as_secs_f64() > 1.0)
        {
            self.frames.pop_front();
        }
        if let Some(s) = &self.sound {
            s.set(self.steps_per_second(scene), self.volume);
            if let Some(samples) = m.probes.get(self.probe) {
                s.push(samples);
            }
        }
    }

    /// The one line the window says when the sound is switched (key L or the tick): what is
    /// heard, or why nothing is. `probes`: the probes on the field.
    #[must_use]
    pub fn said(&self, probes: usize) -> String {
        if let Some(n) = &self.note {
            return format!("No sound: {n}");
        }
        if !self.on {
            return "Sound off".to_owned();
        }
        if probes == 0 {
            return "Listening, but there is no probe yet: place one with the Probe tool to hear it (L stops)"
                .to_owned();
        }
        format!(
            "Listening to probe {}: the first source sounds at {:.0} Hz (L stops)",
            self.probe.min(probes - 1) + 1,
            self.pitch_hz
        )
    }

    /// The probe heard, while a stream is open and there is one.
    #[must_use]
    pub fn heard(&self, probes: usize) -> Option<usize> {
        (self.sounding() && probes > 0).then(|| self.probe.min(probes - 1))
    }

    /// The control: toggle, probe, pitch, volume, and the mapping in words. Returns the tick's
    /// new state when it was clicked (the app switches the sound and says so).
    #[must_use]
    pub fn ui(&mut self, ui: &mut egui::Ui, scene: &Scene, probes: usize) -> Option<bool> {
        let mut on = self.on;
        ui.horizontal(|ui| {
            ui.checkbox(&mut on, "Listen to a probe (L)")
                .on_hover_text("the probe's signal through the speakers, shifted in pitch into the audible range");
            if probes > 1 {
                let mut k = self.probe.min(probes - 1) + 1;
                if ui.add(egui::DragValue::new(&mut k).range(1..=probes).prefix("probe ")).changed() {
                    self.probe = k - 1;
                    if let Some(s) = &self.sound {
                        s.clear();
                    }
                }
            }
        });
        let asked = (on != self.on).then_some(on);
        if let Some(n) = &self.note {
            ui.colored_label(ui.visuals().warn_fg_color, n);
        }
        if !self.on {
            return asked;
        }
        ui.add(egui::Slider::new(&mut self.pitch_hz, PITCH_RANGE_HZ).suffix(" Hz").text("first source sounds at"));
        ui.add(egui::Slider::new(&mut self.volume, 0.0..=1.0).text("volume"));
        if probes == 0 {
            ui.weak("place a probe (the Probe tool) to hear it");
        }
        for line in mapping_lines(scene, self.steps_per_second(scene), self.sim_steps_per_second()) {
            ui.weak(line);
        }
        asked
    }
}

/// The mapping from the simulation's frequencies to the sound's, in words: the shift in Hz per
/// cycle/step, the real-time frequency at the simulation's speed, the factor between them, the
/// beat of the first two sources, and whether the simulation keeps up.
#[must_use]
pub fn mapping_lines(scene: &Scene, steps_per_second: f64, sim_rate: Option<f64>) -> Vec<String> {
    let Some(f0) = cycles_per_step(scene, 0) else {
        return vec!["no source: nothing to hear".to_owned()];
    };
    let mut lines = vec![format!(
        "the sound plays {steps_per_second:.0} time steps a second: {f0:.4} cycles/step × {steps_per_second:.0} = {:.0} Hz",
        f0 * steps_per_second
    )];
    if let Some(r) = sim_rate {
        lines.push(format!(
            "the simulation runs {r:.0} steps/s ({f0:.4} × {r:.0} = {:.1} Hz in real time): every frequency × {:.2}",
            f0 * r,
            steps_per_second / r
        ));
        if r < 0.95 * steps_per_second {
            lines.push(format!(
                "slower than the sound: it plays in bursts, {:.0}% of the time (a smaller grid or a GPU keeps up)",
                100.0 * r / steps_per_second
            ));
        }
    }
    if let Some(f1) = cycles_per_step(scene, 1).filter(|&f| f != f0) {
        let beat = (f0 - f1).abs();
        lines.push(format!(
            "sources 1 and 2 beat at |{f0:.4} − {f1:.4}| = {beat:.4} cycles/step: {:.1} Hz",
            beat * steps_per_second
        ));
    }
    lines
}

/// Source `k`'s frequency in cycles per time step (scenes give radians per step).
fn cycles_per_step(scene: &Scene, k: usize) -> Option<f64> {
    scene.sources.get(k).map(|s| s.freq() / std::f64::consts::TAU).filter(|&f| f > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_device(_: f64, _: f32) -> Result<Sound, SoundError> {
        Sound::open_on(None, 0.0, 0.0)
    }

    #[test]
    fn without_a_device_the_toggle_says_why_and_stays_off() {
        let scene = Scene::seed(64, 64, 0.05);
        let mut s = SoundUi::with_opener(no_device);
        s.set_on(true, &scene);
        assert!(!s.on && !s.sounding());
        assert_eq!(s.note.as_deref(), Some("no audio output device: sound is off (the simulation runs on)"));
        // Frames keep coming and nothing breaks.
        s.feed(10, &Measured { probes: vec![vec![(10, 0.5)]], ..Measured::default() }, &scene);
    }

    #[test]
    fn the_mapping_names_the_pitch_the_factor_and_the_beat() {
        let mut scene = Scene::seed(64, 64, 0.05);
        let mut second = scene.sources[0].clone();
        second.set_freq(scene.sources[0].freq() * 0.95);
        scene.sources.push(second);
        let s = SoundUi::default();
        let sps = s.steps_per_second(&scene);
        let f0 = scene.sources[0].freq() / std::f64::consts::TAU;
        assert!((f0 * sps - 440.0).abs() < 1e-9, "the first source at {} Hz", f0 * sps);
        let lines = mapping_lines(&scene, sps, Some(sps / 4.0));
        let text = lines.join("\n");
        assert!(text.contains("= 440 Hz"), "{text}");
        assert!(text.contains("× 4.00"), "{text}");
        assert!(text.contains("bursts, 25%"), "{text}");
        assert!(text.contains(&format!("cycles/step: {:.1} Hz", 0.05 * 440.0)), "{text}");
    }
}
