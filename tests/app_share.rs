//! Ways in from outside the app: share links (`--link`, the page's address, Copy link) and files
//! dropped on the window, driven in the real app (egui_kittest on wgpu, no window).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;
use app_support::settle;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use wavebrot::app::Demo;
use wavebrot::app::WavebrotApp;

/// Tall, so the whole side panel (Copy link is low in it) is on screen without scrolling.
fn harness(view: Demo) -> Harness<'static, WavebrotApp> {
    app_support::harness(view, [1200.0, 2400.0])
}

fn running_scene(h: &Harness<'static, WavebrotApp>) -> wavebrot::sim::wave::scene::Scene {
    h.state().wave_scene().expect("a wave frame arrived").clone()
}

/// Share links: a preset and a location open what they name, the view gives the same link back,
/// a bad link changes nothing, and the explorer's "Copy link" button says what it copied.
#[test]
fn a_share_link_opens_what_it_names_and_the_view_gives_it_back() {
    use wavebrot::link::Link;
    let mut h = harness(Demo::Wave);
    h.state_mut().open_link("https://example.org/wavebrot/#v=1&wave=lens").expect("a preset link");
    settle(&mut h);
    assert_eq!(h.state().settings().wave.preset, "lens");
    assert_eq!(h.state().current_link(), Link::Preset("lens".to_owned()));
    // The bookmark at 1e320, its centre to the last of its 320 digits.
    let loc = wavebrot::sim::fractal::bundled::find("spiral-at-i-1e320").unwrap().location().unwrap();
    let url = Link::Location(loc.clone()).url("").unwrap();
    h.state_mut().open_link(&url).expect("a location link");
    settle(&mut h);
    assert_eq!(h.state().settings().view, Demo::Mandelbrot);
    let Link::Location(back) = h.state().current_link() else { panic!("the explorer's link is a location") };
    assert_eq!((&back.re, &back.im, back.iters), (&loc.re, &loc.im, loc.iters));
    // The bookmark has no colours of its own: the link carries the ones on screen.
    assert_eq!(back.colour, Some(h.state().settings().mandelbrot.colour));
    let zoom =
        |z: &str| wavebrot::sim::fractal::deep::View { re: "0".into(), im: "0".into(), zoom: z.into() }.zoom_log10();
    assert!((zoom(&back.zoom) - zoom(&loc.zoom)).abs() < 1e-9, "zoom {} for {}", back.zoom, loc.zoom);
    // A link asking for no iterations is refused and the view is kept.
    let before = h.state().current_link();
    let e = h.state_mut().open_link("#v=1&re=0&im=0&zoom=1&iters=0").expect_err("refused");
    assert!(e.to_string().contains("iters"), "{e}");
    settle(&mut h);
    assert_eq!(h.state().current_link(), before);
    h.get_by_label("Copy link").click();
    h.run_steps(2);
    let msg = h.state().message().unwrap_or_default().to_owned();
    assert!(msg.starts_with("copied a link (") && !msg.contains('\n'), "{msg:?}");
}

/// A file dropped on the window, as the window hands it over.
#[derive(Debug)]
struct Dropped {
    path: std::path::PathBuf,
    bytes: Vec<u8>,
}

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &std::path::Path {
        &self.path
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        Ok(self.bytes.clone())
    }
}

fn drop_file(h: &mut Harness<'static, WavebrotApp>, name: &str, bytes: &[u8]) {
    let f = Dropped { path: std::path::PathBuf::from("/home/teacher").join(name), bytes: bytes.to_vec() };
    h.input_mut().dropped_files.push(std::sync::Arc::new(f));
    h.run_steps(1);
    settle(h);
}

/// Dropped files are the way in where there is no file system (the browser build): a scene opens
/// in the wave lab, a location in the explorer, anything else is refused in one line, view kept.
#[test]
fn a_dropped_scene_or_location_opens_and_anything_else_is_refused() {
    let mut h = harness(Demo::Mandelbrot);
    let mut lens = wavebrot::sim::wave::scene::preset("lens").unwrap().resized(200, 150);
    lens.description = "my lens".to_owned();
    drop_file(&mut h, "my-lens.toml", lens.to_toml().unwrap().as_bytes());
    assert_eq!(h.state().settings().view, Demo::Wave);
    assert_eq!(running_scene(&h).description, "my lens");
    assert!(h.state().message().unwrap_or_default().contains("opened the scene my-lens.toml"));
    let loc = wavebrot::sim::fractal::bundled::find("seahorse-twilight").unwrap().location().unwrap();
    drop_file(&mut h, "twilight.toml", loc.to_toml().as_bytes());
    assert_eq!(h.state().settings().view, Demo::Mandelbrot);
    assert_eq!(h.state().settings().mandelbrot.view.as_ref().map(|v| v.re.clone()), Some(loc.re.clone()));
    for (name, bytes, says) in [
        ("photo.png", &b"\x89PNG\r\n\x1a\n\x00\xff"[..], "not a text file"),
        ("broken.toml", &b"nx = 40\nny = \n"[..], "not a scene"),
        ("notes.txt", &b"buy milk"[..], "not a location"),
    ] {
        drop_file(&mut h, name, bytes);
        let msg = h.state().message().unwrap_or_default().to_owned();
        assert!(msg.starts_with(&format!("{name} not opened: ")) && msg.contains(says), "{msg}");
        assert!(msg.ends_with("the view is kept") && !msg.contains('\n'), "{msg}");
        assert_eq!(h.state().settings().view, Demo::Mandelbrot, "{name}: the view is kept");
        assert_eq!(h.state().settings().mandelbrot.view.as_ref().map(|v| v.re.clone()), Some(loc.re.clone()));
    }
}
