//! What the user set, saved between runs (eframe's storage, JSON); every section falls back
//! to its defaults, so a file from an older version still loads.

use serde::{Deserialize, Serialize};

use crate::backend::BackendChoice;

use crate::app::mandel::view::MandelView;
use crate::app::options::Demo;
use crate::app::wave::view::WaveSettings;

/// Everything the user set; saved between runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub view: Demo,
    pub backend: BackendChoice,
    pub wave: WaveSettings,
    pub mandelbrot: MandelView,
    /// Run the CPU comparison.
    pub cpu_compare: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            view: Demo::Wave,
            backend: BackendChoice::Auto,
            wave: WaveSettings::default(),
            mandelbrot: MandelView::default(),
            cpu_compare: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_survive_a_save_and_fill_in_what_an_old_file_lacks() {
        let s = Settings {
            view: Demo::Mandelbrot,
            wave: WaveSettings { nx: 2048, ..WaveSettings::default() },
            mandelbrot: MandelView { iters: 5000, ..MandelView::default() },
            ..Settings::default()
        };
        let text = serde_json::to_string(&s).expect("serialise");
        let back: Settings = serde_json::from_str(&text).expect("deserialise");
        assert_eq!(back, s);
        let old: Settings = serde_json::from_str(r#"{"view":"Mandelbrot"}"#).expect("partial");
        assert_eq!(old.view, Demo::Mandelbrot);
        assert_eq!(old.wave, WaveSettings::default());
    }
}
