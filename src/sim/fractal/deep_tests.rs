//! Tests of `deep.rs`: views, jobs and the perturbation rows against the direct picture.

use super::*;

#[test]
fn seed_view_is_the_seed_bounds() {
    let v = View::parse("-0.5,0", "1").unwrap();
    assert_eq!(v.bounds_f64(3, 2).unwrap(), Bounds::SEED);
    assert_eq!(v.bounds_f64(1536, 1024).unwrap(), Bounds::SEED);
}

#[test]
fn bad_views_are_refused() {
    assert!(View::parse("a,b", "1").unwrap_err().to_string().contains("'a'"));
    assert!(View::parse("0,0", "0").unwrap_err().to_string().contains("above 0"));
    assert!(View::parse("0,0", "-1").unwrap_err().to_string().contains("above 0"));
    assert!(View::parse("0", "1").unwrap_err().to_string().contains("expected 2"));
    assert!(View::parse("0,0", "1e").is_err());
    assert!(View::parse("0,0", ".").is_err());
    assert!(View::parse("1.5e-3,-.25", "1e320").is_ok());
}

#[test]
fn conversions_keep_deep_exponents() {
    let v = parse_decimal("3e-400", "x", 128).unwrap();
    let (m, e) = mant_exp(&v);
    assert!((0.5..1.0).contains(&m), "{m}");
    assert!((log10_abs(&v) + 399.52).abs() < 0.01, "{}", log10_abs(&v));
    assert_eq!(to_f64(&parse_decimal("-0.75", "x", 128).unwrap()), -0.75);
    assert_eq!(to_f64(&v), 0.0);
    let _ = e;
    assert_eq!(format_zoom(123.0), "1e123");
    assert_eq!(format_zoom(0.0), "1");
}

#[test]
fn locations_round_trip_and_refuse_bad_files() {
    let loc = Location {
        name: "x".into(),
        re: "-0.75".into(),
        im: "0.1".into(),
        zoom: "1e300".into(),
        iters: 500,
        colour: None,
    };
    assert_eq!(Location::from_toml(&loc.to_toml()).unwrap(), loc);
    let colour = crate::sim::colour::palette::ColourSettings {
        palette: crate::sim::colour::palette::Palette::Twilight,
        smooth: true,
        offset: 0.25,
        cycles: 4.0,
        ..Default::default()
    };
    let with = Location { colour: Some(colour), ..loc.clone() };
    assert_eq!(Location::from_toml(&with.to_toml()).unwrap(), with);
    let bad = with.to_toml().replace("cycles = 4.0", "cycles = 0.5");
    assert!(Location::from_toml(&bad).unwrap_err().to_string().contains("cycles"), "{bad}");
    let e = Location::from_toml("re = \"1\"\nim = \"0\"\nzoom = \"1\"\n").unwrap_err().to_string();
    assert!(e.contains("iters"), "{e}");
    let e = Location::from_toml("re = \"1\"\nim = \"x\"\nzoom = \"1\"\niters = 5\n").unwrap_err().to_string();
    // The key, not words: `im 'x' is not a decimal number ...`.
    assert!(e.starts_with("im 'x' "), "{e}");
    let e = Location::from_toml("re = \"1\"\nim = \"0\"\nzoom = \"-1\"\niters = 5\n").unwrap_err().to_string();
    assert!(e.starts_with("zoom '-1' must be above 0"), "{e}");
    let e = Location::from_toml("re = \"1\"\nim = \"0\"\nzoom = \"1\"\niters = \"many\"\n").unwrap_err().to_string();
    assert!(e.starts_with("iters: ") && e.ends_with("(line 4)"), "{e}");
    let e =
        Location::from_toml("re = \"1\"\nim = \"0\"\nzoom = \"1\"\niters = 5\ncolor = 1\n").unwrap_err().to_string();
    assert!(e.contains("color"), "{e}");
    assert!(!Location::from_toml("re = ").unwrap_err().to_string().contains('\n'));
}

#[test]
fn arith_is_chosen_and_checked() {
    let shallow = View::parse("-0.5,0", "1").unwrap();
    assert_eq!(shallow.auto_arith(96, 64, 100), Arith::F64);
    let deep = View::parse("-0.5,0.5", "1e20").unwrap();
    assert_eq!(deep.auto_arith(96, 64, 100), Arith::Perturbation);
    let e = deep.check_arith(Arith::F64, 96, 64, 100).unwrap_err().to_string();
    assert!(e.contains("--precision perturbation"), "{e}");
    let mid = View::parse("-0.5,0.5", "1e8").unwrap();
    let e = mid.check_arith(Arith::F32, 96, 64, 100).unwrap_err().to_string();
    assert!(e.contains("f64"), "{e}");
    assert!(mid.check_arith(Arith::F64, 96, 64, 100).is_ok());
}
#[test]
fn shallow_perturbation_matches_the_direct_rule() {
    // Seahorse valley at 1e6: f64 perturbation against the direct arbitrary-precision rule.
    let view = View::parse("-0.743643887037151,0.131825904205330", "1e6").unwrap();
    let job = DeepJob::prepare(&view, 40, 30, 2000).unwrap();
    let direct = reference_big(&view, 40, 30, 2000).unwrap();
    for label in ["f64", "f32"] {
        let mut counts = vec![0; 1200];
        for (y, row) in counts.chunks_exact_mut(40).enumerate() {
            match label {
                "f64" => perturb_row(&job, &job.deltas_f64(), y, row),
                _ => perturb_row(&job, &job.deltas_f32(), y, row),
            };
        }
        let bad = crate::sim::fractal::mandelbrot::mismatch_frac(&counts, &direct);
        // f64: measured 1 pixel of 1200 (0.083%, within F64_DEEP_MISMATCH's 0.1%). f32 deltas
        // carry 24 bits: over 2000 chaotic steps some counts drift (measured: 6.7%, within 10%).
        let budget = if label == "f64" {
            crate::sim::fractal::perturb::F64_DEEP_MISMATCH
        } else {
            crate::sim::fractal::perturb::F32_DEEP_MISMATCH
        };
        assert!(bad <= budget, "{label}: {:.3}% differ (budget {}%)", bad * 100.0, budget * 100.0);
    }
}

#[test]
fn the_bits_cover_every_digit_of_the_centre() {
    let v = |re: &str, im: &str, zoom: &str| View { re: re.into(), im: im.into(), zoom: zoom.into() };
    // The last digit's place in bits: 1e-2 -> 7, 3e-5 (as 0.00003 or 3e-5) -> 17, whole numbers 0.
    assert_eq!(v("-0.75", "0.1", "1").centre_bits(), 7);
    assert_eq!(v("0.00003", "3e-5", "1").centre_bits(), 17);
    assert_eq!(v("-2", "0", "1").centre_bits(), 0);
    // A short centre: the zoom decides, as before (1e15 at 1080 pixels: 50 + 10 + 4 + 64 -> 128).
    assert_eq!(v("-0.75", "0.1", "1e15").bits(1080), 128);
    // 40 digits at zoom 1e15: the digits decide (133 + 64 -> 256).
    let long = "-0.7436438870371587048504001099486706807400";
    assert_eq!(v(long, "0.1", "1e15").bits(1080), 256);
}
