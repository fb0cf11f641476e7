//! Scenes on CUDA (walls, media, damping, the absorbing edge, several sources): the scene's data
//! on the device and the launches of `kernels/wave.cu`'s `wave_scene_update`, `wave_scene_edges`
//! and `wave_scene_sources` — the twins of `src/backend/cpu/wave_scene.rs` and
//! `shaders/wave_scene.wgsl`. [`super::wave::CudaWave`] runs these in the `simple` shape when it
//! holds a scene.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

use super::{BackendError, Device, runtime};
use crate::sim::scene::Scene;
use crate::sim::scene_cells::{EDGE_NONE, SceneCells};

/// A scene on the device: material ids and table, and the forced cells with their sources.
pub(super) struct SceneData {
    pub(super) scene: Scene,
    pub(super) ids: CudaSlice<u16>,
    /// `Material` (c2, a, b, mur, edge bits) per material id.
    pub(super) materials: CudaSlice<f32>,
    /// The scene has absorbing-edge cells (Mur), updated by a second launch.
    pub(super) edges: bool,
    /// Flat index of each forced cell and the source that forces it.
    pub(super) cells: CudaSlice<i64>,
    pub(super) source_of: CudaSlice<i32>,
    pub(super) n_cells: usize,
    /// The value of every source at each step of one `advance` (NaN: not forcing).
    pub(super) values: CudaSlice<f32>,
}

impl SceneData {
    pub(super) fn new(stream: &Arc<CudaStream>, scene: &Scene) -> Result<Self, BackendError> {
        let raster = SceneCells::new(scene);
        let ids = stream.clone_htod(&raster.ids).map_err(|e| runtime("uploading the scene's cells", e))?;
        let table: &[f32] = bytemuck::cast_slice(&raster.materials);
        let materials = stream.clone_htod(table).map_err(|e| runtime("uploading the scene's materials", e))?;
        let edges = raster.materials.iter().any(|m| m.edge != EDGE_NONE);
        let mut data = Self {
            scene: scene.clone(),
            ids,
            materials,
            edges,
            cells: stream.alloc_zeros::<i64>(1).map_err(|e| runtime("allocating source cells", e))?,
            source_of: stream.alloc_zeros::<i32>(1).map_err(|e| runtime("allocating source cells", e))?,
            n_cells: 0,
            values: stream.alloc_zeros::<f32>(1024).map_err(|e| runtime("allocating source values", e))?,
        };
        data.set_sources(stream, scene.clone())?;
        Ok(data)
    }

    /// Takes `scene`'s sources (its cells, walls and media must be this one's).
    pub(super) fn set_sources(&mut self, stream: &Arc<CudaStream>, scene: Scene) -> Result<(), BackendError> {
        let forced = scene.source_cells();
        let cells: Vec<i64> = forced.iter().map(|c| c.cell as i64).collect();
        let source_of: Vec<i32> = forced.iter().map(|c| c.source as i32).collect();
        if !forced.is_empty() {
            self.cells = stream.clone_htod(&cells).map_err(|e| runtime("uploading source cells", e))?;
            self.source_of = stream.clone_htod(&source_of).map_err(|e| runtime("uploading source cells", e))?;
        }
        self.n_cells = forced.len();
        self.scene = scene;
        Ok(())
    }

    /// Source values of steps `first..first + n`, `sources` per step, NaN where one does not force.
    pub(super) fn values(&self, first: u32, n: u32) -> Vec<f32> {
        (first..first + n)
            .flat_map(|t| self.scene.source_values(t).into_iter().map(|v| v.unwrap_or(f32::NAN)))
            .collect()
    }
}

/// `update(out, input)` of a scene: every cell but the absorbing edge, then (where the scene has
/// one) the edge ring, which reads its neighbours' new values.
#[expect(clippy::too_many_arguments, reason = "the launch's device, stream, scene, shape, configurations and fields")]
pub(super) fn scene_update(
    dev: &Device,
    stream: &Arc<CudaStream>,
    sc: &SceneData,
    (nx, ny): (i32, i32),
    cfg: LaunchConfig,
    edge_cfg: LaunchConfig,
    out: &mut CudaSlice<f32>,
    input: &CudaSlice<f32>,
) -> Result<(), BackendError> {
    let mut l = stream.launch_builder(&dev.wave_scene_update);
    l.arg(&nx).arg(&ny).arg(&mut *out).arg(input).arg(&sc.ids).arg(&sc.materials);
    // SAFETY: arguments match `wave_scene_update`; both fields and `ids` hold nx*ny values,
    // `materials` five words for every id that occurs.
    unsafe { l.launch(cfg) }.map_err(|e| runtime("launching wave_scene_update", e))?;
    if sc.edges {
        let mut l = stream.launch_builder(&dev.wave_scene_edges);
        l.arg(&nx).arg(&ny).arg(&mut *out).arg(input).arg(&sc.ids).arg(&sc.materials);
        // SAFETY: as above; the kernel touches only the ring of cells next to the border.
        unsafe { l.launch(edge_cfg) }.map_err(|e| runtime("launching wave_scene_edges", e))?;
    }
    Ok(())
}
