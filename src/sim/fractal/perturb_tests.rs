//! Tests of `perturb.rs`.

use super::*;

#[test]
fn ldexp_and_ilogb() {
    assert_eq!(1.5f64.ldexp(-1074 + 1), 1.5 * 2f64.powi(-1073));
    assert_eq!(3.0f64.ldexp(2000), f64::INFINITY);
    assert_eq!(3.0f64.ldexp(-2000), 0.0);
    assert_eq!(3.0f64.ldexp(1500).ldexp(-1500), f64::INFINITY);
    assert_eq!(3.0f64.ldexp(1100 - 1500), 3.0 * 2f64.powi(-400));
    assert_eq!(0.75f64.ilogb(), -1);
    assert_eq!(1024.5f64.ilogb(), 10);
    assert_eq!(1.5f32.ldexp(-140), 1.5 * 2f32.powi(-140));
    assert_eq!(0.75f32.ilogb(), -1);
}
