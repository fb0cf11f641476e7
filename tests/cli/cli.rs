//! The command line as a user calls it: files written, exit codes, one-line errors.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;

use assert_cmd::Command;
use predicates::prelude::*;
use wavebrot::output::read_npy;

fn wavebrot() -> Command {
    let mut c = Command::cargo_bin("wavebrot").unwrap();
    // Keep runs on the CPU so CI results do not depend on a GPU.
    c.env("RUST_BACKTRACE", "0");
    c
}

/// Runs with `args`, expects exit `code` and a one-line stderr containing `needle`.
fn fails(args: &[&str], code: i32, needle: &str) {
    let out = wavebrot().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: status {:?}, stderr: {err}", out.status);
    assert!(err.contains(needle), "{args:?}: stderr {err:?} does not name {needle:?}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{args:?} panicked: {err}");
    if code == 2 {
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: usage error is not one line: {err:?}");
    }
}

#[test]
fn render_wave_writes_npy_and_png() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("f.npy");
    let png = dir.path().join("f.png");
    wavebrot()
        .args(["render", "wave", "--nx", "37", "--ny", "53", "--tmax", "300", "--backend", "cpu"])
        .arg("--npy")
        .arg(&npy)
        .arg("--png")
        .arg(&png)
        .assert()
        .success();
    let (f, shape) = read_npy::<f32>(&npy).unwrap();
    assert_eq!(shape, [37, 53]);
    let (want, _) =
        read_npy::<f32>(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/wave_37x53_t300.npy")))
            .unwrap();
    assert_eq!(f, want);
    let img = image::open(&png).unwrap();
    assert_eq!((img.width(), img.height()), (37, 53));
    // No temporary files are left beside the outputs.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn render_wave_frames_dir_numbers_frames() {
    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("png");
    wavebrot()
        .args(["render", "wave", "--nx", "20", "--ny", "16", "--tmax", "30", "--every", "10", "--backend", "cpu1"])
        .arg("--frames-dir")
        .arg(&frames)
        .assert()
        .success();
    let mut names: Vec<String> =
        std::fs::read_dir(&frames).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["wave2d_010.png", "wave2d_020.png", "wave2d_030.png"]);
}

#[test]
fn render_mandelbrot_writes_counts_with_negative_bounds_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    for (i, bounds) in [["--bounds=-2,1,-1,1", ""], ["--bounds", "-2,1,-1,1"]].iter().enumerate() {
        let npy = dir.path().join(format!("m{i}.npy"));
        let png = dir.path().join(format!("m{i}.png"));
        let mut cmd = wavebrot();
        cmd.args(["render", "mandelbrot", "--width", "96", "--height", "64", "--iters", "20", "--backend", "cpu"]);
        cmd.args(bounds.iter().filter(|a| !a.is_empty()));
        cmd.arg("--npy").arg(&npy).arg("--png").arg(&png).assert().success();
        let (counts, shape) = read_npy::<i32>(&npy).unwrap();
        assert_eq!(shape, [64, 96]);
        let (want, _) = read_npy::<i32>(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/mandel_96x64_i20.npy"
        )))
        .unwrap();
        assert_eq!(counts, want);
        let img = image::open(&png).unwrap();
        assert_eq!((img.width(), img.height()), (96, 64));
    }
}

/// A PNG's orientation against a view that no flip or turn maps onto itself: the counts are
/// computed here by the seed's rule (DESIGN.md: `c = (minx + x·px) + i·(miny + y·py)`) and the
/// picture must colour them with the imaginary axis up and the real axis to the right. Colours
/// are compared as classes (equal counts, equal colours; the hot palette gives each count its own
/// colour), so the test holds for any colouring but no orientation other than the right one.
#[test]
fn render_mandelbrot_png_puts_the_imaginary_axis_up_and_the_real_axis_right() {
    // The set's interior sits in the lower left (around c = 0), open plane elsewhere; 48x20.
    let (minx, maxx, miny, maxy, w, h, iters) = (-0.1f64, 1.9, -0.1, 0.9, 48usize, 20usize, 12u32);
    let count = |x: usize, y: usize| {
        let (cr, ci) = (minx + x as f64 * (maxx - minx) / w as f64, miny + y as f64 * (maxy - miny) / h as f64);
        let (mut zr, mut zi) = (0.0f64, 0.0f64);
        for k in 0..iters {
            (zr, zi) = (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci);
            if zr * zr + zi * zi >= 4.0 {
                return k;
            }
        }
        iters
    };
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("o.png");
    wavebrot()
        .args(["render", "mandelbrot", &format!("--bounds={minx},{maxx},{miny},{maxy}")])
        .args(["--width", &w.to_string(), "--height", &h.to_string(), "--iters", &iters.to_string()])
        .args(["--backend", "cpu1", "--png"])
        .arg(&png)
        .assert()
        .success();
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!((img.width() as usize, img.height() as usize), (w, h));
    // The picture's row r is y = h-1-r (imaginary axis up), its column x is x.
    let mut colour_of = std::collections::HashMap::new();
    let mut counts_of = std::collections::HashMap::new();
    for r in 0..h {
        for x in 0..w {
            let k = count(x, h - 1 - r);
            let c = img.get_pixel(x as u32, r as u32).0;
            let seen = *colour_of.entry(k).or_insert(c);
            assert_eq!(seen, c, "pixel (col {x}, row {r}) of count {k}: two colours for one count");
            let other = *counts_of.entry(c).or_insert(k);
            assert_eq!(other, k, "pixel (col {x}, row {r}): colour {c:?} for counts {other} and {k}");
        }
    }
    assert!(colour_of.len() >= 5, "the view shows too few counts to tell an orientation: {colour_of:?}");
    // The interior is where the seed's rule puts it: bottom left, around c = 0.
    assert_eq!(count(2, 2), iters);
    assert_eq!(img.get_pixel(2, (h - 1 - 2) as u32).0, colour_of[&iters]);
    assert!(count(w - 3, h - 3) < 2, "the top right escapes at once");
    assert_ne!(img.get_pixel((w - 3) as u32, 2).0, colour_of[&iters], "the top right is the plane outside the set");
}

#[test]
fn bad_values_exit_2_with_one_line_naming_them() {
    fails(&["render", "wave", "--nx", "0"], 2, "'0'");
    fails(&["render", "wave", "--nx", "2"], 2, "'2'");
    fails(&["render", "wave", "--ny", "-5"], 2, "'-5'");
    fails(&["render", "wave", "--nx", "abc"], 2, "'abc'");
    fails(&["render", "wave", "--freq", "nan"], 2, "'nan'");
    fails(&["render", "wave", "--freq", "inf"], 2, "'inf'");
    fails(&["render", "wave", "--freq", "0"], 2, "'0'");
    fails(&["render", "wave", "--freq", "-0.1"], 2, "'-0.1'");
    fails(&["render", "wave", "--tmax", "0"], 2, "'0'");
    fails(&["render", "wave", "--tmax", "1e3"], 2, "'1e3'");
    fails(&["render", "wave", "--every", "5"], 2, "--frames-dir");
    fails(&["render", "wave", "--backend", "tpu"], 2, "'tpu'");
    fails(&["render", "mandelbrot", "--iters", "0"], 2, "'0'");
    fails(&["render", "mandelbrot", "--width", "0"], 2, "'0'");
    fails(&["render", "mandelbrot", "--bounds", "1,-2,-1,1"], 2, "minx");
    fails(&["render", "mandelbrot", "--bounds", "-2,1,-1"], 2, "-2,1,-1");
    fails(&["render", "mandelbrot", "--bounds=-2,1,-1,nan"], 2, "nan");
    fails(&["render", "mandelbrot", "--precision", "f16"], 2, "'f16'");
    fails(&["bench", "--backend", "gpu"], 2, "'gpu'");
    fails(&["bench", "--variant", "fastest"], 2, "'fastest'");
    fails(&["frobnicate"], 2, "'frobnicate'");
}

#[test]
fn too_large_and_unwritable_exit_1() {
    fails(&["render", "wave", "--nx", "1000000", "--ny", "1000000", "--backend", "cpu"], 1, "out of memory");
    fails(
        &["render", "mandelbrot", "--width", "2000000", "--height", "2000000", "--backend", "cpu"],
        1,
        "out of memory",
    );
    fails(
        &["render", "wave", "--nx", "10", "--ny", "10", "--png", "/nonexistent-dir/x.png"],
        1,
        "/nonexistent-dir/x.png",
    );
}

#[test]
fn info_lists_every_backend() {
    wavebrot().arg("info").assert().success().stdout(
        predicate::str::contains("cpu ").and(predicate::str::contains("cuda")).and(predicate::str::contains("wgpu")),
    );
}

/// The checker seen failing: `verify --inject-fault` hands every backend's results back with one
/// wrong value each (`bench::faulty`: a cell off by 1e-3, a count off by one); every wave, scene,
/// Mandelbrot, smooth, Julia and deep line must say FAIL and verify exit 1 (the deep view's
/// budget is its measured one pixel, `verify`'s `DEEP_F64_PIXELS`: one wrong count more fails).
#[test]
fn verify_with_an_injected_fault_fails_every_check_and_exits_1() {
    let out = wavebrot()
        .args(["verify", "--quick", "--inject-fault", "--backend", "cpu1", "--backend", "cpu"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("\nCheck result: FAILED\n"), "{text}");
    let checks: Vec<&str> = text.lines().filter(|l| l.starts_with("ok ") || l.starts_with("FAIL ")).collect();
    // 2 wave cases x 3 (cpu1, cpu/blocked, cpu/simple), every preset x 2, 4 Mandelbrot x 2,
    // 1 deep view x 2, 2 precisions x (smooth + Julia) x 2.
    let presets = wavebrot::sim::wave::scene::PRESETS.len();
    assert_eq!(checks.len(), 6 + 2 * presets + 8 + 2 + 8, "{text}");
    for line in &checks {
        assert!(line.starts_with("FAIL "), "the fault was not caught: {line}");
    }
    // Without the fault the same run passes: the failures above are the fault's.
    let out = wavebrot().args(["verify", "--quick", "--backend", "cpu1", "--backend", "cpu"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("Check result: OK!"), "{text}");
    assert!(!text.contains("FAIL"), "{text}");
}

#[test]
fn verify_passes_on_the_cpu() {
    wavebrot()
        .args(["verify", "--backend", "cpu"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Check result: OK!"));
}

#[test]
fn bench_quick_writes_json_records() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    wavebrot()
        .args(["bench", "mandelbrot", "--quick", "--backend", "cpu"])
        .arg("--json")
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("Check result: OK!"));
    let records: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let records = records.as_array().unwrap();
    assert!(!records.is_empty());
    // The to-file case (2048² with --quick): the counts' bytes and the rate they reached the file at.
    let (to_file, records): (Vec<_>, Vec<_>) = records.iter().partition(|r| r["kernel"] == "mandelbrot_to_file");
    assert_eq!(to_file.len(), 1, "{to_file:?}");
    assert_eq!(to_file[0]["file_bytes"], 2048 * 2048 * 4);
    assert!(to_file[0]["file_gbps"].as_f64().is_some_and(|g| g > 0.0), "{}", to_file[0]);
    for r in records {
        for key in
            ["kernel", "backend", "device", "seconds", "giter_per_s", "mismatch_frac", "width", "height", "iters"]
        {
            assert!(r.get(key).is_some(), "record lacks {key}: {r}");
        }
        assert_eq!(r["mismatch_frac"], 0.0);
    }
}

#[test]
fn unavailable_backend_named_explicitly_exits_1_with_reason() {
    // CI has no CUDA; where CUDA exists this case is covered by tests/kernels/cuda.rs instead.
    let info = wavebrot().arg("info").output().unwrap();
    let text = String::from_utf8_lossy(&info.stdout);
    if text.lines().any(|l| l.starts_with("cuda") && l.contains("unavailable")) {
        fails(&["render", "wave", "--nx", "10", "--ny", "10", "--backend", "cuda"], 1, "cuda unavailable");
    } else {
        common::skip(common::Need::NoCuda, "CUDA is available here: the unavailable path is not reached");
    }
}

#[test]
fn huge_pixels_get_no_false_precision_note_and_overflowing_views_are_refused() {
    // Pixels 1.3e297 wide along x: nothing is too small for f64 here.
    let out = wavebrot()
        .args(["render", "mandelbrot", "--bounds=-1e300,1e300,-1,1", "--width", "64", "--height", "32"])
        .args(["--backend", "cpu1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("resolve") && !err.contains("--precision"), "false precision note: {err}");
    // A view far from the set: every pixel escapes at once, and the note says so.
    let out = wavebrot()
        .args(["render", "mandelbrot", "--bounds=1e300,2e300,-1,1", "--width", "64", "--height", "32"])
        .args(["--backend", "cpu1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("every pixel escaped at the first iteration") && !err.contains("resolve"), "{err}");
    // A really deep zoom still gets the note.
    let out = wavebrot()
        .args(["render", "mandelbrot", "--bounds=-0.75,-0.7499999999999999,0.1,0.1000000000000001"])
        .args(["--width", "64", "--height", "32", "--backend", "cpu1"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("smaller than f64 can resolve"));
    fails(&["render", "mandelbrot", "--bounds=-1e308,1e308,-1,1"], 2, "wider than f64 can hold");
    fails(&["render", "mandelbrot", "--bounds=-1e300,1e300,-1,1", "--precision", "f32"], 2, "beyond f32's range");
}

/// `bench --variant` times each wave kernel variant of a backend that has several, and says in
/// the table and the JSON which one ran; a backend with one kernel (the CPU) runs its own.
#[test]
fn bench_variants_are_timed_and_named() {
    let info = wavebrot().arg("info").output().unwrap();
    let text = String::from_utf8_lossy(&info.stdout);
    let wgpu_variants = text.lines().any(|l| l.contains("wave variants (bench --variant): blocked, simple"));
    let wgpu_here = text.lines().any(|l| l.starts_with("wgpu") && l.contains("available:"));
    assert_eq!(wgpu_variants, wgpu_here, "info must list wgpu's wave variants:\n{text}");
    let mut backends = vec!["--backend", "cpu"];
    if wgpu_here {
        backends.extend(["--backend", "wgpu"]);
    } else {
        common::skip(common::Need::Wgpu, "no wgpu adapter (wavebrot info): the wgpu half did not run");
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let out = wavebrot()
        .args(["bench", "wave", "--quick", "--variant", "simple", "--variant", "blocked"])
        .args(&backends)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "bench failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let records: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let seed_case = |backend: &str| -> Vec<String> {
        records
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["kernel"] == "wave" && r["backend"] == backend && r["nx"] == 1000)
            .map(|r| r["variant"].as_str().unwrap_or("none").to_owned())
            .collect()
    };
    let mut cpu = seed_case("cpu");
    cpu.sort();
    assert_eq!(cpu, vec!["blocked", "simple"], "both cpu variants timed:\n{stdout}");
    assert!(stdout.contains("cpu/simple") && stdout.contains("cpu/blocked"), "{stdout}");
    if wgpu_here {
        let mut v = seed_case("wgpu");
        v.sort();
        assert_eq!(v, vec!["blocked", "simple"], "both wgpu variants timed:\n{stdout}");
        assert!(stdout.contains("wgpu/simple") && stdout.contains("wgpu/blocked"), "{stdout}");
    }
}

#[test]
fn render_wave_runs_presets_and_scene_files() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("f.npy");
    wavebrot()
        .args(["render", "wave", "--preset", "double-slit", "--nx", "160", "--ny", "120", "--tmax", "40"])
        .args(["--freq", "0.3", "--backend", "cpu"])
        .arg("--npy")
        .arg(&npy)
        .assert()
        .success();
    let (f, shape) = read_npy::<f32>(&npy).unwrap();
    assert_eq!(shape, [160, 120]);
    assert!(f.iter().any(|&v| v != 0.0));
    // The seed preset is today's default run, bit for bit.
    let seed = dir.path().join("seed.npy");
    wavebrot()
        .args(["render", "wave", "--preset", "seed", "--nx", "37", "--ny", "53", "--tmax", "300", "--backend", "cpu1"])
        .arg("--npy")
        .arg(&seed)
        .assert()
        .success();
    let (want, _) =
        read_npy::<f32>(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/wave_37x53_t300.npy")))
            .unwrap();
    assert_eq!(read_npy::<f32>(&seed).unwrap().0, want);
    // A scene file, its tmax used when no --tmax is given.
    let scene = dir.path().join("s.toml");
    std::fs::write(&scene, "nx = 30\nny = 20\ntmax = 7\nboundary = \"absorbing\"\n[[source]]\nkind = \"pulse\"\nx = 10\ny = 10\nfreq = 0.5\n")
        .unwrap();
    let out = wavebrot().args(["render", "wave", "--backend", "cpu", "--scene"]).arg(&scene).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tmax=7"));
}

#[test]
fn scenes_lists_every_preset() {
    let out = wavebrot().arg("scenes").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "point",
        "seed",
        "two-sources",
        "single-slit",
        "double-slit",
        "grating",
        "reflection",
        "refraction",
        "lens",
        "plane-wave",
    ] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name} missing from {text}");
    }
}

#[test]
fn bad_scenes_and_presets_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let point = "[[source]]\nkind = \"point\"\nx = 10\ny = 10\nfreq = 0.2\n";
    let cases = [
        ("unknown.toml", format!("nx = 40\nny = 30\ncolour = 1\n{point}"), "unknown field `colour`"),
        (
            "outside.toml",
            "nx = 40\nny = 30\n[[wall]]\nx0 = 0\ny0 = 0\nx1 = 40\ny1 = 3\n".to_owned(),
            "wall 0: (x1=40, y1=3) is outside the 40x30 grid",
        ),
        (
            "source.toml",
            "nx = 40\nny = 30\n[[source]]\nkind = \"point\"\nx = 50\ny = 3\nfreq = 0.2\n".to_owned(),
            "source 0: (x=50, y=3) is outside the 40x30 grid",
        ),
        (
            "onwall.toml",
            format!("nx = 40\nny = 30\n{point}[[wall]]\nx0 = 8\ny0 = 0\nx1 = 12\ny1 = 29\n"),
            "source 0 lies on wall 0",
        ),
        (
            "c2.toml",
            format!(
                "nx = 40\nny = 30\n{point}[[medium]]\nshape = \"rect\"\nx0 = 1\ny0 = 1\nx1 = 5\ny1 = 5\nc2 = 0.7\n"
            ),
            "medium 0: c2 0.7 is above the 2D stability limit 0.5",
        ),
        (
            "boundary.toml",
            format!("nx = 40\nny = 30\nboundary = \"sticky\"\n{point}"),
            "boundary: unknown value \"sticky\" (reflecting, absorbing, matched or mur)",
        ),
        ("broken.toml", "nx = 40\nny = \n".to_owned(), "broken.toml"),
    ];
    for (name, text, needle) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap();
        fails(&["render", "wave", "--backend", "cpu", "--scene", p], 2, needle);
        fails(&["render", "wave", "--backend", "cpu", "--scene", p], 2, name);
    }
    fails(&["render", "wave", "--preset", "nope"], 2, "unknown preset `nope`");
    fails(&["render", "wave", "--scene", "/nonexistent/scene.toml"], 2, "/nonexistent/scene.toml");
    fails(&["render", "wave", "--preset", "point", "--nx", "5"], 2, "too small for boundary absorbing");
}

#[test]
fn gui_refuses_a_bad_location_before_any_window_opens() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "re = \"-0.5\"\nim = \"zero\"\nzoom = \"1\"\niters = 10\n").unwrap();
    for path in [bad, dir.path().join("missing.toml")] {
        let out = wavebrot().args(["gui", "--location"]).arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    }
}

#[test]
fn gui_refuses_a_bad_share_link_before_any_window_opens() {
    for (link, says) in [
        ("https://example.org/wavebrot/#v=1&wave=nope", "unknown preset `nope`"),
        ("#v=1&re=-0.75&im=0.1&zoom=100&iters=1000000000", "iters"),
        ("#v=9&wave=lens", "newer wavebrot"),
        ("https://example.org/", "not a wavebrot link"),
    ] {
        let out = wavebrot().args(["gui", "--link", link]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{link}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(says), "{link}: {stderr}");
    }
}

/// Frames of a GIF as the RGBA pictures a viewer shows, and its size.
fn gif_frames(path: &std::path::Path) -> (usize, usize, Vec<Vec<u8>>) {
    crate::gif_support::composited_frames(path)
}

#[test]
fn render_mandelbrot_gif_zooms_from_the_whole_set_to_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let gif = dir.path().join("zoom.gif");
    let colours = ["--palette", "viridis", "--smooth", "--scale", "log"];
    let out = wavebrot()
        .args(["render", "mandelbrot", "--center=-0.7436438870,0.1318259043", "--zoom", "1e20"])
        .args(["--width", "48", "--height", "32", "--iters", "400", "--backend", "cpu", "--gif-frames", "5"])
        .args(colours)
        .arg("--gif")
        .arg(&gif)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Zooms 1, 1e5, 1e10, 1e15, 1e20: the last two beyond f64, by perturbation.
    assert!(stderr.contains("5 frames from zoom 1 to 1e20 (2 by perturbation, on 1 reference orbit(s))"), "{stderr}");
    let (w, h, frames) = gif_frames(&gif);
    assert_eq!((w, h, frames.len()), (48, 32, 5));
    // The first frame is the whole set as `render --png` draws it with the same colours.
    let png = dir.path().join("first.png");
    wavebrot()
        .args(["render", "mandelbrot", "--center=-0.7436438870,0.1318259043", "--zoom", "1"])
        .args(["--width", "48", "--height", "32", "--iters", "400", "--backend", "cpu"])
        .args(colours)
        .arg("--png")
        .arg(&png)
        .assert()
        .success();
    let want = image::open(&png).unwrap().to_rgba8().into_raw();
    let differ = frames[0].chunks_exact(4).zip(want.chunks_exact(4)).filter(|(a, b)| a[..3] != b[..3]).count();
    assert_eq!(differ, 0, "{differ} of {} pixels of the first frame differ from the PNG", w * h);
    assert_ne!(frames[0], frames[4], "the movie moves");
}

#[test]
fn render_mandelbrot_gif_needs_a_view() {
    let dir = tempfile::tempdir().unwrap();
    let out = wavebrot().args(["render", "mandelbrot", "--gif"]).arg(dir.path().join("z.gif")).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--gif needs the view"), "{stderr}");
    assert!(!dir.path().join("z.gif").exists());
}

/// The share of `hot`'s brightness range (R + G + B from 10 to 765) that a PNG's pixels span.
fn brightness_spread(png: &std::path::Path) -> f64 {
    let img = image::open(png).unwrap().to_rgba8();
    let sums = img.pixels().map(|p| u32::from(p.0[0]) + u32::from(p.0[1]) + u32::from(p.0[2]));
    let (lo, hi) = sums.fold((u32::MAX, 0), |(lo, hi), s| (lo.min(s), hi.max(s)));
    f64::from(hi.saturating_sub(lo)) / 755.0
}

#[test]
fn a_deep_location_renders_with_its_own_range_of_colours_by_default() {
    // rust-fractal's 5e113: counts between about 22 000 and 23 000 of 35 494, one flat orange
    // over 0..iters.
    let dir = tempfile::tempdir().unwrap();
    let loc = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/locations/rfc-5e113.toml");
    let render = |name: &str, extra: &[&str]| {
        let png = dir.path().join(name);
        wavebrot()
            .args(["render", "mandelbrot", "--location", loc, "--width", "40", "--height", "24", "--backend", "cpu"])
            .args(extra)
            .arg("--png")
            .arg(&png)
            .assert()
            .success();
        brightness_spread(&png)
    };
    let auto = render("auto.png", &[]);
    let full = render("full.png", &["--colour-range", "full"]);
    println!("rfc-5e113 at 40x24: brightness spread {auto:.3} by default, {full:.3} with --colour-range full");
    // Measured: the default spans the whole palette (1.000); the seed's range a sliver of it.
    assert!(auto >= 0.9, "the default colour range spans only {auto:.3} of the palette");
    assert!(full < 0.2, "--colour-range full spans {full:.3}: the measure cannot see a flat picture");
    fails(&["render", "mandelbrot", "--colour-range", "wide"], 2, "wide");
}

#[test]
fn the_interior_colour_flag_paints_the_set_and_refuses_bad_colours() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("i.png");
    let npy = dir.path().join("i.npy");
    wavebrot()
        .args(["render", "mandelbrot", "--width", "48", "--height", "32", "--iters", "40", "--backend", "cpu"])
        .args(["--interior-colour", "#0a14c8", "--png"])
        .arg(&png)
        .arg("--npy")
        .arg(&npy)
        .assert()
        .success();
    let (counts, _) = read_npy::<i32>(&npy).unwrap();
    let img = image::open(&png).unwrap().to_rgba8();
    let mut inside = 0;
    for (x, y, p) in img.enumerate_pixels() {
        let c = counts[(31 - y as usize) * 48 + x as usize];
        assert_eq!(c >= 40, p.0 == [10, 20, 200, 255], "pixel ({x}, {y}): count {c}, colour {:?}", p.0);
        inside += usize::from(c >= 40);
    }
    assert!(inside > 100, "the view holds the set: {inside} interior pixels");
    fails(&["render", "mandelbrot", "--interior-colour", "green"], 2, "'green' is not a colour");
    fails(&["render", "mandelbrot", "--interior-colour", "12345g"], 2, "'12345g' is not a colour");
}

#[test]
fn distance_colouring_and_light_keep_the_counts_and_refuse_bad_values() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let (png, npy) = (dir.path().join(format!("{name}.png")), dir.path().join(format!("{name}.npy")));
        wavebrot()
            .args(["render", "mandelbrot", "--width", "64", "--height", "48", "--iters", "200", "--backend", "cpu"])
            .args(["--bounds=-0.77,-0.73,0.08,0.11"])
            .args(extra)
            .arg("--png")
            .arg(&png)
            .arg("--npy")
            .arg(&npy)
            .assert()
            .success();
        (read_npy::<i32>(&npy).unwrap().0, image::open(&png).unwrap().to_rgba8())
    };
    let (plain_counts, plain) = run("plain", &["--smooth"]);
    let (counts, lit) = run("lit", &["--smooth", "--colour", "distance", "--light", "135,45"]);
    assert_eq!(counts, plain_counts, "--npy holds the rule's counts whatever the colouring");
    let mut differ = 0;
    for (x, y, p) in lit.enumerate_pixels() {
        let inside = counts[(47 - y as usize) * 64 + x as usize] >= 200;
        if inside {
            assert_eq!(p, plain.get_pixel(x, y), "pixel ({x}, {y}) inside the set changed");
        } else {
            differ += usize::from(p != plain.get_pixel(x, y));
        }
    }
    assert!(differ > 500, "only {differ} outside pixels changed colour");
    fails(&["render", "mandelbrot", "--light", "135"], 2, "'135' is not a light");
    fails(&["render", "mandelbrot", "--light", "10,95"], 2, "elevation 95");
    fails(&["render", "mandelbrot", "--colour", "glow"], 2, "glow");
    // `render julia` colours by distance too (its picture: tests/kernels/julia_distance.rs), and
    // refuses a bad light as `render mandelbrot` does.
    fails(&["render", "julia", "--c=0,1", "--light", "10,95"], 2, "elevation 95");
    wavebrot()
        .args(["render", "julia", "--c=0,1", "--width", "16", "--height", "16", "--colour", "distance", "--png"])
        .arg(dir.path().join("julia.png"))
        .assert()
        .success();
}
