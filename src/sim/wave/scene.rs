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
//! boundary = "absorbing"   # a perfectly matched layer, 32 cells wide inside the grid ("matched"
//!                          # too); "mur" (Mur's first-order edge, no layer) or "reflecting" (the
//!                          # seed's: the border held at 0)
//! tmax = 1200          # optional: time steps `render` runs
//! [[source]]
//! kind = "line"        # "point" (x, y), "line" (x0, y0, x1, y1), "pulse" (x, y), "moving"
//!                      # (x0, y0, x1, y1, speed), "array" (x, y, count, spacing, phase_step)
//!                      # or "multipole" (x, y, poles, radius, angle): see `sources.rs`
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
use std::fmt;

use serde::{Deserialize, Serialize};

pub use super::presets::{DEFAULT_PRESET, PRESETS, Preset, preset};
pub use super::scene_file::{C2_LIMIT, DAMPING_LIMIT, SceneError};
use super::scene_file::{RawScene, c2_problem, check_rect, header_line, key_holding, keyed, toml_error_line};
use super::scene_items::default_c2;
pub use super::scene_items::{Boundary, Medium, Source, Wall, pulse_steps};
pub use super::sources::line_cells;
use super::sources::{MAX_CHANNELS, Moving};
use crate::sim::wave::{DEFAULT_FREQ, WaveParams};

/// The whole set-up of a wave run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// One line that the app and `wavebrot scenes` show.
    #[serde(default)]
    pub description: String,
    /// The axis each "N cells" of the description is measured along, in order, so that a new
    /// grid scales it as the geometry ([`super::description`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub description_axes: Vec<super::description::Axis>,
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

/// One forced cell: its flat index `x*ny + y` and its channel: the index of its value in
/// [`Scene::source_values`] (the sources' channels in order; a point, line or pulse source has one
/// channel for all its cells, the others one per cell).
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
            description_axes: Vec::new(),
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
            description_axes: raw.description_axes,
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
        if self.boundary != Boundary::Reflecting && (nx < 8 || ny < 8) {
            return bad(format!(
                "nx {nx}, ny {ny}: the grid is too small for boundary {}: each side needs at least 8 cells",
                self.boundary.name()
            ));
        }
        if let Some(m) = c2_problem(self.c2) {
            return bad(format!("c2 {m}"));
        }
        if !(self.damping.is_finite() && (0.0..=DAMPING_LIMIT).contains(&self.damping)) {
            return bad(format!("damping {} must be in [0, {DAMPING_LIMIT}]", self.damping));
        }
        let grid = format!("{nx}x{ny}");
        let inside = |x: i64, y: i64| (0..nx as i64).contains(&x) && (0..ny as i64).contains(&y);
        for (k, s) in self.sources.iter().enumerate() {
            let ends: Vec<(&str, i64, i64)> = match s {
                Source::Point { x, y, .. } | Source::Pulse { x, y, .. } => vec![("", *x, *y)],
                Source::Line { x0, y0, x1, y1, .. } | Source::Moving(Moving { x0, y0, x1, y1, .. }) => {
                    vec![("0", *x0, *y0), ("1", *x1, *y1)]
                }
                Source::Array(_) | Source::Multipole(_) => Vec::new(),
            };
            for (n, x, y) in ends {
                if !inside(x, y) {
                    return bad(format!("source {k}: (x{n}={x}, y{n}={y}) is outside the {grid} grid"));
                }
            }
            if let Some(m) = many_problem(s, &inside) {
                return bad(format!("source {k}: {m}"));
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
            if let Some(m) = c2_problem(m.c2()) {
                return bad(format!("{entry}: c2 {m}"));
            }
        }
        if self.channels() > MAX_CHANNELS {
            return bad(format!("{} forced cells: at most {MAX_CHANNELS} are supported", self.channels()));
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
        let mut first = 0;
        for s in &self.sources {
            for ((x, y), c) in s.cells().into_iter().zip(s.cell_channels()) {
                if let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y))
                    && x < self.nx
                    && y < self.ny
                {
                    owner.insert(x * self.ny + y, first + c);
                }
            }
            first += s.channels();
        }
        owner.into_iter().map(|(cell, source)| SourceCell { cell, source }).collect()
    }

    /// The value each channel (see [`SourceCell`]) forces at time step `t` (1-based), `None` where
    /// it does not force: [`Scene::channels`] values.
    #[must_use]
    pub fn source_values(&self, t: u32) -> Vec<Option<f32>> {
        self.sources.iter().flat_map(|s| s.values(t)).collect()
    }

    /// The number of values [`Scene::source_values`] gives per time step.
    #[must_use]
    pub fn channels(&self) -> usize {
        self.sources.iter().map(Source::channels).sum()
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
        s.description =
            super::description::rescaled(&self.description, &self.description_axes, (self.nx, self.ny), (nx, ny));
        s.nx = nx;
        s.ny = ny;
        for src in &mut s.sources {
            match src {
                Source::Point { x: px, y: py, .. } | Source::Pulse { x: px, y: py, .. } => {
                    (*px, *py) = (x(*px), y(*py));
                }
                Source::Line { x0, y0, x1, y1, .. } | Source::Moving(Moving { x0, y0, x1, y1, .. }) => {
                    (*x0, *y0, *x1, *y1) = (x(*x0), y(*y0), x(*x1), y(*y1));
                }
                Source::Array(a) => {
                    (a.x, a.y) = (x(a.x), y(a.y));
                    a.spacing = ((a.spacing as f64 * sy).round() as i64).max(1);
                }
                Source::Multipole(m) => {
                    (m.x, m.y) = (x(m.x), y(m.y));
                    m.radius = (m.radius * 0.5 * (sx + sy)).max(1.0);
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

/// What is wrong with a source of several cells, if anything (`None`: it can run): every cell inside the grid and no two on one cell,
/// a speed, count, spacing or number of poles that can run.
fn many_problem(s: &Source, inside: &dyn Fn(i64, i64) -> bool) -> Option<String> {
    match s {
        Source::Moving(m) => {
            if !(m.speed.is_finite() && m.speed > 0.0) {
                return Some(format!("speed {} must be a finite number > 0", m.speed));
            }
            if (m.x0, m.y0) == (m.x1, m.y1) {
                return Some(format!("the path from (x0={}, y0={}) to (x1, y1) needs two different ends", m.x0, m.y0));
            }
        }
        Source::Array(a) => {
            if !(1..=4096).contains(&a.count) {
                return Some(format!("count {} must be in 1..=4096", a.count));
            }
            if a.spacing < 1 {
                return Some(format!("spacing {} must be at least 1 cell", a.spacing));
            }
            if !a.phase_step.is_finite() {
                return Some(format!("phase_step {} must be finite", a.phase_step));
            }
        }
        Source::Multipole(m) => {
            if !(2..=64).contains(&m.poles) || m.poles % 2 != 0 {
                return Some(format!("poles {} must be even, from 2 to 64", m.poles));
            }
            let radius_ok = m.radius.is_finite() && m.radius >= 0.5;
            if !radius_ok || !m.angle.is_finite() {
                return Some(format!("radius {} must be at least 0.5 and angle {} finite", m.radius, m.angle));
            }
        }
        Source::Point { .. } | Source::Line { .. } | Source::Pulse { .. } => return None,
    }
    let cells = s.cells();
    if let Some(&(x, y)) = cells.iter().find(|&&(x, y)| !inside(x, y)) {
        return Some(format!("the cell (x={x}, y={y}) is outside the grid"));
    }
    let mut sorted = cells.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Some(format!("two of its cells fall on (x={}, y={}): spread them further", w[0].0, w[0].1));
    }
    None
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

#[cfg(test)]
#[path = "scene_tests.rs"]
mod tests;
