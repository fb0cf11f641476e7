//! The colour of the points that never escape (the set itself), when the user chose none.
//!
//! For `hot` it is its last entry, white, as the seed draws the set. For every other palette it
//! is, of black, white and mid grey, the one farthest from both ends of the palette's table, so
//! the set stands apart from the far exterior (the low counts, one end) and from the pixels at
//! its edge (the high counts, the other end): twilight's two ends are both pale, so its set is
//! black; viridis' is white, magma's grey. Seen before: twilight's set in its own pale end, the
//! minibrots gone from the picture.

/// The set's colour for a palette whose table is `lut` when the user chose none: `hot`'s last
/// entry where `hot` (`seed_white`), else of black, white and mid grey the one farthest from
/// both ends of the table.
#[must_use]
pub fn interior_rgb(lut: &[[u8; 4]], seed_white: bool) -> [u8; 3] {
    let (Some(first), Some(last)) = (lut.first(), lut.last()) else { return [255, 255, 255] };
    if seed_white {
        return [last[0], last[1], last[2]];
    }
    let d2 = |a: [u8; 3], b: &[u8; 4]| (0..3).map(|i| (i32::from(a[i]) - i32::from(b[i])).pow(2)).sum::<i32>();
    [[0, 0, 0], [255, 255, 255], [128, 128, 128]]
        .into_iter()
        .max_by_key(|&c| d2(c, first).min(d2(c, last)))
        .unwrap_or([255; 3])
}
