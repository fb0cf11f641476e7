//! The CLI's deep-zoom flags (`wavebrot render mandelbrot`): `--center` and `--zoom` give the
//! seed's `--bounds`, a deep render writes its counts, the shipped locations render, save and read
//! back, and bad views, locations and deep input are refused in one line, warned about, or run
//! right, never silently wrong.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use assert_cmd::Command;

fn wavebrot() -> Command {
    Command::cargo_bin("wavebrot").unwrap()
}

#[test]
fn cli_centre_and_zoom_are_the_seed_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.npy"), dir.path().join("b.npy"));
    let base = ["render", "mandelbrot", "--width", "96", "--height", "64", "--iters", "50", "--backend", "cpu1"];
    wavebrot().args(base).args(["--center=-0.5,0", "--zoom", "1", "--npy"]).arg(&a).assert().success();
    wavebrot().args(base).args(["--bounds=-2,1,-1,1", "--npy"]).arg(&b).assert().success();
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn cli_deep_render_writes_counts() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("deep.npy");
    let out = wavebrot()
        .args(["render", "mandelbrot", "--width", "24", "--height", "16", "--iters", "500", "--backend", "cpu"])
        .args(["--center=3e-101,1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"])
        .args(["--zoom", "1e100", "--npy"])
        .arg(&npy)
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("zoom 1e100") && err.contains("perturbation f64"), "{err}");
    assert_eq!(std::fs::metadata(&npy).unwrap().len(), 128 + 24 * 16 * 4);
}

#[test]
fn cli_bad_views_exit_2_with_one_line() {
    let cases: [&[&str]; 6] = [
        &["--center=0,0", "--zoom", "0"],
        &["--center=0,0", "--zoom", "-1"],
        &["--center=a,b", "--zoom", "1"],
        &["--center=-0.5,0.5", "--zoom", "1e20", "--precision", "f64"],
        &["--center=-0.5,0.5", "--zoom", "1e8", "--precision", "f32"],
        &["--precision", "perturbation"],
    ];
    for args in cases {
        let out = wavebrot().args(["render", "mandelbrot", "--backend", "cpu1"]).args(args).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error:"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn cli_locations_render_save_and_refuse_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let locations = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations");
    let mut found = 0;
    for entry in std::fs::read_dir(&locations).unwrap() {
        let path = entry.unwrap().path();
        found += 1;
        let saved = dir.path().join("saved.toml");
        let mut original =
            wavebrot::sim::fractal::deep::Location::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // The benchmark locations' long orbits (up to 600 100 steps at 3712 bits) are tested
        // elsewhere; here 2000 iterations show the file renders and saves.
        let mut cmd = wavebrot();
        cmd.args(["render", "mandelbrot", "--width", "12", "--height", "8", "--backend", "cpu", "--location"])
            .arg(&path);
        if original.iters > 100_000 {
            cmd.args(["--iters", "2000"]);
            original.iters = 2000;
        }
        cmd.arg("--save-location").arg(&saved).assert().success();
        let again =
            wavebrot::sim::fractal::deep::Location::from_toml(&std::fs::read_to_string(&saved).unwrap()).unwrap();
        assert_eq!(original, again, "{}", path.display());
    }
    assert!(found >= 3, "{found} locations shipped");
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "re = \"-0.5\"\nim = \"zero\"\nzoom = \"1\"\niters = 10\n").unwrap();
    for file in [bad, dir.path().join("missing.toml")] {
        let out =
            wavebrot().args(["render", "mandelbrot", "--backend", "cpu1", "--location"]).arg(&file).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("location file"), "{err}");
    }
}

/// The counts of a `.npy` file `render --npy` wrote (`<i4`, header of 128 bytes).
fn npy_counts(path: &std::path::Path) -> Vec<i32> {
    let bytes = std::fs::read(path).unwrap();
    bytes[128..].chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

#[test]
fn cli_bad_deep_input_warns_refuses_or_runs_never_silently_wrong() {
    let render = ["render", "mandelbrot", "--backend", "cpu", "--width", "8", "--height", "4"];
    let one_line_exit_2 = |args: &[&str], env: Option<(&str, &str)>, needle: &str| {
        let mut cmd = wavebrot();
        cmd.args(render).args(args);
        if let Some((k, v)) = env {
            cmd.env(k, v);
        }
        let out = cmd.assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        let err: Vec<&str> = err.lines().filter(|l| !l.starts_with("backend:")).collect();
        assert_eq!(err.len(), 1, "{args:?}: {err:?}");
        assert!(err[0].starts_with("error:") && err[0].contains(needle), "{args:?}: {err:?}");
    };
    // A location cut short: rust-fractal's 4e533 with 23 digits instead of 530.
    let short = ["--center=-1.7691083304074772808923,-0.0090206880570726176", "--zoom", "2e533", "--iters", "50"];
    let out = wavebrot().args(render).args(short).assert().success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("warning:") && err.contains("23 significant digits"), "{err}");
    // The full location and exact short values are not warned about.
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations/rfc-4e533.toml");
    let out = wavebrot().args(render).args(["--iters", "50", "--location"]).arg(&full).assert().success();
    assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("warning"));
    let out = wavebrot().args(render).args(["--center=-2,0", "--zoom", "1e300", "--iters", "50"]).assert().success();
    assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("warning"));
    // Absurd zooms: beyond 1e1000000 refused; 1e100000 runs, and right (inside: iters; c near 3: 0).
    one_line_exit_2(&["--center=0,0", "--zoom", "1e2000000"], None, "beyond the deepest");
    let dir = tempfile::tempdir().unwrap();
    for (centre, want) in [("--center=0,0", 100), ("--center=3,0", 0)] {
        let npy = dir.path().join("deep.npy");
        wavebrot()
            .args(render)
            .args([centre, "--zoom", "1e100000", "--iters", "100", "--npy"])
            .arg(&npy)
            .assert()
            .success();
        assert!(npy_counts(&npy).iter().all(|&c| c == want), "{centre} at 1e100000");
    }
    // Absurd iterations: refused by the flag's range, or by the memory the orbit would need.
    one_line_exit_2(&["--center=0,0", "--zoom", "1e20", "--iters", "1e10"], None, "--iters");
    one_line_exit_2(&["--center=0,0", "--zoom", "1e20", "--iters", "10000000000"], None, "--iters");
    one_line_exit_2(
        &["--center=0,0", "--zoom", "1e20", "--iters", "2000000000", "--precision", "perturbation"],
        Some(("WAVEBROT_MAX_ORBIT_STEPS", "1000")),
        "lower the iterations",
    );
    let file = dir.path().join("huge.toml");
    std::fs::write(&file, "re = \"0\"\nim = \"0\"\nzoom = \"1e20\"\niters = 10000000000\n").unwrap();
    let out = wavebrot().args(render).arg("--location").arg(&file).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
