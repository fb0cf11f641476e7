//! The window held quiet while the CPU sides are measured alike: the comparison asks
//! ([`Hush::hold`]), the window stops asking for frames of its own, and the measurement waits
//! for the frame already in flight (its `ui` and its paint) to end before it starts the clock.
//!
//! eframe paints after `ui` returns, on the same thread, and says nothing when it is done; the
//! paint's length is taken as the shortest recent gap between one frame's `ui` ending and the
//! next one's beginning while frames run back to back. Measured under Xvfb on lavapipe at
//! 1280x720 (the double slit on `cpu`, 403 frames): gaps of 76 ms (10th percentile) to 161 ms,
//! the paint of a software adapter taking both cores for most of a frame.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use web_time::{Duration, Instant};

/// Time allowed a frame's paint after its `ui` returned until gaps are measured.
pub const PAINT_ALLOWANCE: Duration = Duration::from_millis(40);

/// Gaps between frames kept for the paint's estimate: about three seconds of frames on a
/// software adapter.
const GAPS: usize = 32;

/// Gaps longer than this are idle time, not a paint (the window waited for something to draw).
const LONGEST_PAINT: Duration = Duration::from_millis(300);

/// The longest a measurement waits for the window to be idle (a window that keeps drawing,
/// say while the pointer moves, delays the figure by at most this).
pub const MOST_WAIT: Duration = Duration::from_millis(400);

/// What the window and the comparison tell each other.
#[derive(Debug)]
pub struct Hush {
    asked: AtomicBool,
    drawing: AtomicBool,
    /// When the last frame's `ui` ended, microseconds after `t0`.
    ended_us: AtomicU64,
    /// The paint's estimate, microseconds: the shortest of the recent gaps.
    paint_us: AtomicU64,
    /// The recent gaps between frames (microseconds), written by the window's thread alone.
    gaps: Mutex<VecDeque<u64>>,
    t0: Instant,
}

impl Default for Hush {
    fn default() -> Self {
        Self {
            asked: AtomicBool::new(false),
            drawing: AtomicBool::new(false),
            ended_us: AtomicU64::new(0),
            paint_us: AtomicU64::new(u64::try_from(PAINT_ALLOWANCE.as_micros()).unwrap_or(u64::MAX)),
            gaps: Mutex::new(VecDeque::with_capacity(GAPS)),
            t0: Instant::now(),
        }
    }
}

impl Hush {
    /// True while a measurement asks the window not to draw.
    #[must_use]
    pub fn asked(&self) -> bool {
        self.asked.load(Ordering::Relaxed)
    }

    /// The window's frame began (its `ui`).
    pub fn frame_began(&self) {
        let ended = self.ended_us.load(Ordering::Relaxed);
        if ended > 0 {
            let gap = self.now_us().saturating_sub(ended);
            if gap <= u64::try_from(LONGEST_PAINT.as_micros()).unwrap_or(u64::MAX) {
                let mut gaps = self.gaps.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if gaps.len() == GAPS {
                    gaps.pop_front();
                }
                gaps.push_back(gap);
                if let Some(&shortest) = gaps.iter().min() {
                    self.paint_us.store(shortest, Ordering::Relaxed);
                }
            }
        }
        self.drawing.store(true, Ordering::Relaxed);
    }

    /// The paint's estimate: the shortest recent gap between frames ([`PAINT_ALLOWANCE`] until
    /// frames have run).
    #[must_use]
    pub fn paint(&self) -> Duration {
        Duration::from_micros(self.paint_us.load(Ordering::Relaxed))
    }

    fn now_us(&self) -> u64 {
        u64::try_from(self.t0.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    /// The window's frame's `ui` ended (its paint follows).
    pub fn frame_ended(&self) {
        self.ended_us.store(self.now_us().max(1), Ordering::Relaxed);
        self.drawing.store(false, Ordering::Relaxed);
    }

    /// Asks the window to draw nothing new and waits until the frame in flight has ended and
    /// been painted ([`Hush::paint`] after its `ui`), at most [`MOST_WAIT`]. Returns how long
    /// it waited.
    pub fn hold(&self) -> Duration {
        self.asked.store(true, Ordering::Relaxed);
        let began = Instant::now();
        while began.elapsed() < MOST_WAIT && !self.idle() {
            std::thread::sleep(Duration::from_millis(2));
        }
        began.elapsed()
    }

    /// The window may draw again.
    pub fn release(&self) {
        self.asked.store(false, Ordering::Relaxed);
    }

    /// No frame is drawing and the last one's paint has had its time.
    fn idle(&self) -> bool {
        let since = self.now_us().saturating_sub(self.ended_us.load(Ordering::Relaxed));
        !self.drawing.load(Ordering::Relaxed) && Duration::from_micros(since) >= self.paint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_hold_waits_for_the_frame_in_flight_and_its_paint() {
        let hush = Arc::new(Hush::default());
        hush.frame_began();
        let window = {
            let hush = Arc::clone(&hush);
            std::thread::spawn(move || {
                // A frame whose `ui` takes 100 ms, as a software adapter's may.
                std::thread::sleep(Duration::from_millis(100));
                hush.frame_ended();
            })
        };
        let waited = hush.hold();
        assert!(hush.asked());
        // Not before the frame's ui ended plus the paint's allowance; not the whole MOST_WAIT.
        assert!(waited >= Duration::from_millis(100) + PAINT_ALLOWANCE, "waited {waited:?}");
        assert!(waited < MOST_WAIT, "waited {waited:?}");
        window.join().unwrap();
        hush.release();
        assert!(!hush.asked());
        // An idle window: no wait beyond the paint allowance of its last frame (long past).
        std::thread::sleep(PAINT_ALLOWANCE);
        assert!(hush.hold() < Duration::from_millis(20));
        // A window that never stops drawing delays the measurement by MOST_WAIT, no more.
        hush.frame_began();
        let waited = hush.hold();
        assert!(waited >= MOST_WAIT && waited < MOST_WAIT * 3, "waited {waited:?}");
    }

    #[test]
    fn the_paint_is_the_shortest_recent_gap_between_frames() {
        let hush = Hush::default();
        assert_eq!(hush.paint(), PAINT_ALLOWANCE, "no frames yet");
        // Frames back to back, 60 to 200 ms apart (a software adapter's paint), then an idle
        // second; the bounds below leave 90 ms for a sleep that overshoots on a loaded machine.
        for gap in [200, 60, 150, 1000] {
            hush.frame_began();
            hush.frame_ended();
            std::thread::sleep(Duration::from_millis(gap));
        }
        hush.frame_began();
        let paint = hush.paint();
        assert!(paint >= Duration::from_millis(60) && paint < Duration::from_millis(150), "{paint:?}");
        // A hold now waits out that paint after the frame's ui.
        hush.frame_ended();
        let waited = hush.hold();
        assert!(waited >= paint && waited < paint + Duration::from_millis(90), "waited {waited:?}, paint {paint:?}");
    }
}
