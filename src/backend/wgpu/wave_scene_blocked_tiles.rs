//! The host's side of the blocked scene kernel's tiles: what each tile holds ([`Kind`], sorted
//! into [`TileKinds`]), the lists each dispatch's entry points run over ([`Lists`]), and how many
//! dispatches an advance takes ([`dispatches`]). A part of [`super`].

use super::{
    EDGE_NONE, HALO, INVOCATIONS, OUT, OWN_C2, ROWS_PER_INVOCATION, SceneCells, SourceCell, TILE, WALL, scene_tiles,
};

/// What a tile needs, from its cells alone (halo included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// One material, undamped, power-of-two `c2`, no edge or layer cell: the plain rule.
    Plain(u16),
    /// Walls, several media, damping, Mur's edge.
    General,
    /// Cells of the matched layer.
    Layer,
}

/// `c2` values for which `update_cell`'s `cpu_product` is exact: powers of two.
pub(super) fn power_of_two(c2: f32) -> bool {
    c2.is_normal() && c2 > 0.0 && c2.to_bits() & 0x007f_ffff == 0
}

/// Tiles of an `n`-cell axis ([`scene_tiles`]), where tile `t` outputs from, and its cells that
/// are interior (`1..n-1`).
pub(super) fn tiles(n: usize) -> usize {
    scene_tiles::count(n, OUT)
}

pub(super) fn origin(t: usize, n: usize) -> usize {
    scene_tiles::origin(t, n, OUT)
}

pub(super) fn interior(t: usize, n: usize) -> std::ops::Range<usize> {
    let lo = origin(t, n).saturating_sub(HALO).max(1);
    let hi = (origin(t, n) + OUT + HALO).min(n - 1);
    lo..hi.max(lo)
}

/// The tiles of a scene sorted by kind, with the forced cells of each.
#[derive(Clone, Debug, Default)]
pub(crate) struct TileKinds {
    pub tiles_x: usize,
    /// The grid's `(nx, ny)`.
    nx: usize,
    ny: usize,
    /// Per tile (row-major by tile row `i`, then column `j`), from the cells alone.
    pub kinds: Vec<Kind>,
    /// Per tile: the one material of every interior cell that is neither a wall nor an
    /// absorbing-edge cell, where it takes the plain rule (undamped, power-of-two `c2`): a layer
    /// tile then runs the plain rule outside the layer and the layer's rule with that `c2` in it,
    /// walls at 0; a general tile on Mur's edge, on a wall of the open medium (or a plain one with
    /// forced cells) then runs the plain rule, walls at 0 and Mur's rule on its edge cells
    /// (their scene-rule value is replaced by Mur's anyway); [`OWN_C2`] where those cells hold
    /// several such materials (each cell the plain rule with its own `c2`).
    pub plain_rule: Vec<Option<u16>>,
}

impl TileKinds {
    /// Sorts the tiles of `cells` (tile `(ti, tj)` covers rows `origin(ti) - 8 .. origin(ti) + 56`).
    pub fn new(cells: &SceneCells) -> Self {
        let (nx, ny) = (cells.nx, cells.ny);
        let (tiles_y, tiles_x) = (tiles(nx), tiles(ny));
        let mut kinds = Vec::with_capacity(tiles_x * tiles_y);
        let mut plain_rule = Vec::with_capacity(tiles_x * tiles_y);
        let eligible = |id: u16| {
            id != WALL && {
                let m = cells.material(id);
                m.edge == EDGE_NONE && m.is_undamped() && power_of_two(m.c2)
            }
        };
        for ti in 0..tiles_y {
            let rows = interior(ti, nx);
            for tj in 0..tiles_x {
                let cols = interior(tj, ny);
                let layered = rows.clone().any(|i| cols.clone().any(|j| cells.in_layer(i, j)));
                let kind = if layered {
                    Kind::Layer
                } else {
                    let first = cells.ids.get(rows.start * ny + cols.start).copied().unwrap_or(WALL);
                    let uniform = rows
                        .clone()
                        .all(|i| cells.ids[i * ny + cols.start..i * ny + cols.end].iter().all(|&v| v == first));
                    let plain = uniform && first != WALL && {
                        let m = cells.material(first);
                        m.edge == EDGE_NONE && m.is_undamped() && power_of_two(m.c2)
                    };
                    if plain { Kind::Plain(first) } else { Kind::General }
                };
                let rule = match kind {
                    Kind::Plain(id) => Some(id),
                    Kind::Layer => {
                        // The one id of the cells that are not walls, if it takes the plain rule:
                        // the cells outside the layer then take it, and the layer's cells its c2.
                        let mut shared: Option<u16> = None;
                        let mut one = true;
                        for i in rows.clone() {
                            for &id in &cells.ids[i * ny + cols.start..i * ny + cols.end] {
                                if id != WALL {
                                    one &= *shared.get_or_insert(id) == id;
                                }
                            }
                        }
                        shared.filter(|&id| one && eligible(id))
                    }
                    Kind::General => {
                        // The one id of the cells that are not edge cells, if they share one;
                        // else `OWN_C2` where every one of them is eligible.
                        let mut shared: Option<u16> = None;
                        let (mut one, mut all_eligible) = (true, true);
                        for i in rows.clone() {
                            for &id in &cells.ids[i * ny + cols.start..i * ny + cols.end] {
                                // Walls (0 whenever updated) and edge cells (Mur's) keep their
                                // own rule beside the plain one.
                                if id == WALL || cells.material(id).edge != EDGE_NONE {
                                    continue;
                                }
                                one &= *shared.get_or_insert(id) == id;
                                all_eligible &= eligible(id);
                            }
                        }
                        match shared {
                            Some(id) if one && eligible(id) => Some(id),
                            Some(_) if all_eligible && cells.materials.len() < usize::from(OWN_C2) => Some(OWN_C2),
                            _ => None,
                        }
                    }
                };
                kinds.push(kind);
                plain_rule.push(rule);
            }
        }
        Self { tiles_x, nx, ny, kinds, plain_rule }
    }

    /// The tiles (row-major) whose 64x64 region holds cell `(i, j)`, with its place in each.
    pub(super) fn holding(&self, i: usize, j: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let span = |k: usize, n: usize| scene_tiles::touching(k, k, n, OUT, HALO, TILE);
        let (nx, ny) = (self.nx, self.ny);
        span(i, nx).flat_map(move |ti| {
            span(j, ny).map(move |tj| {
                let place = (i + HALO - origin(ti, nx)) * TILE + (j + HALO - origin(tj, ny));
                (ti * self.tiles_x + tj, place as u32)
            })
        })
    }
}

/// The table's parts after the material and axis tables: the tile lists, the forced-cell ranges
/// and entries (word offsets from `start`), for the forced cells `source_cells`: a tile's range
/// holds a layer tile's entries, and a general tile's block of one range an invocation followed by
/// its entries sorted by owner.
pub(super) struct Lists {
    pub(super) words: Vec<u32>,
    pub(super) plain: (u32, u32),
    pub(super) general: (u32, u32),
    pub(super) layered: (u32, u32),
    pub(super) offsets: u32,
}

impl Lists {
    pub(super) fn new(kinds: &TileKinds, source_cells: &[SourceCell], ny: usize, start: u32) -> Self {
        let n = kinds.kinds.len();
        let mut per_tile: Vec<Vec<u32>> = vec![Vec::new(); n];
        for sc in source_cells {
            for (t, place) in kinds.holding(sc.cell / ny, sc.cell % ny) {
                per_tile[t].push(place << 16 | sc.source as u32);
            }
        }
        let mut general_blocks = vec![false; n];
        let mut lists: [Vec<u32>; 3] = Default::default();
        for (t, kind) in kinds.kinds.iter().enumerate() {
            let word = ((t / kinds.tiles_x) << 16 | (t % kinds.tiles_x)) as u32;
            match kind {
                Kind::Plain(id) if per_tile[t].is_empty() => lists[0].extend([word, u32::from(*id)]),
                // The second word: the material of the plain rule (WALL: the scene rule).
                Kind::Plain(_) | Kind::General => {
                    lists[1].extend([word, u32::from(kinds.plain_rule[t].unwrap_or(WALL))]);
                }
                // The second word: the one material of the tile's cells (WALL: several).
                Kind::Layer => lists[2].extend([word, u32::from(kinds.plain_rule[t].unwrap_or(WALL))]),
            }
        }
        let mut words = Vec::new();
        let at = |list: &Vec<u32>, words: &mut Vec<u32>| {
            let base = start + words.len() as u32;
            words.extend_from_slice(list);
            (base, list.len() as u32 / 2)
        };
        let plain = at(&lists[0], &mut words);
        let general = at(&lists[1], &mut words);
        let layered = at(&lists[2], &mut words);
        // A general tile's entries, sorted by the invocation that owns the cell (tile row / R,
        // tile column; stable, so a later entry for a cell stays later), behind a block of
        // INVOCATIONS + 1 word offsets, one range an invocation: each scans its own entries, where
        // every invocation scanned the tile's (a line source's 64 an update step; stop 42). A
        // layer tile's (rows interleaved, lanes rotated) stay one range.
        for (t, entries) in per_tile.iter_mut().enumerate() {
            if kinds.kinds[t] != Kind::Layer && !entries.is_empty() {
                let owner = |e: &u32| {
                    let place = (e >> 16) as usize;
                    (place / TILE) / ROWS_PER_INVOCATION * TILE + place % TILE
                };
                entries.sort_by_key(owner);
                let mut block = Vec::with_capacity(INVOCATIONS + 1 + entries.len());
                let mut k = 0;
                for inv in 0..=INVOCATIONS {
                    while k < entries.len() && owner(&entries[k]) < inv {
                        k += 1;
                    }
                    block.push(k as u32);
                }
                block.extend_from_slice(entries);
                *entries = block;
                general_blocks[t] = true;
            }
        }
        let offsets = start + words.len() as u32;
        let mut next = offsets + n as u32 + 1;
        for (t, entries) in per_tile.iter_mut().enumerate() {
            if general_blocks[t] {
                // The block's ranges as word offsets.
                let entries_at = next + INVOCATIONS as u32 + 1;
                for w in &mut entries[..=INVOCATIONS] {
                    *w += entries_at;
                }
            }
            words.push(next);
            next += entries.len() as u32;
        }
        words.push(next);
        words.extend(per_tile.iter().flatten());
        Self { words, plain, general, layered, offsets }
    }
}

/// Dispatches [`SceneBlocked::run`] makes for `tsteps >= 2` time steps of at most `max` each: an
/// even count.
#[must_use]
pub fn dispatches(tsteps: u32, max: u32) -> u32 {
    let n = tsteps.div_ceil(max);
    n + n % 2
}
