//! The presets: scene files shipped in `assets/scenes/`, built into the binary. Those with curved
//! walls or media (one rectangle per row of cells) and the other classic set-ups are written by
//! `tools/make_scenes.py`; each description ends with `Teaches: …`, the quantity it shows.

use super::scene::{Scene, SceneError};

/// A scene shipped with the program (`assets/scenes/NAME.toml`).
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// The name `--preset` takes.
    pub name: &'static str,
    /// The file's text.
    pub toml: &'static str,
}

macro_rules! preset {
    ($name:literal) => {
        Preset { name: $name, toml: include_str!(concat!("../../../assets/scenes/", $name, ".toml")) }
    };
}

/// Every preset, in the order the menu and `wavebrot scenes` list them.
pub const PRESETS: &[Preset] = &[
    preset!("point"),
    preset!("seed"),
    preset!("two-sources"),
    preset!("single-slit"),
    preset!("double-slit"),
    preset!("grating"),
    preset!("reflection"),
    preset!("refraction"),
    preset!("lens"),
    preset!("plane-wave"),
    preset!("triple-slit"),
    preset!("grating-fine"),
    preset!("narrow-gap"),
    preset!("zone-plate"),
    preset!("parabolic-mirror"),
    preset!("elliptical-reflector"),
    preset!("lloyds-mirror"),
    preset!("standing-waves"),
    preset!("waveguide"),
    preset!("cavity-modes"),
    preset!("prism"),
    preset!("total-internal-reflection"),
    preset!("frustrated-tir"),
    preset!("fresnel-lens"),
    preset!("diverging-lens"),
    preset!("doppler"),
    preset!("sonic-boom"),
    preset!("phased-array"),
    preset!("beats"),
    preset!("dipole"),
    preset!("quadrupole"),
];

/// The app's default scene.
pub const DEFAULT_PRESET: &str = "point";

impl Preset {
    /// The preset's scene.
    ///
    /// # Errors
    /// A preset file that does not parse (a bug: a test loads every preset).
    pub fn scene(&self) -> Result<Scene, SceneError> {
        Scene::from_toml(self.toml)
            .map_err(|e| SceneError::File { path: format!("preset {}", self.name), message: e.to_string() })
    }
}

/// The preset called `name`.
///
/// # Errors
/// [`SceneError::UnknownPreset`] listing the names.
pub fn preset(name: &str) -> Result<Scene, SceneError> {
    PRESETS.iter().find(|p| p.name == name).map_or_else(
        || {
            Err(SceneError::UnknownPreset {
                name: name.to_owned(),
                list: PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
            })
        },
        Preset::scene,
    )
}
