//! Share links: round trips of what a user shares, and the untrusted links a tab must survive.

use proptest::prelude::*;

use super::*;
use crate::sim::fractal::bundled;

const BASE: &str = "https://example.org/wavebrot/index.html";

fn round_trip(link: &Link) -> Link {
    let url = link.url(BASE).expect("a link can be made");
    assert!(url.starts_with(&format!("{BASE}#v=1&")), "{url}");
    Link::parse(&url).expect("the link it made reads back")
}

#[test]
fn a_preset_a_scene_and_a_location_come_back_as_they_were() {
    let preset = Link::Preset("double-slit".to_owned());
    assert_eq!(round_trip(&preset), preset);
    // A scene the user changed: another grid, a source moved, a description with signs a URL
    // must escape (& # = % + spaces, quotes, a newline, non-ASCII).
    let mut s = scene::preset("double-slit").unwrap().resized(300, 200);
    s.description = "two slits & a \"screen\" # 50% = more + ünïcode\nsecond line".to_owned();
    let scene = Link::Scene(Box::new(s));
    assert_eq!(round_trip(&scene), scene);
    // Every bundled location, with its thousands of centre digits (1e1086) and colours.
    for name in ["rfc-1e1086", "seahorse-twilight", "spiral-at-i-1e320"] {
        let loc = bundled::find(name).unwrap().location().unwrap();
        let link = Link::Location(loc);
        assert_eq!(round_trip(&link), link, "{name}");
    }
}

#[test]
fn a_location_link_keeps_the_centres_digits_readable() {
    let loc = bundled::find("seahorse-twilight").unwrap().location().unwrap();
    let url = Link::Location(loc.clone()).url(BASE).unwrap();
    assert!(url.contains(&format!("re={}&im={}", loc.re, loc.im)), "{url}");
}

#[test]
fn a_link_is_read_from_a_whole_url_or_its_fragment() {
    let want = Link::Preset("lens".to_owned());
    for text in ["https://x.org/a/#v=1&wave=lens", "#v=1&wave=lens", "v=1&wave=lens", "  v=1&wave=lens\n"] {
        assert_eq!(Link::parse(text).unwrap(), want, "{text:?}");
    }
}

/// Each refusal is one line naming what is wrong, and comes at once (no work is started).
#[test]
fn untrusted_links_are_refused_in_one_line() {
    let huge_grid = "nx = 65536\nny = 65536\n[[source]]\nkind = \"point\"\nx = 10\ny = 10\n";
    let million_digits = format!("v=1&re=0.{}&im=0&zoom=1", "1".repeat(1_000_000));
    let cases: Vec<(String, &str)> = vec![
        ("v=1&re=-0.75&im=0.1&zoom=100&iters=1000000000".to_owned(), "iters"),
        ("v=1&re=-0.75&im=0.1&zoom=100&iters=many".to_owned(), "iters"),
        ("v=1&re=-0.75&im=0.1&zoom=100&iters=0".to_owned(), "iters"),
        (format!("v=1&scene={}", utf8_percent_encode(huge_grid, VALUE)), "scene"),
        (million_digits, "too long"),
        (format!("v=1&re=0.{}&im=0&zoom=1", "1".repeat(MAX_LINK_DIGITS + 1)), "re"),
        ("v=1&re=abc&im=0&zoom=1".to_owned(), "location"),
        ("v=1&re=0&zoom=1".to_owned(), "im"),
        ("v=1&wave=no-such-preset".to_owned(), "wave"),
        ("v=1&scene=nx%20%3D".to_owned(), "scene"),
        ("v=1&re=0&im=0&zoom=1&colour=palette%3D%22nope%22".to_owned(), "colour"),
        ("v=2&wave=lens".to_owned(), "newer"),
        ("wave=lens".to_owned(), "not a wavebrot link"),
        ("https://example.org/".to_owned(), "not a wavebrot link"),
        ("v=1&re=%FF%FE&im=0&zoom=1".to_owned(), "UTF-8"),
    ];
    for (text, says) in cases {
        let t0 = web_time::Instant::now();
        let e = Link::parse(&text).expect_err(&text[..text.len().min(80)]).to_string();
        assert!(t0.elapsed().as_secs_f64() < 5.0, "{says}: took {:?}", t0.elapsed());
        assert!(e.contains(says), "{says}: {e}");
        assert!(!e.contains('\n'), "{says}: more than one line: {e}");
    }
}

#[test]
fn a_link_too_long_for_a_url_says_so_instead_of_cutting() {
    let mut s = scene::preset("point").unwrap();
    s.description = "a very long description ".repeat(2000);
    let e = Link::Scene(Box::new(s)).url(BASE).unwrap_err();
    assert!(matches!(e, LinkError::TooLong { chars } if chars > MAX_LINK_CHARS), "{e}");
    assert!(e.to_string().contains("too long to share"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Whatever a link holds, reading it ends with a link or an error, never a panic.
    #[test]
    fn any_text_reads_without_panicking(text in ".{0,400}") {
        let _ = Link::parse(&text);
        let _ = Link::parse(&format!("v=1&{text}"));
    }

    /// Link-shaped texts with arbitrary keys and values: never a panic.
    #[test]
    fn any_key_and_value_read_without_panicking(
        pairs in proptest::collection::vec(("(v|re|im|zoom|iters|colour|name|wave|scene|x)", ".{0,40}"), 0..6),
    ) {
        let text: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={}", utf8_percent_encode(v, VALUE))).collect();
        let _ = Link::parse(&format!("v=1&{}", text.join("&")));
    }

    /// Any centre, zoom and iterations a user could be at come back digit for digit.
    #[test]
    fn any_location_round_trips(
        re in -2.0f64..2.0, im in -2.0f64..2.0, digits in 0usize..60, exp in 0u32..2000, iters in 1u32..MAX_LINK_ITERS,
        name in "[ -~]{0,20}",
    ) {
        let tail = "7".repeat(digits);
        let loc = Location {
            name,
            re: format!("{re}{tail}"),
            im: format!("{im:e}"),
            zoom: format!("1.5e{exp}"),
            iters,
            colour: None,
        };
        prop_assume!(loc.validate().is_ok());
        let link = Link::Location(loc);
        prop_assert_eq!(Link::parse(&link.url(BASE).unwrap()).unwrap(), link);
    }
}
