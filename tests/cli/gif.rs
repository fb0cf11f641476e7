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
    let (w, h, frames) = crate::gif_support::composited_frames(&gif_path);
    assert_eq!((w, h), (64, 48));
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

/// Frames of `n x n` pixels: a ring of radius `r` growing by 3 pixels a frame, and a still one.
fn ring_frames(n: usize, count: usize) -> Vec<Vec<u8>> {
    let lut = &wavebrot::sim::colour::colormap::HOT_LUT;
    (0..count)
        .map(|k| {
            let r = 4.0 + 3.0 * k.min(count - 2) as f64;
            let mut rgba = Vec::with_capacity(n * n * 4);
            for y in 0..n {
                for x in 0..n {
                    let d = ((x as f64 - 40.0).powi(2) + (y as f64 - 30.0).powi(2)).sqrt();
                    let v = if (d - r).abs() < 2.0 { 255 } else { (x * 7 + y) % 40 };
                    rgba.extend_from_slice(&lut[v]);
                }
            }
            rgba
        })
        .collect()
}

#[test]
fn only_the_changed_rectangle_is_written_and_frames_decode_identical() {
    // The encoder writes each frame after the first as the rectangle that changed (a still frame:
    // one pixel), drawn over the one before: a viewer shows exactly the frames given.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.gif");
    let n = 96;
    let frames = ring_frames(n, 8);
    let written = wavebrot::output::write_hot_gif(&path, n, n, 4, |push| {
        for f in &frames {
            push(f)?;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(written, 8);
    let (w, h, got) = crate::gif_support::composited_frames(&path);
    assert_eq!((w, h, got.len()), (n, n, 8));
    for (k, (g, f)) in got.iter().zip(&frames).enumerate() {
        assert!(g == f, "frame {k} decodes differently from the picture given");
    }
    // The raw frames: the first whole, later ones the ring's bounding box, the still last one a pixel.
    let mut opts = ::gif::DecodeOptions::new();
    opts.set_color_output(::gif::ColorOutput::Indexed);
    let mut d = opts.read_info(std::fs::File::open(&path).unwrap()).unwrap();
    let mut sizes = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        sizes.push((f.width, f.height));
    }
    println!("frame rectangles: {sizes:?}");
    assert_eq!(sizes[0], (96, 96));
    assert!(
        sizes[1..7].iter().all(|&(fw, fh)| fw < 96 && fh < 96),
        "later frames are the changed rectangle: {sizes:?}"
    );
    assert_eq!(sizes[7], (1, 1), "a frame equal to the one before is one pixel");
}
