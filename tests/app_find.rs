//! Find minibrot (key N) with a low fixed iteration count (egui_kittest): at a deep view with 200
//! fixed iterations, N finds the minibrot, frames it and raises the iterations to what shows it
//! (saying so), and where no minibrot can be found it says why and leaves the view.
//!
//! Runs on the CPU backend (the app's test mode).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;
use app_support::settle;

use web_time::{Duration, Instant};

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

/// `tools/minibrot_reference.py --check-period`: mpmath's word on `view`'s centre as a nucleus
/// of `period` (how far Newton would still move it, the size, the shape).
fn mpmath_check(view: &View, period: u32) -> serde_json::Value {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/minibrot_reference.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args([view.re.as_str(), view.im.as_str(), view.zoom.as_str(), "--check-period", &period.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("the independent minibrot reference needs python3 with mpmath: {e}"));
    assert!(
        out.status.success(),
        "tools/minibrot_reference.py failed (python3 with mpmath: tools/requirements-ci.txt):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The period of "minibrot of period P …".
fn period_in(msg: &str) -> u32 {
    msg.strip_prefix("minibrot of period ")
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no period in {msg:?}"))
}

/// `log10` of a decimal string (`"1.23e-456"`).
fn log10_of(s: &str) -> f64 {
    let (m, e) = s.split_once('e').unwrap_or((s, "0"));
    m.parse::<f64>().unwrap().abs().log10() + e.parse::<f64>().unwrap()
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
    // The period is the app's; the nucleus it frames is checked by mpmath alone: a true nucleus
    // of that period (one more Newton step moves it by under 1e-12 of the minibrot's size) of a
    // cardioid, not a bulb. Measured: period 998, size 6.26e-16, framed at zoom 1.81e14.
    let period = period_in(&msg);
    let framed = h.state().settings().mandelbrot.view.clone().unwrap();
    let check = mpmath_check(&framed, period);
    let step = check["step_log10"].as_f64().unwrap();
    let size = log10_of(check["size"].as_str().unwrap());
    assert!(step < size - 12.0, "mpmath: Newton would move the framed centre by 1e{step:.1}, size 1e{size:.1}");
    assert!(check["cardioid"].as_bool().unwrap(), "mpmath: a bulb, not a minibrot: {check}");
    let raised = period * 10;
    assert!(msg.contains(&format!("fixed iterations raised from 200 to {raised}")), "the status bar says why: {msg}");
    let m = &h.state().settings().mandelbrot;
    assert_eq!((m.auto_iters, m.iters), (false, raised));
    // The framed picture at 9980 iterations shows the minibrot: some pixels inside, most out.
    let ready = |a: &WavebrotApp| {
        a.mandelbrot_shown()
            .is_some_and(|s| s.coarse == 1 && s.request.iters == raised && s.request.view.zoom_log10() > 14.0)
    };
    let start = Instant::now();
    while !ready(h.state()) {
        assert!(start.elapsed() < Duration::from_secs(120), "the framed picture did not come");
        h.run_steps(1);
        h.state_mut().sync();
    }
    let s = h.state().mandelbrot_shown().unwrap();
    let inside = s.counts.iter().filter(|&&c| c == raised as i32).count();
    let share = inside as f64 / s.counts.len() as f64;
    println!(
        "period {period} framed at zoom {}: {inside} of {} pixels inside ({share:.3})",
        s.request.view.zoom,
        s.counts.len()
    );
    // Measured 0.023 (3405 of 151164 pixels); at 200 iterations every pixel of the framed view
    // is "inside" (1.0: `render mandelbrot --center=<the nucleus> --zoom 1.8131984116593e14
    // --iters 200 --npy`), so the bounds catch a count left too low.
    assert!(share > 0.001 && share < 0.5, "{inside} of {} pixels inside: the minibrot does not show", s.counts.len());
}

/// Seen: at 1e10 about this centre N said "no minibrot: Newton's method ... did not converge";
/// it frames an island deeper than the view now, a true nucleus of a cardioid by mpmath.
#[test]
fn n_at_1e10_frames_an_island_deeper_than_the_view() {
    let mut h = harness_at("1e10", 200);
    let msg = press_n(&mut h);
    let period = period_in(&msg);
    let m = &h.state().settings().mandelbrot;
    assert!(m.view.as_ref().unwrap().zoom_log10() > 10.0, "framed deeper than 1e10: {:?}", m.view);
    let check = mpmath_check(m.view.as_ref().unwrap(), period);
    let (step, size) = (check["step_log10"].as_f64().unwrap(), log10_of(check["size"].as_str().unwrap()));
    assert!(step < size - 12.0 && check["cardioid"].as_bool().unwrap(), "mpmath: not a minibrot's nucleus: {check}");
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
