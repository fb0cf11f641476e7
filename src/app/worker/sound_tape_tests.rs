//! The sound's signal path against physics: two sources of slightly different frequency
//! sampled by a probe as the simulation samples it, through the tape and the play head, beat in
//! the sound at `|f1 − f2|` times the shift, and the carrier (the stronger source's, whose phase
//! the sum follows) sits at its frequency times the shift.

use std::f64::consts::TAU;

use super::*;

const RATE: f64 = 48_000.0;

/// The probe between two sources: `sin(2π f1 t) + 0.8 sin(2π f2 t + 0.3)`.
fn probe(f1: f64, f2: f64, step: u32) -> f32 {
    let t = f64::from(step);
    ((TAU * f1 * t).sin() + 0.8 * (TAU * f2 * t + 0.3).sin()) as f32
}

/// The sound of `secs` seconds: the simulation runs `sim_rate` steps a second and samples the
/// probe every `every` steps; each 1/60 s frame its samples reach the tape and the audio callback
/// takes a frame's worth of sound.
fn play(f1: f64, f2: f64, every: u32, sim_rate: f64, shift: f64, secs: f64) -> Vec<f32> {
    let mut tape = Tape::default();
    let mut head = Playhead::new(shift, RATE);
    let mut out = Vec::new();
    let mut next = 0u32;
    let frames = (secs * 60.0) as usize;
    for frame in 1..=frames {
        let until = (frame as f64 * sim_rate / 60.0) as u32;
        let mut samples = Vec::new();
        while next <= until {
            samples.push((next, probe(f1, f2, next)));
            next += every;
        }
        tape.push(&samples);
        let mut chunk = vec![0.0f32; (RATE / 60.0) as usize];
        head.render(&mut tape, &mut chunk);
        out.extend_from_slice(&chunk);
    }
    out
}

/// The strongest frequency of `x` (sampled at [`RATE`]) between `lo` and `hi` Hz: a Hann-windowed
/// DFT, read to 0.01 Hz (finer than the 1/duration bins, so the peak is read between them).
fn peak_hz(x: &[f64], lo: f64, hi: f64) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let w: Vec<f64> =
        x.iter().enumerate().map(|(i, v)| (v - mean) * (0.5 - 0.5 * (TAU * i as f64 / n).cos())).collect();
    let power = |f: f64| {
        let dphi = TAU * f / RATE;
        let (mut re, mut im) = (0.0, 0.0);
        for (i, v) in w.iter().enumerate() {
            let phi = dphi * i as f64;
            re += v * phi.cos();
            im += v * phi.sin();
        }
        re * re + im * im
    };
    // Every 0.25 Hz (a quarter of a bin: the window's main lobe is 4 bins wide, so the peak's lobe
    // is not missed), then every 0.01 Hz around the best.
    let scan = |lo: f64, hi: f64, step: f64| {
        let mut best = (0.0, lo);
        let mut f = lo;
        while f <= hi {
            let p = power(f);
            if p > best.0 {
                best = (p, f);
            }
            f += step;
        }
        best.1
    };
    let coarse = scan(lo, hi, 0.25);
    scan(coarse - 0.25, coarse + 0.25, 0.01)
}

/// The beat heard: the strongest frequency of the sound's power `y²` below 100 Hz (the carrier's
/// terms in `y²` lie near twice its frequency).
fn beat_hz(y: &[f32]) -> f64 {
    let power: Vec<f64> = y.iter().map(|&v| f64::from(v) * f64::from(v)).collect();
    peak_hz(&power, 2.0, 100.0)
}

/// The carrier: zero crossings of the sound a second of sounding (silences left out), halved.
fn carrier_hz(y: &[f32]) -> f64 {
    let crossings = y.windows(2).filter(|w| (w[0] < 0.0) != (w[1] < 0.0)).count();
    let sounding = y.iter().filter(|v| v.abs() > 1e-6).count();
    crossings as f64 / 2.0 / (sounding as f64 / RATE)
}

#[test]
fn two_sources_beat_at_their_difference_times_the_shift() {
    // The lab's numbers: sources of 0.05 and 0.0475 cycles/step, sampled 8 times a period
    // (meter::sample_every: round(20 / 8) = 3 steps), the first source at 440 Hz.
    let (f1, f2) = (0.05, 0.0475);
    let shift = 440.0 / f1;
    let want_beat = (f1 - f2) * shift; // 22 Hz
    // The sum of a stronger tone and a weaker one winds at the stronger one's rate: 440 Hz.
    let want_carrier = f1 * shift;
    // The simulation as fast as the sound, and a little faster or slower (the latency absorbs it).
    for (what, sim_rate, beat_tol) in
        [("as fast", shift, 0.1), ("5% faster", 1.05 * shift, 0.1), ("5% slower", 0.95 * shift, 0.1)]
    {
        let y = play(f1, f2, 3, sim_rate, shift, 2.5);
        // Half a second to start and settle the level.
        let y = &y[(0.5 * RATE) as usize..];
        let beat = beat_hz(y);
        let carrier = carrier_hz(y);
        eprintln!("simulation {what}: beat {beat:.3} Hz, carrier {carrier:.2} Hz");
        // Measured 22.000, 22.000 and 22.040 Hz (the slower one runs dry now and then; the scan's
        // step is 0.01 Hz): 0.1 Hz allows the 0.04 and a margin.
        assert!(
            (beat - want_beat).abs() < beat_tol,
            "simulation {what}: beat {beat:.3} Hz, want |f1 − f2| × shift = {want_beat:.3} Hz"
        );
        // Measured 440.01, 440.01 and 439.87 Hz: zero crossings counted over 2 s give the
        // frequency within 1/(2 s); 1 Hz allows that and a margin.
        assert!(
            (carrier - want_carrier).abs() < 1.0,
            "simulation {what}: carrier {carrier:.2} Hz, want f1 × shift = {want_carrier:.2} Hz"
        );
    }
}

#[test]
fn a_fast_simulation_is_skipped_to_stay_within_the_latency() {
    // Twice the steps the sound needs: the head jumps ahead instead of falling behind.
    let (f1, f2) = (0.05, 0.0475);
    let shift = 440.0 / f1;
    let mut tape = Tape::default();
    let mut head = Playhead::new(shift, RATE);
    let mut next = 0u32;
    let mut worst_lag = 0.0f64;
    for frame in 1..=180 {
        let until = (f64::from(frame) * 2.0 * shift / 60.0) as u32;
        let mut samples = Vec::new();
        while next <= until {
            samples.push((next, probe(f1, f2, next)));
            next += 3;
        }
        tape.push(&samples);
        let mut chunk = vec![0.0f32; (RATE / 60.0) as usize];
        head.render(&mut tape, &mut chunk);
        if let (Some(p), Some(last)) = (head.pos, tape.last_step()) {
            worst_lag = worst_lag.max((last - p) / shift);
        }
    }
    eprintln!("worst lag {worst_lag:.3} s, tape {} samples", tape.len());
    // Measured 0.283 s at worst; the bound is three latencies (0.3 s) and one frame of samples at
    // twice the rate (2/60 s) the head has not yet looked at: 0.333 s, rounded up.
    assert!(worst_lag < 0.34, "the sound fell {worst_lag:.3} s behind the simulation");
    assert!(tape.len() < 2000, "the tape kept {} samples", tape.len());
}

#[test]
fn a_slow_simulation_plays_in_bursts_at_the_same_pitch() {
    let (f1, f2) = (0.05, 0.0475);
    let shift = 440.0 / f1;
    // A third of the steps the sound needs: it plays a third of the time.
    let y = play(f1, f2, 3, shift / 3.0, shift, 3.0);
    let y = &y[(0.5 * RATE) as usize..];
    let sounding = y.iter().filter(|v| v.abs() > 1e-6).count() as f64 / y.len() as f64;
    // Measured 34.7% (a third, and the 0.1 s latency replayed at each start).
    assert!((0.2..0.5).contains(&sounding), "sounding {:.0}% of the time, want about a third", sounding * 100.0);
    // Inside one burst, the pitch is the shifted one.
    let start = y.iter().position(|v| v.abs() > 1e-6).expect("a burst");
    // A burst plays the 0.1 s latency gathered and what arrives meanwhile: its first 90 ms sound.
    let burst = &y[start..start + (0.09 * RATE) as usize];
    let carrier = carrier_hz(burst);
    eprintln!("sounding {:.1}% of the time, carrier in a burst {carrier:.1} Hz", sounding * 100.0);
    // Measured 438.9 Hz over 90 ms (crossings counted within 1/(2 · 0.09 s) = 5.6 Hz); 8 Hz allows that.
    assert!((carrier - 440.0).abs() < 8.0, "carrier in a burst {carrier:.1} Hz, want f1 × shift = 440 Hz");
}

#[test]
fn the_beat_measurement_tells_a_wrong_shift() {
    // The checker itself: a sound of 440 and 430 Hz beats at 10 Hz, and the measurement says so,
    // so a path that shifted the beat wrongly (22 Hz expected) would fail the test above.
    let y: Vec<f32> = (0..(2.0 * RATE) as usize)
        .map(|i| {
            let t = i as f64 / RATE;
            ((TAU * 440.0 * t).sin() + 0.8 * (TAU * 430.0 * t).sin()) as f32 * 0.5
        })
        .collect();
    let beat = beat_hz(&y);
    eprintln!("440 + 430 Hz: beat {beat:.3} Hz, carrier {:.2} Hz", carrier_hz(&y));
    assert!((beat - 10.0).abs() < 0.05, "beat of 440 and 430 Hz measured {beat:.3} Hz");
    assert!((beat - 22.0).abs() > 1.0);
    assert!((carrier_hz(&y) - 440.0).abs() < 1.0, "carrier {:.2}", carrier_hz(&y));
}

#[test]
fn a_reset_starts_the_tape_again_and_it_stays_bounded() {
    let mut tape = Tape::default();
    tape.push(&[(0, 1.0), (3, 2.0), (6, 3.0)]);
    assert_eq!(tape.len(), 3);
    tape.push(&[(0, 5.0)]);
    assert_eq!(tape.len(), 1, "a step counter that went back starts the tape again");
    let many: Vec<(u32, f32)> = (1..=(TAPE_CAPACITY as u32 + 10)).map(|s| (s, 0.0)).collect();
    tape.push(&many);
    assert_eq!(tape.len(), TAPE_CAPACITY);
}

#[test]
fn the_interpolation_passes_through_the_samples() {
    let mut tape = Tape::default();
    let s: Vec<(u32, f32)> = (0..20).map(|k| (3 * k, probe(0.05, 0.0475, 3 * k))).collect();
    tape.push(&s);
    for &(t, v) in &s {
        let got = tape.at(f64::from(t)).expect("inside");
        assert!((got - v).abs() < 1e-6, "at step {t}: {got} against the sample {v}");
    }
    assert!(tape.at(100.0).is_none());
}
