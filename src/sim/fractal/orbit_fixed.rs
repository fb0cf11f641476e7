//! The reference orbit's arithmetic: signed fixed-point numbers of `n` 64-bit limbs, written for
//! `z^2 + c` alone (three squares a step, no general multiply, no normalisation, no allocation
//! in the loop).
//!
//! A value is `sign * mag / 2^(64 n - 8)`: 8 integer bits (`|z| < 2` before the escape, its
//! squares below 16 and `(re + im)^2` below 144 one step after) and `64 n - 8` fraction bits.
//! The orbit needs absolute precision (an error in `Z_m` moves every pixel by as much), so
//! fixed point with the float's bits is as exact as the float was; tiny values keep their
//! relative digits down to `2^-(64 n - 8)`, far below what a pixel needs.
//!
//! Measured against `astro-float` (the crate's arbitrary-precision floats, still used for the
//! view's bounds and the direct reference): see docs/PERFORMANCE.md, deep-zoom section.

use astro_float::BigFloat;

/// A signed fixed-point number of `mag.len()` limbs (little-endian).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixed {
    pub neg: bool,
    pub mag: Vec<u64>,
}

/// Integer bits of [`Fixed`].
const INT_BITS: i64 = 8;

impl Fixed {
    /// Limbs for `bits` of fraction (plus 8 integer and 8 guard bits).
    #[must_use]
    pub fn limbs_for(bits: usize) -> usize {
        (bits + 16).div_ceil(64)
    }

    /// Zero in `n` limbs.
    #[must_use]
    pub fn zero(n: usize) -> Self {
        Self { neg: false, mag: vec![0; n] }
    }

    /// `v` (truncated to the fixed point's precision), or `None` if `|v| >= 128`.
    #[must_use]
    pub fn from_big(v: &BigFloat, n: usize) -> Option<Self> {
        let mut out = Self::zero(n);
        if v.is_zero() {
            return Some(out);
        }
        let (words, _, _, e, _) = v.as_raw_parts()?;
        // v = M 2^(e - 64 len); out = v 2^(64 n - 8) = M 2^shift.
        let shift = i64::from(e) - 64 * words.len() as i64 + 64 * n as i64 - INT_BITS;
        if i64::from(e) > INT_BITS - 1 {
            return None;
        }
        for (i, &w) in words.iter().enumerate() {
            // Bit position of this word's bit 0 in the result.
            let p = 64 * i as i64 + shift;
            if p >= 0 {
                let (limb, off) = ((p / 64) as usize, (p % 64) as u32);
                if limb < n {
                    out.mag[limb] |= w << off;
                }
                if off > 0 && limb + 1 < n {
                    out.mag[limb + 1] |= w >> (64 - off);
                }
            } else if p > -64 {
                out.mag[0] |= w >> (-p) as u32;
            }
        }
        out.neg = v.is_negative();
        Some(out)
    }

    fn is_zero(&self) -> bool {
        self.mag.iter().all(|&w| w == 0)
    }

    /// `|a| >= |b|`.
    fn mag_ge(a: &[u64], b: &[u64]) -> bool {
        for (x, y) in a.iter().rev().zip(b.iter().rev()) {
            if x != y {
                return x > y;
            }
        }
        true
    }

    /// `out = a + b` (magnitudes).
    fn mag_add(out: &mut [u64], a: &[u64], b: &[u64]) {
        let mut carry = 0u64;
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            let (s1, c1) = x.overflowing_add(y);
            let (s2, c2) = s1.overflowing_add(carry);
            *o = s2;
            carry = u64::from(c1) + u64::from(c2);
        }
    }

    /// `out = a - b` (magnitudes, `a >= b`).
    fn mag_sub(out: &mut [u64], a: &[u64], b: &[u64]) {
        let mut borrow = 0u64;
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            let (d1, b1) = x.overflowing_sub(y);
            let (d2, b2) = d1.overflowing_sub(borrow);
            *o = d2;
            borrow = u64::from(b1) + u64::from(b2);
        }
    }

    /// `out = a + (-1)^flip b`.
    pub fn add_into(out: &mut Self, a: &Self, b: &Self, flip: bool) {
        let b_neg = b.neg ^ flip;
        if a.neg == b_neg {
            Self::mag_add(&mut out.mag, &a.mag, &b.mag);
            out.neg = a.neg;
        } else if Self::mag_ge(&a.mag, &b.mag) {
            Self::mag_sub(&mut out.mag, &a.mag, &b.mag);
            out.neg = a.neg;
        } else {
            Self::mag_sub(&mut out.mag, &b.mag, &a.mag);
            out.neg = b_neg;
        }
        if out.is_zero() {
            out.neg = false;
        }
    }

    /// `out = a^2` (non-negative), with `wide` (2 n limbs) as scratch: the square's limbs from
    /// `n - 2` on (the columns below are left out: they move the result by less than `n 2^-56`
    /// of its last bit), then those from `n - 1` on, shifted by the 8 integer bits.
    pub fn square_into(out: &mut Self, a: &Self, wide: &mut [u64]) {
        let n = a.mag.len();
        let x = &a.mag[..];
        let low = n.saturating_sub(2);
        // Column by column (Comba): the products of a column are independent, so the multiplies
        // overlap instead of waiting on a carry chain; the off-diagonal sum doubled, the
        // diagonal square and the carry added once a column.
        let mut carry = 0u128;
        for k in low..2 * n - 1 {
            let (mut lo, mut hi) = (0u128, 0u64);
            for i in k.saturating_sub(n - 1)..k.div_ceil(2) {
                let (sum, c) = lo.overflowing_add(u128::from(x[i]) * u128::from(x[k - i]));
                lo = sum;
                hi += u64::from(c);
            }
            let (hi2, lo2) = ((hi << 1) | (lo >> 127) as u64, lo << 1);
            let d = if k % 2 == 0 { u128::from(x[k / 2]) * u128::from(x[k / 2]) } else { 0 };
            let (sum, c1) = lo2.overflowing_add(d);
            let (sum, c2) = sum.overflowing_add(carry);
            wide[k] = sum as u64;
            carry = (sum >> 64) + ((u128::from(hi2) + u128::from(c1) + u128::from(c2)) << 64);
        }
        wide[2 * n - 1] = carry as u64;
        // value^2 = W / 2^(2(64n - 8)); out = W / 2^(64n - 8): W >> (64 n - 8).
        let s = (64 * n as i64 - INT_BITS) as usize;
        let (limb, off) = (s / 64, (s % 64) as u32);
        for (k, o) in out.mag.iter_mut().enumerate() {
            let lo = wide.get(limb + k).copied().unwrap_or(0);
            let hi = wide.get(limb + k + 1).copied().unwrap_or(0);
            *o = if off == 0 { lo } else { (lo >> off) | (hi << (64 - off)) };
        }
        out.neg = false;
    }

    /// `k` with `2^k <= |self| < 2^(k+1)`, or `None` for 0.
    #[must_use]
    pub fn ilogb(&self) -> Option<i64> {
        let n = self.mag.len();
        let t = self.mag.iter().rposition(|&w| w != 0)?;
        let pos = 64 * t as i64 + 63 - i64::from(self.mag[t].leading_zeros());
        Some(pos - (64 * n as i64 - INT_BITS))
    }

    /// `self * 2^-scale` as `hi + lo` in `f64` (`hi` the value rounded to 53 bits of its top
    /// 127, `lo` what that left out, rounded).
    #[must_use]
    pub fn split(&self, scale: i64) -> (f64, f64) {
        let n = self.mag.len();
        let Some(t) = self.mag.iter().rposition(|&w| w != 0) else { return (0.0, 0.0) };
        let pos = 64 * t as i64 + 63 - i64::from(self.mag[t].leading_zeros());
        // The 127 bits from `pos` down: x = floor(|v| 2^(64n-8) / 2^(pos - 126)).
        let lowest = pos - 126;
        let mut x: u128 = 0;
        for l in (lowest.div_euclid(64).max(0) as usize)..=t {
            let sh = 64 * l as i64 - lowest;
            let w = u128::from(self.mag[l]);
            if sh < 128 && sh > -64 {
                x |= if sh >= 0 { w << sh } else { w >> (-sh) };
            }
        }
        let hi_m = x as f64; // at most 2^127 (x rounded up): exact as u128 again
        // x - hi_m exactly, either sign (as i128, a round-up to 2^127 overflowed).
        let h = hi_m as u128;
        let rem = if h >= x { -((h - x) as f64) } else { (x - h) as f64 };
        let e = lowest - (64 * n as i64 - INT_BITS) - scale;
        let sign = if self.neg { -1.0 } else { 1.0 };
        (sign * super::real::ldexp64(hi_m, e), sign * super::real::ldexp64(rem, e))
    }

    /// The value rounded to `f64`.
    #[must_use]
    pub fn to_f64(&self) -> f64 {
        let (hi, lo) = self.split(0);
        hi + lo
    }
}

#[cfg(test)]
mod tests {
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
            Fixed::square_into(&mut sq, &f, &mut wide);
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
}
