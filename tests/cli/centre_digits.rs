//! A centre given to more digits than the zoom needs is the point meant, to its last digit
//! (issue 47): the 1e1086 benchmark's centre, within ~1e-1086 of a period-179 301 nucleus, seen
//! zoomed out to 1e660. There the centre pixel never escapes in 200 000 iterations — MPFR
//! (tools/deep_reference.py) at the bits of every digit of the centre says so, and says the same
//! 1 000 bits further — while the centre rounded to the zoom's bits (2 304, what wavebrot computed
//! the reference orbit at until then) escapes after 191 981 (MPFR) or 186 189 (wavebrot's cut
//! orbit). The pixel beside it, not so close to the nucleus, agrees at either precision.

use assert_cmd::Command;
use wavebrot::output::read_npy;

/// `(x, y, count)` of `pixels` of the 8x6 view, counted in MPFR at `bits` (`None`: the script's
/// own choice, which must cover the centre's digits), and the bits used.
fn mpfr(re: &str, im: &str, pixels: &[&str], bits: Option<usize>) -> (Vec<(usize, usize, i32)>, usize) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/deep_reference.py");
    let mut c = std::process::Command::new("python3");
    c.arg(&script)
        .args(["--re", re, "--im", im, "--zoom", "1e660", "--iters", "200000", "--width", "8", "--height", "6"])
        .arg("--pixels")
        .args(pixels);
    if let Some(b) = bits {
        c.args(["--bits", &b.to_string()]);
    }
    let out = c.output().unwrap_or_else(|e| panic!("the deep reference needs python3 with gmpy2: {e}"));
    assert!(
        out.status.success(),
        "tools/deep_reference.py failed (python3 with gmpy2: tools/requirements-ci.txt):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let counts = v["pixels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap() as usize, p[1].as_u64().unwrap() as usize, p[2].as_i64().unwrap() as i32))
        .collect();
    (counts, v["bits"].as_u64().unwrap() as usize)
}

fn benchmark_centre() -> (String, String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations/rfc-1e1086.toml");
    let loc = wavebrot::sim::fractal::deep::Location::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = loc.view();
    (v.re, v.im)
}

#[test]
fn the_centre_pixel_of_a_view_zoomed_out_from_a_nucleus_is_the_centre_s() {
    let (re, im) = benchmark_centre();
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("c.npy");
    let out = Command::cargo_bin("wavebrot")
        .unwrap()
        .args(["render", "mandelbrot", "--backend", "cpu", "--width", "8", "--height", "6", "--iters", "200000"])
        .arg(format!("--center={re},{im}"))
        .args(["--zoom", "1e660", "--npy"])
        .arg(&npy)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    // Every digit of the centre (1 104 after the point: 3 668 bits) and the guard bits.
    assert!(said.contains("3776 bits"), "the orbit is computed at the centre's digits: {said}");
    let counts: Vec<i32> = read_npy(&npy).unwrap().0;
    // Pixel (4, 3) of an even-sized picture is the centre itself (c = minx + 4·px, px = 2·half/8).
    let (want, bits) = mpfr(&re, &im, &["4,3", "3,2"], None);
    assert!(bits >= 3668 + 128, "the reference covers the centre's digits: {bits} bits");
    let (more, _) = mpfr(&re, &im, &["4,3", "3,2"], Some(bits + 1000));
    assert_eq!(want, more, "the MPFR reference is settled at {bits} bits: 1 000 more give the same counts");
    assert_eq!(want, [(4, 3, 200_000), (3, 2, 184_154)], "MPFR's counts (measured 2026-12-01)");
    for (x, y, c) in want {
        assert_eq!(counts[y * 8 + x], c, "pixel ({x}, {y}): wavebrot {} against MPFR {c}", counts[y * 8 + x]);
    }
    // The case is one: at the zoom's bits, MPFR's centre escapes (191 981, measured).
    let (rounded, _) = mpfr(&re, &im, &["4,3"], Some(2304));
    assert_ne!(rounded[0].2, 200_000, "the centre rounded to the zoom's bits escapes");
}
