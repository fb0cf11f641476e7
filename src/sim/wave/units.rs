//! Physical units for the wave lab's readouts: a medium sets how long a cell is and, through its
//! wave speed, how long a time step is, so a wavelength, a frequency, a speed or a distance read
//! in cells can also be read in centimetres and hertz. The simulation's numbers do not change:
//! this is only a way to read them.
//!
//! A wave in the open medium (`c2` of the scene) moves `2·sqrt(c2)` cells per time step (two
//! updates of `sqrt(c2)` cells each), so with a cell of `Δx` metres and a medium of speed `v`
//! metres per second a time step lasts `Δt = 2·sqrt(c2)·Δx / v`.

use std::f64::consts::TAU;

/// The medium the lab's numbers are read in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Medium {
    /// Cells and time steps only.
    #[default]
    Cells,
    /// A ripple tank: 1 mm a cell, waves of 25 cm/s; read in cm and Hz.
    Water,
    /// Sound in air: 1 cm a cell, 343 m/s; read in m and Hz.
    Air,
    /// Light in vacuum: 20 nm a cell, 299 792 458 m/s; read in nm and THz.
    Light,
}

/// A length, time or frequency unit: its name and how many SI units (m, s, Hz) it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unit {
    pub name: &'static str,
    pub si: f64,
}

impl Medium {
    /// Every medium, for a picker.
    pub const ALL: [Self; 4] = [Self::Cells, Self::Water, Self::Air, Self::Light];

    /// Its name in the picker.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Cells => "cells",
            Self::Water => "water (cm, Hz)",
            Self::Air => "sound in air (m, Hz)",
            Self::Light => "light (nm, THz)",
        }
    }

    /// Metres a cell is long (`None` for [`Medium::Cells`]).
    #[must_use]
    pub fn cell_metres(self) -> Option<f64> {
        match self {
            Self::Cells => None,
            Self::Water => Some(1e-3),
            Self::Air => Some(1e-2),
            Self::Light => Some(20e-9),
        }
    }

    /// The medium's wave speed, metres per second.
    #[must_use]
    pub fn speed_metres_per_second(self) -> Option<f64> {
        match self {
            Self::Cells => None,
            Self::Water => Some(0.25),
            Self::Air => Some(343.0),
            Self::Light => Some(299_792_458.0),
        }
    }

    /// The units lengths, times and frequencies are read in.
    #[must_use]
    pub fn units(self) -> Option<(Unit, Unit, Unit)> {
        let (l, t, f) = match self {
            Self::Cells => return None,
            Self::Water => (("cm", 1e-2), ("s", 1.0), ("Hz", 1.0)),
            Self::Air => (("m", 1.0), ("ms", 1e-3), ("Hz", 1.0)),
            Self::Light => (("nm", 1e-9), ("fs", 1e-15), ("THz", 1e12)),
        };
        let u = |(name, si): (&'static str, f64)| Unit { name, si };
        Some((u(l), u(t), u(f)))
    }
}

/// Cells and steps read in a medium's units, for a scene whose open medium has `c2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    pub medium: Medium,
    /// Metres per cell.
    pub cell_metres: f64,
    /// Seconds per time step.
    pub step_seconds: f64,
}

impl Scale {
    /// The scale of `medium` for a scene of `c2` (`None` for [`Medium::Cells`] or a `c2` that is
    /// not positive).
    #[must_use]
    pub fn new(medium: Medium, c2: f64) -> Option<Self> {
        let (dx, v) = (medium.cell_metres()?, medium.speed_metres_per_second()?);
        (c2 > 0.0 && c2.is_finite()).then(|| Self { medium, cell_metres: dx, step_seconds: 2.0 * c2.sqrt() * dx / v })
    }

    /// `cells` as a length in the medium's unit, e.g. `3.14 cm`.
    #[must_use]
    pub fn length(&self, cells: f64) -> String {
        let (l, _, _) = self.units();
        fmt(cells * self.cell_metres / l.si, l.name)
    }

    /// `steps` time steps as a time in the medium's unit, e.g. `0.40 s`.
    #[must_use]
    pub fn time(&self, steps: f64) -> String {
        let (_, t, _) = self.units();
        fmt(steps * self.step_seconds / t.si, t.name)
    }

    /// An angular frequency of `freq` radians per time step as a frequency, e.g. `7.96 Hz`.
    #[must_use]
    pub fn frequency(&self, freq: f64) -> String {
        let (_, _, f) = self.units();
        fmt(self.hertz(freq) / f.si, f.name)
    }

    /// `freq` radians per time step in hertz: `freq / (2π·Δt)`.
    #[must_use]
    pub fn hertz(&self, freq: f64) -> f64 {
        freq / (TAU * self.step_seconds)
    }

    /// A speed of `cells_per_step` as metres per second.
    #[must_use]
    pub fn speed(&self, cells_per_step: f64) -> String {
        fmt(cells_per_step * self.cell_metres / self.step_seconds, "m/s")
    }

    fn units(&self) -> (Unit, Unit, Unit) {
        // `new` only makes scales of media with units.
        self.medium.units().unwrap_or((
            Unit { name: "m", si: 1.0 },
            Unit { name: "s", si: 1.0 },
            Unit { name: "Hz", si: 1.0 },
        ))
    }
}

/// Three significant digits, plain decimals (`3.14 cm`, `0.0314 m`, `477 THz`).
fn fmt(v: f64, unit: &str) -> String {
    let a = v.abs();
    let digits = if a == 0.0 || !a.is_finite() { 2 } else { (2 - a.log10().floor() as i32).clamp(0, 9) as usize };
    format!("{v:.digits$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn water_reads_the_double_slit_in_centimetres_and_hertz() {
        // By hand: c2 = 0.25 moves 1 cell a step; 1 mm cells at 25 cm/s: Δt = 1 mm / 250 mm/s
        // = 4 ms. λ = 31.4159 cells = 3.14 cm; freq 0.2 rad/step = 0.2/(2π·0.004 s) = 7.9577 Hz;
        // λ·f = 25.0 cm/s, the medium's speed.
        let s = Scale::new(Medium::Water, 0.25).expect("a scale");
        assert!((s.step_seconds - 0.004).abs() < 1e-15, "{s:?}");
        assert_eq!(s.length(31.415_926), "3.14 cm");
        assert!((s.hertz(0.2) - 7.957_747_154_594_767).abs() < 1e-12);
        assert_eq!(s.frequency(0.2), "7.96 Hz");
        assert_eq!(s.speed(1.0), "0.250 m/s");
        assert_eq!(s.time(250.0), "1.00 s");
    }

    #[test]
    fn air_and_light_follow_their_speeds_and_c2() {
        // Air, 1 cm cells, 343 m/s, c2 = 0.25: Δt = 0.01/343 s = 29.15 µs; freq 0.2 →
        // 0.2/(2π·29.155e-6) = 1091.80 Hz; 80 cells = 0.800 m; 1000 steps = 29.2 ms.
        let a = Scale::new(Medium::Air, 0.25).expect("a scale");
        assert!((a.hertz(0.2) - 1_091.802_909_610_4).abs() < 1e-6, "{}", a.hertz(0.2));
        assert_eq!(a.frequency(0.2), "1092 Hz");
        assert_eq!(a.length(80.0), "0.800 m");
        assert_eq!(a.time(1000.0), "29.2 ms");
        // Light, 20 nm cells: λ 31.4159 cells = 628 nm, freq 0.2 → c/λ = 477 THz.
        let l = Scale::new(Medium::Light, 0.25).expect("a scale");
        assert_eq!(l.length(31.415_926), "628 nm");
        assert_eq!(l.frequency(0.2), "477 THz");
        // c2 = 0.0625 halves the speed in cells, so a step lasts half as long: Δt = 2·0.25·Δx/v.
        let slow = Scale::new(Medium::Water, 0.0625).expect("a scale");
        assert!((slow.step_seconds - 0.002).abs() < 1e-15, "{slow:?}");
        assert!(Scale::new(Medium::Cells, 0.25).is_none());
        assert!(Scale::new(Medium::Water, 0.0).is_none());
    }
}
