//! Bookmarks of the Mandelbrot view: the current location (centre, zoom, iterations, colours) saved as
//! a small TOML file ([`Location`] of `sim::fractal::deep`, the file `render mandelbrot --location`
//! reads), opened from a file, or picked from the famous places shipped in `assets/locations/`.
//! A file that cannot be read or is not a location is said in one line; the view stays.

use std::path::{Path, PathBuf};

use crate::app::options::StartLocationError;
use crate::sim::fractal::deep::Location;
use crate::sim::fractal::location_formats::Imported;

use crate::app::mandel::view::MandelView;

/// The locations shipped with wavebrot (`assets/locations/`), built into the binary.
pub const SHIPPED: [(&str, &str); 5] = [
    ("seahorse-valley.toml", include_str!("../../../assets/locations/seahorse-valley.toml")),
    ("seahorse-minibrot.toml", include_str!("../../../assets/locations/seahorse-minibrot.toml")),
    ("spiral-at-i-1e100.toml", include_str!("../../../assets/locations/spiral-at-i-1e100.toml")),
    ("spiral-at-i-1e320.toml", include_str!("../../../assets/locations/spiral-at-i-1e320.toml")),
    ("seahorse-twilight.toml", include_str!("../../../assets/locations/seahorse-twilight.toml")),
];

/// The bookmark controls' state.
#[derive(Clone, Debug)]
pub struct Bookmarks {
    /// The file Save and Open use.
    pub path: String,
    /// The name saved with the location.
    pub name: String,
    /// The place (`MandelView::place`) the name belongs to: gone to another, the name is cleared.
    pub place: u64,
}

impl Default for Bookmarks {
    fn default() -> Self {
        Self { path: "location.toml".to_owned(), name: String::new(), place: 0 }
    }
}

/// The location of `view` (shown in a picture of `aspect`), named `name`.
#[must_use]
pub fn location_of(view: &MandelView, aspect: f64, name: &str) -> Location {
    let v = view.mandel_view(aspect);
    let iters = view.iters_for(&v);
    let colour = Some(view.colour);
    Location { name: name.to_owned(), re: v.re, im: v.im, zoom: v.zoom, iters, colour }
}

/// Writes `loc` to `path` atomically (the file is whole or untouched): a Kalles Fraktaler
/// `.kfr` where the path ends in `.kfr`, else wavebrot's TOML.
///
/// # Errors
/// The file could not be written.
pub fn save_location(loc: &Location, path: &Path) -> anyhow::Result<()> {
    crate::files::write_location(loc, path)
}

/// Reads a location file.
///
/// # Errors
/// One line: the file cannot be read, or what is wrong in it.
pub fn open_location(path: &Path) -> Result<Imported, StartLocationError> {
    crate::files::read_location(path).map_err(|error| StartLocationError { path: path.display().to_string(), error })
}

/// Moves the camera to `loc`: its centre, zoom, iterations (fixed, as saved) and colours
/// (where saved); a Julia picture goes back to the Mandelbrot set.
pub fn go_to(view: &mut MandelView, loc: &Location) {
    view.julia = None;
    view.view = Some(loc.view());
    if let Some(c) = loc.colour {
        view.colour = c;
    }
    view.auto_iters = false;
    view.iters = loc.iters;
    view.forget_learned();
}

/// The bookmark controls; returns a message for the user and whether the camera moved.
pub fn bookmarks_ui(
    ui: &mut egui::Ui,
    state: &mut Bookmarks,
    view: &mut MandelView,
    aspect: f64,
) -> (Option<String>, bool) {
    let mut message = None;
    let mut moved = false;
    if state.place != view.place {
        // Another place (Reset, Go, a Famous place): the last place's name is not this one's.
        state.name.clear();
        state.place = view.place;
    }
    ui.label("Bookmarks");
    ui.horizontal(|ui| {
        let label = ui.label("file");
        ui.text_edit_singleline(&mut state.path).labelled_by(label.id);
    });
    ui.horizontal(|ui| {
        // Save's format, as the file's extension (Open reads any format, by its keys).
        ui.label("save as");
        let kfr = crate::files::wants_kfr(Path::new(state.path.trim()));
        let toml = ui.selectable_label(!kfr, "TOML").on_hover_text("wavebrot's location, with its colours");
        let kf = ui
            .selectable_label(kfr, ".kfr")
            .on_hover_text("Kalles Fraktaler: the same framing (KF's zoom is twice wavebrot's); colours are not saved");
        let ext = if toml.clicked() { Some("toml") } else { kf.clicked().then_some("kfr") };
        if let Some(ext) = ext {
            state.path = Path::new(state.path.trim()).with_extension(ext).display().to_string();
        }
        // In this short row, so the panel keeps its width (the picture does not move).
        if ui.button("Copy link").on_hover_text("a link that opens this view, with its colours").clicked() {
            let loc = location_of(view, aspect, state.name.trim());
            message = Some(crate::app::parts::share::copy_link(ui.ctx(), &crate::link::Link::Location(loc)));
        }
    });
    ui.horizontal(|ui| {
        let label = ui.label("name");
        ui.text_edit_singleline(&mut state.name).labelled_by(label.id);
    });
    ui.horizontal(|ui| {
        let path = PathBuf::from(state.path.trim());
        if ui.button("Save location").clicked() {
            let loc = location_of(view, aspect, state.name.trim());
            message = Some(match save_location(&loc, &path) {
                Ok(()) => format!("saved {}", crate::output::shown_path(&path)),
                Err(e) => format!("location not saved: {e:#}"),
            });
        }
        if ui.button("Open location").clicked() {
            match open_location(&path) {
                Ok(imported) => {
                    let loc = imported.location;
                    go_to(view, &loc);
                    state.name = loc.name;
                    state.place = view.place;
                    moved = true;
                    let mut said = format!("opened {} ({})", path.display(), imported.format.name());
                    for note in &imported.notes {
                        said += &format!("; {note}");
                    }
                    message = Some(said);
                }
                Err(e) => message = Some(format!("{e}; the view is kept")),
            }
        }
        ui.menu_button("Famous places", |ui| {
            for (file, text) in SHIPPED {
                match Location::from_toml(text) {
                    Ok(loc) => {
                        let title = if loc.name.is_empty() { file.to_owned() } else { loc.name.clone() };
                        if ui.button(title).clicked() {
                            go_to(view, &loc);
                            state.name.clone_from(&loc.name);
                            state.place = view.place;
                            moved = true;
                            ui.close();
                        }
                    }
                    Err(e) => {
                        ui.label(format!("{file}: {e}"));
                    }
                }
            }
        });
    });
    (message, moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_locations_parse() {
        for (file, text) in SHIPPED {
            let loc = Location::from_toml(text).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(!loc.name.is_empty(), "{file} has a name");
        }
    }

    #[test]
    fn a_location_round_trips_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("here.toml");
        let mut view = MandelView::default();
        let loc = Location::from_toml(SHIPPED[3].1).unwrap();
        go_to(&mut view, &loc);
        save_location(&location_of(&view, 1.5, &loc.name), &path).unwrap();
        assert_eq!(open_location(&path).unwrap().location, Location { colour: Some(view.colour), ..loc.clone() });
        // As a .kfr: the same place (colours are not in KF's file).
        let kfr = dir.path().join("here.kfr");
        save_location(&location_of(&view, 1.5, &loc.name), &kfr).unwrap();
        let back = open_location(&kfr).unwrap();
        assert_eq!(back.format, crate::sim::fractal::location_formats::LocationFormat::Kfr);
        assert_eq!((back.location.view(), back.location.iters), (loc.view(), loc.iters));
        std::fs::write(&path, "re = \"1\"\n").unwrap();
        let e = open_location(&path).unwrap_err().to_string();
        assert!(e.contains("here.toml") && !e.contains('\n'), "{e}");
    }
}
