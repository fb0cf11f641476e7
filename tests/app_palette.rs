//! The custom palette editor in the app (egui_kittest): "custom" starts a palette of stops, stops
//! are added and removed from the panel, the picture is drawn in them at once, the palette is
//! saved in the location file and opened again, and a location file with bad stops is refused
//! in one line with the last good palette kept.
//!
//! All run on the CPU backend (the app's test mode).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;
use app_support::settle;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use wavebrot::app::Demo;
use wavebrot::app::WavebrotApp;
use wavebrot::sim::colour::palette::Palette;
use wavebrot::sim::colour::stops::Stops;

fn harness() -> Harness<'static, WavebrotApp> {
    // Tall enough that the bookmark and export controls are in view.
    app_support::harness(Demo::Mandelbrot, [1000.0, 1400.0])
}

fn shown_stops(h: &Harness<'static, WavebrotApp>) -> (Palette, Option<Stops>) {
    let c = h.state().mandelbrot_shown().unwrap().request.colour;
    (c.palette, c.stops)
}

#[test]
fn the_palette_editor_adds_removes_saves_and_keeps_the_last_good_palette() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness();
    // The palette row's "custom" (the export's size has one too, below it).
    h.get_all_by_label("custom").next().unwrap().click();
    settle(&mut h);
    assert_eq!(shown_stops(&h), (Palette::Custom, Some(Stops::STARTER)), "custom starts with the starter stops");
    h.get_by_label("add stop").click();
    settle(&mut h);
    let five = shown_stops(&h).1.unwrap();
    assert_eq!(five.len(), 5, "{:?}", five.pairs());
    // The widest gap of 0, 0.37, 0.75, 1 is 0.37..0.75: the new stop is at 0.56.
    assert!((five.at(2) - 0.56).abs() < 1e-6, "{:?}", five.pairs());
    h.get_all_by_label("remove").next().unwrap().click();
    settle(&mut h);
    let four = shown_stops(&h).1.unwrap();
    assert_eq!(four.pairs(), five.pairs()[1..].to_vec(), "the first stop removed");

    // The picture is drawn in the stops at once: red to blue, exported, has no green.
    let red_blue = Stops::new(&[(0.0, [255, 0, 0]), (1.0, [0, 0, 255])]).unwrap();
    h.state_mut().mandelbrot_mut().colour.stops = Some(red_blue);
    settle(&mut h);
    assert_eq!(shown_stops(&h).1, Some(red_blue));
    let png = dir.path().join("shot.png");
    {
        let e = h.state_mut().export_state_mut();
        e.size = wavebrot::app::mandel::export::ExportSize::Custom;
        e.custom = [96, 64];
        e.path = png.display().to_string();
    }
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    let img = image::open(&png).unwrap().to_rgba8();
    // The set takes the interior colour, chosen apart from both ends of the ramp (white here).
    let interior = h.state().settings().mandelbrot.colour.interior_rgb();
    assert_eq!(interior, [255, 255, 255], "red and blue ends: the set is white");
    let off = img
        .pixels()
        .filter(|p| [p[0], p[1], p[2]] != interior && (p[1] != 0 || u16::from(p[0]) + u16::from(p[2]) != 255))
        .count();
    assert_eq!(off, 0, "{off} pixels of the export are neither on the red-blue ramp nor the interior");

    // Saved in the location file and opened again after another palette was chosen.
    let loc = dir.path().join("place.toml");
    h.state_mut().bookmarks_mut().path = loc.display().to_string();
    h.get_by_label("Save location").click();
    settle(&mut h);
    let text = std::fs::read_to_string(&loc).unwrap();
    assert!(text.contains("Custom") && text.contains("0000ff"), "{text}");
    h.get_by_label("viridis").click();
    settle(&mut h);
    h.get_by_label("Open location").click();
    settle(&mut h);
    assert_eq!(shown_stops(&h), (Palette::Custom, Some(red_blue)), "the saved palette is back");

    // A file with stops out of order: one line, and the palette shown is kept.
    let bad = text.replace("at = 1.0", "at = -0.5");
    assert_ne!(bad, text, "the test's edit of {text}");
    let bad_path = dir.path().join("bad.toml");
    std::fs::write(&bad_path, bad).unwrap();
    h.state_mut().bookmarks_mut().path = bad_path.display().to_string();
    h.get_by_label("Open location").click();
    settle(&mut h);
    let msg = h.state().message().unwrap_or_default().to_owned();
    assert!(msg.contains("stop 2") && msg.contains("the view is kept"), "{msg}");
    assert_eq!(msg.lines().count(), 1, "{msg}");
    assert_eq!(shown_stops(&h), (Palette::Custom, Some(red_blue)), "the last good palette is kept");
}

/// Seen: turning on distance colouring and the light widened the left panel (the two light
/// sliders side by side) and shrank the picture from 499 to 399 px under the pointer.
#[test]
fn distance_and_light_keep_the_picture_where_it_was() {
    let mut h = app_support::harness(Demo::Mandelbrot, [1280.0, 720.0]);
    let before = h.state().mandelbrot_picture_rect();
    h.get_by_label("distance").click();
    settle(&mut h);
    h.get_by_label("light").click();
    settle(&mut h);
    let c = h.state().mandelbrot_shown().unwrap().request.colour;
    assert!(c.light.is_some(), "the light is on");
    let after = h.state().mandelbrot_picture_rect();
    assert_eq!(after, before, "the picture moved or changed size");
}
