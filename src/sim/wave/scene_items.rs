//! What a scene holds: the edge (`Boundary`), sources, walls and media, each with its checks
//! and its cells.

use std::f64::consts::TAU;

use serde::{Deserialize, Serialize};

use super::sources::{Moving, Multipole, PhasedArray, line_cells};
use crate::sim::wave::DEFAULT_C2;

/// What happens at the grid's edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Boundary {
    /// The seed's: the border cells are held at 0 and waves reflect (with a sign flip).
    #[default]
    Reflecting,
    /// Waves leave the grid through a perfectly matched layer in the outer cells of each side
    /// ([`crate::sim::wave::pml`]: 32 cells wide, or a quarter of the shorter side); the
    /// border row itself still stays 0. `matched` in a scene file is the same edge (its name
    /// before it became the `absorbing` one).
    #[serde(alias = "matched")]
    Absorbing,
    /// Waves leave the grid through Mur's first-order absorbing condition on the cells next to
    /// the border (see [`crate::sim::wave::scene_cells`]; `absorbing` before the layer): cheaper,
    /// but 1.5% of a wave comes back head-on and 17% at 45°. The border row still stays 0.
    Mur,
}

impl Boundary {
    /// The name in scene files and on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Reflecting => "reflecting",
            Self::Absorbing => "absorbing",
            Self::Mur => "mur",
        }
    }
}

fn one() -> f64 {
    1.0
}

pub(super) fn default_c2() -> f64 {
    f64::from(DEFAULT_C2)
}

/// A forcing source. Point and line sources force `amplitude * sin(freq*t + phase)` every step;
/// a pulse forces one Hann-windowed cycle of that sine and then lets its cell go. Moving sources,
/// phased arrays and multipoles force each of their cells with its own value
/// ([`crate::sim::wave::sources`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Source {
    /// One cell driven by a continuous sine: circular waves.
    Point {
        x: i64,
        y: i64,
        freq: f64,
        #[serde(default = "one")]
        amplitude: f64,
        #[serde(default)]
        phase: f64,
    },
    /// The cells of the digital line from `(x0, y0)` to `(x1, y1)` (both ends included), in phase:
    /// a plane wave travelling away from the line on both sides.
    Line {
        x0: i64,
        y0: i64,
        x1: i64,
        y1: i64,
        freq: f64,
        #[serde(default = "one")]
        amplitude: f64,
        #[serde(default)]
        phase: f64,
    },
    /// One cell driven by one cycle of the sine under a Hann window (`sin²(freq*τ/2)`), for
    /// the pulse's own steps `τ = t - start + 1` in `1..=floor(2π/freq)`; before and after, the
    /// cell is free. One ring, the same whenever it starts: a pulse of `start = S` rings as one
    /// of `start = 1` shifted by `S - 1` steps (the app's "add pulse" starts it on the next step).
    Pulse {
        x: i64,
        y: i64,
        freq: f64,
        #[serde(default = "one")]
        amplitude: f64,
        #[serde(default)]
        phase: f64,
        /// The first time step it forces (1-based; files without it start at 1).
        #[serde(default = "first_step", skip_serializing_if = "is_first_step")]
        start: u32,
    },
    /// A point source moving along a line (Doppler; a Mach cone past the wave speed).
    Moving(Moving),
    /// A row of point sources with a phase step: a steered beam.
    Array(PhasedArray),
    /// Point sources on a circle, alternating in sign: a dipole, a quadrupole.
    Multipole(Multipole),
}

impl Source {
    /// A point source of amplitude 1, phase 0.
    #[must_use]
    pub fn point(x: i64, y: i64, freq: f64) -> Self {
        Self::Point { x, y, freq, amplitude: 1.0, phase: 0.0 }
    }

    /// `"point"`, `"line"` or `"pulse"`.
    #[must_use]
    pub fn kind_name(&self) -> &'static str {
        match self {
            Self::Point { .. } => "point",
            Self::Line { .. } => "line",
            Self::Pulse { .. } => "pulse",
            Self::Moving(_) => "moving",
            Self::Array(_) => "array",
            Self::Multipole(_) => "multipole",
        }
    }

    /// Angular frequency per time step.
    #[must_use]
    pub fn freq(&self) -> f64 {
        match self {
            Self::Point { freq, .. } | Self::Line { freq, .. } | Self::Pulse { freq, .. } => *freq,
            Self::Moving(m) => m.freq,
            Self::Array(a) => a.freq,
            Self::Multipole(m) => m.freq,
        }
    }

    /// Sets the angular frequency.
    pub fn set_freq(&mut self, new: f64) {
        *self.wave_mut().0 = new;
    }

    /// The sine's `(freq, amplitude, phase)`, to edit.
    pub fn wave_mut(&mut self) -> (&mut f64, &mut f64, &mut f64) {
        match self {
            Self::Point { freq, amplitude, phase, .. }
            | Self::Line { freq, amplitude, phase, .. }
            | Self::Pulse { freq, amplitude, phase, .. }
            | Self::Moving(Moving { freq, amplitude, phase, .. })
            | Self::Array(PhasedArray { freq, amplitude, phase, .. })
            | Self::Multipole(Multipole { freq, amplitude, phase, .. }) => (freq, amplitude, phase),
        }
    }

    pub(super) fn amplitude_phase(&self) -> (f64, f64) {
        let mut s = self.clone();
        let (_, a, p) = s.wave_mut();
        (*a, *p)
    }

    /// The position that moving the source drags: the cell of a point or pulse, the start of a line.
    #[must_use]
    pub fn anchor(&self) -> (i64, i64) {
        match *self {
            Self::Point { x, y, .. }
            | Self::Pulse { x, y, .. }
            | Self::Array(PhasedArray { x, y, .. })
            | Self::Multipole(Multipole { x, y, .. }) => (x, y),
            Self::Line { x0, y0, .. } | Self::Moving(Moving { x0, y0, .. }) => (x0, y0),
        }
    }

    /// The same source moved by `(dx, dy)` cells.
    #[must_use]
    pub fn moved_by(&self, dx: i64, dy: i64) -> Self {
        let mut s = self.clone();
        match &mut s {
            Self::Point { x, y, .. }
            | Self::Pulse { x, y, .. }
            | Self::Array(PhasedArray { x, y, .. })
            | Self::Multipole(Multipole { x, y, .. }) => {
                *x += dx;
                *y += dy;
            }
            Self::Line { x0, y0, x1, y1, .. } | Self::Moving(Moving { x0, y0, x1, y1, .. }) => {
                *x0 += dx;
                *y0 += dy;
                *x1 += dx;
                *y1 += dy;
            }
        }
        s
    }

    /// The cells it forces, as `(x, y)`, in order along a line (or a moving source's path).
    #[must_use]
    pub fn cells(&self) -> Vec<(i64, i64)> {
        match self {
            Self::Point { x, y, .. } | Self::Pulse { x, y, .. } => vec![(*x, *y)],
            Self::Line { x0, y0, x1, y1, .. } => line_cells(*x0, *y0, *x1, *y1),
            Self::Moving(m) => m.cells(),
            Self::Array(a) => a.cells(),
            Self::Multipole(m) => m.cells(),
        }
    }

    /// How many values it forces per time step: 1 for point, line and pulse sources (every cell
    /// the same), one per cell for the others (cell `k` of [`Source::cells`] is channel `k`).
    #[must_use]
    pub fn channels(&self) -> usize {
        match self {
            Self::Point { .. } | Self::Line { .. } | Self::Pulse { .. } => 1,
            Self::Moving(_) | Self::Array(_) | Self::Multipole(_) => self.cells().len(),
        }
    }

    /// The channel of each cell of [`Source::cells`].
    #[must_use]
    pub fn cell_channels(&self) -> Vec<usize> {
        let n = self.cells().len();
        if self.channels() == 1 { vec![0; n] } else { (0..n).collect() }
    }

    /// Each channel's value at time step `t` (1-based), `None` where it does not force.
    #[must_use]
    pub fn values(&self, t: u32) -> Vec<Option<f32>> {
        match self {
            Self::Point { .. } | Self::Line { .. } | Self::Pulse { .. } => vec![self.value(t)],
            Self::Moving(m) => m.values(t, self.channels()),
            Self::Array(a) => a.values(t),
            Self::Multipole(m) => m.values(t),
        }
    }

    /// A pulse of amplitude 1, phase 0, that first forces step `start`.
    #[must_use]
    pub fn pulse(x: i64, y: i64, freq: f64, start: u32) -> Self {
        Self::Pulse { x, y, freq, amplitude: 1.0, phase: 0.0, start }
    }

    /// The value it forces at time step `t` (1-based): computed in `f64`, rounded to `f32` once,
    /// so every backend writes the same bits. `None`: the source does not force this step. For
    /// the sources of several channels, the plain sine (see [`Source::values`]).
    #[must_use]
    pub fn value(&self, t: u32) -> Option<f32> {
        let (amplitude, phase) = self.amplitude_phase();
        match *self {
            Self::Point { .. } | Self::Line { .. } | Self::Moving(_) | Self::Array(_) | Self::Multipole(_) => {
                Some((amplitude * (self.freq() * f64::from(t) + phase).sin()) as f32)
            }
            Self::Pulse { start, freq, .. } => {
                // The pulse's own step τ = t - start + 1: the same values whenever it starts.
                let tau = (t + 1).checked_sub(start.max(1)).filter(|&tau| tau >= 1 && tau <= pulse_steps(freq))?;
                let x = freq * f64::from(tau);
                Some((amplitude * (x + phase).sin() * hann(x)) as f32)
            }
        }
    }

    /// The same source, ignoring when a pulse starts (a pulse the app added and the one the
    /// worker runs, whose start it may have moved to its own next step).
    #[must_use]
    pub fn same_but_start(&self, other: &Self) -> bool {
        let mut a = self.clone();
        if let (Self::Pulse { start: s, .. }, Self::Pulse { start, .. }) = (&mut a, other) {
            *s = *start;
        }
        a == *other
    }
}

fn first_step() -> u32 {
    1
}

fn is_first_step(t: &u32) -> bool {
    *t == 1
}

/// `sin²(x/2)`: the Hann window over one cycle `x` in `[0, 2π]`.
fn hann(x: f64) -> f64 {
    0.5 * (1.0 - x.cos())
}

/// Time steps a pulse of `freq` forces its cell: `floor(2π/freq)`.
#[must_use]
pub fn pulse_steps(freq: f64) -> u32 {
    let n = (TAU / freq).floor();
    if n.is_finite() && n >= 1.0 { n.min(f64::from(u32::MAX)) as u32 } else { 1 }
}

/// A rectangle of cells `x0..=x1`, `y0..=y1` held at 0: slits are the gaps between walls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wall {
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
}

impl Wall {
    /// The cells of `self` outside `cut`, as at most four rectangles.
    #[must_use]
    pub fn minus(&self, cut: &Wall) -> Vec<Wall> {
        let (ix0, iy0) = (self.x0.max(cut.x0), self.y0.max(cut.y0));
        let (ix1, iy1) = (self.x1.min(cut.x1), self.y1.min(cut.y1));
        if ix0 > ix1 || iy0 > iy1 {
            return vec![*self];
        }
        let mut out = Vec::with_capacity(4);
        if self.x0 < ix0 {
            out.push(Wall { x1: ix0 - 1, ..*self });
        }
        if ix1 < self.x1 {
            out.push(Wall { x0: ix1 + 1, ..*self });
        }
        if self.y0 < iy0 {
            out.push(Wall { x0: ix0, x1: ix1, y1: iy0 - 1, ..*self });
        }
        if iy1 < self.y1 {
            out.push(Wall { x0: ix0, x1: ix1, y0: iy1 + 1, ..*self });
        }
        out
    }

    /// True when cell `(x, y)` is part of the wall.
    #[must_use]
    pub fn contains(&self, x: i64, y: i64) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }
}

/// A region of another medium (its own `c2`): a slab refracts, a circle focuses like a lens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "lowercase", deny_unknown_fields)]
pub enum Medium {
    /// Cells `x0..=x1`, `y0..=y1`.
    Rect { x0: i64, y0: i64, x1: i64, y1: i64, c2: f64 },
    /// Cells with `(x-cx)² + (y-cy)² <= r²` (the part inside the grid).
    Circle { x: i64, y: i64, r: f64, c2: f64 },
}

impl Medium {
    /// The medium's `c2`.
    #[must_use]
    pub fn c2(&self) -> f64 {
        match *self {
            Self::Rect { c2, .. } | Self::Circle { c2, .. } => c2,
        }
    }

    /// True when cell `(x, y)` is inside the region.
    #[must_use]
    pub fn contains(&self, x: i64, y: i64) -> bool {
        match *self {
            Self::Rect { x0, y0, x1, y1, .. } => (x0..=x1).contains(&x) && (y0..=y1).contains(&y),
            Self::Circle { x: cx, y: cy, r, .. } => {
                let (dx, dy) = ((x - cx) as f64, (y - cy) as f64);
                dx * dx + dy * dy <= r * r
            }
        }
    }

    /// The cells `(x0, y0, x1, y1)` (inclusive) that bound the region, clipped to an `nx x ny` grid.
    #[must_use]
    pub fn bounds(&self, nx: usize, ny: usize) -> (usize, usize, usize, usize) {
        let (x0, y0, x1, y1) = match *self {
            Self::Rect { x0, y0, x1, y1, .. } => (x0, y0, x1, y1),
            Self::Circle { x, y, r, .. } => {
                let r = r.ceil() as i64;
                (x - r, y - r, x + r, y + r)
            }
        };
        let clip = |v: i64, n: usize| usize::try_from(v.max(0)).unwrap_or(0).min(n.saturating_sub(1));
        (clip(x0, nx), clip(y0, ny), clip(x1, nx), clip(y1, ny))
    }
}
