//! `--location` with the community's files (Kalles Fraktaler `.kfr`, Fraktaler 3 and
//! rust-fractal TOML) and `--save-location FILE.kfr`: the same place gives the same counts as
//! wavebrot's own file, and a `.kfr` read and written again keeps every digit.

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::path::Path;

use assert_cmd::Command;
use wavebrot::output::read_npy;

/// The point seahorse-valley dives go to, at 1e17 (wavebrot's own file of it: [`own_file`]).
const RE: &str = "-0.743643887037158704752191506114774";
const IM: &str = "0.131825904205311970493132056385139";

/// wavebrot's own location file of the place, zoom 1e17, 8000 iterations, written into `dir`.
fn own_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("own.toml");
    std::fs::write(&path, format!("re = \"{RE}\"\nim = \"{IM}\"\nzoom = \"1e17\"\niters = 8000\n")).unwrap();
    path
}

fn wavebrot() -> Command {
    let mut c = Command::cargo_bin("wavebrot").unwrap();
    c.env("RUST_BACKTRACE", "0");
    c
}

/// `render mandelbrot --location FILE` at 48x27 on cpu1: the counts, and stderr.
fn counts_of(location: &Path, dir: &Path) -> (Vec<i32>, String) {
    let npy = dir.join("counts.npy");
    let out = wavebrot()
        .args(["render", "mandelbrot", "--width", "48", "--height", "27", "--backend", "cpu1", "--location"])
        .arg(location)
        .arg("--npy")
        .arg(&npy)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{}: {err}", location.display());
    let (counts, shape) = read_npy::<i32>(&npy).unwrap();
    assert_eq!(shape, [27, 48]);
    (counts, err)
}

#[test]
fn kfr_fraktaler3_and_rust_fractal_files_render_the_counts_of_wavebrot_s_own() {
    let dir = tempfile::tempdir().unwrap();
    let own = own_file(dir.path());
    let (want, _) = counts_of(&own, dir.path());
    let distinct = {
        let mut v = want.clone();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    assert!(distinct > 20, "the picture holds {distinct} distinct counts: too flat to compare");
    // Their zoom is 4/height: twice wavebrot's 1e17.
    let files = [
        ("place.kfr", format!("Re: {RE}\r\nIm: {IM}\r\nZoom: 2E17\r\nIterations: 8000\r\nColorMethod: 7\r\n")),
        (
            "place.f3.toml",
            format!(
                "[location]\nreal = \"{RE}\"\nimag = \"{IM}\"\nzoom = \"2e17\"\n[bailout]\niterations = 8000\n\
                 [render]\nfilename = \"x\"\n"
            ),
        ),
        ("place-rf.toml", format!("real = \"{RE}\"\nimag = \"{IM}\"\nzoom = \"2.00E17\"\niterations = 8000\n")),
    ];
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let (got, err) = counts_of(&path, dir.path());
        let differ = got.iter().zip(&want).filter(|(a, b)| a != b).count();
        assert_eq!(differ, 0, "{name}: {differ} of {} pixels differ from wavebrot's own file", want.len());
        if name != "place-rf.toml" {
            assert!(err.contains("note:") && err.contains("ignored"), "{name}: the unused keys are noted: {err}");
        }
    }
}

#[test]
fn a_kfr_read_and_saved_again_keeps_every_digit() {
    let dir = tempfile::tempdir().unwrap();
    // rust-fractal-core's 1e1086 centre (its digits), in KF's own layout.
    let kfr = "Re: -1.768610493014677074503175653270226520239677907588665494837677257575304640978808475274635707362\r\n\
               Im: 0.00126661350386871770206641119224260157619394056047140981718501017176252479258890361669150134\r\n\
               Zoom: 4.00000000000E533\r\nIterations: 1000\r\n";
    let (src, back) = (dir.path().join("in.kfr"), dir.path().join("out.kfr"));
    std::fs::write(&src, kfr).unwrap();
    // 4x4 pixels and 1000 iterations: the render is quick, the file is the point.
    let out = wavebrot()
        .args(["render", "mandelbrot", "--width", "4", "--height", "4", "--backend", "cpu1", "--location"])
        .arg(&src)
        .arg("--save-location")
        .arg(&back)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&back).unwrap(), kfr);
    // Saved as wavebrot's TOML, the zoom is half KF's, digit for digit.
    let toml = dir.path().join("out.toml");
    let out = wavebrot()
        .args(["render", "mandelbrot", "--width", "4", "--height", "4", "--backend", "cpu1", "--location"])
        .arg(&src)
        .arg("--save-location")
        .arg(&toml)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&toml).unwrap();
    assert!(text.contains("zoom = \"2.00000000000e533\""), "{text}");
}

#[test]
fn a_file_of_no_known_format_is_one_line_naming_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in
        [("notes.txt", &b"just some notes\n"[..]), ("image.kfr", &[0x89, b'P', b'N', b'G', 0, 0xff][..])]
    {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = wavebrot()
            .args(["render", "mandelbrot", "--width", "4", "--height", "4", "--location"])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
        assert!(err.contains(name) && err.contains("not a location: expected a wavebrot location"), "{name}: {err}");
        assert!(err.contains(".kfr") && err.contains("Fraktaler 3"), "{name}: {err}");
    }
    // A .kfr without its zoom names the key.
    let path = dir.path().join("short.kfr");
    std::fs::write(&path, "Re: -0.5\r\nIm: 0\r\nIterations: 100\r\n").unwrap();
    let out = wavebrot().args(["render", "mandelbrot", "--location"]).arg(&path).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("Zoom: missing"), "{err}");
}

/// A bundled location by name from a folder that holds no such file (as an installed binary is
/// run): the same counts as the file's path; `.toml` may be named too; `wavebrot locations` lists it.
#[test]
fn a_bundled_location_is_found_by_name_from_any_folder() {
    let dir = tempfile::tempdir().unwrap();
    let by_path =
        counts_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations/seahorse-valley.toml"), dir.path()).0;
    let run_in = |name: &str| {
        let npy = dir.path().join("by-name.npy");
        let out = wavebrot()
            .current_dir(dir.path())
            .args(["render", "mandelbrot", "--width", "48", "--height", "27", "--backend", "cpu1", "--location", name])
            .arg("--npy")
            .arg(&npy)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        (read_npy::<i32>(&npy).unwrap().0, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    for name in ["seahorse-valley", "seahorse-valley.toml"] {
        let (counts, err) = run_in(name);
        assert_eq!(counts, by_path, "{name}");
        assert!(!err.contains("note: "), "{name}: no file shadows it, nothing to note: {err}");
    }
    let listed = wavebrot().current_dir(dir.path()).arg("locations").output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    for name in ["seahorse-minibrot", "rfc-1e50", "rfc-1e1086", "spiral-at-i-1e320"] {
        assert!(listed.lines().any(|l| l.starts_with(&format!("{name} "))), "{name} not listed:\n{listed}");
    }
}

/// A file in the folder with a bundled location's name wins, and one line says so; a name that is
/// neither exits 2 in one line that lists the bundled names.
#[test]
fn a_file_shadows_a_bundled_name_and_a_wrong_name_lists_the_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations/seahorse-valley.toml"),
        dir.path().join("rfc-1e50"),
    )
    .unwrap();
    let out = wavebrot()
        .current_dir(dir.path())
        .args(["render", "mandelbrot", "--width", "16", "--height", "9", "--backend", "cpu1", "--location", "rfc-1e50"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("bundled location")).collect();
    assert_eq!(
        notes,
        ["note: rfc-1e50 is a file here and also a bundled location (rfc-1e50): the file is used"],
        "{err}"
    );
    assert!(err.contains("iters=500"), "the file's 500 iterations, not the benchmark's: {err}");

    let out = wavebrot()
        .current_dir(dir.path())
        .args(["render", "mandelbrot", "--width", "16", "--height", "9", "--location", "rfc-1e51"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("rfc-1e51") && err.contains("rfc-1e50") && err.contains("seahorse-valley"), "{err}");
}

/// Every bundled location (the app's Famous places among them) shows structure at its own
/// iterations and colours: not one colour, not mostly interior. (The old "Seahorse valley
/// minibrot" at 1e17 lay inside its minibrot: every pixel interior.)
#[test]
fn every_bundled_location_shows_structure() {
    let dir = tempfile::tempdir().unwrap();
    for b in wavebrot::sim::fractal::bundled::BUNDLED {
        let iters = b.location().unwrap().iters;
        let (npy, png) = (dir.path().join("c.npy"), dir.path().join("c.png"));
        let out = wavebrot()
            .args(["render", "mandelbrot", "--width", "96", "--height", "64", "--backend", "cpu", "--location", b.name])
            .arg("--npy")
            .arg(&npy)
            .arg("--png")
            .arg(&png)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {}", b.name, String::from_utf8_lossy(&out.stderr));
        let (counts, _) = read_npy::<i32>(&npy).unwrap();
        let interior = counts.iter().filter(|&&c| c == i32::try_from(iters).unwrap()).count();
        println!("{}: {interior} of {} pixels interior", b.name, counts.len());
        // Measured at 96x64: at most 1165 of 6144 interior (seahorse-valley, 19%; the minibrot
        // 655); the old minibrot bookmark at 1e17: 6133 or more (its counts sum to 49.12 M of
        // the 49.15 M that all-interior would). Half allowed.
        assert!(interior * 2 < counts.len(), "{}: {interior} of {} pixels interior", b.name, counts.len());
        let picture = image::open(&png).unwrap().to_rgba8();
        let mut colours: Vec<[u8; 4]> = picture.pixels().map(|p| p.0).collect();
        colours.sort_unstable();
        colours.dedup();
        // Measured: 25 colours at the fewest (spiral-at-i-1e320), 254 at the most; 16 asked.
        println!("{}: {} colours", b.name, colours.len());
        assert!(colours.len() >= 16, "{}: {} colours: no structure", b.name, colours.len());
    }
}

/// Every file in `assets/locations/` is built into the binary (`sim::fractal::bundled::BUNDLED`),
/// and nothing else is.
#[test]
fn every_shipped_location_file_is_bundled() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".toml").map(str::to_owned))
        .collect();
    files.sort();
    let mut names: Vec<String> = wavebrot::sim::fractal::bundled::BUNDLED.iter().map(|b| b.name.to_owned()).collect();
    names.sort();
    assert_eq!(files, names, "a file in assets/locations/ not in BUNDLED, or the other way");
}
