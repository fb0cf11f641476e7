//! The exterior distance estimate of the Mandelbrot set and the direction of its slope: what
//! distance colouring and slope lighting need ([`crate::sim::colour::palette`]).
//!
//! Beside the orbit `z_{k+1} = z_k^2 + c` (the seed's rule, unchanged: the counts are
//! [`crate::sim::fractal::mandelbrot`]'s bit for bit) runs its derivative with respect to `c`,
//! `dz_{k+1} = 2 z_k dz_k + 1`, `dz_0 = 0`. At the smooth value's radius (the escape, then up
//! to [`SMOOTH_EXTRA_ITERS`] more iterations until `|z|^2 >= SMOOTH_RADIUS_SQ`, as
//! [`crate::sim::fractal::mandelbrot::smooth_value`]) the estimate is
//!
//! `d = |z| ln|z| / |dz|`,
//!
//! half the classic bound `b = 2 |z| ln|z| / |dz|` (Milnor, Fisher; the true distance lies in
//! `[b/4, b]` by Koebe's theorem), so `d` is the distance to the boundary within a factor of 2
//! either way. It is also `G / |∇G|` for the Green's function `G = ln|z_n| / 2^n`, and since the
//! smooth value is `ν = -log2 G + const`, `d = 1 / (ln 2 · |∇ν|)`: a finite difference of smooth
//! values measures it independently (`tests/kernels/distance.rs`).
//!
//! Julia sets ([`crate::sim::fractal::julia`]: `z_0` the pixel, `c` fixed) take the same
//! estimate with the derivative with respect to the starting point, `dz_{k+1} = 2 z_k dz_k`,
//! `dz_0 = 1` ([`julia_distance_row`]): `G = ln|z_n| / 2^n` is then the Green's function of the
//! filled Julia set and the same `d = G / |∇G|` holds, in units of `z`.
//!
//! Per pixel [`DE_VALUES`] numbers: `d` in pixels (`d / px`), and the unit vector `u = z/dz /
//! |z/dz|`, the direction in which the potential rises fastest: the "normal" of slope lighting
//! (Kalles Fraktaler's and fractalshades' slope colouring). A pixel that never escaped gets
//! `[0, 0, 0]`; a derivative that overflowed gives distance 0 (the pixel is on the boundary at
//! this resolution).

use crate::sim::fractal::julia::JuliaParams;
use crate::sim::fractal::mandelbrot::{
    MandelbrotParams, Precision, SMOOTH_EXTRA_ITERS, SMOOTH_RADIUS_SQ, iterations_executed, smooth_value,
};

/// Numbers per pixel of a distance buffer: distance in pixels, then the normal's `x` and `y`.
pub const DE_VALUES: usize = 3;

/// The distance (in units of `c`) and normal of an orbit at `z` with derivative `dz` (both
/// taken to the smooth value's radius), in `f64`: `[|z| ln|z| / |dz|, ux, uy]`. The GPU
/// kernels compute the same formula (CUDA in `f64`, wgpu in `f32`).
#[inline]
#[must_use]
pub fn distance_and_normal(zr: f64, zi: f64, dr: f64, di: f64) -> [f64; 3] {
    let mag = zr.hypot(zi);
    let dmag = dr.hypot(di);
    let d = mag * mag.ln() / dmag;
    // z / dz = z conj(dz) / |dz|^2: only its direction is kept.
    let (ur, ui) = (zr * dr + zi * di, zi * dr - zr * di);
    let norm = ur.hypot(ui);
    let (ur, ui) = if norm > 0.0 && norm.is_finite() { (ur / norm, ui / norm) } else { (0.0, 0.0) };
    [if d.is_finite() { d } else { 0.0 }, ur, ui]
}

macro_rules! escape_distance {
    ($name:ident, $julia:ident, $orbit:ident, $t:ty) => {
        /// The orbit of `z^2 + c` from `z_0` with its derivative from `dz_0`, the derivative's
        /// step `dz' = 2 z dz + add` (`add` = 1 for `dz/dc`, 0 for `dz/dz_0`), every operation
        /// in the rule's order: the count, the smooth value and `[distance, ux, uy]`.
        #[inline]
        fn $orbit(z0: ($t, $t), c: ($t, $t), d0: $t, add: $t, iters: u32) -> (u32, f32, [f64; 3]) {
            let ((mut zr, mut zi), (cr, ci)) = (z0, c);
            let (mut dr, mut di): ($t, $t) = (d0, 0.0);
            let mut escaped = None;
            for k in 0..iters {
                let ndr = 2.0 * (zr * dr - zi * di) + add;
                let ndi = 2.0 * (zr * di + zi * dr);
                let nr = zr * zr - zi * zi + cr;
                let ni = zr * zi + zi * zr + ci;
                (zr, zi, dr, di) = (nr, ni, ndr, ndi);
                if zr * zr + zi * zi >= 4.0 {
                    escaped = Some(k);
                    break;
                }
            }
            let Some(k) = escaped else {
                return (iters, iters as f32, [0.0; 3]);
            };
            let mut n = k + 1;
            let mut mag2 = zr * zr + zi * zi;
            for _ in 0..SMOOTH_EXTRA_ITERS {
                if mag2 >= SMOOTH_RADIUS_SQ as $t {
                    break;
                }
                let ndr = 2.0 * (zr * dr - zi * di) + add;
                let ndi = 2.0 * (zr * di + zi * dr);
                let nr = zr * zr - zi * zi + cr;
                let ni = zr * zi + zi * zr + ci;
                (zr, zi, dr, di) = (nr, ni, ndr, ndi);
                mag2 = zr * zr + zi * zi;
                n += 1;
            }
            let de = distance_and_normal(f64::from(zr), f64::from(zi), f64::from(dr), f64::from(di));
            (k, smooth_value(n, f64::from(mag2), iters), de)
        }

        /// The count of the Mandelbrot orbit of `c` (the seed's rule), its smooth value and
        /// `[distance in units of c, ux, uy]` ([`distance_and_normal`]), with the orbit and its
        /// derivative `dz/dc` (`dz_0 = 0`, `dz' = 2 z dz + 1`) in this precision.
        #[inline]
        #[must_use]
        pub fn $name(cr: $t, ci: $t, iters: u32) -> (u32, f32, [f64; 3]) {
            $orbit((0.0, 0.0), (cr, ci), 0.0, 1.0, iters)
        }

        /// The count of the Julia orbit of `z_0 = (zr, zi)` for the fixed `c` (exactly
        /// [`crate::sim::fractal::julia::julia_point`]'s), its smooth value and `[distance in
        /// units of z, ux, uy]`, with the derivative `dz/dz_0` (`dz_0 = 1`, `dz' = 2 z dz`).
        #[inline]
        #[must_use]
        pub fn $julia(zr: $t, zi: $t, cr: $t, ci: $t, iters: u32) -> (u32, f32, [f64; 3]) {
            $orbit((zr, zi), (cr, ci), 1.0, 0.0, iters)
        }
    };
}

escape_distance!(escape_distance_f64, julia_escape_distance_f64, orbit_distance_f64, f64);
escape_distance!(escape_distance_f32, julia_escape_distance_f32, orbit_distance_f32, f32);

/// Row `y` of the image: counts (exactly [`crate::sim::fractal::mandelbrot::mandelbrot_row`]'s),
/// smooth values and [`DE_VALUES`] numbers a pixel (distance in pixels of width `px`, normal)
/// into `de` (`DE_VALUES * width`); returns the iterations executed by the rule. The CPU twin of
/// `julia_de_*` in `kernels/julia.cu` and `shaders/julia_de.wgsl`.
pub fn distance_row(p: &MandelbrotParams, y: usize, row: &mut [i32], smooth: &mut [f32], de: &mut [f32]) -> u64 {
    let (px, py) = p.pixel_size();
    let b = &p.bounds;
    let ci = b.miny + y as f64 * py;
    let mut total = 0u64;
    for (x, ((out, s), d)) in row.iter_mut().zip(smooth.iter_mut()).zip(de.chunks_exact_mut(DE_VALUES)).enumerate() {
        let cr = b.minx + x as f64 * px;
        let (count, nu, [dist, ur, ui]) = match p.precision {
            Precision::F64 => escape_distance_f64(cr, ci, p.iters),
            Precision::F32 => escape_distance_f32(cr as f32, ci as f32, p.iters),
        };
        total += iterations_executed(count, p.iters);
        *out = count as i32;
        *s = nu;
        d.copy_from_slice(&[(dist / px) as f32, ur as f32, ui as f32]);
    }
    total
}

/// The single-thread reference: counts, smooth values and distances of the whole image, and
/// the iterations executed.
#[must_use]
pub fn reference(p: &MandelbrotParams) -> (Vec<i32>, Vec<f32>, Vec<f32>, u64) {
    let n = p.pixels();
    let (mut counts, mut smooth, mut de) = (vec![0; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
    let mut total = 0;
    let rows = counts.chunks_exact_mut(p.width).zip(smooth.chunks_exact_mut(p.width));
    for (y, ((c, s), d)) in rows.zip(de.chunks_exact_mut(p.width * DE_VALUES)).enumerate() {
        total += distance_row(p, y, c, s, d);
    }
    (counts, smooth, de, total)
}

/// Row `y` of the Julia image `p`: counts (exactly [`crate::sim::fractal::julia::julia_row`]'s),
/// smooth values and [`DE_VALUES`] numbers a pixel into `de` (the distance in pixels of width
/// `px`, the normal), with the derivative with respect to the starting point; returns the
/// iterations executed. The CPU twin of `julia_de_*` (`mandel = 0`) in `kernels/julia.cu` and
/// `shaders/julia_de.wgsl`.
pub fn julia_distance_row(p: &JuliaParams, y: usize, row: &mut [i32], smooth: &mut [f32], de: &mut [f32]) -> u64 {
    let (px, py) = p.grid().pixel_size();
    let b = &p.bounds;
    let zi = b.miny + y as f64 * py;
    let [cr, ci] = p.c;
    let mut total = 0u64;
    for (x, ((out, s), d)) in row.iter_mut().zip(smooth.iter_mut()).zip(de.chunks_exact_mut(DE_VALUES)).enumerate() {
        let zr = b.minx + x as f64 * px;
        let (count, nu, [dist, ur, ui]) = match p.precision {
            Precision::F64 => julia_escape_distance_f64(zr, zi, cr, ci, p.iters),
            Precision::F32 => julia_escape_distance_f32(zr as f32, zi as f32, cr as f32, ci as f32, p.iters),
        };
        total += iterations_executed(count, p.iters);
        *out = count as i32;
        *s = nu;
        d.copy_from_slice(&[(dist / px) as f32, ur as f32, ui as f32]);
    }
    total
}

/// The single-thread reference of a Julia image: counts, smooth values, distances and the
/// iterations executed.
#[must_use]
pub fn julia_reference(p: &JuliaParams) -> (Vec<i32>, Vec<f32>, Vec<f32>, u64) {
    let n = p.pixels();
    let (mut counts, mut smooth, mut de) = (vec![0; n], vec![0.0; n], vec![0.0; n * DE_VALUES]);
    let mut total = 0;
    let rows = counts.chunks_exact_mut(p.width).zip(smooth.chunks_exact_mut(p.width));
    for (y, ((c, s), d)) in rows.zip(de.chunks_exact_mut(p.width * DE_VALUES)).enumerate() {
        total += julia_distance_row(p, y, c, s, d);
    }
    (counts, smooth, de, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fractal::mandelbrot::{escape_smooth_f32, escape_smooth_f64};

    #[test]
    fn counts_and_smooth_values_are_the_rules() {
        for (cr, ci) in [(0.3, 0.5), (-0.75, 0.1), (-2.0, 0.0), (0.26, 0.0), (-0.1, 0.9), (2.5, 1.0)] {
            let (k, nu, _) = escape_distance_f64(cr, ci, 500);
            assert_eq!((k, nu), escape_smooth_f64(0.0, 0.0, cr, ci, 500), "c = {cr} + {ci}i");
            let (k, nu, _) = escape_distance_f32(cr as f32, ci as f32, 500);
            assert_eq!((k, nu), escape_smooth_f32(0.0, 0.0, cr as f32, ci as f32, 500), "c = {cr} + {ci}i (f32)");
        }
    }

    #[test]
    fn far_from_the_set_the_estimate_is_the_distance_to_a_disc() {
        // For large |c| the set looks like a point at 0 from far away: z_n ≈ c^(2^(n-1)),
        // dz_n ≈ 2^(n-1) c^(2^(n-1) - 1), so |z| ln|z| / |dz| = |c| ln|c|: the estimate at
        // c = 100 is 100 ln 100 = 460.5 (analytic; the +c terms perturb it by about 1/|c|).
        let (_, _, [d, ur, ui]) = escape_distance_f64(100.0, 0.0, 50);
        let want = 100.0 * 100f64.ln();
        assert!((d - want).abs() < 0.02 * want, "distance {d}, analytic {want}");
        // The potential rises away from the set: the normal points outwards, along +x here.
        assert!(ur > 0.999 && ui.abs() < 1e-3, "normal ({ur}, {ui})");
        let (_, _, de) = escape_distance_f64(0.0, 0.0, 50);
        assert_eq!(de, [0.0; 3], "a point inside has no distance");
    }
}
