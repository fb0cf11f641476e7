//! The Mandelbrot explorer's test helpers, shared by `tests/app_mandelbrot.rs` and
//! `tests/app_mandelbrot_output.rs`: the app opened on the Mandelbrot view, a wheel zoom about a
//! point, frames run until a condition holds, and the spiral at `c = i`. Each suite takes it with
//! `#[path = "support/mandel_app.rs"] mod mandel_app;` beside `tests/support/app.rs` as
//! `mod app_support` (which this file uses).

#![allow(dead_code, reason = "each suite uses some of these")]

use crate::app_support::{self, settle};
use egui_kittest::Harness;
use wavebrot::app::Demo;
use wavebrot::app::WavebrotApp;

/// The Misiurewicz point `c = i`: the same spiral at every depth, so every zoom has detail.
pub const SPIRAL: (&str, &str) = ("0", "1");

/// The app on the Mandelbrot view at `size`, settled.
pub fn harness(size: [f32; 2]) -> Harness<'static, WavebrotApp> {
    app_support::harness(Demo::Mandelbrot, size)
}

/// `points` of mouse wheel with the pointer at `at`, then settled.
pub fn wheel(h: &mut Harness<'static, WavebrotApp>, at: egui::Pos2, points: f32) {
    h.hover_at(at);
    h.run_steps(1);
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, points),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: egui::Modifiers::NONE,
    });
    settle(h);
}

/// Runs frames until `done` or `secs` pass; true when done.
pub fn run_until(h: &mut Harness<'static, WavebrotApp>, secs: u64, done: impl Fn(&WavebrotApp) -> bool) -> bool {
    let deadline = web_time::Instant::now() + std::time::Duration::from_secs(secs);
    while web_time::Instant::now() < deadline {
        h.run_steps(1);
        if done(h.state()) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}
