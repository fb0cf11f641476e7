//! `wavebrot find-minibrot` against an independent reference: `tools/minibrot_reference.py`
//! finds the period (ball method) and the nucleus (Newton's method with the full-precision
//! derivative) in mpmath alone, and checks wavebrot's nucleus (how far one more Newton step
//! would move it, against the minibrot's size). Needs python3 with mpmath
//! (tools/requirements-ci.txt); a missing one fails the test saying so.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use assert_cmd::Command;
use serde_json::Value;

fn wavebrot() -> Command {
    let mut c = Command::cargo_bin("wavebrot").unwrap();
    c.env("RUST_BACKTRACE", "0");
    c
}

/// `tools/minibrot_reference.py` with `args`, its JSON.
fn mpmath(args: &[&str]) -> Value {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/minibrot_reference.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("the independent minibrot reference needs python3 with mpmath: {e}"));
    assert!(
        out.status.success(),
        "tools/minibrot_reference.py {args:?} failed (python3 with mpmath: pip install -r tools/requirements-ci.txt):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `log10` of a decimal string (`"1.23e-456"`).
fn log10_of(s: &str) -> f64 {
    let (m, e) = s.split_once('e').unwrap_or((s, "0"));
    m.parse::<f64>().unwrap().abs().log10() + e.parse::<f64>().unwrap()
}

/// Finds the minibrot of the view with both, and compares: the same period, sizes within 1%,
/// and wavebrot's nucleus within `2^-40` of its size of the true one (mpmath's Newton step
/// from it), and mpmath's nucleus equal to wavebrot's to the digits printed.
fn agrees(re: &str, im: &str, zoom: &str, iters: u32) {
    let (w, h) = ("1536", "1024");
    let out = wavebrot()
        .args(["find-minibrot", &format!("--center={re},{im}"), "--zoom", zoom, "--iters", &iters.to_string()])
        .args(["--width", w, "--height", h, "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "find-minibrot at {zoom}: {err}");
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    let theirs = mpmath(&[re, im, zoom, "--iters", &iters.to_string(), "--width", w, "--height", h]);
    let (period, their_period) = (ours["period"].as_u64().unwrap(), theirs["period"].as_u64().unwrap());
    let size = log10_of(ours["size"].as_str().unwrap());
    let their_size = log10_of(theirs["size"].as_str().unwrap());
    let (nre, nim) = (ours["re"].as_str().unwrap(), ours["im"].as_str().unwrap());
    let check = mpmath(&[nre, nim, zoom, "--check-period", &period.to_string()]);
    let step = check["step_log10"].as_f64().unwrap();
    println!(
        "zoom {zoom}: period {period} (mpmath {their_period}), size 1e{size:.3} (mpmath 1e{their_size:.3}); \
         mpmath's Newton step from wavebrot's nucleus 1e{step:.1}, {:.1} decades below the size; {} Newton steps \
         (mpmath {})",
        size - step,
        ours["newton_steps"],
        theirs["newton_steps"]
    );
    assert_eq!(period, their_period, "zoom {zoom}: period {period}, mpmath's ball method says {their_period}");
    // mathr's size estimate from the two nuclei: the same to f64's rounding over the period
    // (measured: equal to 4+ digits); 1% allowed.
    assert!((size - their_size).abs() < 0.0043, "zoom {zoom}: size 1e{size} against mpmath's 1e{their_size}");
    // wavebrot stops once its step is below 2^-64 of the size (19.3 decades); its own f64
    // derivative leaves the true remaining step at most a few digits above that: 2^-40
    // (12 decades) allowed.
    assert!(size - step > 12.0, "zoom {zoom}: wavebrot's nucleus is 1e{step} from the true one, its size 1e{size}");
}

#[test]
fn find_minibrot_agrees_with_mpmath_newton() {
    // The airship (period 3; at a zoom of 20 it is smaller than the view). (Seahorse valley at
    // 1e7 left this test: its lowest period, 78, is an atom larger than the view, which
    // find-minibrot no longer frames; the view is in the test below.)
    agrees("-1.75", "0.001", "20", 1000);
}

#[test]
fn find_minibrot_agrees_with_mpmath_at_2_5e113() {
    // rust-fractal's 5e113 location (period 11 380; mpmath takes ~16 s here).
    let loc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations/rfc-5e113.toml"),
    )
    .unwrap();
    let field = |k: &str| {
        let line = loc.lines().find(|l| l.starts_with(&format!("{k} ="))).unwrap();
        line.split('"').nth(1).unwrap().to_owned()
    };
    agrees(&field("re"), &field("im"), &field("zoom"), 35_494);
}

#[test]
fn find_minibrot_prints_text_and_refuses_bad_input() {
    let out = wavebrot().args(["find-minibrot", "--center=-1.75,0.001", "--zoom", "20"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("period 3") && text.contains("re = -1.7548776662466927"), "{text}");
    // Outside the set: the centre escapes before any ball holds 0.
    let out = wavebrot().args(["find-minibrot", "--center=0.5,0.5", "--zoom", "1e6"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains("no period found"), "{err}");
    // Bad input: one line, exit 2.
    for args in [["--center=1", "--zoom", "5"], ["--center=-1,0", "--zoom", "-3"], ["--center=x,0", "--zoom", "5"]] {
        let out = wavebrot().arg("find-minibrot").args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Where users are (a Famous place, a bookmark, a zoom from the whole set, the views):
/// each time an island — mathr's shape estimate, in mpmath, says cardioid — within two view
/// radii of the centre, framed deeper than the view (never a zoom out), its nucleus confirmed by
/// mpmath's Newton step from it. The views marked "seen" failed or framed a bulb before.
#[test]
fn find_minibrot_finds_an_island_where_users_are() {
    const S: (&str, &str) = ("-0.743643887037158704752191506114774", "0.131825904205311970493132056385139");
    let rfc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations/rfc-1e50.toml"),
    )
    .unwrap();
    let field =
        |k: &str| rfc.lines().find(|l| l.starts_with(&format!("{k} ="))).unwrap().split('"').nth(1).unwrap().to_owned();
    let (rre, rim) = (field("re"), field("im"));
    let views: [(&str, &str, &str, &str); 18] = [
        ("the whole set (seen: a bulb)", "-0.75", "0", "1"),
        ("Famous place: Seahorse valley (seen: failed)", "-0.7453", "0.1127", "300"),
        ("by the period-2 bulb (seen: a bulb, zoomed out)", "-0.79", "0.16", "602"),
        ("seahorse point at 100", S.0, S.1, "100"),
        ("seahorse point at 1e5", S.0, S.1, "1e5"),
        ("seahorse point at 1e10 (seen: failed)", S.0, S.1, "1e10"),
        ("seahorse point at 1e14", S.0, S.1, "1e14"),
        ("seahorse point at 1e17: the old bookmark (seen: failed)", S.0, S.1, "1e17"),
        ("elephant valley at 100", "0.2925", "0.0149", "100"),
        ("elephant valley at 1e4", "0.2925", "0.0149", "1e4"),
        ("near the needle", "-1.86", "0.002", "50"),
        ("the airship's neighbourhood", "-1.75", "0.001", "20"),
        ("a seahorse-valley dive at 1e7", "-0.7436438870371587", "0.1318259042053119", "1e7"),
        // Not tuned on (run once, as they came): the spiral at i's neighbourhood and the
        // rfc-1e50 bookmark's centre zoomed out.
        ("the spiral at i at 1e3", "0", "1", "1e3"),
        ("the spiral at i at 1e6", "0", "1", "1e6"),
        ("near the spiral at i at 1e4", "-0.1011", "0.9563", "1e4"),
        ("the rfc-1e50 centre at 1e8", &rre, &rim, "1e8"),
        ("the rfc-1e50 centre at 1e20", &rre, &rim, "1e20"),
    ];
    for (what, re, im, zoom) in views {
        let out = wavebrot()
            .args(["find-minibrot", &format!("--center={re},{im}"), "--zoom", zoom, "--json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{what}: {err}");
        let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
        let period = ours["period"].as_u64().unwrap();
        let (nre, nim) = (ours["re"].as_str().unwrap(), ours["im"].as_str().unwrap());
        let framing = log10_of(ours["zoom"].as_str().unwrap());
        let check = mpmath(&[nre, nim, zoom, "--check-period", &period.to_string(), "--from", re, im]);
        let size = log10_of(check["size"].as_str().unwrap());
        let (step, away) = (check["step_log10"].as_f64().unwrap(), check["distance_half_heights"].as_f64().unwrap());
        println!(
            "{what}: period {period}, size 1e{size:.2}, framed at zoom 1e{framing:.2} (view {zoom}), {away:.2} half-heights \
             from the centre, shape {:.3}{:+.3}i, mpmath's Newton step 1e{step:.1}",
            check["shape_re"], check["shape_im"]
        );
        assert!(check["cardioid"].as_bool().unwrap(), "{what}: period {period} is a disk (a bulb), not an island");
        assert!(framing > log10_of(zoom), "{what}: framing at 1e{framing:.2} zooms out of {zoom}");
        // Two radii of a 1536x1024 view: its half-diagonal is 1.8 half-heights.
        assert!(away < 2.0 * 1.81, "{what}: the nucleus is {away:.2} half-heights from the centre");
        assert!(size - step > 12.0, "{what}: mpmath moves wavebrot's nucleus 1e{step} (size 1e{size})");
    }
}
