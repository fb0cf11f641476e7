//! A scene's description after a new grid: every length it quotes ("80 cells apart", "a box of
//! 200 x 150 cells") scaled as [`super::scene::Scene::resized`] scales the geometry, each along
//! the axis it is measured on, and the old grid written as "NXxNY" replaced by the new one. The
//! axis of each "N cells" is the scene's [`Axis`] list (`description_axes` in its file); "A x B
//! cells" is along x and y. Seen before: the double slit at nx 640 -> 1200 said "two slits 110
//! cells apart" (both axes' mean) while the slits and the theory stayed 80 apart along y.

use serde::{Deserialize, Serialize};

/// The axis a length of the description is measured along.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    /// Along x (the grid's `nx`): a distance behind a lens, between foci on the x axis.
    X,
    /// Along y (`ny`): slits and sources spaced along a wall or an array.
    Y,
    /// Along both, as a radius is scaled (the mean of the two scales).
    Xy,
}

/// How a length along each axis scales from `old` to `new` cells (as the geometry: the first
/// and last cells stay first and last).
fn scales(old: (usize, usize), new: (usize, usize)) -> (f64, f64) {
    let scale = |n: usize, o: usize| (n.max(2) - 1) as f64 / (o.max(2) - 1) as f64;
    (scale(new.0, old.0), scale(new.1, old.1))
}

/// `text` after the grid went from `old` to `new`: the k-th "N cells" scaled along `axes[k]`
/// (beyond the list: the mean of both scales, as before axes were given), "A x B cells" along x
/// and y, "NXxNY" of the old grid written as the new one. Numbers are rounded as the geometry's
/// coordinates are.
#[must_use]
pub fn rescaled(text: &str, axes: &[Axis], old: (usize, usize), new: (usize, usize)) -> String {
    if old == new {
        return text.to_owned();
    }
    let (sx, sy) = scales(old, new);
    let along = |a: Option<Axis>| match a {
        Some(Axis::X) => sx,
        Some(Axis::Y) => sy,
        Some(Axis::Xy) => 0.5 * (sx + sy),
        None => (sx * sy).sqrt(),
    };
    let scaled = |n: f64, s: f64| format!("{:.0}", (n * s).round());
    let text = text.replace(&format!("{}x{}", old.0, old.1), &format!("{}x{}", new.0, new.1));
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    let mut k = 0;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let len = rest[start..].find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len() - start);
        let (number, after) = (&rest[start..start + len], &rest[start + len..]);
        let decimal = rest[..start].ends_with('.') || after.starts_with('.');
        out.push_str(&rest[..start]);
        rest = after;
        let Ok(n) = number.parse::<f64>() else {
            out.push_str(number);
            continue;
        };
        if decimal {
            out.push_str(number);
        } else if after.starts_with(" cells") {
            out.push_str(&scaled(n, along(axes.get(k).copied())));
            k += 1;
        } else if let Some(b) = pair_second(after) {
            // "A x B cells": A along x, B along y.
            out.push_str(&scaled(n, sx));
            out.push_str(" x ");
            out.push_str(&scaled(b, sy));
            rest = &after[" x ".len() + b_len(after)..];
        } else {
            out.push_str(number);
        }
    }
    out.push_str(rest);
    out
}

/// `B` of " x B cells…" right after a number, if that is what follows.
fn pair_second(after: &str) -> Option<f64> {
    let tail = after.strip_prefix(" x ")?;
    let len = b_len(after);
    (len > 0 && tail[len..].starts_with(" cells")).then(|| tail[..len].parse().ok()).flatten()
}

/// The digits of `B` in " x B…".
fn b_len(after: &str) -> usize {
    after.strip_prefix(" x ").map_or(0, |t| t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_length_follows_its_own_axis() {
        let d = "A plane wave through two slits 80 cells apart: fringes where d sin(theta) = m lambda.";
        // nx 640 -> 1200, ny kept: the slits (along y) stay 80 apart.
        assert_eq!(rescaled(d, &[Axis::Y], (640, 480), (1200, 480)), d);
        assert!(rescaled(d, &[Axis::Y], (640, 480), (640, 960)).contains("two slits 160 cells apart"));
        // Along x: 220 * 1199/639 = 412.8.
        let lens = "focusing a plane wave about 220 cells behind it";
        assert!(rescaled(lens, &[Axis::X], (640, 480), (1200, 480)).contains("about 413 cells behind"));
        // Without axes: the mean, as before.
        let two = "Two point sources in phase, 100 cells apart: maxima";
        assert!(rescaled(two, &[], (640, 480), (1093, 820)).contains("171 cells apart"));
        assert!(rescaled(two, &[Axis::Y], (640, 480), (1093, 820)).contains("171 cells apart"));
        assert!(rescaled(two, &[Axis::Y], (640, 480), (1200, 480)).contains("100 cells apart"));
    }

    #[test]
    fn a_box_and_the_grid_are_written_anew_and_other_numbers_kept() {
        let d = "A closed box of 200 x 150 cells driven at its (3, 2) mode, freq 0.0634: 3 x 2 loops.";
        let r = rescaled(d, &[], (200, 150), (399, 150));
        assert_eq!(r, "A closed box of 400 x 150 cells driven at its (3, 2) mode, freq 0.0634: 3 x 2 loops.");
        assert_eq!(
            rescaled("The seed (1000x800, freq 0.1).", &[], (1000, 800), (500, 400)),
            "The seed (500x400, freq 0.1)."
        );
        // A decimal before "cells" is not a count of cells.
        assert_eq!(rescaled("a 2.5 cells gap", &[Axis::X], (10, 10), (19, 10)), "a 2.5 cells gap");
    }

    /// The number before " cells apart" / " cells wide" in `text`.
    fn quoted(text: &str, what: &str) -> f64 {
        let end = text.find(what).unwrap_or_else(|| panic!("{what:?} not in {text:?}"));
        let start = text[..end].rfind(' ').map_or(0, |s| s + 1);
        text[start..end].parse().unwrap()
    }

    /// The presets' descriptions after a new grid quote what the theory measures on the resized
    /// geometry (its spacing `d` of slits or sources, its slit width), within 2 cells: each end
    /// of a length is rounded apart (measured: at most 1 cell off, and 2 for the single slit at
    /// twice the height, whose gap's two ends both round up; allowed the measured 2, no margin).
    /// The mean of both scales, used before the axes, said 110 for the double slit's 80.
    #[test]
    fn resized_presets_quote_what_their_geometry_holds() {
        use crate::sim::wave::presets::preset;
        use crate::sim::wave::theory::Theory;
        for name in ["double-slit", "triple-slit", "grating", "grating-fine", "two-sources", "single-slit"] {
            for grid in [(1200, 480), (640, 960), (1000, 700), (320, 240)] {
                let scene = preset(name).unwrap().resized(grid.0, grid.1);
                let t = Theory::of(&scene).unwrap_or_else(|| panic!("{name} at {grid:?} has a theory"));
                let (said, holds) = match t.slit_width {
                    Some(a) if name == "single-slit" => (quoted(&scene.description, " cells wide"), a),
                    _ => (quoted(&scene.description, " cells apart"), t.d),
                };
                assert!(
                    (said - holds).abs() <= 2.0,
                    "{name} at {grid:?}: says {said}, holds {holds}: {}",
                    scene.description
                );
            }
        }
    }
}
