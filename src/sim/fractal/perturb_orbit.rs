//! The reference orbit computed: iterated in arbitrary precision (on up to three threads),
//! each step stored as `f64`, as a mantissa with an extended exponent and as `f32` parts, and its
//! BLA table. A part of [`super`].

use super::{
    BigFloat, BlaTable, Cx, Fixed, FloatExp, RESERVED_STEPS, RM, Real, ReferenceOrbit, TooLong, iterate, orbit_threads,
    to_f64,
};

/// A reference orbit still going after the steps the memory holds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "iterations {iters}: the centre's reference orbit is still going after {steps} steps, as many as half of the \
     memory available holds; lower the iterations"
)]
pub struct OrbitTooLong {
    pub iters: u32,
    pub steps: usize,
}

/// `2^k <= |Z| < 2^(k+1)` of the larger part of `Z = zr + i zi` (`None` for 0).
fn big_ilogb(zr: &BigFloat, zi: &BigFloat) -> Option<i64> {
    [zr, zi].into_iter().filter(|v| !v.is_zero()).filter_map(|v| v.exponent()).map(|e| i64::from(e) - 1).max()
}

/// `v * 2^-s`, exactly.
fn big_scaled(v: &BigFloat, s: i64) -> BigFloat {
    let mut v = v.clone();
    if let Some(e) = v.exponent().filter(|_| !v.is_zero()) {
        v.set_exponent((i64::from(e) - s) as i32);
    }
    v
}

impl ReferenceOrbit {
    /// Iterates `C = cr + i ci` in `bits` of precision for at most `iters` steps (stopping after
    /// the first `|Z|^2 >= 4`).
    #[must_use]
    pub fn compute(cr: &BigFloat, ci: &BigFloat, iters: u32, bits: usize) -> Self {
        Self::compute_limited(cr, ci, iters, bits, usize::MAX).unwrap_or_default()
    }

    /// [`Self::compute`], stopping with a one-line error once the orbit outgrows `max_steps`
    /// (the memory it may take) before the centre escapes.
    ///
    /// # Errors
    /// The orbit needs more than `max_steps` steps.
    pub fn compute_limited(
        cr: &BigFloat,
        ci: &BigFloat,
        iters: u32,
        bits: usize,
        max_steps: usize,
    ) -> Result<Self, OrbitTooLong> {
        Self::compute_threads(cr, ci, iters, bits, max_steps, None, &mut |_| true)
    }

    /// [`Self::compute_limited`] with the fixed-point orbit on `threads` threads (1 to 3;
    /// `None`: chosen from the precision and the machine, [`orbit_threads`]), shown each value
    /// `Z` as it comes, its top 53 bits with an extended exponent (the values stored): `watch(z)`
    /// returning `false` ends the orbit there (the ball method's period,
    /// [`crate::sim::fractal::minibrot::Ball`]). `watch` sees the fixed-point orbit only (`|C| < 4`).
    ///
    /// # Errors
    /// The orbit needs more than `max_steps` steps.
    pub fn compute_threads(
        cr: &BigFloat,
        ci: &BigFloat,
        iters: u32,
        bits: usize,
        max_steps: usize,
        threads: Option<usize>,
        watch: &mut dyn FnMut(Cx) -> bool,
    ) -> Result<Self, OrbitTooLong> {
        let too_long = |steps: usize| OrbitTooLong { iters, steps };
        let mut o = Self::with_capacity((iters as usize).min(max_steps).min(RESERVED_STEPS) + 1);
        let n = Fixed::limbs_for(bits);
        let small = |v: &BigFloat| v.is_zero() || v.exponent().is_some_and(|e| e <= 2);
        if let (true, Some(fcr), Some(fci)) = (small(cr) && small(ci), Fixed::from_big(cr, n), Fixed::from_big(ci, n)) {
            // |C| < 4: fixed point, three squares a step on up to three threads (`orbit_fixed`).
            let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
            let threads = threads.unwrap_or_else(|| orbit_threads(n, cores));
            iterate(&fcr, &fci, iters, max_steps, threads, &mut |zr, zi, mag4| {
                o.push_fixed(zr, zi, mag4);
                let n = o.re.len() - 1;
                watch(Cx::new(o.re[n], o.im[n], o.exp[n]))
            })
            .map_err(|TooLong(steps)| too_long(steps))?;
        } else {
            let p = bits;
            let zero = BigFloat::from_u64(0, p);
            let four = BigFloat::from_u64(4, p);
            // Each step's squares serve twice: for `|Z|^2 - 4` (kept, and the escape test) and
            // for the next step's real part. Three multiplies a step in all.
            let (mut zr, mut zi) = (zero.clone(), zero.clone());
            let (mut zr2, mut zi2) = (zero.clone(), zero.clone());
            o.push(&zr, &zi, &zero.sub(&four, p, RM));
            for step in 0..iters {
                if step as usize >= max_steps {
                    return Err(too_long(max_steps));
                }
                let prod = zr.mul(&zi, p, RM);
                zr = zr2.sub(&zi2, p, RM).add(cr, p, RM);
                zi = prod.add(&prod, p, RM).add(ci, p, RM);
                zr2 = zr.mul(&zr, p, RM);
                zi2 = zi.mul(&zi, p, RM);
                // `|Z|^2 - 4 >= 0` exactly when `|Z|^2 >= 4` (rounding is monotone, and only 4
                // itself gives 0); NaN counts as escaped.
                let mag4 = zr2.add(&zi2, p, RM).sub(&four, p, RM);
                o.push(&zr, &zi, &mag4);
                if mag4.cmp(&zero).is_none_or(|c| c >= 0) {
                    break;
                }
            }
        }
        let last = o.re.len() - 1;
        o.last_f64 = last;
        o.last_f32 = last;
        Ok(o)
    }

    /// An empty orbit with room for `steps` values (reserved, not touched: pages are mapped
    /// as the orbit reaches them, once, instead of again at each doubling of every vector).
    fn with_capacity(steps: usize) -> Self {
        let (f64s, f32s, i32s) =
            (|| Vec::with_capacity(steps), || Vec::with_capacity(steps), || Vec::with_capacity(steps));
        Self {
            re: f64s(),
            im: f64s(),
            re_lo: f64s(),
            im_lo: f64s(),
            exp: i32s(),
            re32: f32s(),
            im32: f32s(),
            re32_lo: f32s(),
            im32_lo: f32s(),
            exp32: i32s(),
            mag4: f64s(),
            mag4_32: f32s(),
            last_f64: 0,
            last_f32: 0,
        }
    }

    /// Appends `Z = zr + i zi` and its `|Z|^2 - 4`, from arbitrary precision.
    fn push(&mut self, zr: &BigFloat, zi: &BigFloat, mag4: &BigFloat) {
        let split64 = |v: &BigFloat| {
            let hi = to_f64(v);
            let p = v.mantissa_max_bit_len().unwrap_or(64).max(64);
            (hi, to_f64(&v.sub(&BigFloat::from_f64(hi, p), p, RM)))
        };
        self.push_parts(
            big_ilogb(zr, zi),
            |s| split64(&big_scaled(zr, s)),
            |s| split64(&big_scaled(zi, s)),
            to_f64(mag4),
        );
    }

    /// Appends `Z = zr + i zi` and its `|Z|^2 - 4`, from fixed point.
    fn push_fixed(&mut self, zr: &Fixed, zi: &Fixed, mag4: &Fixed) {
        let k = match (zr.ilogb(), zi.ilogb()) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.push_parts(k, |s| zr.split(s), |s| zi.split(s), mag4.to_f64());
    }

    /// Appends `Z` whose larger part is `2^k <= . < 2^(k+1)` (`None`: 0), given as `re(s)`,
    /// `im(s)`: the parts times `2^-s` split into `f64` `hi + lo`; and its `|Z|^2 - 4`. To `f32`
    /// from the `f64` pair (`hi - f64(hi32)` is exact, and `lo` is far below an `f32` ulp of
    /// the rest); a tiny value scaled to `[1, 2)` first, its exponent kept beside it.
    fn push_parts(
        &mut self,
        k: Option<i64>,
        re: impl Fn(i64) -> (f64, f64),
        im: impl Fn(i64) -> (f64, f64),
        mag4: f64,
    ) {
        let split32 = |(hi, lo): (f64, f64)| {
            let hi32 = hi as f32;
            (hi32, ((hi - f64::from(hi32)) + lo) as f32)
        };
        let tiny = |limit: i32| k.filter(|&k| k < i64::from(limit)).unwrap_or(0);
        let (e64, e32) = (tiny(<f64 as Real>::TINY_EXP), tiny(<f32 as Real>::TINY_EXP));
        let (re64, im64) = (re(e64), im(e64));
        let (re_for32, im_for32) = if e32 == e64 { (re64, im64) } else { (re(e32), im(e32)) };
        self.mag4.push(mag4);
        self.mag4_32.push(mag4 as f32);
        let ((re32, re32_lo), (im32, im32_lo)) = (split32(re_for32), split32(im_for32));
        self.re.push(re64.0);
        self.im.push(im64.0);
        self.re_lo.push(re64.1);
        self.im_lo.push(im64.1);
        self.exp.push(e64 as i32);
        self.re32.push(re32);
        self.im32.push(im32);
        self.re32_lo.push(re32_lo);
        self.im32_lo.push(im32_lo);
        self.exp32.push(e32 as i32);
    }

    /// The BLA table of this orbit (its `f64` values; tiny values get no step) for pixels with
    /// `|dc| <= dc_max` ([`BlaTable`]).
    #[must_use]
    pub fn bla_table(&self, dc_max: FloatExp) -> BlaTable {
        BlaTable::build(&self.re, &self.im, &self.exp, &self.mag4, self.last_f64, dc_max)
    }

    /// Steps iterated in arbitrary precision.
    #[must_use]
    pub fn steps(&self) -> usize {
        self.re.len() - 1
    }
}
