//! Locations: a deep-zoom view with its iterations and colours, as a bookmark file (TOML).

use serde::{Deserialize, Serialize};

use super::deep::View;

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
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let loc: Self = toml::from_str(text).map_err(|e| e.message().to_owned() + &span_note(text, e.span()))?;
        loc.view().validate()?;
        if loc.iters == 0 || loc.iters > i32::MAX as u32 {
            return Err(format!("iters {} must be in 1..={}", loc.iters, i32::MAX));
        }
        if let Some(c) = &loc.colour {
            c.validate()?;
        }
        Ok(loc)
    }

    /// The location as TOML text.
    #[must_use]
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}

fn span_note(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    span.map_or(String::new(), |r| {
        let line = text[..r.start.min(text.len())].lines().count().max(1);
        format!(" (line {line})")
    })
}
