use super::*;
use crate::sim::fractal::deep::parse_decimal;

/// The point seahorse-valley dives go to (wavebrot zoom 1e17), as KF writes it: zoom doubled,
/// CRLF ends, colour keys after the location.
const SEAHORSE_KFR: &str = "Re: -0.743643887037158704752191506114774\r\nIm: 0.131825904205311970493132056385139\r\n\
                            Zoom: 2E17\r\nIterations: 8000\r\nIterDiv: 1.000000\r\nSmoothMethod: 1\r\nColorMethod: 0\r\n\
                            Version: 2\r\n";

#[test]
fn a_kfr_is_read_with_its_zoom_halved_and_its_other_keys_noted() {
    let got = parse_any(SEAHORSE_KFR).unwrap();
    assert_eq!(got.format, LocationFormat::Kfr);
    let l = &got.location;
    assert_eq!(l.re, "-0.743643887037158704752191506114774");
    assert_eq!(l.im, "0.131825904205311970493132056385139");
    assert_eq!(l.zoom, "1e17");
    assert_eq!(l.iters, 8000);
    assert_eq!(got.notes.len(), 1, "{:?}", got.notes);
    assert!(got.notes[0].contains("IterDiv, SmoothMethod, ColorMethod, Version"), "{:?}", got.notes);
    // The same place as wavebrot's own file of it.
    let own = "re = \"-0.743643887037158704752191506114774\"\nim = \"0.131825904205311970493132056385139\"\n\
               zoom = \"1e17\"\niters = 8000\n";
    let own = Location::from_toml(own).unwrap();
    assert_eq!((l.view(), l.iters), (own.view(), own.iters));
}

#[test]
fn a_kfr_round_trip_keeps_every_digit() {
    // rust-fractal-core's 4e533 and 1e1086 places (their digits, KF's key names).
    for (re, im, zoom, iters) in [
        (
            "-1.7691083304074772808923062435577784835600639118623400650778788340418929715985908084423460199088682",
            "-0.00902068805707261760036093598494762011230558467412386688972791981712911000027307032573465274857726",
            "4.00000000000E533",
            "120000",
        ),
        (
            "-1.76861049301467707450317565327022652023967790758866549483767725757530464097880847527463570736246404",
            "0.001266613503868717702066411192242601576193940560471409817185010171762524792588903616691501346028502",
            "1E1086",
            "600100",
        ),
        ("-0.75", "0.1", "3", "500"),
        ("0.25", "0", "1", "1"),
        ("-1.25", "0.5", "1.25", "7"),
        ("-0.5", "0", "9.99999999999999999999E300", "100"),
    ] {
        let kfr = format!("Re: {re}\r\nIm: {im}\r\nZoom: {zoom}\r\nIterations: {iters}\r\n");
        let loc = parse_any(&kfr).unwrap().location;
        assert_eq!(to_kfr(&loc), kfr, "wavebrot's zoom {}", loc.zoom);
        // And the .kfr wavebrot writes is read back to the same location.
        assert_eq!(parse_any(&to_kfr(&loc)).unwrap().location, loc);
    }
}

#[test]
fn zooms_are_halved_and_doubled_exactly_on_the_digits() {
    // Worked by hand: x/2 = 5x/10.
    for (theirs, ours) in [
        ("1E1086", "5e1085"),
        ("4.00000000000E533", "2.00000000000e533"),
        ("1.00E050", "5.00e49"),
        ("5.00E113", "2.50e113"),
        ("1.25", "0.625"),
        ("13", "6.5"),
        ("3", "1.5"),
        ("1", "0.5"),
        ("2", "1"),
        ("0.001", "0.0005"),
        ("7e-3", "3.5e-3"),
    ] {
        assert_eq!(half_decimal(theirs).as_deref(), Some(ours), "{theirs} / 2");
    }
    assert_eq!(double_decimal("5e1085").as_deref(), Some("1E1086"));
    assert_eq!(double_decimal("2.5e113").as_deref(), Some("5E113"));
    assert_eq!(double_decimal("1.5").as_deref(), Some("3"));
    assert_eq!(double_decimal("6.5").as_deref(), Some("13"));
    assert_eq!(double_decimal("2.00000000000e533").as_deref(), Some("4.00000000000E533"));
    assert_eq!(double_decimal("0.5").as_deref(), Some("1"));
    assert_eq!(double_decimal("1e17").as_deref(), Some("2E17"));
    assert_eq!(half_decimal("x"), None);
    // The value, checked in arbitrary precision: 2 * half == the original.
    for theirs in ["1E1086", "4.00000000000E533", "123.456e-7", "9.99999999999999999999"] {
        let half = half_decimal(theirs).unwrap();
        let (a, b) = (parse_decimal(&half, "h", 4096).unwrap(), parse_decimal(theirs, "t", 4096).unwrap());
        let two = astro_float::BigFloat::from_u64(2, 4096);
        assert_eq!(a.mul(&two, 4096, super::super::deep::RM), b, "{theirs}: 2 * {half}");
    }
}

#[test]
fn fraktaler3_and_rust_fractal_tomls_are_the_places_of_wavebrot_s_files() {
    // rust-fractal-core's file as published (benchmarks/1e50.toml), against wavebrot's copy.
    let theirs = parse_any(include_str!("../../../tests/data/locations/rust-fractal-1e50.toml")).unwrap();
    let ours = Location::from_toml(include_str!("../../../assets/locations/rfc-1e50.toml")).unwrap();
    assert_eq!(theirs.format, LocationFormat::RustFractal);
    assert_eq!((&theirs.location.re, &theirs.location.im, theirs.location.iters), (&ours.re, &ours.im, ours.iters));
    let zoom = |z: &str| parse_decimal(z, "zoom", 256).unwrap();
    assert_eq!(zoom(&theirs.location.zoom), zoom(&ours.zoom), "{} against {}", theirs.location.zoom, ours.zoom);
    // Fraktaler 3: [location] and [bailout], other sections noted.
    let f3 = "[location]\nreal = \"-0.743643887037158704752191506114774\"\nimag = \"0.131825904205311970493132056385139\"\n\
              zoom = \"2e17\"\n[bailout]\niterations = 8000\nmaximum_perturb_iterations = 1024\n[image]\nwidth = 1024\n";
    let got = parse_any(f3).unwrap();
    assert_eq!(got.format, LocationFormat::Fraktaler3);
    assert_eq!(got.location, parse_any(SEAHORSE_KFR).unwrap().location);
    assert!(got.notes[0].contains("bailout.maximum_perturb_iterations, image"), "{:?}", got.notes);
}

#[test]
fn bad_files_get_one_line_naming_the_key_or_the_formats() {
    let err = |t: &str| parse_any(t).unwrap_err().to_string();
    for text in ["hello world\n", "", "\u{1}\u{2}binary", "[colour]\npalette = \"Twilight\"\n"] {
        let e = err(text);
        assert!(e.starts_with("not a location: expected a wavebrot location"), "{text:?}: {e}");
    }
    assert_eq!(err("Re: -0.5\r\nIm: 0\r\nIterations: 100\r\n"), "Zoom: missing (a .kfr needs it)");
    assert!(err("Re: x\r\nIm: 0\r\nZoom: 1\r\nIterations: 100\r\n").starts_with("Re 'x' is not a decimal number"));
    assert!(err("Re: 0\r\nIm: 0\r\nZoom: 0\r\nIterations: 100\r\n").starts_with("Zoom '0' must be above 0"));
    assert_eq!(
        err("Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 5000000000\r\n"),
        "Iterations 5000000000 must be in 1..=2147483647"
    );
    assert_eq!(
        err("[location]\nreal = \"0\"\nimag = \"0\"\nzoom = \"1\"\n[bailout]\niterations = \"many\"\n"),
        "bailout.iterations: expected an integer, found string"
    );
    assert_eq!(err("real = \"0\"\nimag = \"0\"\nzoom = 1\niterations = 5\n"), "zoom: expected a string, found integer");
    // wavebrot's own files keep their messages (the key and the line).
    assert!(err("re = \"1\"\nim = \"0\"\nzoom = \"1\"\niters = 5\ncolor = 1\n").contains("color"));
    assert!(err("re = \"1\"\nim = \n").contains("line 2"), "{}", err("re = \"1\"\nim = \n"));
}
