//! Share links in the app ([`crate::link`] is the format): open one (`wavebrot gui --link`, the
//! browser page's address, `window.wavebrot.open`), the link of what is on screen, and in the
//! browser build the page's address kept on what is shown. "Copy link" is the views' own (the
//! wave lab's file row, the bookmarks), through [`crate::app::parts::share`].

use crate::app::WavebrotApp;
use crate::app::options::Demo;
use crate::link::{Link, LinkError};
use crate::sim::wave::scene;

impl WavebrotApp {
    /// Opens a share link: a preset or scene in the wave lab, a location in the explorer.
    ///
    /// # Errors
    /// The link cannot be read; what is shown stays as it was.
    pub fn open_link(&mut self, text: &str) -> Result<(), LinkError> {
        match Link::parse(text)? {
            Link::Preset(name) => {
                let scene = scene::preset(&name).map_err(|e| LinkError::Bad { key: "wave", message: e.to_string() })?;
                self.open_wave_scene(scene, &name);
            }
            Link::Scene(s) => self.open_wave_scene(*s, ""),
            Link::Location(loc) => self.open_location(&loc),
        }
        Ok(())
    }

    /// Shows `loc` in the explorer (a link, a dropped file), its name in the bookmarks.
    pub(crate) fn open_location(&mut self, loc: &crate::sim::fractal::location::Location) {
        self.set_page(None);
        self.set_view(Demo::Mandelbrot);
        crate::app::mandel::bookmarks_ui::go_to(&mut self.settings.mandelbrot, loc);
        self.mandel.bookmarks.name.clone_from(&loc.name);
        self.mandel.bookmarks.place = self.settings.mandelbrot.place;
    }

    /// Says why a link was not opened, in the status line.
    pub fn say_link_error(&mut self, e: &LinkError) {
        self.say(format!("link not opened: {e}; the view is kept"));
    }

    /// Runs `scene` in the wave lab from rest (a link, a dropped file), named `preset` if it is one.
    pub(crate) fn open_wave_scene(&mut self, scene: scene::Scene, preset: &str) {
        self.set_page(None);
        self.set_view(Demo::Wave);
        self.settings.wave.load_scene(scene, preset);
        let mut out = crate::app::wave::lab::LabOutcome::default();
        out.fresh();
        out.look = true;
        self.apply_lab(out);
    }

    /// The link of what is on screen: the wave lab's scene, or the explorer's location.
    #[must_use]
    pub fn current_link(&self) -> Link {
        match self.settings.view {
            Demo::Wave => self.settings.wave.link(),
            Demo::Mandelbrot => Link::Location(crate::app::mandel::bookmarks_ui::location_of(
                &self.settings.mandelbrot,
                self.mandel.aspect(),
                self.mandel.bookmarks.name.trim(),
            )),
        }
    }

    /// The browser build, once a frame: opens the links `window.wavebrot.open` left, and keeps
    /// the page's address (and `window.wavebrot.link()`) on what is shown, at most once a second.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn web_links(&mut self) {
        web::CTX.with(|c| c.borrow_mut().get_or_insert_with(|| self.ctx.clone()).clone());
        let asked: Vec<String> = web::ASKED.with(|a| a.borrow_mut().drain(..).collect());
        for text in asked {
            if let Err(e) = self.open_link(&text) {
                self.say_link_error(&e);
            }
        }
        let now = web_time::Instant::now();
        if web::LAST_WRITE.with(|t| t.get().is_some_and(|t| now.duration_since(t).as_secs_f64() < 1.0)) {
            return;
        }
        web::LAST_WRITE.with(|t| t.set(Some(now)));
        let Ok(fragment) = self.current_link().fragment() else { return };
        let changed = web::SHOWN.with(|s| {
            let mut s = s.borrow_mut();
            let changed = *s != fragment;
            if changed {
                s.clone_from(&fragment);
            }
            changed
        });
        if changed && let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("#{fragment}")));
        }
    }
}

/// The browser build's side of links: what the page asked to open and what it shows.
#[cfg(target_arch = "wasm32")]
pub mod web {
    use std::cell::{Cell, RefCell};

    thread_local! {
        pub(super) static ASKED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
        pub(super) static SHOWN: RefCell<String> = const { RefCell::new(String::new()) };
        pub(super) static LAST_WRITE: Cell<Option<web_time::Instant>> = const { Cell::new(None) };
        pub(super) static CTX: RefCell<Option<egui::Context>> = const { RefCell::new(None) };
    }

    /// Asks the app to open `text` on its next frame (`window.wavebrot.open`).
    ///
    /// # Errors
    /// The link cannot be read: nothing is asked.
    pub fn open(text: &str) -> Result<(), crate::link::LinkError> {
        crate::link::Link::parse(text)?;
        ASKED.with(|a| a.borrow_mut().push(text.to_owned()));
        CTX.with(|c| c.borrow().as_ref().map(egui::Context::request_repaint));
        Ok(())
    }

    /// The fragment of what the app shows (as the page's address has it), once it has drawn.
    #[must_use]
    pub fn shown() -> String {
        SHOWN.with(|s| s.borrow().clone())
    }
}
