//! Tests of `scene.rs`: files, validation, presets.

use super::*;

#[test]
fn line_cells_include_both_ends() {
    assert_eq!(line_cells(2, 3, 2, 3), vec![(2, 3)]);
    assert_eq!(line_cells(0, 0, 3, 0), vec![(0, 0), (1, 0), (2, 0), (3, 0)]);
    assert_eq!(line_cells(0, 0, 2, 2), vec![(0, 0), (1, 1), (2, 2)]);
    let l = line_cells(5, 1, 0, 3);
    assert_eq!((l[0], l[l.len() - 1], l.len()), ((5, 1), (0, 3), 6));
}

#[test]
fn the_seed_scene_is_plain() {
    let s = Scene::seed(100, 80, 0.1);
    assert_eq!(s.plain_params(), Some(WaveParams::new(100, 80, 0.1)));
    let mut damped = s.clone();
    damped.damping = 0.001;
    assert_eq!(damped.plain_params(), None);
    // Point sources of amplitude 1, phase 0 force exactly the seed's value.
    for t in [1, 7, 500] {
        assert_eq!(s.source_values(t), vec![Some(crate::sim::wave::source_value(0.1, t))]);
    }
}

#[test]
fn pulses_end() {
    let s = Source::Pulse { x: 1, y: 1, freq: 0.5, amplitude: 2.0, phase: 0.0, start: 1 };
    assert_eq!(pulse_steps(0.5), 12);
    assert!(s.value(1).is_some_and(|v| v != 0.0));
    assert!(s.value(12).is_some());
    assert_eq!(s.value(13), None);
}

#[test]
fn a_later_pulse_is_the_same_pulse_shifted() {
    let first = Source::pulse(1, 1, 0.5, 1);
    let later = Source::pulse(1, 1, 0.5, 40);
    assert_eq!((1..40).filter_map(|t| later.value(t)).count(), 0, "no forcing before its start");
    for t in 1..=20 {
        assert_eq!(later.value(t + 39), first.value(t), "step {t} of the pulse");
    }
    // start 0 is read as 1 (the first step there is).
    assert_eq!(Source::pulse(1, 1, 0.5, 0).value(1), first.value(1));
    assert!(later.same_but_start(&first) && !later.same_but_start(&Source::pulse(2, 1, 0.5, 1)));
    // Files without `start` load as 1, and a start of 1 is not written.
    let text = "nx = 40\nny = 30\n\n[[source]]\nkind = \"pulse\"\nx = 3\ny = 4\nfreq = 0.2\n";
    let s = Scene::from_toml(text).unwrap();
    assert_eq!(s.sources[0], Source::pulse(3, 4, 0.2, 1));
    assert!(!s.to_toml().unwrap().contains("start"));
    let moved = Scene { sources: vec![Source::pulse(3, 4, 0.2, 90)], ..s };
    assert_eq!(Scene::from_toml(&moved.to_toml().unwrap()).unwrap(), moved);
}

#[test]
fn toml_round_trip_and_errors() {
    let text = "nx = 40\nny = 30\nboundary = \"absorbing\"\n\n[[source]]\nkind = \"point\"\nx = 3\ny = 4\nfreq = 0.2\n\n[[source]]\nkind = \"line\"\nx0 = 5\ny0 = 1\nx1 = 5\ny1 = 20\nfreqq = 0.2\n";
    let e = Scene::from_toml(text).unwrap_err().to_string();
    assert!(e.starts_with("source 1 (line 11): unknown field `freqq`"), "{e}");
    assert!(e.contains("freqq"), "{e}");
    let ok = Scene::from_toml(&text.replace("freqq", "freq")).unwrap();
    assert_eq!(Scene::from_toml(&ok.to_toml().unwrap()).unwrap(), ok);
}

#[test]
fn painting_and_erasing_walls_cuts_rectangles_and_spares_sources() {
    let mut s = Scene::seed(40, 30, 0.1);
    let (sx, sy) = (20, 15);
    assert!(s.paint_wall(18, 13, 22, 17), "a stroke over the source paints around it");
    let covered = |s: &Scene, x, y| s.walls.iter().any(|w| w.contains(x, y));
    assert!(!covered(&s, sx, sy) && covered(&s, 18, 13) && covered(&s, 22, 17));
    let cells =
        |s: &Scene| (0..40).flat_map(|x| (0..30).map(move |y| (x, y))).filter(|&(x, y)| covered(s, x, y)).count();
    assert_eq!(cells(&s), 24, "a 5x5 square less the source cell");
    s.validate().expect("the source stays free");
    assert!(s.erase_walls(20, 0, 20, 29), "a column erased");
    assert_eq!(cells(&s), 20);
    assert!(!covered(&s, 20, 13) && covered(&s, 19, 13));
    assert!(!s.erase_walls(0, 0, 5, 5), "nothing there");
    assert!(!s.paint_wall(-9, -9, -1, -1), "outside the grid");
    assert_eq!(s.source_near(21.0, 16.0, 2.0), Some(0));
    assert_eq!(s.source_near(30.0, 16.0, 2.0), None);
}
