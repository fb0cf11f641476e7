//! Decimal text of arbitrary-precision values: a significant-digit cut and the plain form
//! where it is short (used for view centres and minibrot nuclei).

use astro_float::{BigFloat, Consts, Radix};

use super::perturb::{RM, mant_exp};

/// Why a big value could not be written in decimal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecimalError {
    #[error("arbitrary precision unavailable: {0}")]
    Unavailable(String),
    #[error("formatting a number: {0}")]
    Format(String),
}

/// `v` as a decimal string of `keep` significant digits (written plainly where short).
///
/// # Errors
/// astro-float's constants cannot be made (out of memory) or the value cannot be formatted.
pub fn decimal(v: &BigFloat, keep: usize) -> Result<String, DecimalError> {
    let mut cc = Consts::new().map_err(|e| DecimalError::Unavailable(e.to_string()))?;
    let s = v.format(Radix::Dec, RM, &mut cc).map_err(|e| DecimalError::Format(format!("{e:?}")))?;
    Ok(positional(&significant(&s, keep)))
}

/// `d.ddddde-N` cut to `keep` significant digits.
pub fn significant(s: &str, keep: usize) -> String {
    let (m, e) = s.split_once('e').unwrap_or((s, ""));
    let mut out = String::new();
    let mut n = 0;
    for ch in m.chars() {
        if ch.is_ascii_digit() {
            if n == keep {
                continue;
            }
            n += 1;
        }
        out.push(ch);
    }
    if e.is_empty() { out } else { format!("{out}e{e}") }
}

/// `d.ddd000e-N` written without its exponent where that is short (`-0.0001234`, `12.5`), else
/// with its mantissa's trailing zeros trimmed.
pub fn positional(s: &str) -> String {
    let Some((m, e)) = s.split_once('e') else { return s.to_owned() };
    let Ok(e) = e.trim_start_matches('+').parse::<i64>() else { return s.to_owned() };
    let (sign, m) = m.strip_prefix('-').map_or(("", m), |m| ("-", m));
    let (int, frac) = m.split_once('.').unwrap_or((m, ""));
    if !(-8..=8).contains(&e) {
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{sign}{m}e{e}");
    }
    let digits = format!("{int}{frac}");
    let point = int.len() as i64 + e;
    let text = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
    };
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    let text = text.trim_start_matches('0');
    let text = if text.is_empty() || text.starts_with('.') { format!("0{text}") } else { text.to_owned() };
    if text == "0" { text } else { format!("{sign}{text}") }
}

/// Significant digits of a decimal string and the power of ten its last digit is worth
/// (`"-1.2500"`: 5 and -4); `None` for a value without digits or zero.
pub(crate) fn decimal_digits(text: &str) -> Option<(usize, i64)> {
    let t = text.trim();
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
        None => (t, 0),
    };
    let digits = mant.strip_prefix(['+', '-']).unwrap_or(mant);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all: String = int.chars().chain(frac.chars()).collect();
    let significant = all.trim_start_matches('0').len();
    (significant > 0).then(|| (significant, exp - frac.len() as i64))
}

/// `log10 |v|` for any `v` (`-inf` for 0).
#[must_use]
pub fn log10_abs(v: &BigFloat) -> f64 {
    let (m, e) = mant_exp(v);
    m.abs().log10() + e as f64 * std::f64::consts::LOG10_2
}

/// A zoom as the readouts write it: `1e123`, `3.2e-5`, `12`.
#[must_use]
pub fn format_zoom(log10: f64) -> String {
    if (-3.0..6.0).contains(&log10) {
        let v = 10f64.powf(log10);
        let s = format!("{v:.3}");
        return s.trim_end_matches('0').trim_end_matches('.').to_owned();
    }
    let e = log10.floor();
    let m = 10f64.powf(log10 - e);
    if (m - 1.0).abs() < 0.005 { format!("1e{e}") } else { format!("{m:.2}e{e}") }
}
