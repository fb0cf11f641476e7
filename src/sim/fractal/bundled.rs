//! The locations shipped with wavebrot (`assets/locations/`), built into the binary so an
//! installed `wavebrot` finds them by name from any folder (`--location rfc-1e50`), as the wave
//! presets are (`sim/wave/presets.rs`). `wavebrot locations` lists them.

use super::deep::{Location, LocationError};
use super::location_formats::parse_any;

/// A location file shipped with the program (`assets/locations/NAME.toml`).
#[derive(Clone, Copy, Debug)]
pub struct Bundled {
    /// The name `--location` takes (the file's stem).
    pub name: &'static str,
    /// The file's text.
    pub toml: &'static str,
}

macro_rules! bundled {
    ($name:literal) => {
        Bundled { name: $name, toml: include_str!(concat!("../../../assets/locations/", $name, ".toml")) }
    };
}

/// Every bundled location, in the order `wavebrot locations` lists them: the famous places,
/// then rust-fractal's benchmark locations by depth.
pub const BUNDLED: &[Bundled] = &[
    bundled!("seahorse-valley"),
    bundled!("seahorse-twilight"),
    bundled!("seahorse-minibrot"),
    bundled!("spiral-at-i-1e100"),
    bundled!("spiral-at-i-1e320"),
    bundled!("rfc-1e50"),
    bundled!("rfc-5e113"),
    bundled!("rfc-4e533"),
    bundled!("rfc-1e1086"),
];

impl Bundled {
    /// The location the file holds.
    ///
    /// # Errors
    /// Never for the shipped files (a test parses each); the type is the parser's.
    pub fn location(&self) -> Result<Location, LocationError> {
        Ok(parse_any(self.toml)?.location)
    }
}

/// The bundled location called `name` (`rfc-1e50`, or with its file's extension `rfc-1e50.toml`).
#[must_use]
pub fn find(name: &str) -> Option<&'static Bundled> {
    let stem = name.strip_suffix(".toml").unwrap_or(name);
    BUNDLED.iter().find(|b| b.name == stem)
}

/// The names, comma-separated, for an error that lists what there is.
#[must_use]
pub fn names() -> String {
    BUNDLED.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_location_parses() {
        for b in BUNDLED {
            let loc = b.location().unwrap_or_else(|e| panic!("{}: {e}", b.name));
            assert!(loc.iters > 0, "{}", b.name);
        }
    }

    #[test]
    fn found_by_stem_or_file_name_not_by_path() {
        assert_eq!(find("rfc-1e50").map(|b| b.name), Some("rfc-1e50"));
        assert_eq!(find("rfc-1e50.toml").map(|b| b.name), Some("rfc-1e50"));
        assert!(find("assets/locations/rfc-1e50.toml").is_none());
        assert!(find("rfc-1e51").is_none());
    }
}
