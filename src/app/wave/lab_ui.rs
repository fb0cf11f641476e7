//! The wave lab's panel: presets, the tool picker, the selected source, the scene's boundary,
//! damping and media, what is shown (field or time-averaged intensity, theory overlay, energy),
//! and saving and opening scene files (a file opened starts from rest). It edits
//! [`WaveSettings`] and says what changed ([`LabOutcome`]).

use std::path::PathBuf;

use crate::sim::wave::barrier::Slits;
use crate::sim::wave::pml::Layer;
use crate::sim::wave::scene::{Boundary, C2_LIMIT, DAMPING_LIMIT, Medium, PRESETS, Scene};
use crate::sim::wave::theory::Theory;

use crate::app::wave::lab::{LabOutcome, LabState, NewSource, Tool, try_edit};
use crate::app::wave::view::WaveSettings;

impl LabState {
    /// The lab's panel: presets, tools, the selected source, the scene's settings, the view, probes
    /// and files.
    pub fn ui(&mut self, ui: &mut egui::Ui, s: &mut WaveSettings) -> LabOutcome {
        let mut out = LabOutcome::default();
        self.presets_ui(ui, s, &mut out);
        ui.separator();
        ui.label("Tool (on the field)");
        ui.horizontal_wrapped(|ui| {
            for (t, name, tip) in Tool::ALL {
                if ui.selectable_label(self.tool == t, name).on_hover_text(tip).clicked() {
                    self.tool = t;
                    self.drag = None;
                }
            }
        });
        if let Some((_, _, tip)) = Tool::ALL.iter().find(|(t, ..)| *t == self.tool) {
            ui.weak(*tip);
        }
        match self.tool {
            Tool::Sources => {
                ui.horizontal(|ui| {
                    ui.label("new:");
                    ui.radio_value(&mut self.new_source, NewSource::Point, "sine");
                    ui.radio_value(&mut self.new_source, NewSource::Pulse, "pulse");
                });
            }
            Tool::Walls | Tool::Erase => {
                ui.add(egui::Slider::new(&mut self.brush, 0..=40).text("brush (cells)"));
                if !s.scene.walls.is_empty() && ui.button(format!("Remove all {} walls", s.scene.walls.len())).clicked()
                {
                    s.scene.walls.clear();
                    out.edit();
                }
            }
            Tool::MediumRect | Tool::MediumCircle => {
                ui.add(
                    egui::Slider::new(&mut self.medium_c2, 0.01..=C2_LIMIT).logarithmic(true).text("c2 of new medium"),
                )
                .on_hover_text("(a·dt/dx)²: slower than the open medium's below it, so waves bend towards it");
            }
            Tool::Probe | Tool::Screen | Tool::Ruler => {}
        }
        self.selected_ui(ui, s, &mut out);
        ui.separator();
        self.scene_ui(ui, s, &mut out);
        ui.separator();
        self.view_ui(ui, s, &mut out);
        ui.separator();
        if slits_ui(ui, s, &mut out) {
            ui.separator();
        }
        self.file_ui(ui, s, &mut out);
        out
    }

    fn presets_ui(&mut self, ui: &mut egui::Ui, s: &mut WaveSettings, out: &mut LabOutcome) {
        let shown = if s.preset.is_empty() { "(custom)".to_owned() } else { s.preset.clone() };
        egui::ComboBox::from_label("preset").selected_text(shown).show_ui(ui, |ui| {
            for p in PRESETS {
                if ui.selectable_label(s.preset == p.name, p.name).clicked() {
                    match p.scene() {
                        Ok(scene) => {
                            s.load_scene(scene, p.name);
                            self.selected = None;
                            out.fresh();
                            out.look = true;
                        }
                        Err(e) => out.message = Some(e.to_string()),
                    }
                }
            }
        });
        if !s.scene.description.is_empty() {
            ui.label(egui::RichText::new(&s.scene.description).italics());
        }
    }

    fn selected_ui(&mut self, ui: &mut egui::Ui, s: &mut WaveSettings, out: &mut LabOutcome) {
        let Some(k) = self.selected.filter(|&k| k < s.scene.sources.len()) else {
            self.selected = None;
            return;
        };
        let mut src = s.scene.sources[k].clone();
        let before = src.clone();
        ui.group(|ui| {
            let (x, y) = src.anchor();
            ui.label(format!("source {k}: {} at ({x}, {y})", src.kind_name()));
            let (freq, amplitude, phase) = src.wave_mut();
            ui.add(egui::Slider::new(freq, 0.005..=1.0).logarithmic(true).text("freq"));
            ui.add(egui::Slider::new(amplitude, 0.0..=2.0).text("amplitude"));
            ui.add(egui::Slider::new(phase, 0.0..=std::f64::consts::TAU).text("phase (rad)"));
            if ui.button("Delete source").on_hover_text("Delete").clicked() {
                self.delete_source(s, k, out);
            }
        });
        if src != before && k < s.scene.sources.len() {
            s.scene.sources[k] = src;
            out.edit();
        }
    }

    fn scene_ui(&mut self, ui: &mut egui::Ui, s: &mut WaveSettings, out: &mut LabOutcome) {
        let sc = &mut s.scene;
        let mut changed = false;
        ui.horizontal(|ui| {
            ui.label("edges:");
            changed |= ui
                .radio_value(&mut sc.boundary, Boundary::Reflecting, "reflecting")
                .on_hover_text("the seed's: the border is held at 0 and waves come back")
                .changed();
            let absorbing_ok = sc.nx >= 8 && sc.ny >= 8;
            // The layer lies inside the grid: its width is said on the control.
            let w = Layer::width_on(sc.nx, sc.ny);
            changed |= ui
                .add_enabled(
                    absorbing_ok,
                    egui::RadioButton::new(sc.boundary == Boundary::Absorbing, format!("absorbing ({w}-cell layer)")),
                )
                .on_hover_text(format!(
                    "waves leave the grid through a perfectly matched layer in the outer {w} cells of each side \
                     (inside the grid): under 0.2% of a wave comes back at any angle"
                ))
                .clicked()
                && {
                    sc.boundary = Boundary::Absorbing;
                    true
                };
            changed |= ui
                .add_enabled(absorbing_ok, egui::RadioButton::new(sc.boundary == Boundary::Mur, "Mur"))
                .on_hover_text(
                    "waves leave the grid through Mur's first-order edge: no layer, but about 1.5% comes back \
                     head-on and 17% at 45°",
                )
                .clicked()
                && {
                    sc.boundary = Boundary::Mur;
                    true
                };
        });
        changed |= ui
            .add(
                egui::Slider::new(&mut sc.damping, 0.0..=0.02)
                    .text("damping")
                    .custom_formatter(|v, _| format!("{v:.4}")),
            )
            .on_hover_text(format!("sigma per update in every cell (0 = none, at most {DAMPING_LIMIT})"))
            .changed();
        changed |= ui
            .add(egui::Slider::new(&mut sc.c2, 0.01..=C2_LIMIT).logarithmic(true).text("c2 (open medium)"))
            .on_hover_text("(a·dt/dx)²; the seed's is 0.25; above 0.5 the scheme is unstable")
            .changed();
        if changed {
            out.edit();
        }
        let mut remove = None;
        for (k, m) in s.scene.media.iter().enumerate() {
            ui.horizontal(|ui| {
                let what = match m {
                    Medium::Rect { .. } => "slab",
                    Medium::Circle { .. } => "lens",
                };
                ui.label(format!("medium {k}: {what}, c2 {:.3}", m.c2()));
                if ui.small_button("remove").clicked() {
                    remove = Some(k);
                }
            });
        }
        if let Some(k) = remove {
            s.scene.media.remove(k);
            out.edit();
        }
    }

    fn view_ui(&mut self, ui: &mut egui::Ui, s: &mut WaveSettings, out: &mut LabOutcome) {
        ui.horizontal(|ui| {
            ui.label("show:");
            out.look |= ui.radio_value(&mut s.look.intensity, false, "field").changed();
            out.look |= ui
                .radio_value(&mut s.look.intensity, true, "intensity")
                .on_hover_text("the mean of f² over the last periods: interference fringes stand still")
                .changed();
        });
        if s.look.intensity {
            out.look |= ui
                .checkbox(&mut s.look.intensity_log, "log scale")
                .on_hover_text("four decades below the brightest: faint fringes show beside bright ones")
                .changed();
            out.look |= ui
                .add(
                    egui::Slider::new(&mut s.look.average_periods, 0.5..=20.0)
                        .logarithmic(true)
                        .text("average (periods)"),
                )
                .changed();
        }
        let theory = Theory::of(&s.scene);
        ui.add_enabled_ui(theory.is_some(), |ui| {
            ui.checkbox(&mut s.theory, "theory overlay").on_hover_text(
                "the directions where d·sin θ = m·λ puts the maxima (a·sin θ = m·λ the minima of one slit)",
            )
        });
        if let (Some(t), true) = (&theory, s.theory) {
            ui.weak(t.describe());
        }
        out.look |= ui.checkbox(&mut s.look.energy, "measure energy").changed();
        if !s.look.probes.is_empty() {
            ui.horizontal(|ui| {
                ui.label(format!("{} probe(s)", s.look.probes.len()));
                if ui.small_button("remove all").clicked() {
                    s.look.probes.clear();
                    out.look = true;
                }
            });
        }
    }

    fn file_ui(&mut self, ui: &mut egui::Ui, s: &mut WaveSettings, out: &mut LabOutcome) {
        ui.horizontal(|ui| {
            let label = ui.label("Scene file");
            ui.text_edit_singleline(&mut self.path).labelled_by(label.id);
        });
        ui.horizontal(|ui| {
            let path = PathBuf::from(self.path.trim());
            if ui.button("Save").on_hover_text("write the scene as TOML (whole or not at all)").clicked() {
                out.message = Some(match save_scene(&s.scene, &path) {
                    Ok(()) => format!("saved {}", crate::output::shown_path(&path)),
                    Err(e) => format!("not saved: {e:#}"),
                });
            }
            if ui.button("Open").clicked() {
                match crate::files::load_scene(&path) {
                    Ok(scene) => {
                        s.load_scene(scene, "");
                        self.selected = None;
                        out.fresh();
                        out.look = true;
                        out.message = Some(format!("opened {}", path.display()));
                    }
                    Err(e) => out.message = Some(format!("not opened: {e}")),
                }
            }
            if ui
                .button("Copy link")
                .on_hover_text("a link that opens this scene in wavebrot or its web page")
                .clicked()
            {
                out.message = Some(crate::app::parts::share::copy_link(ui.ctx(), &s.link()));
            }
        });
    }
}

/// Live geometry: where the scene's barrier is slits, sliders for their width, spacing and count
/// that rebuild the walls while the waves run (an edit); a combination that does not fit is not
/// applied, the last good scene keeps running and the message says why.
/// Returns whether it drew anything.
fn slits_ui(ui: &mut egui::Ui, s: &mut WaveSettings, out: &mut LabOutcome) -> bool {
    let Some(slits) = Slits::of(&s.scene) else { return false };
    let mut new = slits;
    ui.label("Slits (live)");
    let half = s.scene.ny as i64 / 2;
    ui.add(egui::Slider::new(&mut new.width, 1..=half.max(1)).text("slit width (cells)"));
    ui.add(egui::Slider::new(&mut new.spacing, 2..=half.max(2)).text("slit spacing (cells)"));
    ui.add(egui::Slider::new(&mut new.count, 1..=20).text("slit count"));
    if new != slits {
        match new.walls(s.scene.ny) {
            Ok(walls) => try_edit(s, out, |scene| {
                scene.walls = walls;
                true
            }),
            Err(e) => out.message = Some(format!("not applied: {e}")),
        }
    }
    true
}

/// Writes `scene` to `path` as TOML, atomically (the file is whole or untouched).
///
/// # Errors
/// The scene cannot be written as TOML, or the file cannot be written.
pub fn save_scene(scene: &Scene, path: &std::path::Path) -> anyhow::Result<()> {
    use std::io::Write as _;
    let text = scene.to_toml()?;
    crate::output::write_atomically(path, |w| Ok(w.write_all(text.as_bytes())?))
}
