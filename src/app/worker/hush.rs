//! The window held quiet while the CPU sides are measured alike: the comparison asks
//! ([`Hush::hold`]), the window stops asking for frames of its own, and the measurement waits
//! for the frame already in flight (its `ui` and its paint, on a software adapter tens of
//! milliseconds of both cores) to end before it starts the clock.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use web_time::{Duration, Instant};

/// Time allowed a frame's paint after its `ui` returned (eframe paints after it, on the same
/// thread; measured under Xvfb on lavapipe at 1280x720: 8–25 ms).
pub const PAINT_ALLOWANCE: Duration = Duration::from_millis(40);

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
    t0: Instant,
}

impl Default for Hush {
    fn default() -> Self {
        Self { asked: AtomicBool::new(false), drawing: AtomicBool::new(false), ended_us: AtomicU64::new(0), t0: Instant::now() }
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
        self.drawing.store(true, Ordering::Relaxed);
    }

    /// The window's frame's `ui` ended (its paint follows).
    pub fn frame_ended(&self) {
        let us = u64::try_from(self.t0.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.ended_us.store(us, Ordering::Relaxed);
        self.drawing.store(false, Ordering::Relaxed);
    }

    /// Asks the window to draw nothing new and waits until the frame in flight has ended and
    /// been painted ([`PAINT_ALLOWANCE`] after its `ui`), at most [`MOST_WAIT`]. Returns how
    /// long it waited.
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
        let ended = Duration::from_micros(self.ended_us.load(Ordering::Relaxed));
        !self.drawing.load(Ordering::Relaxed) && self.t0.elapsed().saturating_sub(ended) >= PAINT_ALLOWANCE
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
}
