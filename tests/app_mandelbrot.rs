//! The Mandelbrot explorer driven as a user drives it (egui_kittest): wheel zoom from the whole
//! set past 1e13, where the picture switches from the direct rule to perturbation without a
//! visible break; the whole set fitting a portrait panel; zoom box and pan; the iterations and
//! precision controls; a bookmark saved and opened in the app, and saving or opening one moving
//! no control; palettes, smooth colour and the Julia set under the pointer; a typed centre and
//! zoom; holding I or O; the automatic iterations rising where the depth rule falls short. What
//! the explorer writes and measures (export, record, Check, the speedup) is
//! `app_mandelbrot_output.rs`; both take their helpers from `tests/support/mandel_app.rs`.
//!
//! All run on the CPU backend (the app's test mode); no wgpu adapter is needed.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;
use app_support::settle;

#[path = "support/mandel_app.rs"]
mod mandel_app;
use mandel_app::{SPIRAL, harness, run_until, wheel};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use wavebrot::app::WavebrotApp;
use wavebrot::sim::fractal::deep::View;
use wavebrot::sim::fractal::mandelbrot::mismatch_frac;

/// The minibrot of seahorse valley that deep-zoom videos dive to.
const MINIBROT: (&str, &str) = ("-0.743643887037158704752191506114774", "0.131825904205311970493132056385139");

fn shown_view(h: &Harness<'static, WavebrotApp>) -> View {
    h.state().mandelbrot_shown().expect("rendered").request.view.clone()
}

#[test]
fn wheel_zoom_past_1e13_switches_to_perturbation_without_a_break() {
    let mut h = harness([1000.0, 560.0]);
    assert!(shown_view(&h).zoom_log10() < 0.0, "the app starts on the whole set");
    // The whole set, centred on the spiral at i; fixed iterations keep the test short.
    let m = h.state_mut().mandelbrot_mut();
    m.view = Some(View { re: SPIRAL.0.into(), im: SPIRAL.1.into(), zoom: "1".into() });
    m.auto_iters = false;
    m.iters = 1500;
    settle(&mut h);
    let at = h.state().mandelbrot_picture_rect().center();
    let mut last_direct = None;
    let mut first_deep = None;
    for _ in 0..40 {
        // 500 points of wheel: a zoom of e^2 = 7.4 about the pointer.
        wheel(&mut h, at, 500.0);
        let s = h.state().mandelbrot_shown().expect("rendered").clone();
        println!("zoom 1e{:.2}: {} ({}x{})", s.request.view.zoom_log10(), s.arith, s.width, s.height);
        assert_eq!(s.coarse, 1, "the full picture follows once the view is still");
        if s.arith.starts_with("perturbation") {
            first_deep = Some(s);
            break;
        }
        assert!(s.arith == "f32" || s.arith == "f64", "{}", s.arith);
        last_direct = Some(s);
    }
    let direct = last_direct.expect("direct pictures before the switch");
    let deep = first_deep.expect("perturbation within 40 wheel steps");
    let (zd, zp) = (direct.request.view.zoom_log10(), deep.request.view.zoom_log10());
    assert!((10.0..=14.0).contains(&zp), "the switch came at zoom 1e{zp:.1} (last direct 1e{zd:.1})");
    assert!(
        h.query_by_label_contains("precision  perturbation").is_some(),
        "the readout says perturbation at 1e{zp:.1}"
    );
    // The same view as the last direct picture, computed by perturbation: the picture does
    // not break at the switch.
    let m = h.state_mut().mandelbrot_mut();
    m.view = Some(direct.request.view.clone());
    m.precision = wavebrot::app::mandel::view::PrecisionMode::Perturbation;
    settle(&mut h);
    let again = h.state().mandelbrot_shown().expect("rendered").clone();
    assert_eq!(again.request.view, direct.request.view);
    assert!(again.arith.starts_with("perturbation"), "{}", again.arith);
    assert_eq!((again.width, again.height), (direct.width, direct.height));
    let bad = mismatch_frac(&again.counts, &direct.counts);
    let distinct = direct.counts.iter().collect::<std::collections::HashSet<_>>().len();
    assert!(distinct > 20, "the picture has detail: {distinct} distinct counts");
    assert!(
        bad <= 0.01,
        "at zoom 1e{zd:.1}, {:.3}% of the pixels differ between {} and perturbation (budget 1%)",
        bad * 100.0,
        direct.arith
    );
    println!("switch at 1e{zp:.2}; at 1e{zd:.2} {} vs perturbation: {:.4}% differ", direct.arith, bad * 100.0);
    // And deeper, by perturbation, with the readout's zoom past 1e15.
    h.state_mut().mandelbrot_mut().precision = wavebrot::app::mandel::view::PrecisionMode::Auto;
    h.state_mut().mandelbrot_mut().view = Some(deep.request.view.clone());
    settle(&mut h);
    for _ in 0..2 {
        wheel(&mut h, at, 500.0);
    }
    let s = h.state().mandelbrot_shown().expect("rendered");
    assert!(s.arith.starts_with("perturbation") && s.request.view.zoom_log10() > zp + 1.5, "{}", s.arith);
    let z = wavebrot::sim::fractal::deep::format_zoom(s.request.view.zoom_log10());
    assert!(h.query_by_label_contains(&format!("zoom    {z}")).is_some(), "zoom readout {z}");
}

#[test]
fn the_whole_set_fits_a_portrait_panel() {
    let mut h = harness([480.0, 900.0]);
    h.key_press(egui::Key::H); // hide the side panels: the picture is portrait
    settle(&mut h);
    let s = h.state().mandelbrot_shown().expect("rendered").clone();
    assert!(s.height > s.width, "portrait picture: {}x{}", s.width, s.height);
    let iters = s.request.iters as i32;
    let (w, hgt) = (s.width, s.height);
    // Every pixel on the picture's border escapes: the set is not cut off anywhere...
    let border = (0..w).flat_map(|x| [(x, 0), (x, hgt - 1)]).chain((0..hgt).flat_map(|y| [(0, y), (w - 1, y)]));
    let cut: Vec<_> = border.filter(|&(x, y)| s.counts[y * w + x] >= iters).collect();
    assert!(cut.is_empty(), "set pixels on the border: {:?}", &cut[..cut.len().min(5)]);
    // ... and it is there: the cardioid's right side (c = 0.2) and the tip (c = -1.9).
    let b = s.request.view.bounds_f64(w, hgt).unwrap();
    let at = |re: f64, im: f64| {
        let x = ((re - b.minx) / (b.maxx - b.minx) * w as f64) as usize;
        let y = ((im - b.miny) / (b.maxy - b.miny) * hgt as f64) as usize;
        s.counts[y * w + x]
    };
    assert_eq!(at(0.2, 0.0), iters, "the cardioid's right side is in the picture");
    assert_eq!(at(-1.2, 0.0), iters, "the period-2 bulb is in the picture");
}

#[test]
fn zoom_box_and_drag_move_the_view() {
    let mut h = harness([1000.0, 560.0]);
    let r = h.state().mandelbrot_picture_rect();
    let before = shown_view(&h);
    // The readout of the point under the pointer: the centre, -0.764, lies in the set.
    h.hover_at(r.center());
    h.run_steps(2);
    assert!(h.query_by_label_contains("pointer  -0.764").is_some(), "pointer readout");
    assert!(h.query_by_label_contains("count    100").is_some(), "the count under the pointer");
    // Right drag over the picture's upper-left quarter.
    let (a, b) = (r.min + egui::vec2(10.0, 10.0), r.min + r.size() / 2.0 - egui::vec2(10.0, 10.0));
    h.hover_at(a);
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: a,
        button: egui::PointerButton::Secondary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(1);
    h.hover_at(b);
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: b,
        button: egui::PointerButton::Secondary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    settle(&mut h);
    let boxed = shown_view(&h);
    let gain = boxed.zoom_log10() - before.zoom_log10();
    assert!((0.25..0.4).contains(&gain), "a box of a bit under half the picture zooms by 2x-2.5x: 10^{gain:.3}");
    let c = |v: &View| (v.re.parse::<f64>().unwrap(), v.im.parse::<f64>().unwrap());
    let (c0, c1) = (c(&before), c(&boxed));
    assert!(c1.0 < c0.0 && c1.1 > c0.1, "the view moved up and left: {c0:?} -> {c1:?}");
    // Left drag to the right moves the view left.
    let p = r.center();
    h.drag_at(p);
    h.run_steps(1);
    h.hover_at(p + egui::vec2(80.0, 0.0));
    h.run_steps(1);
    h.drop_at(p + egui::vec2(80.0, 0.0));
    settle(&mut h);
    let c2 = c(&shown_view(&h));
    assert!(c2.0 < c1.0 && (c2.1 - c1.1).abs() < 1e-12, "dragging right moves the view left: {c1:?} -> {c2:?}");
    h.get_by_label("Reset view (R)").click();
    settle(&mut h);
    assert!(h.state().settings().mandelbrot.view.is_none(), "back to the whole set");
}

#[test]
fn iterations_and_precision_controls() {
    let mut h = harness([1000.0, 560.0]);
    assert_eq!(h.state().mandelbrot_shown().unwrap().request.iters, 100, "automatic at the whole set");
    h.get_by_role_and_label(Role::Slider, "max iterations").set_value_accesskit(500.0);
    settle(&mut h);
    assert_eq!(h.state().mandelbrot_shown().unwrap().request.iters, 500);
    assert!(!h.state().settings().mandelbrot.auto_iters, "moving the slider overrides the automatic count");
    h.get_by_label("f64").click();
    settle(&mut h);
    assert_eq!(h.state().mandelbrot_shown().unwrap().arith, "f64");
    h.get_by_label("perturbation").click();
    settle(&mut h);
    assert!(h.state().mandelbrot_shown().unwrap().arith.starts_with("perturbation"));
}

#[test]
fn a_bookmark_round_trips_in_the_app_and_a_bad_file_keeps_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spot.toml");
    let mut h = harness([1000.0, 900.0]);
    let spot = View { re: MINIBROT.0.into(), im: MINIBROT.1.into(), zoom: "3.5e20".into() };
    let m = h.state_mut().mandelbrot_mut();
    m.view = Some(spot.clone());
    m.auto_iters = false;
    m.iters = 700;
    m.colour.palette = wavebrot::sim::colour::palette::Palette::Twilight;
    m.colour.cycles = 3.0;
    h.state_mut().bookmarks_mut().path = path.display().to_string();
    h.state_mut().bookmarks_mut().name = "minibrot".into();
    settle(&mut h);
    h.get_by_label("Save location").click();
    settle(&mut h);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("3.5e20") && text.contains("iters = 700") && text.contains(MINIBROT.0), "{text}");
    assert!(text.contains("[colour]") && text.contains("Twilight"), "{text}");
    h.get_by_label("Reset view (R)").click();
    h.state_mut().mandelbrot_mut().iters = 50;
    h.get_by_label("hot").click();
    settle(&mut h);
    h.get_by_label("Open location").click();
    settle(&mut h);
    let s = h.state().mandelbrot_shown().unwrap();
    assert_eq!(s.request.view, spot, "the saved view is back");
    assert_eq!(s.request.iters, 700);
    assert_eq!(s.request.colour.palette, wavebrot::sim::colour::palette::Palette::Twilight, "the palette is back");
    assert!((s.request.colour.cycles - 3.0).abs() < 1e-6);
    std::fs::write(&path, "re = \"-0.5\"\nim = \"zero\"\nzoom = \"1\"\niters = 10\n").unwrap();
    h.get_by_label("Open location").click();
    settle(&mut h);
    let msg = h.state().message().unwrap_or_default().to_owned();
    assert!(msg.contains("'zero'") && msg.contains("kept") && !msg.contains('\n'), "{msg}");
    assert_eq!(shown_view(&h), spot, "a bad file keeps the view");
    // A shipped place from the menu.
    h.get_by_label("Famous places").click();
    h.run_steps(3);
    h.get_by_label("Spiral at i, 1e320").click();
    settle(&mut h);
    let s = h.state().mandelbrot_shown().unwrap();
    assert_eq!(s.request.view.zoom, "1e320");
    assert!(s.arith.contains("extended exponent"), "{}", s.arith);
    // And deeper from there with the wheel.
    let at = h.state().mandelbrot_picture_rect().center();
    wheel(&mut h, at, 500.0);
    let s = h.state().mandelbrot_shown().unwrap();
    let z = s.request.view.zoom_log10();
    assert!((320.8..321.0).contains(&z), "zoom 1e{z:.2} after a zoom of e^2 from 1e320");
    assert!(s.arith.contains("extended exponent"), "{}", s.arith);
    assert!(h.query_by_label_contains("zoom    7.39e320").is_some(), "the readout says 7.39e320");
}

#[test]
fn palettes_smooth_colour_and_the_julia_set_of_the_point_under_the_pointer() {
    let mut h = harness([1000.0, 560.0]);
    let before = h.state().mandelbrot_shown().unwrap().clone();
    h.get_by_label("viridis").click();
    settle(&mut h);
    let s = h.state().mandelbrot_shown().unwrap().clone();
    assert_eq!(s.request.colour.palette, wavebrot::sim::colour::palette::Palette::Viridis);
    assert_eq!(s.counts, before.counts, "a new palette colours the same counts");
    h.get_by_label("smooth").click();
    settle(&mut h);
    let s = h.state().mandelbrot_shown().unwrap().clone();
    assert!(s.request.colour.smooth);
    assert!(h.state().message().is_none(), "smooth colour runs on the CPU: {:?}", h.state().message());
    // J over the picture's centre (-0.764, in the main cardioid): its Julia set is connected and
    // holds 0, the centre of the Julia picture.
    let r = h.state().mandelbrot_picture_rect();
    h.hover_at(r.center());
    h.run_steps(1);
    h.key_press(egui::Key::J);
    settle(&mut h);
    let s = h.state().mandelbrot_shown().unwrap().clone();
    let c = s.request.julia.expect("a Julia picture");
    assert!((c[0] + 0.764).abs() < 0.01 && c[1].abs() < 0.01, "c = {c:?}");
    let (w, hh) = (s.width, s.height);
    assert_eq!(s.counts[(hh / 2) * w + w / 2], s.request.iters as i32, "0 is in the filled Julia set");
    assert!(s.counts[0] < 5, "the corner escapes at once: {}", s.counts[0]);
    assert!(h.query_by_label_contains("Julia set of c = -0.76").is_some());
    // Shift + click goes back.
    h.hover_at(r.center());
    h.run_steps(1);
    h.event(egui::Event::ModifiersChanged(egui::Modifiers::SHIFT));
    h.event(egui::Event::PointerButton {
        pos: r.center(),
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::SHIFT,
    });
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: r.center(),
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::SHIFT,
    });
    h.run_steps(1);
    h.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    settle(&mut h);
    assert!(h.state().mandelbrot_shown().unwrap().request.julia.is_none(), "back to the Mandelbrot set");
}

#[test]
fn saving_and_opening_a_location_moves_no_control_and_keeps_the_picture_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("here.toml");
    let mut h = harness([1000.0, 800.0]);
    h.state_mut().bookmarks_mut().path = path.display().to_string();
    settle(&mut h);
    let labels = ["Save location", "Open location", "Famous places", "Record", "Check", "Reset view (R)"];
    let rects = |h: &Harness<'static, WavebrotApp>| -> Vec<egui::Rect> {
        labels.iter().map(|l| h.get_by_label(l).rect()).collect()
    };
    let before = rects(&h);
    let picture = h.state().mandelbrot_picture_rect();
    let size = h.state().mandelbrot_shown().map(|s| (s.width, s.height));
    h.get_by_label("Save location").click();
    settle(&mut h);
    assert!(h.state().message().unwrap_or_default().starts_with("saved"), "{:?}", h.state().message());
    assert_eq!(rects(&h), before, "a status line moved the controls");
    assert_eq!(h.state().mandelbrot_picture_rect(), picture, "a status line resized the picture");
    h.get_by_label("Open location").click();
    settle(&mut h);
    assert!(h.state().message().unwrap_or_default().starts_with("opened"), "{:?}", h.state().message());
    assert_eq!(rects(&h), before, "Open location is where it was when Save was clicked");
    assert_eq!(h.state().mandelbrot_picture_rect(), picture);
    assert_eq!(h.state().mandelbrot_shown().map(|s| (s.width, s.height)), size, "the picture kept its size");
    // The pointer enters and leaves the picture: its readout rows are always there.
    h.hover_at(picture.center());
    h.run_steps(2);
    assert!(h.query_by_label_contains("pointer  -").is_some() || h.query_by_label_contains("pointer  0").is_some());
    assert_eq!(rects(&h), before, "the pointer readout moved the controls");
    h.hover_at(egui::pos2(picture.max.x + 40.0, picture.center().y));
    h.run_steps(2);
    assert!(h.query_by_label_contains("pointer  —").is_some());
    assert_eq!(rects(&h), before, "the pointer leaving moved the controls");
}

#[test]
fn a_typed_centre_and_zoom_go_there_and_bad_input_keeps_the_view() {
    let mut h = harness([1200.0, 800.0]);
    // Fifty digits of the seahorse minibrot's centre at 1e40: past f64, the deep path renders it.
    let re = "-0.74364388703715870475219150611477370";
    // The section opens (it fills its fields from the camera), then the user types.
    h.get_by_label("Go to, continuous zoom").click();
    h.run_steps(2);
    {
        let g = h.state_mut().goto_mut();
        g.re = re.to_owned();
        g.im = MINIBROT.1.to_owned();
        g.zoom = "1e40".to_owned();
    }
    h.run_steps(1);
    h.get_by_label("Go").click();
    settle(&mut h);
    // Rendered, and settled: the automatic iterations no longer rising (their note said).
    let settled = |a: &WavebrotApp| {
        a.mandelbrot_shown().is_some_and(|s| {
            s.request.view.zoom == "1e40"
                && s.coarse == 1
                && a.settings().mandelbrot.iters_for(&s.request.view) == s.request.iters
        })
    };
    // Nothing escapes at the minibrot's centre, so the iterations rise to 64x the depth rule
    // (390 400): the fine pass takes a while on a loaded machine.
    assert!(run_until(&mut h, 240, settled), "rendered: {:?}", {
        let a = h.state();
        a.mandelbrot_shown().map(|s| {
            (s.request.view.zoom.clone(), s.coarse, s.request.iters, a.settings().mandelbrot.iters_for(&s.request.view))
        })
    });
    let v = shown_view(&h);
    assert_eq!((v.re.as_str(), v.im.as_str()), (re, MINIBROT.1), "every digit typed is kept");
    // A bad zoom: the parser's message, and the view stays.
    h.state_mut().goto_mut().zoom = "0".to_owned();
    h.run_steps(1);
    h.get_by_label("Go").click();
    settle(&mut h);
    let m = h.state().message().unwrap_or_default().to_owned();
    assert!(m.contains("zoom '0' must be above 0"), "the location parser's message: {m:?}");
    assert_eq!(
        h.state().settings().mandelbrot.view.as_ref().map(|v| v.zoom.as_str()),
        Some("1e40"),
        "the last good view stays"
    );
}

#[test]
fn holding_i_or_o_zooms_smoothly_in_and_out() {
    let mut h = harness([1200.0, 800.0]);
    let zoom = |h: &Harness<'static, WavebrotApp>| h.state().settings().mandelbrot.current(1.5).zoom_log10();
    let z0 = zoom(&h);
    h.key_down(egui::Key::I);
    h.run_steps(20);
    h.key_up(egui::Key::I);
    h.run_steps(1);
    let z1 = zoom(&h);
    // At the default 4x per second, each frame of dt s zooms by 4^dt: in, steadily.
    println!("holding I for 20 frames: zoom 1e{z0:.3} -> 1e{z1:.3}");
    assert!(z1 > z0 + 0.05, "holding I zooms in: 1e{z0:.3} -> 1e{z1:.3}");
    h.key_down(egui::Key::O);
    h.run_steps(20);
    h.key_up(egui::Key::O);
    h.run_steps(1);
    let z2 = zoom(&h);
    assert!(z2 < z1 - 0.05, "holding O zooms out: 1e{z1:.3} -> 1e{z2:.3}");
}

#[test]
fn automatic_iterations_rise_where_the_depth_rule_cuts_the_picture_off() {
    // By a seahorse-valley minibrot at 2.49e7 the depth rule's 1210 iterations leave every
    // escaping pixel past half the limit (a picture of one colour but for a few pixels).
    let mut h = harness([1200.0, 800.0]);
    let rule = wavebrot::sim::fractal::auto_iters::by_depth(2.49e7f64.log10());
    h.get_by_label("Go to, continuous zoom").click();
    h.run_steps(2);
    {
        let g = h.state_mut().goto_mut();
        g.re = "-0.743643887037151".to_owned();
        g.im = "0.131825904205330".to_owned();
        g.zoom = "2.49e7".to_owned();
    }
    h.run_steps(1);
    h.get_by_label("Go").click();
    settle(&mut h);
    // The full picture at more than the rule, whose escaping pixels start in the lower half.
    let shows = |a: &WavebrotApp| {
        a.mandelbrot_shown().is_some_and(|s| {
            let iters = s.request.iters;
            let min = s.counts.iter().filter(|&&c| c >= 0 && (c as u32) < iters).min().copied();
            s.coarse == 1
                && s.request.view.zoom == "2.49e7"
                && iters > rule
                && min.is_some_and(|m| 2 * (m as u32) <= iters)
        })
    };
    let done = run_until(&mut h, 60, shows);
    let s = h.state().mandelbrot_shown().unwrap();
    let min = s.counts.iter().filter(|&&c| c >= 0 && (c as u32) < s.request.iters).min().copied();
    assert!(
        done,
        "iterations {} (rule {rule}), smallest escape count {min:?}: the picture still shows no structure",
        s.request.iters
    );
    let m = h.state().message().unwrap_or_default().to_owned();
    assert!(m.contains(&format!("iterations {rule} to ")), "the status bar says why the iterations rose: {m:?}");
    assert!(h.state().settings().mandelbrot.auto_iters, "still automatic");
}
