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
//! The orbit itself ([`iterate`]) computes the three squares of a step (`zr^2`, `zi^2`,
//! `(zr + zi)^2`) on up to three threads, as Kalles Fraktaler does, joined every step by a
//! spin barrier ([`orbit_threads`] picks the count from the precision: a square of a few limbs
//! is shorter than the barrier).
//!
//! Measured against `astro-float` (the crate's arbitrary-precision floats, still used for the
//! view's bounds and the direct reference): see docs/PERFORMANCE.md, deep-zoom section.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread::ScopedJoinHandle;

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
        // astro-float's words are 64 bits natively, 32 on wasm32 (the browser build).
        let word_bits = astro_float::WORD_BIT_SIZE as i64;
        let shift = i64::from(e) - word_bits * words.len() as i64 + 64 * n as i64 - INT_BITS;
        if i64::from(e) > INT_BITS - 1 {
            return None;
        }
        for (i, &w) in words.iter().enumerate() {
            #[allow(clippy::useless_conversion, reason = "a word is u32 on wasm32, u64 natively")]
            let w = u64::from(w);
            // Bit position of this word's bit 0 in the result.
            let p = word_bits * i as i64 + shift;
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
    /// of its last bit), then those from `n - 1` on, shifted by the 8 integer bits. `square`
    /// says how ([`Square::best`]: `mulx`/`adcx`/`adox` where the CPU has them); every kind
    /// gives the same limbs.
    pub fn square_into(out: &mut Self, a: &Self, wide: &mut [u64], square: Square) {
        let n = a.mag.len();
        let low = n.saturating_sub(2);
        square.columns(&a.mag, low, wide);
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

/// The columns `low..2 n` of `x^2` (`n = x.len()`; the products `x_i x_j` with `i + j >= low`
/// only) into `wide[low..2 n]`, column by column (Comba): the products of a column are
/// independent, so the multiplies overlap instead of waiting on a carry chain; the
/// off-diagonal sum doubled, the diagonal square and the carry added once a column. The
/// portable square, and the twin of the x86-64 one (`limbs_x86`).
pub fn portable_columns(x: &[u64], low: usize, wide: &mut [u64]) {
    let n = x.len();
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
}

/// How the orbit squares: the portable column-wise square, or (x86-64 with BMI2 and ADX) the
/// row-wise one with two carry chains. The same limbs either way.
#[derive(Clone, Copy, Debug)]
pub enum Square {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Adx(super::limbs_x86::Adx),
}

impl Square {
    /// The fastest this CPU has (`WAVEBROT_NO_ADX` set: the portable one).
    #[must_use]
    pub fn best() -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(adx) = super::limbs_x86::Adx::detect() {
            return Self::Adx(adx);
        }
        Self::Portable
    }

    /// The columns `low..2 n` of `x^2` into `wide[low..2 n]` (see [`portable_columns`]).
    pub fn columns(self, x: &[u64], low: usize, wide: &mut [u64]) {
        match self {
            Self::Portable => portable_columns(x, low, wide),
            #[cfg(target_arch = "x86_64")]
            Self::Adx(adx) => adx.square_columns(x, low, wide),
        }
    }
}

/// Fewest limbs at which the orbit's squares are spread over threads. A square of `n` limbs
/// takes about `0.35 n^2` ns on one core here (1.2 µs at 59 limbs, 35 ns at 5), a barrier
/// about 0.1 to 0.3 µs: from 16 limbs (~90 ns a square) the threads pay. Measured in
/// docs/PERFORMANCE.md (issue 21's orbit section).
pub const THREAD_MIN_LIMBS: usize = 16;

/// Threads for the orbit at `n` limbs on a machine with `cores` hardware threads: 1 below
/// [`THREAD_MIN_LIMBS`], else up to 3 (one square each).
#[must_use]
pub fn orbit_threads(n: usize, cores: usize) -> usize {
    if n < THREAD_MIN_LIMBS { 1 } else { cores.clamp(1, 3) }
}

/// Why [`iterate`] stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLong(pub usize);

/// The orbit `Z_0 = 0, Z_{k+1} = Z_k^2 + C` of `C = cr + i ci` in fixed point: `push(zr, zi,
/// |Z|^2 - 4)` for `Z_0`, `Z_1`, ... up to the first `|Z|^2 >= 4`, `Z_iters`, or the first
/// value for which `push` returns `false`, with `threads` (1 to 3) sharing each step's three
/// squares.
///
/// # Errors
/// [`TooLong`] when the orbit would need more than `max_steps` steps.
pub fn iterate(
    cr: &Fixed,
    ci: &Fixed,
    iters: u32,
    max_steps: usize,
    threads: usize,
    push: &mut dyn FnMut(&Fixed, &Fixed, &Fixed) -> bool,
) -> Result<(), TooLong> {
    iterate_with(Square::best(), cr, ci, iters, max_steps, threads, push)
}

/// [`iterate`] with the square chosen (the tests compare the kinds; the values are the same).
///
/// # Errors
/// [`TooLong`] when the orbit would need more than `max_steps` steps.
pub fn iterate_with(
    square: Square,
    cr: &Fixed,
    ci: &Fixed,
    iters: u32,
    max_steps: usize,
    threads: usize,
    push: &mut dyn FnMut(&Fixed, &Fixed, &Fixed) -> bool,
) -> Result<(), TooLong> {
    let helpers = threads.clamp(1, 3) - 1;
    if helpers == 0 {
        return Steps::new(cr, ci, square).run(iters, max_steps, &mut Vec::new(), push);
    }
    let n = cr.mag.len();
    let slots: Vec<Slot> = (0..helpers).map(|_| Slot::new(n)).collect();
    std::thread::scope(|scope| {
        let mut workers = Vec::with_capacity(helpers);
        for (k, slot) in slots.iter().enumerate() {
            let spawned = std::thread::Builder::new()
                .name(format!("wavebrot-orbit-{}", k + 1))
                .spawn_scoped(scope, move || slot.serve(square));
            // A helper that cannot start leaves its square to the caller's thread.
            workers.push(spawned.ok().map(|h| Helper { slot, handle: h }));
        }
        let mut live: Vec<Helper<'_, '_>> = workers.into_iter().flatten().collect();
        let result = Steps::new(cr, ci, square).run(iters, max_steps, &mut live, push);
        for slot in &slots {
            slot.stop.store(true, Ordering::Release);
        }
        result
    })
}

/// One helper thread's mailbox: the value to square and its square, handed over by sequence
/// numbers (`posted` by the caller, `done` by the helper); the mutex is never contended.
struct Slot {
    posted: AtomicU64,
    done: AtomicU64,
    stop: AtomicBool,
    data: Mutex<SlotData>,
}

struct SlotData {
    input: Fixed,
    output: Fixed,
    wide: Vec<u64>,
}

impl Slot {
    fn new(n: usize) -> Self {
        Self {
            posted: AtomicU64::new(0),
            done: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            data: Mutex::new(SlotData { input: Fixed::zero(n), output: Fixed::zero(n), wide: vec![0; 2 * n] }),
        }
    }

    /// The helper's loop: square each posted value until told to stop.
    fn serve(&self, square: Square) {
        let mut seen = 0;
        loop {
            let mut spins = 0u32;
            let next = loop {
                let p = self.posted.load(Ordering::Acquire);
                if p != seen {
                    break p;
                }
                if self.stop.load(Ordering::Acquire) {
                    return;
                }
                backoff(&mut spins);
            };
            {
                let mut d = self.data.lock().unwrap_or_else(PoisonError::into_inner);
                let SlotData { input, output, wide } = &mut *d;
                Fixed::square_into(output, input, wide, square);
            }
            seen = next;
            self.done.store(next, Ordering::Release);
        }
    }
}

/// Spins before a waiting thread yields.
const SPINS: u32 = 4096;

/// Spin (a step is microseconds long), then yield once the wait grows (a loaded machine).
fn backoff(spins: &mut u32) {
    *spins += 1;
    if *spins < SPINS {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

struct Helper<'s, 'scope> {
    slot: &'s Slot,
    handle: ScopedJoinHandle<'scope, ()>,
}

impl Helper<'_, '_> {
    /// Hands `v` to the helper as step `seq`'s square.
    fn post(&self, v: &Fixed, seq: u64) {
        {
            let mut d = self.slot.data.lock().unwrap_or_else(PoisonError::into_inner);
            d.input.neg = v.neg;
            d.input.mag.copy_from_slice(&v.mag);
        }
        self.slot.posted.store(seq, Ordering::Release);
    }

    /// Waits for step `seq`'s square and swaps it into `out`: `None` if the helper is gone,
    /// else whether it was late (the wait outlasted the spinning: the helper had no core).
    fn take(&self, out: &mut Fixed, seq: u64) -> Option<bool> {
        let mut spins = 0u32;
        while self.slot.done.load(Ordering::Acquire) != seq {
            if self.handle.is_finished() {
                return None;
            }
            backoff(&mut spins);
        }
        let mut d = self.slot.data.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::swap(out, &mut d.output);
        Some(spins >= SPINS)
    }
}

/// The orbit's state on the caller's thread (no allocation in the loop).
struct Steps<'a> {
    cr: &'a Fixed,
    ci: &'a Fixed,
    four: Fixed,
    zr: Fixed,
    zi: Fixed,
    zr2: Fixed,
    zi2: Fixed,
    sum: Fixed,
    t: Fixed,
    u: Fixed,
    v: Fixed,
    mag4: Fixed,
    wide: Vec<u64>,
    square: Square,
    /// Helper squares that came late (see [`Self::squares`]).
    late: u64,
}

impl<'a> Steps<'a> {
    fn new(cr: &'a Fixed, ci: &'a Fixed, square: Square) -> Self {
        let n = cr.mag.len();
        let mut four = Fixed::zero(n);
        // 4 = 2^2: bit 2 of the integer part.
        let bit = 64 * n - INT_BITS as usize + 2;
        four.mag[bit / 64] = 1 << (bit % 64);
        let z = || Fixed::zero(n);
        Self {
            cr,
            ci,
            four,
            zr: z(),
            zi: z(),
            zr2: z(),
            zi2: z(),
            sum: z(),
            t: z(),
            u: z(),
            v: z(),
            mag4: z(),
            wide: vec![0; 2 * n],
            square,
            late: 0,
        }
    }

    /// `zr^2`, `zi^2` and `(zr + zi)^2` of the current `Z`, the first two on the helpers when
    /// there are any (the last always here).
    fn squares(&mut self, helpers: &mut Vec<Helper<'_, '_>>, seq: u64) {
        Fixed::add_into(&mut self.sum, &self.zr, &self.zi, false);
        if let Some(h) = helpers.first() {
            h.post(&self.zr, seq);
        }
        if let Some(h) = helpers.get(1) {
            h.post(&self.zi, seq);
        }
        Fixed::square_into(&mut self.t, &self.sum, &mut self.wide, self.square);
        if helpers.len() < 2 {
            Fixed::square_into(&mut self.zi2, &self.zi, &mut self.wide, self.square);
        }
        if helpers.is_empty() {
            Fixed::square_into(&mut self.zr2, &self.zr, &mut self.wide, self.square);
        }
        let mut lost = false;
        if let Some(h) = helpers.get(1) {
            match h.take(&mut self.zi2, seq) {
                Some(late) => self.late += u64::from(late),
                None => {
                    Fixed::square_into(&mut self.zi2, &self.zi, &mut self.wide, self.square);
                    lost = true;
                }
            }
        }
        if let Some(h) = helpers.first() {
            match h.take(&mut self.zr2, seq) {
                Some(late) => self.late += u64::from(late),
                None => {
                    Fixed::square_into(&mut self.zr2, &self.zr, &mut self.wide, self.square);
                    lost = true;
                }
            }
        }
        // Helpers that keep coming late have no core of their own (a loaded machine: each
        // step would wait for the scheduler, measured 360 us a step instead of 0.8 on 2 busy
        // cores), and a helper that died (it cannot, but a panic must not hang the orbit):
        // go on alone; the values are the same.
        if lost || self.late > 16 + seq / 256 {
            for h in helpers.iter() {
                h.slot.stop.store(true, Ordering::Release);
            }
            helpers.clear();
        }
    }

    fn run(
        mut self,
        iters: u32,
        max_steps: usize,
        helpers: &mut Vec<Helper<'_, '_>>,
        push: &mut dyn FnMut(&Fixed, &Fixed, &Fixed) -> bool,
    ) -> Result<(), TooLong> {
        for step in 0..=iters {
            self.squares(helpers, u64::from(step) + 1);
            // |Z|^2 - 4 of the current Z, then Z^2 + C (2 zr zi = (zr + zi)^2 - zr^2 - zi^2).
            Fixed::add_into(&mut self.u, &self.zr2, &self.zi2, false);
            Fixed::add_into(&mut self.mag4, &self.u, &self.four, true);
            let go_on = push(&self.zr, &self.zi, &self.mag4);
            if !go_on || !self.mag4.neg || step == iters {
                break;
            }
            if step as usize >= max_steps {
                return Err(TooLong(max_steps));
            }
            Fixed::add_into(&mut self.u, &self.zr2, &self.zi2, true);
            Fixed::add_into(&mut self.zr, &self.u, self.cr, false);
            Fixed::add_into(&mut self.u, &self.t, &self.zr2, true);
            Fixed::add_into(&mut self.v, &self.u, &self.zi2, true);
            Fixed::add_into(&mut self.zi, &self.v, self.ci, false);
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "orbit_fixed_tests.rs"]
mod tests;
