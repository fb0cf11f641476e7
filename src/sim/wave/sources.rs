//! Sources made of several forced cells that each force their own value: a source moving along a
//! line (Doppler, and past the wave speed a Mach cone), a phased array (a beam steered by a phase
//! step) and a multipole (a dipole's null). They run on every backend through the same forced-cell
//! machinery as the simple sources: each forced cell is a *channel* with its own value per time
//! step, `None` (NaN on the GPU) where it does not force.
//!
//! - A moving source forces one cell of its path at a time: at time step `t` (1-based) it is
//!   `speed * (t - 1)` cells along the line from `(x0, y0)` to `(x1, y1)`, at the path cell
//!   nearest that point, forcing `amplitude * sin(freq*t + phase)`; once past `(x1, y1)` it forces
//!   nothing. A cell it has left evolves freely. Speeds are in cells per time step; the wave
//!   speed is `2*sqrt(c2)` cells per step (1 at the seed's `c2 = 0.25`).
//! - A phased array is `count` point sources along `y`, `spacing` cells apart, centred on
//!   `(x, y)`; element `n` (from the lowest `y`) forces `amplitude * sin(freq*t + phase - n*phase_step)`,
//!   so a positive step tilts the beam towards `+y`: `sin θ = phase_step * λ / (2π * spacing)`,
//!   `θ` measured from `+x` (and the mirror beam towards `-x`).
//! - A multipole is `poles` (even) point sources on a circle of `radius` about `(x, y)`, the first
//!   at `angle` degrees from `+x`, alternating in sign: 2 poles are a dipole (a null across its
//!   axis), 4 a quadrupole.

use std::f64::consts::TAU;

use serde::{Deserialize, Serialize};

fn one() -> f64 {
    1.0
}

/// The most forced cells (channels) of one scene: the CUDA tile list packs a channel in 16 bits.
pub const MAX_CHANNELS: usize = 65_535;

/// A point source moving at `speed` cells per time step from `(x0, y0)` to `(x1, y1)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moving {
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
    /// Cells per time step.
    pub speed: f64,
    pub freq: f64,
    #[serde(default = "one")]
    pub amplitude: f64,
    #[serde(default)]
    pub phase: f64,
}

impl Moving {
    /// The cells of its path, in order (the digital line, one step a cell along the longer axis).
    #[must_use]
    pub fn cells(&self) -> Vec<(i64, i64)> {
        line_cells(self.x0, self.y0, self.x1, self.y1)
    }

    /// The number of the path cell it is at in time step `t` (1-based), `None` once past the end.
    #[must_use]
    pub fn cell_at(&self, t: u32) -> Option<usize> {
        let travelled = self.speed * f64::from(t.saturating_sub(1));
        let length = ((self.x1 - self.x0) as f64).hypot((self.y1 - self.y0) as f64);
        let major = (self.x1 - self.x0).abs().max((self.y1 - self.y0).abs()) as f64;
        if length == 0.0 {
            return (t == 1 || self.speed == 0.0).then_some(0);
        }
        (travelled <= length).then(|| (travelled / length * major).round() as usize)
    }

    /// Its position (cells, along the path) at time step `t`, `None` once past the end.
    #[must_use]
    pub fn position(&self, t: u32) -> Option<(f64, f64)> {
        let travelled = self.speed * f64::from(t.saturating_sub(1));
        let (dx, dy) = ((self.x1 - self.x0) as f64, (self.y1 - self.y0) as f64);
        let length = dx.hypot(dy);
        if travelled > length {
            return None;
        }
        let u = if length == 0.0 { 0.0 } else { travelled / length };
        Some((self.x0 as f64 + u * dx, self.y0 as f64 + u * dy))
    }
}

/// `count` point sources along `y`, `spacing` cells apart, with a phase step between neighbours.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhasedArray {
    /// The centre.
    pub x: i64,
    pub y: i64,
    pub count: u32,
    pub spacing: i64,
    /// Radians of lag from one element to the next along `+y`.
    pub phase_step: f64,
    pub freq: f64,
    #[serde(default = "one")]
    pub amplitude: f64,
    #[serde(default)]
    pub phase: f64,
}

impl PhasedArray {
    /// The elements' cells, from the lowest `y`.
    #[must_use]
    pub fn cells(&self) -> Vec<(i64, i64)> {
        let n = i64::from(self.count);
        // Saturating: a huge spacing in a file lands outside the grid (refused there).
        let y0 = self.y.saturating_sub((n - 1).saturating_mul(self.spacing) / 2);
        (0..n).map(|k| (self.x, y0.saturating_add(k.saturating_mul(self.spacing)))).collect()
    }

    /// The beam direction the phase step steers to: `asin(phase_step * λ / (2π spacing))` in
    /// radians from `+x` towards `+y`, for the wavelength `lambda` (cells); `None` past endfire.
    #[must_use]
    pub fn steering(&self, lambda: f64) -> Option<f64> {
        let s = self.phase_step * lambda / (TAU * self.spacing as f64);
        (s.abs() <= 1.0).then(|| s.asin())
    }
}

/// `poles` point sources on a circle, alternating in sign (2: a dipole, 4: a quadrupole).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Multipole {
    pub x: i64,
    pub y: i64,
    pub poles: u32,
    /// Cells from the centre to each pole.
    pub radius: f64,
    /// Degrees from `+x` to the first pole.
    #[serde(default)]
    pub angle: f64,
    pub freq: f64,
    #[serde(default = "one")]
    pub amplitude: f64,
    #[serde(default)]
    pub phase: f64,
}

impl Multipole {
    /// The poles' cells, the first at `angle`, then counter-clockwise.
    #[must_use]
    pub fn cells(&self) -> Vec<(i64, i64)> {
        (0..self.poles)
            .map(|k| {
                let a = self.angle.to_radians() + TAU * f64::from(k) / f64::from(self.poles);
                // Saturating: a huge radius in a file lands far outside the grid (and is
                // refused there), never an overflow.
                let at = |centre: i64, v: f64| centre.saturating_add((self.radius * v).round() as i64);
                (at(self.x, a.cos()), at(self.y, a.sin()))
            })
            .collect()
    }
}

/// `amplitude * sin(freq*t + phase)`, computed in `f64` and rounded to `f32` once.
#[must_use]
pub fn sine(amplitude: f64, freq: f64, phase: f64, t: u32) -> f32 {
    (amplitude * (freq * f64::from(t) + phase).sin()) as f32
}

impl Moving {
    /// Each path cell's value at time step `t`: the sine at the cell it is at, `None` elsewhere.
    #[must_use]
    pub fn values(&self, t: u32, channels: usize) -> Vec<Option<f32>> {
        let mut out = vec![None; channels];
        if let Some(slot) = self.cell_at(t).and_then(|k| out.get_mut(k)) {
            *slot = Some(sine(self.amplitude, self.freq, self.phase, t));
        }
        out
    }
}

impl PhasedArray {
    /// Each element's value at time step `t`.
    #[must_use]
    pub fn values(&self, t: u32) -> Vec<Option<f32>> {
        (0..self.count)
            .map(|n| Some(sine(self.amplitude, self.freq, self.phase - f64::from(n) * self.phase_step, t)))
            .collect()
    }
}

impl Multipole {
    /// Each pole's value at time step `t`: the sine, negated on odd poles.
    #[must_use]
    pub fn values(&self, t: u32) -> Vec<Option<f32>> {
        (0..self.poles)
            .map(|k| {
                let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                Some(sine(sign * self.amplitude, self.freq, self.phase, t))
            })
            .collect()
    }
}

/// The cells of the digital (Bresenham) line from `(x0, y0)` to `(x1, y1)`, both ends included,
/// each step moving to an 8-neighbour.
#[must_use]
pub fn line_cells(x0: i64, y0: i64, x1: i64, y1: i64) -> Vec<(i64, i64)> {
    let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
    let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
    let (mut x, mut y, mut err) = (x0, y0, dx + dy);
    let mut out = Vec::with_capacity(usize::try_from(dx.max(-dy)).unwrap_or(0) + 1);
    loop {
        out.push((x, y));
        if x == x1 && y == y1 {
            return out;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_arrays_and_multipoles_land_outside_the_grid_without_overflow() {
        // A mutated scene file's numbers (found by tests/cli/bad_input.rs' property test: a
        // multipole of radius 1e300 overflowed an i64 sum and panicked).
        let m = Multipole { x: 5, y: 5, poles: 2, radius: 1e300, angle: 0.0, freq: 0.1, amplitude: 1.0, phase: 0.0 };
        assert_eq!(m.cells()[0], (i64::MAX, 5));
        let a = PhasedArray {
            x: 5,
            y: 5,
            count: 3,
            spacing: i64::MAX,
            phase_step: 0.0,
            freq: 0.1,
            amplitude: 1.0,
            phase: 0.0,
        };
        let far = a.cells().iter().filter(|&&(_, y)| y.abs() > 1 << 60).count();
        assert_eq!(far, 3, "every element far outside any grid: {:?}", a.cells());
    }

    #[test]
    fn a_moving_source_walks_its_path_and_stops() {
        let m = Moving { x0: 10, y0: 5, x1: 20, y1: 5, speed: 0.5, freq: 0.2, amplitude: 1.0, phase: 0.0 };
        assert_eq!(m.cells().len(), 11);
        assert_eq!((m.cell_at(1), m.cell_at(2), m.cell_at(3), m.cell_at(4)), (Some(0), Some(1), Some(1), Some(2)));
        assert_eq!((m.cell_at(21), m.cell_at(22)), (Some(10), None));
        let v = m.values(5, 11);
        assert_eq!(v.iter().filter(|v| v.is_some()).count(), 1);
        assert_eq!(v[2], Some(sine(1.0, 0.2, 0.0, 5)));
        assert_eq!(m.position(3), Some((11.0, 5.0)));
    }

    #[test]
    fn arrays_and_multipoles_place_their_cells() {
        let a =
            PhasedArray { x: 50, y: 40, count: 4, spacing: 6, phase_step: 0.5, freq: 0.2, amplitude: 1.0, phase: 0.0 };
        assert_eq!(a.cells(), vec![(50, 31), (50, 37), (50, 43), (50, 49)]);
        assert_eq!(a.values(3)[2], Some(sine(1.0, 0.2, -1.0, 3)));
        let lambda = 12.0;
        let theta = a.steering(lambda).unwrap();
        assert!((theta.sin() - 0.5 * lambda / (TAU * 6.0)).abs() < 1e-12);
        let d = Multipole { x: 20, y: 20, poles: 2, radius: 3.0, angle: 0.0, freq: 0.2, amplitude: 1.0, phase: 0.0 };
        assert_eq!(d.cells(), vec![(23, 20), (17, 20)]);
        let v = d.values(4);
        assert_eq!(v[0].map(|x| -x), v[1]);
    }
}
