//! Scenes on the GPU (`shaders/wave_scene.wgsl`, the WGSL twin of CUDA's `wave_scene_update` /
//! `wave_scene_sources` in `kernels/wave_scene.cu` and of `src/backend/cpu/wave_scene.rs`; its matched
//! layer the twin of `src/sim/wave/pml.rs`): walls, media, damping and the absorbing sponge as a
//! material id per cell and a material table, the forced cells written before each time step. [`super::wave::WgpuWave`] owns the fields and
//! runs this in place of its plain kernels when it holds a scene.

use std::sync::Arc;

use bytemuck::Zeroable;

use super::field::FIELD_SCALE;
use super::layout::{Binding, bind_group, bind_group_layout, record};
use super::{Gpu, Timer, runtime};
use crate::backend::BackendError;
use crate::sim::wave::pml::{Axis, LayerFields};
use crate::sim::wave::scene::Scene;
use crate::sim::wave::scene_cells::{EDGE_NONE, SceneCells};

use super::wave_scene_blocked::{Room, SceneBlocked, Shared, blocked_refusal};

/// "This source does not force at this step", as the bits of a value.
const NOT_FORCING: u32 = u32::MAX;
/// Workgroup of the update: 32 cells along `j` by 8 rows along `i`.
const TILE_J: u32 = 32;
const TILE_I: u32 = 8;
/// Workgroup of the sources dispatch.
const SOURCES_GROUP: u32 = 64;

/// One time step's parameters (`SceneStep` in the shader).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct SceneStep {
    nx: u32,
    ny: u32,
    /// Always 0 (lets the shader's `exact` keep every rounding step).
    opaque: u32,
    n_forced: u32,
    value_base: u32,
    /// The matched layer's width (0: none).
    layer_w: u32,
    pad: [u32; 2],
}

/// The scene pipelines (update and sources, one layout), compiled once per device.
pub(crate) struct Pipeline {
    layout: wgpu::BindGroupLayout,
    update: wgpu::ComputePipeline,
    edges: wgpu::ComputePipeline,
    sources: wgpu::ComputePipeline,
}

impl Pipeline {
    pub fn new(device: &wgpu::Device, products: super::shader::Products) -> Result<Self, BackendError> {
        use Binding::{DynamicUniform, ReadOnly, ReadWrite};
        // The step record, the field written, the field read, ids, materials, forced cells, values.
        // Then the matched layer's auxiliary values and coefficients.
        let kinds = [
            DynamicUniform(size_of::<SceneStep>()),
            ReadWrite,
            ReadOnly,
            ReadOnly,
            ReadOnly,
            ReadOnly,
            ReadOnly,
            ReadWrite,
            ReadOnly,
        ];
        let layout = bind_group_layout(device, "wave scene", &kinds);
        let source = super::shader::wave_scene(products);
        let mut pipelines = super::compute_pipeline(
            device,
            "wave_scene.wgsl",
            &source,
            &[("wave_scene_update", &layout), ("wave_scene_edges", &layout), ("wave_scene_sources", &layout)],
        )?;
        let sources = pipelines.pop().ok_or_else(|| runtime("no scene sources pipeline"))?;
        let edges = pipelines.pop().ok_or_else(|| runtime("no scene edges pipeline"))?;
        let update = pipelines.pop().ok_or_else(|| runtime("no scene update pipeline"))?;
        Ok(Self { layout, update, edges, sources })
    }
}

/// A scene's data on the device, bound to one wave's fields.
pub(crate) struct SceneGpu {
    scene: Scene,
    forced: wgpu::Buffer,
    n_forced: u32,
    /// The scene has absorbing-edge cells (Mur), updated by a second dispatch.
    edges: bool,
    /// Source values of one submission's steps, `sources` per step.
    values: wgpu::Buffer,
    /// One `SceneStep` per time step of a submission, `stride` bytes apart.
    steps: wgpu::Buffer,
    stride: u64,
    capacity: u32,
    /// `[update(f, g), update(g, f) and the forced cells of g]`.
    bind_groups: [wgpu::BindGroup; 2],
    /// The matched layer's auxiliary values (one unused word without a layer) and its width.
    aux: wgpu::Buffer,
    layer_w: u32,
    /// The scene rasterised, the fields and the ids, for the blocked kernel.
    cells: SceneCells,
    fields: [wgpu::Buffer; 2],
    ids: wgpu::Buffer,
    /// The temporally blocked kernel (`shaders/wave_scene_blocked.wgsl`) for advances of two steps
    /// or more, where asked for and the scene allows ([`blocked_refusal`]); else every step runs
    /// the one-update path here.
    blocked: Option<SceneBlocked>,
    /// Why a scene asked to run blocked does not.
    refusal: Option<&'static str>,
    steps_per_submit: u32,
}

impl SceneGpu {
    /// Uploads `scene` for the fields `[f, g]`, for submissions of up to `steps_per_submit` steps;
    /// with `blocked`, advances of two steps or more run the blocked kernel where it can.
    pub fn new(
        gpu: &Gpu,
        fields: &[wgpu::Buffer; 2],
        scene: &Scene,
        steps_per_submit: u32,
        blocked: bool,
    ) -> Result<Self, BackendError> {
        let raster = SceneCells::new(scene);
        let mut words = vec![0u32; raster.ids.len().div_ceil(2)];
        for (k, &id) in raster.ids.iter().enumerate() {
            words[k / 2] |= u32::from(id) << (16 * (k % 2));
        }
        let table: &[f32] = bytemuck::cast_slice(&raster.materials);
        let edges = raster.materials.iter().any(|m| m.edge != EDGE_NONE);
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let what = format!("scene {}x{}", scene.nx, scene.ny);
        let ids = gpu.buffer(&format!("{what} material ids"), 4 * words.len() as u64, storage)?;
        let materials = gpu.buffer(&format!("{what} materials"), 4 * table.len() as u64, storage)?;
        let sources = scene.channels().max(1) as u64;
        let capacity = steps_per_submit.max(1);
        let values = gpu.buffer(&format!("{what} source values"), 4 * sources * u64::from(capacity), storage)?;
        let forced_cells = scene.source_cells();
        let forced = gpu.buffer(&format!("{what} forced cells"), 8 * forced_cells.len().max(1) as u64, storage)?;
        let align = u64::from(gpu.device.limits().min_uniform_buffer_offset_alignment.max(1));
        let stride = (size_of::<SceneStep>() as u64).div_ceil(align) * align;
        let steps = gpu.buffer(
            "scene steps",
            u64::from(capacity) * stride,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        let aux_len = LayerFields::new(&raster).values.len().max(1) as u64;
        let aux = gpu.buffer(&format!("{what} layer values"), 4 * aux_len, storage)?;
        let layer_w = raster.layer.as_ref().map_or(0, |l| l.width as u32);
        let axes: Vec<Axis> = raster
            .layer
            .as_ref()
            .map_or_else(|| vec![Axis::zeroed()], |l| l.low.iter().chain(&l.high).copied().collect());
        let layer = gpu.buffer(&format!("{what} layer"), size_of_val(axes.as_slice()) as u64, storage)?;
        let bind = |out: &wgpu::Buffer, input: &wgpu::Buffer| {
            let buffers = [out, input, &ids, &materials, &forced, &values, &aux, &layer];
            let mut resources = vec![Some(record(&steps, size_of::<SceneStep>()))];
            resources.extend(buffers.iter().map(|b| Some(b.as_entire_binding())));
            bind_group(&gpu.device, "wave scene", &gpu.wave.scene.layout, resources)
        };
        let bind_groups =
            gpu.scoped("binding the scene", || [bind(&fields[0], &fields[1]), bind(&fields[1], &fields[0])])?;
        gpu.scoped("uploading the scene", || {
            gpu.queue.write_buffer(&ids, 0, bytemuck::cast_slice(&words));
            gpu.queue.write_buffer(&materials, 0, bytemuck::cast_slice(table));
            gpu.queue.write_buffer(&layer, 0, bytemuck::cast_slice(&axes));
        })?;
        let mut out = Self {
            scene: scene.clone(),
            forced,
            n_forced: 0,
            edges,
            values,
            steps,
            stride,
            capacity,
            bind_groups,
            aux,
            layer_w,
            cells: raster,
            fields: fields.clone(),
            ids,
            blocked: None,
            refusal: None,
            steps_per_submit,
        };
        out.set_sources(gpu, scene.clone())?;
        if blocked {
            let limits = gpu.device.limits();
            let room = Room {
                workgroup_bytes: limits.max_compute_workgroup_storage_size,
                storage_buffers: limits.max_storage_buffers_per_shader_stage,
                storage_bytes: gpu.max_storage_bytes(),
            };
            out.refusal = blocked_refusal(scene, room);
            if out.refusal.is_none() {
                let shared = Shared { fields: &out.fields, ids: &out.ids, aux: &out.aux };
                out.blocked = Some(SceneBlocked::new(gpu, &shared, scene, &out.cells, steps_per_submit)?);
            }
        }
        Ok(out)
    }

    /// Clears the matched layer's auxiliary values (the fields were written or reset: as on the CPU,
    /// they start again from 0).
    pub fn clear_aux(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.clear_buffer(&self.aux, 0, None);
    }

    /// The scene it runs.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// Takes `scene`'s sources (its grid, walls and media must be this one's; the number of
    /// forced cells may not grow past what was allocated, else the scene is re-uploaded by the
    /// caller).
    pub fn set_sources(&mut self, gpu: &Gpu, scene: Scene) -> Result<(), BackendError> {
        let forced_cells = scene.source_cells();
        if 8 * forced_cells.len() as u64 > self.forced.size() || scene.channels() != self.scene.channels() {
            return Err(runtime("the scene's sources changed shape"));
        }
        let pairs: Vec<u32> = forced_cells.iter().flat_map(|c| [c.cell as u32, c.source as u32]).collect();
        if !pairs.is_empty() {
            gpu.scoped("uploading the forced cells", || {
                gpu.queue.write_buffer(&self.forced, 0, bytemuck::cast_slice(&pairs));
            })?;
        }
        self.n_forced = forced_cells.len() as u32;
        if let Some(b) = self.blocked.as_mut() {
            let shared = Shared { fields: &self.fields, ids: &self.ids, aux: &self.aux };
            b.set_sources(gpu, &shared, &scene, &self.cells, self.steps_per_submit)?;
        }
        self.scene = scene;
        Ok(())
    }

    /// Sets every source's frequency.
    pub fn set_freq(&mut self, freq: f64) {
        self.scene = self.scene.with_freq(freq);
    }

    /// The kernel advances of two steps or more run, for the bench's table and `info`.
    pub fn kernel_name(&self) -> String {
        match (&self.blocked, self.refusal) {
            (Some(b), _) => {
                let [plain, general, layer] = b.tile_counts();
                format!("wave_scene_blocked ({plain} plain, {general} general, {layer} layer tiles)")
            }
            (None, Some(why)) => format!("wave_scene, one update per dispatch ({why})"),
            (None, None) => "wave_scene, one update per dispatch".to_owned(),
        }
    }

    /// Runs time steps `tstep0 + 1 ..= tstep0 + tsteps` on the fields: by the blocked kernel where
    /// it runs and `tsteps >= 2` (an even number of dispatches cannot make one step), else one
    /// update per dispatch, `capacity` steps per submission.
    pub fn run(&self, gpu: &Arc<Gpu>, tstep0: u32, tsteps: u32, timer: Option<&Timer>) -> Result<(), BackendError> {
        if let Some(b) = &self.blocked
            && tsteps >= 2
        {
            return b.run(gpu, &self.scene, tstep0, tsteps, timer);
        }
        let (nx, ny) = (self.scene.nx, self.scene.ny);
        let groups = (ny.div_ceil(TILE_J as usize) as u32, nx.div_ceil(TILE_I as usize) as u32);
        let source_groups = self.n_forced.div_ceil(SOURCES_GROUP);
        let edge_groups =
            if self.edges { (2 * (nx + ny).saturating_sub(4)).div_ceil(SOURCES_GROUP as usize) as u32 } else { 0 };
        let sources = self.scene.channels() as u32;
        let pipelines = &gpu.wave.scene;
        let mut done = 0;
        let mut pass = 0;
        while done < tsteps {
            let n = self.capacity.min(tsteps - done);
            let last = done + n == tsteps;
            let mut values = Vec::with_capacity((n * sources) as usize);
            let mut records = vec![0u8; n as usize * self.stride as usize];
            for k in 0..n {
                let t = tstep0 + done + k + 1;
                values.extend(
                    self.scene
                        .source_values(t)
                        .into_iter()
                        .map(|v| v.map_or(NOT_FORCING, |v| (v * FIELD_SCALE).to_bits())),
                );
                let record = SceneStep {
                    nx: nx as u32,
                    ny: ny as u32,
                    opaque: 0,
                    n_forced: self.n_forced,
                    value_base: k * sources,
                    layer_w: self.layer_w,
                    pad: [0; 2],
                };
                let at = k as usize * self.stride as usize;
                records[at..at + size_of::<SceneStep>()].copy_from_slice(bytemuck::bytes_of(&record));
            }
            gpu.scoped("advancing the scene", || {
                if !values.is_empty() {
                    gpu.queue.write_buffer(&self.values, 0, bytemuck::cast_slice(&values));
                }
                gpu.queue.write_buffer(&self.steps, 0, &records);
                let mut encoder =
                    gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("scene steps") });
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("scene steps"),
                        timestamp_writes: timer.and_then(|t| t.writes(pass, last)),
                    });
                    for k in 0..n {
                        let offset = [(u64::from(k) * self.stride) as u32];
                        if source_groups > 0 {
                            pass.set_pipeline(&pipelines.sources);
                            pass.set_bind_group(0, &self.bind_groups[1], &offset);
                            pass.dispatch_workgroups(source_groups, 1, 1);
                        }
                        for bind_group in &self.bind_groups {
                            pass.set_pipeline(&pipelines.update);
                            pass.set_bind_group(0, bind_group, &offset);
                            pass.dispatch_workgroups(groups.0, groups.1, 1);
                            if edge_groups > 0 {
                                pass.set_pipeline(&pipelines.edges);
                                pass.dispatch_workgroups(edge_groups, 1, 1);
                            }
                        }
                    }
                }
                if last && let Some(timer) = timer {
                    timer.resolve(&mut encoder, pass + 1);
                }
                gpu.queue.submit([encoder.finish()]);
            })?;
            done += n;
            pass += 1;
        }
        Ok(())
    }
}
