//! Locations: a deep-zoom view with its iterations and colours, as a bookmark file (TOML).
//! The community's formats (Kalles Fraktaler `.kfr`, Fraktaler 3 and rust-fractal TOML) are
//! read and written by [`super::location_formats`].

use serde::{Deserialize, Serialize};

use super::deep::View;
use super::view_error::{ValueNames, ViewError};
use crate::sim::ParamsError;

/// Why a location file cannot be used: one line naming the key (`re`, `im`, `zoom`, `iters`,
/// a colour's key) or the line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LocationError {
    /// TOML that is not a location (a syntax error, a missing, unknown or mistyped key), with
    /// the key and the line where TOML says them.
    #[error("{0}")]
    Toml(String),
    /// A centre or zoom that is not a usable number (the message names its key).
    #[error(transparent)]
    View(#[from] ViewError),
    /// Iterations out of range (`key` as the file names it).
    #[error("{key} {value} must be in 1..={max}", max = i32::MAX)]
    Iters { key: &'static str, value: String },
    /// A key the format needs is missing.
    #[error("{key}: missing (a {format} needs it)")]
    Missing { key: &'static str, format: &'static str },
    /// A value of the wrong kind.
    #[error("{key}: expected {expected}, found {found}")]
    WrongType { key: &'static str, found: &'static str, expected: &'static str },
    /// A text that is none of the formats (the message says which are expected).
    #[error("not a location: {0}")]
    NotALocation(&'static str),
    /// Colours that cannot be used.
    #[error(transparent)]
    Colour(#[from] ParamsError),
}

/// A saved place (bookmark): a view and its iterations, as a small TOML file:
///
/// ```toml
/// name = "Seahorse valley minibrot"
/// re = "-0.743643887037158704752191506114774"
/// im = "0.131825904205311970493132056385139"
/// zoom = "1e17"
/// iters = 8000
/// ```
///
/// with, optionally, the colours it was saved with (the app writes them):
///
/// ```toml
/// [colour]
/// palette = "Twilight"
/// smooth = true
/// scale = "Log"
/// offset = 0.25
/// cycles = 4.0
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Location {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub re: String,
    pub im: String,
    pub zoom: String,
    pub iters: u32,
    /// Palette, smooth colouring, scale, offset and cycles (`None`: the seed's `hot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<crate::sim::colour::palette::ColourSettings>,
}

impl Location {
    /// The location's view.
    #[must_use]
    pub fn view(&self) -> View {
        View { re: self.re.clone(), im: self.im.clone(), zoom: self.zoom.clone() }
    }

    /// Parses and checks a location file's text.
    ///
    /// # Errors
    /// A one-line message: bad TOML (with where), a missing or unknown key, a bad number.
    pub fn from_toml(text: &str) -> Result<Self, LocationError> {
        let loc: Self = toml::from_str(text).map_err(|e| LocationError::Toml(keyed_message(text, &e)))?;
        loc.validate()?;
        Ok(loc)
    }

    /// Checks a location however it came (a file, a share link): a usable centre and zoom,
    /// iterations in range, colours that can be used.
    ///
    /// # Errors
    /// The first problem, in one line naming its key.
    pub fn validate(&self) -> Result<(), LocationError> {
        self.view().validate_named(ValueNames::KEYS)?;
        if self.iters == 0 || self.iters > i32::MAX as u32 {
            return Err(LocationError::Iters { key: "iters", value: self.iters.to_string() });
        }
        if let Some(c) = &self.colour {
            c.validate()?;
        }
        Ok(())
    }

    /// The location as TOML text.
    #[must_use]
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}

/// TOML's message with the key it is about in front where the message does not name it
/// (`iters: invalid type: string "x", expected u32 (line 5)`), and the line.
fn keyed_message(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim_end();
    let Some(span) = e.span() else { return message.to_owned() };
    let start = span.start.min(text.len());
    let line = text[..start].lines().count().max(1);
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let key = text[line_start..]
        .lines()
        .next()
        .and_then(|l| l.split_once('='))
        .map(|(k, _)| k.trim().trim_matches('"'))
        .filter(|k| !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-'));
    match key {
        Some(k) if !message.contains(&format!("`{k}`")) => format!("{k}: {message} (line {line})"),
        _ => format!("{message} (line {line})"),
    }
}
