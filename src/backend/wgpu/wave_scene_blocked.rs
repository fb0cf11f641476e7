//! Scenes by temporal blocking (`shaders/wave_scene_blocked.wgsl`, the WGSL twin of CUDA's
//! `wave_scene_steps` in `kernels/wave_scene.cu`): up to [`STEPS_PER_DISPATCH`] time steps per dispatch
//! on the 64x64 tiles (48x48 output) of `shaders/wave_blocked_workgroup.wgsl`. The host sorts the
//! tiles by what they hold ([`TileKinds`]) and each dispatch runs one entry point over their lists
//! (the slow kinds first): plain tiles (one undamped material with a power-of-two `c2`, no forced cell: the plain
//! kernel's code), general tiles (walls, media, damping, forced cells, Mur's edge) and layer tiles
//! (the matched layer's cells with their auxiliary values). Like the plain blocked kernel it reads
//! one pair of fields (and of the layer's auxiliary values) and writes a second, an even number of
//! dispatches per advance, so the state ends where [`super::wave_scene::SceneGpu`]'s one-update
//! path keeps it.
//!
//! Scenes it cannot run keep the one-update path ([`blocked_refusal`] names them): a device with
//! less workgroup memory than [`WORKGROUP_BYTES`] and more source channels than a tile entry holds
//! (65 536).

use std::sync::Arc;

use super::field::FIELD_SCALE;
use super::layout::{Binding, bind_group, bind_group_layout, record};
use super::scene_tiles;
use super::shader::{Order, Products};
use super::{Gpu, Guards, Timer, runtime};
use crate::backend::BackendError;
use crate::sim::wave::pml::{Axis, Layer};
use crate::sim::wave::scene::{Boundary, Scene, SourceCell};
use crate::sim::wave::scene_cells::{EDGE_NONE, SceneCells, WALL};

#[path = "wave_scene_blocked_tiles.rs"]
mod tile_kinds;
pub(crate) use tile_kinds::{Kind, TileKinds, dispatches};
use tile_kinds::{Lists, interior, origin, tiles};

/// Most time steps one dispatch runs (`K / 2` in the shader).
pub const STEPS_PER_DISPATCH: u32 = 4;
/// The tile (halo included), its output block and the halo, in cells.
const TILE: usize = 64;
const OUT: usize = 48;
const HALO: usize = 8;
/// Rows of a tile column each invocation of a general tile owns (`R` in the shader), and the
/// invocations of a workgroup (64 x 4).
const ROWS_PER_INVOCATION: usize = 16;
const INVOCATIONS: usize = TILE * TILE / ROWS_PER_INVOCATION;
/// Workgroups along x of a dispatch at most (`ROW` in the shader).
const ROW: u32 = 32768;
/// Workgroup memory of the kernel: the tile (16 KiB), Mur's lines (1 KiB) and the layer tiles'
/// row coefficients (64 rows x 7 words, `row_coefs` in shaders/parts/scene_layer_tiles.wgsl).
pub const WORKGROUP_BYTES: u32 = 16 * 1024 + 1024 + 64 * 7 * 4;
/// "This source does not force at this step", as the bits of a value.
const NOT_FORCING: u32 = u32::MAX;

/// One dispatch's parameters (`SceneSteps` in the shader); offsets are words of the table.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct SceneSteps {
    nx: u32,
    ny: u32,
    /// Always 0 (lets the shader's `exact` keep every rounding step).
    opaque: u32,
    nsteps: u32,
    value_base: u32,
    sources: u32,
    tiles_x: u32,
    offsets: u32,
    plain: u32,
    n_plain: u32,
    general: u32,
    n_general: u32,
    layered: u32,
    n_layered: u32,
    axes: u32,
    layer_w: u32,
    mur: u32,
    pad: [u32; 3],
}

/// The pipeline (layer, general and plain tiles in one dispatch), compiled on a scene's first
/// blocked advance.
pub(crate) struct Pipeline {
    layout: wgpu::BindGroupLayout,
    mixed: wgpu::ComputePipeline,
}

impl Pipeline {
    pub fn new(device: &wgpu::Device, order: Order, products: Products) -> Result<Self, BackendError> {
        use Binding::{DynamicUniform, ReadOnly, ReadWrite};
        // The record, f and g in, f and g out, ids, the table, the layer's values in and out, the
        // layer tiles' scratch.
        let kinds = [
            DynamicUniform(size_of::<SceneSteps>()),
            ReadOnly,
            ReadOnly,
            ReadWrite,
            ReadWrite,
            ReadOnly,
            ReadOnly,
            ReadOnly,
            ReadWrite,
            ReadWrite,
        ];
        let layout = bind_group_layout(device, "wave scene blocked", &kinds);
        let source = super::shader::wave_scene_blocked(order, products);
        // Every workgroup-memory read follows a write of the same update (a Mur line read past the
        // tile feeds only cells that are never right), so the memory is not zeroed.
        let mut p = super::compute_pipeline_with(
            device,
            "wave_scene_blocked.wgsl",
            &source,
            &[("scene_mixed", &layout)],
            Guards { zero_workgroup_memory: false, no_contraction: true, ..Guards::IN_RANGE_BY_THE_SHADER },
        )?;
        let mixed = p.pop().ok_or_else(|| runtime("no blocked scene pipeline"))?;
        Ok(Self { layout, mixed })
    }
}

/// A general tile's second word where its cells but walls and edge cells hold several materials,
/// each undamped with a power-of-two `c2`: each cell takes the plain rule with its own `c2`
/// (`OWN_C2` in shaders/wave_scene_blocked.wgsl; the lens' rim in the budget scene).
const OWN_C2: u16 = 0xfffe;

/// Storage buffers the blocked scene kernel binds (`Pipeline::new`).
pub const STORAGE_BUFFERS: u32 = 9;

/// Bytes of the layer tiles' scratch (`scratch` in shaders/parts/scene_layer_tiles.wgsl) a layer
/// tile needs: six auxiliary values for each cell of its 64x64 region.
const SCRATCH_PER_TILE: u64 = 6 * (TILE * TILE) as u64 * 4;

/// The tiles whose region (halo included) holds a cell of a matched layer `width` cells wide on an
/// `nx x ny` grid: those of the tile rows or columns that reach the layer (`SceneCells::in_layer`:
/// interior rows `i <= width` or `i >= nx - 1 - width`, columns likewise).
#[must_use]
pub fn layer_tiles(nx: usize, ny: usize, width: usize) -> usize {
    let clear = |n: usize| (0..tiles(n)).filter(|&t| interior(t, n).all(|k| k > width && k + 1 + width < n)).count();
    tiles(nx) * tiles(ny) - clear(nx) * clear(ny)
}

/// The share of an `nx x ny` grid's tiles that hold cells of its matched layer.
#[must_use]
pub fn layer_tile_share(nx: usize, ny: usize) -> f64 {
    layer_tiles(nx, ny, Layer::width_on(nx, ny)) as f64 / (tiles(nx) * tiles(ny)) as f64
}

/// Above this share of layer tiles, `auto` runs a matched-layer scene one update per dispatch:
/// on the H100 the layer tiles cost the blocked kernel more than the saved trips to memory gain
/// at 1024² (17.4% layer tiles: 16.3 µs an update blocked, 11.0 one update per dispatch) and 512²
/// (33%: 15.1 against 6.7), and less at 2048² (9.1%: 20.1 against 41.6) and 4096² (4.6%: 52.8
/// against 176.2); docs/PERFORMANCE.md, stop 37 (before it, with the short tile last, 1024² had
/// 25% and 2048² 13.5%, and the line was 0.2).
pub const LAYER_SHARE_BLOCKED: f64 = 0.15;

/// What the device offers the blocked scene kernel: workgroup memory, storage buffers per
/// stage, bytes per storage buffer.
#[derive(Clone, Copy, Debug)]
pub struct Room {
    pub workgroup_bytes: u32,
    pub storage_buffers: u32,
    pub storage_bytes: u64,
}

/// Why `scene` keeps the one-update path on a device offering `room`, or `None` where the blocked
/// kernel runs it.
#[must_use]
pub fn blocked_refusal(scene: &Scene, room: Room) -> Option<&'static str> {
    // (An absorbing edge needs 8 cells a side, `Scene::validate`, so its edge cells never look at
    // each other.)
    let layer_width = (scene.boundary == Boundary::Absorbing).then(|| Layer::width_on(scene.nx, scene.ny));
    if room.workgroup_bytes < WORKGROUP_BYTES {
        Some("the device has too little workgroup memory for the blocked scene kernel")
    } else if room.storage_buffers < STORAGE_BUFFERS {
        Some("the device binds too few storage buffers per shader for the blocked scene kernel")
    } else if scene.channels() > 1 << 16 {
        Some("more than 65536 source channels")
    } else if layer_width
        .is_some_and(|w| layer_tiles(scene.nx, scene.ny, w) as u64 * SCRATCH_PER_TILE > room.storage_bytes)
    {
        Some("the matched layer's tiles need more scratch than one storage buffer holds")
    } else {
        None
    }
}

/// What the blocked scene kernel needs besides the one-update path's buffers: a second pair of
/// fields and of auxiliary values, the table, the records and the bind groups
/// `[pair 0 -> pair 1, pair 1 -> pair 0]`.
pub(crate) struct SceneBlocked {
    _second: [wgpu::Buffer; 3],
    /// The layer tiles' auxiliary values while a dispatch runs (one tile's worth where none).
    _scratch: wgpu::Buffer,
    table: wgpu::Buffer,
    steps: wgpu::Buffer,
    stride: u64,
    /// Dispatches one submission holds (even).
    capacity: u32,
    bind_groups: [wgpu::BindGroup; 2],
    kinds: TileKinds,
    /// The record's constant part.
    base: SceneSteps,
    /// Where the source values start in the table.
    values_at: u32,
    /// Time steps per dispatch: [`STEPS_PER_DISPATCH`], or one less where a Mur edge line is a
    /// tile's first output row or column.
    max_steps: u32,
}

/// The buffers a [`SceneBlocked`] binds besides its own: the first pair of fields, the material
/// ids and the one-update path's auxiliary values.
pub(crate) struct Shared<'a> {
    pub fields: &'a [wgpu::Buffer; 2],
    pub ids: &'a wgpu::Buffer,
    pub aux: &'a wgpu::Buffer,
}

impl SceneBlocked {
    /// The blocked state of `scene` (rasterised as `cells`) for submissions of up to
    /// `steps_per_submit` dispatches.
    pub fn new(
        gpu: &Gpu,
        shared: &Shared<'_>,
        scene: &Scene,
        cells: &SceneCells,
        steps_per_submit: u32,
    ) -> Result<Self, BackendError> {
        let pipeline = gpu.wave.scene_blocked(&gpu.device)?;
        let (nx, ny) = (scene.nx, scene.ny);
        let what = format!("scene {nx}x{ny}");
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let bytes = 4 * scene.cells() as u64;
        let f = gpu.buffer(&format!("{what} field f (blocked pair)"), bytes, storage)?;
        let g = gpu.buffer(&format!("{what} field g (blocked pair)"), bytes, storage)?;
        let aux = gpu.buffer(&format!("{what} layer values (blocked pair)"), shared.aux.size(), storage)?;
        let kinds = TileKinds::new(cells);
        let layered = kinds.kinds.iter().filter(|&&k| k == Kind::Layer).count().max(1) as u64;
        let scratch = gpu.buffer(&format!("{what} layer tiles' scratch"), layered * SCRATCH_PER_TILE, storage)?;
        let capacity = (steps_per_submit.max(2) / 2) * 2;
        let mur = cells.materials.iter().any(|m| m.edge != EDGE_NONE);
        let first_out = |n: usize| (0..tiles(n)).any(|t| origin(t, n) + 2 == n);
        let max_steps =
            if mur && (first_out(nx) || first_out(ny)) { STEPS_PER_DISPATCH - 1 } else { STEPS_PER_DISPATCH };
        let align = u64::from(gpu.device.limits().min_uniform_buffer_offset_alignment.max(1));
        let stride = (size_of::<SceneSteps>() as u64).div_ceil(align) * align;
        let steps = gpu.buffer(
            "scene blocked steps",
            u64::from(capacity) * stride,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        let table_words = Self::table(scene, cells, &kinds, capacity, max_steps);
        let table = gpu.buffer(&format!("{what} blocked table"), 4 * table_words.0.len() as u64, storage)?;
        let second = [f, g, aux];
        let bind = |input: [&wgpu::Buffer; 3], out: [&wgpu::Buffer; 3]| {
            let resources = vec![
                Some(record(&steps, size_of::<SceneSteps>())),
                Some(input[0].as_entire_binding()),
                Some(input[1].as_entire_binding()),
                Some(out[0].as_entire_binding()),
                Some(out[1].as_entire_binding()),
                Some(shared.ids.as_entire_binding()),
                Some(table.as_entire_binding()),
                Some(input[2].as_entire_binding()),
                Some(out[2].as_entire_binding()),
                Some(scratch.as_entire_binding()),
            ];
            bind_group(&gpu.device, "wave scene blocked", &pipeline.layout, resources)
        };
        let first = [&shared.fields[0], &shared.fields[1], shared.aux];
        let other = [&second[0], &second[1], &second[2]];
        let bind_groups = gpu.scoped("binding the blocked scene", || [bind(first, other), bind(other, first)])?;
        gpu.scoped("uploading the blocked scene", || {
            gpu.queue.write_buffer(&table, 0, bytemuck::cast_slice(&table_words.0));
        })?;
        Ok(Self {
            _second: second,
            _scratch: scratch,
            table,
            steps,
            stride,
            capacity,
            bind_groups,
            kinds,
            base: table_words.1,
            values_at: table_words.2,
            max_steps,
        })
    }

    /// The table's words (materials, axes, lists, forced cells, room for the source values), the
    /// record's constant part and where the values start.
    fn table(
        scene: &Scene,
        cells: &SceneCells,
        kinds: &TileKinds,
        capacity: u32,
        max_steps: u32,
    ) -> (Vec<u32>, SceneSteps, u32) {
        let mut words: Vec<u32> = bytemuck::cast_slice(&cells.materials).to_vec();
        let axes_at = words.len() as u32;
        let axes: Vec<Axis> = cells
            .layer
            .as_ref()
            .map_or_else(|| vec![bytemuck::Zeroable::zeroed()], |l| l.low.iter().chain(&l.high).copied().collect());
        words.extend_from_slice(bytemuck::cast_slice(&axes));
        let lists = Lists::new(kinds, &scene.source_cells(), scene.ny, words.len() as u32);
        words.extend_from_slice(&lists.words);
        let values_at = words.len() as u32;
        let sources = scene.channels().max(1);
        words.resize(words.len() + capacity as usize * max_steps as usize * sources, NOT_FORCING);
        let base = SceneSteps {
            nx: scene.nx as u32,
            ny: scene.ny as u32,
            sources: scene.channels() as u32,
            tiles_x: kinds.tiles_x as u32,
            offsets: lists.offsets,
            plain: lists.plain.0,
            n_plain: lists.plain.1,
            general: lists.general.0,
            n_general: lists.general.1,
            layered: lists.layered.0,
            n_layered: lists.layered.1,
            axes: axes_at,
            layer_w: cells.layer.as_ref().map_or(0, |l| l.width as u32),
            mur: u32::from(cells.materials.iter().any(|m| m.edge != EDGE_NONE)),
            ..SceneSteps::default()
        };
        (words, base, values_at)
    }

    /// Takes `scene`'s sources (the same grid, walls and media): the forced cells and the tile
    /// lists they change, re-uploaded (the table grows where it must, with its bind groups).
    pub fn set_sources(
        &mut self,
        gpu: &Gpu,
        shared: &Shared<'_>,
        scene: &Scene,
        cells: &SceneCells,
        steps_per_submit: u32,
    ) -> Result<(), BackendError> {
        let (words, base, values_at) = Self::table(scene, cells, &self.kinds, self.capacity, self.max_steps);
        if 4 * words.len() as u64 > self.table.size() {
            *self = Self::new(gpu, shared, scene, cells, steps_per_submit)?;
            return Ok(());
        }
        gpu.scoped("uploading the scene's sources", || {
            gpu.queue.write_buffer(&self.table, 0, bytemuck::cast_slice(&words));
        })?;
        self.base = base;
        self.values_at = values_at;
        Ok(())
    }

    /// The tile counts (plain, general, layer), for tests and the bench's note.
    pub fn tile_counts(&self) -> [u32; 3] {
        [self.base.n_plain, self.base.n_general, self.base.n_layered]
    }

    /// Runs time steps `tstep0 + 1 ..= tstep0 + tsteps` (`tsteps >= 2`) of `scene`: an even number of
    /// dispatches, so the fields and auxiliary values end in the first pair.
    pub fn run(
        &self,
        gpu: &Arc<Gpu>,
        scene: &Scene,
        tstep0: u32,
        tsteps: u32,
        timer: Option<&Timer>,
    ) -> Result<(), BackendError> {
        let pipeline = gpu.wave.scene_blocked(&gpu.device)?;
        let n = dispatches(tsteps, self.max_steps);
        let count = |k: u32| tsteps / n + u32::from(k < tsteps % n);
        let sources = scene.channels();
        let slot = self.max_steps as usize * sources.max(1);
        // Layer tiles first, then general ones, then plain ones, in one dispatch (`scene_mixed`).
        let tiles = self.base.n_layered + self.base.n_general + self.base.n_plain;
        let mut next_step = tstep0 + 1;
        for start in (0..n).step_by(self.capacity as usize) {
            let chunk: Vec<u32> = (start..n.min(start + self.capacity)).map(count).collect();
            let (pass, last) = (start / self.capacity, start + self.capacity >= n);
            let stride = self.stride as usize;
            let mut records = vec![0u8; chunk.len() * stride];
            let mut values = vec![NOT_FORCING; chunk.len() * slot];
            for (d, &c) in chunk.iter().enumerate() {
                for s in 0..c {
                    let at = d * slot + s as usize * sources;
                    let v = scene.source_values(next_step + s);
                    for (o, v) in values[at..at + sources].iter_mut().zip(v) {
                        *o = v.map_or(NOT_FORCING, |v| (v * FIELD_SCALE).to_bits());
                    }
                }
                next_step += c;
                let record = SceneSteps { nsteps: c, value_base: self.values_at + (d * slot) as u32, ..self.base };
                records[d * stride..d * stride + size_of::<SceneSteps>()].copy_from_slice(bytemuck::bytes_of(&record));
            }
            gpu.scoped("advancing the scene", || {
                gpu.queue.write_buffer(&self.table, 4 * u64::from(self.values_at), bytemuck::cast_slice(&values));
                gpu.queue.write_buffer(&self.steps, 0, &records);
                let mut encoder = gpu
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("scene blocked steps") });
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("scene blocked steps"),
                        timestamp_writes: timer.and_then(|t| t.writes(pass, last)),
                    });
                    pass.set_pipeline(&pipeline.mixed);
                    for d in 0..chunk.len() {
                        let offset = [(d as u64 * self.stride) as u32];
                        pass.set_bind_group(0, &self.bind_groups[d % 2], &offset);
                        pass.dispatch_workgroups(tiles.min(ROW), tiles.div_ceil(ROW), 1);
                    }
                }
                if last && let Some(timer) = timer {
                    timer.resolve(&mut encoder, pass + 1);
                }
                gpu.queue.submit([encoder.finish()]);
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::wave::scene::{Boundary, Medium, Source, Wall};

    /// The tile whose output block holds cell `k` of an `n`-cell axis.
    fn tile_of(k: usize, n: usize) -> usize {
        (0..tiles(n))
            .find(|&t| (origin(t, n)..scene_tiles::out_end(t, n, OUT)).contains(&k))
            .expect("every cell is output")
    }

    /// Every cell lies in the output block of exactly one tile and in the regions of the tiles
    /// `holding` lists, at the place it says.
    #[test]
    fn holding_lists_every_tile_whose_region_has_the_cell() {
        for (nx, ny) in [(37, 53), (50, 50), (98, 145), (8, 200)] {
            let cells = SceneCells::new(&Scene::seed(nx, ny, 0.1));
            let k = TileKinds::new(&cells);
            for i in 0..nx {
                for j in 0..ny {
                    let got: Vec<_> = k.holding(i, j).collect();
                    let mut want = Vec::new();
                    for ti in 0..tiles(nx) {
                        for tj in 0..k.tiles_x {
                            let (r, c) =
                                ((i + HALO) as i64 - origin(ti, nx) as i64, (j + HALO) as i64 - origin(tj, ny) as i64);
                            if (0..TILE as i64).contains(&r) && (0..TILE as i64).contains(&c) {
                                want.push((ti * k.tiles_x + tj, (r * TILE as i64 + c) as u32));
                            }
                        }
                    }
                    assert_eq!(got, want, "cell ({i}, {j}) of {nx}x{ny}");
                }
            }
        }
    }

    /// The open medium runs plain; walls, damped or non-power-of-two media, edges and layers
    /// do not; a forced cell moves its plain tiles to the general list.
    #[test]
    fn tiles_are_sorted_by_what_they_hold() {
        let mut s = Scene::seed(300, 300, 0.1);
        s.sources = vec![Source::Point { x: 100, y: 100, freq: 0.1, amplitude: 1.0, phase: 0.0 }];
        s.walls.push(Wall { x0: 250, y0: 0, x1: 251, y1: 10 });
        s.media.push(Medium::Rect { x0: 0, y0: 200, x1: 299, y1: 299, c2: 0.125 });
        s.media.push(Medium::Rect { x0: 250, y0: 120, x1: 280, y1: 160, c2: 0.1 });
        let cells = SceneCells::new(&s);
        let k = TileKinds::new(&cells);
        assert_eq!((k.tiles_x, tiles(300)), (7, 7));
        let at = |i: usize, j: usize| k.kinds[tile_of(i, 300) * 7 + tile_of(j, 300)];
        assert_eq!(at(100, 100), Kind::Plain(0));
        assert_eq!(at(250, 5), Kind::General, "the wall");
        assert_eq!(at(265, 140), Kind::General, "c2 0.1");
        assert!(matches!(at(150, 260), Kind::Plain(id) if id != 0), "c2 0.125, inside the medium");
        // Where the open medium meets the c2 0.125 one, each cell takes the plain rule with its
        // own c2; beside the c2 0.1 medium (not a power of two), the scene rule.
        let rule = |i: usize, j: usize| k.plain_rule[tile_of(i, 300) * 7 + tile_of(j, 300)];
        assert_eq!((at(120, 200), rule(120, 200)), (Kind::General, Some(OWN_C2)), "0.25 beside 0.125");
        assert_eq!(rule(265, 140), None, "0.25 beside 0.1");
        // The source's cell lies in the regions of tiles (1..=2, 1..=2), all plain.
        let lists = Lists::new(&k, &s.source_cells(), s.ny, 0);
        assert_eq!(lists.general.1 as usize, k.kinds.iter().filter(|&&v| v == Kind::General).count() + 4);
        let mut mur = s.clone();
        mur.boundary = Boundary::Mur;
        let k = TileKinds::new(&SceneCells::new(&mur));
        assert_eq!((k.kinds[0], k.kinds[2 * 7 + 2]), (Kind::General, Kind::Plain(0)));
        let mut damped = s.clone();
        damped.damping = 0.01;
        assert!(TileKinds::new(&SceneCells::new(&damped)).kinds.iter().all(|&v| v == Kind::General));
        let mut matched = s;
        matched.boundary = Boundary::Absorbing;
        let k = TileKinds::new(&SceneCells::new(&matched));
        assert_eq!((k.kinds[0], k.kinds[6], k.kinds[3 * 7 + 6]), (Kind::Layer, Kind::Layer, Kind::Layer));
        assert_eq!((k.kinds[2 * 7 + 2], k.kinds[7 + 1]), (Kind::Plain(0), Kind::Plain(0)));
        // A layer tile whose cells but walls share one plain material runs the plain rule
        // outside the layer and that c2 in it; two media, or one that is not plain, do not.
        assert_eq!(k.plain_rule[0], Some(0), "the open medium");
        assert!(matches!(k.plain_rule[6], Some(id) if id != 0), "inside the c2 0.125 medium");
        assert_eq!(k.plain_rule[4], None, "the open medium beside the c2 0.125 one");
        assert_eq!((k.kinds[5 * 7], k.plain_rule[5 * 7]), (Kind::Layer, Some(0)), "a wall in the open medium");
        assert_eq!((k.kinds[6 * 7 + 2], k.plain_rule[6 * 7 + 2]), (Kind::Layer, None), "c2 0.1");
        // The far side's layer (rows 267..299) lies in the last tile row alone (tile row 5 ends
        // at 252 + 8).
        assert_eq!((k.kinds[5 * 7 + 2], k.plain_rule[5 * 7 + 2]), (Kind::General, None), "c2 0.1");
        let lists = Lists::new(&k, &matched.source_cells(), matched.ny, 0);
        let second = |n: u32| lists.words[(lists.layered.0 + 2 * n + 1) as usize];
        assert_eq!((second(0), second(4)), (0, u32::from(WALL)), "the layer list's second words");
    }

    /// A general tile's forced cells sit behind a block of one range an invocation: each range
    /// holds exactly the entries of the cells that invocation owns (tile row / 16, tile column),
    /// in the scene's order (a later entry for a cell stays later); a layer tile's stay one range
    /// in that order.
    #[test]
    fn each_invocation_of_a_general_tile_finds_its_own_forced_cells_in_order() {
        let mut s = Scene::seed(300, 300, 0.1);
        s.boundary = Boundary::Absorbing;
        // A row, a column (both across tiles and a layer), two point sources on one cell.
        s.sources.push(Source::Line { x0: 100, y0: 2, x1: 100, y1: 297, freq: 0.2, amplitude: 0.1, phase: 0.0 });
        s.sources.push(Source::Line { x0: 2, y0: 150, x1: 297, y1: 150, freq: 0.2, amplitude: 0.1, phase: 0.0 });
        s.sources.push(Source::Point { x: 120, y: 130, freq: 0.1, amplitude: 1.0, phase: 0.0 });
        s.sources.push(Source::Point { x: 120, y: 130, freq: 0.3, amplitude: 1.0, phase: 0.5 });
        let cells = SceneCells::new(&s);
        let k = TileKinds::new(&cells);
        let source_cells = s.source_cells();
        let lists = Lists::new(&k, &source_cells, s.ny, 0);
        let (w, off) = (&lists.words, lists.offsets as usize);
        let owner = |e: u32| {
            let place = (e >> 16) as usize;
            (place / TILE) / ROWS_PER_INVOCATION * TILE + place % TILE
        };
        let (mut general, mut layer, mut busiest) = (0, 0, 0);
        for t in 0..k.kinds.len() {
            let want: Vec<u32> = source_cells
                .iter()
                .flat_map(|c| {
                    k.holding(c.cell / s.ny, c.cell % s.ny)
                        .filter(move |&(held, _)| held == t)
                        .map(move |(_, place)| place << 16 | c.source as u32)
                })
                .collect();
            let (first, last) = (w[off + t] as usize, w[off + t + 1] as usize);
            if want.is_empty() {
                assert_eq!(first, last, "tile {t} has no forced cell");
            } else if k.kinds[t] == Kind::Layer {
                assert_eq!(&w[first..last], &want[..], "layer tile {t}");
                layer += 1;
            } else {
                assert_eq!(last - first, INVOCATIONS + 1 + want.len(), "tile {t}: the block and the entries");
                for inv in 0..INVOCATIONS {
                    let (a, b) = (w[first + inv] as usize, w[first + inv + 1] as usize);
                    let mine: Vec<u32> = want.iter().copied().filter(|&e| owner(e) == inv).collect();
                    assert_eq!(&w[a..b], &mine[..], "tile {t}, invocation {inv}");
                    busiest = busiest.max(mine.len());
                }
                general += 1;
            }
        }
        // Tiles of both kinds were checked; the line along a tile column gives one invocation
        // 16 cells, the two points one cell twice.
        assert!(
            general >= 10 && layer >= 4 && busiest == 16,
            "{general} general, {layer} layer tiles, {busiest} at most"
        );
    }

    /// `layer_tiles` (the refusal's count, from the geometry alone) is the number of tiles the
    /// sorting calls `Layer` (the scratch the kernel gets), on shapes where the layer is its full
    /// width, a quarter of a short side, the middle tile one cell wide (145 = 48·3 + 1) or
    /// whole (336 = 48·7), and small grids whose middle tile reaches both layers (100, 150).
    #[test]
    fn layer_tiles_counts_the_tiles_sorted_as_layer() {
        let shapes =
            [(300, 300), (101, 257), (64, 64), (130, 98), (1000, 40), (280, 329), (281, 328), (145, 336), (100, 150)];
        for (nx, ny) in shapes {
            let mut s = Scene::seed(nx, ny, 0.1);
            s.boundary = Boundary::Absorbing;
            let cells = SceneCells::new(&s);
            let sorted = TileKinds::new(&cells).kinds.iter().filter(|&&k| k == Kind::Layer).count();
            let w = cells.layer.as_ref().map(|l| l.width).expect("an absorbing scene has a layer");
            assert_eq!(layer_tiles(nx, ny, w), sorted, "{nx}x{ny}, layer {w} cells");
        }
        // The bench's 4096² scene: 86² tiles, all but the 84² clear of a 32-cell layer (83²
        // with the short tile last, before stop 37: the far layer reached two tile rows).
        assert_eq!(layer_tiles(4096, 4096, 32), 86 * 86 - 84 * 84);
    }

    /// The share `auto` reads: 9.1% of the tiles at 2048² and 4.6% at 4096² (blocked), 17.4% at
    /// 1024² (one update per dispatch), as the H100 runs in docs/PERFORMANCE.md counted them.
    #[test]
    fn layer_share_sends_1024_to_one_update_a_dispatch_and_2048_and_4096_to_blocked() {
        let share = |n| layer_tile_share(n, n);
        assert!(
            (share(2048) - 168.0 / 1849.0).abs() < 1e-12 && share(2048) < LAYER_SHARE_BLOCKED,
            "2048²: {}",
            share(2048)
        );
        assert!(
            (share(4096) - 340.0 / 7396.0).abs() < 1e-12 && share(4096) < LAYER_SHARE_BLOCKED,
            "4096²: {}",
            share(4096)
        );
        assert!(
            (share(1024) - 84.0 / 484.0).abs() < 1e-12 && share(1024) > LAYER_SHARE_BLOCKED,
            "1024²: {}",
            share(1024)
        );
        assert!(share(512) > LAYER_SHARE_BLOCKED, "512²: {}", share(512));
    }
}
