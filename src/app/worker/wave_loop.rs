//! The simulation thread's wave part: opening scenes (sources swapped in place, the waves
//! carried over, a refused scene or grid leaving the previous one running), stepping a frame's
//! worth in slices, measuring and drawing it, the check against `cpu1`, and the one large call
//! that tells launch overhead from compute.

use std::sync::Arc;
use web_time::{Duration, Instant};

use crate::backend::{self, Backend, Timing, WaveSim};
use crate::sim::wave::scene::{Scene, Source};

use crate::app::worker::messages::{CHECK_STEPS, CheckResult, Command, FrameSource, Msg, WaveFrame};
use crate::app::worker::meter::Meter;
use crate::app::worker::simulation::{SimLoop, read_waves};

/// How long the worker may compute before it looks at its commands again.
const SLICE: Duration = Duration::from_millis(40);

/// The compute time of the one large call that measures a backend without launch overhead.
const LARGE_CALL: Duration = Duration::from_millis(30);

impl SimLoop {
    /// Opens `scene` on the backend, with the waves `carry` (fields `f`, `g` and the time step)
    /// written in where given; on refusal the previous scene keeps running.
    pub(super) fn open_sim(&mut self, scene: Scene, carry: Option<(Vec<f32>, Vec<f32>, u32)>) {
        let (nx, ny) = (scene.nx, scene.ny);
        let refused = match self.backend.new_scene(&scene) {
            Ok(mut sim) => {
                if let Some((f, g, t)) = carry
                    && let Err(e) = sim.write_fields(&f, &g, t)
                {
                    log::warn!("the waves could not be carried over ({e}); starting from rest");
                    let _ = sim.reset();
                }
                // Free the old fields before the next allocation.
                self.wave.sim = Some(sim);
                self.wave.scene = Arc::new(scene);
                self.wave.meter.clear();
                self.wave.redraw = true;
                false
            }
            Err(e) => {
                let what = if (nx, ny) == (self.wave.scene.nx, self.wave.scene.ny) { "scene" } else { "grid" };
                self.send(Msg::Error(format!("{what} {nx}x{ny} refused: {e}; the previous {what} keeps running")));
                true
            }
        };
        if self.wave.sim.is_none() {
            // A new backend without room for the scene: start it on the default preset.
            if let Ok(p) = crate::sim::wave::scene::preset(crate::sim::wave::scene::DEFAULT_PRESET)
                && let Ok(sim) = self.backend.new_scene(&p)
            {
                self.wave.sim = Some(sim);
                self.wave.scene = Arc::new(p);
                self.wave.meter.clear();
                self.wave.redraw = true;
            }
        }
        self.send(Msg::Grid { nx: self.wave.scene.nx, ny: self.wave.scene.ny, refused });
    }

    /// Runs `scene`: its sources swapped in place when only they changed (the waves go on),
    /// otherwise opened anew with the waves carried over when asked and the grid is the same.
    pub(super) fn apply_scene(&mut self, mut scene: Scene, keep_waves: bool) {
        if keep_waves && let Some(sim) = self.wave.sim.as_ref() {
            carry_pulse_starts(&mut scene, &self.wave.scene, sim.tstep());
        }
        // From rest (a file opened, a preset picked) even where it is the scene running.
        if keep_waves && *self.wave.scene == scene && self.wave.sim.is_some() {
            return;
        }
        if let Err(e) = scene.validate() {
            self.send(Msg::Error(format!("scene refused: {e}; the previous scene keeps running")));
            self.send(Msg::Grid { nx: self.wave.scene.nx, ny: self.wave.scene.ny, refused: true });
            return;
        }
        let only_sources = {
            let mut same = scene.clone();
            same.sources.clone_from(&self.wave.scene.sources);
            same == *self.wave.scene && scene.sources.len() == self.wave.scene.sources.len()
        };
        if keep_waves
            && only_sources
            && let Some(sim) = self.wave.sim.as_mut()
        {
            match sim.set_sources(&scene.sources) {
                Ok(()) => {
                    self.wave.scene = Arc::new(scene);
                    self.wave.redraw = true;
                    return;
                }
                // A plain problem, or buffers that cannot hold the change: reopen below.
                Err(e) => log::debug!("sources not swapped in place: {e}"),
            }
        }
        let same_grid = (scene.nx, scene.ny) == (self.wave.scene.nx, self.wave.scene.ny);
        let carry =
            if keep_waves && same_grid { self.wave.sim.as_mut().and_then(|s| read_waves(s.as_mut())) } else { None };
        self.open_sim(scene, carry);
    }

    /// Runs [`CHECK_STEPS`] steps on the active backend from its current state, and the same on
    /// the CPU reference (`cpu1`, one core, whatever the active backend is) from the same state
    /// in a thread of its own, then reports `max |diff|` of both fields against what the backend
    /// promises.
    pub(super) fn check(&mut self) {
        let backend = self.backend.kind();
        let against = backend::BackendKind::Cpu1;
        let fault = self.wave.check_fault;
        let tolerance =
            if backend == backend::BackendKind::Wgpu { f64::from(crate::sim::wave::WAVE_TOLERANCE) } else { 0.0 };
        let fail = move |from, e: String| CheckResult {
            backend,
            against,
            from,
            steps: 0,
            max_diff: f64::NAN,
            tolerance,
            error: Some(e),
        };
        let Some(mut sim) = self.wave.sim.take() else { return };
        let from = sim.tstep();
        let start = read_waves(sim.as_mut());
        let advanced = {
            let turn = Arc::clone(&self.turn);
            let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            sim.advance(CHECK_STEPS)
        };
        let end = if advanced.is_ok() { read_waves(sim.as_mut()) } else { None };
        self.wave.sim = Some(sim);
        self.wave.redraw = true;
        let (Some((f0, g0, _)), Some((f1, g1, _))) = (start, end) else {
            let why = advanced.err().map_or_else(|| "the fields could not be read back".to_owned(), |e| e.to_string());
            self.send(Msg::Check(fail(from, why)));
            return;
        };
        let scene = (*self.wave.scene).clone();
        let out = self.out.clone();
        let wake = Arc::clone(&self.wake);
        let spawned = std::thread::Builder::new().name("wavebrot-check".into()).spawn(move || {
            let cpu = backend::cpu::CpuBackend::new(backend::cpu::Threads::One);
            let run = || -> Result<f64, backend::BackendError> {
                let mut s = cpu.new_scene(&scene)?;
                s.write_fields(&f0, &g0, from)?;
                s.advance(CHECK_STEPS)?;
                let (mut f, mut g) = (vec![0.0; f1.len()], vec![0.0; g1.len()]);
                s.read_fields(&mut f, &mut g)?;
                if fault && let Some(v) = f.get_mut(f1.len() / 2) {
                    // Test seam: the smallest fault the tolerance must catch: one cell off by one
                    // step of f32 (cpu, CUDA: exact) or by twice the tolerance (wgpu).
                    *v = if tolerance > 0.0 { *v + (2.0 * tolerance) as f32 } else { f32::from_bits(v.to_bits() + 1) };
                }
                let d = crate::sim::wave::max_abs_diff(&f, &f1).max(crate::sim::wave::max_abs_diff(&g, &g1));
                Ok(f64::from(d))
            };
            let r = match run() {
                Ok(max_diff) => {
                    CheckResult { backend, against, from, steps: CHECK_STEPS, max_diff, tolerance, error: None }
                }
                Err(e) => fail(from, e.to_string()),
            };
            let _ = out.send(Msg::Check(r));
            wake();
        });
        if let Err(e) = spawned {
            self.send(Msg::Check(fail(from, format!("cannot start the check: {e}"))));
        }
    }

    /// Times one large call (about [`LARGE_CALL`] of compute) on a copy of the running scene,
    /// once per backend and grid, so the panel can tell launch overhead from compute. Skipped on
    /// grids too large to hold twice comfortably.
    pub(super) fn probe_large_call(&mut self) {
        let key = (self.backend.kind(), self.wave.scene.nx, self.wave.scene.ny);
        if self.wave.large_call.is_some_and(|(k, _)| k == key)
            || self.wave.scene.cells() > 1 << 24
            || !self.wave.playing
        {
            return;
        }
        let mut steps = (LARGE_CALL.as_secs_f64() / self.wave.per_step.as_secs_f64().max(1e-9)).clamp(2.0, 1e6) as u32;
        let Ok(mut copy) = self.backend.new_scene(&self.wave.scene) else { return };
        let turn = Arc::clone(&self.turn);
        let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // The small calls' rate overstates a step's cost: grow the call until it is long enough.
        for _ in 0..4 {
            let Ok(t) = copy.advance(steps) else { return };
            let secs = t.best().as_secs_f64();
            self.wave.large_call = Some((key, secs / (2.0 * f64::from(steps))));
            if secs >= LARGE_CALL.as_secs_f64() / 3.0 || steps >= 1_000_000 {
                return;
            }
            steps = (steps.saturating_mul(4)).min(1_000_000);
        }
    }

    pub(super) fn wave_frame(&mut self) {
        let steps = match (self.wave.playing, self.wave.fastest) {
            // As many steps as fill the frame budget at the last measured rate.
            (true, true) => {
                let fit =
                    crate::app::worker::look::FASTEST_BUDGET.as_secs_f64() / self.wave.per_step.as_secs_f64().max(1e-9);
                (fit as u32).clamp(1, 1_000_000)
            }
            (true, false) => self.wave.steps_per_frame,
            (false, _) => std::mem::take(&mut self.wave.pending_steps),
        };
        if steps == 0 && !self.wave.redraw {
            return;
        }
        self.wave.redraw = false;
        let Some(mut sim) = self.wave.sim.take() else { return };
        let msg = self.wave_frame_on(sim.as_mut(), steps);
        self.wave.sim = Some(sim);
        self.send(msg);
        self.probe_large_call();
    }

    /// Between the slices of a long frame, a command waiting is taken in (so that a long frame
    /// never locks the controls) and the frame ends there: true. A ping (the tests' sync) does
    /// not end it: it asks only for an answer once everything before it is done, and a frame it
    /// cut dropped the rest of a paused Step's steps (a Step then ran fewer steps than asked,
    /// as many as the machine's load allowed).
    fn take_command_between_slices(&mut self) -> bool {
        let Ok(c) = self.commands.try_recv() else { return false };
        let ping = matches!(c, Command::Ping(_));
        self.inbox.push_back(c);
        !ping
    }

    /// Advances `sim` by `steps` (in slices, and in samples where the look needs them), measures
    /// and draws it: the frame, or what failed.
    pub(super) fn wave_frame_on(&mut self, sim: &mut dyn WaveSim, steps: u32) -> Msg {
        let start = Instant::now();
        let mut advance =
            Timing { wall: Duration::ZERO, device: Some(Duration::ZERO), source: backend::TimingSource::WallClock };
        let every = Meter::sample_every(&self.wave.look, &self.wave.scene);
        if let Some(e) = every
            && self.wave.meter.next_sample() <= sim.tstep()
            && let Err(m) = self.wave.meter.sample(sim, &self.wave.look, e)
        {
            return Msg::Error(m.to_string());
        }
        let mut done = 0;
        while done < steps {
            let fit = (SLICE.as_secs_f64() / self.wave.per_step.as_secs_f64().max(1e-9)) as u32;
            let mut chunk = fit.clamp(1, steps - done);
            if every.is_some() {
                chunk = chunk.min(self.wave.meter.next_sample().saturating_sub(sim.tstep()).max(1));
            }
            let turn = std::sync::Arc::clone(&self.turn);
            let advanced = {
                let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                puffin::profile_scope!("compute");
                sim.advance(chunk)
            };
            match advanced {
                Ok(t) => {
                    advance.wall += t.wall;
                    advance.device = advance.device.zip(t.device).map(|(a, b)| a + b);
                    advance.source = t.source;
                    self.wave.per_step = t.wall / chunk;
                }
                Err(e) => {
                    self.wave.playing = false;
                    return Msg::Error(format!("step failed: {e}"));
                }
            }
            done += chunk;
            if let Some(e) = every
                && sim.tstep() >= self.wave.meter.next_sample()
                && let Err(m) = self.wave.meter.sample(sim, &self.wave.look, e)
            {
                return Msg::Error(m.to_string());
            }
            if done < steps && start.elapsed() > SLICE && self.take_command_between_slices() {
                break;
            }
        }
        if advance.source == backend::TimingSource::WallClock {
            advance.device = None;
        }
        let tstep = sim.tstep();
        let manual = (self.wave.vmin, self.wave.vmax);
        let measured = match self.wave.meter.finish(
            sim,
            &self.wave.scene,
            &self.wave.look,
            manual,
            every.unwrap_or(0),
            !self.wave.playing,
        ) {
            Ok(m) => m,
            Err(e) => return Msg::Error(e.to_string()),
        };
        let (lo, hi) = measured.range;
        self.wave.shown = Some(((lo, hi), measured.intensity));
        let shown = if measured.intensity && !self.wave.meter.intensity().is_empty() {
            let (nx, ny) = (self.wave.scene.nx, self.wave.scene.ny);
            let (values, (lo, hi)) = self.wave.meter.intensity_picture(self.wave.look.intensity_log, (lo, hi));
            Ok(self.display.host_frame(values, nx, ny, lo, hi))
        } else {
            self.display.wave_frame(sim, lo, hi)
        };
        let host_copy = match &shown {
            Ok((FrameSource::Native { width, height, .. }, _)) if self.wave.recording => {
                match self.recording_copy(sim, (*width, *height), (lo, hi)) {
                    Ok(copy) => Some(copy),
                    Err(e) => return Msg::Error(format!("the picture could not be read back to record it: {e}")),
                }
            }
            _ => None,
        };
        match shown {
            Ok((pixels, render)) => Msg::Wave(WaveFrame {
                pixels,
                scene: Arc::clone(&self.wave.scene),
                params: *sim.params(),
                tstep,
                steps: done,
                advance,
                render,
                measured,
                dram_bytes_per_update: sim.dram_bytes_per_update(done.max(1)),
                large_call_update_secs: self.wave.large_call.map(|(_, s)| s),
                host_copy,
            }),
            Err(e) => Msg::Error(e.to_string()),
        }
    }
}

impl SimLoop {
    /// A recording needs the picture on the host: one drawn into the display texture is read
    /// back too, at its size (`size`, the grid's display stride) and colour range.
    fn recording_copy(
        &self,
        sim: &mut dyn WaveSim,
        size: (usize, usize),
        (lo, hi): (f32, f32),
    ) -> Result<FrameSource, backend::BackendError> {
        let stride = super::display::display_stride(self.wave.scene.nx, self.wave.scene.ny);
        let mut rgba = vec![0u8; size.0 * size.1 * 4];
        sim.render_rgba_strided(lo, hi, stride, &mut rgba)?;
        Ok(FrameSource::Rgba { rgba, width: size.0, height: size.1 })
    }

    /// The wave picture as the last frame showed it (field or intensity, its colour range), one
    /// pixel per cell, written to `path` as PNG (atomically: whole or not at all); the line to
    /// show. Before the first frame, the field with the contrast sliders' range.
    pub(super) fn save_wave_picture(
        &mut self,
        path: &std::path::Path,
        look: &super::wave_picture::PictureLook,
    ) -> anyhow::Result<String> {
        use anyhow::Context as _;
        let sim = self.wave.sim.as_mut().context("no wave simulation is running")?;
        let (nx, ny) = (self.wave.scene.nx, self.wave.scene.ny);
        let ((lo, hi), intensity) = self.wave.shown.unwrap_or(((self.wave.vmin, self.wave.vmax), false));
        let mut rgba = vec![0u8; nx * ny * 4];
        let log = self.wave.look.intensity_log;
        let (what, intensity) = if intensity && !self.wave.meter.intensity().is_empty() {
            let (values, (lo, hi)) = self.wave.meter.intensity_picture(log, (lo, hi));
            crate::sim::colour::colormap::wave_rgba_strided(values, nx, ny, lo, hi, 1, &mut rgba);
            ("intensity", true)
        } else {
            let mut f = vec![0.0f32; nx * ny];
            sim.read_field(&mut f)?;
            crate::sim::colour::colormap::wave_rgba_strided(&f, nx, ny, lo, hi, 1, &mut rgba);
            ("field", false)
        };
        let bar = super::wave_picture::bar_labels((lo, hi), intensity, log);
        // The screen's graph from the average of the column the worker measures (the app's look
        // is sent with every change, so it is the screen shown).
        let mean = self.wave.meter.screen_mean();
        let screen =
            (look.screen.is_some() && self.wave.look.screen == look.screen && !mean.is_empty()).then_some(mean);
        let (picture, _) = super::wave_picture::compose(&rgba, (nx, ny), &self.wave.scene, look, &bar, screen)?;
        let (w, h) = (picture.width, picture.height);
        crate::output::write_png(path, &picture.pixels, w, h).with_context(|| path.display().to_string())?;
        let how = match look.size {
            super::wave_picture::PictureSize::Cells => "one pixel per cell".to_owned(),
            super::wave_picture::PictureSize::Pixels(..) => format!("{w}x{h} with the overlay and colour bar"),
        };
        Ok(format!(
            "saved {} ({what} at step {}, {nx}x{ny} cells, {how})",
            crate::output::shown_path(path),
            sim.tstep()
        ))
    }
}

/// Pulses of `scene` that `running` has (ignoring their start) keep the start they run with; a
/// new one whose start already passed (the app asked for the step after the one it showed, the
/// worker ran on) starts on the next step, `tstep + 1`, so it rings whole.
fn carry_pulse_starts(scene: &mut Scene, running: &Scene, tstep: u32) {
    for s in &mut scene.sources {
        if let Some(old) = running.sources.iter().find(|o| o.same_but_start(s)) {
            s.clone_from(old);
        } else if let Source::Pulse { start, .. } = s
            && *start <= tstep
        {
            *start = tstep + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_pulse_starts_on_the_next_step_and_old_ones_keep_theirs() {
        let running = Scene { sources: vec![Source::pulse(5, 5, 0.3, 12)], ..Scene::seed(40, 30, 0.2) };
        // The app asked for step 101 (it showed 100); the worker is at 104. The old pulse comes
        // back with the start the app saw, 12.
        let mut edited =
            Scene { sources: vec![Source::pulse(5, 5, 0.3, 12), Source::pulse(9, 9, 0.3, 101)], ..running.clone() };
        carry_pulse_starts(&mut edited, &running, 104);
        assert_eq!(edited.sources, vec![Source::pulse(5, 5, 0.3, 12), Source::pulse(9, 9, 0.3, 105)]);
        // A start still ahead is kept; an old pulse the app holds with another start keeps the worker's.
        let mut ahead =
            Scene { sources: vec![Source::pulse(5, 5, 0.3, 3), Source::pulse(9, 9, 0.3, 200)], ..running.clone() };
        carry_pulse_starts(&mut ahead, &running, 104);
        assert_eq!(ahead.sources, vec![Source::pulse(5, 5, 0.3, 12), Source::pulse(9, 9, 0.3, 200)]);
    }
}
