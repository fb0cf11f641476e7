//! Record (G) in the app: the pictures shown go to an animated GIF at the frame rate chosen,
//! for at most the length chosen; the waves' pictures are taken at that rate while they run
//! (every picture stepped by hand while paused), the Mandelbrot view's at each full picture (a
//! zoom path, each shown for one frame of the rate). On wgpu the wave picture is drawn straight
//! into the display texture: while a recording runs the worker also reads it back
//! (`Command::SetRecording`). The encoding is [`crate::app::worker::recorder`].

use crate::app::WavebrotApp;
use crate::app::options::Demo;
use crate::app::worker::messages::FrameSource;
use crate::app::worker::recorder::{Recorder, Shrink};

/// The frame rates offered (GIF frames per second).
pub const RATES: [u16; 4] = [5, 10, 25, 50];

/// The GIF widths offered (`None`: the picture's own).
pub const WIDTHS: [Option<usize>; 4] = [Some(320), Some(480), Some(640), None];

/// The colour levels offered (256: every colour of the table).
pub const LEVELS: [usize; 3] = [32, 64, 256];

/// The recording under way and the settings of the next one.
pub struct Recording {
    pub recorder: Option<Recorder>,
    /// The view the recording under way takes its pictures from.
    pub view: Demo,
    /// Where the next recording goes.
    pub path: String,
    /// GIF frames per second.
    pub fps: u16,
    /// The longest recording, in seconds of GIF (0: until stopped).
    pub max_secs: f32,
    /// The GIF's width and colour levels.
    pub shrink: Shrink,
}

impl Default for Recording {
    fn default() -> Self {
        Self {
            recorder: None,
            view: Demo::Wave,
            path: "wavebrot.gif".to_owned(),
            fps: 25,
            max_secs: 0.0,
            shrink: DEFAULT_SHRINK,
        }
    }
}

/// A recording's width and colours unless the user picks others: 6 s of the default lab at 25
/// frames/s is 6.7 MB so, 31.4 MB at full width with every colour (`recording_sizes` in
/// `tests/app_pages.rs`).
pub const DEFAULT_SHRINK: Shrink = Shrink { max_width: Some(480), levels: 32 };

fn width_name(w: Option<usize>) -> String {
    w.map_or_else(|| "full width".to_owned(), |w| format!("{w} px"))
}

impl WavebrotApp {
    /// Hands a picture to the recording, if one is under way; `live` pictures (the waves
    /// running) are taken at the recording's frame rate, others each.
    pub(crate) fn record(&mut self, pixels: &FrameSource, live: bool) {
        let Some(rec) = &mut self.recording.recorder else { return };
        if live && !rec.due() {
            return;
        }
        let why = match pixels {
            FrameSource::Rgba { rgba, width, height } => {
                if rec.push(rgba, *width, *height) {
                    if rec.full() {
                        self.stop_recording(Some("the length chosen is reached"));
                    }
                    return;
                }
                "the picture changed size"
            }
            // The worker reads it back while recording; a frame drawn before it heard of the
            // recording has no copy: skipped.
            FrameSource::Native { .. } => return,
        };
        self.stop_recording(Some(why));
    }

    /// Starts recording the view shown to the path chosen: the wave pictures, or the Mandelbrot
    /// pictures as the view moves (a zoom path; full pictures only, not the coarse passes).
    pub fn start_recording(&mut self) {
        if self.recording.recorder.is_some() {
            return;
        }
        let (size, lut) = if self.settings.view == Demo::Mandelbrot {
            let size = self.mandel.shown.as_ref().filter(|s| s.coarse == 1).map(|s| (s.width, s.height));
            (size, std::sync::Arc::from(self.settings.mandelbrot.colour.picture_table()))
        } else {
            (self.wave.size, std::sync::Arc::from(&crate::sim::colour::colormap::HOT_LUT[..]))
        };
        let Some((w, h)) = size else {
            self.say("nothing to record yet: no full picture has been shown".to_owned());
            return;
        };
        let r = &self.recording;
        let max_frames = (r.max_secs > 0.0).then(|| (f32::from(r.fps) * r.max_secs).ceil().max(1.0) as usize);
        // A palette's bands carry the picture (cycles, a histogram scale): the Mandelbrot view keeps
        // every colour; the waves' smooth `hot` ramp takes fewer levels well.
        let shrink = match self.settings.view {
            Demo::Mandelbrot => Shrink { levels: usize::MAX, ..r.shrink },
            Demo::Wave => r.shrink,
        };
        match Recorder::start(std::path::Path::new(&r.path), (w, h), lut, (r.fps, max_frames), shrink) {
            Ok(rec) => {
                self.recording.view = self.settings.view;
                self.recording.recorder = Some(rec);
                // wgpu's wave picture goes straight to the display texture: the worker reads it
                // back to the host while the recording runs, and only then.
                if self.settings.view == Demo::Wave {
                    self.worker.send(crate::app::worker::messages::Command::SetRecording(true));
                }
            }
            Err(e) => self.say(format!("cannot record: {e:#}")),
        }
    }

    /// Hands a full Mandelbrot picture to the recording, if one of this view is under way.
    pub(crate) fn record_mandelbrot(&mut self, pixels: &FrameSource, palette_lut: &[[u8; 4]]) {
        let Some(rec) = &self.recording.recorder else { return };
        if self.recording.view != Demo::Mandelbrot {
            return;
        }
        if *rec.lut != *palette_lut {
            self.stop_recording(Some("the palette changed"));
            return;
        }
        self.record(pixels, false);
    }

    /// Stops the recording and writes the GIF (`why`: it was stopped for this reason).
    pub fn stop_recording(&mut self, why: Option<&str>) {
        let Some(rec) = self.recording.recorder.take() else { return };
        self.worker.send(crate::app::worker::messages::Command::SetRecording(false));
        let (path, dropped, fps) = (rec.path.clone(), rec.dropped, rec.fps);
        let m = match (rec.stop(), why) {
            (Ok(n), None) => format!(
                "wrote {} ({n} frames at {fps}/s, {dropped} dropped while the encoder was busy)",
                path.display()
            ),
            (Ok(n), Some(why)) => format!("recording stopped: {why}; wrote {} ({n} frames at {fps}/s)", path.display()),
            (Err(e), _) => format!("the recording failed, no file written: {e:#}"),
        };
        self.say(m);
    }

    /// Where the next recording goes (the field beside Record).
    pub fn set_record_path(&mut self, path: &str) {
        path.clone_into(&mut self.recording.path);
    }

    /// The next recording's frame rate and longest length in seconds (0: until stopped).
    pub fn set_record_rate(&mut self, fps: u16, max_secs: f32) {
        self.recording.fps = fps.max(1);
        self.recording.max_secs = max_secs.max(0.0);
    }

    /// The next recording's width and colour levels.
    pub fn set_record_shrink(&mut self, shrink: Shrink) {
        self.recording.shrink = shrink;
    }

    /// The recording under way, if any.
    #[must_use]
    pub fn recording(&self) -> Option<&Recorder> {
        self.recording.recorder.as_ref()
    }

    /// Record (G): the pictures shown go to an animated GIF, written when the recording stops.
    pub(crate) fn record_ui(&mut self, ui: &mut egui::Ui) {
        // The text goes under the button and wraps: a wider panel would resize the picture
        // being recorded.
        ui.vertical(|ui| match &self.recording.recorder {
            Some(r) => {
                let text = format!("recording {} frames to {}", r.sent, r.path.display());
                if ui.button("Stop recording").on_hover_text("write the GIF (G)").clicked() {
                    self.stop_recording(None);
                }
                ui.add(egui::Label::new(egui::RichText::new(text).color(ui.visuals().error_fg_color)).wrap());
            }
            None => {
                let r = &mut self.recording;
                let mut start = false;
                ui.horizontal(|ui| {
                    start = ui.button("Record").on_hover_text("record the pictures shown to an animated GIF (G); in the Mandelbrot view each full picture as you zoom and pan: a zoom path").clicked();
                    ui.add(egui::TextEdit::singleline(&mut r.path).desired_width(100.0)).on_hover_text("the GIF file");
                    egui::ComboBox::from_id_salt("gif_width")
                        .selected_text(width_name(r.shrink.max_width))
                        .width(64.0)
                        .show_ui(ui, |ui| {
                            for w in WIDTHS {
                                ui.selectable_value(&mut r.shrink.max_width, w, width_name(w));
                            }
                        })
                        .response
                        .on_hover_text("the GIF's widest width: a wider picture is thinned to it (each GIF pixel the picture's pixel under it). Narrower: a much smaller file");
                });
                ui.horizontal(|ui| {
                    egui::ComboBox::from_id_salt("gif_rate")
                        .selected_text(format!("{}/s", r.fps))
                        .width(50.0)
                        .show_ui(ui, |ui| {
                            for fps in RATES {
                                ui.selectable_value(&mut r.fps, fps, format!("{fps} frames/s"));
                            }
                        })
                        .response
                        .on_hover_text("the GIF's frame rate: the waves are taken at this rate while they run; each Mandelbrot picture is one frame. Fewer frames: a smaller file");
                    ui.add(egui::DragValue::new(&mut r.max_secs).range(0.0..=600.0).speed(0.5).suffix(" s max"))
                        .on_hover_text("stop by itself after this many seconds of GIF (0: when you stop it)");
                    egui::ComboBox::from_id_salt("gif_levels")
                        .selected_text(format!("{} colours", r.shrink.levels))
                        .width(60.0)
                        .show_ui(ui, |ui| {
                            for n in LEVELS {
                                ui.selectable_value(&mut r.shrink.levels, n, format!("{n} colours"));
                            }
                        })
                        .response
                        .on_hover_text("levels of hot kept in a wave recording (a Mandelbrot zoom path keeps every colour of its palette): fewer give longer runs of one colour, a smaller file, and bands where the colours change slowly");
                });
                if start {
                    self.start_recording();
                }
            }
        });
    }
}
