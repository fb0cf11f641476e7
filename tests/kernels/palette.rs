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
    // Interior pixels always take the last entry.
    assert_eq!(c.colour(100, Some(3.0)), Palette::Twilight.lut()[509]);
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
