//! Typed navigation in the Mandelbrot explorer: a centre (any number of digits) and a zoom
//! typed or pasted, checked by the location parser ([`View::parse`]) with its messages (a bad
//! one keeps the last good view), and continuous zoom: held buttons or the I and O keys zoom in
//! or out smoothly at a set rate, about the pointer over the picture or the centre, through the
//! same arbitrary-precision moves as the wheel (so the deep path takes over past `f64`).

use crate::app::mandel::nav::ZOOM_RATES;
use crate::app::mandel::view::MandelView;
use crate::sim::fractal::deep::{View, ViewError};

/// The typed fields and the held zoom.
#[derive(Clone, Debug, Default)]
pub struct GoTo {
    pub re: String,
    pub im: String,
    pub zoom: String,
    /// The continuous zoom the buttons hold this frame: +1 in, -1 out, 0 none.
    pub held: i8,
    /// The view the fields were last filled from: they follow the camera when it moves by other
    /// means, and keep what is typed while it does not.
    filled_from: Option<View>,
}

impl GoTo {
    /// Fills the fields with `v` when the camera is elsewhere than when they were last filled
    /// (typed text stays while the camera stays).
    pub fn show(&mut self, v: &View) {
        if self.filled_from.as_ref() == Some(v) {
            return;
        }
        self.re.clone_from(&v.re);
        self.im.clone_from(&v.im);
        self.zoom.clone_from(&v.zoom);
        self.filled_from = Some(v.clone());
    }

    /// The view the fields say, or the parser's message; the view itself is not touched.
    ///
    /// # Errors
    /// The location parser's one-line message (a bad number, a zoom not above 0).
    pub fn parsed(&self) -> Result<View, ViewError> {
        View::parse(&format!("{},{}", self.re.trim(), self.im.trim()), &self.zoom)
    }

    /// Moves `view`'s camera to the fields' view; on bad input the camera stays where it is and
    /// the message says why.
    ///
    /// # Errors
    /// As [`Self::parsed`].
    pub fn go(&self, view: &mut MandelView) -> Result<(), ViewError> {
        let v = self.parsed()?;
        match &mut view.julia {
            Some(j) => j.view = Some(v),
            None => view.view = Some(v),
        }
        Ok(())
    }
}

/// The fields, Go, the zoom rate and the held zoom buttons; returns a message for the user and
/// whether the camera moved.
pub fn goto_ui(ui: &mut egui::Ui, state: &mut GoTo, view: &mut MandelView, aspect: f64) -> (Option<String>, bool) {
    let mut message = None;
    let mut moved = false;
    if !ui.memory(|m| m.focused().is_some()) {
        state.show(&view.current(aspect));
    }
    let mut enter = false;
    for (label, text) in [("re", &mut state.re), ("im", &mut state.im), ("zoom", &mut state.zoom)] {
        ui.horizontal(|ui| {
            let l = ui.label(label);
            let r = ui.add(egui::TextEdit::singleline(text).desired_width(200.0)).labelled_by(l.id);
            enter |= r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        });
    }
    ui.horizontal(|ui| {
        if ui.button("Go").on_hover_text("move to the centre and zoom typed (any number of digits)").clicked() || enter
        {
            match state.go(view) {
                Ok(()) => moved = true,
                Err(e) => message = Some(format!("not moved: {e}")),
            }
        }
        ui.add(egui::Slider::new(&mut view.zoom_rate, ZOOM_RATES).logarithmic(true).text("x/s"))
            .on_hover_text("continuous zoom: factor per second while a zoom button or I / O is held");
    });
    ui.horizontal(|ui| {
        state.held = 0;
        let zin = ui.button("Zoom in (hold, I)");
        let zout = ui.button("Zoom out (hold, O)");
        if zin.is_pointer_button_down_on() {
            state.held = 1;
        } else if zout.is_pointer_button_down_on() {
            state.held = -1;
        }
    });
    (message, moved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::mandel::nav::held_factor;

    #[test]
    fn typed_views_go_or_keep_the_last_good_one() {
        let mut view = MandelView::default();
        let mut g = GoTo {
            re: "-0.7436438870371587".into(),
            im: "0.1318259042".into(),
            zoom: "1e50".into(),
            ..GoTo::default()
        };
        g.go(&mut view).unwrap();
        let good = view.view.clone().unwrap();
        assert_eq!((good.re.as_str(), good.zoom.as_str()), ("-0.7436438870371587", "1e50"));
        g.zoom = "-3".into();
        let e = g.go(&mut view).unwrap_err().to_string();
        assert!(e.contains("zoom '-3' must be above 0"), "{e}");
        g.zoom = "1e50".into();
        g.im = "0.13x".into();
        let e = g.go(&mut view).unwrap_err().to_string();
        assert!(e.contains("'0.13x' is not a decimal number"), "{e}");
        assert_eq!(view.view.as_ref(), Some(&good), "a bad entry keeps the last good view");
    }

    #[test]
    fn held_zoom_goes_at_its_rate_and_past_f64() {
        assert!((held_factor(4.0, 1, 0.5) - 2.0).abs() < 1e-12);
        assert!((held_factor(4.0, -1, 0.5) - 0.5).abs() < 1e-12);
        assert_eq!(held_factor(4.0, 0, 0.5), 1.0);
        // A stalled frame counts at most a quarter of a second.
        assert!((held_factor(16.0, 1, 3.0) - 2.0).abs() < 1e-12);
        let mut view = MandelView { view: Some(View::parse("-1.5,0", "1e300").unwrap()), ..MandelView::default() };
        let before = view.current(1.0).zoom_log10();
        for _ in 0..40 {
            assert!(view.zoom_by(held_factor(1000.0, 1, 0.25), [0.5, 0.5], 1.0));
        }
        let after = view.current(1.0).zoom_log10();
        // 40 quarter seconds at 1000x/s: 10^30 deeper, past 1e308.
        assert!((after - before - 30.0).abs() < 1e-6, "zoom 1e{before} -> 1e{after}");
    }
}
