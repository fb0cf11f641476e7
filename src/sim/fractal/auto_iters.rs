//! Iterations chosen from the view: the depth rule `100 + 150·log10(zoom)` and, where a
//! picture's own counts show that rule cutting its structure off, more.
//!
//! A picture shows its structure when its escaping pixels spread over the colour range. Near a
//! minibrot the depth rule can leave every pixel at the limit (seahorse valley at 2.49e7: the
//! rule's 1210 against a smallest escape count of 2799 in view), so the picture is one colour.
//! [`more_iterations`] reads a computed picture's counts and asks for more where
//! - no pixel escaped: four times the iterations (up to a cap), or
//! - every escaping pixel took more than half the limit (the range is squashed against it): at
//!   least four times the smallest escape count and twice the limit,
//!
//! and never for a picture whose escape counts already start in the lower half (the whole set,
//! seahorse valley at 300, the elephants at 200: their smallest counts are 0–26 of 100–500).

/// The depth rule: `100 + 150 * log10(zoom)` (at least 100, at most 1 000 000).
#[must_use]
pub fn by_depth(zoom_log10: f64) -> u32 {
    let n = 100.0 + 150.0 * zoom_log10.max(0.0);
    n.round().clamp(100.0, f64::from(MAX_ITERS)) as u32
}

/// The most iterations the automatic choice takes.
pub const MAX_ITERS: u32 = 1_000_000;

/// How far past the depth rule the counts may take it (a view all inside the set escapes at no
/// limit; this bounds what it costs to find that out).
pub const MAX_BOOST: u32 = 64;

/// More iterations for a picture of `counts` computed with `iters` (negative counts: pixels
/// not computed, skipped), or `None` when its structure shows; never above `cap`.
#[must_use]
pub fn more_iterations(counts: &[i32], iters: u32, cap: u32) -> Option<u32> {
    let mut escaped = 0usize;
    let mut min_escaped = u32::MAX;
    for &c in counts {
        let Ok(c) = u32::try_from(c) else { continue };
        if c < iters {
            escaped += 1;
            min_escaped = min_escaped.min(c);
        }
    }
    let want = if escaped == 0 {
        iters.saturating_mul(4)
    } else if u64::from(min_escaped) * 2 > u64::from(iters) {
        min_escaped.saturating_mul(4).max(iters.saturating_mul(2))
    } else {
        return None;
    };
    let want = want.min(cap);
    (want > iters).then_some(want)
}

/// What the counts taught for a dive: the factor over the depth rule, learned at a depth, kept
/// while the view stays at most [`FORGET_DECADES`] shallower than that.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Learned {
    pub zoom_log10: f64,
    pub factor: f64,
}

/// Decades shallower than where it was learned at which a factor is forgotten.
pub const FORGET_DECADES: f64 = 1.0;

impl Learned {
    /// The iterations at `zoom_log10`: the depth rule times the factor while it holds.
    #[must_use]
    pub fn iters(learned: Option<&Self>, zoom_log10: f64) -> u32 {
        let base = by_depth(zoom_log10);
        match learned {
            Some(l) if zoom_log10 >= l.zoom_log10 - FORGET_DECADES => {
                (f64::from(base) * l.factor).round().clamp(f64::from(base), f64::from(MAX_ITERS)) as u32
            }
            _ => base,
        }
    }

    /// The factor that gives `iters` at `zoom_log10`.
    #[must_use]
    pub fn at(zoom_log10: f64, iters: u32) -> Self {
        Self { zoom_log10, factor: (f64::from(iters) / f64::from(by_depth(zoom_log10))).max(1.0) }
    }

    /// The cap of [`more_iterations`] at `zoom_log10`.
    #[must_use]
    pub fn cap(zoom_log10: f64) -> u32 {
        by_depth(zoom_log10).saturating_mul(MAX_BOOST).min(MAX_ITERS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fractal::mandelbrot::{Bounds, MandelbrotParams, Precision, reference};

    fn counts(re: f64, im: f64, zoom: f64, iters: u32) -> Vec<i32> {
        let (w, h) = (96usize, 54usize);
        let (hh, hw) = (1.0 / zoom, 1.0 / zoom * w as f64 / h as f64);
        let bounds = Bounds { minx: re - hw, maxx: re + hw, miny: im - hh, maxy: im + hh };
        let p = MandelbrotParams { width: w, height: h, iters, bounds, precision: Precision::F64 };
        reference(&p).0
    }

    #[test]
    fn pictures_that_show_their_structure_keep_the_depth_rule() {
        // Measured smallest escape counts: 0 (whole set, 100), 26 (seahorse valley at 300, 500),
        // 12 (elephants at 200, 400): all far below half the limit.
        for (name, re, im, zoom, iters) in [
            ("whole set", -0.75, 0.0, 0.8, 100),
            ("seahorse valley", -0.7453, 0.1127, 300.0, 500),
            ("elephants", 0.2925, 0.0149, 200.0, 400),
        ] {
            let c = counts(re, im, zoom, iters);
            assert_eq!(more_iterations(&c, iters, 1 << 20), None, "{name} at {iters} iterations asked for more");
        }
    }

    #[test]
    fn a_picture_cut_off_by_its_limit_asks_for_enough_to_show_it() {
        // A view by a minibrot of seahorse valley at 2.49e7: at the depth rule's 1210 the
        // smallest escape count is past half the limit.
        let (re, im, zoom): (f64, f64, f64) = (-0.743_643_887_037_151, 0.131_825_904_205_330, 2.49e7);
        let iters = by_depth(zoom.log10());
        let c = counts(re, im, zoom, iters);
        let more = more_iterations(&c, iters, 1 << 20).expect("the rule's picture is cut off, more iterations asked");
        let min = c.iter().filter(|&&k| (k as u32) < iters).min().copied().unwrap_or(-1);
        assert!(
            more >= 4 * min as u32 && more >= 2 * iters,
            "asked {more} for a smallest escape count {min} of {iters}"
        );
        // With what it asked for, the escaping counts start in the lower half: no more asked.
        let c = counts(re, im, zoom, more);
        assert_eq!(more_iterations(&c, more, 1 << 20), None, "still cut off at {more}");
    }

    #[test]
    fn nothing_escaping_grows_to_the_cap_and_stops() {
        let inside = vec![200; 100];
        assert_eq!(more_iterations(&inside, 200, 1000), Some(800));
        assert_eq!(more_iterations(&vec![800; 100], 800, 1000), Some(1000));
        assert_eq!(more_iterations(&vec![1000; 100], 1000, 1000), None, "past the cap");
        assert_eq!(more_iterations(&[-1, -1], 200, 1000), Some(800), "no pixel computed counts as none escaping");
    }

    #[test]
    fn a_learned_factor_follows_the_dive_and_is_forgotten_when_leaving() {
        let l = Learned::at(7.0, 4 * by_depth(7.0));
        assert_eq!(Learned::iters(Some(&l), 7.0), 4 * by_depth(7.0));
        assert_eq!(Learned::iters(Some(&l), 9.0), 4 * by_depth(9.0), "deeper: the factor holds");
        assert_eq!(Learned::iters(Some(&l), 6.5), 4 * by_depth(6.5), "half a decade out: held");
        assert_eq!(Learned::iters(Some(&l), 5.9), by_depth(5.9), "over a decade out: forgotten");
        assert_eq!(Learned::iters(None, 13.0), 2050);
    }
}
