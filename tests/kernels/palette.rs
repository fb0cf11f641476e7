//! Palettes and scalings (`src/sim/palette.rs`, tables `src/sim/palette_tables.rs`): the seed's
//! colouring is unchanged, the tables hold matplotlib's published values, every scale is
//! monotone, offset and cycles wrap as documented.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use wavebrot::output::read_npy;
use wavebrot::sim::colour::colormap::{HOT_LUT, mandelbrot_rgba};
use wavebrot::sim::colour::palette::{ColourSettings, Colouring, Palette, Scale, colour_rgba};
use wavebrot::sim::fractal::mandelbrot::{self, MandelbrotParams};

#[test]
fn seed_settings_give_the_seed_picture() {
    let p = MandelbrotParams { width: 153, height: 102, iters: 20, ..MandelbrotParams::SEED };
    let (counts, _) = mandelbrot::reference(&p);
    let mut want = vec![0u8; p.pixels() * 4];
    mandelbrot_rgba(&counts, p.width, p.height, p.iters, &mut want);
    let mut got = vec![1u8; p.pixels() * 4];
    colour_rgba(&counts, None, p.width, p.height, p.iters, &ColourSettings::SEED, &mut got);
    assert!(got == want, "SEED colouring differs from mandelbrot_rgba");
    // Smooth values given but smooth off: still the seed's bytes.
    let smooth: Vec<f32> = counts.iter().map(|&c| c as f32 + 0.7).collect();
    colour_rgba(&counts, Some(&smooth), p.width, p.height, p.iters, &ColourSettings::SEED, &mut got);
    assert!(got == want, "smooth values changed the picture with smooth off");
}

#[test]
fn published_table_values() {
    // matplotlib: viridis(0) = #440154, viridis(1) = #fde725; magma(0) = #000004,
    // magma(1) = #fcfdbf; twilight(0) = #e2d9e2 (bytes by truncation of v*255).
    let v = Palette::Viridis.lut();
    assert_eq!(v[0], [68, 1, 84, 255]);
    assert_eq!(v[255], [253, 231, 36, 255]);
    // _viridis_data[128] = [0.127568, 0.566949, 0.550556]
    assert_eq!(v[128], [32, 144, 140, 255]);
    let m = Palette::Magma.lut();
    assert_eq!(m[0], [0, 0, 3, 255]);
    assert_eq!(m[255], [251, 252, 191, 255]);
    let t = Palette::Twilight.lut();
    assert_eq!(t.len(), 510);
    // _twilight_data[0] = [0.8857501584075443, 0.8500092494306783, 0.8879736506427196]
    assert_eq!(t[0], [225, 216, 226, 255]);
    // Cyclic: the two ends are within a few steps of each other, the middle far from both.
    let dist = |a: [u8; 4], b: [u8; 4]| (0..3).map(|i| i32::from(a[i]).abs_diff(i32::from(b[i]))).max().unwrap();
    assert!(dist(t[0], t[509]) <= 3, "twilight ends {:?} {:?}", t[0], t[509]);
    assert!(dist(t[0], t[255]) > 100, "twilight middle {:?}", t[255]);
    assert_eq!(Palette::Hot.lut(), &HOT_LUT[..]);
}

/// Every entry of every listed palette against matplotlib's own tables (`tests/data/palette_*`,
/// written by `tools/make_golden.py` with matplotlib): the float tables equal, value for value,
/// and the bytes equal `cmap(np.arange(N), bytes=True)`, all 256 (twilight: 510) entries.
#[test]
fn every_palette_entry_is_matplotlibs() {
    use wavebrot::sim::colour::palette_tables::{MAGMA, TWILIGHT, VIRIDIS};
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let tables: [(Palette, &str, &[[f64; 3]]); 3] = [
        (Palette::Viridis, "viridis", &VIRIDIS),
        (Palette::Magma, "magma", &MAGMA),
        (Palette::Twilight, "twilight", &TWILIGHT),
    ];
    for (palette, name, floats) in tables {
        let (want, shape) = read_npy::<f64>(&data.join(format!("palette_{name}_data.npy"))).unwrap();
        assert_eq!(shape, [floats.len() as u64, 3], "{name}: matplotlib's table has {shape:?} entries");
        let ours: Vec<f64> = floats.iter().flatten().copied().collect();
        if let Some(k) = (0..want.len()).find(|&k| ours[k].to_bits() != want[k].to_bits()) {
            panic!("{name}[{}][{}]: ours {} matplotlib's {}", k / 3, k % 3, ours[k], want[k]);
        }
        let (want, shape) = read_npy::<u8>(&data.join(format!("palette_{name}_lut.npy"))).unwrap();
        let lut = palette.lut();
        assert_eq!(shape, [lut.len() as u64, 4], "{name}");
        for (k, (got, want)) in lut.iter().zip(want.chunks(4)).enumerate() {
            assert_eq!(&got[..], want, "{name} entry {k}: ours {got:?}, matplotlib's {want:?}");
        }
    }
}

#[test]
fn every_scale_is_monotone_and_spans_the_palette() {
    let p = MandelbrotParams { width: 120, height: 80, iters: 500, ..MandelbrotParams::SEED };
    let (counts, _) = mandelbrot::reference(&p);
    for scale in Scale::ALL {
        let c = Colouring::new(&ColourSettings { scale, ..ColourSettings::SEED }, &counts, p.iters);
        let mut last = -1.0;
        for i in 0..=5000 {
            let v = f64::from(i) * 0.1;
            let t = c.scaled(v);
            assert!((0.0..=1.0).contains(&t), "{scale}: t({v}) = {t}");
            assert!(t >= last, "{scale}: t({v}) = {t} below t({}) = {last}", v - 0.1);
            last = t;
        }
        assert!(c.scaled(500.0) > 0.99, "{scale}: t(iters) = {}", c.scaled(500.0));
    }
    // Histogram: about half of the escaped pixels lie below the value at t = 0.5.
    let c = Colouring::new(&ColourSettings { scale: Scale::Histogram, ..ColourSettings::SEED }, &counts, p.iters);
    let escaped: Vec<i32> = counts.iter().copied().filter(|&k| k < 500).collect();
    let median = {
        let mut e = escaped.clone();
        e.sort_unstable();
        e[e.len() / 2]
    };
    let t = c.scaled(f64::from(median));
    assert!((0.2..=0.6).contains(&t), "histogram t at the median count {median}: {t}");
    // Log gives low counts more room than linear.
    let log = Colouring::new(&ColourSettings { scale: Scale::Log, ..ColourSettings::SEED }, &counts, p.iters);
    assert!(log.scaled(10.0) > 0.35, "log t(10) = {}", log.scaled(10.0));
}

#[test]
fn offset_and_cycles_wrap() {
    let s = ColourSettings { palette: Palette::Twilight, cycles: 4.0, offset: 0.25, ..ColourSettings::SEED };
    let c = Colouring::new(&s, &[], 100);
    // t = 0 → u = 0.25; t = 0.25 → u = fract(1.25) = 0.25; t = 0.125 → u = 0.75.
    assert_eq!(c.index(0.0), 127);
    assert_eq!(c.index(0.25), 127);
    assert_eq!(c.index(0.125), 382);
    // Interior pixels always take the interior colour, whatever the wrap: for twilight, whose
    // two ends are both pale, black (`ColourSettings::interior_rgb`), not its pale last entry.
    assert_eq!(c.colour(100, Some(3.0)), [0, 0, 0, 255]);
    // Without wrapping, positions clip as the seed's lut_index does.
    let seed = Colouring::new(&ColourSettings::SEED, &[], 100);
    assert_eq!(seed.index(1.5), 255);
    assert_eq!(seed.index(-0.5), 0);
    assert_eq!(seed.index(f64::NAN), 0);
}

#[test]
fn smooth_colouring_has_no_bands() {
    // Along a line crossing count bands, neighbouring colours of smooth viridis differ by at
    // most a couple of table steps; integer counts jump by whole bands.
    let iters = 50;
    let line: Vec<(u32, f32)> = (0..4000)
        .map(|i| mandelbrot::escape_smooth_f64(0.0, 0.0, 0.35 + f64::from(i) * 1.65 / 3999.0, 0.0, iters))
        .collect();
    let counts: Vec<i32> = line.iter().map(|&(k, _)| k as i32).collect();
    let smooth: Vec<f32> = line.iter().map(|&(_, s)| s).collect();
    let s = ColourSettings { palette: Palette::Viridis, smooth: true, scale: Scale::Log, ..ColourSettings::SEED };
    let c = Colouring::new(&s, &counts, iters);
    let idx = |v: f64| c.index(c.scaled(v)) as i64;
    let smooth_step = smooth.windows(2).map(|w| idx(f64::from(w[1])).abs_diff(idx(f64::from(w[0])))).max().unwrap();
    let count_step = counts.windows(2).map(|w| idx(f64::from(w[1])).abs_diff(idx(f64::from(w[0])))).max().unwrap();
    println!("largest step between neighbours: smooth {smooth_step} entries, counts {count_step}");
    assert!(smooth_step <= 3, "smooth colouring steps by {smooth_step} entries between neighbours");
    assert!(count_step >= 10, "integer counts step by only {count_step}");
}

/// The share of `hot`'s brightness range (R + G + B, from 10 at entry 0 to 765 at the last) that
/// the pixels of `rgba` span: 1 when the picture runs from black to white, near 0 when flat.
fn brightness_spread(rgba: &[u8]) -> f64 {
    let sums = rgba.chunks_exact(4).map(|p| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]));
    let (lo, hi) = sums.fold((u32::MAX, 0), |(lo, hi), s| (lo.min(s), hi.max(s)));
    let (first, last) = (HOT_LUT[0], HOT_LUT[255]);
    let full = |c: [u8; 4]| u32::from(c[0]) + u32::from(c[1]) + u32::from(c[2]);
    f64::from(hi.saturating_sub(lo)) / f64::from(full(last) - full(first))
}

#[test]
fn the_automatic_range_keeps_the_seed_colours_of_the_whole_set() {
    // The whole set's escaped counts start at 0 (the corners, |c| > 2), so the automatic range
    // is the seed's [0, iters] whatever the highest count (139 of 200 at 77x51): the same bytes
    // at the seed's view and sizes.
    for (w, h, iters) in [(1536, 1024, 20), (96, 64, 20), (153, 102, 20), (77, 51, 200)] {
        let p = MandelbrotParams { width: w, height: h, iters, ..MandelbrotParams::SEED };
        let (counts, _) = mandelbrot::reference(&p);
        let mut seed = vec![0u8; p.pixels() * 4];
        colour_rgba(&counts, None, w, h, iters, &ColourSettings::SEED, &mut seed);
        let mut auto = vec![1u8; p.pixels() * 4];
        colour_rgba(&counts, None, w, h, iters, &ColourSettings::DEFAULT, &mut auto);
        let c = Colouring::new(&ColourSettings::DEFAULT, &counts, iters);
        assert!(auto == seed, "{w}x{h} at {iters} iterations: the automatic range {:?} changed the picture", c.range());
    }
}

#[test]
fn a_deep_view_uses_most_of_the_palette() {
    use wavebrot::backend::cpu::Threads;
    use wavebrot::backend::cpu::mandelbrot_deep::mandelbrot_deep;
    use wavebrot::sim::fractal::deep::{DeepJob, Location};
    use wavebrot::sim::fractal::perturb::Mantissa;
    // rust-fractal's 5e113 location: its counts lie between about 22 000 and 23 000 of 35 494,
    // so the seed's linear 0..iters paints it one flat orange.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations/rfc-5e113.toml");
    let loc = Location::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (w, h) = (48, 27);
    let job = DeepJob::prepare(&loc.view(), w, h, loc.iters).unwrap();
    let mut counts = vec![-1; job.pixels()];
    mandelbrot_deep(Threads::All, &job, Mantissa::F64, &mut counts).unwrap();
    let spread = |settings: &ColourSettings| {
        let mut rgba = vec![0u8; w * h * 4];
        colour_rgba(&counts, None, w, h, loc.iters, settings, &mut rgba);
        (brightness_spread(&rgba), Colouring::new(settings, &counts, loc.iters).range())
    };
    let (auto, range) = spread(&ColourSettings::DEFAULT);
    let (full, _) = spread(&ColourSettings::SEED);
    println!("rfc-5e113 at {w}x{h}: counts {range:?}; brightness spread {auto:.3} auto, {full:.3} full range");
    // Measured (48x27, counts 22 024 to 23 395): 1.000 with the automatic range (the lowest count
    // black, the highest white), 0.034 over 0..iters; the bounds leave a margin of a tenth of
    // the palette below 1 and stay far above 0.034.
    assert!(auto >= 0.9, "the automatic range spans only {auto:.3} of the palette's brightness (counts {range:?})");
    // The measure sees the flat picture this range was made for (the checker catching it).
    assert!(full < 0.2, "the full range spans {full:.3} of the palette: the measure cannot tell flat from spread");
}

/// Counts of `p` on `b`, coloured with an interior colour apart from the palette: every pixel
/// that never escaped is exactly that colour, every other one a palette entry.
fn interior_colour_on(b: &mut dyn wavebrot::backend::Backend) {
    let p = MandelbrotParams { width: 96, height: 64, iters: 50, ..MandelbrotParams::SEED };
    let mut counts = vec![-1; p.pixels()];
    b.mandelbrot(&p, &mut counts).unwrap();
    let green = [10, 200, 30];
    for palette in Palette::ALL {
        let s = ColourSettings { palette, interior: Some(green), ..ColourSettings::DEFAULT };
        let mut rgba = vec![0u8; p.pixels() * 4];
        colour_rgba(&counts, None, p.width, p.height, p.iters, &s, &mut rgba);
        let (mut inside, mut wrong) = (0, Vec::new());
        for (k, px) in rgba.chunks_exact(4).enumerate() {
            // Picture row r is counts row height-1-r (imaginary axis up).
            let (r, x) = (k / p.width, k % p.width);
            let c = counts[(p.height - 1 - r) * p.width + x];
            let is_interior = c >= p.iters as i32;
            inside += usize::from(is_interior);
            let green_px = px == [10, 200, 30, 255];
            if is_interior != green_px || (!is_interior && !palette.lut().contains(&[px[0], px[1], px[2], px[3]])) {
                wrong.push(format!("(row {r}, col {x}): count {c}, colour {px:?}"));
            }
        }
        println!("{} {palette}: {inside} interior pixels, {} wrong", b.kind(), wrong.len());
        assert!(inside > 500, "{}: the view holds the set ({inside} interior pixels)", b.kind());
        assert!(
            wrong.is_empty(),
            "{} {palette}: {} pixels wrong: {}",
            b.kind(),
            wrong.len(),
            wrong[..wrong.len().min(5)].join("; ")
        );
    }
    // Without it, the interior is the palette's last entry (hot: white), as the seed draws it.
    let seed = Colouring::new(&ColourSettings::SEED, &counts, p.iters);
    assert_eq!(seed.colour(p.iters as i32, None), [255, 255, 255, 255]);
}

#[test]
fn interior_pixels_take_exactly_the_chosen_colour_on_the_cpu() {
    use wavebrot::backend::cpu::{CpuBackend, Threads};
    for t in [Threads::One, Threads::All] {
        interior_colour_on(&mut CpuBackend::new(t));
    }
}

#[test]
fn interior_pixels_take_exactly_the_chosen_colour_on_wgpu() {
    let Some(mut b) = crate::common::wgpu_backend() else { return };
    interior_colour_on(&mut b);
}

/// A custom palette survives a location file's round trip, stop for stop, and its table is the
/// rule's (`src/sim/colour/stops.rs`), computed here by hand at three entries.
#[test]
fn a_custom_palette_round_trips_through_a_location_file() {
    use wavebrot::sim::colour::stops::Stops;
    use wavebrot::sim::fractal::location::Location;
    let stops = Stops::new(&[(0.0, [0, 0, 0]), (0.3, [200, 100, 50]), (1.0, [0, 255, 10])]).unwrap();
    let colour = ColourSettings { palette: Palette::Custom, stops: Some(stops), ..ColourSettings::DEFAULT };
    let loc = Location {
        name: "stops".into(),
        re: "-0.75".into(),
        im: "0.1".into(),
        zoom: "100".into(),
        iters: 300,
        colour: Some(colour),
    };
    let text = loc.to_toml();
    assert!(text.contains("c86432"), "the colours are written as RRGGBB: {text}");
    let back = Location::from_toml(&text).unwrap();
    assert_eq!(back, loc, "{text}");
    let t = back.colour.unwrap().lut();
    // Entry 51: x = 0.2, 2/3 of the way from black to (200, 100, 50): 133.3, 66.7, 33.3.
    assert_eq!(t[51], [133, 67, 33, 255]);
    // Entry 153: x = 0.6, (0.6 - 0.3) / 0.7 = 3/7 of the way to (0, 255, 10): 114.3, 166.4, 32.9.
    assert_eq!(t[153], [114, 166, 33, 255]);
    assert_eq!(t[255], [0, 255, 10, 255]);
    // A file whose stops go backwards is refused, naming the stop.
    let bad = "re = \"0\"\nim = \"0\"\nzoom = \"1\"\niters = 20\n[colour]\npalette = \"Custom\"\nsmooth = false\n\
               scale = \"Linear\"\noffset = 0.0\ncycles = 1.0\n\
               stops = [{ at = 0.0, colour = \"000000\" }, { at = 0.8, colour = \"ffffff\" }, { at = 0.4, colour = \"ff0000\" }]\n";
    let e = Location::from_toml(bad).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("stop 3") && e.contains("increasing"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
}
