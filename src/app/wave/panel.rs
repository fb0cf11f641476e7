//! The wave view's panels: the run controls and the lab beside the picture, the check against
//! the CPU, saving the picture, and the central field with its tools, screen graph and colour bar.

use crate::sim::wave::theory::Theory;

use crate::app::WavebrotApp;
use crate::app::parts::controls;
use crate::app::wave::lab::LabOutcome;
use crate::app::wave::tools_ui;
use crate::app::wave::view as wave_view;
use crate::app::worker::messages::Command;

impl WavebrotApp {
    pub(crate) fn wave_controls_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Wave lab");
        let mem = self.active.as_ref().and_then(|(_, d)| d.memory_bytes).filter(|_| !self.start.freeze_timings);
        let running = self.wave.running.as_ref().map(|(p, t)| (p, *t));
        let s = &mut self.settings.wave;
        let a = wave_view::wave_controls_ui(ui, s, running, self.wave.last_steps, mem);
        if a.play_toggled {
            self.worker.send(Command::SetPlaying(s.playing));
        }
        if a.step {
            self.worker.send(Command::Step);
        }
        if a.reset {
            self.worker.send(Command::Reset);
        }
        let mut out = LabOutcome::default();
        if a.resize {
            s.scene = s.scene.resized(s.nx, s.ny);
            out.scene = Some(false);
        }
        if a.freq {
            s.scene = s.scene.with_freq(s.freq);
            out.scene = Some(out.scene.unwrap_or(true));
        }
        if a.steps {
            self.worker.send(Command::SetStepsPerFrame(s.steps_per_frame));
            self.worker.send(Command::SetFastest(s.fastest));
        }
        if a.contrast {
            self.worker.send(Command::SetContrast { vmin: s.vmin, vmax: s.vmax });
            out.look = true;
        }
        self.check_ui(ui);
        self.record_ui(ui);
        self.save_picture_ui(ui);
        ui.separator();
        let lab = self.wave.lab.ui(ui, &mut self.settings.wave);
        out.scene = match (out.scene, lab.scene) {
            (Some(a), Some(b)) => Some(a && b),
            (a, b) => a.or(b),
        };
        out.look |= lab.look;
        out.message = lab.message;
        self.apply_lab(out);
        let unavailable = crate::app::wave::surface_ui::unavailable(self.render_state());
        self.wave.surface.toggle_ui(ui, unavailable);
        ui.separator();
        ui.label("Measure");
        let tstep = self.wave.running.map(|(_, t)| t);
        self.wave.lab.measure_ui(ui, &mut self.settings.wave, tstep);
        let w = &self.settings.wave;
        if let Some(m) =
            self.wave.meters.last.as_ref().and_then(|m| m.screen.as_ref()).filter(|_| w.look.screen.is_some())
        {
            tools_ui::screen_plot_ui(ui, m, &w.scene, w.medium);
        }
        ui.separator();
        let w = &self.settings.wave;
        if let Some(on) = self.wave.sound.ui(ui, &w.scene, w.look.probes.len()) {
            self.set_listening(on);
        }
        ui.separator();
        let scene = &self.settings.wave.scene;
        self.wave.meters.ui(ui, scene, self.settings.wave.look.energy);
    }

    /// Switches "listen to a probe" on or off (key L, the tick) and says so in the status line:
    /// the probe heard and its pitch, that a probe is missing, or why there is no sound. While
    /// it sounds, the picture marks the probe heard.
    pub(crate) fn set_listening(&mut self, on: bool) {
        self.wave.sound.set_on(on, &self.settings.wave.scene);
        let line = self.wave.sound.said(self.settings.wave.look.probes.len());
        self.say(line);
    }

    /// The check against the CPU: a button, a periodic check while running, and the last result
    /// in green or red.
    fn check_ui(&mut self, ui: &mut egui::Ui) {
        let every = std::time::Duration::from_secs(10);
        ui.horizontal(|ui| {
            let asked = ui
                .button("Check")
                .on_hover_text(format!(
                    "from the current state, run {} steps here and on the CPU reference (cpu1, one core) and compare both fields (C)",
                    crate::app::worker::messages::CHECK_STEPS
                ))
                .clicked();
            ui.checkbox(&mut self.settings.wave.check_often, "every 10 s");
            let due = self.settings.wave.check_often
                && self.settings.wave.playing
                && self.wave.check_asked.is_none_or(|t| t.elapsed() >= every);
            if asked || due {
                self.wave.check_asked = Some(web_time::Instant::now());
                self.worker.send(Command::Check);
            }
        });
        if let Some((r, _)) = &self.wave.check {
            let text = match &r.error {
                Some(e) => format!("check failed to run: {e}"),
                None => {
                    let promise = if r.tolerance == 0.0 {
                        "the same bits".to_owned()
                    } else {
                        format!("≤ {:.1e}", r.tolerance)
                    };
                    format!(
                        "{} vs {}, steps {}–{}: max|diff| {:.2e} ({promise}): {}",
                        r.backend,
                        r.against,
                        r.from + 1,
                        r.from + r.steps,
                        r.max_diff,
                        if r.ok() { "OK" } else { "MISMATCH" }
                    )
                }
            };
            let colour = if r.ok() { egui::Color32::from_rgb(90, 210, 90) } else { ui.visuals().error_fg_color };
            ui.colored_label(colour, text);
        }
    }

    /// "Save picture", its file and its size (one pixel per cell, as shown, or a typed size),
    /// on one row so the panel keeps its height.
    fn save_picture_ui(&mut self, ui: &mut egui::Ui) {
        use crate::app::wave::state::PictureChoice;
        ui.horizontal(|ui| {
            if ui
                .button("Save picture")
                .on_hover_text("the wave view as PNG at the size chosen beside (Ctrl+S)")
                .clicked()
            {
                self.save_wave_picture();
            }
            ui.add(egui::TextEdit::singleline(&mut self.wave.picture_path).desired_width(80.0))
                .on_hover_text("the PNG file");
            let shown = self.wave_shown_pixels().map_or(String::new(), |(w, h)| format!(" ({w}x{h})"));
            let selected = match self.wave.picture_size {
                PictureChoice::Shown => "as shown".to_owned(),
                PictureChoice::Cells => "per cell".to_owned(),
                PictureChoice::Typed => self.wave.picture_typed.clone(),
            };
            egui::ComboBox::from_id_salt("picture size")
                .selected_text(selected)
                .width(64.0)
                .show_ui(ui, |ui| {
                    let choices = [
                        (
                            PictureChoice::Shown,
                            format!("as shown{shown}"),
                            "the picture with its overlay and colour bar, at the window's pixels",
                        ),
                        (
                            PictureChoice::Cells,
                            "per cell".to_owned(),
                            "the field alone, one pixel per cell of the grid",
                        ),
                        (
                            PictureChoice::Typed,
                            "size".to_owned(),
                            "the view with its overlay and colour bar at the size typed below",
                        ),
                    ];
                    for (c, name, tip) in choices {
                        ui.selectable_value(&mut self.wave.picture_size, c, name).on_hover_text(tip);
                    }
                    ui.add(egui::TextEdit::singleline(&mut self.wave.picture_typed).desired_width(90.0))
                        .on_hover_text("width x height in pixels, e.g. 1920x1080");
                })
                .response
                .on_hover_text("the picture's size");
        });
    }

    /// The picture and its colour bar as last drawn, in the window's pixels.
    fn wave_shown_pixels(&self) -> Option<(u32, u32)> {
        let r = self.wave.central_rect?;
        let ppp = self.ctx.pixels_per_point();
        let side = |v: f32| ((v * ppp).round() as u32).max(1);
        Some((side(r.width()), side(r.height())))
    }

    /// Saves the wave picture to the file named beside "Save picture" (Ctrl+S), at the size
    /// chosen: a typed size that cannot be read is said in one line and nothing is written.
    pub fn save_wave_picture(&mut self) {
        use crate::app::wave::state::PictureChoice;
        use crate::app::worker::wave_picture::{self, PictureSize};
        let path = self.wave.picture_path.trim();
        if path.is_empty() {
            self.say("name the PNG file beside \"Save picture\" first".to_owned());
            return;
        }
        let ppp = self.ctx.pixels_per_point();
        let shown = self.wave_shown_pixels();
        let (size, scale) = match self.wave.picture_size {
            PictureChoice::Cells => (PictureSize::Cells, ppp),
            PictureChoice::Shown => match shown {
                Some((w, h)) => {
                    (PictureSize::Pixels(w.max(wave_picture::MIN_SIDE), h.max(wave_picture::MIN_SIDE)), ppp)
                }
                None => (PictureSize::Cells, ppp),
            },
            PictureChoice::Typed => match wave_picture::parse_size(&self.wave.picture_typed) {
                // The view enlarged (lines, marks and text keep their share of the picture), never
                // drawn finer than the window draws it.
                Ok((w, h)) => {
                    let k = shown.map_or(1.0, |(sw, sh)| (w as f32 / sw as f32).min(h as f32 / sh as f32).max(1.0));
                    (PictureSize::Pixels(w, h), ppp * k)
                }
                Err(e) => {
                    self.say(format!("picture not saved: {e}"));
                    return;
                }
            },
        };
        let w = &self.settings.wave;
        let grid = self.wave.running.map_or(self.wave.grid, |(p, _)| (p.nx, p.ny));
        let colour = |c: egui::Color32| [c.r(), c.g(), c.b()];
        let visuals = self.ctx.global_style().visuals.clone();
        let look = wave_picture::PictureLook {
            size,
            scale,
            theory: w.theory && (w.scene.nx, w.scene.ny) == grid,
            probes: w.look.probes.clone(),
            selected_source: self.wave.lab.selected,
            screen: w.look.screen,
            ruler: self.wave.lab.ruler,
            background: colour(visuals.panel_fill),
            text: colour(visuals.text_color()),
        };
        let path = std::path::PathBuf::from(path);
        self.worker.send(Command::SaveWavePicture { path, look: Box::new(look) });
    }

    /// Opens the sound through `opener` from now on (tests: alsa-lib's `null` device, or none).
    pub fn set_sound_opener(&mut self, opener: crate::app::wave::sound_ui::Opener) {
        self.wave.sound = crate::app::wave::sound_ui::SoundUi::with_opener(opener);
    }

    /// The probe the speakers play and the picture marks (0-based), while one is heard.
    #[must_use]
    pub fn probe_heard(&self) -> Option<usize> {
        self.wave.sound.heard(self.settings.wave.look.probes.len())
    }

    /// The size typed beside "Save picture"'s "size" (tests).
    pub fn wave_picture_typed_mut(&mut self) -> &mut String {
        &mut self.wave.picture_typed
    }

    /// The file "Save picture" writes in the wave view (tests).
    pub fn wave_picture_path_mut(&mut self) -> &mut String {
        &mut self.wave.picture_path
    }

    /// Sends what the lab changed to the simulation thread, and says what needs saying.
    pub(crate) fn apply_lab(&mut self, out: LabOutcome) {
        let s = &mut self.settings.wave;
        if let Some(keep_waves) = out.scene {
            (s.nx, s.ny) = (s.scene.nx, s.scene.ny);
            if let Some(src) = s.scene.sources.first() {
                s.freq = src.freq();
            }
            if !keep_waves {
                (self.wave.lab.ruler, self.wave.lab.stopwatch) = (None, None);
                self.wave.meters.clear();
            }
            self.wave.check = None;
            self.worker.send(Command::SetScene { scene: Box::new(s.scene.clone()), keep_waves });
        }
        if out.look {
            self.worker.send(Command::SetLook(s.look.clone()));
            self.worker.send(Command::SetContrast { vmin: s.vmin, vmax: s.vmax });
        }
        if let Some(m) = out.message {
            self.say(m);
        }
    }

    /// The wave view's central panel: the field (or its 3D surface) with the scene drawn over it,
    /// the lab's tools on the pointer, the screen's graph beside it and the colour bar.
    /// `rects` are the picture's room, the colour bar's and the whole panel's.
    pub(crate) fn wave_central_ui(&mut self, child: egui::Ui, ui: &mut egui::Ui, rects: [egui::Rect; 3]) {
        let [image_rect, bar_rect, full] = rects;
        if self.wave.surface.on && self.render_state().is_some() {
            let mut child = child;
            self.wave_surface_ui(&mut child, image_rect);
            self.wave_colour_bar_ui(ui, bar_rect);
            return;
        }
        let grid = self.wave.running.map_or(self.wave.grid, |(p, _)| (p.nx, p.ny));
        let tex = self.wave.tex.as_ref().map(|s| s.id);
        let w = &self.settings.wave;
        // With a screen on the field, its intensity graph beside the picture (a strip
        // taken from the picture's room, right of it). The room follows the screen only
        // between clicks and drags: choosing the Screen tool moves nothing, a click places
        // the screen where it was aimed and the picture makes room after it, and a drag
        // moving a screen ends on the column it was let go on.
        if !ui.input(|i| i.pointer.any_down() || i.pointer.any_released()) {
            self.wave.graph_room = w.look.screen.is_some();
        }
        let graph_on = self.wave.graph_room;
        let graph_w = graph_on.then(|| tools_ui::screen_graph_width(image_rect.width()));
        let mut child = match graph_w {
            Some(g) => {
                let field = egui::Rect::from_min_max(
                    image_rect.min,
                    egui::pos2(image_rect.max.x - g - tools_ui::SCREEN_GRAPH_GAP, image_rect.max.y),
                );
                ui.new_child(egui::UiBuilder::new().max_rect(field))
            }
            None => child,
        };
        // The edited scene is drawn (it reaches the worker within a frame), on the running grid.
        let scene = (w.scene.nx, w.scene.ny) == grid;
        let theory = if w.theory && scene { Theory::of(&w.scene) } else { None };
        let overlay = wave_view::Overlay {
            scene: scene.then_some(&w.scene),
            probes: &w.look.probes,
            selected_source: self.wave.lab.selected,
            theory: theory.as_ref(),
            screen: w.look.screen,
            heard: self.wave.sound.heard(w.look.probes.len()),
        };
        let (pointer, map) = wave_view::wave_image_ui(&mut child, tex, grid, &overlay);
        self.wave.lab.preview_ui(&child, w, &map);
        self.wave.lab.tools_overlay_ui(&child, &map);
        self.wave.field_map = Some(map);
        self.wave.screen_graph = match (graph_w, w.look.screen) {
            (Some(g), column) => {
                let left = map.rect.max.x + tools_ui::SCREEN_GRAPH_GAP;
                let rect =
                    egui::Rect::from_min_max(egui::pos2(left, map.rect.min.y), egui::pos2(left + g, map.rect.max.y));
                let m = self.wave.meters.last.as_ref().and_then(|m| m.screen.as_ref());
                let scene = &w.scene;
                let on_grid = (scene.nx, scene.ny) == grid;
                match column {
                    Some(c) => {
                        Some(tools_ui::screen_graph_ui(ui, rect, image_rect, &map, c, m.filter(|_| on_grid), scene))
                    }
                    None => {
                        tools_ui::screen_graph_hint(ui, rect);
                        None
                    }
                }
            }
            _ => None,
        };
        if scene {
            let step = self.wave.running.map_or(0, |(_, t)| t);
            let pointer = wave_view::FieldPointer { step, ..pointer };
            let out = self.wave.lab.pointer(&mut self.settings.wave, &pointer);
            self.apply_lab(out);
        }
        self.wave_colour_bar_ui(ui, bar_rect);
        self.wave.central_rect = Some(full);
    }

    /// The wave's colour bar beside the picture or the surface.
    fn wave_colour_bar_ui(&self, ui: &mut egui::Ui, bar_rect: egui::Rect) {
        let log = self.settings.wave.look.intensity_log;
        let (lo, hi, what) = match &self.wave.meters.last {
            Some(m) => crate::app::worker::wave_picture::bar_labels(m.range, m.intensity, log),
            None => crate::app::worker::wave_picture::bar_labels(
                (self.settings.wave.vmin, self.settings.wave.vmax),
                false,
                log,
            ),
        };
        controls::colour_bar_ui(ui, bar_rect, &lo, &hi, what);
    }

    /// The 3D surface of the picture the 2D view shows (its texture: the zero-copy one, or the
    /// uploaded one found through egui-wgpu's renderer).
    fn wave_surface_ui(&mut self, ui: &mut egui::Ui, rect: egui::Rect) {
        let Some(rs) = self.render_state.clone() else { return };
        let target = rs.target_format;
        let field = self.wave.tex.as_ref().and_then(|s| {
            s.texture.clone().or_else(|| rs.renderer.read().texture(&s.id).and_then(|t| t.texture.clone()))
        });
        self.wave.surface.surface_ui(ui, rect, field, target);
    }
}
