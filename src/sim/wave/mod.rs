//! The 2D wave equation exactly as the seed's `wave2d` computes it.
//!
//! Two `f32` fields `f` and `g` of shape `(nx, ny)`, row-major (`f[i*ny + j]`),
//! zero at start. Each time step `tstep` in `1..=tmax`:
//! `g[src] = sin(freq * tstep)`, then `update(f, g)`, then `update(g, f)`.
//! `update(f, g)` sets every interior cell to
//! `c2*(g[i-1][j] + g[i+1][j] + g[i][j-1] + g[i][j+1] - 4*g[i][j]) + 2*g[i][j] - f[i][j]`
//! in `f32`, evaluated in numpy's order; the border stays 0.
//!
//! Its rooms: `scene` (the scene model and files), `scene_cells` (the scene rasterised and its
//! per-cell rule), `pml` (the perfectly matched layer of the `absorbing` edge), `analysis` (what the lab measures), `theory` (what `d·sin θ = m·λ` predicts),
//! `screen` (the intensity along a column and the far-field `I(θ)` theory draws there), `units`
//! (cells and steps read in a medium's centimetres and hertz), `barrier` (a barrier's slits read and
//! rebuilt with another width, spacing or count).

pub mod analysis;
pub mod barrier;
pub mod description;
pub mod pml;
pub mod presets;
pub mod scene;
pub mod scene_cells;
pub mod scene_file;
pub mod scene_items;
pub mod screen;
pub mod sources;
pub mod theory;
pub mod units;

use serde::{Deserialize, Serialize};

use crate::sim::ParamsError;

/// `(a*dt/dx)^2` of the seed program.
pub const DEFAULT_C2: f32 = 0.25;
/// The seed's source frequency.
pub const DEFAULT_FREQ: f64 = 0.1;
/// The seed's number of time steps.
pub const DEFAULT_TMAX: u32 = 500;
/// Bytes moved per cell update at the DRAM floor: read `g` and `f`, write `f` (3 x f32).
pub const BYTES_PER_CELL_UPDATE: u64 = 12;

/// Everything that defines a wave problem.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaveParams {
    /// Cells along `i` (the slow, row index; drawn left to right).
    pub nx: usize,
    /// Cells along `j` (the fast index; drawn bottom to top).
    pub ny: usize,
    /// Source angular frequency per time step; `sin(freq * tstep)` in `f64`, stored as `f32`.
    pub freq: f64,
    /// The Courant number squared.
    pub c2: f32,
    /// The source cell `(i, j)`; the seed's is `(nx/2, ny/2)`.
    pub source: (usize, usize),
}

impl WaveParams {
    /// The seed's problem of `nx x ny` cells with the source in the middle.
    #[must_use]
    pub fn new(nx: usize, ny: usize, freq: f64) -> Self {
        Self { nx, ny, freq, c2: DEFAULT_C2, source: (nx / 2, ny / 2) }
    }

    /// Number of cells in one field.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.nx * self.ny
    }

    /// Bytes of the two fields `f` and `g`.
    #[must_use]
    pub fn field_bytes(&self) -> u64 {
        2 * 4 * self.cells() as u64
    }

    /// Flat index of the source cell.
    #[must_use]
    pub fn source_index(&self) -> usize {
        self.source.0 * self.ny + self.source.1
    }

    /// The same problem with the source at `(i, j)`.
    ///
    /// # Errors
    /// A source outside the grid.
    pub fn with_source(&self, i: usize, j: usize) -> Result<Self, ParamsError> {
        let p = Self { source: (i, j), ..*self };
        p.validate()?;
        Ok(p)
    }

    /// Checks the sizes and values; the message names the bad value.
    ///
    /// # Errors
    /// A grid under 3 cells a side, a cell count that overflows, a non-finite or
    /// non-positive frequency, or a source outside the grid.
    pub fn validate(&self) -> Result<(), ParamsError> {
        if self.nx < 3 || self.ny < 3 {
            return Err(ParamsError::Size(format!(
                "grid {}x{} is too small: each side needs at least 3 cells",
                self.nx, self.ny
            )));
        }
        if self.nx.checked_mul(self.ny).and_then(|c| c.checked_mul(8)).is_none() {
            return Err(ParamsError::Size(format!("grid {}x{} is too large to address", self.nx, self.ny)));
        }
        if !(self.freq.is_finite() && self.freq > 0.0) {
            return Err(ParamsError::Value(format!("frequency {} must be a finite number > 0", self.freq)));
        }
        if !(self.c2.is_finite() && self.c2 > 0.0 && self.c2 <= 0.5) {
            return Err(ParamsError::Value(format!("c2 {} must be in (0, 0.5] for a stable scheme", self.c2)));
        }
        if self.source.0 >= self.nx || self.source.1 >= self.ny {
            return Err(ParamsError::Source(format!(
                "source {:?} is outside the {}x{} grid",
                self.source, self.nx, self.ny
            )));
        }
        Ok(())
    }
}

/// The source value at time step `tstep`: `sin(freq * tstep)` in `f64`, rounded to
/// `f32` as numpy stores it into an `f4` array. GPU backends upload these values
/// rather than computing `sin` in single precision.
#[must_use]
pub fn source_value(freq: f64, tstep: u32) -> f32 {
    (freq * f64::from(tstep)).sin() as f32
}

/// One cell of `update`, in numpy's evaluation order (no fused multiply-add).
///
/// `up`/`down` are `g[i-1][j]`/`g[i+1][j]`, `left`/`right` are `g[i][j-1]`/`g[i][j+1]`.
#[inline(always)]
#[must_use]
pub fn update_cell(c2: f32, f: f32, g: f32, up: f32, down: f32, left: f32, right: f32) -> f32 {
    c2 * (up + down + left + right - 4.0 * g) + 2.0 * g - f
}

/// `update(f, g)` for interior rows `rows` of `f` (each `ny` long), reading `g`.
///
/// `f_rows` holds rows `first_row..first_row + f_rows.len()/ny` of `f`. This is the
/// one row kernel both CPU paths use, so they give the same bits.
pub fn update_rows(c2: f32, ny: usize, nx: usize, first_row: usize, f_rows: &mut [f32], g: &[f32]) {
    for (k, f_row) in f_rows.chunks_exact_mut(ny).enumerate() {
        let i = first_row + k;
        if i == 0 || i + 1 >= nx {
            continue;
        }
        update_row(c2, f_row, &g[(i - 1) * ny..i * ny], &g[i * ny..(i + 1) * ny], &g[(i + 1) * ny..(i + 2) * ny]);
    }
}

/// `update` of one interior row: `f_row` is row `i` of `f`, the others rows `i-1`, `i`, `i+1` of `g`.
///
/// Compiled for AVX-512, AVX2 and SSE4.1 and picked at run time (the binary still runs on
/// any x86-64). Vector lanes do the same IEEE operations in the same order, so every
/// version gives the same bits.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl", "x86_64+avx2+avx", "x86_64+sse4.1"))]
pub fn update_row(c2: f32, f_row: &mut [f32], g_up: &[f32], g_mid: &[f32], g_down: &[f32]) {
    let ny = f_row.len();
    let n = ny - 2;
    // Slices of equal length let the compiler drop bounds checks and vectorise.
    let f = &mut f_row[1..=n];
    let (up, down) = (&g_up[1..=n], &g_down[1..=n]);
    let (left, mid, right) = (&g_mid[..n], &g_mid[1..=n], &g_mid[2..n + 2]);
    for j in 0..n {
        f[j] = update_cell(c2, f[j], mid[j], up[j], down[j], left[j], right[j]);
    }
}

/// The scalar reference: the whole seed loop from `tstep_from + 1` to `tstep_to`,
/// one thread, written as plainly as the seed's C program.
pub fn reference_run(p: &WaveParams, f: &mut [f32], g: &mut [f32], tstep_from: u32, tstep_to: u32) {
    let (nx, ny) = (p.nx, p.ny);
    let src = p.source_index();
    for tstep in tstep_from + 1..=tstep_to {
        g[src] = source_value(p.freq, tstep);
        update_rows(p.c2, ny, nx, 0, f, g);
        update_rows(p.c2, ny, nx, 0, g, f);
    }
}

/// Runs the seed problem from zero for `tmax` steps and returns `f`.
#[must_use]
pub fn reference(p: &WaveParams, tmax: u32) -> Vec<f32> {
    let mut f = vec![0.0f32; p.cells()];
    let mut g = vec![0.0f32; p.cells()];
    reference_run(p, &mut f, &mut g, 0, tmax);
    f
}

/// Largest absolute difference between two fields (NaN counts as infinite).
#[must_use]
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let d = (x - y).abs();
            if d.is_nan() { f32::INFINITY } else { d }
        })
        .fold(0.0, f32::max)
}

/// The seed's tolerance against its numpy program (`assert_array_almost_equal(.., 6)`).
pub const WAVE_TOLERANCE: f32 = 1.5e-6;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn border_stays_zero_and_field_is_symmetric() {
        let p = WaveParams::new(41, 41, 0.1);
        let f = reference(&p, 60);
        let (nx, ny) = (p.nx, p.ny);
        for i in 0..nx {
            assert_eq!(f[i * ny], 0.0);
            assert_eq!(f[i * ny + ny - 1], 0.0);
        }
        for j in 0..ny {
            assert_eq!(f[j], 0.0);
            assert_eq!(f[(nx - 1) * ny + j], 0.0);
        }
        // A centred source on a square odd grid: mirror in i, in j and the transpose.
        // Mirroring i swaps `up` and `down`, whose sum comes first and is commutative, so
        // that symmetry is exact; the others reorder the sum and agree to rounding.
        for i in 0..nx {
            for j in 0..ny {
                let v = f[i * ny + j];
                assert_eq!(v, f[(nx - 1 - i) * ny + j], "mirror i at ({i},{j})");
                assert!((v - f[i * ny + (ny - 1 - j)]).abs() < 1e-5, "mirror j at ({i},{j})");
                assert!((v - f[j * ny + i]).abs() < 1e-5, "transpose at ({i},{j})");
            }
        }
        assert!(f.iter().any(|&v| v != 0.0), "the wave must have left the source");
    }

    #[test]
    fn wave_speed_is_bounded_by_the_stencil() {
        // After t tsteps (2t updates) nothing can be further than 2t cells from the source.
        let p = WaveParams::new(61, 61, 0.3);
        let t = 10;
        let f = reference(&p, t);
        let (si, sj) = p.source;
        for i in 0..p.nx {
            for j in 0..p.ny {
                let dist = i.abs_diff(si) + j.abs_diff(sj);
                if dist > 2 * t as usize {
                    assert_eq!(f[i * p.ny + j], 0.0, "({i},{j}) is beyond the light cone");
                }
            }
        }
    }

    #[test]
    fn validate_names_bad_values() {
        assert!(WaveParams::new(2, 10, 0.1).validate().unwrap_err().to_string().contains("2x10"));
        assert!(WaveParams::new(10, 10, f64::NAN).validate().unwrap_err().to_string().contains("NaN"));
        assert!(WaveParams::new(10, 10, -1.0).validate().unwrap_err().to_string().contains("-1"));
        assert!(WaveParams::new(10, 10, 0.1).validate().is_ok());
    }

    #[test]
    fn source_value_is_rounded_f64_sin() {
        assert_eq!(source_value(0.1, 0), 0.0);
        assert_eq!(source_value(0.1, 5), 0.5f64.sin() as f32);
    }
}
