//! The last periods of `render wave`: the time-averaged intensity on a screen (`--screen X
//! --csv FILE`, with the theory's curve and the maxima on stderr) and the intensity picture
//! (`--view intensity --png FILE`), both the exact mean of `f²` over the last `--average N`
//! periods of the lowest source frequency, sampled every time step.

use std::io::Write;
use std::path::Path;

use anyhow::Result;

use super::CliError;
use super::wave_args::{RenderWave, WaveView};
use crate::backend::WaveSim;
use crate::output;
use crate::sim::wave::analysis::abs_quantile;
use crate::sim::wave::scene::Scene;
use crate::sim::wave::screen::{self, ScreenAverage};
use crate::sim::wave::theory::{Pattern, Theory};

/// Where intensity is measured over the run's last steps, and the sums so far.
pub(super) struct Tail {
    /// The step after which sampling starts (`tmax` when nothing is averaged).
    pub from: u32,
    screen: Option<(usize, ScreenAverage)>,
    /// Per cell, the sum of `f²` (for `--view intensity`).
    field: Option<Vec<f64>>,
    samples: u32,
    buf: Vec<f32>,
}

impl Tail {
    /// What `a` asks to average over a run of `tmax` steps of `scene` (or the seed's problem of
    /// `freq`) on an `nx` x `ny` grid.
    ///
    /// # Errors
    /// A screen outside the grid, or an average longer than the run (usage).
    pub fn new(
        a: &RenderWave,
        scene: Option<&Scene>,
        freq: f64,
        grid: (usize, usize),
        tmax: u32,
    ) -> Result<Self, CliError> {
        let (nx, ny) = grid;
        let picture = a.view == WaveView::Intensity;
        if picture && (a.frames_dir.is_some() || a.gif.is_some()) {
            return Err(CliError::usage("--view intensity draws the --png picture only, not --frames-dir or --gif"));
        }
        let screen = match a.screen {
            Some(x) if x < 1 || x > nx as i64 - 2 => {
                return Err(CliError::usage(format!(
                    "--screen {x} is not an inner column of the grid: 1 to {} (nx = {nx}; the border columns hold 0)",
                    nx - 2
                )));
            }
            Some(x) => Some((x as usize, ScreenAverage::default())),
            None => None,
        };
        if screen.is_none() && !picture {
            return Ok(Self { from: tmax, screen, field: None, samples: 0, buf: Vec::new() });
        }
        let freqs: Vec<f64> = scene.map_or_else(|| vec![freq], |s| s.sources.iter().map(|s| s.freq()).collect());
        let period = screen::averaging_period(&freqs).ok_or_else(|| {
            CliError::usage("the intensity is averaged over source periods, and this scene has no source")
        })?;
        let steps = screen::averaging_steps(a.average, period.steps);
        if steps > tmax {
            return Err(CliError::usage(format!(
                "--average {} periods is {steps} time steps, more than the run's {tmax} (--tmax)",
                a.average
            )));
        }
        eprintln!(
            "intensity: mean of f² over the last {steps} steps ({} periods of {:.2} steps, the lowest source frequency)",
            a.average, period.steps
        );
        if let Some(beat) = period.beat_steps {
            eprintln!(
                "note: the sources have several frequencies: their beat ({beat:.1} steps) averages out only over \
                 windows long against it; this one is {:.1} beats",
                f64::from(steps) / beat
            );
        }
        let field = picture.then(|| vec![0.0; nx * ny]);
        Ok(Self { from: tmax - steps, screen, field, samples: 0, buf: Vec::new() })
    }

    /// Takes in the field after one more step.
    ///
    /// # Errors
    /// The read failed.
    pub fn sample(&mut self, sim: &mut dyn WaveSim) -> Result<()> {
        let (nx, ny) = (sim.params().nx, sim.params().ny);
        self.buf.resize(nx * ny, 0.0);
        sim.read_field(&mut self.buf)?;
        if let Some((x, avg)) = &mut self.screen {
            avg.add_column(screen::column(&self.buf, ny, *x));
        }
        if let Some(sum) = &mut self.field {
            for (s, &v) in sum.iter_mut().zip(&self.buf) {
                *s += f64::from(v) * f64::from(v);
            }
        }
        self.samples += 1;
        Ok(())
    }

    /// The time-averaged intensity per cell, for `--view intensity`.
    #[must_use]
    pub fn intensity(&self) -> Option<Vec<f32>> {
        let n = f64::from(self.samples.max(1));
        self.field.as_ref().map(|sum| sum.iter().map(|s| (s / n) as f32).collect())
    }

    /// Writes the screen's CSV and says where its maxima lie (and theory's).
    ///
    /// # Errors
    /// The file could not be written.
    pub fn write_screen(&self, csv: &Path, scene: Option<&Scene>) -> Result<()> {
        let Some((x, avg)) = &self.screen else { return Ok(()) };
        let mean = avg.mean();
        let theory = scene.and_then(Theory::of);
        let curve = theory.as_ref().and_then(|t| screen::theory_on_column(t, *x, mean.len()));
        // The theory's curve on the same axes: scaled to the measured intensity's largest value.
        let top = mean.iter().copied().fold(0.0, f64::max);
        output::write_atomically(csv, |w| {
            match &curve {
                Some(_) => writeln!(w, "y,intensity,theory")?,
                None => writeln!(w, "y,intensity")?,
            }
            for (y, v) in mean.iter().enumerate() {
                match curve.as_ref().map(|c| c[y] * top) {
                    Some(t) if t.is_finite() => writeln!(w, "{y},{v:e},{t:e}")?,
                    Some(_) => writeln!(w, "{y},{v:e},")?,
                    None => writeln!(w, "{y},{v:e}")?,
                }
            }
            Ok(())
        })?;
        let peaks: Vec<String> = screen::maxima(&mean, 0.1).iter().map(|y| format!("{y:.1}")).collect();
        eprintln!(
            "screen x = {x}: {} steps averaged; maxima (above 10% of the largest) at y = {}",
            avg.samples(),
            peaks.join(", ")
        );
        if let Some(t) = &theory {
            let what = if t.pattern == Pattern::SingleSlit { "minima" } else { "maxima" };
            let marks: Vec<String> = screen::theory_marks_on_column(t, *x, mean.len())
                .iter()
                .map(|(m, y)| format!("m={m} y={y:.1}"))
                .collect();
            eprintln!("theory ({}): {what} at {}", t.describe(), marks.join(", "));
        }
        eprintln!("wrote {}", csv.display());
        Ok(())
    }
}

/// The colour range of the picture: the flags' (field ±0.1, intensity 0..0.01 = 0.1²), or with
/// `--auto-contrast` the picture's own 99.5th percentile of `|v|`.
#[must_use]
pub fn picture_range(values: &[f32], intensity: bool, auto: bool) -> (f32, f32) {
    const FLOOR: f32 = 1e-8;
    match (intensity, auto) {
        (true, true) => (0.0, abs_quantile(values, 0.995).max(FLOOR)),
        (true, false) => (0.0, 0.01),
        (false, true) => {
            let q = abs_quantile(values, 0.995).max(FLOOR);
            (-q, q)
        }
        (false, false) => (-0.1, 0.1),
    }
}
