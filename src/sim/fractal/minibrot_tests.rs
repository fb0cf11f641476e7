//! Unit tests of `minibrot.rs`: analytic periods, nuclei and sizes. (The independent mpmath
//! comparison on real views is `tests/cli/minibrot.rs`, through `tools/minibrot_reference.py`.)

use super::*;
use crate::sim::fractal::deep::parse_decimal;

fn big(s: &str, bits: usize) -> BigFloat {
    parse_decimal(s, "x", bits).unwrap()
}

fn decimal(v: &BigFloat) -> f64 {
    crate::sim::fractal::perturb::to_f64(v)
}

#[test]
fn the_airship_is_found_with_period_3_at_the_root_of_its_polynomial() {
    // The period-3 nucleus on the real axis is the real root of c^3 + 2c^2 + c + 1 = 0
    // (z_3 = (c^2 + c)^2 + c = c (c^3 + 2c^2 + c + 1)); its 40 digits from mpmath's polyroots.
    let bits = 192;
    let (cr, ci) = (big("-1.75", bits), big("0.001", bits));
    let m = find_minibrot(&cr, &ci, FloatExp::new(0.04, 0), 1000, bits).unwrap();
    assert_eq!(m.period, 3, "period of the airship");
    let want = big("-1.754877666246692760049508896358528691894606617772793143670", bits);
    let err = decimal(&m.re.sub(&want, bits, RM)).abs();
    // Newton stops once its step is below 2^-64 of the size (0.019): 1e-21; measured 0.
    assert!(err < 1e-21, "nucleus re {} off the root by {err:e}", decimal(&m.re));
    assert!(decimal(&m.im).abs() < 1e-21, "nucleus im {}", decimal(&m.im));
    // mathr's size estimate for the airship: mpmath (tools/minibrot_reference.py) gives 0.0190355.
    let size = to_f64(m.size_abs());
    assert!((size - 0.019_035_5).abs() < 1e-6, "size {size}");
}

#[test]
fn period_2_disk_has_size_one_half_and_the_cardioid_one() {
    // m_d_size: period 2 at c = -1 gives 1 / ((1 - 1/2) * 4) = 0.5; period 1 gives 1.
    let bits = 128;
    let m = nucleus_near(&big("-1.02", bits), &big("0.01", bits), 2, FloatExp::new(0.1, 0), bits).unwrap();
    assert_eq!(m.period, 2);
    assert!((decimal(&m.re) + 1.0).abs() < 1e-30 && decimal(&m.im).abs() < 1e-30, "{}", decimal(&m.re));
    assert!((to_f64(m.size_abs()) - 0.5).abs() < 1e-15, "size {}", to_f64(m.size_abs()));
    let m = nucleus_near(&big("0.01", bits), &big("0.01", bits), 1, FloatExp::new(0.1, 0), bits).unwrap();
    assert!(decimal(&m.re).abs() < 1e-30, "period-1 nucleus {}", decimal(&m.re));
    assert!((to_f64(m.size_abs()) - 1.0).abs() < 1e-15);
}

#[test]
fn no_period_outside_the_set_and_newton_refuses_to_wander() {
    let bits = 128;
    // 0.5 + 0.5i escapes after a few steps: no ball holds 0 before.
    let e = find_minibrot(&big("0.5", bits), &big("0.5", bits), FloatExp::new(1e-6, 0), 1000, bits).unwrap_err();
    assert!(matches!(e, MinibrotError::NoPeriod { how: "escaped first", .. }), "{e}");
    // Period 3 asked next to the period-2 disk, with a tiny leash: the nearest period-3 nucleus
    // is 0.15 away, so Newton's first steps leave the view.
    let e = nucleus_near(&big("-1.2", bits), &big("0.1", bits), 3, FloatExp::new(1e-6, 0), bits).unwrap_err();
    assert!(matches!(e, MinibrotError::NoConvergence { period: 3, .. }), "{e}");
}
