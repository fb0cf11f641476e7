//! Progress of long renders on the command line: a bar with the time left on a terminal,
//! nothing extra when piped.

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use assert_cmd::Command;

fn wavebrot() -> Command {
    let mut c = Command::cargo_bin("wavebrot").unwrap();
    c.env("RUST_BACKTRACE", "0");
    c
}

/// A long render on the CPU shows its progress on a terminal (seen: a deep render printed
/// nothing for 37 s): run in a pseudo-terminal (`script`, util-linux's, in every Debian), the
/// bar names the rows, the share done and the time left; piped, it prints none of that.
#[test]
fn a_long_cpu_render_shows_a_progress_bar_with_the_time_left_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("wavebrot");
    let npy = dir.path().join("m.npy");
    // About 2 s on one core of the 2-core machine: long enough for the bar's first draws.
    let cmd = format!(
        "{} render mandelbrot --location seahorse-minibrot --width 160 --height 100 --backend cpu1 --npy {}",
        bin.display(),
        npy.display()
    );
    let out = std::process::Command::new("script").args(["-qec", &cmd, "/dev/null"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("rows [") && text.contains('%') && text.contains("left"),
        "no progress bar on a terminal:\n{text}"
    );
    // Piped: the timing line, no bar.
    let out = wavebrot()
        .args([
            "render",
            "mandelbrot",
            "--location",
            "seahorse-valley",
            "--width",
            "64",
            "--height",
            "40",
            "--backend",
            "cpu1",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !err.contains("rows [") && err.contains("64x40"), "{err}");
}
