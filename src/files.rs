//! The user's files read from disk: scene files and location files. The simulation (`sim`)
//! parses text and reads no files; this is where the text comes from, for the CLI and the app.

use std::path::Path;

use crate::sim::fractal::deep::{Location, LocationError};
use crate::sim::fractal::location_formats::{EXPECTED, Imported, parse_any, to_kfr};
use crate::sim::wave::scene::{Scene, SceneError};

/// Reads and validates a scene file.
///
/// # Errors
/// [`SceneError::File`] naming the file and the entry with the problem.
pub fn load_scene(path: &Path) -> Result<Scene, SceneError> {
    let file_error = |message: String| SceneError::File { path: path.display().to_string(), message };
    let text = std::fs::read_to_string(path).map_err(|e| file_error(e.to_string()))?;
    Scene::from_toml(&text).map_err(|e| file_error(e.to_string()))
}

/// Why a location file was not opened; the caller says which file.
#[derive(Debug, thiserror::Error)]
pub enum LocationFileError {
    /// The file could not be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// The file is not a location.
    #[error("{0}")]
    Parse(#[from] LocationError),
    /// No such file, and no bundled location of that name.
    #[error("{0}; no bundled location is called that either (there are: {names})", names = crate::sim::fractal::bundled::names())]
    Unknown(std::io::Error),
}

/// A location `--location` named, with where it came from.
#[derive(Debug)]
pub struct Found {
    pub imported: Imported,
    /// `Some(note)` where a file and a bundled location have the name: the file wins, said once.
    pub note: Option<String>,
}

/// The location `arg` names: the file of that path if there is one (it wins over a bundled
/// location of the same name, with a note saying so), else the bundled location of that name
/// (`rfc-1e50`, `rfc-1e50.toml`: `wavebrot locations` lists them), so an installed binary finds
/// them from any folder.
///
/// # Errors
/// The file cannot be read or parsed; or there is no such file and no bundled location of that
/// name ([`LocationFileError::Unknown`], which lists the names).
pub fn find_location(arg: &Path) -> Result<Found, LocationFileError> {
    let bundled = arg.to_str().and_then(crate::sim::fractal::bundled::find);
    match read_location(arg) {
        Ok(imported) => {
            let note = bundled.map(|b| {
                format!("{} is a file here and also a bundled location ({}): the file is used", arg.display(), b.name)
            });
            Ok(Found { imported, note })
        }
        Err(LocationFileError::Read(e)) if e.kind() == std::io::ErrorKind::NotFound => match bundled {
            Some(b) => Ok(Found { imported: parse_any(b.toml)?, note: None }),
            None => Err(LocationFileError::Unknown(e)),
        },
        Err(e) => Err(e),
    }
}

/// Reads a location file of any format wavebrot knows (its own TOML, Kalles Fraktaler `.kfr`,
/// Fraktaler 3 or rust-fractal TOML), told apart by its keys, with notes on what was ignored.
///
/// # Errors
/// The file cannot be read, or is none of those formats (a file that is not text says which
/// formats were expected).
pub fn read_location(path: &Path) -> Result<Imported, LocationFileError> {
    let bytes = std::fs::read(path)?;
    let text = String::from_utf8(bytes).map_err(|_| LocationError::NotALocation(EXPECTED))?;
    Ok(parse_any(&text)?)
}

/// True when `path` asks for a Kalles Fraktaler `.kfr` (by its extension, any case).
#[must_use]
pub fn wants_kfr(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("kfr"))
}

/// Writes `loc` whole or not at all: a Kalles Fraktaler `.kfr` where the file's extension is
/// `.kfr` (zoom doubled, colours left out), else wavebrot's TOML.
///
/// # Errors
/// The file cannot be written.
pub fn write_location(loc: &Location, path: &Path) -> anyhow::Result<()> {
    use std::io::Write as _;
    let text = if wants_kfr(path) { to_kfr(loc) } else { loc.to_toml() };
    crate::output::write_atomically(path, |w| Ok(w.write_all(text.as_bytes())?))
}
