//! The wave lab's measuring tools driven as a user drives them (egui_kittest): a screen placed
//! on the double slit changes what the worker measures and shows its plot; the ruler measures
//! in cells and wavelengths; the units picker turns every readout into centimetres and hertz;
//! the stopwatch counts the steps run; the edge control names the matched layer's width and
//! switches the worker to it.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use wavebrot::app::Demo;
use wavebrot::app::WavebrotApp;

/// Tall, so the whole side panel (the measuring section is low in it) is on screen without scrolling.
const SIZE: [f32; 2] = [1200.0, 2400.0];

fn harness() -> Harness<'static, WavebrotApp> {
    let mut h = Harness::builder()
        .with_size(SIZE)
        .build_eframe(move |cc| WavebrotApp::new_for_test(cc, Demo::Wave).expect("app starts"));
    settle(&mut h);
    h
}

/// Lets the UI send what the user did, waits for the worker to do it, and shows the result.
fn settle(h: &mut Harness<'static, WavebrotApp>) {
    h.run_steps(2);
    h.state_mut().sync();
    h.run_steps(2);
    h.state_mut().sync();
    h.run_steps(1);
}

fn press(h: &mut Harness<'static, WavebrotApp>, pos: egui::Pos2, pressed: bool) {
    h.event(egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    });
}

/// A primary drag from cell `a` to cell `b` of the wave picture, in small moves.
fn drag_cells(h: &mut Harness<'static, WavebrotApp>, a: (f64, f64), b: (f64, f64)) {
    let from = h.state().field_point(a.0, a.1).expect("the field is drawn");
    let to = h.state().field_point(b.0, b.1).expect("the field is drawn");
    h.hover_at(from);
    h.run_steps(1);
    press(h, from, true);
    h.run_steps(1);
    for k in 1..=6 {
        h.hover_at(from + (to - from) * (k as f32 / 6.0));
        h.run_steps(1);
    }
    press(h, to, false);
    settle(h);
}

fn tstep(h: &Harness<'static, WavebrotApp>) -> u32 {
    h.state().wave_running().expect("a wave frame arrived").1
}

fn double_slit(h: &mut Harness<'static, WavebrotApp>) {
    h.get_by_label("preset").click();
    h.run_steps(3);
    h.get_by_label("double-slit").click();
    settle(h);
    assert_eq!(h.state().wave_scene().expect("a frame").walls.len(), 3, "the double slit runs");
}

#[test]
fn a_screen_placed_on_the_field_is_measured_and_plotted_with_the_theory() {
    let mut h = harness();
    double_slit(&mut h);
    h.get_by_label("Screen").click();
    h.run_steps(1);
    // A drag moves the screen with the pointer; it ends on column 250.
    drag_cells(&mut h, (300.5, 240.5), (250.5, 240.5));
    assert_eq!(h.state().settings().wave.look.screen, Some(250), "the screen follows the drag");
    // 8 frames of 40 steps: the wave from x = 60 passes the slits (x = 160) and reaches the
    // screen at about step 190.
    for _ in 0..8 {
        h.get_by_label("Step").click();
        settle(&mut h);
    }
    let m = h.state().measured().expect("measured").screen.clone().expect("the worker measures the screen");
    assert_eq!((m.x, m.intensity.len()), (250, 480), "the column the worker averages");
    assert!(m.averaged_steps > 0.0 && m.intensity.iter().any(|&v| v > 0.0), "{m:?}");
    h.run_steps(2);
    assert!(h.query_by_label_contains("Screen at x = 250").is_some(), "the plot's title is shown");
    // Theory's orders on column 250 (86.5 cells past the slits, d = 80, λ = 31.4): m = 0 at
    // y = 239.5, m = ±1 at 239.5 ± 86.5·tan(asin(0.3927)) = 239.5 ± 36.94, m = ±2 at ± 109.75.
    let shown = h.query_by_label_contains("theory's maxima at y =").expect("theory's maxima listed");
    let text = format!("{shown:?}");
    for want in ["m=-1: 202.6", "m=0: 239.5", "m=1: 276.4", "m=2: 349.3"] {
        assert!(text.contains(want), "{want} not in {text}");
    }
}

#[test]
fn the_ruler_measures_in_cells_wavelengths_and_the_medium_s_units() {
    let mut h = harness();
    double_slit(&mut h);
    h.get_by_label("Ruler").click();
    h.run_steps(1);
    drag_cells(&mut h, (200.0, 100.0), (200.0, 180.0));
    let (a, b) = h.state_mut().lab_mut().ruler.expect("the ruler is placed");
    let cells = (b.0 - a.0).hypot(b.1 - a.1);
    // The drag's ends are where the pointer was, within a screen point (about half a cell here).
    assert!((cells - 80.0).abs() < 1.0, "ruler {cells} cells");
    // λ = 4π·0.5/0.2 = 31.416 cells at the preset's freq 0.2.
    let ruler = format!("ruler: {cells:.1} cells = {:.2} λ", cells / 31.415_926_5);
    assert!(h.query_by_label_contains(&ruler).is_some(), "{ruler} is not shown");
    assert!(h.query_by_label("λ = 31.4 cells").is_some(), "λ in cells");
    h.get_by_label("units").click();
    h.run_steps(2);
    h.get_by_label("water (cm, Hz)").click();
    settle(&mut h);
    // Water: 1 mm a cell, 25 cm/s; c2 0.25 moves 1 cell a step, so a step is 4 ms.
    assert!(h.query_by_label_contains("λ = 31.4 cells = 3.14 cm").is_some(), "λ in cm");
    assert!(h.query_by_label_contains("7.96 Hz").is_some(), "f = 0.2/(2π·4 ms)");
    assert!(h.query_by_label_contains("spacing d = 80.0 cells = 8.00 cm").is_some(), "slit spacing in cm");
    let ruler_cm = format!("ruler: {cells:.1} cells = {:.2} cm", cells / 10.0);
    assert!(h.query_by_label_contains(&ruler_cm).is_some(), "{ruler_cm} is not shown");
    // The simulation's numbers do not change with the units.
    assert_eq!(h.state().wave_scene().expect("a frame").sources[0].freq(), 0.2);
}

#[test]
fn the_stopwatch_counts_the_steps_run_and_their_seconds() {
    let mut h = harness();
    double_slit(&mut h);
    h.get_by_label("units").click();
    h.run_steps(2);
    h.get_by_label("sound in air (m, Hz)").click();
    settle(&mut h);
    let t0 = tstep(&h);
    h.get_by_label("Start").click();
    settle(&mut h);
    h.get_by_label("Step").click();
    settle(&mut h);
    h.get_by_label("Step").click();
    settle(&mut h);
    h.get_by_label("Stop").click();
    settle(&mut h);
    let steps = tstep(&h) - t0;
    assert!(steps > 0, "the steps ran");
    h.get_by_label("Step").click();
    settle(&mut h);
    // Air: 1 cm a cell at 343 m/s, a step 0.01/343 s = 29.15 µs; stopped, it keeps its count.
    let ms = f64::from(steps) * 0.01 / 343.0 * 1e3;
    let digits = (2 - ms.log10().floor() as i32).clamp(0, 9) as usize;
    let want = format!("{steps} steps = {ms:.digits$} ms");
    assert!(h.query_by_label_contains(&want).is_some(), "{want} is not shown");
}

#[test]
fn slit_sliders_rebuild_the_walls_while_the_waves_run_and_a_bad_combination_keeps_the_last() {
    use egui::accesskit::Role;
    use wavebrot::sim::wave::theory::{Pattern, Theory};
    let mut h = harness();
    double_slit(&mut h);
    h.get_by_label("Step").click();
    settle(&mut h);
    let t0 = tstep(&h);
    assert!(t0 > 0);
    h.get_by_role_and_label(Role::Slider, "slit spacing (cells)").set_value_accesskit(100.0);
    settle(&mut h);
    h.get_by_role_and_label(Role::Slider, "slit count").set_value_accesskit(3.0);
    settle(&mut h);
    let s = h.state().wave_scene().expect("a frame").clone();
    let t = Theory::of(&s).expect("slits");
    assert_eq!((t.pattern, t.d), (Pattern::Slits { count: 3 }, 100.0), "the worker runs the new slits");
    assert_eq!(tstep(&h), t0, "the waves were kept (paused: no steps)");
    // Width 150 at spacing 100 overlaps: refused, the three slits keep running.
    h.get_by_role_and_label(Role::Slider, "slit width (cells)").set_value_accesskit(150.0);
    settle(&mut h);
    assert_eq!(h.state().wave_scene().expect("a frame").walls, s.walls, "the last good scene runs on");
    let said = h.state().message().unwrap_or_default().to_owned();
    assert!(said.contains("not applied") && said.contains("150"), "{said}");
}

#[test]
fn the_edge_control_names_the_matched_layer_s_width_and_runs_it() {
    let mut h = harness();
    double_slit(&mut h);
    // 640 x 480: the layer is its full 32 cells (a quarter of the shorter side is more).
    h.get_by_label("matched layer (32 cells)").click();
    settle(&mut h);
    h.get_by_label("Step").click();
    settle(&mut h);
    let scene = h.state().wave_scene().expect("a frame").clone();
    assert_eq!(scene.boundary, wavebrot::sim::wave::scene::Boundary::Matched, "the worker runs the layer");
    assert_eq!(scene.walls.len(), 3, "the double slit, with its waves carried over");
}
