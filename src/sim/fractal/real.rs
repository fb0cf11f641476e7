//! `Real`: the float a delta's mantissa is held in (`f64` or `f32`), with what the perturbation
//! rule needs of it.

use std::ops::{Add, Mul, Neg, Sub};

/// The float a delta's mantissa is held in.
pub trait Real:
    Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const TWO: Self;
    const FOUR: Self;
    /// Deltas with a larger exponent are iterated plainly, smaller ones as mantissa and exponent.
    const PLAIN_MIN_EXP: i32;
    /// A reference value below `2^TINY_EXP` is held as a mantissa and an exponent in this type
    /// (`ReferenceOrbit::exp`), and its iterations are done as extended-exponent ones.
    const TINY_EXP: i32;
    /// `self * 2^n`, for any `n` (flushes to 0 or infinity outside the range).
    fn ldexp(self, n: i32) -> Self;
    /// The exponent `k` with `2^k <= |self| < 2^(k+1)` of a normal number.
    fn ilogb(self) -> i32;
    fn abs(self) -> Self;
    fn max(self, other: Self) -> Self;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const TWO: Self = 2.0;
    const FOUR: Self = 4.0;
    const PLAIN_MIN_EXP: i32 = -560;
    const TINY_EXP: i32 = -400;

    #[inline]
    fn ldexp(self, n: i32) -> Self {
        // As the kernels: n clamped to three times the exponent range, three exact steps.
        let pow2 = |n: i32| f64::from_bits(((n + 1023) as u64) << 52);
        let n = n.clamp(-3 * 1022, 3 * 1023);
        let n1 = n.clamp(-1022, 1023);
        let n2 = (n - n1).clamp(-1022, 1023);
        self * pow2(n1) * pow2(n2) * pow2(n - n1 - n2)
    }

    #[inline]
    fn ilogb(self) -> i32 {
        ((self.to_bits() >> 52) & 0x7ff) as i32 - 1023
    }

    #[inline]
    fn abs(self) -> Self {
        f64::abs(self)
    }

    #[inline]
    fn max(self, other: Self) -> Self {
        if self > other { self } else { other }
    }

    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }

    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const TWO: Self = 2.0;
    const FOUR: Self = 4.0;
    const PLAIN_MIN_EXP: i32 = -52;
    const TINY_EXP: i32 = -50;

    #[inline]
    fn ldexp(self, n: i32) -> Self {
        let pow2 = |n: i32| f32::from_bits(((n + 127) as u32) << 23);
        let n = n.clamp(-3 * 126, 3 * 127);
        let n1 = n.clamp(-126, 127);
        let n2 = (n - n1).clamp(-126, 127);
        self * pow2(n1) * pow2(n2) * pow2(n - n1 - n2)
    }

    #[inline]
    fn ilogb(self) -> i32 {
        ((self.to_bits() >> 23) & 0xff) as i32 - 127
    }

    #[inline]
    fn abs(self) -> Self {
        f32::abs(self)
    }

    #[inline]
    fn max(self, other: Self) -> Self {
        if self > other { self } else { other }
    }

    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }

    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// `m * 2^e` in `f64` for any `e` (0 or infinity outside `f64`'s range).
#[must_use]
pub fn ldexp64(m: f64, e: i64) -> f64 {
    let e = e.clamp(-2200, 2200) as i32;
    Real::ldexp(m, e)
}
