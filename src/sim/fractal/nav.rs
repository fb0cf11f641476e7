//! Navigation of the Mandelbrot view at any depth: zoom about a point, pan, zoom to a box, the
//! view that fits the whole set in a panel of any shape, and iterations chosen by depth.
//!
//! The camera is a [`View`] of `sim::fractal::deep` (centre as decimal strings, zoom as a decimal), so
//! its bounds, precision and perturbation come from there. Moves are done here in arbitrary
//! precision (`astro-float`, at the bits the deeper of the two views needs for a 16384-pixel
//! picture) and written back as decimal strings, so the centre never loses a digit however deep
//! the zoom. The zoom moves in `log10` (an `f64`, about 16 significant digits of the zoom
//! itself, far more than a picture shows) and is written as `m e N`, so it goes far past
//! `f64`'s 1e308.

use astro_float::{BigFloat, Consts, Radix};

use crate::sim::fractal::decimal::{positional, significant};
use crate::sim::fractal::deep::{RM, View, ViewError, parse_decimal};

/// Smallest zoom (`log10`): the whole set about 10 times over.
pub const MIN_ZOOM_LOG10: f64 = -1.0;
/// Deepest zoom (`log10`): 1e1000, where a centre needs 3400 bits.
pub const MAX_ZOOM_LOG10: f64 = 1000.0;

/// The whole set lies in `re ∈ [-2, 0.4717]`, `im ∈ [-1.1226, 1.1226]`; the fitted view is
/// centred on that box and shows it with a 7% margin.
const SET_CENTRE_RE: &str = "-0.764";
const SET_HALF_WIDTH: f64 = 1.236 * 1.07;
const SET_HALF_HEIGHT: f64 = 1.1226 * 1.07;

/// Picture height the centre's precision is kept for: the largest export a side may have.
const NAV_HEIGHT: usize = 16384;

/// The view showing the whole set in a picture of `aspect` = width/height (portrait too).
#[must_use]
pub fn fit_whole_set(aspect: f64) -> View {
    let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
    // Half-height 1/Z, half-width aspect/Z: both must cover the set's half extents.
    let zoom = (1.0 / SET_HALF_HEIGHT).min(aspect / SET_HALF_WIDTH);
    View { re: SET_CENTRE_RE.to_owned(), im: "0".to_owned(), zoom: zoom_string(zoom.log10()) }
}

/// The view showing the Julia sets' usual frame, `[-1.8, 1.8] x [-1.2, 1.2]`, in a picture of
/// `aspect` (centred on 0).
#[must_use]
pub fn fit_julia(aspect: f64) -> View {
    let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
    let zoom = (1.0 / 1.2f64).min(aspect / 1.8);
    View { re: "0".to_owned(), im: "0".to_owned(), zoom: zoom_string(zoom.log10()) }
}

/// Iterations chosen by depth: `100 + 150 * log10(zoom)` (at least 100): 100 for the whole
/// set, about 2000 at 1e13, 45 000 at 1e300. Deeper pictures need more because points
/// nearer the boundary take longer to escape ([`crate::sim::fractal::auto_iters::by_depth`];
/// the picture's own counts may ask for more: the app's `MandelView::learn_iters`).
#[must_use]
pub fn auto_iters(zoom_log10: f64) -> u32 {
    crate::sim::fractal::auto_iters::by_depth(zoom_log10)
}

/// A zoom given by its `log10` as a decimal string: plain between 1e-3 and 1e6 (`31.873`,
/// `0.25`, as the readout says it), `m e N` beyond (`1e300`, `3.7e1000`), 15 significant digits.
#[must_use]
pub fn zoom_string(log10: f64) -> String {
    let log10 = if log10.is_finite() { log10 } else { 0.0 };
    let mut e = log10.floor();
    let mut m = 10f64.powf(log10 - e);
    if m >= 9.999_999_999_999_9 {
        m = 1.0;
        e += 1.0;
    }
    let digits = format!("{m:.14}");
    let digits = digits.trim_end_matches('0').trim_end_matches('.');
    if e == 0.0 {
        return digits.to_owned();
    }
    if (-3.0..=5.0).contains(&e) {
        // The same digits with the point moved: no rounding.
        let all: String = digits.chars().filter(char::is_ascii_digit).collect();
        let shift = e as i32;
        let plain = if shift > 0 {
            let shift = shift as usize;
            let (int, frac) =
                if all.len() > shift + 1 { (&all[..=shift], &all[shift + 1..]) } else { (all.as_str(), "") };
            let int = format!("{int:0<width$}", width = shift + 1);
            if frac.is_empty() { int } else { format!("{int}.{frac}") }
        } else {
            format!("0.{}{all}", "0".repeat((-shift - 1) as usize))
        };
        return plain;
    }
    format!("{digits}e{e}")
}

/// Why a move was not made (never expected of a view made by the app).
#[derive(Debug, thiserror::Error)]
pub enum NavError {
    /// The view's centre or zoom does not parse.
    #[error(transparent)]
    View(#[from] ViewError),
    /// The moved centre could not be written as a decimal.
    #[error("formatting the centre: {0}")]
    Format(String),
}

/// Bits the centre is kept in for `view` (a picture up to [`NAV_HEIGHT`] pixels high).
fn nav_bits(view: &View) -> usize {
    view.bits(NAV_HEIGHT)
}

/// `v` as a decimal string with the significant digits that place it to 1e-8 of a pixel of a
/// 16384-pixel picture at `zoom_log10` (at least 17), trailing zeros trimmed.
fn decimal(v: &BigFloat, zoom_log10: f64) -> Result<String, NavError> {
    let mut cc = Consts::new().map_err(|e| ViewError::Precision(e.to_string()))?;
    let s = v.format(Radix::Dec, RM, &mut cc).map_err(|e| NavError::Format(format!("{e:?}")))?;
    let magnitude = if v.is_zero() { 0.0 } else { crate::sim::fractal::deep::log10_abs(v) };
    let keep = ((magnitude + zoom_log10.max(0.0) + (NAV_HEIGHT as f64).log10()).ceil() + 8.0).max(17.0) as usize;
    Ok(positional(&significant(&s, keep)))
}

/// `view` with its centre moved by `(dx, dy)` half-heights (units of `1/zoom`; `dy` up) and its
/// zoom set to `10^zoom_log10`, in arbitrary precision.
///
/// # Errors
/// A view that does not parse (never one made here).
pub fn moved(view: &View, dx: f64, dy: f64, zoom_log10: f64) -> Result<View, NavError> {
    let zoom_log10 = zoom_log10.clamp(MIN_ZOOM_LOG10, MAX_ZOOM_LOG10);
    let next = View { zoom: zoom_string(zoom_log10), ..view.clone() };
    let bits = nav_bits(view).max(nav_bits(&next));
    let z = parse_decimal(&view.zoom, "zoom", bits)?;
    let shift = |c: &str, d: f64| -> Result<String, NavError> {
        if d == 0.0 || !d.is_finite() {
            return Ok(c.to_owned());
        }
        let c = parse_decimal(c, "centre", bits)?;
        let offset = BigFloat::from_f64(d, bits).div(&z, bits, RM);
        decimal(&c.add(&offset, bits, RM), zoom_log10)
    };
    Ok(View { re: shift(&view.re, dx)?, im: shift(&view.im, dy)?, zoom: next.zoom })
}

/// Where `at` (fractions of the picture's width and height from its top-left) lies from the
/// centre, in half-heights (`y` up), for a picture of `aspect` = width/height.
#[must_use]
pub fn offset_of(at: [f64; 2], aspect: f64) -> (f64, f64) {
    ((2.0 * at[0] - 1.0) * aspect, 1.0 - 2.0 * at[1])
}

/// Zooms by `factor` (> 1 in) keeping the point under `at` where it is.
///
/// # Errors
/// A view that does not parse.
pub fn zoomed_about(view: &View, factor: f64, at: [f64; 2], aspect: f64) -> Result<View, NavError> {
    let old = view.zoom_log10();
    let new = (old + factor.log10()).clamp(MIN_ZOOM_LOG10, MAX_ZOOM_LOG10);
    let f = 10f64.powf(new - old);
    // The point p under the cursor stays: c' = p + (c - p)/f = c + o*(1 - 1/f) (o = p - c).
    let (ox, oy) = offset_of(at, aspect);
    moved(view, ox * (1.0 - 1.0 / f), oy * (1.0 - 1.0 / f), new)
}

/// Moves the picture by a drag of `delta` pixels (`y` down) in a picture `height` pixels high.
///
/// # Errors
/// A view that does not parse.
pub fn panned(view: &View, delta: [f64; 2], height: f64) -> Result<View, NavError> {
    let per_pixel = 2.0 / height.max(1.0);
    moved(view, -delta[0] * per_pixel, delta[1] * per_pixel, view.zoom_log10())
}

/// The view that shows the box between the corners `a` and `b` (fractions of the picture, as
/// for [`zoomed_about`]) as large as it fits.
///
/// # Errors
/// A view that does not parse.
pub fn zoomed_to_box(view: &View, a: [f64; 2], b: [f64; 2], aspect: f64) -> Result<View, NavError> {
    let centre = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    let (ox, oy) = offset_of(centre, aspect);
    let (w, h) = ((a[0] - b[0]).abs().max(1e-6), (a[1] - b[1]).abs().max(1e-6));
    let factor = (1.0 / w).min(1.0 / h);
    moved(view, ox, oy, view.zoom_log10() + factor.log10())
}

/// The point under `at` as decimal strings `(re, im)`, in arbitrary precision.
///
/// # Errors
/// A view that does not parse.
pub fn point_at(view: &View, at: [f64; 2], aspect: f64) -> Result<(String, String), NavError> {
    let (ox, oy) = offset_of(at, aspect);
    let p = moved(view, ox, oy, view.zoom_log10())?;
    Ok((p.re, p.im))
}

/// Where the picture of `shown` lies in the picture of `current` (both of the same shape):
/// its centre's offset from `current`'s in `current`'s half-heights (`y` up) and its height
/// over `current`'s. Lets the last picture be drawn moved and scaled while the next one is
/// computed. `None` when a view does not parse or the offset is beyond `f64`.
#[must_use]
pub fn relative(shown: &View, current: &View) -> Option<(f64, f64, f64)> {
    let bits = nav_bits(shown).max(nav_bits(current));
    let z = parse_decimal(&current.zoom, "zoom", bits).ok()?;
    let d = |a: &str, b: &str| -> Option<f64> {
        let a = parse_decimal(a, "centre", bits).ok()?;
        let b = parse_decimal(b, "centre", bits).ok()?;
        let v = crate::sim::fractal::deep::to_f64(&a.sub(&b, bits, RM).mul(&z, bits, RM));
        v.is_finite().then_some(v)
    };
    let scale = 10f64.powf(current.zoom_log10() - shown.zoom_log10());
    scale.is_finite().then_some(())?;
    Some((d(&shown.re, &current.re)?, d(&shown.im, &current.im)?, scale))
}

/// Slowest and fastest continuous zoom, in factors per second.
pub const ZOOM_RATES: std::ops::RangeInclusive<f64> = 1.5..=1000.0;

/// The zoom factor for `secs` of continuous zoom at `rate` per second in direction `dir` (+1 in,
/// -1 out, 0 none: 1); a stalled frame counts at most a quarter of a second.
#[must_use]
pub fn held_factor(rate: f64, dir: i8, secs: f64) -> f64 {
    rate.clamp(*ZOOM_RATES.start(), *ZOOM_RATES.end()).powf(f64::from(dir) * secs.clamp(0.0, 0.25))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fractal::deep::to_f64;

    fn f(s: &str) -> f64 {
        to_f64(&parse_decimal(s, "x", 4000).unwrap())
    }

    #[test]
    fn the_whole_set_fits_in_any_shape() {
        for aspect in [0.4, 0.6, 1.0, 1.5, 3.0] {
            let v = fit_whole_set(aspect);
            let b = v.bounds_f64((aspect * 1000.0) as usize, 1000).unwrap();
            assert!(b.minx <= -2.0 && b.maxx >= 0.4717, "aspect {aspect}: {b:?}");
            assert!(b.miny <= -1.1226 && b.maxy >= 1.1226, "aspect {aspect}: {b:?}");
            // ... and fills one of the two directions (no needless margin).
            let fill = (2.5 / (b.maxx - b.minx)).max(2.25 / (b.maxy - b.miny));
            assert!(fill > 0.9, "aspect {aspect}: the set fills {fill:.2} of the picture");
        }
    }

    #[test]
    fn decimals_are_written_plainly_where_short() {
        assert_eq!(positional("-7.6400e-1"), "-0.764");
        assert_eq!(positional("1.25e+1"), "12.5");
        assert_eq!(positional("1.0e+2"), "100");
        assert_eq!(positional("0.0"), "0.0");
        assert_eq!(positional("-1.2300e-3"), "-0.00123");
        assert_eq!(positional("3.0e-321"), "3e-321");
        assert_eq!(positional("5.0e+0"), "5");
        let v = View { re: "-0.5".into(), im: "0.001".into(), zoom: "1".into() };
        let p = panned(&v, [0.0, 0.0], 100.0).unwrap();
        assert_eq!((p.re.as_str(), p.im.as_str()), ("-0.5", "0.001"));
        let p = panned(&v, [25.0, 0.0], 100.0).unwrap();
        assert_eq!(p.re, "-1", "a shallow pan gives a short centre");
        assert_eq!(significant("1.23456e-3", 3), "1.23e-3");
    }

    #[test]
    fn zoom_strings_go_past_f64() {
        assert_eq!(zoom_string(300.0), "1e300");
        assert_eq!(zoom_string(0.0), "1");
        // As the readout says it, not `3.18731249151268e1` (seen in the Go-to field).
        assert_eq!(zoom_string(31.873_124_915_126_8_f64.log10()), "31.8731249151268");
        assert_eq!(zoom_string(3.0), "1000");
        assert_eq!(zoom_string(5.0), "100000");
        assert_eq!(zoom_string(6.0), "1e6");
        assert_eq!(zoom_string(0.25_f64.log10()), "0.25");
        assert_eq!(zoom_string(-3.0), "0.001");
        assert_eq!(zoom_string(-4.0), "1e-4");
        for l in [-3.5, -1.2, 0.4, 1.5, 2.99, 4.7, 5.9] {
            let back: f64 = zoom_string(l).parse().unwrap();
            assert!((back.log10() - l).abs() < 1e-12, "{l}: {}", zoom_string(l));
        }
        assert_eq!(zoom_string(1234.5).split_once('e').unwrap().1, "1234");
        let v = View { re: "0".into(), im: "0".into(), zoom: zoom_string(456.25) };
        assert!((v.zoom_log10() - 456.25).abs() < 1e-9, "{}", v.zoom_log10());
    }

    #[test]
    fn zoom_keeps_the_point_under_the_cursor_at_any_depth() {
        for depth in [0.0, 12.0, 150.0, 400.0] {
            let v = View { re: "-0.75".into(), im: "0.1".into(), zoom: zoom_string(depth) };
            let at = [0.2, 0.7];
            let before = point_at(&v, at, 1.5).unwrap();
            let z = zoomed_about(&v, 3.0, at, 1.5).unwrap();
            let after = point_at(&z, at, 1.5).unwrap();
            assert!((z.zoom_log10() - depth - 3f64.log10()).abs() < 1e-9);
            // The point moves by far less than a pixel of a 16384-pixel picture.
            let bits = nav_bits(&z);
            let dre = parse_decimal(&before.0, "x", bits).unwrap().sub(
                &parse_decimal(&after.0, "x", bits).unwrap(),
                bits,
                RM,
            );
            let dim = parse_decimal(&before.1, "x", bits).unwrap().sub(
                &parse_decimal(&after.1, "x", bits).unwrap(),
                bits,
                RM,
            );
            let pixel = -(z.zoom_log10() + 16384f64.log10());
            for d in [dre, dim] {
                let l = crate::sim::fractal::deep::log10_abs(&d);
                assert!(d.is_zero() || l < pixel - 3.0, "depth {depth}: moved 1e{l:.1}, a pixel is 1e{pixel:.1}");
            }
        }
    }

    #[test]
    fn pan_and_box_move_the_centre() {
        let v = View { re: "-0.5".into(), im: "0".into(), zoom: "1".into() };
        let p = panned(&v, [100.0, -50.0], 200.0).unwrap();
        assert!((f(&p.re) + 1.5).abs() < 1e-12 && (f(&p.im) + 0.5).abs() < 1e-12, "{p:?}");
        // The right half's upper quarter: centre at x = 3/4, y = 1/4 of a 2:1 picture.
        let b = zoomed_to_box(&v, [0.5, 0.0], [1.0, 0.5], 2.0).unwrap();
        assert!((f(&b.re) - 0.5).abs() < 1e-12 && (f(&b.im) - 0.5).abs() < 1e-12, "{b:?}");
        assert!((b.zoom_log10() - 2f64.log10()).abs() < 1e-12);
        // Deep: a pan of one pixel at 1e300 moves the centre by exactly 2e-300 / height.
        let deep = View { re: "-0.5".into(), im: "0".into(), zoom: "1e300".into() };
        let p = panned(&deep, [-1.0, 0.0], 1000.0).unwrap();
        let bits = nav_bits(&deep);
        let d = parse_decimal(&p.re, "x", bits).unwrap().sub(&parse_decimal("-0.5", "x", bits).unwrap(), bits, RM);
        let rel = to_f64(&d.div(&parse_decimal("2e-303", "x", bits).unwrap(), bits, RM));
        // Centres keep 1e-8 of a pixel of a 16384-pixel picture (a 1000-pixel one here).
        assert!((rel - 1.0).abs() < 1e-8, "{rel}");
    }

    #[test]
    fn a_moved_picture_is_placed_where_its_view_lies() {
        let shown = View { re: "-0.5".into(), im: "0.25".into(), zoom: "1e200".into() };
        let current = zoomed_about(&shown, 2.0, [0.75, 0.5], 1.0).unwrap();
        let (dx, dy, scale) = relative(&shown, &current).unwrap();
        assert!((scale - 2.0).abs() < 1e-9, "{scale}");
        // The point at x = 3/4 stays: the old centre lies half a half-width left of it, doubled.
        assert!((dx + 0.5).abs() < 1e-9 && dy.abs() < 1e-9, "{dx} {dy}");
    }

    #[test]
    fn auto_iterations_grow_with_depth() {
        assert_eq!(auto_iters(-0.1), 100);
        assert_eq!(auto_iters(13.0), 2050);
        assert!(auto_iters(300.0) > auto_iters(100.0));
    }
}
