//! Unit tests of `palette.rs`.

use super::*;

/// The set stands apart from both ends of every palette but the seed's `hot` (white, the
/// seed's rule): seen, twilight's set in its own pale end, minibrots gone.
#[test]
fn the_interior_stands_apart_from_the_palette_ends() {
    let d = |a: [u8; 3], b: [u8; 4]| (0..3).map(|i| f64::from(a[i].abs_diff(b[i]))).map(|x| x * x).sum::<f64>().sqrt();
    for palette in Palette::ALL {
        let s = ColourSettings { palette, ..ColourSettings::DEFAULT };
        let (lut, rgb) = (s.lut(), s.interior_rgb());
        let apart = d(rgb, lut[0]).min(d(rgb, lut[lut.len() - 1]));
        println!("{palette}: interior {rgb:?}, {apart:.0} from the nearer end");
        if palette == Palette::Hot {
            assert_eq!(rgb, [255, 255, 255]);
        } else {
            // Measured: twilight 385 (black), viridis 220 (white), magma 186 (grey); the
            // old rule (the last entry) was 0 from an end for every palette.
            assert!(apart >= 140.0, "{palette}: interior {rgb:?} only {apart:.0} from an end");
        }
    }
    assert_eq!(ColourSettings { palette: Palette::Twilight, ..ColourSettings::DEFAULT }.interior_rgb(), [0, 0, 0]);
    let own = ColourSettings { palette: Palette::Twilight, interior: Some([1, 2, 3]), ..ColourSettings::DEFAULT };
    assert_eq!(own.interior_rgb(), [1, 2, 3], "the user's choice is kept");
    assert!(own.picture_table().contains(&[1, 2, 3, 255]));
    let tw = ColourSettings { palette: Palette::Twilight, ..ColourSettings::DEFAULT };
    assert!(tw.picture_table().contains(&[0, 0, 0, 255]), "a GIF's palette holds the interior");
}

#[test]
fn palettes_have_their_published_sizes() {
    assert_eq!(Palette::Hot.lut().len(), 256);
    assert_eq!(Palette::Viridis.lut().len(), 256);
    assert_eq!(Palette::Magma.lut().len(), 256);
    assert_eq!(Palette::Twilight.lut().len(), 510);
}

#[test]
fn settings_are_checked() {
    assert!(ColourSettings::SEED.validate().is_ok());
    let bad = ColourSettings { offset: 1.0, ..ColourSettings::SEED };
    assert!(bad.validate().unwrap_err().to_string().contains("offset 1"));
    let bad = ColourSettings { cycles: 0.5, ..ColourSettings::SEED };
    assert!(bad.validate().unwrap_err().to_string().contains("cycles 0.5"));
    let bad = ColourSettings { cycles: f32::NAN, ..ColourSettings::SEED };
    assert!(bad.validate().is_err());
}
