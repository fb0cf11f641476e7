//! The wave lab's meters: the energy readout and its plot, the probes' oscilloscope, and the
//! Courant number with its warning. They show what the simulation thread measured
//! ([`crate::app::worker::messages::Measured`]) over time.

use std::collections::VecDeque;

use egui_plot::{Line, Plot, PlotPoints};

use crate::sim::wave::scene::{C2_LIMIT, Scene};

use crate::app::wave::view::{MAX_PROBES, PROBE_COLOURS};
use crate::app::worker::messages::Measured;
use crate::app::worker::meter::{MEASURE_EVERY, MEASURE_SHARE};

/// Samples kept per trace.
const KEEP: usize = 2000;

/// What the meters have seen.
#[derive(Default)]
pub struct Meters {
    /// `(time step, energy)`.
    pub energy: VecDeque<[f64; 2]>,
    /// Per probe, `(time step, f)`.
    pub probes: Vec<VecDeque<[f64; 2]>>,
    /// The last colour range and how long the intensity averaged, for the colour bar.
    pub last: Option<Measured>,
}

impl Meters {
    /// Forgets the traces (a new scene or a reset: the time axis starts again).
    pub fn clear(&mut self) {
        self.energy.clear();
        self.probes.clear();
    }

    /// Takes a frame's measurements in (`tstep`: the frame's time step).
    pub fn record(&mut self, tstep: u32, m: &Measured) {
        let back = |q: &VecDeque<[f64; 2]>| q.back().map(|p| p[0]);
        if back(&self.energy).is_some_and(|t| t > f64::from(tstep)) {
            // The step counter went back: a reset or a new scene.
            self.clear();
        }
        if let Some(e) = m.energy {
            push(&mut self.energy, [f64::from(tstep), e]);
        }
        self.probes.resize_with(m.probes.len(), VecDeque::new);
        for (trace, samples) in self.probes.iter_mut().zip(&m.probes) {
            if samples.first().is_some_and(|s| back(trace).is_some_and(|t| t > f64::from(s.0))) {
                trace.clear();
            }
            for &(t, v) in samples {
                push(trace, [f64::from(t), f64::from(v)]);
            }
        }
        // Frames between two energy measurements keep showing the last one.
        let energy = m.energy.or(self.last.as_ref().and_then(|l| l.energy));
        self.last = Some(Measured { probes: Vec::new(), energy, ..m.clone() });
    }

    /// The energy readout and plot, the Courant number, and the probes' oscilloscope.
    pub fn ui(&self, ui: &mut egui::Ui, scene: &Scene, energy_on: bool) {
        courant_ui(ui, scene);
        if energy_on {
            match self.energy.back() {
                Some(&[t, e]) => {
                    ui.label(format!("energy {} at step {t}", fmt_energy(e))).on_hover_text(
                        "the discrete energy of the leapfrog scheme: kinetic plus strain, summed over the cells",
                    );
                    if let Some(every) = self.last.as_ref().map(|m| m.measure_every).filter(|&d| d > MEASURE_EVERY) {
                        let mib = scene.cells() as f64 * 8.0 / f64::from(1 << 20);
                        ui.weak(format!("measured every {:.1} s", every.as_secs_f64())).on_hover_text(format!(
                            "each measurement reads both fields back ({mib:.0} MiB) and sums the whole grid: \
                             measured less often so that it takes at most {:.0}% of the time; \
                             every value is the whole field's energy at its step",
                            MEASURE_SHARE * 100.0
                        ));
                    }
                }
                None => {
                    ui.weak("energy: measuring…");
                }
            }
            if self.energy.len() > 1 {
                let pts: PlotPoints<'_> = self.energy.iter().copied().collect();
                Plot::new("energy")
                    .height(90.0)
                    .allow_drag(false)
                    .allow_zoom(false)
                    .allow_scroll(false)
                    .x_axis_label("time step")
                    .show(ui, |p| p.line(Line::new("energy", pts)));
            }
        }
        if !self.probes.is_empty() && self.probes.iter().any(|p| !p.is_empty()) {
            ui.label("Probes (f over time)");
            // The legend above the plot, in the traces' colours, so it never covers them.
            ui.horizontal_wrapped(|ui| {
                for k in 0..self.probes.len() {
                    ui.colored_label(PROBE_COLOURS[k % MAX_PROBES], format!("— probe {}", k + 1));
                }
            });
            Plot::new("probes")
                .height(180.0)
                .allow_drag(false)
                .allow_zoom(false)
                .allow_scroll(false)
                .x_axis_label("time step")
                .show(ui, |p| {
                    for (k, trace) in self.probes.iter().enumerate() {
                        let pts: PlotPoints<'_> = trace.iter().copied().collect();
                        p.line(Line::new(format!("probe {}", k + 1), pts).color(PROBE_COLOURS[k % MAX_PROBES]));
                    }
                });
        }
    }
}

/// An energy as a reader reads it: four significant digits in plain decimals (`948.6`,
/// `0.01234`), and `1.235 × 10^9` only where plain decimals would be long.
#[must_use]
pub fn fmt_energy(e: f64) -> String {
    if e == 0.0 || !e.is_finite() {
        return format!("{e}");
    }
    let magnitude = e.abs().log10().floor();
    if (-4.0..7.0).contains(&magnitude) {
        let decimals = (3.0 - magnitude).max(0.0) as usize;
        format!("{e:.decimals$}")
    } else {
        let m = e / 10f64.powf(magnitude);
        format!("{m:.3} × 10^{magnitude:.0}")
    }
}

fn push(q: &mut VecDeque<[f64; 2]>, p: [f64; 2]) {
    if q.len() == KEEP {
        q.pop_front();
    }
    q.push_back(p);
}

/// The Courant number `sqrt(c2)` of the fastest medium in the scene against the 2D limit
/// `1/sqrt(2)`, with a warning from 90% of it.
pub fn courant_ui(ui: &mut egui::Ui, scene: &Scene) {
    let (c, limit) = (scene.max_c2().sqrt(), C2_LIMIT.sqrt());
    let text = format!("Courant number {c:.3} (stable up to {limit:.3})");
    if c > 0.9 * limit {
        ui.colored_label(ui.visuals().warn_fg_color, format!("Warning: {text}: near the limit, waves may blow up"));
    } else {
        ui.label(text).on_hover_text("sqrt(c2) of the fastest medium: cells a wave crosses per update");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_restart_when_the_step_counter_goes_back() {
        let mut m = Meters::default();
        let at =
            |e: f64, probe: Vec<(u32, f32)>| Measured { energy: Some(e), probes: vec![probe], ..Measured::default() };
        m.record(10, &at(1.0, vec![(5, 0.1), (10, 0.2)]));
        m.record(20, &at(1.1, vec![(15, 0.3), (20, 0.4)]));
        assert_eq!(m.energy.len(), 2);
        assert_eq!(m.probes[0].len(), 4);
        m.record(5, &at(0.0, vec![(5, 0.0)]));
        assert_eq!(m.energy.len(), 1, "a reset starts the energy trace again");
        assert_eq!(m.probes[0].len(), 1, "and the probes'");
    }

    #[test]
    fn energies_read_in_plain_decimals() {
        assert_eq!(fmt_energy(948.62), "948.6");
        assert_eq!(fmt_energy(0.012_345), "0.01235");
        assert_eq!(fmt_energy(123_456.0), "123456");
        assert_eq!(fmt_energy(1.2346e9), "1.235 × 10^9");
        assert_eq!(fmt_energy(0.0), "0");
    }
}
