//! What theory predicts for a scene's interference: the directions `θ` of the maxima of two
//! sources, a double slit or a grating (`d·sin θ = m·λ`), and of the minima of a single slit
//! (`a·sin θ = m·λ`, `m ≠ 0`). The app draws them over the intensity view.
//!
//! The geometry is read from the scene itself, so an edited scene keeps its overlay where it
//! still makes sense: a barrier is a set of walls sharing one band of columns (or rows) whose
//! gaps are the slits; two sources are the first two point sources of one frequency.

use std::f64::consts::TAU;

use crate::sim::wave::scene::{Scene, Source, Wall};

/// The wavelength in cells of a wave of `freq` radians per time step in a medium of `c2`:
/// `λ = 4π·sqrt(c2)/freq`, because a time step is two updates of the leapfrog rule (the seed's
/// `update(f, g)`, `update(g, f)`), each advancing the wave by `sqrt(c2)` cells.
#[must_use]
pub fn wavelength(c2: f64, freq: f64) -> f64 {
    2.0 * TAU * c2.sqrt() / freq
}

/// Which pattern the prediction is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Two point sources in phase: maxima at `d·sin θ = m·λ` on both sides of their line.
    TwoSources,
    /// Two or more equal, evenly spaced slits: maxima at `d·sin θ = m·λ` behind the barrier.
    Slits { count: usize },
    /// One slit of width `a`: minima at `a·sin θ = m·λ`, `m ≠ 0`.
    SingleSlit,
}

/// The predicted directions for a scene.
#[derive(Clone, Debug, PartialEq)]
pub struct Theory {
    pub pattern: Pattern,
    /// Where the rays start, in cells `(x, y)`: the midpoint of the sources or of the slits.
    pub origin: (f64, f64),
    /// Unit vectors of the directions `θ = 0` (one for slits, both sides for two sources).
    pub axes: Vec<(f64, f64)>,
    /// Unit vector across the axis, towards positive `θ`.
    pub across: (f64, f64),
    /// The spacing `d` (the slit width `a` for a single slit), in cells.
    pub d: f64,
    /// The wavelength in the open medium, in cells.
    pub lambda: f64,
    /// The slits' width `a` in cells (the mean of the gaps), for the single-slit envelope of
    /// the intensity; `None` for point sources.
    pub slit_width: Option<f64>,
}

impl Theory {
    /// The prediction for `scene`, if it is one of the patterns above.
    #[must_use]
    pub fn of(scene: &Scene) -> Option<Self> {
        let first = scene.sources.first()?;
        let lambda = wavelength(scene.c2, first.freq());
        if !(lambda.is_finite() && lambda > 0.0) {
            return None;
        }
        if scene.walls.is_empty() {
            return Self::two_sources(scene, lambda);
        }
        Self::slits(scene, lambda)
    }

    fn two_sources(scene: &Scene, lambda: f64) -> Option<Self> {
        let points: Vec<(f64, f64, f64)> = scene
            .sources
            .iter()
            .filter_map(|s| match *s {
                Source::Point { x, y, freq, .. } => Some((x as f64, y as f64, freq)),
                _ => None,
            })
            .collect();
        let [(x0, y0, f0), (x1, y1, f1), ..] = points.as_slice() else { return None };
        if f0 != f1 {
            return None;
        }
        let d = (x1 - x0).hypot(y1 - y0);
        if d <= 0.0 {
            return None;
        }
        let along = ((x1 - x0) / d, (y1 - y0) / d);
        let normal = (along.1, -along.0);
        Some(Self {
            pattern: Pattern::TwoSources,
            origin: ((x0 + x1) / 2.0, (y0 + y1) / 2.0),
            axes: vec![normal, (-normal.0, -normal.1)],
            across: along,
            d,
            lambda,
            slit_width: None,
        })
    }

    /// A barrier: walls sharing one band of columns (a vertical barrier) or rows, with at least
    /// one gap between them.
    fn slits(scene: &Scene, lambda: f64) -> Option<Self> {
        let vertical = barrier(&scene.walls, |w| (w.x0, w.x1), |w| (w.y0, w.y1));
        let horizontal = barrier(&scene.walls, |w| (w.y0, w.y1), |w| (w.x0, w.x1));
        let (band, gaps, transposed) = match (vertical, horizontal) {
            (Some((b, g)), _) => (b, g, false),
            (None, Some((b, g))) => (b, g, true),
            (None, None) => return None,
        };
        // The side of the barrier the sources are on: the waves come from there.
        let (sx, sy) = scene.sources.first()?.anchor();
        let s = if transposed { sy } else { sx } as f64;
        let (lo, hi) = (band.0 as f64, band.1 as f64);
        let (exit, sign) = if s < lo { (hi + 0.5, 1.0) } else { (lo - 0.5, -1.0) };
        let centres: Vec<f64> = gaps.iter().map(|&(a, b)| (a + b) as f64 / 2.0).collect();
        let mid = centres.iter().sum::<f64>() / centres.len() as f64;
        let width = gaps.iter().map(|&(a, b)| (b - a + 1) as f64).sum::<f64>() / gaps.len() as f64;
        let (pattern, d) = if gaps.len() == 1 {
            (Pattern::SingleSlit, (gaps[0].1 - gaps[0].0 + 1) as f64)
        } else {
            let steps: Vec<f64> = centres.windows(2).map(|w| w[1] - w[0]).collect();
            let d = steps.iter().sum::<f64>() / steps.len() as f64;
            // Unevenly spaced slits have no single d.
            if steps.iter().any(|s| (s - d).abs() > 1.0) {
                return None;
            }
            (Pattern::Slits { count: gaps.len() }, d)
        };
        let (origin, axis, across) =
            if transposed { ((mid, exit), (0.0, sign), (1.0, 0.0)) } else { ((exit, mid), (sign, 0.0), (0.0, 1.0)) };
        Some(Self { pattern, origin, axes: vec![axis], across, d, lambda, slit_width: Some(width) })
    }

    /// The orders `m` and their angles `θ` (radians, signed) theory predicts: maxima
    /// `m = 0, ±1, …` for sources and slits, minima `m = ±1, ±2, …` for a single slit.
    #[must_use]
    pub fn angles(&self) -> Vec<(i32, f64)> {
        let mut out = Vec::new();
        let start = i32::from(self.pattern == Pattern::SingleSlit);
        let mut m = start;
        while m < 1000 {
            let s = f64::from(m) * self.lambda / self.d;
            if s > 1.0 {
                break;
            }
            let theta = s.asin();
            out.push((m, theta));
            if m != 0 {
                out.push((-m, -theta));
            }
            m += 1;
        }
        out.sort_by_key(|a| a.0);
        out
    }

    /// The unit direction of angle `theta` off `axis` (towards [`Theory::across`] for `theta > 0`).
    #[must_use]
    pub fn direction(&self, axis: (f64, f64), theta: f64) -> (f64, f64) {
        let (c, s) = (theta.cos(), theta.sin());
        // Flip `across` on the far side of two sources, so +θ is the same side of the line.
        let (ax, ay) = self.across;
        (axis.0 * c + ax * s, axis.1 * c + ay * s)
    }

    /// A line saying what is drawn, e.g. `maxima d·sin θ = m·λ: d = 80 cells, λ = 31.4 cells`.
    #[must_use]
    pub fn describe(&self) -> String {
        let what = match self.pattern {
            Pattern::TwoSources => "two sources: maxima where d·sin θ = m·λ".to_owned(),
            Pattern::Slits { count: 2 } => "double slit: maxima where d·sin θ = m·λ".to_owned(),
            Pattern::Slits { count } => format!("{count} slits: maxima where d·sin θ = m·λ"),
            Pattern::SingleSlit => "single slit: minima where a·sin θ = m·λ".to_owned(),
        };
        let d = if self.pattern == Pattern::SingleSlit { "a" } else { "d" };
        format!("{what}; {d} = {:.1} cells, λ = {:.1} cells", self.d, self.lambda)
    }
}

/// An inclusive range of cells `(first, last)` along one axis.
pub(crate) type Span = (i64, i64);

/// Walls that all span the same band `(lo, hi)` of one axis, and the gaps between them along the
/// other, inside the grid: `((lo, hi), gaps)`, gaps as inclusive `(first, last)` cells.
pub(crate) fn barrier(
    walls: &[Wall],
    band: impl Fn(&Wall) -> (i64, i64),
    span: impl Fn(&Wall) -> (i64, i64),
) -> Option<(Span, Vec<Span>)> {
    let b = band(walls.first()?);
    if walls.iter().any(|w| band(w) != b) || walls.len() < 2 {
        return None;
    }
    let mut spans: Vec<(i64, i64)> = walls.iter().map(&span).collect();
    spans.sort_unstable();
    let gaps: Vec<(i64, i64)> =
        spans.windows(2).filter(|w| w[1].0 > w[0].1 + 1).map(|w| (w[0].1 + 1, w[1].0 - 1)).collect();
    (!gaps.is_empty()).then_some((b, gaps))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::wave::scene::preset;

    #[test]
    fn double_slit_preset_predicts_its_orders() {
        let t = Theory::of(&preset("double-slit").expect("preset")).expect("a double slit");
        assert_eq!(t.pattern, Pattern::Slits { count: 2 });
        assert!((t.d - 80.0).abs() < 1e-9, "d = {}", t.d);
        assert!((t.lambda - 31.4159).abs() < 1e-3, "λ = {}", t.lambda);
        assert_eq!(t.origin, (163.5, 239.5));
        assert_eq!(t.axes, vec![(1.0, 0.0)]);
        let first = t.angles().iter().find(|(m, _)| *m == 1).map(|a| a.1.sin()).expect("order 1");
        assert!((first - 31.4159 / 80.0).abs() < 1e-4, "sin θ1 = {first}");
    }

    #[test]
    fn single_slit_gives_minima_and_two_sources_both_sides() {
        let t = Theory::of(&preset("single-slit").expect("preset")).expect("a slit");
        assert_eq!(t.pattern, Pattern::SingleSlit);
        assert!(t.angles().iter().all(|(m, _)| *m != 0), "no m = 0 minimum");
        let t = Theory::of(&preset("two-sources").expect("preset")).expect("two sources");
        assert_eq!(t.pattern, Pattern::TwoSources);
        assert!((t.d - 100.0).abs() < 1e-9);
        assert_eq!(t.axes.len(), 2);
        assert!(Theory::of(&preset("point").expect("preset")).is_none());
        assert!(Theory::of(&preset("lens").expect("preset")).is_none());
    }

    #[test]
    fn grating_spacing_is_its_slit_pitch() {
        let scene = preset("grating").expect("preset");
        let t = Theory::of(&scene).expect("a grating");
        assert!(matches!(t.pattern, Pattern::Slits { count } if count > 2), "{:?}", t.pattern);
        assert!(t.angles().iter().all(|(_, th)| th.abs() <= std::f64::consts::FRAC_PI_2));
    }
}
