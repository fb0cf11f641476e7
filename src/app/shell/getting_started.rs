//! The getting-started page for a newcomer (the top bar's "Getting started" button): what the
//! demos are, the keys that matter, how to read the timing panel, and three guided starts.

/// A guided start the page offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guided {
    /// GPU vs CPU in one minute: the Race page.
    Race,
    /// The double slit in the intensity view, with the theory's directions.
    DoubleSlit,
    /// A dive to 1e100: the spiral at `c = i`.
    Dive,
}

/// The page as a window over the app while `open`; the guided start clicked, if any (the page
/// closes then).
pub fn getting_started_window(ctx: &egui::Context, open: &mut bool) -> Option<Guided> {
    let mut picked = None;
    egui::Window::new("Getting started").open(open).collapsible(false).default_width(520.0).show(ctx, |ui| {
        ui.label(
            "wavebrot shows what a GPU does for a simulation, live, beside the CPU doing the same work. \
             Three demonstrations:",
        );
        ui.add_space(4.0);
        let demo =
            |ui: &mut egui::Ui, title: &str, what: &str, button: &str, g: Guided, picked: &mut Option<Guided>| {
                ui.strong(title);
                ui.label(what);
                if ui.button(button).clicked() {
                    *picked = Some(g);
                }
                ui.add_space(6.0);
            };
        demo(
            ui,
            "GPU vs CPU in one minute",
            "The Race page runs the same wave on the GPU and on one CPU core side by side and counts \
             the steps each does in a second.",
            "Start the race (3)",
            Guided::Race,
            &mut picked,
        );
        demo(
            ui,
            "The double slit",
            "Waves through two slits make bright and dark fringes; the dashed rays are where \
             d·sin θ = m·λ puts the bright ones. Edit the walls and sources with the mouse.",
            "Open the double slit",
            Guided::DoubleSlit,
            &mut picked,
        );
        demo(
            ui,
            "Dive to 1e100",
            "The Mandelbrot set, zoomed 1e100 times with perturbation: wheel to zoom, drag to pan, \
             right drag to zoom to a box.",
            "Dive to the spiral at i",
            Guided::Dive,
            &mut picked,
        );
        ui.separator();
        ui.strong("Keys");
        ui.label(
            "1 / 2: waves / Mandelbrot · 3 / 4 / 5: Race, Scaling, Lessons · Space: play or pause · \
             S: one step · R: reset · C: check against the CPU · G: record a GIF · Ctrl+S: save the \
             picture · H: hide the panels · F1 or ?: every key",
        );
        ui.add_space(4.0);
        ui.strong("Reading the timing panel");
        ui.label(
            "The big sentence compares the active backend with the CPU on the same problem (the same \
             grid and scene, or the same view and iterations), measured just now; when the two \
             figures are not of the same problem it says what it waits for. \"The numbers\" holds \
             the figures behind it, each with a tooltip saying what it includes; a note says how \
             much of the cores the window itself takes.",
        );
    });
    picked
}
