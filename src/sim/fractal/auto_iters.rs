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
//! A picture where nothing escapes is raised at most twice ([`NO_ESCAPE_BOOST`] over the depth
//! rule): a view inside the set is one colour at any limit, and each raise costs four times more.
//!
//! The other way, [`fewer_iterations`]: where every escaping pixel took less than a quarter of
//! the limit, twice the largest escape count gives the very same picture (what escaped still
//! escapes, what did not still does not), at a fraction of the cost; so the iterations follow the
//! view down again, to the depth rule at least.

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

/// How far past the depth rule a picture where no pixel escapes may raise the iterations.
pub const NO_ESCAPE_BOOST: u32 = 16;

/// More iterations for a picture of `counts` computed with `iters` (negative counts: pixels
/// not computed, skipped), or `None` when its structure shows; never above `cap`, and never
/// above `no_escape_cap` for a picture where nothing escaped.
#[must_use]
pub fn more_iterations(counts: &[i32], iters: u32, cap: u32, no_escape_cap: u32) -> Option<u32> {
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
        iters.saturating_mul(4).min(no_escape_cap)
    } else if u64::from(min_escaped) * 2 > u64::from(iters) {
        min_escaped.saturating_mul(4).max(iters.saturating_mul(2))
    } else {
        return None;
    };
    let want = want.min(cap);
    (want > iters).then_some(want)
}

/// Fewer iterations for a picture of `counts` computed with `iters` that gives the same counts:
/// twice the largest escape count, where that is under half the limit; never below `floor`.
/// `None` where nothing escaped (no count says how many would do) or nothing is saved.
#[must_use]
pub fn fewer_iterations(counts: &[i32], iters: u32, floor: u32) -> Option<u32> {
    let max_escaped = counts.iter().filter_map(|&c| u32::try_from(c).ok()).filter(|&c| c < iters).max()?;
    let want = max_escaped.saturating_mul(2).max(floor).max(1);
    (u64::from(want) * 2 <= u64::from(iters)).then_some(want)
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

    /// The cap of [`more_iterations`] at `zoom_log10` for a picture where nothing escaped.
    #[must_use]
    pub fn no_escape_cap(zoom_log10: f64) -> u32 {
        by_depth(zoom_log10).saturating_mul(NO_ESCAPE_BOOST).min(MAX_ITERS)
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
            assert_eq!(
                more_iterations(&c, iters, 1 << 20, 1 << 20),
                None,
                "{name} at {iters} iterations asked for more"
            );
        }
    }

    #[test]
    fn a_picture_cut_off_by_its_limit_asks_for_enough_to_show_it() {
        // A view by a minibrot of seahorse valley at 2.49e7: at the depth rule's 1210 the
        // smallest escape count is past half the limit.
        let (re, im, zoom): (f64, f64, f64) = (-0.743_643_887_037_151, 0.131_825_904_205_330, 2.49e7);
        let iters = by_depth(zoom.log10());
        let c = counts(re, im, zoom, iters);
        let more =
            more_iterations(&c, iters, 1 << 20, 1 << 20).expect("the rule's picture is cut off, more iterations asked");
        let min = c.iter().filter(|&&k| (k as u32) < iters).min().copied().unwrap_or(-1);
        assert!(
            more >= 4 * min as u32 && more >= 2 * iters,
            "asked {more} for a smallest escape count {min} of {iters}"
        );
        // With what it asked for, the escaping counts start in the lower half: no more asked.
        let c = counts(re, im, zoom, more);
        assert_eq!(more_iterations(&c, more, 1 << 20, 1 << 20), None, "still cut off at {more}");
    }

    #[test]
    fn nothing_escaping_grows_to_the_cap_and_stops() {
        let inside = vec![200; 100];
        assert_eq!(more_iterations(&inside, 200, 1000, 1000), Some(800));
        assert_eq!(more_iterations(&vec![800; 100], 800, 1000, 1000), Some(1000));
        assert_eq!(more_iterations(&vec![1000; 100], 1000, 1000, 1000), None, "past the cap");
        assert_eq!(more_iterations(&[-1, -1], 200, 1000, 1000), Some(800), "no pixel computed counts as none escaping");
    }

    /// The ratchet seen in the app: a view inside the set at 1e22 went 3400 -> 13600 -> 54400 ->
    /// 217600. Nothing escaping stops at 16x the depth rule (two raises); a picture with escapes
    /// may still go to the full cap.
    #[test]
    fn nothing_escaping_stops_after_two_raises() {
        let z = 22.0;
        let (base, no_escape, cap) = (by_depth(z), Learned::no_escape_cap(z), Learned::cap(z));
        assert_eq!((base, no_escape, cap), (3400, 54_400, 217_600));
        let mut iters = base;
        let mut seen = vec![iters];
        while let Some(n) = more_iterations(&vec![i32::try_from(iters).unwrap(); 64], iters, cap, no_escape) {
            iters = n;
            seen.push(n);
        }
        assert_eq!(seen, [3400, 13_600, 54_400]);
        let late_escapes: Vec<i32> = (0..64).map(|k| if k == 0 { 40_000 } else { 54_400 }).collect();
        assert!(more_iterations(&late_escapes, 54_400, cap, no_escape).is_some_and(|n| n > 54_400));
    }

    /// The other way (seen: a seahorse point whose counts top at 23142 kept 217600): counts that
    /// top far below the limit give the same picture at twice their top; a picture already near
    /// its limit, or with nothing escaped, keeps it.
    #[test]
    fn fewer_iterations_give_the_same_counts() {
        // Just outside the set, above the period-2 bulb: every pixel escapes, the slowest late.
        let (re, im, zoom) = (-0.9, 0.35, 20.0);
        let at = |iters| counts(re, im, zoom, iters);
        let high = at(20_000);
        let max_escaped = high.iter().copied().filter(|&c| c < 20_000).max().unwrap();
        println!("counts top at {max_escaped} of 20000");
        let fewer = fewer_iterations(&high, 20_000, 1).expect("far below the limit: fewer asked");
        assert_eq!(fewer, u32::try_from(2 * max_escaped).unwrap());
        let low = at(fewer);
        let same = high
            .iter()
            .zip(&low)
            .all(|(&h, &l)| (h == 20_000) == (l == i32::try_from(fewer).unwrap()) && (h == 20_000 || h == l));
        assert!(same, "the counts at {fewer} are not those at 20000");
        assert_eq!(fewer_iterations(&low, fewer, 100), None, "at twice its largest escape: kept");
        assert_eq!(fewer_iterations(&[500; 10], 500, 100), None, "nothing escaped");
        assert_eq!(fewer_iterations(&[3, 4, 500], 500, 300), None, "the floor leaves nothing to save");
        assert_eq!(fewer_iterations(&[3, 4, 500], 500, 100), Some(100));
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
