//! Typed navigation in the Mandelbrot explorer: a centre (any number of digits) and a zoom
//! typed or pasted, checked by the location parser ([`View::parse`]) with its messages (a bad
//! one keeps the last good view), and continuous zoom: held buttons or the I and O keys zoom in
//! or out smoothly at a set rate, about the pointer over the picture or the centre, through the
//! same arbitrary-precision moves as the wheel (so the deep path takes over past `f64`). The
//! iterations are typed beside them (`auto` gives them back to the depth).

use crate::app::mandel::view::MandelView;
use crate::sim::fractal::deep::{View, ViewError};
use crate::sim::fractal::nav::ZOOM_RATES;

/// The most iterations one can type (the slider's top).
pub const MAX_ITERS: u32 = 1_000_000;

/// Typed iterations that are neither a whole number in `1..=MAX_ITERS` nor `auto`.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("iterations '{0}' must be a whole number from 1 to {MAX_ITERS} (or 'auto')")]
pub struct ItersError(pub String);

/// Iterations as typed: `None` for `auto`, else the number (`5000`, `5 000`, `5_000`, `1e5`).
///
/// # Errors
/// [`ItersError`] naming the text.
pub fn parse_iters(text: &str) -> Result<Option<u32>, ItersError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    let digits: String = t.chars().filter(|c| !matches!(c, ' ' | '_')).collect();
    let n = match digits.parse::<u32>() {
        Ok(n) => Some(n),
        // `1e5`: a whole number written with an exponent.
        Err(_) => digits
            .parse::<f64>()
            .ok()
            .filter(|v| v.fract() == 0.0 && *v >= 1.0 && *v <= f64::from(MAX_ITERS))
            .map(|v| v as u32),
    };
    match n {
        Some(n) if (1..=MAX_ITERS).contains(&n) => Ok(Some(n)),
        _ => Err(ItersError(t.to_owned())),
    }
}

/// Why typed input moved nothing.
#[derive(Debug, thiserror::Error)]
pub enum GoError {
    #[error(transparent)]
    View(#[from] ViewError),
    #[error(transparent)]
    Iters(#[from] ItersError),
}

/// The typed fields and the held zoom.
#[derive(Clone, Debug, Default)]
pub struct GoTo {
    pub re: String,
    pub im: String,
    pub zoom: String,
    /// The iterations, a number or `auto`.
    pub iters: String,
    /// The continuous zoom the buttons hold this frame: +1 in, -1 out, 0 none.
    pub held: i8,
    /// The view the fields were last filled from: they follow the camera when it moves by other
    /// means, and keep what is typed while it does not.
    filled_from: Option<View>,
    /// The iterations the field was last filled from (`auto` or not, the number).
    iters_from: Option<(bool, u32)>,
}

impl GoTo {
    /// Fills the fields with `v` when the camera is elsewhere than when they were last filled
    /// (typed text stays while the camera stays).
    pub fn show(&mut self, v: &View, view: &MandelView) {
        let iters = (view.auto_iters, view.iters_for(v));
        if self.iters_from != Some(iters) {
            self.iters = if iters.0 { "auto".to_owned() } else { iters.1.to_string() };
            self.iters_from = Some(iters);
        }
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

    /// Moves `view`'s camera to the fields' view with the iterations typed (an empty field
    /// keeps them); on bad input
    /// nothing changes (the camera and iterations stay the last good ones) and the message says
    /// why.
    ///
    /// # Errors
    /// As [`Self::parsed`], or the iterations are not a number in range nor `auto`.
    pub fn go(&self, view: &mut MandelView) -> Result<(), GoError> {
        let v = self.parsed()?;
        // An empty field keeps the iterations as they are.
        let iters = if self.iters.trim().is_empty() { None } else { Some(parse_iters(&self.iters)?) };
        match iters {
            None => {}
            Some(None) => view.auto_iters = true,
            Some(Some(n)) => {
                view.auto_iters = false;
                view.iters = n;
            }
        }
        match &mut view.julia {
            Some(j) => j.view = Some(v),
            None => view.view = Some(v),
        }
        view.forget_learned();
        Ok(())
    }
}

/// The fields, Go, the zoom rate and the held zoom buttons; returns a message for the user and
/// whether the camera moved.
pub fn goto_ui(ui: &mut egui::Ui, state: &mut GoTo, view: &mut MandelView, aspect: f64) -> (Option<String>, bool) {
    let mut message = None;
    let mut moved = false;
    state.held = 0;
    egui::CollapsingHeader::new("Go to, continuous zoom").id_salt("mandel_goto").show(ui, |ui| {
        (message, moved) = goto_fields_ui(ui, state, view, aspect);
    });
    (message, moved)
}

/// The inside of [`goto_ui`]: the fields, Go, the rate and the held buttons.
fn goto_fields_ui(ui: &mut egui::Ui, state: &mut GoTo, view: &mut MandelView, aspect: f64) -> (Option<String>, bool) {
    let mut message = None;
    let mut moved = false;
    if !ui.memory(|m| m.focused().is_some()) {
        state.show(&view.current(aspect), view);
    }
    let mut enter = false;
    let fields =
        [("re", &mut state.re), ("im", &mut state.im), ("zoom", &mut state.zoom), ("iterations", &mut state.iters)];
    for (label, text) in fields {
        ui.horizontal(|ui| {
            let l = ui.label(label);
            let r = ui.add(egui::TextEdit::singleline(text).desired_width(200.0)).labelled_by(l.id);
            enter |= r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        });
    }
    ui.horizontal(|ui| {
        if ui
            .button("Go")
            .on_hover_text("move to the centre and zoom typed (any number of digits) with the iterations typed (a number or auto); Enter in a field does the same")
            .clicked()
            || enter
        {
            match state.go(view) {
                Ok(()) => moved = true,
                Err(e) => message = Some(format!("not applied: {e}")),
            }
        }
        ui.add(egui::Slider::new(&mut view.zoom_rate, ZOOM_RATES).logarithmic(true).text("x/s"))
            .on_hover_text("continuous zoom: factor per second while a zoom button or I / O is held");
    });
    ui.horizontal(|ui| {
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
    use crate::sim::fractal::nav::held_factor;

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
    fn typed_iterations_apply_with_the_view_and_bad_ones_change_nothing() {
        assert_eq!(parse_iters(" 5000 "), Ok(Some(5000)));
        assert_eq!(parse_iters("12 500"), Ok(Some(12_500)));
        assert_eq!(parse_iters("1e5"), Ok(Some(100_000)));
        assert_eq!(parse_iters("Auto"), Ok(None));
        for bad in ["0", "-3", "2.5", "1e7", "lots", ""] {
            assert_eq!(parse_iters(bad), Err(ItersError(bad.to_owned())), "{bad}");
        }
        let mut view = MandelView::default();
        let mut g = GoTo::default();
        g.show(&view.current(1.0), &view);
        assert_eq!(g.iters, "auto", "the field shows the automatic iterations as auto");
        g.iters = "2500".into();
        g.go(&mut view).unwrap();
        assert_eq!((view.auto_iters, view.iters), (false, 2500));
        let good = view.view.clone();
        g.zoom = "1e9".into();
        g.iters = "many".into();
        let e = g.go(&mut view).unwrap_err().to_string();
        assert!(e.contains("iterations 'many' must be a whole number from 1 to 1000000"), "{e}");
        assert_eq!((view.auto_iters, view.iters, &view.view), (false, 2500, &good), "nothing changed");
        g.iters = "auto".into();
        g.go(&mut view).unwrap();
        assert!(view.auto_iters, "auto gives the iterations back to the depth");
    }

    #[test]
    fn held_zoom_goes_at_its_rate_and_past_f64() {
        assert!((held_factor(16.0, 1, 0.25) - 2.0).abs() < 1e-12);
        assert!((held_factor(16.0, -1, 0.25) - 0.5).abs() < 1e-12);
        assert!((held_factor(4.0, 0, 0.2) - 1.0).abs() < 1e-15);
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
