//! The classroom pages beside the two demos: Race (3), Scaling (4) and Lessons (5). Each takes
//! the whole window below the top bar; while one is shown the simulation thread is paused and
//! the CPU comparison is off, so their measurements have the machine to themselves.

pub mod lessons;
pub mod lessons_ui;
pub mod race;
pub mod race_ui;
pub mod scaling;
pub mod scaling_ui;

use std::sync::Arc;

use super::WavebrotApp;
use crate::app::worker::messages::Command;

/// The classroom pages' state in the app: the page shown (instead of the demos) and each page's.
#[derive(Default)]
pub struct PagesUi {
    pub page: Option<Page>,
    pub race: race_ui::RaceView,
    pub scaling: scaling_ui::ScalingView,
    pub lessons: lessons_ui::LessonsView,
    /// The waves were playing when a page opened (they play again when it closes).
    pub resume_play: bool,
}

/// A page shown instead of the wave or Mandelbrot view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    Race,
    Scaling,
    Lessons,
}

impl Page {
    pub const ALL: [(Self, &'static str); 3] =
        [(Self::Race, "Race (3)"), (Self::Scaling, "Scaling (4)"), (Self::Lessons, "Lessons (5)")];
}

impl WavebrotApp {
    /// Shows `page` (`None`: back to the wave or Mandelbrot view).
    pub fn set_page(&mut self, page: Option<Page>) {
        if self.pages.page == page {
            return;
        }
        if self.pages.page == Some(Page::Race) {
            self.pages.race.close();
        }
        match (self.pages.page, page) {
            (None, Some(p)) => {
                // Pause the waves while a page measures; play again on the way back.
                self.pages.resume_play = self.settings.wave.playing;
                if self.settings.wave.playing {
                    self.settings.wave.playing = false;
                    self.worker.send(Command::SetPlaying(false));
                }
                self.page_defaults(p);
            }
            (Some(_), None) => {
                if self.pages.resume_play {
                    self.settings.wave.playing = true;
                    self.worker.send(Command::SetPlaying(true));
                }
            }
            (_, Some(p)) => self.page_defaults(p),
            (None, None) => {}
        }
        self.pages.page = page;
    }

    fn page_defaults(&mut self, p: Page) {
        match p {
            Page::Race => self.pages.race.pick_defaults(&self.probes),
            Page::Scaling => self.pages.scaling.pick_defaults(&self.probes),
            Page::Lessons => {}
        }
    }

    /// The page shown, if any.
    #[must_use]
    pub fn page(&self) -> Option<Page> {
        self.pages.page
    }

    /// Race mode's state (its sides and their counters).
    #[must_use]
    pub fn race(&self) -> &crate::app::pages::race::RaceState {
        &self.pages.race.state
    }

    /// The Scaling view's sweep, if one ran.
    #[must_use]
    pub fn scaling_progress(&self) -> Option<crate::app::pages::scaling::SweepProgress> {
        self.pages.scaling.progress()
    }

    /// The Scaling view's settings.
    pub fn scaling_mut(&mut self) -> &mut crate::app::pages::scaling_ui::ScalingView {
        &mut self.pages.scaling
    }

    /// The Lessons view's last run, if any.
    #[must_use]
    pub fn lesson_progress(&self) -> Option<crate::app::pages::lessons::LessonProgress> {
        self.pages.lessons.progress()
    }

    /// The Lessons view's settings.
    pub fn lessons_mut(&mut self) -> &mut crate::app::pages::lessons_ui::LessonsView {
        &mut self.pages.lessons
    }

    /// The page's whole area.
    pub(crate) fn page_ui(&mut self, ui: &mut egui::Ui, page: Page) {
        let ctx = ui.ctx().clone();
        let wake: Arc<dyn Fn() + Send + Sync> = Arc::new(move || ctx.request_repaint());
        // The waves and the CPU comparison are paused on a page; the window itself still runs
        // beside what is measured: say how much.
        if page != Page::Lessons
            && !self.start.freeze_timings
            && let Some((text, warn)) =
                self.timing.load.note(self.timing.cores, crate::app::parts::load::Measured::PAGE)
        {
            let colour = if warn { ui.visuals().warn_fg_color } else { ui.visuals().weak_text_color() };
            ui.colored_label(colour, text);
        }
        match page {
            Page::Race => self.pages.race.ui(ui, &self.probes, &wake, self.start.freeze_timings),
            Page::Scaling => self.pages.scaling.ui(ui, &self.probes, &wake),
            Page::Lessons => self.pages.lessons.ui(ui, &self.probes, &wake),
        }
    }
}
