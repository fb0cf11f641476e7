//! matplotlib's `hot` colormap, exactly: the 256-entry table matplotlib builds from
//! its piecewise-linear segments, turned into bytes as `Colormap(.., bytes=True)` does.

use std::sync::LazyLock;

/// `(x, y0, y1)` segments of matplotlib's `_hot_data`, per channel.
const HOT_RED: &[(f64, f64, f64)] = &[(0.0, 0.0416, 0.0416), (0.365_079, 1.0, 1.0), (1.0, 1.0, 1.0)];
const HOT_GREEN: &[(f64, f64, f64)] = &[(0.0, 0.0, 0.0), (0.365_079, 0.0, 0.0), (0.746_032, 1.0, 1.0), (1.0, 1.0, 1.0)];
const HOT_BLUE: &[(f64, f64, f64)] = &[(0.0, 0.0, 0.0), (0.746_032, 0.0, 0.0), (1.0, 1.0, 1.0)];

/// Number of entries in the table (matplotlib's default `N`).
pub const LUT_SIZE: usize = 256;

/// matplotlib's `_create_lookup_table(N, data)` for one channel, as `f64` in `[0, 1]`.
fn channel_lut(data: &[(f64, f64, f64)]) -> [f64; LUT_SIZE] {
    let n = LUT_SIZE;
    let scale = (n - 1) as f64;
    let mut lut = [0.0; LUT_SIZE];
    lut[0] = data[0].2;
    lut[n - 1] = data[data.len() - 1].1;
    for (k, slot) in lut.iter_mut().enumerate().take(n - 1).skip(1) {
        // xind = (N-1) * linspace(0, 1, N); ind = searchsorted(x * (N-1), xind) (left side).
        let xind = scale * (k as f64 / scale);
        let ind = data.iter().position(|s| s.0 * scale >= xind).unwrap_or(data.len() - 1);
        let (x0, x1) = (data[ind - 1].0 * scale, data[ind].0 * scale);
        let distance = (xind - x0) / (x1 - x0);
        *slot = distance * (data[ind].1 - data[ind - 1].2) + data[ind - 1].2;
    }
    lut.map(|v| v.clamp(0.0, 1.0))
}

/// The `hot` table as RGBA bytes (`(v * 255) as u8`, alpha 255).
pub static HOT_LUT: LazyLock<[[u8; 4]; LUT_SIZE]> = LazyLock::new(|| {
    let (r, g, b) = (channel_lut(HOT_RED), channel_lut(HOT_GREEN), channel_lut(HOT_BLUE));
    let mut lut = [[0u8; 4]; LUT_SIZE];
    for (k, px) in lut.iter_mut().enumerate() {
        *px = [(r[k] * 255.0) as u8, (g[k] * 255.0) as u8, (b[k] * 255.0) as u8, 255];
    }
    lut
});

/// Table index of `value` between `vmin` and `vmax`: `floor(t * 256)` clipped to `0..=255`,
/// `t = (v - vmin)/(vmax - vmin)` in `f64`. NaN maps to 0.
#[inline]
#[must_use]
pub fn lut_index(value: f64, vmin: f64, vmax: f64) -> usize {
    let t = (value - vmin) / (vmax - vmin);
    let x = (t * LUT_SIZE as f64).floor();
    if x.is_nan() || x < 0.0 { 0 } else { (x as usize).min(LUT_SIZE - 1) }
}

/// The `hot` colour of `value` between `vmin` and `vmax`.
#[inline]
#[must_use]
pub fn hot(value: f64, vmin: f64, vmax: f64) -> [u8; 4] {
    HOT_LUT[lut_index(value, vmin, vmax)]
}

/// The wave field as an RGBA image in the seed's orientation (`imshow(f.T, origin='lower')`):
/// width `nx` with `i` to the right, height `ny` with `j` upwards. `rgba` is `nx*ny*4` bytes.
pub fn wave_rgba(field: &[f32], nx: usize, ny: usize, vmin: f32, vmax: f32, rgba: &mut [u8]) {
    use rayon::prelude::*;
    rgba.par_chunks_exact_mut(nx * 4).enumerate().for_each(|(row, out)| wave_rgba_row(field, ny, vmin, vmax, row, out));
}

/// Picture row `row` (`nx*4` bytes) of [`wave_rgba`]: the cells `f[i][ny - 1 - row]`.
pub fn wave_rgba_row(field: &[f32], ny: usize, vmin: f32, vmax: f32, row: usize, out: &mut [u8]) {
    let (vmin, vmax) = (f64::from(vmin), f64::from(vmax));
    let j = ny - 1 - row;
    for (i, px) in out.chunks_exact_mut(4).enumerate() {
        px.copy_from_slice(&hot(f64::from(field[i * ny + j]), vmin, vmax));
    }
}

/// The size of a picture that takes every `stride`-th cell of an `nx x ny` field:
/// `(nx.div_ceil(stride), ny.div_ceil(stride))` (`stride` 0 counts as 1).
#[must_use]
pub fn strided_size(nx: usize, ny: usize, stride: usize) -> (usize, usize) {
    let s = stride.max(1);
    (nx.div_ceil(s), ny.div_ceil(s))
}

/// Every `stride`-th pixel of an RGBA image `src_w` wide, from its top-left pixel, into `dst`
/// (`w x h`, see [`strided_size`]): how a picture larger than the display is shown.
pub fn subsample(src: &[u8], src_w: usize, stride: usize, w: usize, h: usize, dst: &mut [u8]) {
    for y in 0..h {
        for x in 0..w {
            let s = ((y * stride) * src_w + x * stride) * 4;
            let d = (y * w + x) * 4;
            dst[d..d + 4].copy_from_slice(&src[s..s + 4]);
        }
    }
}

/// Picture row `row` (`w*4` bytes, `w` from [`strided_size`]) of [`wave_rgba`] taken every
/// `stride`-th pixel, exactly [`subsample`] of the full picture: the cells
/// `f[x * stride][ny - 1 - row * stride]` for `x` in `0..w`. Only those cells are read.
pub fn wave_rgba_strided_row(
    field: &[f32],
    ny: usize,
    vmin: f32,
    vmax: f32,
    stride: usize,
    row: usize,
    out: &mut [u8],
) {
    let (vmin, vmax) = (f64::from(vmin), f64::from(vmax));
    let stride = stride.max(1);
    let j = ny - 1 - row * stride;
    for (x, px) in out.chunks_exact_mut(4).enumerate() {
        px.copy_from_slice(&hot(f64::from(field[x * stride * ny + j]), vmin, vmax));
    }
}

/// [`wave_rgba`] taken every `stride`-th pixel (`rgba` holds `w*h*4` bytes, [`strided_size`]),
/// colouring only the cells shown: equal to [`subsample`] of the full picture, bit for bit.
pub fn wave_rgba_strided(field: &[f32], nx: usize, ny: usize, vmin: f32, vmax: f32, stride: usize, rgba: &mut [u8]) {
    use rayon::prelude::*;
    let (w, _) = strided_size(nx, ny, stride);
    rgba.par_chunks_exact_mut(w * 4)
        .enumerate()
        .for_each(|(row, out)| wave_rgba_strided_row(field, ny, vmin, vmax, stride, row, out));
}

/// Mandelbrot counts as an RGBA image with the imaginary axis upwards (row 0 of the counts,
/// at `miny`, becomes the bottom row); counts map onto `hot` over `[0, iters]`.
pub fn mandelbrot_rgba(counts: &[i32], width: usize, height: usize, iters: u32, rgba: &mut [u8]) {
    use rayon::prelude::*;
    let vmax = f64::from(iters.max(1));
    rgba.par_chunks_exact_mut(width * 4).enumerate().for_each(|(row, out)| {
        let src = &counts[(height - 1 - row) * width..(height - row) * width];
        for (px, &c) in out.chunks_exact_mut(4).zip(src) {
            px.copy_from_slice(&hot(f64::from(c), 0.0, vmax));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_at_its_ends_and_breakpoints() {
        let lut = &*HOT_LUT;
        // Entry 0: red 0.0416 * 255 = 10.6 -> 10; black otherwise.
        assert_eq!(lut[0], [10, 0, 0, 255]);
        assert_eq!(lut[255], [255, 255, 255, 255]);
        // Red saturates at x = 0.365079 (k = 93.1), green starts rising after it.
        assert_eq!(lut[94][0], 255);
        assert!(lut[93][0] < 255);
        assert_eq!(lut[93][1], 0);
        assert!(lut[94][1] > 0);
        // Green saturates at x = 0.746032 (k = 190.2), blue rises after it.
        assert_eq!(lut[191][1], 255);
        assert_eq!(lut[190][2], 0);
        assert!(lut[191][2] > 0);
        // Monotone in every channel.
        for (k, pair) in lut.windows(2).enumerate() {
            for (c, (hi, lo)) in pair[1].iter().zip(&pair[0]).take(3).enumerate() {
                assert!(hi >= lo, "channel {c} at {}", k + 1);
            }
        }
    }

    #[test]
    fn index_is_floor_of_t_times_256_clipped() {
        assert_eq!(lut_index(-0.1, -0.1, 0.1), 0);
        assert_eq!(lut_index(0.1, -0.1, 0.1), 255);
        assert_eq!(lut_index(5.0, -0.1, 0.1), 255);
        assert_eq!(lut_index(-5.0, -0.1, 0.1), 0);
        assert_eq!(lut_index(f64::NAN, -0.1, 0.1), 0);
        assert_eq!(lut_index(0.5, 0.0, 1.0), 128);
    }

    #[test]
    fn the_strided_picture_is_the_full_one_subsampled() {
        for (nx, ny, stride) in [(7, 5, 2), (9, 10, 3), (4, 4, 1), (5, 13, 4), (1, 3, 2)] {
            let field: Vec<f32> = (0..nx * ny).map(|k| ((k * 37 % 23) as f32 - 11.0) * 0.01).collect();
            let mut full = vec![0u8; nx * ny * 4];
            wave_rgba(&field, nx, ny, -0.1, 0.1, &mut full);
            let (w, h) = strided_size(nx, ny, stride);
            let mut want = vec![0u8; w * h * 4];
            subsample(&full, nx, stride, w, h, &mut want);
            let mut got = vec![1u8; w * h * 4];
            wave_rgba_strided(&field, nx, ny, -0.1, 0.1, stride, &mut got);
            assert_eq!(got, want, "{nx}x{ny} every {stride}");
        }
    }

    #[test]
    fn wave_picture_has_j_upwards() {
        // nx = 2, ny = 3: f[i][j]; the top row of the picture is j = 2.
        let field = [0.0, 0.0, 1.0, -1.0, 0.0, 0.0];
        let mut rgba = vec![0u8; 2 * 3 * 4];
        wave_rgba(&field, 2, 3, -0.1, 0.1, &mut rgba);
        assert_eq!(&rgba[0..4], &HOT_LUT[255]); // (i=0, j=2) top-left
        assert_eq!(&rgba[2 * 2 * 4 + 4..2 * 2 * 4 + 8], &HOT_LUT[0]); // (i=1, j=0) bottom-right
    }
}
