//! Tests of `orbit_fixed.rs`: conversions, squares, the threaded orbit, and the x86-64 square's
//! orbit against the portable one.

use super::*;
use crate::sim::fractal::perturb::RM;

fn big(s: &str, p: usize) -> BigFloat {
    crate::sim::fractal::deep::parse_decimal(s, "x", p).unwrap()
}

#[test]
fn conversions_and_squares_are_exact_to_the_last_bits() {
    let p = 256;
    let n = Fixed::limbs_for(p);
    let mut wide = vec![0; 2 * n];
    for s in ["0.75", "-1.3", "1.999999999999999999999999999", "3e-50", "-0.1234567890123456789012345678901"] {
        let v = big(s, p);
        let f = Fixed::from_big(&v, n).unwrap();
        let (hi, lo) = f.split(0);
        let want = crate::sim::fractal::perturb::to_f64(&v);
        assert!((hi - want).abs() <= want.abs() * 1e-15, "{s}: {hi} against {want}");
        let rest = crate::sim::fractal::perturb::to_f64(&v.sub(&BigFloat::from_f64(hi, p), p, RM));
        assert!((lo - rest).abs() <= rest.abs() * 1e-10 + 1e-300, "{s}: lo {lo} against {rest}");
        let mut sq = Fixed::zero(n);
        Fixed::square_into(&mut sq, &f, &mut wide, Square::best());
        let want = crate::sim::fractal::perturb::to_f64(&v.mul(&v, p, RM));
        // Relative to the value, or absolute to the fixed point's last bits (3e-50 squared).
        let tol = (want.abs() * 1e-15).max(2f64.powi(-(64 * n as i32 - 16)));
        assert!((sq.to_f64() - want).abs() <= tol, "{s}^2: {} against {want}", sq.to_f64());
    }
    let (a, b) = (Fixed::from_big(&big("0.5", p), n).unwrap(), Fixed::from_big(&big("-0.75", p), n).unwrap());
    let mut c = Fixed::zero(n);
    Fixed::add_into(&mut c, &a, &b, false);
    assert_eq!(c.to_f64(), -0.25);
    Fixed::add_into(&mut c, &a, &b, true);
    assert_eq!(c.to_f64(), 1.25);
    assert_eq!(Fixed::from_big(&big("3e-50", p), n).unwrap().ilogb(), Some(-165));
}

/// The orbit of `c` at `bits` on `threads` threads: every pushed value's limbs.
fn orbit(c: (&str, &str), bits: usize, iters: u32, threads: usize) -> Vec<(Fixed, Fixed, Fixed)> {
    let n = Fixed::limbs_for(bits);
    let (cr, ci) = (Fixed::from_big(&big(c.0, bits), n).unwrap(), Fixed::from_big(&big(c.1, bits), n).unwrap());
    let mut out = Vec::new();
    iterate(&cr, &ci, iters, usize::MAX, threads, &mut |a, b, m| {
        out.push((a.clone(), b.clone(), m.clone()));
        true
    })
    .unwrap();
    out
}

#[test]
fn threads_give_the_same_orbit_bit_for_bit_and_it_follows_astro_float() {
    // The 2e533 location's centre to 100 digits: 2000 steps at 1856 bits (30 limbs, threaded).
    let c = (
        "-1.769108330407477280892306243557778483560063911862340065077878834041892971598590808442346019908868202",
        "-0.009020688057072617600360935984947620112305584674123866889727919817129110000273070325734652748577260",
    );
    let one = orbit(c, 1856, 2000, 1);
    assert_eq!(one.len(), 2001, "the point stays bounded for 2000 steps");
    for threads in [2, 3] {
        let many = orbit(c, 1856, 2000, threads);
        let first = one.iter().zip(&many).position(|(a, b)| a != b);
        assert_eq!(first, None, "{threads} threads differ from 1 at step {first:?}");
    }
    // Against astro-float's own iteration (the first 40 steps, where 1856 bits keep every
    // digit that f64 shows): the values agree to f64's rounding.
    let p = 1856;
    let (cr, ci) = (big(c.0, p), big(c.1, p));
    let (mut zr, mut zi) = (BigFloat::from_u64(0, p), BigFloat::from_u64(0, p));
    for (k, (fr, fi, _)) in one.iter().enumerate().take(40) {
        let (wr, wi) = (crate::sim::fractal::perturb::to_f64(&zr), crate::sim::fractal::perturb::to_f64(&zi));
        assert!((fr.to_f64() - wr).abs() <= wr.abs() * 1e-15, "step {k}: re {} against {wr}", fr.to_f64());
        assert!((fi.to_f64() - wi).abs() <= wi.abs() * 1e-15 + 1e-300, "step {k}: im {} against {wi}", fi.to_f64());
        let re = zr.mul(&zr, p, RM).sub(&zi.mul(&zi, p, RM), p, RM).add(&cr, p, RM);
        let t = zr.mul(&zi, p, RM);
        zi = t.add(&t, p, RM).add(&ci, p, RM);
        zr = re;
    }
    assert_eq!(orbit_threads(Fixed::limbs_for(256), 16), 1);
    assert_eq!(orbit_threads(Fixed::limbs_for(3712), 16), 3);
    assert_eq!(orbit_threads(Fixed::limbs_for(3712), 2), 2);
}

#[test]
fn the_x86_square_gives_the_portable_orbit_bit_for_bit_on_the_deep_locations() {
    let best = Square::best();
    if matches!(best, Square::Portable) {
        crate::test_skip::skip("cpu-adx", "this CPU has no BMI2/ADX (or WAVEBROT_NO_ADX is set): one square only");
        return;
    }
    // rust-fractal's benchmark locations at the bits a 1080-row render takes (5, 9, 30 and
    // 59 limbs), 3000 steps each (a debug build: seconds).
    for (name, text) in [
        ("1e50", include_str!("../../../assets/locations/rfc-1e50.toml")),
        ("5e113", include_str!("../../../assets/locations/rfc-5e113.toml")),
        ("4e533", include_str!("../../../assets/locations/rfc-4e533.toml")),
        ("1e1086", include_str!("../../../assets/locations/rfc-1e1086.toml")),
    ] {
        let loc = crate::sim::fractal::location::Location::from_toml(text).unwrap();
        let view = loc.view();
        let bits = view.bits(1080);
        let b = view.bounds_big(1920, 1080, bits).unwrap();
        let n = Fixed::limbs_for(bits);
        let (cr, ci) = (Fixed::from_big(&b.re, n).unwrap(), Fixed::from_big(&b.im, n).unwrap());
        let run = |square| {
            let mut out = Vec::new();
            iterate_with(square, &cr, &ci, 3000, usize::MAX, 1, &mut |a, b, m| {
                out.push((a.clone(), b.clone(), m.clone()));
                true
            })
            .unwrap();
            out
        };
        let (portable, fast) = (run(Square::Portable), run(best));
        assert_eq!(portable.len(), 3001, "{name}: the centre stays bounded for 3000 steps");
        let first = portable.iter().zip(&fast).position(|(a, b)| a != b);
        assert_eq!((first, fast.len()), (None, 3001), "{name} ({n} limbs): the orbits part at step {first:?}");
    }
}
