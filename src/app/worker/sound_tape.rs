//! The signal path of "listen to a probe", without an audio device: the probe's samples as the
//! simulation takes them ([`Tape`], the ring between the UI thread and the audio callback) and
//! the play head that reads them out at the audio rate ([`Playhead`]), resampled and shifted in
//! pitch.
//!
//! The shift is a tape played at another speed: the sound advances `steps_per_second` time steps
//! of the simulation per second of sound, so a source of `f` cycles/step sounds at
//! `f · steps_per_second` Hz and two sources of `f1` and `f2` beat at
//! `|f1 − f2| · steps_per_second` Hz — every frequency of the probe, the beat included, is
//! multiplied by the same factor (`steps_per_second` over the steps per second the simulation
//! runs). When the simulation runs fewer steps a second than the sound needs, the sound plays
//! what is buffered and waits for [`Playhead::latency_secs`] of sound to gather (bursts); when
//! it runs more, the play head skips ahead to stay within a few latencies of the newest sample.

use std::collections::VecDeque;

/// The most samples a tape keeps (the oldest go first): a tape nobody plays stays bounded.
pub const TAPE_CAPACITY: usize = 1 << 16;

/// The probe's samples, `(time step, f)`, oldest first, time steps increasing.
#[derive(Debug, Default)]
pub struct Tape {
    samples: VecDeque<(f64, f32)>,
}

impl Tape {
    /// Appends samples; a time step not after the last one (a reset, a new scene) starts the tape
    /// again.
    pub fn push(&mut self, samples: &[(u32, f32)]) {
        for &(step, v) in samples {
            let step = f64::from(step);
            if self.samples.back().is_some_and(|&(last, _)| step <= last) {
                self.samples.clear();
            }
            if self.samples.len() == TAPE_CAPACITY {
                self.samples.pop_front();
            }
            self.samples.push_back((step, if v.is_finite() { v } else { 0.0 }));
        }
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.samples.clear();
    }

    /// The samples kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// No sample kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    fn first_step(&self) -> Option<f64> {
        self.samples.front().map(|s| s.0)
    }

    fn last_step(&self) -> Option<f64> {
        self.samples.back().map(|s| s.0)
    }

    /// The probe's value at time step `t` (cubic Hermite through the four samples around it,
    /// tangents from the neighbours' differences), or `None` outside the samples.
    fn at(&self, t: f64) -> Option<f32> {
        let n = self.samples.len();
        // The first sample after t.
        let i = self.samples.partition_point(|s| s.0 <= t);
        if i == 0 || i == n {
            return (n > 0 && self.samples[n - 1].0 == t).then(|| self.samples[n - 1].1);
        }
        let (t1, p1) = self.samples[i - 1];
        let (t2, p2) = self.samples[i];
        let (t0, p0) = if i >= 2 { self.samples[i - 2] } else { (t1, p1) };
        let (t3, p3) = if i + 1 < n { self.samples[i + 1] } else { (t2, p2) };
        let h = t2 - t1;
        let u = (t - t1) / h;
        let (p0, p1, p2, p3) = (f64::from(p0), f64::from(p1), f64::from(p2), f64::from(p3));
        let m1 = if t2 > t0 { (p2 - p0) / (t2 - t0) * h } else { p2 - p1 };
        let m2 = if t3 > t1 { (p3 - p1) / (t3 - t1) * h } else { p2 - p1 };
        let (u2, u3) = (u * u, u * u * u);
        let v =
            (2.0 * u3 - 3.0 * u2 + 1.0) * p1 + (u3 - 2.0 * u2 + u) * m1 + (-2.0 * u3 + 3.0 * u2) * p2 + (u3 - u2) * m2;
        Some(v as f32)
    }

    /// Drops the samples the play head at `t` no longer needs (two before it stay).
    fn drop_before(&mut self, t: f64) {
        while self.samples.len() > 2 && self.samples[2].0 < t {
            self.samples.pop_front();
        }
    }
}

/// Reads a [`Tape`] out at the audio rate, shifted in pitch, normalised and faded.
#[derive(Debug)]
pub struct Playhead {
    /// Time steps of the simulation per second of sound: the pitch shift in Hz per cycle/step.
    pub steps_per_second: f64,
    /// Sound samples per second.
    pub sample_rate: f64,
    /// Sound buffered before playing starts, and kept behind the newest sample.
    pub latency_secs: f64,
    /// 0..=1, of the loudest level.
    pub volume: f32,
    /// The time step being played, `None` while waiting for the tape.
    pos: Option<f64>,
    /// The level the signal is normalised by: the recent peak, falling slowly.
    peak: f64,
    /// DC blocker's state (input and output of the last sample).
    dc: (f64, f64),
    /// The output's gain ramp (clicks avoided when starting and stopping).
    fade: f64,
}

/// The time the normalising level takes to fall by `e`: slow beside a beat, so it keeps beats.
const PEAK_RELEASE_SECS: f64 = 3.0;
/// The DC blocker's corner frequency.
const DC_CORNER_HZ: f64 = 15.0;
/// The fade in and out.
const FADE_SECS: f64 = 0.005;

impl Playhead {
    #[must_use]
    pub fn new(steps_per_second: f64, sample_rate: f64) -> Self {
        Self {
            steps_per_second,
            sample_rate,
            latency_secs: 0.1,
            volume: 0.5,
            pos: None,
            peak: 0.0,
            dc: (0.0, 0.0),
            fade: 0.0,
        }
    }

    /// Whether the head is playing (not waiting for the tape).
    #[must_use]
    pub fn playing(&self) -> bool {
        self.pos.is_some()
    }

    /// Fills `out` (mono) from `tape`, dropping what was played.
    pub fn render(&mut self, tape: &mut Tape, out: &mut [f32]) {
        let rate = self.sample_rate.max(1.0);
        let advance = self.steps_per_second.max(0.0) / rate;
        let latency_steps = (self.latency_secs * self.steps_per_second).max(1.0);
        let fade_step = 1.0 / (FADE_SECS * rate).max(1.0);
        let peak_fall = (-1.0 / (PEAK_RELEASE_SECS * rate)).exp();
        let dc_pole = (-2.0 * std::f64::consts::PI * DC_CORNER_HZ / rate).exp();
        for o in out.iter_mut() {
            let (Some(first), Some(last)) = (tape.first_step(), tape.last_step()) else {
                self.pos = None;
                *o = 0.0;
                continue;
            };
            let pos = match self.pos {
                Some(p) if p < first => last - latency_steps,
                // Too far behind the newest sample: skip ahead.
                Some(p) if last - p > 3.0 * latency_steps => last - latency_steps,
                Some(p) => p,
                // Waiting: start once a latency of sound has gathered.
                None if last - first >= latency_steps => last - latency_steps,
                None => {
                    *o = 0.0;
                    continue;
                }
            };
            let v = tape.at(pos);
            self.fade = if v.is_some() { (self.fade + fade_step).min(1.0) } else { 0.0 };
            let x = f64::from(v.unwrap_or(0.0));
            // y[n] = x[n] − x[n−1] + pole · y[n−1]: removes a constant offset of the field.
            let y = x - self.dc.0 + dc_pole * self.dc.1;
            self.dc = (x, y);
            self.peak = (self.peak * peak_fall).max(y.abs());
            let level = if self.peak > 1e-12 { y / self.peak } else { 0.0 };
            *o = (level * self.fade * f64::from(self.volume)) as f32;
            // Ran dry: wait for the tape to fill again.
            self.pos = v.map(|_| pos + advance);
        }
        if let Some(p) = self.pos {
            tape.drop_before(p);
        }
    }
}

#[cfg(test)]
#[path = "sound_tape_tests.rs"]
mod tests;
