//! The one app harness of the kittest suites: the real app (egui_kittest on wgpu, lavapipe in
//! CI, no window) opened on a view at a size, and [`settle`] to let the simulation thread's
//! first pictures reach it. Each `tests/app_*.rs` takes it with
//! `#[path = "support/app.rs"] mod app_support;`.

#![allow(dead_code, reason = "each suite uses some of these")]

use egui_kittest::Harness;
use wavebrot::app::{Demo, WavebrotApp};

/// The app on `view` at `size` (logical points), not yet settled.
pub fn open(view: Demo, size: [f32; 2]) -> Harness<'static, WavebrotApp> {
    Harness::builder().with_size(size).build_eframe(move |cc| WavebrotApp::new_for_test(cc, view).expect("app starts"))
}

/// The app on `view` at `size`, settled: its first pictures shown.
pub fn harness(view: Demo, size: [f32; 2]) -> Harness<'static, WavebrotApp> {
    let mut h = open(view, size);
    settle(&mut h);
    h
}

/// A few frames with the simulation thread's messages taken in between, so that what the last
/// command asked for is on screen.
pub fn settle(h: &mut Harness<'static, WavebrotApp>) {
    h.run_steps(2);
    h.state_mut().sync();
    h.run_steps(2);
    h.state_mut().sync();
    h.run_steps(1);
}
