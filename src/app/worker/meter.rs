//! What the simulation thread measures on the wave besides timing it: it reads the field back
//! every few steps for the time-averaged intensity and the probes, and once a frame for the
//! energy and the auto-contrast range. None of this is counted in the compute figures; its
//! wall time is reported apart ([`Measured::cost`], the profile's `measure` stage).
//!
//! Reading both fields back and summing the energy grows with the grid (512 MiB and 67 M cells
//! at 8192²): measured every [`MEASURE_EVERY`] it would take most of the simulation thread's
//! time. So the interval stretches to keep measuring under [`MEASURE_SHARE`] of the time, and
//! the panel says how often it measures; each value is still the exact energy of the whole field
//! at the step it names.

use std::sync::Arc;
use web_time::{Duration, Instant};

use crate::backend::WaveSim;
use crate::sim::wave::analysis::{AutoRange, Intensity, period_steps};
use crate::sim::wave::scene::Scene;
use crate::sim::wave::scene_cells::{SceneCells, energy_parallel};

use crate::app::worker::look::{INTENSITY_DECADES, WaveLook};
use crate::app::worker::messages::{Measured, ScreenMeasure, WorkerError};

/// Samples per source period for the intensity and the probes.
pub const SAMPLES_PER_PERIOD: f64 = 8.0;

/// How often the energy and the auto-contrast range are measured: reading both fields back every
/// frame would cost a GPU backend more than computing them (6 MB a frame at the seed's grid,
/// 128 MB at 4096²), for readouts nobody reads faster than this.
pub const MEASURE_EVERY: Duration = Duration::from_millis(200);

/// At most this share of the wall time goes to the energy and auto-contrast measurements: the
/// interval is at least [`MEASURE_EVERY`] and at least the last measurement's time over it.
pub const MEASURE_SHARE: f64 = 0.1;

/// The worker's measuring state for one running scene.
#[derive(Default)]
pub struct Meter {
    f: Vec<f32>,
    g: Vec<f32>,
    intensity: Intensity,
    /// The same average on the screen's column only.
    screen: Intensity,
    auto: Option<AutoRange>,
    cells: Option<(Arc<Scene>, SceneCells)>,
    probes: Vec<Vec<(u32, f32)>>,
    /// Time step of the field in `f`, if it is current.
    f_at: Option<u32>,
    next_sample: u32,
    last_measured: Option<Instant>,
    /// The interval between energy / auto-contrast measurements now in force (zero: not set,
    /// [`MEASURE_EVERY`]).
    every: Duration,
    cost: Duration,
}

impl Meter {
    /// Forgets the averages and samples (a new scene, grid or a reset).
    pub fn clear(&mut self) {
        self.intensity.clear();
        self.screen.clear();
        self.probes.clear();
        self.f_at = None;
        self.next_sample = 0;
        self.last_measured = None;
        self.every = Duration::ZERO;
    }

    /// Forgets the screen's average (the screen moved).
    pub fn clear_screen(&mut self) {
        self.screen.clear();
    }

    /// Steps between samples when the look needs them (intensity view, screen or probes), else `None`:
    /// [`SAMPLES_PER_PERIOD`] per period of the first source.
    #[must_use]
    pub fn sample_every(look: &WaveLook, scene: &Scene) -> Option<u32> {
        if !look.intensity && look.probes.is_empty() && look.screen.is_none() {
            return None;
        }
        let period = scene.sources.first().map_or(32.0, |s| period_steps(s.freq()));
        Some((period / SAMPLES_PER_PERIOD).round().clamp(1.0, 1e6) as u32)
    }

    /// The time step at which the next sample is due.
    #[must_use]
    pub fn next_sample(&self) -> u32 {
        self.next_sample
    }

    /// Reads the field of `sim` back and feeds the intensity average and the probes.
    ///
    /// # Errors
    /// The read failed.
    pub fn sample(&mut self, sim: &mut dyn WaveSim, look: &WaveLook, every: u32) -> Result<(), WorkerError> {
        puffin::profile_scope!("measure");
        let start = Instant::now();
        let tstep = sim.tstep();
        self.read_f(sim)?;
        let scene_nx_ny = (sim.params().nx, sim.params().ny);
        let window = look.average_periods.max(0.1) * period_steps(sim.params().freq);
        if look.intensity {
            self.intensity.add(&self.f, tstep, window);
        }
        if let Some(x) = look.screen.filter(|&x| x < scene_nx_ny.0) {
            let ny = scene_nx_ny.1;
            self.screen.add(&self.f[x * ny..(x + 1) * ny], tstep, window);
        }
        self.probes.resize_with(look.probes.len(), Vec::new);
        for (k, &(x, y)) in look.probes.iter().enumerate() {
            if x < scene_nx_ny.0 && y < scene_nx_ny.1 {
                self.probes[k].push((tstep, self.f[x * scene_nx_ny.1 + y]));
            }
        }
        self.next_sample = tstep + every;
        self.cost += start.elapsed();
        Ok(())
    }

    fn read_f(&mut self, sim: &mut dyn WaveSim) -> Result<(), WorkerError> {
        let tstep = sim.tstep();
        if self.f_at == Some(tstep) && self.f.len() == sim.params().cells() {
            return Ok(());
        }
        self.f.resize(sim.params().cells(), 0.0);
        sim.read_field(&mut self.f).map_err(|error| WorkerError { what: "reading the field", error })?;
        self.f_at = Some(tstep);
        Ok(())
    }

    /// The frame's measurements: energy and auto-contrast range where asked (every frame on
    /// at most every [`MEASURE_EVERY`] while running, every `still` frame while paused), the probes'
    /// samples since the last frame, and the colour range the picture is to be drawn with.
    ///
    /// # Errors
    /// A read failed.
    pub fn finish(
        &mut self,
        sim: &mut dyn WaveSim,
        scene: &Arc<Scene>,
        look: &WaveLook,
        manual: (f32, f32),
        sample_every: u32,
        still: bool,
    ) -> Result<Measured, WorkerError> {
        puffin::profile_scope!("measure");
        let start = Instant::now();
        let cells = sim.params().cells();
        let every = self.every.max(MEASURE_EVERY);
        // A frame shown while paused stays on screen: its readouts are its own.
        let due = still || self.last_measured.is_none_or(|t| t.elapsed() >= every);
        if due {
            self.last_measured = Some(start);
        }
        let mut energy_now = None;
        if look.energy && due {
            self.g.resize(cells, 0.0);
            self.f.resize(cells, 0.0);
            sim.read_fields(&mut self.f, &mut self.g)
                .map_err(|error| WorkerError { what: "reading the fields", error })?;
            self.f_at = Some(sim.tstep());
            if self.cells.as_ref().is_none_or(|(s, _)| !Arc::ptr_eq(s, scene)) {
                self.cells = Some((Arc::clone(scene), SceneCells::new(scene)));
            }
            if let Some((_, c)) = &self.cells {
                energy_now = Some(energy_parallel(c, &self.f, &self.g));
            }
        }
        let range = if look.intensity {
            if look.auto_contrast { AutoRange::of_positive(self.intensity.mean()) } else { (0.0, manual.1 * manual.1) }
        } else if look.auto_contrast {
            if due || self.auto.is_none() {
                self.read_f(sim)?;
                let auto = self.auto.get_or_insert_with(|| AutoRange::new(manual.1));
                auto.update(&self.f)
            } else {
                self.auto.map_or(manual, |a| (-a.vmax, a.vmax))
            }
        } else {
            self.auto = None;
            manual
        };
        let spent = start.elapsed();
        if due && !still && (energy_now.is_some() || (look.auto_contrast && !look.intensity)) {
            // Keep the next measurements under MEASURE_SHARE of the time.
            self.every = MEASURE_EVERY.max(spent.div_f64(MEASURE_SHARE));
        }
        self.cost += spent;
        Ok(Measured {
            range,
            measure_every: every,
            intensity: look.intensity,
            averaged_steps: self.intensity.covered_steps(),
            energy: energy_now,
            probes: std::mem::take(&mut self.probes),
            sample_every: if Self::sample_every(look, scene).is_some() { sample_every } else { 0 },
            cost: std::mem::take(&mut self.cost),
            screen: look.screen.filter(|_| !self.screen.mean().is_empty()).map(|x| ScreenMeasure {
                x,
                intensity: self.screen.mean().to_vec(),
                // A running average over about `average_periods` periods once that many are covered.
                averaged_steps: self
                    .screen
                    .covered_steps()
                    .min(look.average_periods.max(0.1) * period_steps(sim.params().freq)),
            }),
        })
    }

    /// The screen's time-averaged intensity, one value a row (empty before the first sample or
    /// after the screen moved).
    #[must_use]
    pub fn screen_mean(&self) -> &[f32] {
        self.screen.mean()
    }

    /// The time-averaged intensity, one value per cell (empty before the first sample).
    #[must_use]
    pub fn intensity(&self) -> &[f32] {
        self.intensity.mean()
    }

    /// The intensity as drawn, with the range to colour it in: as it is between `range`, or, with
    /// `log`, `log10` of it over [`INTENSITY_DECADES`] decades below `log10(range.1)`.
    pub fn intensity_picture(&mut self, log: bool, range: (f32, f32)) -> (&[f32], (f32, f32)) {
        if !log {
            return (self.intensity.mean(), range);
        }
        let top = range.1.max(f32::MIN_POSITIVE).log10();
        self.g.clear();
        self.g.extend(self.intensity.mean().iter().map(|&v| v.max(1e-30).log10()));
        (&self.g, (top - INTENSITY_DECADES, top))
    }
}
