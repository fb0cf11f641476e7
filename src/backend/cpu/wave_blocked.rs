//! Temporal blocking for the multi-threaded CPU wave kernels: several time steps per trip over
//! memory, bit-identical to the one-step-at-a-time kernels.
//!
//! # The scheme (ghost zones and a wavefront)
//! A time step is two updates (`update(f, g)`, then `update(g, f)`); call each one a *level*. A
//! block of `depth` time steps is `L = 2*depth` levels. Every thread owns a band of rows. Before a
//! block, each band copies the `L` rows of `f` and `g` just above and just below it into private
//! scratch (the ghost zones); then every band runs its `L` levels with no further synchronisation,
//! computing the ghost rows too (a trapezoid: level `l` covers the band widened by `L - l` rows on
//! each side), so it never reads a row another thread is writing. Its own rows are updated in
//! place; the ghost rows are thrown away.
//!
//! Within a band the levels run as a skewed wavefront: at position `p`, level `l` updates row
//! `p - (l - 1)`, levels in increasing order. Row `i` at level `l` needs rows `i-1`, `i`, `i+1` at
//! level `l-1` (row `i+1` was done just before at the same position) and overwrites its own value
//! of level `l-2`, whose last reader (row `i+1` at level `l-1`) also came before. So only about
//! `L + 2` rows of each field are live at once, and they stay in the core's L2 cache: `f` and `g`
//! come from memory once per block instead of once per time step.
//!
//! Two rules keep the exact order of the scene rule: an absorbing-edge row 1 reads the NEW value
//! of row 2 of the same update, so it is done right after row 2 at each level (row `nx-2` reads row
//! `nx-3`, which the wavefront has already done); and the sources of step `t` are written into row
//! `i` of `g` right after row `i` of `g` got its value of step `t-1`, before anything reads it.
//! Every cell therefore sees exactly the operations of the reference, in the same order.

use std::sync::OnceLock;

use rayon::prelude::*;

/// The rows of one field that one band sees: the ghost rows above it (private), its own rows
/// (in place in the field) and the ghost rows below (private).
struct Rows<'a> {
    segs: [&'a mut [f32]; 3],
    /// The first row of each segment.
    starts: [usize; 3],
    ny: usize,
}

impl Rows<'_> {
    /// Segment and offset of row `i`.
    fn locate(&self, i: usize) -> (usize, usize) {
        let s = if i >= self.starts[2] { 2 } else { usize::from(i >= self.starts[1]) };
        (s, (i - self.starts[s]) * self.ny)
    }

    fn row(&self, i: usize) -> &[f32] {
        let (s, o) = self.locate(i);
        &self.segs[s][o..o + self.ny]
    }

    fn row_mut(&mut self, i: usize) -> &mut [f32] {
        let (s, o) = self.locate(i);
        &mut self.segs[s][o..o + self.ny]
    }

    /// Row `i` to write and another row `o` of the same field to read.
    fn row_mut_and(&mut self, i: usize, o: usize) -> (&mut [f32], &[f32]) {
        debug_assert_ne!(i, o);
        let ((si, oi), (so, oo), ny) = (self.locate(i), self.locate(o), self.ny);
        if si == so {
            let seg = &mut *self.segs[si];
            if oi < oo {
                let (a, b) = seg.split_at_mut(oo);
                (&mut a[oi..oi + ny], &b[..ny])
            } else {
                let (a, b) = seg.split_at_mut(oi);
                (&mut b[..ny], &a[oo..oo + ny])
            }
        } else {
            let [x, y] = self.segs.get_disjoint_mut([si, so]).expect("two different segments");
            (&mut x[oi..oi + ny], &y[oo..oo + ny])
        }
    }
}

/// A matched layer's auxiliary values as one band sees them (as [`Rows`]): private copies of the
/// ghost rows' values above and below, its own rows' in place. Row `i`'s values are
/// `starts[i]..starts[i + 1]` of the whole field ([`crate::sim::wave::pml::LayerFields`]).
struct AuxRows<'a> {
    segs: [&'a mut [f32]; 3],
    /// The first row of each segment.
    first: [usize; 3],
    starts: &'a [usize],
}

impl AuxRows<'_> {
    /// Row `i`'s values (empty without a layer).
    fn row_mut(&mut self, i: usize) -> &mut [f32] {
        if self.starts.is_empty() {
            return &mut [];
        }
        let s = if i >= self.first[2] { 2 } else { usize::from(i >= self.first[1]) };
        let base = self.starts[self.first[s]];
        &mut self.segs[s][self.starts[i] - base..self.starts[i + 1] - base]
    }
}

/// A matched layer's auxiliary values for [`blocked_tsteps`]: `values[starts[i]..starts[i + 1]]`
/// are row `i`'s (`starts` has `nx + 1` entries).
pub(crate) struct AuxField<'a> {
    pub starts: &'a [usize],
    pub values: &'a mut [f32],
}

/// One band's share of an [`AuxField`]: its own rows' values and copies of its ghost rows'.
struct BandAux<'a> {
    own: &'a mut [f32],
    above: Vec<f32>,
    below: Vec<f32>,
}

/// The L2 cache one thread may fill, in bytes (Linux's sysfs: cpu0's L2 divided among the
/// logical CPUs that share it, so two hyper-threads of a core do not each plan for all of it);
/// 1 MiB where it cannot be read.
fn l2_bytes() -> usize {
    static L2: OnceLock<usize> = OnceLock::new();
    *L2.get_or_init(|| {
        let dir = "/sys/devices/system/cpu/cpu0/cache/index2";
        let text = std::fs::read_to_string(format!("{dir}/size")).unwrap_or_default();
        let sharing = std::fs::read_to_string(format!("{dir}/shared_cpu_list")).map_or(1, |l| cpu_list_len(&l));
        let text = text.trim();
        let (digits, scale) = match text.as_bytes().last() {
            Some(b'K') => (&text[..text.len() - 1], 1 << 10),
            Some(b'M') => (&text[..text.len() - 1], 1 << 20),
            _ => (text, 1),
        };
        let size = digits.parse::<usize>().ok().map_or(1 << 20, |v| v * scale);
        (size / sharing.max(1)).clamp(256 << 10, 64 << 20)
    })
}

/// The number of CPUs in a sysfs CPU list such as `0`, `0,8` or `0-1,16-17` (1 where unreadable).
fn cpu_list_len(list: &str) -> usize {
    let n: usize = list
        .trim()
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 1,
            },
            None => 1,
        })
        .sum();
    n.max(1)
}

/// Time steps per block for rows of `ny` cells and bands of `band` rows: as deep as the live
/// rows (`2*depth + 3` rows of both fields) fit in 3/4 of the L2 cache (measured on a 1 MiB L2 at
/// 8192²: half gave depth 2 and 15.2 ms per update, 3/4 depth 4 and 12.6 ms), no deeper than keeps the
/// recomputed ghost rows under 1/8 of the band's work (`2*depth/band`), and 1 to 8.
#[must_use]
pub fn block_depth(ny: usize, band: usize) -> u32 {
    let row_pair = 2 * 4 * ny.max(1);
    let levels = (l2_bytes() * 3 / 4 / row_pair).saturating_sub(3);
    let depth = (levels / 2).min(band / 16).clamp(1, 8);
    depth as u32
}

/// Rows per band when the pool's threads share `nx` rows: one band per thread, each at least 4
/// rows (so the absorbing-edge rows 1 and `nx-2` have their inward neighbours in their band's
/// reach); the last band may be shorter but not under 4 rows.
#[must_use]
pub fn blocked_band_rows(nx: usize) -> usize {
    let mut band = nx.div_ceil(rayon::current_num_threads()).max(4);
    while band < nx && (1..4).contains(&(nx % band)) {
        band += 1;
    }
    band
}

/// The rules a blocked run applies, as [`super::wave::banded_tstep`] takes them.
pub(crate) struct Rules<'r, R, L, E, S> {
    /// `row(i, x_row, y_up, y_mid, y_down)`: interior row `i` of `x` from rows `i-1..=i+1` of `y`.
    pub row: &'r R,
    /// `layer(i, aux_row, x_row, y_up, y_mid, y_down)`: a matched layer's cells of row `i` (before
    /// `row`), with row `i`'s auxiliary values, or `None` for a grid without a layer.
    pub layer: Option<&'r L>,
    /// `edge(i, x_row, x_in, y_row, y_in)`: the absorbing-edge rows 1 and `nx-2` of `x` from the
    /// new row `x_in` they look at, or `None` for a grid without them.
    pub edge: Option<&'r E>,
    /// `sources(t, i, g_row)`: writes the values the sources force at step `t` into row `i` of `g`.
    pub sources: &'r S,
}

/// Time steps `first ..= first + depth - 1` of the rules on the `nx x ny` fields `f`, `g` in one
/// block: each step writes its sources into `g`, then `update(f, g)`, `update(g, f)`. Bands of
/// `band` rows run in parallel on the current rayon pool. `scratch` holds the ghost rows,
/// resized as needed. `aux`: a matched layer's auxiliary values (each band copies its ghost rows'
/// values as it copies their fields, so every row's values are updated once per level).
#[expect(clippy::too_many_arguments, reason = "the grid, its two fields, scratch, the steps and the rules")]
pub(crate) fn blocked_tsteps<R, L, E, S>(
    nx: usize,
    ny: usize,
    f: &mut [f32],
    g: &mut [f32],
    scratch: &mut Vec<f32>,
    band: usize,
    first: u32,
    depth: u32,
    rules: &Rules<'_, R, L, E, S>,
    aux: Option<AuxField<'_>>,
) where
    R: Fn(usize, &mut [f32], &[f32], &[f32], &[f32]) + Sync,
    L: Fn(usize, &mut [f32], &mut [f32], &[f32], &[f32], &[f32]) + Sync,
    E: Fn(usize, &mut [f32], &[f32], &[f32], &[f32]) + Sync,
    S: Fn(u32, usize, &mut [f32]) + Sync,
{
    assert!(depth >= 1 && band >= 1 && f.len() == nx * ny && g.len() == nx * ny);
    let levels = 2 * depth as usize;
    for (i, g_row) in g.chunks_exact_mut(ny).enumerate() {
        (rules.sources)(first, i, g_row);
    }
    // Ghost rows per band: f above, g above, f below, g below, `levels` rows each.
    let ghost = levels * ny;
    let bands = nx.div_ceil(band);
    scratch.resize(bands * 4 * ghost, 0.0);
    scratch.par_chunks_exact_mut(4 * ghost).enumerate().for_each(|(b, s)| {
        let (r0, r1) = (b * band, ((b + 1) * band).min(nx));
        let (ht, hb) = (levels.min(r0), levels.min(nx - r1));
        let (above, below) = s.split_at_mut(2 * ghost);
        let (fa, ga) = above.split_at_mut(ghost);
        let (fb, gb) = below.split_at_mut(ghost);
        fa[..ht * ny].copy_from_slice(&f[(r0 - ht) * ny..r0 * ny]);
        ga[..ht * ny].copy_from_slice(&g[(r0 - ht) * ny..r0 * ny]);
        fb[..hb * ny].copy_from_slice(&f[r1 * ny..(r1 + hb) * ny]);
        gb[..hb * ny].copy_from_slice(&g[r1 * ny..(r1 + hb) * ny]);
    });
    // The layer's values of each band: copies of the ghost rows' first, then its own in place.
    let (aux_starts, parts): (&[usize], Vec<BandAux<'_>>) = match aux {
        Some(AuxField { starts, values }) => {
            let copies: Vec<(Vec<f32>, Vec<f32>)> = (0..bands)
                .map(|b| {
                    let (r0, r1) = (b * band, ((b + 1) * band).min(nx));
                    let (ht, hb) = (levels.min(r0), levels.min(nx - r1));
                    (values[starts[r0 - ht]..starts[r0]].to_vec(), values[starts[r1]..starts[r1 + hb]].to_vec())
                })
                .collect();
            let mut rest = values;
            let mut parts = Vec::with_capacity(bands);
            for (b, (above, below)) in copies.into_iter().enumerate() {
                let (r0, r1) = (b * band, ((b + 1) * band).min(nx));
                let (own, tail) = std::mem::take(&mut rest).split_at_mut(starts[r1] - starts[r0]);
                rest = tail;
                parts.push(BandAux { own, above, below });
            }
            (starts, parts)
        }
        None => (&[], (0..bands).map(|_| BandAux { own: &mut [], above: Vec::new(), below: Vec::new() }).collect()),
    };
    let bands_f = f.par_chunks_mut(band * ny);
    let bands_g = g.par_chunks_mut(band * ny);
    let per_band = bands_f.zip(bands_g).zip(scratch.par_chunks_exact_mut(4 * ghost)).zip(parts.into_par_iter());
    per_band.enumerate().for_each(|(b, (((fo, go), s), mut a))| {
        let (r0, r1) = (b * band, ((b + 1) * band).min(nx));
        let (ht, hb) = (levels.min(r0), levels.min(nx - r1));
        let (above, below) = s.split_at_mut(2 * ghost);
        let (fa, ga) = above.split_at_mut(ghost);
        let (fb, gb) = below.split_at_mut(ghost);
        let starts = [r0 - ht, r0, r1];
        let fr = Rows { segs: [&mut fa[..ht * ny], fo, &mut fb[..hb * ny]], starts, ny };
        let gr = Rows { segs: [&mut ga[..ht * ny], go, &mut gb[..hb * ny]], starts, ny };
        let ar = AuxRows { segs: [&mut a.above, a.own, &mut a.below], first: starts, starts: aux_starts };
        wavefront(nx, r0, r1, levels, first, rules, fr, gr, ar);
    });
}

/// One band's block (see the module's doc): rows `r0..r1` are the band's own.
#[expect(clippy::too_many_arguments, reason = "the band, the block, the two fields and the layer's values")]
fn wavefront<'a, R, L, E, S>(
    nx: usize,
    r0: usize,
    r1: usize,
    levels: usize,
    first: u32,
    rules: &Rules<'_, R, L, E, S>,
    mut fr: Rows<'a>,
    mut gr: Rows<'a>,
    mut ar: AuxRows<'a>,
) where
    R: Fn(usize, &mut [f32], &[f32], &[f32], &[f32]),
    L: Fn(usize, &mut [f32], &mut [f32], &[f32], &[f32], &[f32]),
    E: Fn(usize, &mut [f32], &[f32], &[f32], &[f32]),
    S: Fn(u32, usize, &mut [f32]),
{
    // Level `l` updates rows lo(l)..hi(l).
    let lo = |l: usize| r0.saturating_sub(levels - l).max(1);
    let hi = |l: usize| (r1 + levels - l).min(nx - 1);
    let has_edge = rules.edge.is_some();
    for p in lo(1)..hi(levels) + levels - 1 {
        for l in 1..=levels {
            let Some(i) = (p + 1).checked_sub(l) else { break };
            if i < lo(l) || i >= hi(l) || (has_edge && i == 1) {
                // Row 1 of an absorbing edge comes with row 2, below.
                continue;
            }
            let (x, y) = if l % 2 == 1 { (&mut fr, &gr) } else { (&mut gr, &fr) };
            match rules.edge {
                Some(edge) if i + 2 == nx => {
                    let (x_row, x_in) = x.row_mut_and(i, i - 1);
                    edge(i, x_row, x_in, y.row(i), y.row(i - 1));
                }
                _ => {
                    if let Some(layer) = rules.layer {
                        layer(i, ar.row_mut(i), x.row_mut(i), y.row(i - 1), y.row(i), y.row(i + 1));
                    }
                    (rules.row)(i, x.row_mut(i), y.row(i - 1), y.row(i), y.row(i + 1));
                }
            }
            let row_1_now = i == 2 && lo(l) == 1;
            if let Some(edge) = rules.edge.filter(|_| row_1_now) {
                let (x_row, x_in) = x.row_mut_and(1, 2);
                edge(1, x_row, x_in, y.row(1), y.row(2));
            }
            if l % 2 == 0 && l < levels {
                // g row i now holds step first + l/2 - 1: the next step's sources go in. The
                // border rows are never updated: theirs go in once row 1 (or nx-2) has read them.
                let t = first + (l / 2) as u32;
                let done: &[usize] = if has_edge && row_1_now { &[i, 1] } else { &[i] };
                for &k in done {
                    (rules.sources)(t, k, gr.row_mut(k));
                    if k == 1 {
                        (rules.sources)(t, 0, gr.row_mut(0));
                    }
                    if k + 2 == nx {
                        (rules.sources)(t, nx - 1, gr.row_mut(nx - 1));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_find_each_row_in_its_segment() {
        let ny = 3;
        let mut top: Vec<f32> = (0..6).map(|v| v as f32).collect(); // rows 2, 3
        let mut mid: Vec<f32> = (6..15).map(|v| v as f32).collect(); // rows 4..7
        let mut bot: Vec<f32> = (15..18).map(|v| v as f32).collect(); // row 7
        let mut r = Rows { segs: [&mut top, &mut mid, &mut bot], starts: [2, 4, 7], ny };
        for i in 2..8 {
            assert_eq!(r.row(i)[0], ((i - 2) * ny) as f32, "row {i}");
        }
        for (i, o) in [(2, 3), (3, 2), (3, 4), (4, 3), (5, 7), (7, 6), (4, 6)] {
            let (a, b) = r.row_mut_and(i, o);
            assert_eq!((a[0], b[0]), (((i - 2) * ny) as f32, ((o - 2) * ny) as f32), "rows {i}, {o}");
        }
        r.row_mut(6)[1] = -1.0;
        assert_eq!(mid[7], -1.0);
    }

    #[test]
    fn cpu_lists_count_their_cpus() {
        assert_eq!(cpu_list_len("0\n"), 1);
        assert_eq!(cpu_list_len("0,8"), 2);
        assert_eq!(cpu_list_len("0-1,16-17\n"), 4);
        assert_eq!(cpu_list_len(""), 1);
        assert_eq!(cpu_list_len("x"), 1);
    }

    #[test]
    fn depth_fits_the_cache_and_the_band() {
        assert_eq!(block_depth(8192, 4), 1);
        assert!(block_depth(8192, 4096) >= 1);
        assert!(block_depth(64, 4096) == 8);
        assert!(block_depth(1 << 22, 4096) == 1);
        let d = block_depth(8192, 4096) as usize;
        assert!((2 * d + 3) * 2 * 4 * 8192 <= l2_bytes() * 3 / 4 || d == 1, "depth {d}");
    }
}
