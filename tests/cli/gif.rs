//! `render wave --gif FILE --every N`: the recording decodes with one frame every N steps, one
//! pixel per cell, every pixel a `hot` colour; and it matches the PNG of the last step.

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use assert_cmd::Command;

#[test]
fn gif_has_one_frame_every_n_steps_of_the_grid_size() {
    let dir = tempfile::tempdir().unwrap();
    let (gif_path, png_path) = (dir.path().join("w.gif"), dir.path().join("w.png"));
    Command::cargo_bin("wavebrot")
        .unwrap()
        .args(["render", "wave", "--nx", "64", "--ny", "48", "--tmax", "100", "--every", "20", "--backend", "cpu"])
        .arg("--gif")
        .arg(&gif_path)
        .arg("--png")
        .arg(&png_path)
        .assert()
        .success();
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts.read_info(std::fs::File::open(&gif_path).unwrap()).unwrap();
    assert_eq!((dec.width(), dec.height()), (64, 48));
    let mut frames = Vec::new();
    while let Some(f) = dec.read_next_frame().unwrap() {
        assert_eq!((f.width, f.height), (64, 48));
        frames.push(f.buffer.to_vec());
    }
    assert_eq!(frames.len(), 5);
    // The last frame is the picture of step 100: the PNG's pixels exactly.
    let png = image::open(&png_path).unwrap().to_rgba8();
    assert_eq!(frames.last().unwrap(), &png.into_raw());
    // The wave moves: frames differ.
    assert_ne!(frames[0], frames[4]);
}

#[test]
fn every_without_an_output_is_a_usage_error() {
    let out = Command::cargo_bin("wavebrot")
        .unwrap()
        .args(["render", "wave", "--nx", "8", "--ny", "8", "--every", "3", "--backend", "cpu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--every"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
