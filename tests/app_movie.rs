//! Record dive in the app (egui_kittest): the zoom movie of the Mandelbrot view made from the
//! panel as a user makes it, on the `wavebrot-movie` thread while the app keeps drawing: its
//! frames and length (ffprobe), its last frame `render --png`'s picture of the view (the PNG
//! sequence made without ffmpeg, whose command the app shows), and Cancel leaving nothing.
//!
//! All run on the CPU backend (the app's test mode).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;
use app_support::settle;

mod common;

use std::path::Path;
use std::process::Command;
use web_time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use wavebrot::app::Demo;
use wavebrot::app::WavebrotApp;
use wavebrot::sim::fractal::deep::View;

/// Seahorse valley at zoom 1024 = 2^10 (as `tests/cli/movie.rs`).
const CENTRE: (&str, &str) = ("-0.743643887037151", "0.131825904205330");

fn harness() -> Harness<'static, WavebrotApp> {
    // Tall enough that the movie controls are in view.
    let mut h = app_support::open(Demo::Mandelbrot, [1000.0, 1300.0]);
    let m = h.state_mut().mandelbrot_mut();
    m.view = Some(View { re: CENTRE.0.into(), im: CENTRE.1.into(), zoom: "1024".into() });
    m.auto_iters = false;
    m.iters = 100;
    settle(&mut h);
    h
}

/// Sets the movie's length, rate, size and file.
fn movie_settings(h: &mut Harness<'static, WavebrotApp>, seconds: f64, fps: u32, size: [usize; 2], path: &Path) {
    let m = h.state_mut().movie_state_mut();
    m.seconds = seconds;
    m.fps = fps;
    m.size = size;
    m.path = path.display().to_string();
}

/// Clicks Record dive and runs the UI until the movie ends; returns how many UI frames ran
/// while it rendered and the longest of them.
fn record_dive(h: &mut Harness<'static, WavebrotApp>) -> (usize, Duration) {
    h.get_by_label_contains("Record dive").click();
    h.run_steps(1);
    let start = Instant::now();
    let (mut frames, mut longest) = (0, Duration::ZERO);
    while h.state().movie_running() {
        assert!(start.elapsed() < Duration::from_secs(120), "the movie did not end in 2 minutes");
        let t = Instant::now();
        h.run_steps(1);
        longest = longest.max(t.elapsed());
        frames += 1;
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run_steps(1);
    (frames, longest)
}

fn render_png(dir: &Path, size: [usize; 2]) -> image::RgbaImage {
    let path = dir.join("view.png");
    let out = Command::new(env!("CARGO_BIN_EXE_wavebrot"))
        .args(["render", "mandelbrot", "--center", &format!("{},{}", CENTRE.0, CENTRE.1), "--zoom", "1024"])
        .args(["--iters", "100", "--backend", "cpu", "--width", &size[0].to_string()])
        .args(["--height", &size[1].to_string(), "--png"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    image::open(&path).unwrap().to_rgba8()
}

#[test]
fn record_dive_writes_an_mp4_of_the_frames_asked() {
    if ["ffmpeg", "ffprobe"].iter().any(|t| Command::new(t).arg("-version").output().is_err()) {
        common::skip(common::Need::Ffmpeg, "ffmpeg or ffprobe is not on PATH: the app's movie was not checked");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dive.mp4");
    let mut h = harness();
    movie_settings(&mut h, 1.0, 10, [64, 36], &path);
    let (frames, longest) = record_dive(&mut h);
    let msg = h.state().message().unwrap_or_default().to_owned();
    println!("{msg}; {frames} UI frames while it ran, the longest {longest:?}");
    assert!(msg.contains("wrote") && msg.contains("10 frames"), "{msg}");
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args(["-show_entries", "stream=nb_read_frames,width,height:format=duration", "-of", "default=nw=1"])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&probe.stdout).into_owned();
    let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(&format!("{k}="))).unwrap_or("").to_owned();
    assert_eq!(field("nb_read_frames"), "10", "1 s at 10 fps: {text}");
    assert_eq!((field("width").as_str(), field("height").as_str()), ("64", "36"), "{text}");
    let secs: f64 = field("duration").parse().unwrap();
    // 10 frames at 10 fps: 1.000 s measured; 0.05 s is half a frame.
    assert!((secs - 1.0).abs() < 0.05, "duration {secs} s, asked for 1 s: {text}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("dive.mp4")], "only the movie is left");
}

#[test]
fn without_ffmpeg_the_app_writes_png_frames_ending_on_the_view_and_shows_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dive.mp4");
    let mut h = harness();
    h.state_mut().movie_state_mut().find_ffmpeg = || None;
    movie_settings(&mut h, 1.0, 10, [64, 36], &path);
    let (frames, longest) = record_dive(&mut h);
    let msg = h.state().message().unwrap_or_default().to_owned();
    println!("{msg}; {frames} UI frames while it ran, the longest {longest:?}");
    assert!(msg.contains("10 PNG frames") && msg.contains("ffmpeg was not found"), "{msg}");
    assert!(!path.exists(), "no movie file without ffmpeg");
    let frames_dir = dir.path().join("dive-frames");
    let mut names: Vec<String> = std::fs::read_dir(&frames_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let expected: Vec<String> = (0..10).map(|j| format!("frame-{j:06}.png")).collect();
    assert_eq!(names, expected);
    // The command that encodes them is on screen.
    let command = format!("ffmpeg -framerate 10 -i {}/frame-%06d.png", frames_dir.display());
    assert!(h.query_by_label_contains(&command).is_some(), "the app shows `{command} …`");
    let last = image::open(frames_dir.join("frame-000009.png")).unwrap().to_rgba8();
    let view = render_png(dir.path(), [64, 36]);
    let differ = last.pixels().zip(view.pixels()).filter(|(a, b)| a != b).count();
    assert_eq!(differ, 0, "{differ} of {} pixels of the last frame differ from render --png of the view", 64 * 36);
}

#[test]
fn cancel_leaves_no_file_and_the_view_stays_live() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.mp4");
    let mut h = harness();
    // A long movie of many iterations: it runs for minutes unless cancelled.
    h.state_mut().mandelbrot_mut().iters = 20_000;
    settle(&mut h);
    movie_settings(&mut h, 60.0, 30, [640, 360], &path);
    h.get_by_label_contains("Record dive").click();
    h.run_steps(1);
    assert!(h.state().movie_running(), "{:?}", h.state().message());
    // The view answers while the movie renders: a zoom out is drawn.
    let before = h.state().mandelbrot_shown().unwrap().request.view.zoom_log10();
    h.state_mut().mandelbrot_mut().view.as_mut().unwrap().zoom = "512".into();
    let start = Instant::now();
    while h.state().mandelbrot_shown().unwrap().request.view.zoom_log10() >= before {
        assert!(start.elapsed() < Duration::from_secs(60), "the view did not move while the movie ran");
        h.run_steps(1);
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(h.state().movie_running(), "still rendering the movie");
    h.get_by_label("Cancel movie").click();
    let start = Instant::now();
    while h.state().movie_running() {
        assert!(start.elapsed() < Duration::from_secs(60), "Cancel did not stop the movie in a minute");
        h.run_steps(1);
        std::thread::sleep(Duration::from_millis(10));
    }
    let msg = h.state().message().unwrap_or_default().to_owned();
    assert!(msg.contains("cancelled"), "{msg}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "a cancelled movie leaves nothing: {left:?}");
}
