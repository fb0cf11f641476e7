//! Julia sets coloured by the distance estimate and slope lighting in the app (egui_kittest):
//! J opens the Julia set of the point under the pointer; "distance" and "light" in the colour row
//! make the worker compute the Julia distance estimate (`Backend::julia_distance`), and the
//! picture shown is, pixel for pixel, what `wavebrot render julia --colour distance --light
//! AZ,EL` writes at the same size, and what the library computes and colours.
//!
//! Runs on the CPU backend (the app's test mode).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;
use app_support::settle;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use wavebrot::app::Demo;
use wavebrot::app::WavebrotApp;
use wavebrot::app::mandel::view::MandelShown;
use wavebrot::backend::Backend;
use wavebrot::backend::cpu::{CpuBackend, Threads};
use wavebrot::sim::colour::palette::{ColourBy, ColourSettings, Light, colour_rgba_de};
use wavebrot::sim::fractal::distance::DE_VALUES;
use wavebrot::sim::fractal::julia::JuliaParams;
use wavebrot::sim::fractal::mandelbrot::Precision;

fn harness() -> Harness<'static, WavebrotApp> {
    app_support::harness(Demo::Mandelbrot, [1280.0, 800.0])
}

/// The full picture shown (no coarse pass).
fn shown(h: &Harness<'static, WavebrotApp>) -> MandelShown {
    let s = h.state().mandelbrot_shown().expect("a picture").clone();
    assert_eq!(s.coarse, 1, "a coarse pass is shown");
    s
}

/// The Julia parameters the app's picture was computed with: its view's bounds at its size, its
/// arithmetic (`f32` or `f64`), its `c`.
fn params_of(s: &MandelShown) -> JuliaParams {
    let bounds = s.request.view.bounds_f64(s.width, s.height).unwrap();
    let precision = match s.arith.as_str() {
        "f32" => Precision::F32,
        "f64" => Precision::F64,
        other => panic!("a Julia picture in {other}"),
    };
    JuliaParams {
        width: s.width,
        height: s.height,
        iters: s.request.iters,
        bounds,
        precision,
        c: s.request.julia.expect("a Julia picture"),
    }
}

/// What the library computes and colours for `p` with `colour`: `julia_distance` on the CPU,
/// then `colour_rgba_de`, as `render julia` does.
fn library_picture(p: &JuliaParams, colour: &ColourSettings) -> Vec<u8> {
    let n = p.pixels();
    let (mut counts, mut smooth, mut de) = (vec![0; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
    CpuBackend::new(Threads::All).julia_distance(p, &mut counts, &mut smooth, &mut de).unwrap();
    let mut rgba = vec![0u8; n * 4];
    colour_rgba_de(&counts, Some(&smooth), Some(&de), p.width, p.height, p.iters, colour, &mut rgba);
    rgba
}

/// `wavebrot render julia` of `p` with `--colour distance` and the light: its PNG's pixels.
fn cli_picture(p: &JuliaParams, light: Light) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("julia.png");
    let b = p.bounds;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wavebrot"))
        .args(["render", "julia", "--backend", "cpu"])
        .arg(format!("--c={:?},{:?}", p.c[0], p.c[1]))
        .arg(format!("--bounds={:?},{:?},{:?},{:?}", b.minx, b.maxx, b.miny, b.maxy))
        .args(["--width", &p.width.to_string(), "--height", &p.height.to_string()])
        .args(["--iters", &p.iters.to_string(), "--precision", p.precision.name()])
        .args(["--colour", "distance"])
        .arg(format!("--light={},{}", light.azimuth, light.elevation))
        .arg("--png")
        .arg(&png)
        .output()
        .unwrap();
    assert!(out.status.success(), "render julia failed: {}", String::from_utf8_lossy(&out.stderr));
    image::open(&png).unwrap().to_rgba8().into_raw()
}

/// Pixels (of 4 bytes) that differ between two pictures.
fn differing(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4).zip(b.chunks_exact(4)).filter(|(x, y)| x != y).count()
}

#[test]
fn a_julia_view_coloured_by_distance_and_lit_is_what_render_julia_writes() {
    let mut h = harness();
    // J just above the centre of the whole set's picture (c near -0.78 + 0.15i, by the main
    // cardioid's rim): its Julia set, coloured by counts.
    let r = h.state().mandelbrot_picture_rect();
    h.hover_at(r.center() + egui::vec2(-0.01 * r.width(), -0.03 * r.height()));
    h.run_steps(1);
    h.key_press(egui::Key::J);
    settle(&mut h);
    let counted = shown(&h);
    assert!(counted.request.julia.is_some(), "J opened a Julia view");
    assert_eq!(counted.request.colour, ColourSettings::DEFAULT, "the app starts in render's default colours");
    let counted_rgba = counted.rgba.clone().expect("the CPU backend sends pixels");

    // Colour by distance: the worker computes the Julia distance estimate.
    h.get_by_label("distance").click();
    settle(&mut h);
    let by_distance = shown(&h);
    assert_eq!(by_distance.request.colour.by, ColourBy::Distance);
    assert!(h.state().message().is_none(), "a note instead of distances: {:?}", h.state().message());
    let p = params_of(&by_distance);
    assert_eq!(p, params_of(&counted), "the same picture, coloured another way");
    let distance_rgba = by_distance.rgba.clone().unwrap();
    let changed = differing(&counted_rgba, &distance_rgba);
    println!("distance colouring: {changed} of {} pixels changed from the count colouring", p.pixels());
    // Measured 94 836 of 387 345 (24%: the inside and the far outside, black either way, keep
    // their colour); a picture still coloured by counts changes none.
    assert!(changed > p.pixels() / 10, "only {changed} pixels changed with distance colouring");
    let want = library_picture(&p, &by_distance.request.colour);
    assert_eq!(differing(&distance_rgba, &want), 0, "the app's distance picture is not the library's");

    // And a light: the picture is shaded, and is what `render julia --light` writes. (The
    // light's sliders may widen the panel, so the picture is compared at its own size.)
    h.get_by_label("light").click();
    settle(&mut h);
    let lit = shown(&h);
    let light = lit.request.colour.light.expect("the light is on");
    assert_eq!(light, Light::DEFAULT);
    assert!(h.state().message().is_none(), "{:?}", h.state().message());
    let p = params_of(&lit);
    assert_eq!(p.c, params_of(&counted).c);
    let lit_rgba = lit.rgba.clone().unwrap();
    let unlit = library_picture(&p, &ColourSettings { light: None, ..lit.request.colour });
    let shaded = differing(&unlit, &lit_rgba);
    println!("the light changed {shaded} of {} pixels", p.pixels());
    // Measured 236 455 of 293 265 (81%); a light ignored changes none.
    assert!(shaded > p.pixels() / 4, "only {shaded} pixels changed with the light");
    let library = library_picture(&p, &lit.request.colour);
    assert_eq!(differing(&lit_rgba, &library), 0, "the app's lit picture is not the library's");
    let cli = cli_picture(&p, light);
    let off = differing(&lit_rgba, &cli);
    println!(
        "{}x{} {}: the app's lit Julia picture against render julia's PNG: {off} pixels differ",
        p.width,
        p.height,
        p.precision.name()
    );
    assert_eq!(off, 0, "{off} pixels differ from render julia --colour distance --light");
    assert!(h.query_by_label_contains("Julia set of c =").is_some());
}
