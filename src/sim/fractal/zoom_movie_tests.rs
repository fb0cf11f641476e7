use super::*;
use crate::sim::fractal::deep::{ReferenceChoice, View, perturb_row};

#[test]
fn frames_zoom_from_one_to_the_view_and_each_has_its_two_keyframes() {
    // rust-fractal's 1e50 location (wavebrot's zoom 5e49), 30 s at 60 fps.
    let s = Schedule::new(49.0 + 5f64.log10(), 1800);
    assert_eq!(s.last_keyframe(), 166, "log2(5e49) = {:.3}", s.zoom_log2);
    assert_eq!(s.frame_zoom_log2(0), 0.0);
    assert_eq!(s.frame_zoom_log2(1799), s.zoom_log2);
    assert_eq!(s.pair(1799), FramePair { deep: 0, scale: 1.0 });
    let first = s.pair(0);
    assert_eq!(first.deep, 165);
    // Keyframe 165 is at zoom 2^(L-165) = 2^0.096: 1.07 times the first frame's.
    assert!((first.scale - (s.zoom_log2 - 165.0).exp2()).abs() < 1e-12, "{first:?}");
    let mut covered = 0;
    for k in (0..=s.last_keyframe()).rev() {
        let f = s.frames_of(k);
        assert_eq!(f.start, covered, "keyframe {k}'s frames follow the previous ones");
        covered = f.end;
        for j in f {
            let p = s.pair(j);
            assert_eq!(p.deep, k);
            assert!((1.0..2.0).contains(&p.scale), "frame {j}: {p:?}");
        }
    }
    assert_eq!(covered, 1800, "every frame belongs to exactly one keyframe");
}

#[test]
fn a_power_of_two_zoom_starts_and_ends_on_keyframes() {
    let s = Schedule::new(1024f64.log10(), 11);
    assert_eq!(s.last_keyframe(), 10);
    // Frame j is at zoom 2^j: keyframe 10 - j exactly.
    for j in 0..11 {
        let p = s.pair(j);
        assert_eq!(p.deep, 10 - j, "frame {j}");
        assert!((p.scale - 1.0).abs() < 1e-9, "frame {j}: {p:?}");
    }
    // One frame: the view itself; a zoom of 1: one keyframe.
    assert_eq!(Schedule::new(3.0, 1).pair(0), FramePair { deep: 0, scale: 1.0 });
    let one = Schedule::new(0.0, 10);
    assert_eq!(one.last_keyframe(), 0);
    assert_eq!(one.pair(5), FramePair { deep: 0, scale: 1.0 });
    assert_eq!(one.frames_of(0), 0..10);
}

#[test]
fn shallow_keyframes_get_fewer_iterations_and_the_view_its_own() {
    let s = Schedule::new(49.7, 600);
    let n = 263_010;
    assert_eq!(keyframe_iters(&s, 0, n), n);
    let all: Vec<u32> = (0..=s.last_keyframe()).map(|k| keyframe_iters(&s, k, n)).collect();
    assert!(all.windows(2).all(|w| w[0] >= w[1]), "fewer iterations as keyframes get shallower");
    // At zoom ~1: 100 / (100 + 150 * 49.7) of the view's = 3487.
    let last = *all.last().unwrap_or(&0);
    assert!((3400..3600).contains(&last), "{last}");
    // Few iterations asked: never below min(100, n), never above n.
    assert_eq!(keyframe_iters(&s, 160, 50), 50);
    assert_eq!(keyframe_iters(&s, 160, 1000), 100);
}

/// A field that varies smoothly over the plane: the value at offset `(dx, dy)` from the centre,
/// in units of the frame's height at zoom 1.
fn field(dx: f64, dy: f64) -> f64 {
    40.0 + 30.0 * (3.0 * dx).sin() * (2.0 * dy).cos() + 10.0 * (dx * dx + dy * dy).sqrt()
}

/// A keyframe of `field` at zoom `2^zoom_log2`: pixel (x, y) at offset `(x - w/2, y - h/2)`
/// pixels of `2/(zoom h)`.
fn field_keyframe(w: usize, h: usize, zoom_log2: f64) -> Keyframe {
    let px = 2.0 / (zoom_log2.exp2() * h as f64);
    let mut smooth = vec![0.0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            smooth[y * w + x] = field((x as f64 - w as f64 / 2.0) * px, (y as f64 - h as f64 / 2.0) * px) as f32;
        }
    }
    Keyframe { iters: 1000, counts: smooth.iter().map(|&v| v.floor() as i32).collect(), smooth: Some(smooth), de: None }
}

/// The largest difference between the resampled frame at `log2` zoom `z` and `field` itself.
fn worst_error(pair: FramePair, w: usize, h: usize, deep: &Keyframe, shallow: &Keyframe, z: f64) -> f64 {
    let (mut counts, mut smooth) = (vec![0; w * h], vec![0.0f32; w * h]);
    resample(
        pair,
        deep,
        Some(shallow),
        (w, h),
        FrameBuffers { counts: &mut counts, smooth: Some(&mut smooth), de: None },
    );
    let px = 2.0 / (z.exp2() * h as f64);
    let mut worst: f64 = 0.0;
    for y in 0..h {
        for x in 0..w {
            let want = field((x as f64 - w as f64 / 2.0) * px, (y as f64 - h as f64 / 2.0) * px);
            worst = worst.max((f64::from(smooth[y * w + x]) - want).abs());
        }
    }
    worst
}

#[test]
fn a_frame_between_keyframes_is_the_field_at_its_own_zoom() {
    let (w, h) = (96, 64);
    // Keyframes at zoom 2^3 and 2^2; a frame at 2^2.4: the deeper one is 2^0.6 = 1.52 times it.
    let (deep, shallow) = (field_keyframe(w, h, 3.0), field_keyframe(w, h, 2.0));
    let pair = FramePair { deep: 0, scale: 0.6f64.exp2() };
    let err = worst_error(pair, w, h, &deep, &shallow, 2.4);
    // Bilinear interpolation of a smooth field (values 0 to ~90) from both keyframes: measured
    // 0.0024; budget 0.01.
    assert!(err < 0.01, "resampled frame differs from the field by up to {err:.4}");
    // The check catches a wrong geometry: the frame resampled as if it were at zoom 2^2.5.
    let wrong = FramePair { deep: 0, scale: 0.5f64.exp2() };
    let err = worst_error(wrong, w, h, &deep, &shallow, 2.4);
    assert!(err > 0.5, "a frame at the wrong zoom was not caught: {err:.4}");
}

#[test]
fn at_scale_one_a_frame_is_its_keyframe_exactly() {
    let (w, h) = (40, 30);
    let mut k = field_keyframe(w, h, 1.0);
    k.counts[17] = 1000; // one pixel inside the set
    let mut counts = vec![0; w * h];
    let mut smooth = vec![0.0f32; w * h];
    let out = FrameBuffers { counts: &mut counts, smooth: Some(&mut smooth), de: None };
    resample(FramePair { deep: 0, scale: 1.0 }, &k, None, (w, h), out);
    assert_eq!(counts, k.counts);
    let want = k.smooth.unwrap_or_default();
    assert!(smooth.iter().zip(&want).enumerate().all(|(i, (a, b))| i == 17 || a == b));
}

#[test]
fn a_shallower_job_is_the_view_zoomed_out_about_its_centre() {
    // Seahorse valley at 1e15 and 2^-5 of it: the grid of the shared orbit against the grid
    // of a job prepared for that view, and their counts.
    let (w, h, iters) = (48, 32, 3000);
    let centre = "-0.743643887037151,0.131825904205330";
    let job = DeepJob::prepare_with(&View::parse(centre, "1e15").unwrap(), w, h, iters, ReferenceChoice::Centre, None)
        .unwrap();
    let zoomed_out = shallower_job(&job, 5, iters);
    let fresh =
        DeepJob::prepare_with(&View::parse(centre, "3.125e13").unwrap(), w, h, iters, ReferenceChoice::Centre, None)
            .unwrap();
    let scale = |g: &crate::sim::fractal::pixel_grid::PixelGrid| (g.exp as f64).exp2();
    let (a, b) = (zoomed_out.grid, fresh.grid);
    let px = b.bx * scale(&b);
    for (what, u, v) in [("ax", a.ax * scale(&a), b.ax * scale(&b)), ("ay", a.ay * scale(&a), b.ay * scale(&b))] {
        // The first pixel's offset agrees to a millionth of a pixel (measured: 3e-15 and 0 pixels).
        assert!((u - v).abs() < 1e-6 * px, "{what}: {u:e} against {v:e} (pixel {px:e})");
    }
    assert!((a.bx * scale(&a) - px).abs() < 1e-12 * px && (a.by * scale(&a) - b.by * scale(&b)).abs() < 1e-12 * px);
    let render = |j: &DeepJob| {
        let d = j.deltas_f64();
        let mut counts = vec![0; w * h];
        for (y, row) in counts.chunks_exact_mut(w).enumerate() {
            perturb_row::<f64>(j, &d, y, row);
        }
        counts
    };
    let (x, y) = (render(&zoomed_out), render(&fresh));
    let bad = crate::sim::fractal::mandelbrot::mismatch_frac(&x, &y);
    // Same orbit, grids equal to a millionth of a pixel: measured 0 of 1536 counts differ; budget 0.2%.
    assert!(bad <= 2e-3, "{:.3}% of the counts differ", bad * 100.0);
    assert!((zoomed_out.zoom_log10 - fresh.zoom_log10).abs() < 1e-12);
}

/// A keyframe of `field` at zoom `2^zoom_log2` with a disc of pixels inside the set (count
/// `iters`) off its centre, and distance estimates (a distance and a unit normal varying over
/// the picture), as a distance-coloured movie's keyframes carry them.
fn keyframe_with_inside(w: usize, h: usize, zoom_log2: f64) -> Keyframe {
    let mut k = field_keyframe(w, h, zoom_log2);
    let px = 2.0 / (zoom_log2.exp2() * h as f64);
    let mut de = vec![0.0f32; w * h * DE_VALUES];
    for y in 0..h {
        for x in 0..w {
            let (dx, dy) = ((x as f64 - w as f64 / 2.0) * px, (y as f64 - h as f64 / 2.0) * px);
            let i = y * w + x;
            if (dx - 0.05).hypot(dy + 0.03) < 0.04 {
                k.counts[i] = k.iters as i32;
            }
            let a = 5.0 * dx + 3.0 * dy;
            de[DE_VALUES * i] = (field(dx, dy) / 7.0) as f32;
            de[DE_VALUES * i + 1] = a.cos() as f32;
            de[DE_VALUES * i + 2] = a.sin() as f32;
        }
    }
    k.de = Some(de);
    k
}

/// The first pixel where two resampled frames differ in any bit, as `(pixel, what)`.
fn first_difference(
    a: &(Vec<i32>, Vec<f32>, Vec<f32>),
    b: &(Vec<i32>, Vec<f32>, Vec<f32>),
) -> Option<(usize, &'static str)> {
    if let Some(i) = a.0.iter().zip(&b.0).position(|(x, y)| x != y) {
        return Some((i, "count"));
    }
    if let Some(i) = a.1.iter().zip(&b.1).position(|(x, y)| x.to_bits() != y.to_bits()) {
        return Some((i, "smooth value"));
    }
    a.2.iter().zip(&b.2).position(|(x, y)| x.to_bits() != y.to_bits()).map(|i| (i / DE_VALUES, "distance estimate"))
}

/// A frame resampled by `f` (`resample` or `resample_fast`): counts, smooth values, distances.
fn frame_by(
    f: fn(FramePair, &Keyframe, Option<&Keyframe>, (usize, usize), FrameBuffers<'_>),
    pair: FramePair,
    deep: &Keyframe,
    shallow: Option<&Keyframe>,
    (w, h): (usize, usize),
) -> (Vec<i32>, Vec<f32>, Vec<f32>) {
    let (mut counts, mut smooth, mut de) = (vec![0; w * h], vec![0.0f32; w * h], vec![0.0f32; w * h * DE_VALUES]);
    let with_de = deep.de.is_some();
    let out = FrameBuffers { counts: &mut counts, smooth: Some(&mut smooth), de: with_de.then_some(&mut de[..]) };
    f(pair, deep, shallow, (w, h), out);
    (counts, smooth, de)
}

#[test]
fn the_movies_fast_resampling_is_the_reference_bit_for_bit() {
    // An odd size (no symmetry to hide a wrong column), keyframes at zoom 2^3 and 2^2 with
    // pixels inside the set, with and without distances, and scales across 1..2 (the blend
    // band is widest near 2), plus scale 1 with no shallower keyframe (a movie's first frame).
    let (w, h) = (97, 61);
    let (deep_de, shallow_de) = (keyframe_with_inside(w, h, 3.0), keyframe_with_inside(w, h, 2.0));
    let plain = |k: &Keyframe| Keyframe { de: None, ..k.clone() };
    let (deep, shallow) = (plain(&deep_de), plain(&shallow_de));
    let mut frames = 0;
    for (d, s) in [(&deep, &shallow), (&deep_de, &shallow_de)] {
        for scale in [1.0, 1.01, 1.3, 0.6f64.exp2(), 1.77, 1.999] {
            let pair = FramePair { deep: 0, scale };
            let want = frame_by(resample, pair, d, Some(s), (w, h));
            let got = frame_by(resample_fast, pair, d, Some(s), (w, h));
            assert_eq!(first_difference(&want, &got), None, "scale {scale}, distances {}", d.de.is_some());
            frames += 1;
        }
        let pair = FramePair { deep: 0, scale: 1.0 };
        let want = frame_by(resample, pair, d, None, (w, h));
        assert_eq!(first_difference(&want, &frame_by(resample_fast, pair, d, None, (w, h))), None);
    }
    assert_eq!(frames, 12);
    // The frames hold what the comparison must see: inside pixels, both keyframes' values
    // blended (a smooth value that is neither keyframe's), distances.
    let (counts, _, de) = frame_by(resample, FramePair { deep: 0, scale: 1.77 }, &deep_de, Some(&shallow_de), (w, h));
    assert!(counts.contains(&1000) && de.iter().any(|&v| v != 0.0));
    // The check catches one bit: a single smooth value one ulp off, a normal's sign flipped.
    let want = frame_by(resample, FramePair { deep: 0, scale: 1.3 }, &deep_de, Some(&shallow_de), (w, h));
    let mut off = want.clone();
    off.1[1234] = f32::from_bits(off.1[1234].to_bits() + 1);
    assert_eq!(first_difference(&want, &off), Some((1234, "smooth value")));
    let mut off = want.clone();
    off.2[3 * 555 + 2] = -off.2[3 * 555 + 2];
    assert_eq!(first_difference(&want, &off), Some((555, "distance estimate")));
}
