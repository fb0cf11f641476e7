//! Where the tiles of the blocked scene kernel lie along one axis of the grid
//! (`shaders/wave_scene_blocked.wgsl`: `tile_first`, `tile_end`; its host's tile sorting in
//! `wave_scene_blocked.rs`).
//!
//! A tile outputs `out` cells of an axis (48) and computes a halo around them. The tiles start
//! `out` apart from both ends of the axis, and the one in the middle ([`short_tile`]) outputs
//! what is left. A matched layer's far side then lies in the last tile alone, as its near side
//! lies in the first: with the short tile last (until stop 37), a 4096-cell side's far layer
//! reached two tiles and a 4096² scene had 507 layer tiles instead of 340 (the layer scene 59.6
//! -> 52.8 µs an update on the H100, docs/PERFORMANCE.md, stop 37). The plain blocked kernels keep
//! their tiles from the near end, and so do CUDA's scene kernels (`kernels/wave_scene.cu`): this layout
//! made CUDA's layer scene faster (39.5 -> 36.8 µs) and its Mur scenes slower (18.5 -> 21.1 at
//! 4096², 63.3 -> 72.8 at 8192²) with the same tile kinds and no spilled register, a cause not
//! found; it was reverted there.

/// Tiles along an axis of `n` cells.
#[must_use]
pub fn count(n: usize, out: usize) -> usize {
    n.div_ceil(out)
}

/// The tile that outputs fewer than `out` cells (where `n` is not a multiple): the middle one,
/// at least tile 1.
#[must_use]
pub fn short_tile(n: usize, out: usize) -> usize {
    (count(n, out) / 2).max(1)
}

/// The first cell tile `t` outputs.
#[must_use]
pub fn origin(t: usize, n: usize, out: usize) -> usize {
    if t > short_tile(n, out) { t * out - (count(n, out) * out - n) } else { t * out }
}

/// One past the last cell tile `t` outputs (`tile_end` in the shader; the host needs only the
/// tiles' regions).
#[cfg(test)]
#[must_use]
pub fn out_end(t: usize, n: usize, out: usize) -> usize {
    let cut = if t == short_tile(n, out) { count(n, out) * out - n } else { 0 };
    n.min(origin(t, n, out) + out - cut)
}

/// The tiles whose region `origin - halo .. origin - halo + size` meets the cells `lo..=hi`: a
/// run of consecutive tiles (empty where none).
#[must_use]
pub fn touching(lo: usize, hi: usize, n: usize, out: usize, halo: usize, size: usize) -> std::ops::Range<usize> {
    let meets = |t: usize| origin(t, n, out) <= hi + halo && lo + halo < origin(t, n, out) + size;
    let tiles = count(n, out);
    // Tiles after the short one start up to `out - 1` cells early: look two tiles further.
    let first = (lo.saturating_sub(size) / out).min(tiles);
    let last = ((hi + halo) / out + 2).min(tiles);
    match ((first..last).find(|&t| meets(t)), (first..last).rev().find(|&t| meets(t))) {
        (Some(a), Some(b)) => a..b + 1,
        _ => 0..0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The output blocks of an axis' tiles cover it once, in order, each at most `out` cells:
    /// all but the middle one (tile 1 at least) exactly `out`, so the last is whole where it is
    /// not the middle one.
    #[test]
    fn output_blocks_cover_every_axis_once() {
        for n in (1..400).chain([2048, 4096, 4097, 8192]) {
            let tiles = count(n, 48);
            let mut next = 0;
            for t in 0..tiles {
                assert_eq!(origin(t, n, 48), next, "tile {t} of {n}");
                let width = out_end(t, n, 48) - origin(t, n, 48);
                assert!((1..=48).contains(&width), "tile {t} of {n}: {width} cells");
                if t != short_tile(n, 48) && t + 1 < tiles {
                    assert_eq!(width, 48, "tile {t} of {n}");
                }
                next = out_end(t, n, 48);
            }
            assert_eq!(next, n, "{n} cells");
            if tiles > 2 {
                assert_eq!(origin(tiles - 1, n, 48), n - 48, "{n}: the last tile is whole");
            }
        }
    }

    /// `touching` lists exactly the tiles whose 64-cell region meets the range.
    #[test]
    fn touching_finds_every_tile_whose_region_meets_the_cells() {
        for n in [37, 49, 97, 145, 300, 1000] {
            for lo in 0..n {
                for hi in [lo, (lo + 7).min(n - 1)] {
                    let want: Vec<usize> = (0..count(n, 48))
                        .filter(|&t| origin(t, n, 48) <= hi + 8 && lo + 8 < origin(t, n, 48) + 64)
                        .collect();
                    let got: Vec<usize> = touching(lo, hi, n, 48, 8, 64).collect();
                    assert_eq!(got, want, "cells {lo}..={hi} of {n}");
                }
            }
        }
    }
}
