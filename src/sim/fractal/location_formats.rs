//! The community's location files, read and written as text (pure: strings in, typed errors
//! out; `crate::files` reads and writes the files):
//!
//! - **Kalles Fraktaler** `.kfr`: `Key: Value` lines (`\r\n` ends are common), of which wavebrot
//!   reads `Re`, `Im`, `Zoom` and `Iterations` (KF's `CFraktalSFT::OpenString`; KF writes them
//!   first, in that order, then 60-odd colouring and algorithm keys);
//! - **Fraktaler 3** TOML: `[location]` `real`, `imag`, `zoom` (strings) and `[bailout]`
//!   `iterations` (fraktaler-3's `param.cc`);
//! - **rust-fractal** TOML: top-level `real`, `imag`, `zoom` (strings) and `iterations`
//!   (rust-fractal-core's `benchmarks/*.toml`, as in `assets/locations/rfc-*.toml`).
//!
//! Their zoom is 4 / the view's height, wavebrot's 2 / the height: wavebrot's zoom is theirs / 2,
//! computed exactly on the decimal digits ([`half_decimal`], [`double_decimal`]), so a `.kfr`
//! read and written again keeps every digit. Keys wavebrot does not use are ignored, with a note.

use super::deep::View;
use super::location::{Location, LocationError};
use super::view_error::ValueNames;

/// The formats a location file can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocationFormat {
    /// wavebrot's own TOML (`re`, `im`, `zoom`, `iters`, `[colour]`).
    Wavebrot,
    /// Kalles Fraktaler's `.kfr`.
    Kfr,
    /// Fraktaler 3's TOML (`[location]`, `[bailout]`).
    Fraktaler3,
    /// rust-fractal's TOML (`real`, `imag`, `zoom`, `iterations`).
    RustFractal,
}

impl LocationFormat {
    /// The format in words, for notes.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Wavebrot => "wavebrot location",
            Self::Kfr => "Kalles Fraktaler .kfr",
            Self::Fraktaler3 => "Fraktaler 3 location",
            Self::RustFractal => "rust-fractal location",
        }
    }
}

/// A location read from a file of any format, with what was left out of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub location: Location,
    pub format: LocationFormat,
    /// One line per thing ignored (keys wavebrot does not use).
    pub notes: Vec<String>,
}

/// The one line said of a text that is none of the formats.
pub const EXPECTED: &str = "expected a wavebrot location (TOML: re, im, zoom, iters), a Kalles Fraktaler .kfr (Re:, \
                            Im:, Zoom:, Iterations: lines) or a Fraktaler 3 / rust-fractal TOML (real, imag, zoom, \
                            iterations)";

/// Reads a location of any of the formats, told apart by their keys.
///
/// # Errors
/// One line: what is wrong, naming the key (or the line), or [`EXPECTED`] for a text that is
/// none of them.
pub fn parse_any(text: &str) -> Result<Imported, LocationError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.lines().any(|l| kfr_pair(l).is_some_and(|(k, _)| k == "Re")) {
        return parse_kfr(text);
    }
    let table: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        // TOML that does not parse: wavebrot's own parser says where.
        Err(_) if text.lines().any(|l| l.contains('=')) => {
            return Location::from_toml(text).map(|location| Imported {
                location,
                format: LocationFormat::Wavebrot,
                notes: Vec::new(),
            });
        }
        Err(_) => return Err(LocationError::NotALocation(EXPECTED)),
    };
    if table.get("location").is_some_and(toml::Value::is_table) {
        parse_fraktaler3(&table)
    } else if table.contains_key("real") || table.contains_key("imag") {
        parse_rust_fractal(&table)
    } else if ["re", "im", "zoom", "iters"].iter().any(|k| table.contains_key(*k)) {
        let location = Location::from_toml(text)?;
        Ok(Imported { location, format: LocationFormat::Wavebrot, notes: Vec::new() })
    } else {
        Err(LocationError::NotALocation(EXPECTED))
    }
}

/// `Key: Value` of a `.kfr` line (`None` for a line without a colon or an empty key).
fn kfr_pair(line: &str) -> Option<(&str, &str)> {
    let (k, v) = line.split_once(':')?;
    let k = k.trim();
    (!k.is_empty() && !k.contains(char::is_whitespace)).then(|| (k, v.trim()))
}

/// Reads a Kalles Fraktaler `.kfr` text.
///
/// # Errors
/// A missing or bad `Re`, `Im`, `Zoom` or `Iterations` (the message names it).
pub fn parse_kfr(text: &str) -> Result<Imported, LocationError> {
    let pairs: Vec<(&str, &str)> = text.lines().filter_map(kfr_pair).collect();
    let get = |key: &'static str| {
        pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).ok_or(LocationError::Missing { key, format: ".kfr" })
    };
    let (re, im, zoom) = (get("Re")?, get("Im")?, get("Zoom")?);
    let names = ValueNames { re: "Re", im: "Im", zoom: "Zoom" };
    View { re: re.to_owned(), im: im.to_owned(), zoom: zoom.to_owned() }.validate_named(names)?;
    let iters = iterations("Iterations", get("Iterations")?)?;
    let ignored: Vec<&str> =
        pairs.iter().map(|(k, _)| *k).filter(|k| !["Re", "Im", "Zoom", "Iterations"].contains(k)).collect();
    let location = their_location(re, im, zoom, iters, "Zoom")?;
    Ok(Imported { location, format: LocationFormat::Kfr, notes: ignored_note(LocationFormat::Kfr, &ignored) })
}

/// Reads a Fraktaler 3 TOML table.
fn parse_fraktaler3(table: &toml::Table) -> Result<Imported, LocationError> {
    const FORMAT: &str = "Fraktaler 3 location";
    let empty = toml::Table::new();
    let section = |name: &str| table.get(name).and_then(toml::Value::as_table).unwrap_or(&empty);
    let (location, bailout) = (section("location"), section("bailout"));
    let text = |t: &toml::Table, key: &'static str, full: &'static str| match t.get(key) {
        Some(toml::Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(LocationError::WrongType { key: full, found: other.type_str(), expected: "a string" }),
        None => Err(LocationError::Missing { key: full, format: FORMAT }),
    };
    let re = text(location, "real", "location.real")?;
    let im = text(location, "imag", "location.imag")?;
    let zoom = text(location, "zoom", "location.zoom")?;
    let names = ValueNames { re: "location.real", im: "location.imag", zoom: "location.zoom" };
    View { re: re.clone(), im: im.clone(), zoom: zoom.clone() }.validate_named(names)?;
    let iters = integer(bailout, "iterations", "bailout.iterations", FORMAT)?;
    let mut ignored = Vec::new();
    for (k, v) in table {
        match (k.as_str(), v.as_table()) {
            ("location", Some(t)) => {
                ignored.extend(
                    t.keys()
                        .filter(|k| !["real", "imag", "zoom"].contains(&k.as_str()))
                        .map(|k| format!("location.{k}")),
                );
            }
            ("bailout", Some(t)) => {
                ignored.extend(t.keys().filter(|k| *k != "iterations").map(|k| format!("bailout.{k}")));
            }
            _ => ignored.push(k.clone()),
        }
    }
    let ignored: Vec<&str> = ignored.iter().map(String::as_str).collect();
    let location = their_location(&re, &im, &zoom, iters, "location.zoom")?;
    Ok(Imported {
        location,
        format: LocationFormat::Fraktaler3,
        notes: ignored_note(LocationFormat::Fraktaler3, &ignored),
    })
}

/// Reads a rust-fractal TOML table.
fn parse_rust_fractal(table: &toml::Table) -> Result<Imported, LocationError> {
    const FORMAT: &str = "rust-fractal location";
    let text = |key: &'static str| match table.get(key) {
        Some(toml::Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(LocationError::WrongType { key, found: other.type_str(), expected: "a string" }),
        None => Err(LocationError::Missing { key, format: FORMAT }),
    };
    let (re, im, zoom) = (text("real")?, text("imag")?, text("zoom")?);
    let names = ValueNames { re: "real", im: "imag", zoom: "zoom" };
    View { re: re.clone(), im: im.clone(), zoom: zoom.clone() }.validate_named(names)?;
    let iters = integer(table, "iterations", "iterations", FORMAT)?;
    let ignored: Vec<&str> =
        table.keys().map(String::as_str).filter(|k| !["real", "imag", "zoom", "iterations"].contains(k)).collect();
    let location = their_location(&re, &im, &zoom, iters, "zoom")?;
    Ok(Imported {
        location,
        format: LocationFormat::RustFractal,
        notes: ignored_note(LocationFormat::RustFractal, &ignored),
    })
}

/// An integer key of `t` within wavebrot's iterations.
fn integer(t: &toml::Table, key: &str, full: &'static str, format: &'static str) -> Result<u32, LocationError> {
    match t.get(key) {
        Some(toml::Value::Integer(n)) => checked_iters(full, i128::from(*n)),
        Some(other) => Err(LocationError::WrongType { key: full, found: other.type_str(), expected: "an integer" }),
        None => Err(LocationError::Missing { key: full, format }),
    }
}

/// `.kfr`'s `Iterations` value.
fn iterations(key: &'static str, value: &str) -> Result<u32, LocationError> {
    let n: i128 = value.parse().map_err(|_| LocationError::WrongType { key, found: "text", expected: "an integer" })?;
    checked_iters(key, n)
}

fn checked_iters(key: &'static str, n: i128) -> Result<u32, LocationError> {
    match u32::try_from(n) {
        Ok(v) if (1..=i32::MAX as u32).contains(&v) => Ok(v),
        _ => Err(LocationError::Iters { key, value: n.to_string() }),
    }
}

/// The location of a centre and a zoom of the 4/height convention: the zoom halved.
fn their_location(
    re: &str,
    im: &str,
    zoom: &str,
    iters: u32,
    zoom_key: &'static str,
) -> Result<Location, LocationError> {
    let zoom = half_decimal(zoom).ok_or(LocationError::WrongType {
        key: zoom_key,
        found: "text",
        expected: "a decimal number",
    })?;
    Ok(Location { name: String::new(), re: re.to_owned(), im: im.to_owned(), zoom, iters, colour: None })
}

/// The note on the keys of a `format` file that wavebrot does not use (none: no note).
fn ignored_note(format: LocationFormat, keys: &[&str]) -> Vec<String> {
    const SHOWN: usize = 8;
    if keys.is_empty() {
        return Vec::new();
    }
    let mut list = keys.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
    if keys.len() > SHOWN {
        list += &format!(" and {} more", keys.len() - SHOWN);
    }
    vec![format!("{} keys ignored (wavebrot reads the centre, zoom and iterations): {list}", format.name())]
}

/// The location as a Kalles Fraktaler `.kfr` text (`\r\n` line ends, KF's order): `Re`, `Im`,
/// `Zoom` (wavebrot's doubled, exactly) and `Iterations`.
#[must_use]
pub fn to_kfr(loc: &Location) -> String {
    let zoom = double_decimal(&loc.zoom).unwrap_or_else(|| loc.zoom.clone());
    format!("Re: {}\r\nIm: {}\r\nZoom: {zoom}\r\nIterations: {}\r\n", loc.re.trim(), loc.im.trim(), loc.iters)
}

/// A decimal `[+-]digits[.digits][e[+-]digits]` as its sign, digits and the power of ten of
/// the last digit; whether it had an exponent, and its exponent letter.
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exp10: i64,
    exponent: Option<char>,
}

impl Decimal {
    fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        let (mant, exp, letter) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?, t[i..].chars().next()),
            None => (t, 0, None),
        };
        let negative = mant.starts_with('-');
        let body = mant.strip_prefix(['+', '-']).unwrap_or(mant);
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if (int.is_empty() && frac.is_empty()) || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
        Some(Self { negative, digits, exp10: exp.checked_sub(frac.len() as i64)?, exponent: letter })
    }

    /// The value times `k` (a small factor).
    fn times(&mut self, k: u8) {
        let mut carry = 0u8;
        for d in self.digits.iter_mut().rev() {
            let v = *d * k + carry;
            *d = v % 10;
            carry = v / 10;
        }
        if carry > 0 {
            self.digits.insert(0, carry);
        }
    }

    /// Digits from the first non-zero one (trailing zeros count: they were written).
    fn written_digits(&self) -> usize {
        self.digits.iter().position(|&d| d != 0).map_or(0, |first| self.digits.len() - first)
    }

    /// Drops trailing zeros while more than `keep` digits are left.
    fn trim_zeros_to(&mut self, keep: usize) -> Option<()> {
        while self.written_digits() > keep.max(1) && self.digits.last() == Some(&0) {
            self.digits.pop();
            self.exp10 = self.exp10.checked_add(1)?;
        }
        Some(())
    }

    /// The text: the digits as given (leading zeros dropped), with an exponent when the input
    /// had one (`letter`), else positional.
    fn format(&self, letter: Option<char>) -> String {
        let first = self.digits.iter().position(|&d| d != 0);
        let Some(first) = first else { return "0".to_owned() };
        let digits: String = self.digits[first..].iter().map(|d| char::from(b'0' + d)).collect();
        let sign = if self.negative { "-" } else { "" };
        let n = digits.len() as i64;
        if let Some(e) = letter {
            let (lead, rest) = digits.split_at(1);
            let point = if rest.is_empty() { String::new() } else { format!(".{rest}") };
            return format!("{sign}{lead}{point}{e}{}", self.exp10 + n - 1);
        }
        if self.exp10 >= 0 {
            format!("{sign}{digits}{}", "0".repeat(self.exp10 as usize))
        } else if -self.exp10 >= n {
            format!("{sign}0.{}{digits}", "0".repeat((-self.exp10 - n) as usize))
        } else {
            let (a, b) = digits.split_at((n + self.exp10) as usize);
            format!("{sign}{a}.{b}")
        }
    }
}

/// `text / 2`, exactly (times 5, one place down), with as many digits as `text` has or the
/// exact value needs (`1E1086` → `5e1085`, `4.00E533` → `2.00e533`, `3` → `1.5`).
#[must_use]
pub fn half_decimal(text: &str) -> Option<String> {
    let mut d = Decimal::parse(text)?;
    let n = d.written_digits();
    d.times(5);
    d.exp10 = d.exp10.checked_sub(1)?;
    d.trim_zeros_to(n)?;
    Some(d.format(d.exponent.map(|_| 'e')))
}

/// `text * 2`, exactly, undoing [`half_decimal`] digit for digit (`5e1085` → `1E1086`,
/// `2.00e533` → `4.00E533`, `1.5` → `3`): as many digits as `text` has, one fewer where it
/// ends in 5 (the digit halving added), or what the exact value needs.
#[must_use]
pub fn double_decimal(text: &str) -> Option<String> {
    let mut d = Decimal::parse(text)?;
    let n = d.written_digits() - usize::from(d.digits.last() == Some(&5));
    d.times(2);
    d.trim_zeros_to(n)?;
    Some(d.format(d.exponent.map(|_| 'E')))
}

#[cfg(test)]
#[path = "location_formats_tests.rs"]
mod tests;
