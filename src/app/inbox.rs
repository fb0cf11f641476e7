//! What comes back from the app's threads, taken in on the UI thread: the simulation thread's
//! messages (frames, backends, grids, checks, errors), the CPU comparison's samples, the
//! Mandelbrot check's answer; frames put on screen; the CPU comparison kept on the problem the
//! active backend runs; and [`WavebrotApp::sync`], the tests' wait for the worker.

use std::sync::Arc;
use web_time::{Duration, Instant};

use crate::backend::BackendKind;

use crate::app::options::Demo;
use crate::app::worker::compare::CpuCompare;
use crate::app::worker::messages::{Command, CompareJob, FrameSource, Msg};
use crate::app::worker::simulation::Worker;
use crate::app::{Shown, WavebrotApp};

impl WavebrotApp {
    /// Waits (up to 20 s) until the worker has done everything asked so far and its frames are
    /// taken in. For tests; the app itself never waits.
    pub fn sync(&mut self) {
        self.ping += 1;
        let ping = self.ping;
        self.worker.send(Command::Ping(ping));
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(m) = self.worker.recv_timeout(Duration::from_millis(100)) {
                if matches!(m, Msg::Pong(n) if n == ping) {
                    return;
                }
                self.handle(m);
            }
        }
    }

    pub(crate) fn say(&mut self, m: String) {
        log::warn!("{m}");
        self.message = Some((m, Instant::now()));
    }

    /// Takes one worker message in.
    pub(crate) fn handle(&mut self, m: Msg) {
        match m {
            Msg::Backend { kind, device, notes } => {
                self.timing.clear(self.settings.view);
                self.timing.set_device(&device);
                self.forget_checks();
                self.active = Some((kind, device));
                self.notes = notes;
                self.compare.kind = if kind == BackendKind::Cpu { BackendKind::Cpu1 } else { BackendKind::Cpu };
                if let Some(c) = &self.compare.thread {
                    c.set_kind(self.compare.kind);
                }
            }
            Msg::Wave(f) => {
                self.wave.running = Some((f.params, f.tstep));
                if f.steps > 0 {
                    self.wave.last_steps = Some(f.steps);
                }
                self.wave.meters.record(f.tstep, &f.measured);
                self.wave.sound.feed(f.tstep, &f.measured, &f.scene);
                self.wave.scene = Some(Arc::clone(&f.scene));
                self.timing.dram_bytes_per_update = f.dram_bytes_per_update;
                self.timing.large_call_update_secs = f.large_call_update_secs;
                if f.steps > 0 {
                    self.timing.steps_per_frame = f.steps;
                }
                if let Some((k, d)) = &self.active {
                    let name = d.name.clone();
                    self.timing.record_wave(*k, &name, &f);
                }
                self.content_frames += 1;
                self.wave.size = Some(f.pixels.size());
                if self.recording.view == Demo::Wave {
                    // While the waves run, pictures are taken at the recording's rate.
                    let live = self.settings.wave.playing;
                    // wgpu's picture is on the host only as the copy read back for the recording.
                    let pixels = f.host_copy.as_ref().unwrap_or(&f.pixels);
                    self.record(pixels, live);
                }
                Self::show(&mut self.wave.tex, "wave", f.pixels, &self.worker, &self.ctx);
            }
            Msg::Mandelbrot(f) => self.take_mandel_frame(f),
            Msg::Export(s) => self.take_export_status(s),
            Msg::Error(e) | Msg::Saved(e) => self.say(e),
            Msg::Grid { nx, ny, refused } => {
                self.wave.grid = (nx, ny);
                if refused {
                    // The controls go back to the scene and grid that run.
                    self.settings.wave.nx = nx;
                    self.settings.wave.ny = ny;
                    if let Some(s) = &self.wave.scene {
                        self.settings.wave.scene = (**s).clone();
                    } else {
                        self.settings.wave.scene = self.settings.wave.scene.resized(nx, ny);
                    }
                }
            }
            Msg::Check(r) => self.wave.check = Some((r, Instant::now())),
            Msg::Pong(_) => {}
        }
    }

    /// Puts a frame on screen: uploads RGBA once, or uses a registered native texture.
    pub(crate) fn show(
        slot: &mut Option<Shown>,
        name: &str,
        pixels: FrameSource,
        worker: &Worker,
        ctx: &egui::Context,
    ) {
        puffin::profile_scope!("upload");
        match pixels {
            FrameSource::Rgba { rgba, width, height } => {
                let image = opaque_image([width, height], &rgba);
                worker.recycle(rgba);
                let options = egui::TextureOptions::NEAREST;
                if let Some(Shown { handle: Some(h), .. }) = slot.as_mut() {
                    h.set(image, options);
                    *slot = Some(Shown { id: h.id(), handle: Some(h.clone()), texture: None });
                } else {
                    let h = ctx.load_texture(name, image, options);
                    *slot = Some(Shown { id: h.id(), handle: Some(h), texture: None });
                }
            }
            FrameSource::Native { id, texture, .. } => *slot = Some(Shown { id, handle: None, texture: Some(texture) }),
        }
    }

    pub(crate) fn poll_worker(&mut self) {
        // At most one picture per displayed frame, so "steps / frame" is what one displayed frame
        // advances (the worker waits for its frame to be taken before it computes the next).
        for _ in 0..16 {
            let Some(m) = self.worker.try_recv() else { break };
            let picture = matches!(m, Msg::Wave(_) | Msg::Mandelbrot(_));
            self.handle(m);
            if picture {
                // The next picture is taken on the next frame, unless the CPU comparison holds the
                // window still (its measurement wakes it when done).
                if !self.compare.quiet() {
                    self.ctx.request_repaint();
                }
                break;
            }
        }
        if let Some(rx) = &self.mandel.check_rx
            && let Ok(r) = rx.try_recv()
        {
            self.mandel.check = Some(r);
            self.mandel.check_rx = None;
        }
        if let Some(c) = &self.compare.thread {
            for s in c.drain() {
                self.timing.record_cpu(&s);
            }
        }
        self.timing.drop_stale_cpu();
    }

    /// Keeps the CPU comparison on the problem the active backend runs.
    pub(crate) fn steer_compare(&mut self, ctx: &egui::Context) {
        let job = if !self.settings.cpu_compare || self.pages.page.is_some() {
            CompareJob::Off
        } else {
            match self.settings.view {
                Demo::Wave if self.settings.wave.playing => {
                    self.wave.scene.as_ref().map_or(CompareJob::Off, |s| CompareJob::Wave(Arc::clone(s)))
                }
                Demo::Wave => CompareJob::Off,
                Demo::Mandelbrot => self.mandel_compare_job(),
            }
        };
        if job == self.compare.job {
            return;
        }
        if self.compare.thread.is_none() && job != CompareJob::Off {
            let wake = ctx.clone();
            let (turn, hush) = (Arc::clone(&self.compare.turn), Arc::clone(&self.compare.hush));
            match CpuCompare::spawn(self.compare.kind, turn, hush, move || wake.request_repaint()) {
                Ok(c) => self.compare.thread = Some(c),
                Err(e) => {
                    #[cfg(target_arch = "wasm32")]
                    let e = format!("it runs on a second thread, which a browser tab does not have ({e})");
                    self.say(format!("cannot start the CPU comparison: {e}"));
                    self.settings.cpu_compare = false;
                    return;
                }
            }
        }
        if let Some(c) = &self.compare.thread {
            c.set_job(job.clone());
        }
        self.compare.job = job;
    }
}

/// An opaque RGBA8 picture (every alpha 255, as all the worker's pictures are) as egui's image:
/// one copy of the bytes. `ColorImage::from_rgba_unmultiplied` converts pixel by pixel, several
/// ms for the 2048x2048 picture of a big grid; for opaque pixels both give the same bytes.
fn opaque_image(size: [usize; 2], rgba: &[u8]) -> egui::ColorImage {
    debug_assert!(rgba.chunks_exact(4).all(|p| p[3] == 255), "the worker's pictures are opaque");
    egui::ColorImage::new(size, bytemuck::cast_slice::<u8, egui::Color32>(rgba).to_vec())
}
