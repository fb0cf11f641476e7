//! Files dropped on the window, natively and in a browser tab (where they are the way in: a tab
//! has no file system): a scene opens in the wave lab, a location (wavebrot's TOML, `.kfr`,
//! Fraktaler 3 or rust-fractal TOML) in the explorer; anything else is refused in one line and
//! the view is kept.

use crate::app::WavebrotApp;
use crate::sim::fractal::location::LocationError;
use crate::sim::wave::scene::{Scene, SceneError};

/// Why a dropped file was not opened.
#[derive(Debug, thiserror::Error)]
pub enum DroppedError {
    #[error("cannot read it ({0})")]
    Read(String),
    #[error("it is not a text file (a scene or a location is TOML or .kfr text)")]
    NotText,
    #[error("not a scene: {0}")]
    Scene(SceneError),
    #[error("{0}")]
    Location(LocationError),
}

/// Files read in the browser (its reads end after the frame that saw the drop), waiting for the
/// next frame.
#[cfg(target_arch = "wasm32")]
mod web {
    use std::cell::RefCell;

    thread_local! {
        pub(super) static READ: RefCell<Vec<(String, Result<Vec<u8>, super::DroppedError>)>> =
            const { RefCell::new(Vec::new()) };
    }
}

impl WavebrotApp {
    /// Takes in the files dropped on the window this frame (in the browser, those read since).
    pub(crate) fn take_dropped_files(&mut self, ctx: &egui::Context) {
        let files: Vec<egui::DroppedFileHandle> = ctx.input(|i| i.raw.dropped_files.clone());
        for f in files {
            let name = f
                .path()
                .file_name()
                .map_or_else(|| f.path().display().to_string(), |n| n.to_string_lossy().into_owned());
            #[cfg(not(target_arch = "wasm32"))]
            {
                let bytes = f.bytes().map_err(DroppedError::Read);
                self.open_dropped(&name, bytes);
            }
            #[cfg(target_arch = "wasm32")]
            {
                let ctx = ctx.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let bytes = f.bytes_async().await.map_err(DroppedError::Read);
                    web::READ.with(|r| r.borrow_mut().push((name, bytes)));
                    ctx.request_repaint();
                });
            }
        }
        #[cfg(target_arch = "wasm32")]
        for (name, bytes) in web::READ.with(|r| std::mem::take(&mut *r.borrow_mut())) {
            self.open_dropped(&name, bytes);
        }
    }

    fn open_dropped(&mut self, name: &str, bytes: Result<Vec<u8>, DroppedError>) {
        match bytes.and_then(|b| self.open_file_bytes(name, &b)) {
            Ok(said) => self.say(said),
            Err(e) => self.say(format!("{name} not opened: {e}; the view is kept")),
        }
    }

    /// Opens a file's bytes as a scene or a location, told apart by their keys (a scene sets its
    /// grid, `nx = …`, even when the rest of it is broken); what to tell the user.
    ///
    /// # Errors
    /// The bytes are not text, or not a scene or location that can be used.
    pub fn open_file_bytes(&mut self, name: &str, bytes: &[u8]) -> Result<String, DroppedError> {
        let text = std::str::from_utf8(bytes).map_err(|_| DroppedError::NotText)?;
        let scene_like =
            text.lines().any(|l| l.trim_start().strip_prefix("nx").is_some_and(|r| r.trim_start().starts_with('=')));
        if scene_like {
            let scene = Scene::from_toml(text).map_err(DroppedError::Scene)?;
            self.open_wave_scene(scene, "");
            return Ok(format!("opened the scene {name}"));
        }
        let imported = crate::sim::fractal::location_formats::parse_any(text).map_err(DroppedError::Location)?;
        self.open_location(&imported.location);
        let mut said = format!("opened the location {name} ({})", imported.format.name());
        for note in &imported.notes {
            said += &format!("; {note}");
        }
        Ok(said)
    }
}
