//! Unit tests of `screen.rs` against values computed independently (mpmath, by hand).

use super::*;
use crate::sim::wave::scene::preset;

fn double_slit() -> Theory {
    Theory::of(&preset("double-slit").expect("preset")).expect("a double slit")
}

#[test]
fn far_field_matches_the_textbook_formulas() {
    // The preset: d = 80, a = 10 (gaps 195..=204 and 275..=284), λ = 4π·0.5/0.2.
    let t = double_slit();
    assert_eq!(t.slit_width, Some(10.0));
    // mpmath: cos²(π d s/λ)·sinc²(π a s/λ) at s = 0.1 (the two-slit form, not the N-slit one).
    let want = 0.483_784_393_847_317;
    let got = far_field(&t, 0.1);
    assert!((got - want).abs() < 1e-12, "double slit I(0.1) = {got}, mpmath {want}");
    assert!((far_field(&t, 0.0) - 1.0).abs() < 1e-15);
    // A grating of 7 slits 50 apart, 6 wide, at the same λ: mpmath sums the 7 phasors directly.
    let g = Theory { pattern: Pattern::Slits { count: 7 }, d: 50.0, slit_width: Some(6.0), ..t.clone() };
    for (s, want) in [(0.13, 0.054_155_372_770_797_9), (t.lambda / 50.0, 0.953_514_565_064_932)] {
        let got = far_field(&g, s);
        assert!((got - want).abs() < 1e-12, "grating I({s}) = {got}, mpmath {want}");
    }
    // Two point sources 100 apart: cos² only; one slit 10 wide: sinc² only.
    let two = Theory { pattern: Pattern::TwoSources, d: 100.0, slit_width: None, ..t.clone() };
    assert!((far_field(&two, 0.3) - 0.980_085_143_325_183).abs() < 1e-12);
    let one = Theory { pattern: Pattern::SingleSlit, d: 10.0, slit_width: Some(10.0), ..t };
    assert!((far_field(&one, 0.25) - 0.979_339_504_877_018).abs() < 1e-12);
}

#[test]
fn orders_cross_a_column_where_tan_theta_puts_them() {
    // Column 563 is L = 399.5 cells past the slits' exit (x = 163.5); order m at
    // y = 239.5 ± L·tan(asin(m·λ/d)) (mpmath: 410.087048787, 68.9129512128; order 2 is off the grid).
    let t = double_slit();
    let marks = theory_marks_on_column(&t, 563, 480);
    let orders: Vec<i32> = marks.iter().map(|m| m.0).collect();
    assert_eq!(orders, vec![-1, 0, 1], "{marks:?}");
    // Linear interpolation between cells: the tangent bends by < 0.01 cell over one cell here.
    for (got, want) in [(marks[0].1, 68.912_951_212_8), (marks[1].1, 239.5), (marks[2].1, 410.087_048_787)] {
        assert!((got - want).abs() < 0.01, "order at y {got}, want {want}");
    }
    // Behind the barrier theory says nothing.
    assert!(theory_on_column(&t, 100, 480).is_none());
    assert!(theory_marks_on_column(&t, 100, 480).is_empty());
    let curve = theory_on_column(&t, 563, 480).expect("in front of the slits");
    let top = curve.iter().copied().fold(0.0, f64::max);
    assert!((top - 1.0).abs() < 1e-12);
    // Its largest value is on the axis (order 0, between cells 239 and 240).
    let at = curve.iter().position(|&v| v == top).expect("a top");
    assert!(at == 239 || at == 240, "peak at {at}");
}

#[test]
fn maxima_are_found_between_cells() {
    // cos² fringes with period 20 cells, peaks at 7.3 + 20k: a parabola through three samples of
    // a cos² peak is off by at most 0.0016 cell at 20 cells a period (python, peak offsets
    // 0..1 in steps of 0.01); allowed 0.005.
    let v: Vec<f64> = (0..100).map(|j| (PI * (f64::from(j) - 7.3) / 20.0).cos().powi(2)).collect();
    let m = maxima(&v, 0.5);
    assert_eq!(m.len(), 5, "{m:?}");
    for (k, y) in m.iter().enumerate() {
        let want = 7.3 + 20.0 * k as f64;
        assert!((y - want).abs() < 0.005, "maximum {k} at {y}, want {want}");
    }
    assert!(maxima(&[0.0; 10], 0.1).is_empty());
}

#[test]
fn the_average_is_over_whole_periods_of_the_lowest_frequency() {
    let one = averaging_period(&[0.2]).expect("a period");
    assert!((one.steps - TAU / 0.2).abs() < 1e-12 && one.beat_steps.is_none());
    // 0.2 and 0.25: period of 0.2, beat 2π/0.05 = 125.66 steps.
    let two = averaging_period(&[0.25, 0.2, 0.25]).expect("a period");
    assert!((two.steps - 31.415_926_535_897_93).abs() < 1e-9, "{two:?}");
    assert!((two.beat_steps.expect("a beat") - 125.663_706_143_591_7).abs() < 1e-9, "{two:?}");
    assert!(averaging_period(&[]).is_none());
    assert_eq!(averaging_steps(3.0, TAU / 0.2), 94);
    // (2 sin(ωt))² over exactly 10 periods of 10 steps: the mean is 2 (up to rounding).
    let mut avg = ScreenAverage::default();
    for t in 1..=100 {
        let v = 2.0 * (TAU * f64::from(t) / 10.0).sin() as f32;
        avg.add_column(&[v, 0.0]);
    }
    let m = avg.mean();
    assert_eq!(avg.samples(), 100);
    assert!((m[0] - 2.0).abs() < 1e-6 && m[1] == 0.0, "{m:?}");
    let f: Vec<f32> = (0..12).map(|k| k as f32).collect();
    assert_eq!(column(&f, 4, 1), &[4.0, 5.0, 6.0, 7.0]);
}
