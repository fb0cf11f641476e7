//! Reading a scene file: the raw TOML form, and messages that name the key and the line.

use serde::Deserialize;

use super::scene_items::Boundary;
use super::scene_items::default_c2;

/// The largest stable `c2` of the 2D five-point leapfrog scheme (Courant number `1/sqrt(2)`).
pub const C2_LIMIT: f64 = 0.5;

/// The largest `damping` accepted (sigma per update; `1 - sigma` must stay well above 0).
pub const DAMPING_LIMIT: f64 = 0.5;

/// Why a scene cannot run: one line naming the entry and the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SceneError {
    /// A scene that parses but cannot run (`source 2: (x=500, y=3) is outside the 400x300 grid`).
    #[error("{0}")]
    Invalid(String),
    /// TOML that is not a scene (`source 1 (line 14): unknown field `freqq`, ...`).
    #[error("{0}")]
    Parse(String),
    /// A file that could not be read or written.
    #[error("{path}: {message}")]
    File { path: String, message: String },
    /// `--preset NAME` with no such preset.
    #[error("unknown preset `{name}`: the presets are {list}")]
    UnknownPreset { name: String, list: String },
}

/// What is wrong with `c2` (`0.7 is above the 2D stability limit 0.5`), if anything; the
/// caller puts the entry and key in front.
pub(super) fn c2_problem(c2: f64) -> Option<String> {
    if !c2.is_finite() || c2 <= 0.0 {
        Some(format!("{c2} must be a finite number > 0"))
    } else if c2 > C2_LIMIT {
        Some(format!("{c2} is above the 2D stability limit {C2_LIMIT}"))
    } else {
        None
    }
}

pub(super) fn check_rect(
    entry: &str,
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
    nx: usize,
    ny: usize,
) -> Result<(), SceneError> {
    for (n, x, y) in [("0", x0, y0), ("1", x1, y1)] {
        if !((0..nx as i64).contains(&x) && (0..ny as i64).contains(&y)) {
            return Err(SceneError::Invalid(format!("{entry}: (x{n}={x}, y{n}={y}) is outside the {nx}x{ny} grid")));
        }
    }
    if x0 > x1 || y0 > y1 {
        return Err(SceneError::Invalid(format!(
            "{entry}: corners (x0={x0}, y0={y0}), (x1={x1}, y1={y1}) need x0 <= x1 and y0 <= y1"
        )));
    }
    Ok(())
}

/// A scene file as read, before its entries are.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScene {
    #[serde(default)]
    pub(super) description: String,
    #[serde(default)]
    pub(super) description_axes: Vec<super::description::Axis>,
    pub(super) nx: usize,
    pub(super) ny: usize,
    #[serde(default = "default_c2")]
    pub(super) c2: f64,
    #[serde(default)]
    pub(super) damping: f64,
    #[serde(default)]
    pub(super) boundary: Boundary,
    #[serde(default)]
    pub(super) tmax: Option<u32>,
    #[serde(default)]
    pub(super) source: Vec<toml::Table>,
    #[serde(default)]
    pub(super) wall: Vec<toml::Table>,
    #[serde(default)]
    pub(super) medium: Vec<toml::Table>,
}

/// The line (from 1) of the `k`-th `[[name]]` header in `text`.
pub(super) fn header_line(text: &str, name: &str, k: usize) -> Option<usize> {
    text.lines().enumerate().filter(|(_, l)| is_header(l, name)).nth(k).map(|(n, _)| n + 1)
}

/// True for the line `[[name]]` (spaces allowed, a comment after it).
pub(super) fn is_header(line: &str, name: &str) -> bool {
    line.trim().strip_prefix("[[").and_then(|r| r.split("]]").next()).is_some_and(|n| n.trim() == name)
}

/// The value a serde message is about: `X` of "unknown variant `X`" or of
/// "invalid type: string "X"" / "invalid value: integer `X`".
pub(super) fn value_in(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown variant `").or_else(|| {
        let after = message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: "))?;
        let (_, v) = after.split_once(['`', '"'])?;
        Some(v)
    })?;
    rest.split(['`', '"']).next()
}

/// The key of `table` whose value the message is about (for entries, where toml gives no span).
pub(super) fn key_holding(table: &toml::Table, message: &str) -> Option<String> {
    let v = value_in(message)?;
    table
        .iter()
        .find(|(_, val)| match val {
            toml::Value::String(s) => s == v,
            other => other.to_string() == v,
        })
        .map(|(k, _)| k.clone())
}

/// serde's message with the key in front, and an unknown variant said as a value with its choices:
/// `boundary: unknown value "sticky" (reflecting, absorbing, matched or mur)`. Messages that already name their
/// key (unknown or missing fields) stay as they are.
pub(super) fn keyed(key: Option<&str>, message: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown variant `")
        && let Some((value, expected)) = rest.split_once("`, expected ")
    {
        let choices: Vec<&str> = expected
            .trim_start_matches("one of ")
            .split([',', ' '])
            .filter(|w| !w.is_empty() && *w != "or")
            .map(|w| w.trim_matches('`'))
            .collect();
        let choices = match choices.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        let said = format!("unknown value \"{value}\" ({choices})");
        return key.map_or(said.clone(), |k| format!("{k}: {said}"));
    }
    match key {
        Some(k) if !message.starts_with("unknown field") && !message.starts_with("missing field") => {
            format!("{k}: {message}")
        }
        _ => message.to_owned(),
    }
}

/// The key of the `key = value` line holding byte `at` of `text`, where the error is in a value.
pub(super) fn key_at(text: &str, at: usize) -> Option<String> {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[start..];
    let line = line.split('\n').next().unwrap_or_default();
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    (bare && at >= start + line.find('=').unwrap_or(0)).then(|| key.to_owned())
}

/// A TOML error as one line: the entry (`source 1`, found from the `[[source]]` header above the
/// error), the line, the key (where the error is in a value) and toml's message.
pub(super) fn toml_error_line(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim().replace('\n', " ");
    let Some(span) = e.span() else { return message };
    let at = span.start.min(text.len());
    let message = keyed(key_at(text, at).as_deref(), &message);
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    // The table the error is in: the last header line before it.
    let header = before.lines().rev().map(str::trim).find(|l| l.starts_with('['));
    let entry = header.and_then(|h| {
        let name = h.strip_prefix("[[")?.split("]]").next()?.trim();
        let count = before.lines().filter(|l| is_header(l, name)).count();
        Some(format!("{name} {}", count.saturating_sub(1)))
    });
    match entry {
        Some(entry) => format!("{entry} (line {line}): {message}"),
        None => format!("line {line}: {message}"),
    }
}
