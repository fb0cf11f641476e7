//! The window's arrangement and keys: the top bar (views, backend picker, timing), the status
//! bar, the central panel each view fills (`wave::panel`, `mandel::panel`), the keyboard
//! shortcuts and the key list.

use std::time::Duration;

use crate::app::WavebrotApp;
use crate::app::options::Demo;
use crate::app::pages::Page;
use crate::app::parts::controls;
use crate::app::wave::lab::LabOutcome;
use crate::app::worker::messages::Command;

impl WavebrotApp {
    pub(crate) fn keyboard(&mut self, ctx: &egui::Context) {
        // The movie runs on in any view.
        #[cfg(not(target_arch = "wasm32"))]
        self.poll_movie(ctx);
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        // Ctrl+S saves the wave picture (taken before S, which steps).
        if self.pages.page.is_none()
            && self.settings.view == Demo::Wave
            && ctx.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::S))
        {
            self.save_wave_picture();
        }
        let (space, r, s, one, two, delete) = ctx.input(|i| {
            (
                i.key_pressed(egui::Key::Space),
                i.key_pressed(egui::Key::R),
                i.key_pressed(egui::Key::S),
                i.key_pressed(egui::Key::Num1),
                i.key_pressed(egui::Key::Num2),
                i.key_pressed(egui::Key::Delete),
            )
        });
        let (three, four, five) = ctx.input(|i| {
            (i.key_pressed(egui::Key::Num3), i.key_pressed(egui::Key::Num4), i.key_pressed(egui::Key::Num5))
        });
        for (pressed, page) in [(three, Page::Race), (four, Page::Scaling), (five, Page::Lessons)] {
            if pressed {
                self.set_page(Some(page));
            }
        }
        if ctx.input(|i| i.key_pressed(egui::Key::G)) && self.pages.page.is_none() {
            if self.recording.recorder.is_some() {
                self.stop_recording(None);
            } else {
                self.start_recording();
            }
        }
        let (help, hide, full, check) = ctx.input(|i| {
            (
                i.key_pressed(egui::Key::F1) || i.key_pressed(egui::Key::Questionmark),
                i.key_pressed(egui::Key::H),
                i.key_pressed(egui::Key::F11),
                i.key_pressed(egui::Key::C),
            )
        });
        if help {
            self.help = !self.help;
        }
        if hide {
            self.panels_hidden = !self.panels_hidden;
        }
        if full {
            let now = ctx.input(|i| i.viewport().fullscreen.unwrap_or(false));
            ctx.send_viewport_cmd(egui::ViewportCommand::Fullscreen(!now));
        }
        if check && self.pages.page.is_none() {
            match self.settings.view {
                Demo::Wave => {
                    self.wave.check_asked = Some(web_time::Instant::now());
                    self.worker.send(Command::Check);
                }
                Demo::Mandelbrot => self.start_mandel_check(),
            }
        }
        if one {
            self.set_page(None);
            self.set_view(Demo::Wave);
        }
        if two {
            self.set_page(None);
            self.set_view(Demo::Mandelbrot);
        }
        if self.pages.page.is_some() {
            return;
        }
        match self.settings.view {
            Demo::Wave => {
                if space {
                    self.toggle_play();
                }
                if s && !self.settings.wave.playing {
                    self.worker.send(Command::Step);
                }
                if r {
                    self.worker.send(Command::Reset);
                }
                if ctx.input(|i| i.key_pressed(egui::Key::L)) {
                    self.set_listening(!self.wave.sound.on);
                }
                if delete && let Some(k) = self.wave.lab.selected {
                    let mut out = LabOutcome::default();
                    self.wave.lab.delete_source(&mut self.settings.wave, k, &mut out);
                    self.apply_lab(out);
                }
            }
            Demo::Mandelbrot => self.mandel_keys(ctx),
        }
    }

    /// The top bar, one row whatever the window's width: the views and pages, the backend picker,
    /// the CPU comparison, Getting started, and last what runs (cut to the room left, whole on
    /// hover), so no control moves when the backend's name is long (llvmpipe's wrapped the bar
    /// to a second row at 1280 px and moved everything under it by a row).
    pub(crate) fn top_bar_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let mut view = self.settings.view;
            let on_demo = self.pages.page.is_none();
            if ui.add(egui::Button::selectable(on_demo && view == Demo::Wave, "Waves (1)")).clicked() {
                view = Demo::Wave;
                self.set_page(None);
            }
            if ui.add(egui::Button::selectable(on_demo && view == Demo::Mandelbrot, "Mandelbrot (2)")).clicked() {
                view = Demo::Mandelbrot;
                self.set_page(None);
            }
            self.set_view(view);
            for (page, label) in Page::ALL {
                if ui.add(egui::Button::selectable(self.pages.page == Some(page), label)).clicked() {
                    self.set_page(Some(page));
                }
            }
            ui.separator();
            let mut choice = self.settings.backend;
            if controls::backend_picker_ui(ui, &mut choice, &self.probes) {
                self.pick_backend(choice);
            }
            ui.checkbox(&mut self.settings.cpu_compare, "CPU comparison");
            ui.separator();
            if ui
                .button("Getting started")
                .on_hover_text("what the demos are, the keys, how to read the timing panel")
                .clicked()
            {
                self.getting_started = true;
            }
            ui.separator();
            let running = match &self.active {
                Some((k, _)) if self.start.freeze_timings => format!("running on {k}"),
                Some((k, d)) => format!("running on {k}: {}", d.name),
                None => "opening backend…".to_owned(),
            };
            ui.add(egui::Label::new(&running).truncate()).on_hover_text(running);
        });
        if let Some(n) = &self.start.display_note {
            ui.colored_label(ui.visuals().warn_fg_color, format!("display: {n}"));
        }
    }

    /// The status bar: the last message (saved, opened, refused) for 12 s, and the backend's
    /// notes on the right (hidden in presenter mode). One line of fixed height, so nothing
    /// above it moves when a message comes or goes.
    pub(crate) fn status_bar_ui(&mut self, ui: &mut egui::Ui) {
        const SHOWN: Duration = Duration::from_secs(12);
        ui.horizontal_centered(|ui| {
            let notes = !self.panels_hidden && !self.start.freeze_timings && !self.notes.is_empty();
            let right = if notes { 260.0_f32.min(ui.available_width() * 0.4) } else { 0.0 };
            let left = (ui.available_width() - right).max(0.0);
            ui.allocate_ui_with_layout(
                egui::vec2(left, ui.available_height()),
                egui::Layout::left_to_right(egui::Align::Center),
                |ui| {
                    ui.set_min_width(left);
                    match &self.message {
                        Some((m, at)) if at.elapsed() < SHOWN => {
                            ui.add(
                                egui::Label::new(egui::RichText::new(m).color(ui.visuals().warn_fg_color)).truncate(),
                            )
                            .on_hover_text(m);
                            ui.ctx().request_repaint_after(SHOWN.saturating_sub(at.elapsed()));
                        }
                        _ => {
                            ui.weak("");
                        }
                    }
                },
            );
            if notes {
                let all = self.notes.iter().map(|n| format!("note: {n}")).collect::<Vec<_>>().join("\n");
                let first = format!("note: {}", self.notes[0]);
                ui.add(egui::Label::new(egui::RichText::new(first).weak()).truncate()).on_hover_text(all);
            }
        });
    }

    pub(crate) fn central_ui(&mut self, ui: &mut egui::Ui) {
        let full = ui.available_rect_before_wrap();
        let bar_w = 84.0;
        let image_rect = egui::Rect::from_min_max(full.min, egui::pos2(full.max.x - bar_w, full.max.y));
        let bar_rect = egui::Rect::from_min_max(egui::pos2(full.max.x - bar_w + 6.0, full.min.y), full.max);
        let mut child = ui.new_child(egui::UiBuilder::new().max_rect(image_rect));
        match self.settings.view {
            Demo::Wave => self.wave_central_ui(child, ui, [image_rect, bar_rect, full]),
            Demo::Mandelbrot => self.mandel_central_ui(&mut child, ui, bar_rect),
        }
        ui.allocate_rect(full, egui::Sense::hover());
    }
}

/// The keys, in a window (F1 or ?).
pub(crate) fn help_window(ctx: &egui::Context, open: &mut bool) {
    const KEYS: [(&str, &str); 22] = [
        ("1 / 2", "waves / Mandelbrot"),
        ("3 / 4 / 5", "race / scaling / lessons"),
        ("Space", "play or pause the waves"),
        ("S", "one frame of steps while paused"),
        ("R", "reset the field (Mandelbrot: the whole set)"),
        ("C", "check the active backend against cpu1, the CPU reference (waves, Mandelbrot)"),
        ("Delete", "remove the selected source"),
        ("L", "waves: listen to the first probe (its signal shifted into the audible range), again: stop"),
        ("G", "record the view (waves, or a Mandelbrot zoom path) to an animated GIF; again: stop and write it"),
        ("H", "hide or show the side panels (presenter mode)"),
        ("F11", "full screen"),
        ("Ctrl + / Ctrl -", "larger or smaller text and controls"),
        ("Ctrl 0", "normal size"),
        ("Tab / Shift Tab", "move between controls; Space or Enter uses one"),
        ("Arrows", "move a focused slider"),
        ("Wheel, drag", "Mandelbrot: zoom about the pointer, pan"),
        ("Right drag, Ctrl drag", "Mandelbrot: zoom to the box"),
        ("Ctrl S", "save the picture (PNG): the waves as shown, or the Mandelbrot export"),
        ("J, Shift click", "Mandelbrot: the Julia set of the point under the pointer, and back"),
        ("I / O (hold)", "Mandelbrot: zoom in / out smoothly at the rate set beside Go"),
        ("N", "Mandelbrot: find the minibrot near the pointer and frame it (again: deeper)"),
        ("F1 or ?", "this list"),
    ];
    egui::Window::new("Keys").open(open).collapsible(false).resizable(false).show(ctx, |ui| {
        egui::Grid::new("keys").num_columns(2).striped(true).show(ui, |ui| {
            for (k, what) in KEYS {
                ui.strong(k);
                ui.label(what);
                ui.end_row();
            }
        });
    });
}
