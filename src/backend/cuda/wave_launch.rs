//! How the CUDA wave launches its kernels: a scene's forced cells and updates, the blocked
//! scene kernel, the plain blocked kernel (with or without a CUDA graph) and the one-update
//! kernel. A part of [`super`].

use super::{
    BackendError, CudaWave, GRAPH_CACHE, GRAPH_MIN_LAUNCHES, LaunchConfig, PushKernelArg, SceneData, SendGraph, TILE,
    launch, runtime, scene_update, sys,
};

impl CudaWave {
    /// `steps` time steps of a scene (values uploaded): the forced cells, then two updates each.
    pub(super) fn launch_scene(&mut self, steps: u32) -> Result<(), BackendError> {
        let Some(sc) = self.scene.as_mut() else { return Ok(()) };
        let p = &self.params;
        let cfg = LaunchConfig {
            grid_dim: (p.ny.div_ceil(32) as u32, p.nx.div_ceil(8) as u32, 1),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        let src_cfg = LaunchConfig {
            grid_dim: (sc.n_cells.div_ceil(256).max(1) as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let ring = 2 * (p.nx + p.ny).saturating_sub(4);
        let edge_cfg = LaunchConfig {
            grid_dim: (ring.div_ceil(256).max(1) as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let (nx, ny) = (p.nx as i32, p.ny as i32);
        let n_cells = sc.n_cells as i32;
        let sources = sc.scene.channels();
        let cur = self.cur;
        let [f0, g0, f1, g1] = self.fields.as_mut_slice() else { unreachable!("four fields") };
        let (f, g) = if cur == 0 { (f0, g0) } else { (f1, g1) };
        for k in 0..steps as usize {
            if n_cells > 0 {
                let step_values = sc.values.slice(k * sources..(k + 1) * sources);
                let mut l = self.stream.launch_builder(&self.dev.wave_scene_sources);
                l.arg(&mut *g).arg(&sc.cells).arg(&sc.source_of).arg(&step_values).arg(&n_cells);
                // Launch contract: arguments match `wave_scene_sources`; `cells` holds n_cells indices
                // inside the field, `source_of` n_cells numbers below `sources`, the slice
                // `sources` values.
                launch(l, src_cfg, "launching wave_scene_sources")?;
            }
            scene_update(&self.dev, &self.stream, sc, (nx, ny), cfg, edge_cfg, &mut *f, &*g, cur)?;
            scene_update(&self.dev, &self.stream, sc, (nx, ny), cfg, edge_cfg, &mut *g, &*f, cur)?;
        }
        Ok(())
    }

    /// Time steps per launch of the blocked kernel this problem runs.
    pub(super) fn steps_per_launch(&self) -> usize {
        self.scene.as_ref().map_or(TILE.steps(), SceneData::steps_per_launch) as usize
    }

    /// `steps` time steps of `wave_scene_steps` (values uploaded), `steps_per_launch` per launch,
    /// ping-ponging between the two pairs of fields.
    pub(super) fn launch_scene_blocked(&mut self, steps: usize) -> Result<(), BackendError> {
        let per = self.steps_per_launch();
        let side = self.side.clone();
        let Some(sc) = self.scene.as_mut() else { return Ok(()) };
        let cfg =
            LaunchConfig { grid_dim: (sc.tiles.0, sc.tiles.1, 1), block_dim: (32, TILE.warps, 1), shared_mem_bytes: 0 };
        let (nx, ny) = (self.params.nx as i32, self.params.ny as i32);
        let n_mat = sc.n_mat as i32;
        let sources = sc.scene.channels();
        let sources_i32 = sources as i32;
        let mut done = 0;
        while done < steps {
            let n = (steps - done).min(per);
            let [f0, g0, f1, g1] = self.fields.as_mut_slice() else { unreachable!("four fields") };
            let ((f_in, g_in), (f_out, g_out)) =
                if self.cur == 0 { ((&*f0, &*g0), (f1, g1)) } else { ((&*f1, &*g1), (f0, g0)) };
            let values = sc.values.slice(done * sources..(done + n) * sources);
            let n_i32 = n as i32;
            // The layer tiles (slow, few) start first, on the side stream once it has caught up
            // with everything before; the other tiles' launch runs beside them.
            let layer_stream = if sc.n_layer_tiles == 0 {
                None
            } else if let Some(s) = &side {
                s.join(&self.stream).map_err(|e| runtime("ordering the layer tiles' launch", e))?;
                Some(s)
            } else {
                Some(&self.stream)
            };
            if let Some(stream) = layer_stream {
                let layer_cfg = LaunchConfig {
                    grid_dim: (sc.n_layer_tiles, 1, 1),
                    block_dim: (32, TILE.warps, 1),
                    shared_mem_bytes: 0,
                };
                let [aux0, aux1] = &mut sc.aux;
                let (aux_in, aux_out) = if self.cur == 0 { (&*aux0, aux1) } else { (&*aux1, aux0) };
                let mut l = stream.launch_builder(&self.dev.wave_scene_layer_steps);
                l.arg(&nx).arg(&ny).arg(f_in).arg(g_in).arg(&mut *f_out).arg(&mut *g_out).arg(&sc.layer_tiles);
                l.arg(&sc.ids).arg(&sc.mat4).arg(&n_mat).arg(&sc.tile_offsets).arg(&sc.tile_entries);
                l.arg(&values).arg(&sources_i32).arg(&n_i32);
                l.arg(aux_in).arg(aux_out).arg(&sc.layer).arg(&sc.layer_w);
                // Launch contract: arguments match `wave_scene_layer_steps`; as `wave_scene_steps`
                // above, `layer_tiles` n_layer_tiles indices of LAYER tiles, the two `aux` the
                // `LayerFields` values of this grid, `layer` 2*(layer_w+1) `Axis` records; the
                // kernel writes only the LAYER tiles' centres of (f_out, g_out) and every layer
                // cell's values in aux_out.
                launch(l, layer_cfg, "launching wave_scene_layer_steps")?;
            }
            let mut l = self.stream.launch_builder(&self.dev.wave_scene_steps);
            l.arg(&nx).arg(&ny).arg(f_in).arg(g_in).arg(&mut *f_out).arg(&mut *g_out).arg(&sc.kinds);
            l.arg(&sc.ids).arg(&sc.mat4).arg(&n_mat).arg(&sc.tile_offsets).arg(&sc.tile_entries);
            l.arg(&values).arg(&sources_i32).arg(&n_i32);
            // Launch contract: arguments match `wave_scene_steps`; the fields and `ids` hold nx*ny values,
            // `kinds` one u16 per block of the grid, `mat4` four words per material id,
            // `tile_offsets` blocks + 1 offsets into `tile_entries`, whose sources are below
            // `sources`; `values` holds n*sources; the kernel reads (f_in, g_in) and writes only
            // (f_out, g_out), the cells of tiles other than LAYER ones.
            launch(l, cfg, "launching wave_scene_steps")?;
            if let (Some(s), true) = (&side, sc.n_layer_tiles > 0) {
                self.stream.join(s).map_err(|e| runtime("joining the layer tiles' launch", e))?;
            }
            self.cur ^= 1;
            done += n;
        }
        Ok(())
    }

    /// `steps` time steps of `wave_steps`, `TILE.steps()` per launch, ping-ponging between
    /// the two pairs of fields.
    pub(super) fn launch_blocked(&mut self, steps: usize) -> Result<(), BackendError> {
        if self.scene.is_some() {
            return self.launch_scene_blocked(steps);
        }
        let p = &self.params;
        let (oj, oi) = TILE.out();
        let cfg = LaunchConfig {
            grid_dim: (p.ny.div_ceil(oj as usize) as u32, p.nx.div_ceil(oi as usize) as u32, 1),
            block_dim: (32, TILE.warps, 1),
            shared_mem_bytes: 0,
        };
        let (nx, ny) = (p.nx as i32, p.ny as i32);
        let (si, sj) = (p.source.0 as i32, p.source.1 as i32);
        let c2 = p.c2;
        let mut done = 0;
        while done < steps {
            let n = (steps - done).min(TILE.steps() as usize);
            let [f0, g0, f1, g1] = self.fields.as_mut_slice() else { unreachable!("four fields") };
            let ((f_in, g_in), (f_out, g_out)) =
                if self.cur == 0 { ((&*f0, &*g0), (f1, g1)) } else { ((&*f1, &*g1), (f0, g0)) };
            let svals = self.svals.slice(done..done + n);
            let n_i32 = n as i32;
            let mut args = self.stream.launch_builder(&self.dev.wave_steps);
            args.arg(&nx).arg(&ny).arg(&c2).arg(f_in).arg(g_in).arg(f_out).arg(g_out);
            args.arg(&si).arg(&sj).arg(&svals).arg(&n_i32);
            // Launch contract: arguments match `wave_steps`; every buffer holds nx*ny values and
            // `svals` n; the kernel reads (f_in, g_in) and writes only (f_out, g_out).
            launch(args, cfg, "launching wave_steps")?;
            self.cur ^= 1;
            done += n;
        }
        Ok(())
    }

    /// `launch_blocked`, replayed from a captured CUDA graph when there are several launches:
    /// the launches then cost the host nothing and follow each other with smaller gaps.
    pub(super) fn launch_blocked_graph(&mut self, steps: usize) -> Result<(), BackendError> {
        let launches = steps.div_ceil(self.steps_per_launch());
        if launches < GRAPH_MIN_LAUNCHES {
            return self.launch_blocked(steps);
        }
        let key = (steps, self.cur);
        if !self.graphs.iter().any(|(k, _)| *k == key) {
            if self.graphs.len() >= GRAPH_CACHE {
                self.graphs.clear();
            }
            let start_cur = self.cur;
            self.stream
                .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
                .map_err(|e| runtime("starting a graph capture", e))?;
            let captured = self.launch_blocked(steps);
            let graph = self.stream.end_capture(sys::CUgraphInstantiate_flags(0));
            self.cur = start_cur;
            captured?;
            match graph.map_err(|e| runtime("capturing the wave launches", e))? {
                Some(g) => self.graphs.push((key, SendGraph(g))),
                None => return self.launch_blocked(steps),
            }
        }
        let Some((_, graph)) = self.graphs.iter().find(|(k, _)| *k == key) else { unreachable!("inserted above") };
        graph.0.launch().map_err(|e| runtime("launching the wave graph", e))?;
        if launches % 2 == 1 {
            self.cur ^= 1;
        }
        Ok(())
    }

    /// One `wave_update` launch per update, the source fused as a substituted read.
    pub(super) fn launch_simple(&mut self, values: &[f32]) -> Result<(), BackendError> {
        let p = &self.params;
        let cfg = LaunchConfig {
            grid_dim: (p.ny.div_ceil(32) as u32, p.nx.div_ceil(8) as u32, 1),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        let (nx, ny, c2) = (p.nx as i32, p.ny as i32, p.c2);
        let src = p.source_index() as i64;
        let none = -1i64;
        let [f0, g0, f1, g1] = self.fields.as_mut_slice() else { unreachable!("four fields") };
        let (f, g) = if self.cur == 0 { (f0, g0) } else { (f1, g1) };
        for &sval in values {
            // update(f, g) with g[src] = sval, then update(g, f) where g's own old value at
            // src is sval.
            let mut l1 = self.stream.launch_builder(&self.dev.wave_update);
            l1.arg(&nx).arg(&ny).arg(&c2).arg(&mut *f).arg(&*g).arg(&src).arg(&none).arg(&sval);
            // Launch contract: arguments match `wave_update`; both fields hold nx*ny values.
            launch(l1, cfg, "launching wave_update")?;
            let mut l2 = self.stream.launch_builder(&self.dev.wave_update);
            l2.arg(&nx).arg(&ny).arg(&c2).arg(&mut *g).arg(&*f).arg(&none).arg(&src).arg(&sval);
            // Launch contract: as above.
            launch(l2, cfg, "launching wave_update")?;
        }
        Ok(())
    }
}
