//! Share links: what is on screen as the fragment of a URL, so a link opens the same thing in
//! the browser build (the page's address) and in the native app (`wavebrot gui --link URL`).
//!
//! ```text
//! https://host/wavebrot/#v=1&wave=double-slit
//! https://host/wavebrot/#v=1&scene=<the scene's TOML, percent-encoded>
//! https://host/wavebrot/#v=1&re=-0.7436438870371587&im=0.1318259042053119&zoom=1e6&iters=2000&colour=<TOML>
//! ```
//!
//! Keys: `v` (the format, 1), then one of `wave` (a preset's name), `scene` (a whole scene file)
//! or `re`, `im`, `zoom`, `iters` (a Mandelbrot location with its full-precision centre) with
//! `colour` (the location's colour settings as TOML) and `name`. Values are percent-encoded
//! (RFC 3986's unreserved characters kept), so the digits of a centre stay readable.
//!
//! A link is untrusted input, like a file: it is held to [`MAX_LINK_CHARS`] and to the limits
//! below (iterations, grid cells, centre digits), and anything else is refused in one line, so
//! a link can never hang a tab or the app. A link too long for a URL is refused when it is made,
//! never cut.

use std::borrow::Cow;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

use crate::sim::colour::palette::ColourSettings;
use crate::sim::fractal::location::Location;
use crate::sim::wave::scene::{self, Scene};

/// The longest link made or read: browsers take longer addresses, but servers, chat programs and
/// QR codes do not (32 000 characters stays within every one we know of).
pub const MAX_LINK_CHARS: usize = 32_000;
/// The most iterations a link may ask for (a file may ask for more).
pub const MAX_LINK_ITERS: u32 = 10_000_000;
/// The most cells a linked scene may have (4096 x 4096).
pub const MAX_LINK_CELLS: usize = 1 << 24;
/// The most digits a linked centre coordinate may have.
pub const MAX_LINK_DIGITS: usize = 12_000;
/// The format this wavebrot writes and reads.
pub const LINK_VERSION: u32 = 1;

/// Characters percent-encoded in a value: all but RFC 3986's unreserved (`A-Z a-z 0-9 - . _ ~`).
const VALUE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// What a link opens.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    /// A wave preset by name.
    Preset(String),
    /// A whole wave scene.
    Scene(Box<Scene>),
    /// A Mandelbrot location: centre, zoom, iterations and colours.
    Location(Location),
}

/// Why a link was not opened or not made: one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("a link of {chars} characters is too long to share (at most {MAX_LINK_CHARS})")]
    TooLong { chars: usize },
    #[error("not a wavebrot link: {0}")]
    NotALink(String),
    #[error("this link was made by a newer wavebrot (format {0}; this one reads format {LINK_VERSION})")]
    Newer(u32),
    #[error("the link's {key}: {message}")]
    Bad { key: &'static str, message: String },
}

fn bad(key: &'static str, message: impl std::fmt::Display) -> LinkError {
    LinkError::Bad { key, message: message.to_string() }
}

impl Link {
    /// Reads a link: a whole URL, or only its fragment (with or without the `#`).
    ///
    /// # Errors
    /// One line saying what is wrong: too long, not a link, a newer format, or the key whose
    /// value cannot be used (a preset that does not exist, a scene that does not parse or is too
    /// big, a centre that is not a number, iterations past [`MAX_LINK_ITERS`]).
    pub fn parse(text: &str) -> Result<Self, LinkError> {
        let text = text.trim();
        if text.chars().count() > MAX_LINK_CHARS {
            return Err(LinkError::TooLong { chars: text.chars().count() });
        }
        let fragment = text.split_once('#').map_or(text, |(_, f)| f);
        let mut pairs: Vec<(&str, Cow<'_, str>)> = Vec::new();
        for part in fragment.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            let value = percent_decode_str(value)
                .decode_utf8()
                .map_err(|_| LinkError::NotALink(format!("the value of {key} is not UTF-8")))?;
            pairs.push((key, value));
        }
        let get = |key: &str| pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_ref());
        match get("v").map(str::parse::<u32>) {
            None => return Err(LinkError::NotALink("no format (v=1) in it".to_owned())),
            Some(Ok(LINK_VERSION)) => {}
            Some(Ok(v)) if v > LINK_VERSION => return Err(LinkError::Newer(v)),
            Some(_) => return Err(bad("v", "not a format this wavebrot knows")),
        }
        if let Some(name) = get("wave") {
            scene::preset(name).map_err(|e| bad("wave", e))?;
            return Ok(Self::Preset(name.to_owned()));
        }
        if let Some(toml) = get("scene") {
            let s = Scene::from_toml(toml).map_err(|e| bad("scene", e))?;
            if s.nx.saturating_mul(s.ny) > MAX_LINK_CELLS {
                return Err(bad(
                    "scene",
                    format!("a grid of {} x {} cells; a link opens at most {MAX_LINK_CELLS}", s.nx, s.ny),
                ));
            }
            return Ok(Self::Scene(Box::new(s)));
        }
        let Some(re) = get("re") else {
            return Err(LinkError::NotALink("none of wave, scene or re/im/zoom in it".to_owned()));
        };
        let need = |key: &'static str| get(key).ok_or_else(|| bad(key, "missing (a location needs re, im and zoom)"));
        let (im, zoom) = (need("im")?, need("zoom")?);
        for (key, v) in [("re", re), ("im", im), ("zoom", zoom)] {
            if v.len() > MAX_LINK_DIGITS {
                return Err(bad(key, format!("{} characters; a link holds at most {MAX_LINK_DIGITS}", v.len())));
            }
        }
        let iters = match get("iters") {
            None => 1000,
            Some(t) => t.parse::<u32>().map_err(|_| bad("iters", format!("{t:?} is not a whole number")))?,
        };
        if iters == 0 || iters > MAX_LINK_ITERS {
            return Err(bad("iters", format!("{iters}: a link opens 1 to {MAX_LINK_ITERS}")));
        }
        let colour = match get("colour") {
            None => None,
            Some(t) => Some(toml::from_str::<ColourSettings>(t).map_err(|e| bad("colour", e.message().trim()))?),
        };
        let loc = Location {
            name: get("name").unwrap_or_default().to_owned(),
            re: re.to_owned(),
            im: im.to_owned(),
            zoom: zoom.to_owned(),
            iters,
            colour,
        };
        loc.validate().map_err(|e| bad("location", e))?;
        Ok(Self::Location(loc))
    }

    /// The link's fragment (without the `#`).
    ///
    /// # Errors
    /// [`LinkError::TooLong`] when it would pass [`MAX_LINK_CHARS`] (a scene with many parts);
    /// a scene TOML cannot hold.
    pub fn fragment(&self) -> Result<String, LinkError> {
        let enc = |v: &str| utf8_percent_encode(v, VALUE).to_string();
        let text = match self {
            Self::Preset(name) => format!("v={LINK_VERSION}&wave={}", enc(name)),
            Self::Scene(s) => {
                let toml = s.to_toml().map_err(|e| bad("scene", e))?;
                format!("v={LINK_VERSION}&scene={}", enc(&toml))
            }
            Self::Location(l) => {
                let mut t = format!(
                    "v={LINK_VERSION}&re={}&im={}&zoom={}&iters={}",
                    enc(&l.re),
                    enc(&l.im),
                    enc(&l.zoom),
                    l.iters
                );
                if !l.name.is_empty() {
                    t.push_str(&format!("&name={}", enc(&l.name)));
                }
                if let Some(c) = &l.colour {
                    let toml = toml::to_string(c).map_err(|e| bad("colour", e))?;
                    t.push_str(&format!("&colour={}", enc(&toml)));
                }
                t
            }
        };
        if text.len() + 1 > MAX_LINK_CHARS {
            return Err(LinkError::TooLong { chars: text.len() + 1 });
        }
        Ok(text)
    }

    /// The whole link on `base` (a page's address; its own fragment replaced).
    ///
    /// # Errors
    /// As [`Self::fragment`], counting `base` too.
    pub fn url(&self, base: &str) -> Result<String, LinkError> {
        let base = base.split_once('#').map_or(base, |(b, _)| b);
        let url = format!("{base}#{}", self.fragment()?);
        let chars = url.chars().count();
        if chars > MAX_LINK_CHARS {
            return Err(LinkError::TooLong { chars });
        }
        Ok(url)
    }
}

#[cfg(test)]
mod tests;
