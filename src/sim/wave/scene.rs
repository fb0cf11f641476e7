//! A wave scene: the whole set-up of a wave run (grid, media, walls, sources, boundary),
//! backend-free and serialisable to a TOML file.
//!
//! Coordinates are cell indices of the seed's array `f[i][j]`: `x` is `i` (0..nx, to the right
//! in the picture), `y` is `j` (0..ny, upwards); the flat index of a cell is `x*ny + y`.
//!
//! A time step `t` (1-based) first writes every forcing source cell of `g` (the seed's
//! `g[src] = sin(freq*t)`), then runs `update(f, g)` and `update(g, f)` with the per-cell rule of
//! [`crate::sim::wave::scene_cells`]. With one point source of amplitude 1 and phase 0, no walls, no media, no
//! damping and a reflecting boundary the scene IS the seed's rule ([`Scene::plain_params`]), and
//! backends run their plain kernel on it.
//!
//! Scene files are TOML with exactly these keys (unknown keys are refused):
//! ```toml
//! description = "Two slits in a wall: fringes behind it."
//! nx = 640
//! ny = 480
//! c2 = 0.25            # the open medium's (a*dt/dx)^2, the seed's 0.25
//! damping = 0.0        # sigma per update in every non-wall cell
//! boundary = "absorbing"   # or "reflecting" (the seed's: the border held at 0)
//! tmax = 1200          # optional: time steps `render` runs
//! [[source]]
//! kind = "line"        # "point" (x, y), "line" (x0, y0, x1, y1) or "pulse" (x, y)
//! x0 = 60
//! y0 = 0
//! x1 = 60
//! y1 = 479
//! freq = 0.2           # radians per time step
//! amplitude = 1.0      # optional, 1.0
//! phase = 0.0          # optional, 0.0
//! [[wall]]             # cells x0..=x1, y0..=y1 held at 0
//! x0 = 160
//! y0 = 0
//! x1 = 163
//! y1 = 200
//! [[medium]]
//! shape = "circle"     # or "rect" with x0, y0, x1, y1
//! x = 400
//! y = 240
//! r = 60.0
//! c2 = 0.12
//! ```
//!
//! Size: over 800 lines, 45 of them tests: the scene file's types, their validation (one message
//! per kind of mistake, naming the entry) and the presets; the rasterised form is `scene_cells.rs`.

use std::collections::BTreeMap;
use std::f64::consts::TAU;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::sim::wave::{DEFAULT_C2, DEFAULT_FREQ, WaveParams};

/// The largest stable `c2` of the 2D five-point leapfrog scheme (Courant number `1/sqrt(2)`).
pub const C2_LIMIT: f64 = 0.5;

/// The largest `damping` accepted (sigma per update; `1 - sigma` must stay well above 0).
pub const DAMPING_LIMIT: f64 = 0.5;

/// What happens at the grid's edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Boundary {
    /// The seed's: the border cells are held at 0 and waves reflect (with a sign flip).
    #[default]
    Reflecting,
    /// Waves leave the grid: Mur's first-order absorbing condition on the cells next to the
    /// border (see [`crate::sim::wave::scene_cells`]); the border row itself still stays 0.
    Absorbing,
}

impl Boundary {
    /// The name in scene files and on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Reflecting => "reflecting",
            Self::Absorbing => "absorbing",
        }
    }
}

fn one() -> f64 {
    1.0
}

fn default_c2() -> f64 {
    f64::from(DEFAULT_C2)
}

/// A forcing source. Point and line sources force `amplitude * sin(freq*t + phase)` every step;
/// a pulse forces one Hann-windowed cycle of that sine and then lets its cell go.
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
    /// One cell driven by one cycle of the sine under a Hann window (`sin²(freq*t/2)`), for
    /// `t` in `1..=floor(2π/freq)`; after that the cell is free. One ring.
    Pulse {
        x: i64,
        y: i64,
        freq: f64,
        #[serde(default = "one")]
        amplitude: f64,
        #[serde(default)]
        phase: f64,
    },
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
        }
    }

    /// Angular frequency per time step.
    #[must_use]
    pub fn freq(&self) -> f64 {
        match *self {
            Self::Point { freq, .. } | Self::Line { freq, .. } | Self::Pulse { freq, .. } => freq,
        }
    }

    /// Sets the angular frequency.
    pub fn set_freq(&mut self, new: f64) {
        match self {
            Self::Point { freq, .. } | Self::Line { freq, .. } | Self::Pulse { freq, .. } => *freq = new,
        }
    }

    fn amplitude_phase(&self) -> (f64, f64) {
        match *self {
            Self::Point { amplitude, phase, .. }
            | Self::Line { amplitude, phase, .. }
            | Self::Pulse { amplitude, phase, .. } => (amplitude, phase),
        }
    }

    /// The position that moving the source drags: the cell of a point or pulse, the start of a line.
    #[must_use]
    pub fn anchor(&self) -> (i64, i64) {
        match *self {
            Self::Point { x, y, .. } | Self::Pulse { x, y, .. } => (x, y),
            Self::Line { x0, y0, .. } => (x0, y0),
        }
    }

    /// The same source moved by `(dx, dy)` cells.
    #[must_use]
    pub fn moved_by(&self, dx: i64, dy: i64) -> Self {
        let mut s = self.clone();
        match &mut s {
            Self::Point { x, y, .. } | Self::Pulse { x, y, .. } => {
                *x += dx;
                *y += dy;
            }
            Self::Line { x0, y0, x1, y1, .. } => {
                *x0 += dx;
                *y0 += dy;
                *x1 += dx;
                *y1 += dy;
            }
        }
        s
    }

    /// The cells it forces, as `(x, y)`, in order along a line.
    #[must_use]
    pub fn cells(&self) -> Vec<(i64, i64)> {
        match *self {
            Self::Point { x, y, .. } | Self::Pulse { x, y, .. } => vec![(x, y)],
            Self::Line { x0, y0, x1, y1, .. } => line_cells(x0, y0, x1, y1),
        }
    }

    /// The value it forces at time step `t` (1-based): computed in `f64`, rounded to `f32` once,
    /// so every backend writes the same bits. `None`: the source does not force this step.
    #[must_use]
    pub fn value(&self, t: u32) -> Option<f32> {
        let (amplitude, phase) = self.amplitude_phase();
        let x = self.freq() * f64::from(t);
        match self {
            Self::Point { .. } | Self::Line { .. } => Some((amplitude * (x + phase).sin()) as f32),
            Self::Pulse { .. } => {
                (t >= 1 && t <= pulse_steps(self.freq())).then(|| (amplitude * (x + phase).sin() * hann(x)) as f32)
            }
        }
    }
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

/// Why a scene cannot run: one line naming the entry and the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SceneError {
    /// A scene that parses but cannot run (`source 2: (x=500, y=3) is outside the 400x300 grid`).
    #[error("{0}")]
    Invalid(String),
    /// TOML that is not a scene (`source 1 (line 14): unknown field `freqq`, ...`).
    #[error("{0}")]
    Parse(String),
    /// A file that could not be read or written.
    #[error("{path}: {message}")]
    File { path: String, message: String },
    /// `--preset NAME` with no such preset.
    #[error("unknown preset `{name}`: the presets are {list}")]
    UnknownPreset { name: String, list: String },
}

/// The whole set-up of a wave run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// One line that the app and `wavebrot scenes` show.
    #[serde(default)]
    pub description: String,
    /// Cells along `x` (`i`, the slow index).
    pub nx: usize,
    /// Cells along `y` (`j`, the fast index).
    pub ny: usize,
    /// The open medium's `(a*dt/dx)^2`; rounded to `f32` for the kernels.
    #[serde(default = "default_c2")]
    pub c2: f64,
    /// Sigma per update in every non-wall cell (0 = none): see [`crate::sim::wave::scene_cells`].
    #[serde(default)]
    pub damping: f64,
    #[serde(default)]
    pub boundary: Boundary,
    /// Time steps `wavebrot render wave` runs when no `--tmax` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmax: Option<u32>,
    #[serde(default, rename = "source", skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
    #[serde(default, rename = "wall", skip_serializing_if = "Vec::is_empty")]
    pub walls: Vec<Wall>,
    #[serde(default, rename = "medium", skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<Medium>,
}

/// One forced cell: its flat index `x*ny + y` and the number of the source that forces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceCell {
    pub cell: usize,
    pub source: usize,
}

impl Scene {
    /// The seed's problem: one point source at `(nx/2, ny/2)`, `c2` 0.25, reflecting, no damping.
    #[must_use]
    pub fn seed(nx: usize, ny: usize, freq: f64) -> Self {
        Self::from_params(&WaveParams::new(nx, ny, freq))
    }

    /// The scene a plain [`WaveParams`] problem runs.
    #[must_use]
    pub fn from_params(p: &WaveParams) -> Self {
        Self {
            description: "The seed's problem: one point source in a reflecting box.".to_owned(),
            nx: p.nx,
            ny: p.ny,
            c2: f64::from(p.c2),
            damping: 0.0,
            boundary: Boundary::Reflecting,
            tmax: None,
            sources: vec![Source::point(p.source.0 as i64, p.source.1 as i64, p.freq)],
            walls: Vec::new(),
            media: Vec::new(),
        }
    }

    /// The seed's problem when the scene IS the seed's rule (one point source of amplitude 1 and
    /// phase 0, no walls, no media, no damping, reflecting): backends then run their plain kernel,
    /// and the results are today's bit for bit.
    #[must_use]
    pub fn plain_params(&self) -> Option<WaveParams> {
        if self.boundary != Boundary::Reflecting
            || self.damping != 0.0
            || !self.walls.is_empty()
            || !self.media.is_empty()
        {
            return None;
        }
        match self.sources.as_slice() {
            [Source::Point { x, y, freq, amplitude, phase }] if *amplitude == 1.0 && *phase == 0.0 => {
                let source = (usize::try_from(*x).ok()?, usize::try_from(*y).ok()?);
                Some(WaveParams { nx: self.nx, ny: self.ny, freq: *freq, c2: self.c2 as f32, source })
            }
            _ => None,
        }
    }

    /// A [`WaveParams`] that summarises the scene for code written for plain problems: the grid,
    /// the open medium's `c2`, the first source's frequency and cell (the centre without sources).
    #[must_use]
    pub fn summary_params(&self) -> WaveParams {
        if let Some(p) = self.plain_params() {
            return p;
        }
        let (freq, source) = self.sources.first().map_or((DEFAULT_FREQ, (self.nx / 2, self.ny / 2)), |s| {
            let (x, y) = s.anchor();
            let clip = |v: i64, n: usize| usize::try_from(v.max(0)).unwrap_or(0).min(n.saturating_sub(1));
            (s.freq(), (clip(x, self.nx), clip(y, self.ny)))
        });
        WaveParams { nx: self.nx, ny: self.ny, freq, c2: self.c2 as f32, source }
    }

    /// Number of cells in one field.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.nx * self.ny
    }

    /// Parses and validates a scene file's text.
    ///
    /// # Errors
    /// [`SceneError::Parse`] for TOML that is not a scene (the entry and line named),
    /// [`SceneError::Invalid`] for a scene that cannot run.
    pub fn from_toml(text: &str) -> Result<Self, SceneError> {
        // Entries are read one by one so an error names its entry (serde's tagged enums lose
        // toml's positions).
        let raw: RawScene = toml::from_str(text).map_err(|e| SceneError::Parse(toml_error_line(text, &e)))?;
        fn entries<T: serde::de::DeserializeOwned>(
            text: &str,
            name: &str,
            tables: Vec<toml::Table>,
        ) -> Result<Vec<T>, SceneError> {
            tables
                .into_iter()
                .enumerate()
                .map(|(k, t)| {
                    let keys = t.clone();
                    t.try_into().map_err(|e: toml::de::Error| {
                        let line = header_line(text, name, k).map_or_else(String::new, |l| format!(" (line {l})"));
                        let message = e.message().trim().replace('\n', " ");
                        let key = key_holding(&keys, &message);
                        SceneError::Parse(format!("{name} {k}{line}: {}", keyed(key.as_deref(), &message)))
                    })
                })
                .collect()
        }
        let scene = Self {
            description: raw.description,
            nx: raw.nx,
            ny: raw.ny,
            c2: raw.c2,
            damping: raw.damping,
            boundary: raw.boundary,
            tmax: raw.tmax,
            sources: entries(text, "source", raw.source)?,
            walls: entries(text, "wall", raw.wall)?,
            media: entries(text, "medium", raw.medium)?,
        };
        scene.validate()?;
        Ok(scene)
    }

    /// The scene as a TOML file.
    ///
    /// # Errors
    /// A value TOML cannot hold (a non-finite float).
    pub fn to_toml(&self) -> Result<String, SceneError> {
        toml::to_string(self).map_err(|e| SceneError::Invalid(format!("cannot write the scene as TOML: {e}")))
    }

    /// Reads and validates a scene file.
    ///
    /// # Errors
    /// [`SceneError::File`] naming the file and the entry with the problem.
    pub fn load(path: &Path) -> Result<Self, SceneError> {
        let file_error = |message: String| SceneError::File { path: path.display().to_string(), message };
        let text = std::fs::read_to_string(path).map_err(|e| file_error(e.to_string()))?;
        Self::from_toml(&text).map_err(|e| file_error(e.to_string()))
    }

    /// Checks that the scene can run; the message names the entry (`source 2`, `wall 0`,
    /// `medium 1`, numbered from 0 in file order) and the problem.
    ///
    /// # Errors
    /// [`SceneError::Invalid`] with that message.
    pub fn validate(&self) -> Result<(), SceneError> {
        let bad = |m: String| Err(SceneError::Invalid(m));
        let (nx, ny) = (self.nx, self.ny);
        if nx < 3 || ny < 3 {
            return bad(format!("nx {nx}, ny {ny}: the grid is too small: each side needs at least 3 cells"));
        }
        if nx.checked_mul(ny).and_then(|c| c.checked_mul(8)).is_none() || i64::try_from(nx.max(ny)).is_err() {
            return bad(format!("nx {nx}, ny {ny}: the grid is too large to address"));
        }
        if self.boundary == Boundary::Absorbing && (nx < 8 || ny < 8) {
            return bad(format!(
                "nx {nx}, ny {ny}: the grid is too small for boundary absorbing: each side needs at least 8 cells"
            ));
        }
        if let Err(m) = check_c2(self.c2) {
            return bad(format!("c2 {m}"));
        }
        if !(self.damping.is_finite() && (0.0..=DAMPING_LIMIT).contains(&self.damping)) {
            return bad(format!("damping {} must be in [0, {DAMPING_LIMIT}]", self.damping));
        }
        let grid = format!("{nx}x{ny}");
        let inside = |x: i64, y: i64| (0..nx as i64).contains(&x) && (0..ny as i64).contains(&y);
        for (k, s) in self.sources.iter().enumerate() {
            let ends: Vec<(&str, i64, i64)> = match *s {
                Source::Point { x, y, .. } | Source::Pulse { x, y, .. } => vec![("", x, y)],
                Source::Line { x0, y0, x1, y1, .. } => vec![("0", x0, y0), ("1", x1, y1)],
            };
            for (n, x, y) in ends {
                if !inside(x, y) {
                    return bad(format!("source {k}: (x{n}={x}, y{n}={y}) is outside the {grid} grid"));
                }
            }
            let f = s.freq();
            if !(f.is_finite() && f > 0.0) {
                return bad(format!("source {k}: freq {f} must be a finite number > 0"));
            }
            let (amplitude, phase) = s.amplitude_phase();
            if !amplitude.is_finite() || !phase.is_finite() {
                return bad(format!("source {k}: amplitude {amplitude} and phase {phase} must be finite"));
            }
        }
        for (k, w) in self.walls.iter().enumerate() {
            check_rect(&format!("wall {k}"), w.x0, w.y0, w.x1, w.y1, nx, ny)?;
        }
        for (k, m) in self.media.iter().enumerate() {
            let entry = format!("medium {k}");
            match *m {
                Medium::Rect { x0, y0, x1, y1, .. } => check_rect(&entry, x0, y0, x1, y1, nx, ny)?,
                Medium::Circle { x, y, r, .. } => {
                    if !inside(x, y) {
                        return bad(format!("{entry}: centre (x={x}, y={y}) is outside the {grid} grid"));
                    }
                    if !(r.is_finite() && r > 0.0) {
                        return bad(format!("{entry}: radius r {r} must be a finite number > 0"));
                    }
                }
            }
            if let Err(m) = check_c2(m.c2()) {
                return bad(format!("{entry}: c2 {m}"));
            }
        }
        if self.media.len() > 1000 {
            return bad(format!("{} media: at most 1000 are supported", self.media.len()));
        }
        for (k, s) in self.sources.iter().enumerate() {
            for (x, y) in s.cells() {
                if let Some(w) = self.walls.iter().position(|w| w.contains(x, y)) {
                    return bad(format!("source {k} lies on wall {w} at (x={x}, y={y})"));
                }
            }
        }
        Ok(())
    }

    /// Every forced cell once, in cell order: a cell covered by several sources belongs to the last
    /// of them (as walls, later entries are drawn over earlier ones). GPU backends upload this list
    /// once and [`Scene::source_values`] each step.
    #[must_use]
    pub fn source_cells(&self) -> Vec<SourceCell> {
        let mut owner = BTreeMap::new();
        for (k, s) in self.sources.iter().enumerate() {
            for (x, y) in s.cells() {
                if let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y))
                    && x < self.nx
                    && y < self.ny
                {
                    owner.insert(x * self.ny + y, k);
                }
            }
        }
        owner.into_iter().map(|(cell, source)| SourceCell { cell, source }).collect()
    }

    /// The value each source forces at time step `t` (1-based), `None` where it does not force.
    #[must_use]
    pub fn source_values(&self, t: u32) -> Vec<Option<f32>> {
        self.sources.iter().map(|s| s.value(t)).collect()
    }

    /// The same scene with its first source moved, by its anchor, to cell `(i, j)` (what a click
    /// on the field does in the app, on every backend).
    ///
    /// # Errors
    /// A scene without sources, or a source that would leave the grid or land on a wall.
    pub fn with_first_source_at(&self, i: usize, j: usize) -> Result<Self, SceneError> {
        let first =
            self.sources.first().ok_or_else(|| SceneError::Invalid("the scene has no source to move".into()))?;
        let (x, y) = first.anchor();
        let (i, j) = (i64::try_from(i).unwrap_or(i64::MAX), i64::try_from(j).unwrap_or(i64::MAX));
        let mut scene = self.clone();
        scene.sources[0] = first.moved_by(i.saturating_sub(x), j.saturating_sub(y));
        scene.validate()?;
        Ok(scene)
    }

    /// Adds a wall over cells `x0..=x1`, `y0..=y1` clipped to the grid, leaving out the cells of
    /// the sources (a brush stroke paints around them). Returns false when nothing was left.
    pub fn paint_wall(&mut self, x0: i64, y0: i64, x1: i64, y1: i64) -> bool {
        let (nx, ny) = (self.nx as i64, self.ny as i64);
        let rect = Wall { x0: x0.max(0), y0: y0.max(0), x1: x1.min(nx - 1), y1: y1.min(ny - 1) };
        if rect.x0 > rect.x1 || rect.y0 > rect.y1 {
            return false;
        }
        // Cut the source cells out of the rectangle.
        let mut pieces = vec![rect];
        for (x, y) in self.sources.iter().flat_map(Source::cells) {
            pieces = pieces.iter().flat_map(|w| w.minus(&Wall { x0: x, y0: y, x1: x, y1: y })).collect();
        }
        let added = !pieces.is_empty();
        self.walls.extend(pieces);
        added
    }

    /// Removes the walls' cells inside `x0..=x1`, `y0..=y1` (walls are cut into the rectangles
    /// that are left). Returns true when a wall changed.
    pub fn erase_walls(&mut self, x0: i64, y0: i64, x1: i64, y1: i64) -> bool {
        let cut = Wall { x0, y0, x1, y1 };
        let before = self.walls.len();
        let mut changed = false;
        self.walls = std::mem::take(&mut self.walls)
            .into_iter()
            .flat_map(|w| {
                let rest = w.minus(&cut);
                changed |= rest.len() != 1 || rest[0] != w;
                rest
            })
            .collect();
        changed || self.walls.len() != before
    }

    /// The number of the source with a cell nearest to `(x, y)` within `radius` cells.
    #[must_use]
    pub fn source_near(&self, x: f64, y: f64, radius: f64) -> Option<usize> {
        let mut best = None;
        for (k, s) in self.sources.iter().enumerate() {
            for (cx, cy) in s.cells() {
                let d = (cx as f64 - x).hypot(cy as f64 - y);
                if d <= radius && best.is_none_or(|(_, bd)| d < bd) {
                    best = Some((k, d));
                }
            }
        }
        best.map(|(k, _)| k)
    }

    /// The largest `c2` anywhere in the scene (the open medium's or a medium's): what the
    /// Courant number `sqrt(c2)` of the scheme is.
    #[must_use]
    pub fn max_c2(&self) -> f64 {
        self.media.iter().map(Medium::c2).fold(self.c2, f64::max)
    }

    /// The same scene with every source at `freq`.
    #[must_use]
    pub fn with_freq(&self, freq: f64) -> Self {
        let mut s = self.clone();
        for src in &mut s.sources {
            src.set_freq(freq);
        }
        s
    }

    /// The same scene on an `nx x ny` grid: every coordinate scaled so the borders stay borders
    /// (`x' = round(x*(nx'-1)/(nx-1))`), radii by the mean of the two scales. Wavelengths stay in
    /// cells, so the physics changes with the scale; the geometry keeps its look.
    #[must_use]
    pub fn resized(&self, nx: usize, ny: usize) -> Self {
        if nx == self.nx && ny == self.ny {
            return self.clone();
        }
        let scale = |new: usize, old: usize| (new.max(2) - 1) as f64 / (old.max(2) - 1) as f64;
        let (sx, sy) = (scale(nx, self.nx), scale(ny, self.ny));
        let x = |v: i64| (v as f64 * sx).round() as i64;
        let y = |v: i64| (v as f64 * sy).round() as i64;
        let mut s = self.clone();
        s.nx = nx;
        s.ny = ny;
        for src in &mut s.sources {
            match src {
                Source::Point { x: px, y: py, .. } | Source::Pulse { x: px, y: py, .. } => {
                    (*px, *py) = (x(*px), y(*py));
                }
                Source::Line { x0, y0, x1, y1, .. } => {
                    (*x0, *y0, *x1, *y1) = (x(*x0), y(*y0), x(*x1), y(*y1));
                }
            }
        }
        for w in &mut s.walls {
            *w = Wall { x0: x(w.x0), y0: y(w.y0), x1: x(w.x1), y1: y(w.y1) };
        }
        for m in &mut s.media {
            match m {
                Medium::Rect { x0, y0, x1, y1, .. } => {
                    (*x0, *y0, *x1, *y1) = (x(*x0), y(*y0), x(*x1), y(*y1));
                }
                Medium::Circle { x: cx, y: cy, r, .. } => {
                    (*cx, *cy, *r) = (x(*cx), y(*cy), *r * 0.5 * (sx + sy));
                }
            }
        }
        s
    }
}

impl fmt::Display for Scene {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(
            f,
            "{}x{} {}, c2 {}, {}, {}, {}",
            self.nx,
            self.ny,
            self.boundary.name(),
            self.c2,
            count(self.sources.len(), "source", "sources"),
            count(self.walls.len(), "wall", "walls"),
            count(self.media.len(), "medium", "media")
        )
    }
}

fn check_c2(c2: f64) -> Result<(), String> {
    if !c2.is_finite() || c2 <= 0.0 {
        Err(format!("{c2} must be a finite number > 0"))
    } else if c2 > C2_LIMIT {
        Err(format!("{c2} is above the 2D stability limit {C2_LIMIT}"))
    } else {
        Ok(())
    }
}

fn check_rect(entry: &str, x0: i64, y0: i64, x1: i64, y1: i64, nx: usize, ny: usize) -> Result<(), SceneError> {
    for (n, x, y) in [("0", x0, y0), ("1", x1, y1)] {
        if !((0..nx as i64).contains(&x) && (0..ny as i64).contains(&y)) {
            return Err(SceneError::Invalid(format!("{entry}: (x{n}={x}, y{n}={y}) is outside the {nx}x{ny} grid")));
        }
    }
    if x0 > x1 || y0 > y1 {
        return Err(SceneError::Invalid(format!(
            "{entry}: corners (x0={x0}, y0={y0}), (x1={x1}, y1={y1}) need x0 <= x1 and y0 <= y1"
        )));
    }
    Ok(())
}

/// A scene file as read, before its entries are.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScene {
    #[serde(default)]
    description: String,
    nx: usize,
    ny: usize,
    #[serde(default = "default_c2")]
    c2: f64,
    #[serde(default)]
    damping: f64,
    #[serde(default)]
    boundary: Boundary,
    #[serde(default)]
    tmax: Option<u32>,
    #[serde(default)]
    source: Vec<toml::Table>,
    #[serde(default)]
    wall: Vec<toml::Table>,
    #[serde(default)]
    medium: Vec<toml::Table>,
}

/// The line (from 1) of the `k`-th `[[name]]` header in `text`.
fn header_line(text: &str, name: &str, k: usize) -> Option<usize> {
    text.lines().enumerate().filter(|(_, l)| is_header(l, name)).nth(k).map(|(n, _)| n + 1)
}

/// True for the line `[[name]]` (spaces allowed, a comment after it).
fn is_header(line: &str, name: &str) -> bool {
    line.trim().strip_prefix("[[").and_then(|r| r.split("]]").next()).is_some_and(|n| n.trim() == name)
}

/// The value a serde message is about: `X` of "unknown variant `X`" or of
/// "invalid type: string "X"" / "invalid value: integer `X`".
fn value_in(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown variant `").or_else(|| {
        let after = message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: "))?;
        let (_, v) = after.split_once(['`', '"'])?;
        Some(v)
    })?;
    rest.split(['`', '"']).next()
}

/// The key of `table` whose value the message is about (for entries, where toml gives no span).
fn key_holding(table: &toml::Table, message: &str) -> Option<String> {
    let v = value_in(message)?;
    table
        .iter()
        .find(|(_, val)| match val {
            toml::Value::String(s) => s == v,
            other => other.to_string() == v,
        })
        .map(|(k, _)| k.clone())
}

/// serde's message with the key in front, and an unknown variant said as a value with its choices:
/// `boundary: unknown value "sticky" (reflecting or absorbing)`. Messages that already name their
/// key (unknown or missing fields) stay as they are.
fn keyed(key: Option<&str>, message: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown variant `")
        && let Some((value, expected)) = rest.split_once("`, expected ")
    {
        let choices: Vec<&str> = expected
            .trim_start_matches("one of ")
            .split([',', ' '])
            .filter(|w| !w.is_empty() && *w != "or")
            .map(|w| w.trim_matches('`'))
            .collect();
        let choices = match choices.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        let said = format!("unknown value \"{value}\" ({choices})");
        return key.map_or(said.clone(), |k| format!("{k}: {said}"));
    }
    match key {
        Some(k) if !message.starts_with("unknown field") && !message.starts_with("missing field") => {
            format!("{k}: {message}")
        }
        _ => message.to_owned(),
    }
}

/// The key of the `key = value` line holding byte `at` of `text`, where the error is in a value.
fn key_at(text: &str, at: usize) -> Option<String> {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[start..];
    let line = line.split('\n').next().unwrap_or_default();
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    (bare && at >= start + line.find('=').unwrap_or(0)).then(|| key.to_owned())
}

/// A TOML error as one line: the entry (`source 1`, found from the `[[source]]` header above the
/// error), the line, the key (where the error is in a value) and toml's message.
fn toml_error_line(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim().replace('\n', " ");
    let Some(span) = e.span() else { return message };
    let at = span.start.min(text.len());
    let message = keyed(key_at(text, at).as_deref(), &message);
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    // The table the error is in: the last header line before it.
    let header = before.lines().rev().map(str::trim).find(|l| l.starts_with('['));
    let entry = header.and_then(|h| {
        let name = h.strip_prefix("[[")?.split("]]").next()?.trim();
        let count = before.lines().filter(|l| is_header(l, name)).count();
        Some(format!("{name} {}", count.saturating_sub(1)))
    });
    match entry {
        Some(entry) => format!("{entry} (line {line}): {message}"),
        None => format!("line {line}: {message}"),
    }
}

/// A scene shipped with the program (`assets/scenes/NAME.toml`).
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// The name `--preset` takes.
    pub name: &'static str,
    /// The file's text.
    pub toml: &'static str,
}

macro_rules! preset {
    ($name:literal) => {
        Preset { name: $name, toml: include_str!(concat!("../../../assets/scenes/", $name, ".toml")) }
    };
}

/// Every preset, in the order the menu and `wavebrot scenes` list them.
pub const PRESETS: &[Preset] = &[
    preset!("point"),
    preset!("seed"),
    preset!("two-sources"),
    preset!("single-slit"),
    preset!("double-slit"),
    preset!("grating"),
    preset!("reflection"),
    preset!("refraction"),
    preset!("lens"),
    preset!("plane-wave"),
];

/// The app's default scene.
pub const DEFAULT_PRESET: &str = "point";

impl Preset {
    /// The preset's scene.
    ///
    /// # Errors
    /// A preset file that does not parse (a bug: a test loads every preset).
    pub fn scene(&self) -> Result<Scene, SceneError> {
        Scene::from_toml(self.toml)
            .map_err(|e| SceneError::File { path: format!("preset {}", self.name), message: e.to_string() })
    }
}

/// The preset called `name`.
///
/// # Errors
/// [`SceneError::UnknownPreset`] listing the names.
pub fn preset(name: &str) -> Result<Scene, SceneError> {
    PRESETS.iter().find(|p| p.name == name).map_or_else(
        || {
            Err(SceneError::UnknownPreset {
                name: name.to_owned(),
                list: PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
            })
        },
        Preset::scene,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_cells_include_both_ends() {
        assert_eq!(line_cells(2, 3, 2, 3), vec![(2, 3)]);
        assert_eq!(line_cells(0, 0, 3, 0), vec![(0, 0), (1, 0), (2, 0), (3, 0)]);
        assert_eq!(line_cells(0, 0, 2, 2), vec![(0, 0), (1, 1), (2, 2)]);
        let l = line_cells(5, 1, 0, 3);
        assert_eq!((l[0], l[l.len() - 1], l.len()), ((5, 1), (0, 3), 6));
    }

    #[test]
    fn the_seed_scene_is_plain() {
        let s = Scene::seed(100, 80, 0.1);
        assert_eq!(s.plain_params(), Some(WaveParams::new(100, 80, 0.1)));
        let mut damped = s.clone();
        damped.damping = 0.001;
        assert_eq!(damped.plain_params(), None);
        // Point sources of amplitude 1, phase 0 force exactly the seed's value.
        for t in [1, 7, 500] {
            assert_eq!(s.source_values(t), vec![Some(crate::sim::wave::source_value(0.1, t))]);
        }
    }

    #[test]
    fn pulses_end() {
        let s = Source::Pulse { x: 1, y: 1, freq: 0.5, amplitude: 2.0, phase: 0.0 };
        assert_eq!(pulse_steps(0.5), 12);
        assert!(s.value(1).is_some_and(|v| v != 0.0));
        assert!(s.value(12).is_some());
        assert_eq!(s.value(13), None);
    }

    #[test]
    fn toml_round_trip_and_errors() {
        let text = "nx = 40\nny = 30\nboundary = \"absorbing\"\n\n[[source]]\nkind = \"point\"\nx = 3\ny = 4\nfreq = 0.2\n\n[[source]]\nkind = \"line\"\nx0 = 5\ny0 = 1\nx1 = 5\ny1 = 20\nfreqq = 0.2\n";
        let e = Scene::from_toml(text).unwrap_err().to_string();
        assert!(e.starts_with("source 1 (line 11): unknown field `freqq`"), "{e}");
        assert!(e.contains("freqq"), "{e}");
        let ok = Scene::from_toml(&text.replace("freqq", "freq")).unwrap();
        assert_eq!(Scene::from_toml(&ok.to_toml().unwrap()).unwrap(), ok);
    }

    #[test]
    fn painting_and_erasing_walls_cuts_rectangles_and_spares_sources() {
        let mut s = Scene::seed(40, 30, 0.1);
        let (sx, sy) = (20, 15);
        assert!(s.paint_wall(18, 13, 22, 17), "a stroke over the source paints around it");
        let covered = |s: &Scene, x, y| s.walls.iter().any(|w| w.contains(x, y));
        assert!(!covered(&s, sx, sy) && covered(&s, 18, 13) && covered(&s, 22, 17));
        let cells =
            |s: &Scene| (0..40).flat_map(|x| (0..30).map(move |y| (x, y))).filter(|&(x, y)| covered(s, x, y)).count();
        assert_eq!(cells(&s), 24, "a 5x5 square less the source cell");
        s.validate().expect("the source stays free");
        assert!(s.erase_walls(20, 0, 20, 29), "a column erased");
        assert_eq!(cells(&s), 20);
        assert!(!covered(&s, 20, 13) && covered(&s, 19, 13));
        assert!(!s.erase_walls(0, 0, 5, 5), "nothing there");
        assert!(!s.paint_wall(-9, -9, -1, -1), "outside the grid");
        assert_eq!(s.source_near(21.0, 16.0, 2.0), Some(0));
        assert_eq!(s.source_near(30.0, 16.0, 2.0), None);
    }
}
