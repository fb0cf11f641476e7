//! Find minibrot (key N) with a low fixed iteration count (egui_kittest): at a deep view with 200
//! fixed iterations, N finds the minibrot, frames it and raises the iterations to what shows it
//! (saying so), and where no minibrot can be found it says why and leaves the view.
//!
//! Runs on the CPU backend (the app's test mode).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;
use app_support::settle;

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use wavebrot::app::Demo;
use wavebrot::app::WavebrotApp;
use wavebrot::sim::fractal::deep::View;

/// The minibrot of seahorse valley that deep-zoom videos dive to.
const MINIBROT: (&str, &str) = ("-0.743643887037158704752191506114774", "0.131825904205311970493132056385139");

fn harness_at(zoom: &str, iters: u32) -> Harness<'static, WavebrotApp> {
    harness_centred(MINIBROT, zoom, iters)
}

fn harness_centred(centre: (&str, &str), zoom: &str, iters: u32) -> Harness<'static, WavebrotApp> {
    let mut h = app_support::open(Demo::Mandelbrot, [1000.0, 700.0]);
    let m = h.state_mut().mandelbrot_mut();
    m.view = Some(View { re: centre.0.into(), im: centre.1.into(), zoom: zoom.into() });
    m.auto_iters = false;
    m.iters = iters;
    settle(&mut h);
    h
}

/// Presses N (the pointer off the picture: about the centre) and runs the UI until the search
/// ends; the UI keeps drawing meanwhile.
fn press_n(h: &mut Harness<'static, WavebrotApp>) -> String {
    h.key_press(egui::Key::N);
    h.run_steps(1);
    let start = Instant::now();
    while h.state().finding_minibrot() {
        assert!(start.elapsed() < Duration::from_secs(120), "the search did not end in 2 minutes");
        h.run_steps(1);
        std::thread::sleep(Duration::from_millis(20));
    }
    h.run_steps(1);
    settle(h);
    h.state().message().unwrap_or_default().to_owned()
}

#[test]
fn n_with_200_fixed_iterations_finds_the_minibrot_and_raises_them_to_show_it() {
    let mut h = harness_at("1e14", 200);
    let msg = press_n(&mut h);
    // Measured: period 998, size 6.26e-16 (as `wavebrot find-minibrot` finds about this centre at
    // 1e10), framed at zoom 1.81e14 in this panel.
    assert!(msg.contains("minibrot of period 998"), "{msg}");
    assert!(msg.contains("fixed iterations raised from 200 to 9980"), "the status bar says why: {msg}");
    let m = &h.state().settings().mandelbrot;
    assert_eq!((m.auto_iters, m.iters), (false, 9980));
    // The framed picture at 9980 iterations shows the minibrot: some pixels inside, most out.
    let ready = |a: &WavebrotApp| {
        a.mandelbrot_shown()
            .is_some_and(|s| s.coarse == 1 && s.request.iters == 9980 && s.request.view.zoom_log10() > 14.0)
    };
    let start = Instant::now();
    while !ready(h.state()) {
        assert!(start.elapsed() < Duration::from_secs(120), "the framed picture did not come");
        h.run_steps(1);
        h.state_mut().sync();
    }
    let s = h.state().mandelbrot_shown().unwrap();
    let inside = s.counts.iter().filter(|&&c| c == 9980).count();
    let share = inside as f64 / s.counts.len() as f64;
    println!(
        "period 998 framed at zoom {}: {inside} of {} pixels inside ({share:.3})",
        s.request.view.zoom,
        s.counts.len()
    );
    // Measured 0.023 (3405 of 151164 pixels); at 200 iterations every pixel of the framed view
    // is "inside" (1.0: `render mandelbrot --center=<the nucleus> --zoom 1.8131984116593e14
    // --iters 200 --npy`), so the bounds catch a count left too low.
    assert!(share > 0.001 && share < 0.5, "{inside} of {} pixels inside: the minibrot does not show", s.counts.len());
}

/// Seen: at 1e10 about this centre N said "no minibrot: Newton's method ... did not converge";
/// it frames an island deeper than the view now (the period is `find-minibrot`'s, checked
/// against mpmath in `tests/cli/minibrot.rs`).
#[test]
fn n_at_1e10_frames_an_island_deeper_than_the_view() {
    let mut h = harness_at("1e10", 200);
    let msg = press_n(&mut h);
    assert!(msg.starts_with("minibrot of period "), "{msg}");
    let m = &h.state().settings().mandelbrot;
    assert!(m.view.as_ref().unwrap().zoom_log10() > 10.0, "framed deeper than 1e10: {:?}", m.view);
}

/// Outside the set (every orbit escapes before any ball holds 0): N says why in the status bar
/// and keeps the view and the iterations.
#[test]
fn n_says_why_when_no_minibrot_is_found_and_keeps_the_view() {
    let mut h = harness_centred(("0.5", "0.5"), "1e6", 200);
    let msg = press_n(&mut h);
    assert!(msg.starts_with("no minibrot: ") && msg.contains("no period found"), "{msg}");
    let m = &h.state().settings().mandelbrot;
    assert_eq!(m.view.as_ref().unwrap().zoom, "1e6", "the view is kept");
    assert_eq!((m.auto_iters, m.iters), (false, 200), "the iterations are kept");
}
