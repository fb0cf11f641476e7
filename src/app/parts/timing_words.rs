//! The timing panel's words: a backend in plain words, counts and times as a class reads them,
//! and the launch-bound hint. The figures themselves are [`crate::app::parts::timing_stats`].

use crate::backend::BackendKind;

/// A call is launch-bound when its time per update is this many times the large-call one.
pub const LAUNCH_BOUND_RATIO: f64 = 2.0;

/// A backend in plain words.
#[must_use]
pub fn who(kind: BackendKind) -> String {
    match kind {
        BackendKind::Cuda => "The GPU (CUDA)".to_owned(),
        BackendKind::Wgpu => "The GPU (wgpu)".to_owned(),
        BackendKind::Cpu => "Every CPU core (cpu)".to_owned(),
        BackendKind::Cpu1 => "One CPU core (cpu1)".to_owned(),
    }
}

/// A backend in a few plain words, for the end of the sentence.
pub(crate) fn plain_who(kind: BackendKind) -> &'static str {
    match kind {
        BackendKind::Cuda | BackendKind::Wgpu => "the GPU",
        BackendKind::Cpu => "every CPU core",
        BackendKind::Cpu1 => "one CPU core",
    }
}

pub(crate) fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_lowercase().collect::<String>() + c.as_str())
}

pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str())
}

/// A count in words a class reads: `41 000`, `12`, `1.2 million`.
#[must_use]
pub fn fmt_count(n: f64) -> String {
    if !n.is_finite() {
        return "?".to_owned();
    }
    if n >= 1e6 {
        return format!("{:.1} million", n / 1e6);
    }
    let n = if n >= 100.0 { (n / 10.0).round() * 10.0 } else { n.round() };
    let digits = format!("{n:.0}");
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(ch);
    }
    out
}

pub(crate) fn fmt_times(x: f64) -> String {
    if x >= 10.0 { format!("{x:.0}") } else { format!("{x:.1}") }
}

/// Whether calls of `steps` time steps are launch-bound: their time per update
/// (`call_update_secs`) is [`LAUNCH_BOUND_RATIO`] or more times the time per update of one large
/// call (`large_update_secs`), so most of a frame's compute time is launching and waiting, not
/// computing. Returns the line the panel shows; its advice depends on whether "fastest"
/// (`fastest`) already fills each frame with steps.
#[must_use]
pub fn launch_bound_hint(call_update_secs: f64, large_update_secs: f64, steps: u32, fastest: bool) -> Option<String> {
    if !(call_update_secs.is_finite() && large_update_secs.is_finite() && large_update_secs > 0.0) || steps == 0 {
        return None;
    }
    let ratio = call_update_secs / large_update_secs;
    let advice = if fastest {
        "\"fastest\" already fills each frame with steps, so the frames themselves are short: a bigger grid gives the device more to do per launch"
    } else {
        "raise the steps per frame or tick \"fastest\""
    };
    (ratio >= LAUNCH_BOUND_RATIO).then(|| {
        format!(
            "launch-bound at {steps} steps/frame: {} per update here against {} in one large call ({ratio:.1} x): {advice}",
            fmt_secs(call_update_secs),
            fmt_secs(large_update_secs),
        )
    })
}

/// Seconds in the unit that reads best (µs, ms, s).
#[must_use]
pub fn fmt_secs(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.2} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}
