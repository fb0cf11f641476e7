//! `render mandelbrot --video`: the movie's frames and length (ffprobe), its first frame the
//! whole set and its last the view (`render --png`'s pixels), without ffmpeg a PNG sequence and
//! the printed command, a frame between keyframes against a direct render of its zoom, and bad
//! input.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Need, skip};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wavebrot"))
}

/// Seahorse valley: every test zooms to 1024 = 2^10 about it, so frame `j` of 21 (`--seconds
/// 2.1 --fps 10`) is at zoom `2^(j/2)`: the even frames are keyframes, the odd ones between two.
const CENTRE: &str = "-0.743643887037151,0.131825904205330";
const SIZE: [&str; 4] = ["--width", "64", "--height", "48"];
/// 100 iterations for the view; the keyframes get at least min(100, n), so all of them 100.
const COMMON: [&str; 4] = ["--iters", "100", "--backend", "cpu"];

fn movie(dir: &Path, file: &str, extra: &[&str], path_env: Option<&str>) -> std::process::Output {
    let mut c = Command::new(bin());
    c.args(["render", "mandelbrot", "--center", CENTRE, "--zoom", "1024"])
        .args(COMMON)
        .args(extra)
        .arg("--video")
        .arg(dir.join(file));
    if let Some(p) = path_env {
        c.env("PATH", p);
    }
    c.output().unwrap()
}

fn png_of(dir: &Path, name: &str, zoom: &str, extra: &[&str]) -> image::RgbaImage {
    let path = dir.join(name);
    let out = Command::new(bin())
        .args(["render", "mandelbrot", "--center", CENTRE, "--zoom", zoom])
        .args(COMMON)
        .args(extra)
        .arg("--png")
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    image::open(&path).unwrap().to_rgba8()
}

#[test]
fn the_movie_has_its_frames_and_its_length() {
    let Some(ffprobe) =
        ["ffmpeg", "ffprobe"].iter().all(|t| Command::new(t).arg("-version").output().is_ok()).then_some("ffprobe")
    else {
        skip(Need::Ffmpeg, "ffmpeg or ffprobe is not on PATH: the encoded movie was not checked");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = movie(dir.path(), "zoom.mp4", &[&SIZE[..], &["--seconds", "2", "--fps", "10"]].concat(), None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let probe = Command::new(ffprobe)
        .args(["-v", "error", "-select_streams", "v:0", "-count_frames"])
        .args([
            "-show_entries",
            "stream=nb_read_frames,width,height,duration,codec_name,pix_fmt",
            "-of",
            "default=nw=1",
        ])
        .arg(dir.path().join("zoom.mp4"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&probe.stdout);
    let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(&format!("{k}="))).unwrap_or("").to_owned();
    assert_eq!(field("nb_read_frames"), "20", "{text}");
    assert_eq!((field("width").as_str(), field("height").as_str()), ("64", "48"), "{text}");
    assert_eq!((field("codec_name").as_str(), field("pix_fmt").as_str()), ("h264", "yuv420p"), "{text}");
    let secs: f64 = field("duration").parse().unwrap();
    assert!((secs - 2.0).abs() < 0.05, "duration {secs} s, asked for 2 s at 10 fps: {text}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("zoom.mp4")], "only the movie is left");
}

#[test]
fn without_ffmpeg_frames_are_pngs_from_the_whole_set_to_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let colours = ["--smooth", "--palette", "viridis", SIZE[0], SIZE[1], SIZE[2], SIZE[3]];
    let mut extra = vec!["--seconds", "2.1", "--fps", "10"];
    extra.extend(colours);
    // A PATH with no ffmpeg on it.
    let out = movie(dir.path(), "zoom.mp4", &extra, Some(""));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let frames = dir.path().join("zoom-frames");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "ffmpeg -framerate 10 -i {}/frame-%06d.png -c:v libx264 -pix_fmt yuv420p {}",
        frames.display(),
        dir.path().join("zoom.mp4").display()
    );
    assert_eq!(stdout.trim(), want, "the printed command; stderr: {err}");
    assert!(err.contains("ffmpeg was not found"), "{err}");
    assert!(!dir.path().join("zoom.mp4").exists());
    let mut names: Vec<String> =
        std::fs::read_dir(&frames).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let expected: Vec<String> = (0..21).map(|j| format!("frame-{j:06}.png")).collect();
    assert_eq!(names, expected);
    let frame = |j: usize| image::open(frames.join(&expected[j])).unwrap().to_rgba8();
    // The last frame is the view: render --png's pixels, byte for byte.
    let view = png_of(dir.path(), "view.png", "1024", &colours);
    assert!(frame(20) == view, "the last frame differs from render --png of the view");
    // The first is the whole set about the same centre, at zoom 1: render --png's pixels too
    // (keyframe 10 of 10, no resampling).
    let whole = png_of(dir.path(), "whole.png", "1", &colours);
    assert!(frame(0) == whole, "the first frame differs from render --png at zoom 1");
}

/// Distance colouring and slope lighting (issue 25): the keyframes carry the distance estimate
/// and its normal, so the last frame is `render --png --colour distance --light` of the view
/// and the first of the whole set, byte for byte (PNG frames: no encoder's loss). Before, the
/// movie silently coloured by escape counts: its last frame differed from this picture by a
/// mean of 194 levels a channel.
#[test]
fn distance_coloured_and_lit_movies_end_on_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let colours =
        ["--colour", "distance", "--light", "135,45", "--palette", "magma", SIZE[0], SIZE[1], SIZE[2], SIZE[3]];
    let mut extra = vec!["--seconds", "2.1", "--fps", "10"];
    extra.extend(colours);
    let out = movie(dir.path(), "zoom.mp4", &extra, Some(""));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let frame = |j: usize| image::open(dir.path().join(format!("zoom-frames/frame-{j:06}.png"))).unwrap().to_rgba8();
    let mean_diff = |a: &image::RgbaImage, b: &image::RgbaImage| {
        let sum: u64 = a
            .pixels()
            .zip(b.pixels())
            .map(|(p, q)| (0..3).map(|c| u64::from(p.0[c].abs_diff(q.0[c]))).sum::<u64>())
            .sum();
        sum as f64 / (3 * a.width() * a.height()) as f64
    };
    let view = png_of(dir.path(), "view.png", "1024", &colours);
    let last = frame(20);
    assert!(
        last == view,
        "the last frame differs from render --png of the view: mean {:.2} levels",
        mean_diff(&last, &view)
    );
    let whole = png_of(dir.path(), "whole.png", "1", &colours);
    let first = frame(0);
    assert!(
        first == whole,
        "the first frame differs from render --png at zoom 1: mean {:.2} levels",
        mean_diff(&first, &whole)
    );
    // The check sees the escape colouring the movie used to give: the view without
    // `--colour distance --light` differs from it (measured: 59.9 levels a channel; budget: above 20).
    let escape = png_of(dir.path(), "escape.png", "1024", &["--palette", "magma", SIZE[0], SIZE[1], SIZE[2], SIZE[3]]);
    let wrong = mean_diff(&escape, &view);
    assert!(wrong > 20.0, "escape colouring passed as distance colouring: mean {wrong:.2} levels");
}

/// A frame between keyframes with distance colouring and lighting against a direct render of
/// its zoom: the distance must be rescaled to the frame's pixels (a keyframe's pixel is
/// `1/scale` of the frame's) and the normals blended.
#[test]
fn a_distance_coloured_frame_between_keyframes_is_close_to_a_direct_render() {
    let dir = tempfile::tempdir().unwrap();
    // The interior in viridis' last entry (as the default was when this was measured): the
    // budget is of the resampled distances at the set's edge, not of the interior's colour.
    let colours = [
        "--colour",
        "distance",
        "--light",
        "135,45",
        "--palette",
        "viridis",
        "--interior-colour",
        "fde725",
        "--width",
        "128",
        "--height",
        "96",
    ];
    let mut extra = vec!["--seconds", "2.1", "--fps", "10"];
    extra.extend(colours);
    let out = movie(dir.path(), "zoom.mp4", &extra, Some(""));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let direct = png_of(dir.path(), "direct.png", &format!("{}", 2f64.powf(7.5)), &colours);
    let compare = |j: usize| {
        let frame = image::open(dir.path().join(format!("zoom-frames/frame-{j:06}.png"))).unwrap().to_rgba8();
        let sum: u64 = frame
            .pixels()
            .zip(direct.pixels())
            .map(|(a, b)| u64::from((0..3).map(|c| a.0[c].abs_diff(b.0[c])).max().unwrap_or(0)))
            .sum();
        sum as f64 / f64::from(frame.width() * frame.height())
    };
    let mean = compare(15);
    // Measured here: a mean of 8.9 levels (the largest channel's difference: the set's edge and
    // the filaments, where interpolating cannot follow); the neighbouring frames (zooms 2^7 and
    // 2^8) differ from it by 48 and 64. Budgets: 14 (as the escape-coloured test's) and 30.
    // The distance left in the keyframes' pixels (not rescaled) measured 16.0: caught.
    assert!(mean < 14.0, "resampled distance-coloured frame against a direct render: mean {mean:.2} levels");
    for j in [14, 16] {
        let wrong = compare(j);
        assert!(wrong > 30.0, "frame {j}, of another zoom, passed the check: mean {wrong:.2}");
    }
}

#[test]
fn a_frame_between_keyframes_is_close_to_a_direct_render_of_its_zoom() {
    let dir = tempfile::tempdir().unwrap();
    let colours = ["--smooth", "--palette", "viridis", "--width", "128", "--height", "96"];
    let mut extra = vec!["--seconds", "2.1", "--fps", "10"];
    extra.extend(colours);
    let out = movie(dir.path(), "zoom.mp4", &extra, Some(""));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Frame 15 is at zoom 2^7.5 (seahorse valley's spirals), between keyframes 2^8 (1.41 times
    // it, its centre) and 2^7.
    let direct = png_of(dir.path(), "direct.png", &format!("{}", 2f64.powf(7.5)), &colours);
    let compare = |j: usize| {
        let frame = image::open(dir.path().join(format!("zoom-frames/frame-{j:06}.png"))).unwrap().to_rgba8();
        let (mut far, mut sum) = (0usize, 0u64);
        for (a, b) in frame.pixels().zip(direct.pixels()) {
            let d = (0..3).map(|c| a.0[c].abs_diff(b.0[c])).max().unwrap_or(0);
            sum += u64::from(d);
            far += usize::from(d > 24);
        }
        let n = (frame.width() * frame.height()) as f64;
        (far as f64 / n, sum as f64 / n)
    };
    let (far, mean) = compare(15);
    // Measured here: 6.7% of the pixels more than 24 levels apart (the set's edge and the
    // filaments, where interpolating cannot follow), a mean difference of 9.4 levels; the
    // neighbouring frames (zooms 2^7 and 2^8) differ from it by 45 and 61. Budgets: 10% and 14.
    assert!(
        far < 0.10 && mean < 14.0,
        "resampled frame against a direct render: {:.2}% of pixels differ by more than 24 levels, mean {mean:.2}",
        far * 100.0
    );
    // The check sees a wrong frame: the neighbouring frames against the same render.
    for j in [14, 16] {
        let (_, wrong) = compare(j);
        assert!(wrong > 30.0, "frame {j}, of another zoom, passed the check: mean {wrong:.2}");
    }
}

#[test]
fn bad_movies_are_usage_errors_of_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["--zoom", "1024", "--video", "z.gif"], ".mp4"),
        (&["--zoom", "1024", "--video", "z.mp4", "--seconds", "0"], "--seconds"),
        (&["--zoom", "1024", "--video", "z.mp4", "--fps", "1000"], "--fps"),
        (&["--zoom", "0.5", "--video", "z.mp4"], "wider"),
        (&["--zoom", "1024", "--video", "z.mp4", "--height", "47"], "even"),
    ];
    for (args, says) in cases {
        let out = Command::new(bin())
            .current_dir(dir.path())
            .args(["render", "mandelbrot", "--center", CENTRE, "--width", "64"])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?} should name {says}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    // Without a view to zoom to.
    let out = Command::new(bin())
        .current_dir(dir.path())
        .args(["render", "mandelbrot", "--video", "z.mp4"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--video needs the view"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
}

/// The other colour options reach the movie: a custom palette from a `--location` file, the
/// interior colour and `--scale log` colour its last frame as `render --png` colours the view.
#[test]
fn location_palettes_interior_and_scale_colour_the_movie() {
    let dir = tempfile::tempdir().unwrap();
    let loc = dir.path().join("place.toml");
    let stops = r##"stops = [{ at = 0.0, colour = "ff0000" }, { at = 1.0, colour = "#0000FF" }]"##;
    let text = format!(
        "re = \"-0.743643887037151\"\nim = \"0.131825904205330\"\nzoom = \"1024\"\niters = 100\n[colour]\npalette = \"Custom\"\nsmooth = false\nscale = \"Linear\"\noffset = 0.0\ncycles = 1.0\n{stops}\n"
    );
    std::fs::write(&loc, text).unwrap();
    let loc = loc.to_string_lossy().into_owned();
    let colours =
        ["--location", &loc, "--interior-colour", "00ff00", "--scale", "log", SIZE[0], SIZE[1], SIZE[2], SIZE[3]];
    let run = |file: &str, extra: &[&str]| {
        let out = Command::new(bin())
            .args(["render", "mandelbrot"])
            .args(COMMON)
            .args(colours)
            .args(extra)
            .arg(dir.path().join(file))
            .env("PATH", "")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    run("zoom.mp4", &["--seconds", "1.1", "--fps", "10", "--video"]);
    run("view.png", &["--png"]);
    let last = image::open(dir.path().join("zoom-frames/frame-000010.png")).unwrap().to_rgba8();
    let view = image::open(dir.path().join("view.png")).unwrap().to_rgba8();
    assert!(last == view, "the last frame differs from render --png of the view with the same colours");
    // Those colours are in it: pure green inside, no green channel outside (red to blue stops).
    assert!(last.pixels().any(|p| p.0 == [0, 255, 0, 255]), "no interior-coloured pixel");
    assert!(last.pixels().all(|p| p.0 == [0, 255, 0, 255] || p.0[1] == 0), "a colour outside the red-blue palette");
}
