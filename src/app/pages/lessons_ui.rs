//! The Lessons view's UI: pick a lesson (SAXPY, reduction, device), the backend to run it on
//! and the size, run it, and read what it measured, with `Check result: OK!` in green (or the
//! failures in red). The worker is `lessons.rs`.

use std::sync::Arc;

use crate::backend::BackendKind;
use crate::bench::lesson::Lesson;

use crate::app::pages::lessons::{LessonProgress, LessonRun};
use crate::app::parts::controls::{Probes, available};

/// Element counts offered (per array).
const SIZES: [usize; 5] = [1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24];

/// What each lesson teaches, shown before it runs.
fn teaches(l: Lesson) -> &'static str {
    match l {
        Lesson::Saxpy => {
            "y = a·x + y moves 12 bytes per element for 2 flops: the kernel runs at the memory's speed, \
             and copying x and y to a GPU and y back costs more than the kernel itself."
        }
        Lesson::Reduction => {
            "Summing many numbers: a tree of partial sums adds in parallel; atomics on one counter queue \
             every add in the memory system."
        }
        Lesson::Device => {
            "What the devices are (SMs, cores, memory, cache) and the memory bandwidth the SAXPY kernel \
             reaches on each, beside the datasheet's peak."
        }
    }
}

/// The Lessons view's settings and its run.
pub struct LessonsView {
    pub lesson: Lesson,
    /// `None`: every available backend.
    pub backend: Option<BackendKind>,
    pub elements: usize,
    pub run: Option<LessonRun>,
}

impl Default for LessonsView {
    fn default() -> Self {
        Self { lesson: Lesson::Saxpy, backend: None, elements: 1 << 22, run: None }
    }
}

impl LessonsView {
    /// Runs the lesson shown on the backend picked.
    ///
    /// # Errors
    /// The thread could not be started.
    pub fn start(&mut self, probes: &Probes, wake: Arc<dyn Fn() + Send + Sync>) -> std::io::Result<()> {
        let kinds = match self.backend {
            Some(k) => vec![k],
            None => BackendKind::ALL.into_iter().filter(|k| available(*k, probes).is_ok()).rev().collect(),
        };
        self.run = None;
        self.run = Some(LessonRun::start(self.lesson, kinds, self.elements, wake)?);
        Ok(())
    }

    /// What the current (or last) lesson said.
    #[must_use]
    pub fn progress(&self) -> Option<LessonProgress> {
        self.run.as_ref().map(LessonRun::progress)
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, probes: &Probes, wake: &Arc<dyn Fn() + Send + Sync>) {
        let progress = self.progress();
        let busy = progress.as_ref().is_some_and(|p| !p.finished);
        ui.heading("Lessons");
        ui.add_enabled_ui(!busy, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.selectable_value(&mut self.lesson, Lesson::Saxpy, "SAXPY");
                ui.selectable_value(&mut self.lesson, Lesson::Reduction, "reduction");
                ui.selectable_value(&mut self.lesson, Lesson::Device, "device");
                ui.separator();
                ui.label("on:");
                ui.selectable_value(&mut self.backend, None, "every backend");
                for k in BackendKind::ALL {
                    let ok = available(k, probes);
                    let r = ui.add_enabled(ok.is_ok(), egui::Button::selectable(self.backend == Some(k), k.name()));
                    if let Err(why) = &ok {
                        r.on_disabled_hover_text(format!("unavailable: {why}"));
                    } else if r.clicked() {
                        self.backend = Some(k);
                    }
                }
                ui.separator();
                egui::ComboBox::from_label("elements")
                    .selected_text(format!("2^{}", self.elements.trailing_zeros()))
                    .show_ui(ui, |ui| {
                        for n in SIZES {
                            ui.selectable_value(
                                &mut self.elements,
                                n,
                                format!("2^{} ({} MiB per array)", n.trailing_zeros(), (4 * n) >> 20),
                            );
                        }
                    });
            });
        });
        ui.label(teaches(self.lesson));
        ui.horizontal(|ui| {
            if ui.add_enabled(!busy, egui::Button::new("Run lesson")).clicked()
                && let Err(e) = self.start(probes, Arc::clone(wake))
            {
                ui.colored_label(ui.visuals().error_fg_color, format!("cannot start the lesson: {e}"));
            }
            if busy {
                ui.spinner();
                ui.label("running…");
            }
        });
        ui.separator();
        let Some(p) = progress else { return };
        egui::ScrollArea::vertical().show(ui, |ui| {
            for l in &p.lines {
                ui.monospace(l.trim_start_matches('\n'));
            }
            if let Some(check) = p.check_line() {
                let colour = if p.failures.is_empty() {
                    egui::Color32::from_rgb(90, 210, 90)
                } else {
                    ui.visuals().error_fg_color
                };
                ui.colored_label(colour, egui::RichText::new(check).strong().size(18.0));
                for f in &p.failures {
                    ui.colored_label(ui.visuals().error_fg_color, f);
                }
            }
        });
    }
}
