//! Custom palettes of colour stops in location files: `render mandelbrot --location` colours
//! with them (and `--palette` overrides them); bad stops are one line, exit 2.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wavebrot"))
}

/// The whole set at 20 iterations with `colour` (TOML lines of the `[colour]` table).
fn location(dir: &Path, colour: &str) -> PathBuf {
    let path = dir.join("place.toml");
    let text = format!(
        "re = \"-0.5\"\nim = \"0\"\nzoom = \"1\"\niters = 20\n[colour]\npalette = \"Custom\"\nsmooth = false\nscale = \"Linear\"\noffset = 0.0\ncycles = 1.0\n{colour}\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn render(dir: &Path, loc: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(bin())
        .args(["render", "mandelbrot", "--backend", "cpu", "--width", "96", "--height", "64", "--location"])
        .arg(loc)
        .args(extra)
        .arg("--png")
        .arg(dir.join("out.png"))
        .output()
        .unwrap()
}

const RED_TO_BLUE: &str = r##"stops = [{ at = 0.0, colour = "ff0000" }, { at = 1.0, colour = "#0000FF" }]"##;

#[test]
fn a_location_with_a_custom_palette_renders_in_its_colours() {
    let dir = tempfile::tempdir().unwrap();
    let loc = location(dir.path(), RED_TO_BLUE);
    let out = render(dir.path(), &loc, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let img = image::open(dir.path().join("out.png")).unwrap().to_rgba8();
    // Red to blue: no green anywhere, red + blue = 255 (each entry rounds one channel's share
    // and the other's is its complement: 255 - round(255 f) + round(255 f)).
    // The set takes the interior colour, chosen apart from both ends (red, blue): white.
    let off: Vec<_> = img
        .pixels()
        .filter(|p| p.0 != [255, 255, 255, 255] && (p[1] != 0 || u16::from(p[0]) + u16::from(p[2]) != 255))
        .collect();
    assert!(off.is_empty(), "{} pixels are neither on the red-blue ramp nor white, e.g. {:?}", off.len(), off.first());
    // The corner escapes at once (count 0: entry 0, red); the set is white.
    assert_eq!(img.get_pixel(0, 0).0, [255, 0, 0, 255]);
    assert_eq!(img.get_pixel(64, 32).0, [255, 255, 255, 255], "c = 0 (pixel 64, 32 of -2.0..1.0) is in the set");
    // --palette wins over the location's.
    let out = render(dir.path(), &loc, &["--palette", "hot"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let hot = image::open(dir.path().join("out.png")).unwrap().to_rgba8();
    assert_eq!(hot.get_pixel(64, 32).0, [255, 255, 255, 255], "hot's white inside");
}

#[test]
fn bad_palettes_are_one_line_and_exit_2() {
    for (stops, says) in [
        (
            r#"stops = [{ at = 0.0, colour = "ff0000" }, { at = 0.7, colour = "00ff00" }, { at = 0.3, colour = "0000ff" }]"#,
            "stop 3",
        ),
        (r#"stops = [{ at = 0.0, colour = "ff0000" }, { at = 1.5, colour = "0000ff" }]"#, "[0, 1]"),
        (r#"stops = [{ at = 0.0, colour = "red" }, { at = 1.0, colour = "0000ff" }]"#, "'red' is not a colour"),
        (r#"stops = [{ at = 0.0, colour = "ff0000" }]"#, "give 2 to 8"),
        ("", "palette custom needs its stops"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let loc = location(dir.path(), stops);
        let out = render(dir.path(), &loc, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stops}: {err}");
        assert!(err.contains(says), "{stops} should say {says}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{stops}: {err}");
        assert!(!dir.path().join("out.png").exists(), "nothing written");
    }
}
