//! A scene's barrier as slits: read the walls of a vertical barrier (walls sharing one band of
//! columns, the gaps between them evenly spaced slits of one width) and build them again with
//! another width, spacing or count, centred where they were. The lab's live geometry sliders
//! edit a slit or grating scene through this.

use crate::sim::wave::scene::{Scene, Wall};
use crate::sim::wave::theory::barrier;

/// Slits in a vertical barrier spanning columns `x0..=x1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slits {
    pub x0: i64,
    pub x1: i64,
    /// The midpoint of the slits' centres, in cells (index coordinates).
    pub centre: f64,
    /// Each slit's width, in cells.
    pub width: i64,
    /// Centre to centre, in cells (unused for one slit).
    pub spacing: i64,
    pub count: usize,
}

/// Why slits cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlitsError {
    #[error("slits {width} cells wide do not fit {spacing} cells apart (the width must be below the spacing)")]
    Overlap { width: i64, spacing: i64 },
    #[error("{count} slits {spacing} cells apart do not fit in the grid's {ny} rows")]
    TooWide { count: usize, spacing: i64, ny: usize },
    #[error("a slit needs a width of at least 1 cell and a count of at least 1")]
    Empty,
}

impl Slits {
    /// The slits of `scene`'s vertical barrier: evenly spaced (within a cell) gaps of one width.
    #[must_use]
    pub fn of(scene: &Scene) -> Option<Self> {
        let ((x0, x1), gaps) = barrier(&scene.walls, |w| (w.x0, w.x1), |w| (w.y0, w.y1))?;
        let width = gaps[0].1 - gaps[0].0 + 1;
        if gaps.iter().any(|g| g.1 - g.0 + 1 != width) {
            return None;
        }
        let centres: Vec<f64> = gaps.iter().map(|&(a, b)| (a + b) as f64 / 2.0).collect();
        let centre = centres.iter().sum::<f64>() / centres.len() as f64;
        let spacing = if gaps.len() > 1 { (gaps[1].0 - gaps[0].0).max(1) } else { 2 * width };
        if gaps.windows(2).any(|w| w[1].0 - w[0].0 != spacing) {
            return None;
        }
        Some(Self { x0, x1, centre, width, spacing, count: gaps.len() })
    }

    /// The barrier's walls on a grid of `ny` rows: the slits centred on [`Slits::centre`].
    ///
    /// # Errors
    /// Slits that overlap or do not fit between the border rows.
    pub fn walls(&self, ny: usize) -> Result<Vec<Wall>, SlitsError> {
        if self.width < 1 || self.count == 0 {
            return Err(SlitsError::Empty);
        }
        if self.count > 1 && self.width >= self.spacing {
            return Err(SlitsError::Overlap { width: self.width, spacing: self.spacing });
        }
        let span = self.spacing * (self.count as i64 - 1);
        // The first gap's first cell: its centre less half the width, as `of` reads it.
        let first = (self.centre - span as f64 / 2.0 - (self.width - 1) as f64 / 2.0).round() as i64;
        let last = first + span + self.width - 1;
        if first < 1 || last > ny as i64 - 2 {
            return Err(SlitsError::TooWide { count: self.count, spacing: self.spacing, ny });
        }
        let mut walls = Vec::with_capacity(self.count + 1);
        let mut y = 0;
        for k in 0..self.count as i64 {
            let lo = first + k * self.spacing;
            walls.push(Wall { x0: self.x0, y0: y, x1: self.x1, y1: lo - 1 });
            y = lo + self.width;
        }
        walls.push(Wall { x0: self.x0, y0: y, x1: self.x1, y1: ny as i64 - 1 });
        Ok(walls)
    }

    /// `scene` with its walls rebuilt as these slits.
    ///
    /// # Errors
    /// See [`Slits::walls`].
    pub fn apply(&self, scene: &Scene) -> Result<Scene, SlitsError> {
        let mut s = scene.clone();
        s.walls = self.walls(scene.ny)?;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::wave::scene::preset;
    use crate::sim::wave::theory::{Pattern, Theory};

    #[test]
    fn presets_read_and_rebuild_to_the_same_walls() {
        for name in ["double-slit", "grating", "single-slit"] {
            let s = preset(name).expect("preset");
            let slits = Slits::of(&s).unwrap_or_else(|| panic!("{name}: no slits read"));
            assert_eq!(slits.walls(s.ny).expect("fits"), s.walls, "{name}: {slits:?}");
        }
        let d = Slits::of(&preset("double-slit").expect("preset")).expect("slits");
        assert_eq!((d.x0, d.x1, d.width, d.spacing, d.count, d.centre), (160, 163, 10, 80, 2, 239.5));
    }

    #[test]
    fn new_geometry_is_what_theory_reads_and_bad_geometry_is_refused() {
        let s = preset("double-slit").expect("preset");
        let d = Slits::of(&s).expect("slits");
        let three = Slits { count: 3, spacing: 60, width: 6, ..d }.apply(&s).expect("fits");
        three.validate().expect("a valid scene");
        let t = Theory::of(&three).expect("theory");
        assert_eq!(t.pattern, Pattern::Slits { count: 3 });
        assert_eq!((t.d, t.slit_width, t.origin.1), (60.0, Some(6.0), 239.5));
        assert_eq!(Slits { width: 80, ..d }.walls(s.ny), Err(SlitsError::Overlap { width: 80, spacing: 80 }));
        assert_eq!(
            Slits { count: 7, spacing: 80, ..d }.walls(s.ny),
            Err(SlitsError::TooWide { count: 7, spacing: 80, ny: 480 })
        );
        assert!(Slits::of(&preset("point").expect("preset")).is_none());
    }
}
