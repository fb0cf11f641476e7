//! The Mandelbrot view's panels in the app: the controls, readouts, bookmarks and picture
//! export on the left, the picture in the middle, and its keys (R, Ctrl+S, J, N).

use crate::app::WavebrotApp;
use crate::app::mandel::bookmarks_ui;
use crate::app::mandel::export::{self, ExportAction};
use crate::app::mandel::view::{self, MandelShown};
use crate::app::parts::controls;
use crate::app::worker::messages::{Command, CompareJob, ExportStatus, MandelbrotFrame};
use crate::sim::colour::palette::Colouring;

impl WavebrotApp {
    /// Checks the Mandelbrot image shown: the active backend against the CPU on its parameters.
    pub(crate) fn start_mandel_check(&mut self) {
        let Some(kind) = self.active_backend() else { return };
        let Some(p) = self.mandel.shown.as_ref().and_then(|s| s.params) else {
            self.say("Check compares pictures computed directly (f32, f64); this one is by perturbation".to_owned());
            return;
        };
        if self.mandel.check_rx.is_some() {
            return;
        }
        let wake = self.ctx.clone();
        match crate::app::worker::compare::check_mandelbrot(
            kind,
            p,
            self.check_fault,
            std::sync::Arc::clone(&self.compare.turn),
            move || wake.request_repaint(),
        ) {
            Ok(rx) => self.mandel.check_rx = Some(rx),
            Err(e) => self.say(format!("cannot start the check: {e}")),
        }
    }

    /// The Mandelbrot check: a button and the last result, the differing-pixel share against the
    /// budget, in green or red.
    pub(crate) fn mandel_check_ui(&mut self, ui: &mut egui::Ui) {
        ui.separator();
        ui.horizontal(|ui| {
            let asked = ui
                .button("Check")
                .on_hover_text("render the image shown on the active backend and on the CPU reference (cpu1, one core) and count the pixels that differ (C)")
                .clicked();
            if asked {
                self.start_mandel_check();
            }
            if self.mandel.check_rx.is_some() {
                ui.spinner();
            }
        });
        // A result of another picture than the one shown is not shown.
        let shown = self.mandel.shown.as_ref().and_then(|s| s.params);
        if let Some(r) = self.mandel.check.as_ref().filter(|r| Some(r.params) == shown) {
            let text = match &r.error {
                Some(e) => format!("check failed to run: {e}"),
                None => format!(
                    "{} vs {}, {}×{} {}: {} of {} pixels differ ({} allowed): {}",
                    r.backend,
                    r.against,
                    r.params.width,
                    r.params.height,
                    r.params.precision.name(),
                    (r.share * r.params.pixels() as f64).round(),
                    r.params.pixels(),
                    if r.budget == 0.0 { "none".to_owned() } else { format!("{:.2}%", r.budget * 100.0) },
                    if r.ok() { "OK" } else { "MISMATCH" }
                ),
            };
            let colour = if r.ok() { egui::Color32::from_rgb(90, 210, 90) } else { ui.visuals().error_fg_color };
            ui.colored_label(colour, text);
        }
    }

    /// The left panel of the Mandelbrot view.
    pub(crate) fn mandel_controls_ui(&mut self, ui: &mut egui::Ui) {
        let aspect = self.mandel.aspect();
        let view = &mut self.settings.mandelbrot;
        if view::mandelbrot_controls_ui(ui, view, aspect) {
            ui.ctx().request_repaint();
        }
        ui.separator();
        view::readouts_ui(ui, view, self.mandel.shown.as_ref(), aspect, self.mandel.hover);
        ui.label("Wheel: zoom about the pointer. Drag: pan. Right drag or Ctrl drag: zoom to the box.");
        let view = &mut self.settings.mandelbrot;
        let (message, moved) = crate::app::mandel::goto_ui::goto_ui(ui, &mut self.mandel.goto, view, aspect);
        if moved {
            ui.ctx().request_repaint();
        }
        if let Some(m) = message {
            self.say(m);
        }
        self.find_minibrot_ui(ui);
        self.mandel_check_ui(ui);
        ui.separator();
        let view = &mut self.settings.mandelbrot;
        let (message, moved) = bookmarks_ui::bookmarks_ui(ui, &mut self.mandel.bookmarks, view, aspect);
        if moved {
            ui.ctx().request_repaint();
        }
        if let Some(m) = message {
            self.say(m);
        }
        ui.separator();
        self.record_ui(ui);
        ui.separator();
        #[cfg(not(target_arch = "wasm32"))]
        self.movie_ui(ui);
        ui.separator();
        match export::export_ui(ui, &mut self.mandel.export, self.mandel.window) {
            Some(ExportAction::Start) => self.export_mandelbrot(),
            Some(ExportAction::Cancel) => self.worker.send(Command::CancelExport),
            None => {}
        }
    }

    /// The picture, and the request for a new one when the view or its size changed.
    pub(crate) fn mandel_central_ui(&mut self, child: &mut egui::Ui, ui: &egui::Ui, bar_rect: egui::Rect) {
        let shown = self.mandel.shown.as_ref().map(|s| s.request.view.clone());
        let tex = self.mandel.tex.as_ref().map(|s| s.id).zip(shown.as_ref());
        let (size, _, hover) = view::mandelbrot_image_ui(
            child,
            tex,
            &mut self.settings.mandelbrot,
            &mut self.mandel.picture,
            self.mandel.goto.held,
        );
        self.mandel.window = size;
        self.mandel.hover = hover;
        let r = self.settings.mandelbrot.request(size[0], size[1]);
        // Render again only when something changed.
        if self.mandel.sent.as_ref() != Some(&r) {
            self.mandel.sent = Some(r.clone());
            self.worker.send(Command::Mandelbrot(r.clone()));
        }
        // The bar follows the palette, scale, offset and cycles (a histogram scale: of the counts shown).
        let key = (r.colour, r.iters, self.mandel.frames);
        if self.mandel.bar.as_ref().is_none_or(|(k, _)| *k != key) {
            let counts = self.mandel.shown.as_ref().map_or(&[][..], |s| &s.counts[..]);
            self.mandel.bar = Some((key, Colouring::new(&r.colour, counts, r.iters)));
        }
        if let Some((_, colouring)) = &self.mandel.bar {
            controls::palette_bar_ui(ui, bar_rect, colouring, "iterations");
        }
    }

    /// The Find minibrot button, its progress and the last minibrot found (its period).
    fn find_minibrot_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let running = self.mandel.find.running();
            let b = ui
                .add_enabled(!running && self.settings.mandelbrot.julia.is_none(), egui::Button::new("Find minibrot"));
            if b.on_hover_text("N: the lowest-period minibrot near the pointer (or the centre), framed; again: deeper")
                .clicked()
            {
                self.start_find_minibrot();
            }
            if running {
                ui.spinner();
            } else if let Some(f) = &self.mandel.find.last {
                // Only while the camera is where the minibrot was framed: elsewhere it is stale.
                if self.settings.mandelbrot.view.as_ref() == Some(&f.view) && self.settings.mandelbrot.julia.is_none() {
                    ui.label(format!("period {}, size {}", f.period, f.size));
                }
            }
        });
    }

    /// Starts the minibrot search about the pointer (the centre when it is off the picture).
    fn start_find_minibrot(&mut self) {
        if self.settings.mandelbrot.julia.is_some() {
            return;
        }
        let aspect = self.mandel.aspect();
        let view = self.settings.mandelbrot.current(aspect);
        // Enough steps for the periods of minibrots a picture at this depth shows: of the depth
        // rule's iterations at least, so a low fixed count does not starve the search.
        let iters = self
            .settings
            .mandelbrot
            .iters_for(&view)
            .max(crate::sim::fractal::nav::auto_iters(view.zoom_log10()))
            .saturating_mul(100)
            .clamp(10_000, 10_000_000);
        let at = self.mandel.hover.unwrap_or([0.5, 0.5]);
        if let Err(e) = self.mandel.find.start(&view, at, aspect, iters) {
            self.say(e.to_string());
        }
    }

    /// Takes the search's result in: the camera framed on the minibrot, its period said.
    fn poll_find_minibrot(&mut self, ctx: &egui::Context) {
        if self.mandel.find.running() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
        match self.mandel.find.poll() {
            Some(Ok(f)) => {
                let m = &mut self.settings.mandelbrot;
                let mut said = format!("minibrot of period {} (size {}): framed", f.period, f.size);
                // Its inside needs several periods of iterations to show: fewer (automatic or the
                // user's fixed count) are raised to that, and the status bar says so.
                let need = f.period.saturating_mul(10);
                let had = m.iters_for(&f.view);
                if had < need {
                    let fixed = !m.auto_iters;
                    m.auto_iters = false;
                    m.iters = need;
                    if fixed {
                        said.push_str(&format!(
                            "; fixed iterations raised from {had} to {need} (10 periods): at {had} it would not show"
                        ));
                    } else {
                        said.push_str(&format!("; iterations {need} (10 periods) to show it"));
                    }
                }
                m.view = Some(f.view);
                m.forget_learned();
                self.mandel.bookmarks.place = m.place;
                self.mandel.bookmarks.name.clear();
                self.say(said);
            }
            Some(Err(e)) => self.say(format!("no minibrot: {e}")),
            None => {}
        }
    }

    /// R: the whole set; Ctrl+S: save the picture; J: the Julia set of the point under the
    /// pointer (of the centre when the pointer is elsewhere), and back; N: find the minibrot.
    pub(crate) fn mandel_keys(&mut self, ctx: &egui::Context) {
        self.poll_find_minibrot(ctx);
        let (r, save, j, n) = ctx.input_mut(|i| {
            let save = i.consume_key(egui::Modifiers::COMMAND, egui::Key::S);
            (i.key_pressed(egui::Key::R), save, i.key_pressed(egui::Key::J), i.key_pressed(egui::Key::N))
        });
        if n {
            self.start_find_minibrot();
        }
        if r {
            self.settings.mandelbrot.reset_camera();
        }
        if j {
            let at = self.mandel.hover.unwrap_or([0.5, 0.5]);
            let aspect = self.mandel.aspect();
            self.settings.mandelbrot.toggle_julia(at, aspect);
        }
        if save {
            self.export_mandelbrot();
        }
    }

    /// Starts saving the view as PNG with the export settings shown (nothing when one runs).
    pub fn export_mandelbrot(&mut self) {
        if self.mandel.export.running {
            self.say("an export is already under way".to_owned());
            return;
        }
        let [w, h] = self.mandel.window;
        let job = self.mandel.export.job(&self.settings.mandelbrot, [w.max(1), h.max(1)]);
        self.mandel.export.running = true;
        self.mandel.export.progress = Some((0, job.request.height));
        self.worker.send(Command::Export(job));
    }

    /// True while Find minibrot (N) searches.
    #[must_use]
    pub fn finding_minibrot(&self) -> bool {
        self.mandel.find.running()
    }

    /// The typed centre, zoom and iterations of the explorer (tests type into it as a user does).
    pub fn goto_mut(&mut self) -> &mut crate::app::mandel::goto_ui::GoTo {
        &mut self.mandel.goto
    }

    /// The export settings and state (size, file, tile size, progress).
    pub fn export_state_mut(&mut self) -> &mut export::ExportState {
        &mut self.mandel.export
    }

    /// Rows done and all rows of the export under way.
    #[must_use]
    pub fn export_progress(&self) -> Option<(usize, usize)> {
        self.mandel.export.progress.filter(|_| self.mandel.export.running)
    }

    /// The bookmark controls' state (file, name).
    pub fn bookmarks_mut(&mut self) -> &mut bookmarks_ui::Bookmarks {
        &mut self.mandel.bookmarks
    }

    /// The Mandelbrot picture shown last: its request, arithmetic and counts.
    #[must_use]
    pub fn mandelbrot_shown(&self) -> Option<&MandelShown> {
        self.mandel.shown.as_ref()
    }

    /// Where the Mandelbrot picture was drawn last (screen points).
    #[must_use]
    pub fn mandelbrot_picture_rect(&self) -> egui::Rect {
        self.mandel.picture.rect
    }

    /// The Mandelbrot camera and settings, to change as the controls do.
    pub fn mandelbrot_mut(&mut self) -> &mut view::MandelView {
        &mut self.settings.mandelbrot
    }

    /// Takes a Mandelbrot frame in.
    pub(crate) fn take_mandel_frame(&mut self, f: MandelbrotFrame) {
        self.mandel.shown = Some(MandelShown::of(&f));
        self.mandel.frames += 1;
        if f.coarse > 1 {
            self.timing.drawing_a_new_view();
        }
        if f.coarse == 1
            && let Some((k, d)) = &self.active
        {
            let name = d.name.clone();
            self.timing.record_mandelbrot(*k, &name, &f);
            // The rule's iterations, from the counts: kernels that skip the interior execute fewer.
            let iters = f.request.iters;
            let rule: u64 = f
                .counts
                .iter()
                .map(|&c| crate::sim::fractal::mandelbrot::iterations_executed(c.max(0) as u32, iters))
                .sum();
            if !f.counts.is_empty() {
                self.timing.set_rule_iters(rule);
            }
        }
        self.content_frames += 1;
        if f.coarse == 1 {
            self.record_mandelbrot(&f.pixels, &f.request.colour.picture_table());
            if let Some(n) = self.settings.mandelbrot.learn_iters(&f.request.view, f.request.iters, &f.counts) {
                let why = if n > f.request.iters {
                    "the picture's escaping pixels all took over half the limit, or none escaped"
                } else {
                    "every escaping pixel took under a quarter of the limit: the same picture, sooner"
                };
                self.say(format!("iterations {} to {n}: {why}", f.request.iters));
            }
        }
        Self::show(&mut self.mandel.tex, "mandelbrot", f.pixels, &self.worker, &self.ctx);
    }

    /// Takes an export report in.
    pub(crate) fn take_export_status(&mut self, s: ExportStatus) {
        if let Some(m) = self.mandel.export.update(s) {
            self.say(m);
        }
    }

    /// What the CPU comparison runs in the Mandelbrot view: the last full picture computed
    /// directly (a perturbation picture is not compared).
    pub(crate) fn mandel_compare_job(&self) -> CompareJob {
        self.mandel
            .shown
            .as_ref()
            .filter(|s| s.coarse == 1)
            .and_then(|s| s.params)
            .map_or(CompareJob::Off, CompareJob::Mandelbrot)
    }
}
