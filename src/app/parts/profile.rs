//! Where a frame's time goes, from `puffin` scopes: `compute` (the simulation thread's
//! `advance` calls), `colour` (the colormap), `copy` (the picture to the host), `upload` (the
//! picture handed to egui's texture), `ui` (the rest of the UI thread's frame) and `measure`
//! (the simulation thread reading fields back for the meters: energy, auto contrast, intensity,
//! probes; listed last so the others keep their places, it runs between compute and colour). A sink on
//! puffin's global profiler turns each frame's scope streams into per-stage times (a scope's own
//! time: nested stage scopes are counted in their own stage) and keeps the last frame's scopes
//! for the flame view. The stacked bar is in `timing_panel.rs`, the flame window in
//! `profile_view.rs`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use puffin::{FrameData, FrameView, Reader, ScopeCollection, Stream};

/// The stages, in the order a frame goes through them (but `measure`, which runs between
/// `compute` and `colour`).
pub const STAGES: [&str; 6] = ["compute", "colour", "copy", "upload", "ui", "measure"];
/// Frames averaged in [`FrameProfile::average`].
const KEPT: usize = 60;

/// One frame's seconds per stage ([`STAGES`] order).
pub type StageSecs = [f64; 6];

/// A scope of the flame view.
#[derive(Clone, Debug)]
pub struct FlameScope {
    pub thread: String,
    pub depth: usize,
    pub name: String,
    /// Seconds from the frame's first scope.
    pub start: f64,
    pub secs: f64,
}

#[derive(Default)]
struct Inner {
    /// Keeps the scopes' names (puffin sends each name once).
    view: FrameView,
    frames: VecDeque<StageSecs>,
    flame: Vec<FlameScope>,
}

/// The profile of the app's frames.
pub struct FrameProfile {
    inner: Arc<Mutex<Inner>>,
    sink: puffin::FrameSinkId,
}

impl FrameProfile {
    /// Turns puffin's scopes on and listens to its frames.
    #[must_use]
    pub fn start() -> Self {
        puffin::set_scopes_on(true);
        let inner = Arc::new(Mutex::new(Inner::default()));
        let i = Arc::clone(&inner);
        let mut g = puffin::GlobalProfiler::lock();
        let sink = g.add_sink(Box::new(move |frame| {
            if let Ok(mut g) = i.lock() {
                take_frame(&mut g, &frame);
            }
        }));
        g.emit_scope_snapshot();
        Self { inner, sink }
    }

    /// Ends the current profiler frame (call once per UI frame, before the UI's own scope).
    pub fn new_frame() {
        puffin::GlobalProfiler::lock().new_frame();
    }

    /// Seconds per stage, averaged over the last frames (`None` before any).
    #[must_use]
    pub fn average(&self) -> Option<StageSecs> {
        let g = self.inner.lock().ok()?;
        if g.frames.is_empty() {
            return None;
        }
        let mut sum = [0.0; 6];
        for f in &g.frames {
            for (s, v) in sum.iter_mut().zip(f) {
                *s += v;
            }
        }
        Some(sum.map(|s| s / g.frames.len() as f64))
    }

    /// Frames profiled so far (at most the last 60 are kept).
    #[must_use]
    pub fn frames(&self) -> usize {
        self.inner.lock().map_or(0, |g| g.frames.len())
    }

    /// The scopes of the last frame, for the flame view.
    #[must_use]
    pub fn flame(&self) -> Vec<FlameScope> {
        self.inner.lock().map(|g| g.flame.clone()).unwrap_or_default()
    }
}

impl Drop for FrameProfile {
    fn drop(&mut self) {
        puffin::GlobalProfiler::lock().remove_sink(self.sink);
    }
}

fn take_frame(g: &mut Inner, frame: &Arc<FrameData>) {
    g.view.set_max_recent(1);
    g.view.set_max_slow(0);
    g.view.add_frame(Arc::clone(frame));
    let Ok(unpacked) = frame.unpacked();
    let mut stages = [0.0; 6];
    let mut flame = Vec::new();
    let t0 = unpacked.range_ns().0;
    for (thread, info) in &unpacked.thread_streams {
        walk(
            g.view.scope_collection(),
            &info.stream,
            Reader::from_start(&info.stream),
            0,
            &thread.name,
            t0,
            &mut stages,
            &mut flame,
        );
    }
    g.flame = flame;
    g.frames.push_back(stages);
    while g.frames.len() > KEPT {
        g.frames.pop_front();
    }
}

/// Adds the stage scopes of one level (and below) to `stages`; returns the seconds spent in
/// stage scopes at or below this level (so a parent stage can count only its own time).
#[allow(clippy::too_many_arguments, reason = "a recursive walk carrying its accumulators")]
fn walk(
    names: &ScopeCollection,
    stream: &Stream,
    reader: Reader<'_>,
    depth: usize,
    thread: &str,
    t0: i64,
    stages: &mut StageSecs,
    flame: &mut Vec<FlameScope>,
) -> f64 {
    let mut in_stages = 0.0;
    for scope in reader {
        let Ok(scope) = scope else { break };
        let name = names.fetch_by_id(&scope.id).map_or_else(|| "?".to_owned(), |d| d.name().to_string());
        let secs = scope.record.duration_ns as f64 * 1e-9;
        flame.push(FlameScope {
            thread: thread.to_owned(),
            depth,
            name: name.clone(),
            start: (scope.record.start_ns - t0) as f64 * 1e-9,
            secs,
        });
        let below = Reader::with_offset(stream, scope.child_begin_position)
            .map_or(0.0, |r| walk(names, stream, r, depth + 1, thread, t0, stages, flame));
        if let Some(i) = STAGES.iter().position(|s| *s == name) {
            stages[i] += (secs - below).max(0.0);
            in_stages += secs;
        } else {
            in_stages += below;
        }
    }
    in_stages
}
