//! The reference orbit's square on x86-64 with BMI2 and ADX: `mulx` (a 64 x 64 -> 128-bit
//! multiply that leaves the flags alone) and `adcx`/`adox` (additions that carry through CF and
//! OF only), so each product's low half joins two independent carry chains instead of one, as
//! GMP's `mpn_addmul_1` for Broadwell+/Zen does (the technique; the code is written here).
//!
//! The square is row-wise (operand scanning): each row `x_j * x[i0..j]` is added into the
//! wide result by [`Adx::addmul_row`], the off-diagonal sum is doubled by a shift and the diagonal squares
//! are added (`mulx`, `adcx w, w` and `adox`: `Adx::double_add_diagonal`). It computes exactly the sum of the
//! products that the portable column-wise square (`orbit_fixed::Fixed::square_into`) keeps
//! (those of columns `i + j >= low`), so its limbs are that square's, bit for bit
//! (`tests::rows_match_the_portable_columns_bit_for_bit`).
//!
//! [`Adx::detect`] checks the CPU once; an [`Adx`] value is the proof that the instructions
//! exist, so the one `unsafe` block needs no other promise from its callers.

use std::arch::asm;
use std::sync::OnceLock;

/// Proof that this CPU has BMI2 and ADX (only [`Adx::detect`] makes one).
#[derive(Clone, Copy, Debug)]
pub struct Adx(());

impl Adx {
    /// `Some` where the CPU has `mulx`, `adcx` and `adox` (checked once, then cached), unless
    /// the environment variable `WAVEBROT_NO_ADX` is set (to time or test the portable square
    /// on the same machine).
    #[must_use]
    pub fn detect() -> Option<Self> {
        static HAS: OnceLock<bool> = OnceLock::new();
        let has = *HAS.get_or_init(|| {
            std::env::var_os("WAVEBROT_NO_ADX").is_none()
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("adx")
        });
        has.then_some(Self(()))
    }

    /// The columns `low..2 n` of `x^2` (`n = x.len()`, products `x_i x_j` with `i + j >= low`
    /// only) into `wide[low..2 n]`; `wide[..low]` is left as it was.
    ///
    /// # Panics
    /// If `wide` is shorter than `2 n` or `x` is empty.
    pub fn square_columns(self, x: &[u64], low: usize, wide: &mut [u64]) {
        let n = x.len();
        assert!(n > 0 && wide.len() >= 2 * n, "square_columns: {n} limbs, {} wide", wide.len());
        let wide = &mut wide[..2 * n];
        wide[low..].fill(0);
        // Off-diagonal products, a row for each larger index j: x_j x[i0..j] added at column
        // i0 + j (i0 = low - j, so i + j >= low), its carry stored in column 2 j, which no
        // earlier row reached (row j - 1 ends at column 2 j - 3 and carries into 2 j - 2).
        // About n / 2 rows of n / 2 limbs on average: half the rows, twice as long, as those
        // of the smaller index.
        for j in 1..n {
            let i0 = low.saturating_sub(j);
            if i0 < j {
                wide[2 * j] = self.addmul_row(&mut wide[i0 + j..2 * j], &x[i0..j], x[j]);
            }
        }
        self.double_add_diagonal(x, low, wide);
    }

    /// `wide[low..2 n] = 2 wide[low..2 n] + the diagonal squares x_i^2 at column 2 i (2 i >=
    /// low)`: the doubling is `adcx w, w` (a shift left by one through CF), the squares join
    /// on the OF chain. Neither chain carries out of the top: the off-diagonal sum is below
    /// `x^2 / 2`, and the whole below `x^2 < 2^(128 n)`.
    #[expect(unsafe_code, reason = "mulx/adcx/adox have no stable Rust form; the loop is one asm! block")]
    fn double_add_diagonal(self, x: &[u64], low: usize, wide: &mut [u64]) {
        let n = x.len();
        assert!(
            n > 0 && low <= n.saturating_sub(2) && wide.len() >= 2 * n,
            "double_add_diagonal: {n} limbs from {low}"
        );
        let first = low.div_ceil(2); // the first diagonal square's limb index, <= n - 1
        // SAFETY: `self` proves the CPU has BMI2 and ADX. rcx runs from first - n (< 0) up to
        // exactly 0, one a trip, so `x` is read at `x_end + 8 rcx`, indices first..n; `wp`
        // starts at column low (an odd low's own limb handled first, then wp at low + 1 =
        // 2 first) and moves 16 bytes a trip, so the trips read and write columns 2 first ..
        // 2 n, all inside `wide[..2 n]` (checked above). `test` clears CF and OF before the
        // chains; after it only mov, mulx, adcx, adox, lea and jumps run. No stack is used.
        unsafe {
            asm!(
                "test {odd}, {odd}",
                "jz 2f",
                // An odd low: its column has no square, only the doubling.
                "mov {w0}, [{wp}]",
                "adcx {w0}, {w0}",
                "mov [{wp}], {w0}",
                "lea {wp}, [{wp} + 8]",
                "2:",
                "mov rdx, [{x} + rcx*8]",
                "mulx {dh}, {dl}, rdx",
                "mov {w0}, [{wp}]",
                "mov {w1}, [{wp} + 8]",
                "adcx {w0}, {w0}",
                "adcx {w1}, {w1}",
                "adox {w0}, {dl}",
                "adox {w1}, {dh}",
                "mov [{wp}], {w0}",
                "mov [{wp} + 8], {w1}",
                "lea {wp}, [{wp} + 16]",
                "lea rcx, [rcx + 1]",
                "jrcxz 3f",
                "jmp 2b",
                "3:",
                odd = in(reg) (low % 2) as u64,
                x = in(reg) x.as_ptr().add(n),
                wp = inout(reg) wide.as_mut_ptr().add(low) => _,
                inout("rcx") first as isize - n as isize => _,
                out("rdx") _,
                dh = out(reg) _,
                dl = out(reg) _,
                w0 = out(reg) _,
                w1 = out(reg) _,
                options(nostack),
            );
        }
    }

    /// `r += v * u` over `r.len() == u.len()` limbs; returns the carry limb (the sum fits in
    /// `len + 1` limbs: `r + v u < 2^(64 len) + (2^64 - 1) 2^(64 len)`).
    ///
    /// # Panics
    /// If the lengths differ or are 0.
    #[expect(unsafe_code, reason = "mulx/adcx/adox have no stable Rust form; the loop is one asm! block")]
    pub fn addmul_row(self, r: &mut [u64], u: &[u64], v: u64) -> u64 {
        let m = u.len();
        assert!(m > 0 && r.len() == m, "addmul_row: {} and {m} limbs", r.len());
        let carry: u64;
        // SAFETY: `self` proves the CPU has BMI2 (mulx) and ADX (adcx, adox). The loop reads
        // `u[0..m]` and reads and writes `r[0..m]` only: every address is `end + 8 (rcx + k)`
        // with `end` the slice's one-past-the-end pointer (`add(m)` of a slice of m elements
        // is in bounds) and k in 0..4; rcx starts at -m - s (s = -m mod 4 < 4) and the entry
        // at body Ls skips exactly the k < s of the first trip, so the
        // first access is index 0; rcx rises by 4 a trip to exactly 0 (m + s is a multiple of
        // 4), where the last access was `end - 8`. The two slices do not overlap (`&mut` and
        // `&`). Flags: the `xor` at each entry clears CF and OF before the chains start; after
        // it only mulx, adcx, adox, mov, lea and jumps run, none of which touches CF or OF
        // except the adds themselves. No stack is used; rdx (the multiplier) is read only.
        unsafe {
            asm!(
                // Four limbs a trip (bodies L0..L3, the high halves alternating in a and b);
                // m not a multiple of 4 enters at Ls with rcx lowered by s = -m mod 4.
                "mov {lo:e}, ecx",
                "and {lo:e}, 3",
                "sub rcx, {lo}",
                "xor {b:e}, {b:e}",
                "cmp {lo:e}, 1",
                "je 5f",
                "cmp {lo:e}, 2",
                "je 6f",
                "cmp {lo:e}, 3",
                "je 7f",
                // Each entry zeroes a, which also clears CF and OF for the two chains.
                "xor {a:e}, {a:e}",
                "jmp 2f",
                "5:",
                "xor {a:e}, {a:e}",
                "jmp 41f",
                "6:",
                "xor {a:e}, {a:e}",
                "jmp 42f",
                "7:",
                "xor {a:e}, {a:e}",
                "jmp 43f",
                // Limb at rcx + k: lo + (previous high, CF chain) + r (OF chain).
                "2:",
                "mulx {b}, {lo}, [{u} + rcx*8]",
                "adcx {lo}, {a}",
                "adox {lo}, [{r} + rcx*8]",
                "mov [{r} + rcx*8], {lo}",
                "41:",
                "mulx {a}, {lo}, [{u} + rcx*8 + 8]",
                "adcx {lo}, {b}",
                "adox {lo}, [{r} + rcx*8 + 8]",
                "mov [{r} + rcx*8 + 8], {lo}",
                "42:",
                "mulx {b}, {lo}, [{u} + rcx*8 + 16]",
                "adcx {lo}, {a}",
                "adox {lo}, [{r} + rcx*8 + 16]",
                "mov [{r} + rcx*8 + 16], {lo}",
                "43:",
                "mulx {a}, {lo}, [{u} + rcx*8 + 24]",
                "adcx {lo}, {b}",
                "adox {lo}, [{r} + rcx*8 + 24]",
                "mov [{r} + rcx*8 + 24], {lo}",
                "lea rcx, [rcx + 4]",
                "jrcxz 3f",
                "jmp 2b",
                "3:",
                // The last high half plus both chains' carries (cannot overflow, see above).
                "mov {lo:e}, 0",
                "adcx {a}, {lo}",
                "adox {a}, {lo}",
                u = in(reg) u.as_ptr().add(m),
                r = in(reg) r.as_mut_ptr().add(m),
                inout("rcx") -(m as isize) => _,
                in("rdx") v,
                a = out(reg) carry,
                b = out(reg) _,
                lo = out(reg) _,
                options(nostack),
            );
        }
        carry
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fractal::orbit_fixed::portable_columns;

    /// xorshift64*: reproducible limbs without a crate.
    fn limbs(seed: &mut u64, n: usize) -> Vec<u64> {
        (0..n)
            .map(|_| {
                *seed ^= *seed >> 12;
                *seed ^= *seed << 25;
                *seed ^= *seed >> 27;
                seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
            })
            .collect()
    }

    #[test]
    fn addmul_row_is_exact() {
        let Some(adx) = Adx::detect() else {
            crate::test_skip::skip("cpu-adx", "this CPU has no BMI2/ADX");
            return;
        };
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for m in 1..=20 {
            for all_ones in [false, true] {
                let (u, r0) = if all_ones {
                    (vec![u64::MAX; m], vec![u64::MAX; m])
                } else {
                    (limbs(&mut seed, m), limbs(&mut seed, m))
                };
                let v = if all_ones { u64::MAX } else { limbs(&mut seed, 1)[0] };
                let mut r = r0.clone();
                let carry = adx.addmul_row(&mut r, &u, v);
                // Schoolbook in u128, one carry chain.
                let (mut want, mut c) = (Vec::with_capacity(m), 0u128);
                for (&uj, &rj) in u.iter().zip(&r0) {
                    let t = u128::from(uj) * u128::from(v) + u128::from(rj) + c;
                    want.push(t as u64);
                    c = t >> 64;
                }
                assert_eq!((r, carry), (want, c as u64), "m {m}, all ones {all_ones}");
            }
        }
    }

    #[test]
    fn rows_match_the_portable_columns_bit_for_bit() {
        let Some(adx) = Adx::detect() else {
            crate::test_skip::skip("cpu-adx", "this CPU has no BMI2/ADX");
            return;
        };
        let mut seed = 0x0123_4567_89ab_cdef;
        for n in 1..=64 {
            for case in 0..4 {
                let x = match case {
                    0 => vec![u64::MAX; n],
                    1 => {
                        let mut x = vec![u64::MAX; n];
                        x[n - 1] = 0x00ff_ffff_ffff_ffff; // |z| < 2^8: the orbit's own range
                        x
                    }
                    _ => limbs(&mut seed, n),
                };
                let low = n.saturating_sub(2);
                let (mut want, mut got) = (vec![7u64; 2 * n], vec![7u64; 2 * n]);
                portable_columns(&x, low, &mut want);
                adx.square_columns(&x, low, &mut got);
                assert_eq!(got[low..], want[low..], "{n} limbs, case {case}");
                // And untruncated (every column): the exact square, against u128 schoolbook.
                let mut full = vec![0u64; 2 * n];
                adx.square_columns(&x, 0, &mut full);
                let mut exact = vec![0u64; 2 * n];
                for i in 0..n {
                    let mut c = 0u128;
                    for j in 0..n {
                        let t = u128::from(x[i]) * u128::from(x[j]) + u128::from(exact[i + j]) + c;
                        exact[i + j] = t as u64;
                        c = t >> 64;
                    }
                    exact[i + n] = c as u64;
                }
                assert_eq!(full, exact, "{n} limbs, case {case}, all columns");
            }
        }
    }
}
