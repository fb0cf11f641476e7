//! The screenshot run (`gui --screenshot FILE`) and the window process's "window up" line: how
//! the app reports, from inside its frames, to whoever started it.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};

use crate::app::WavebrotApp;

/// The screenshot's channel (taken once the picture came) and whether it was asked for.
pub struct Shot {
    pub rx: Option<Receiver<Arc<egui::ColorImage>>>,
    pub tx: Sender<Arc<egui::ColorImage>>,
    pub requested: bool,
}

impl Default for Shot {
    fn default() -> Self {
        let (tx, rx) = mpsc::channel();
        Self { rx: Some(rx), tx, requested: false }
    }
}

impl WavebrotApp {
    /// Takes the screenshot asked for on the command line once enough frames (and pictures)
    /// were shown, writes it, reports the outcome and closes the window.
    pub(crate) fn screenshot(&mut self, ctx: &egui::Context) {
        let Some((path, frames)) = self.start.screenshot.clone() else { return };
        if let Some(rx) = &self.shot.rx
            && let Ok(image) = rx.try_recv()
        {
            let rgba: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
            let r = crate::output::write_png(&path, &rgba, image.size[0], image.size[1]);
            let outcome = r;
            if let Err(e) = &outcome {
                log::error!("{e:#}");
            } else {
                eprintln!("screenshot: {}", path.display());
            }
            if let Some(o) = &self.start.outcome
                && let Ok(mut g) = o.lock()
            {
                *g = Some(outcome);
            }
            self.shot.rx = None;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        // Wait for the pictures too: at least as many content frames, or give up waiting after 4x.
        let ready = self.frames >= u64::from(frames)
            && (self.content_frames >= u64::from(frames).min(3) || self.frames >= 4 * u64::from(frames));
        if ready && !self.shot.requested {
            self.shot.requested = true;
            let tx = self.shot.tx.clone();
            let wake = ctx.clone();
            ctx.request_screenshot(move |image| {
                let _ = tx.send(image);
                wake.request_repaint();
            });
        }
        // Frames back to back, but none while the CPU comparison holds the window still (its
        // measurement wakes it when done).
        if !self.compare.quiet() {
            ctx.request_repaint();
        }
    }

    /// In the window process: once the first frame has been presented (this is the second),
    /// tell the parent the window is up; before that, make sure a second frame comes.
    pub(crate) fn report_window_up(&mut self, ctx: &egui::Context) {
        if !self.start.report_window_up {
            return;
        }
        if self.frames < 2 {
            ctx.request_repaint();
            return;
        }
        self.start.report_window_up = false;
        #[cfg(not(target_arch = "wasm32"))]
        {
            crate::outln!("{}", crate::app::launch::window_process::WINDOW_UP_LINE);
            if crate::app::launch::window_process::test_crash_requested("window-up") {
                eprintln!(
                    "{}: crashing after the window opened, as asked",
                    crate::app::launch::window_process::TEST_CRASH_ENV
                );
                std::process::abort();
            }
        }
    }
}
