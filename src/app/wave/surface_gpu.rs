//! The 3D surface's GPU side: eframe's wgpu paint callback ([`SurfaceCallback`]) that draws the
//! field picture as a displaced, shaded mesh (`shaders/wave_surface.wgsl`). In `prepare` a
//! compute pass (`cs_mesh`) makes every mesh vertex once into a storage buffer, and an indexed
//! draw (`vs_mesh`, `fs_mesh`) of the mesh's triangles renders them into an offscreen colour and
//! depth target, colouring each pixel from the picture; `paint` copies that into egui's pass. The
//! mesh is as fine as the view shows ([`mesh_sides`]: an edge of about 2 pixels on screen, at most
//! one vertex per texel and [`MAX_MESH_SIDE`] a side). Its pipelines, buffers and targets live in
//! egui-wgpu's callback resources ([`Resources`]), made on first use and remade only when the mesh
//! or the view changes size. No UI and no simulation here: the camera and the controls are
//! `surface_ui.rs`.

use crate::backend::wgpu::shader;

/// The mesh's most vertices per side: a 1024² picture seen close is drawn with 512² vertices
/// (every other texel), larger ones likewise decimated; smaller ones use at most one vertex per
/// texel.
pub const MAX_MESH_SIDE: u32 = 512;

/// The most screen pixels a mesh quad takes of the surface's projected box ([`mesh_sides`]):
/// sides are powers of two, so 2-4 of them; an edge between vertices is then about 2 pixels on
/// screen (1.85 the median in the app's default view of a 1024² grid, a 256² mesh). The
/// graphics units draw a triangle of half a pixel (the 512² mesh there) at the cost of a larger
/// one, for nothing more to see.
pub const QUAD_PIXELS: f32 = 4.0;

/// The fewest vertices per side the mesh has (fewer where the picture has fewer texels).
const MIN_MESH_SIDE: u32 = 16;

/// The offscreen target's depth format.
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// The offscreen target's colour format (gamma-space bytes, like the 2D picture).
const COLOUR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Bytes of one mesh vertex in the storage buffer (`Vertex` of the shader: two `vec4<f32>`).
const VERTEX_BYTES: u64 = 32;
/// `cs_mesh`'s workgroup side (`@workgroup_size(8, 8)`).
const WORKGROUP_SIDE: u32 = 8;

/// What the adapter must offer for the surface: a compute pass, and a storage buffer read by the
/// vertex stage (wgpu's GL backend may lack it; Vulkan, Metal and DX12 have both). The 3D toggle
/// is off, saying why, on an adapter without them (`surface_ui::why_unavailable`).
pub const NEEDS: wgpu::DownlevelFlags =
    wgpu::DownlevelFlags::COMPUTE_SHADERS.union(wgpu::DownlevelFlags::VERTEX_STORAGE);

/// The uniform block of `wave_surface.wgsl` (`Surface`).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Uniform {
    mvp: [[f32; 4]; 4],
    mesh: [u32; 2],
    texels: [u32; 2],
    height: f32,
    srgb_target: u32,
    extent: [f32; 2],
}

/// One frame of the surface: what `prepare` and `paint` need.
pub struct SurfaceCallback {
    /// The field picture the 2D view shows (Rgba8Unorm, `hot`).
    pub field: wgpu::Texture,
    /// Clip space from world space, column-major.
    pub mvp: [[f32; 4]; 4],
    /// Height of the whole colour range, world units.
    pub height: f32,
    /// The callback's rectangle in physical pixels.
    pub size_px: [u32; 2],
    /// egui's target format (the blit writes it).
    pub target: wgpu::TextureFormat,
}

/// The most vertices of the mesh per side for a picture of `texels` per side.
#[must_use]
pub fn mesh_side(texels: u32) -> u32 {
    if texels <= MAX_MESH_SIDE { texels.max(2) } else { texels.div_ceil(texels.div_ceil(MAX_MESH_SIDE)).max(2) }
}

/// Vertices of the mesh per side for a `texels` picture raised by `height` and seen through
/// `mvp` in a view of `size_px`: enough that a quad takes at most [`QUAD_PIXELS`] of the
/// surface's box projected (a power of two, at least `MIN_MESH_SIDE`), at most [`mesh_side`].
/// A box reaching behind the eye gets the most.
#[must_use]
pub fn mesh_sides(texels: [u32; 2], mvp: &[[f32; 4]; 4], height: f32, size_px: [u32; 2]) -> [u32; 2] {
    let most = texels.map(mesh_side);
    let [ex, ez] = extent(texels[0], texels[1]);
    let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
    for k in 0..8 {
        let p = [
            if k & 1 == 0 { -ex / 2.0 } else { ex / 2.0 },
            if k & 2 == 0 { -height / 2.0 } else { height / 2.0 },
            if k & 4 == 0 { -ez / 2.0 } else { ez / 2.0 },
            1.0,
        ];
        let clip: [f32; 4] = std::array::from_fn(|r| (0..4).map(|c| mvp[c][r] * p[c]).sum());
        if clip[3] <= 1e-6 {
            return most;
        }
        for a in 0..2 {
            let px = (clip[a] / clip[3] + 1.0) / 2.0 * size_px[a] as f32;
            lo[a] = lo[a].min(px);
            hi[a] = hi[a].max(px);
        }
    }
    let across = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    if !across.is_finite() {
        return most;
    }
    let side = |world: f32, most: u32| {
        let quads = (across * world / QUAD_PIXELS).ceil().clamp(1.0, 65_536.0) as u32;
        (quads + 1).next_power_of_two().clamp(MIN_MESH_SIDE, most.max(MIN_MESH_SIDE)).min(most)
    };
    [side(ex, most[0]), side(ez, most[1])]
}

/// The index buffer of a `mesh` (vertices per side, row-major: vertex `(i, j)` is
/// `j * mesh[0] + i`): per quad, row by row, the triangles `(i, j) (i+1, j) (i, j+1)` and
/// `(i+1, j) (i+1, j+1) (i, j+1)` — the order and winding the non-indexed draw had, so the
/// picture is drawn triangle for triangle as before.
#[must_use]
pub fn mesh_indices(mesh: [u32; 2]) -> Vec<u32> {
    let (nx, ny) = (mesh[0].max(2), mesh[1].max(2));
    let mut out = Vec::with_capacity(6 * (nx - 1) as usize * (ny - 1) as usize);
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let v = |di: u32, dj: u32| (j + dj) * nx + i + di;
            out.extend_from_slice(&[v(0, 0), v(1, 0), v(0, 1), v(1, 0), v(1, 1), v(0, 1)]);
        }
    }
    out
}

/// The world size of a `w × h` picture: the longer side is 1.
#[must_use]
pub fn extent(w: u32, h: u32) -> [f32; 2] {
    let m = w.max(h).max(1) as f32;
    [w as f32 / m, h as f32 / m]
}

struct Offscreen {
    size: [u32; 2],
    colour: wgpu::TextureView,
    depth: wgpu::TextureView,
    blit: wgpu::BindGroup,
}

/// A mesh size's buffers: its vertices (written by `cs_mesh`, read by `vs_mesh`) and its
/// triangles.
struct MeshBuffers {
    side: [u32; 2],
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
}

/// The bind groups of one picture texture and one vertex buffer.
struct Groups {
    field: wgpu::Texture,
    vertices: wgpu::Buffer,
    /// The uniform block, the picture and the vertices written, for `cs_mesh`.
    compute: wgpu::BindGroup,
    /// The uniform block, the vertices read and the picture sampled, for the draw.
    draw: wgpu::BindGroup,
}

/// The surface's pipelines, buffers and targets, kept in egui-wgpu's callback resources.
pub struct Resources {
    vertices: wgpu::ComputePipeline,
    mesh: wgpu::RenderPipeline,
    blit: wgpu::RenderPipeline,
    compute_layout: wgpu::BindGroupLayout,
    mesh_layout: wgpu::BindGroupLayout,
    blit_layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    sampler: wgpu::Sampler,
    /// The picture's sampler for `fs_mesh`'s colours (bilinear, clamped).
    field_sampler: wgpu::Sampler,
    offscreen: Option<Offscreen>,
    buffers: Option<MeshBuffers>,
    groups: Option<Groups>,
}

fn entry(binding: u32, visibility: wgpu::ShaderStages, ty: wgpu::BindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry { binding, visibility, ty, count: None }
}

fn storage_binding(read_only: bool) -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size: None,
    }
}

fn texture_binding(filterable: bool) -> wgpu::BindingType {
    wgpu::BindingType::Texture {
        sample_type: wgpu::TextureSampleType::Float { filterable },
        view_dimension: wgpu::TextureViewDimension::D2,
        multisampled: false,
    }
}

/// `cs_mesh`'s pipeline.
fn compute_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: &wgpu::BindGroupLayout,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("cs_mesh"),
        layout: Some(&device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("cs_mesh"),
            bind_group_layouts: &[Some(layout)],
            immediate_size: 0,
        })),
        module,
        entry_point: Some("cs_mesh"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    })
}

/// A render pipeline of the surface's shader: entry points `[vertex, fragment]`, one colour
/// target of `format`, with the depth test where `depth`.
fn render_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: &wgpu::BindGroupLayout,
    [vs, fs]: [&str; 2],
    format: wgpu::TextureFormat,
    depth: bool,
) -> wgpu::RenderPipeline {
    let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(vs),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(vs),
        layout: Some(&pl),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vs),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fs),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(wgpu::ColorTargetState { format, blend: None, write_mask: wgpu::ColorWrites::ALL })],
        }),
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: depth.then(|| wgpu::DepthStencilState {
            format: DEPTH,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: wgpu::MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    })
}

impl Resources {
    fn new(device: &wgpu::Device, target: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wave_surface"),
            source: wgpu::ShaderSource::Wgsl(shader::wave_surface().into()),
        });
        let uniform_ty = wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let both = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
        let compute = wgpu::ShaderStages::COMPUTE;
        let compute_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wave_surface vertices"),
            entries: &[
                entry(0, compute, uniform_ty),
                entry(1, compute, texture_binding(true)),
                entry(4, compute, storage_binding(false)),
            ],
        });
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let mesh_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wave_surface mesh"),
            entries: &[
                entry(0, both, uniform_ty),
                entry(1, fragment, texture_binding(true)),
                entry(5, wgpu::ShaderStages::VERTEX, storage_binding(true)),
                entry(6, fragment, wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering)),
            ],
        });
        let blit_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wave_surface blit"),
            entries: &[
                entry(0, both, uniform_ty),
                entry(2, wgpu::ShaderStages::FRAGMENT, texture_binding(true)),
                entry(3, wgpu::ShaderStages::FRAGMENT, wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering)),
            ],
        });
        let vertices = compute_pipeline(device, &module, &compute_layout);
        let pipeline =
            |layout, vs, fs, format, depth| render_pipeline(device, &module, layout, [vs, fs], format, depth);
        let mesh = pipeline(&mesh_layout, "vs_mesh", "fs_mesh", COLOUR, true);
        let blit = pipeline(&blit_layout, "vs_blit", "fs_blit", target, false);
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wave_surface uniform"),
            size: std::mem::size_of::<Uniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("wave_surface blit"),
            mag_filter: wgpu::FilterMode::Nearest,
            min_filter: wgpu::FilterMode::Nearest,
            ..Default::default()
        });
        let field_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("wave_surface picture"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        Self {
            vertices,
            mesh,
            blit,
            compute_layout,
            mesh_layout,
            blit_layout,
            uniform,
            sampler,
            field_sampler,
            offscreen: None,
            buffers: None,
            groups: None,
        }
    }

    /// Makes the offscreen target for a view of `size` pixels unless it has that size.
    fn offscreen(&mut self, device: &wgpu::Device, size: [u32; 2]) {
        if self.offscreen.as_ref().is_none_or(|o| o.size != size) {
            let texture = |format, usage| {
                device
                    .create_texture(&wgpu::TextureDescriptor {
                        label: Some("wave_surface target"),
                        size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: wgpu::TextureDimension::D2,
                        format,
                        usage,
                        view_formats: &[],
                    })
                    .create_view(&wgpu::TextureViewDescriptor::default())
            };
            let colour = texture(COLOUR, wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING);
            let depth = texture(DEPTH, wgpu::TextureUsages::RENDER_ATTACHMENT);
            let blit = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wave_surface blit"),
                layout: &self.blit_layout,
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: self.uniform.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::TextureView(&colour) },
                    wgpu::BindGroupEntry { binding: 3, resource: wgpu::BindingResource::Sampler(&self.sampler) },
                ],
            });
            self.offscreen = Some(Offscreen { size, colour, depth, blit });
        }
    }

    /// Makes the vertex and index buffers of a mesh of `side` vertices unless they are that size.
    fn buffers(&mut self, device: &wgpu::Device, side: [u32; 2]) {
        if self.buffers.as_ref().is_some_and(|b| b.side == side) {
            return;
        }
        let vertices = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wave_surface vertices"),
            size: u64::from(side[0]) * u64::from(side[1]) * VERTEX_BYTES,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let triangles = mesh_indices(side);
        let indices = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("wave_surface triangles"),
                contents: bytemuck::cast_slice(&triangles),
                usage: wgpu::BufferUsages::INDEX,
            },
        );
        let index_count = u32::try_from(triangles.len()).unwrap_or(u32::MAX);
        self.buffers = Some(MeshBuffers { side, vertices, indices, index_count });
    }

    /// Makes the bind groups of the picture `field` and the vertex buffer `vertices` unless they
    /// are for those.
    fn groups(&mut self, device: &wgpu::Device, field: &wgpu::Texture, vertices: &wgpu::Buffer) {
        if self.groups.as_ref().is_some_and(|g| &g.field == field && &g.vertices == vertices) {
            return;
        }
        let view = field.create_view(&wgpu::TextureViewDescriptor::default());
        let uniform = wgpu::BindGroupEntry { binding: 0, resource: self.uniform.as_entire_binding() };
        let picture = wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&view) };
        let compute = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wave_surface vertices"),
            layout: &self.compute_layout,
            entries: &[
                uniform.clone(),
                picture.clone(),
                wgpu::BindGroupEntry { binding: 4, resource: vertices.as_entire_binding() },
            ],
        });
        let draw = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wave_surface mesh"),
            layout: &self.mesh_layout,
            entries: &[
                uniform,
                picture,
                wgpu::BindGroupEntry { binding: 5, resource: vertices.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 6, resource: wgpu::BindingResource::Sampler(&self.field_sampler) },
            ],
        });
        self.groups = Some(Groups { field: field.clone(), vertices: vertices.clone(), compute, draw });
    }
}

impl egui_wgpu::CallbackTrait for SurfaceCallback {
    fn prepare(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        _screen: &egui_wgpu::ScreenDescriptor,
        encoder: &mut wgpu::CommandEncoder,
        resources: &mut egui_wgpu::CallbackResources,
    ) -> Vec<wgpu::CommandBuffer> {
        if self.size_px[0] == 0 || self.size_px[1] == 0 {
            return Vec::new();
        }
        let r: &mut Resources = match resources.get_mut::<Resources>() {
            Some(r) => r,
            None => {
                resources.insert(Resources::new(device, self.target));
                resources.get_mut::<Resources>().expect("inserted above")
            }
        };
        let (w, h) = (self.field.width(), self.field.height());
        let mesh = mesh_sides([w, h], &self.mvp, self.height, self.size_px);
        let u = Uniform {
            mvp: self.mvp,
            mesh,
            texels: [w, h],
            height: self.height,
            srgb_target: u32::from(self.target.is_srgb()),
            extent: extent(w, h),
        };
        queue.write_buffer(&r.uniform, 0, bytemuck::bytes_of(&u));
        r.buffers(device, mesh);
        r.offscreen(device, self.size_px);
        let Some(vertices) = r.buffers.as_ref().map(|b| b.vertices.clone()) else { return Vec::new() };
        r.groups(device, &self.field, &vertices);
        let (Some(b), Some(o), Some(g)) = (r.buffers.as_ref(), r.offscreen.as_ref(), r.groups.as_ref()) else {
            return Vec::new();
        };
        {
            // Every mesh vertex once: position, place on the picture, normal.
            let mut pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("cs_mesh"), timestamp_writes: None });
            pass.set_pipeline(&r.vertices);
            pass.set_bind_group(0, &g.compute, &[]);
            pass.dispatch_workgroups(mesh[0].div_ceil(WORKGROUP_SIDE), mesh[1].div_ceil(WORKGROUP_SIDE), 1);
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("wave_surface"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &o.colour,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color { r: 0.06, g: 0.06, b: 0.07, a: 1.0 }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &o.depth,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Discard }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&r.mesh);
        pass.set_bind_group(0, &g.draw, &[]);
        pass.set_index_buffer(b.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..b.index_count, 0, 0..1);
        Vec::new()
    }

    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        pass: &mut wgpu::RenderPass<'static>,
        resources: &egui_wgpu::CallbackResources,
    ) {
        let Some(r) = resources.get::<Resources>() else { return };
        let Some(o) = r.offscreen.as_ref().filter(|o| o.size == self.size_px) else { return };
        pass.set_pipeline(&r.blit);
        pass.set_bind_group(0, &o.blit, &[]);
        pass.draw(0..3, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::wave::surface_ui::SurfaceView;

    #[test]
    fn big_pictures_are_decimated_to_at_most_the_mesh_limit() {
        assert_eq!(mesh_side(100), 100);
        assert_eq!(mesh_side(512), 512);
        assert_eq!(mesh_side(1024), 512, "every other texel");
        assert_eq!(mesh_side(2048), 512);
        assert!(mesh_side(1500) <= MAX_MESH_SIDE);
        assert_eq!(mesh_side(1), 2);
        assert_eq!(extent(200, 100), [1.0, 0.5]);
    }

    /// Screen pixels of each edge between neighbouring vertices of a flat `mesh` over a
    /// `texels` picture, seen by `camera` in a view of `size` pixels.
    fn edge_pixels(texels: [u32; 2], mesh: [u32; 2], camera: &SurfaceView, size: [u32; 2]) -> Vec<f32> {
        let m = camera.mvp(size[0] as f32 / size[1] as f32);
        let [ex, ez] = extent(texels[0], texels[1]);
        let screen = |i: u32, j: u32| {
            let p =
                [(i as f32 / (mesh[0] - 1) as f32 - 0.5) * ex, 0.0, (j as f32 / (mesh[1] - 1) as f32 - 0.5) * ez, 1.0];
            let c: [f32; 4] = std::array::from_fn(|r| (0..4).map(|k| m[k][r] * p[k]).sum());
            [(c[0] / c[3] + 1.0) / 2.0 * size[0] as f32, (c[1] / c[3] + 1.0) / 2.0 * size[1] as f32]
        };
        let mut out = Vec::new();
        for j in 0..mesh[1] {
            for i in 0..mesh[0] {
                let p = screen(i, j);
                let next = [(i + 1 < mesh[0]).then(|| screen(i + 1, j)), (j + 1 < mesh[1]).then(|| screen(i, j + 1))];
                for q in next.into_iter().flatten() {
                    out.push(((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt());
                }
            }
        }
        out.sort_by(f32::total_cmp);
        out
    }

    #[test]
    fn the_mesh_is_as_fine_as_the_view_shows() {
        let camera = SurfaceView::default();
        // The app's view of a 1024² grid (app_frames' 1280x780 window): quads of a few pixels,
        // not the picture's 512² half-pixel ones.
        let size = [960, 700];
        let mesh = mesh_sides([1024; 2], &camera.mvp(960.0 / 700.0), camera.height, size);
        let edges = edge_pixels([1024; 2], mesh, &camera, size);
        let (median, longest) = (edges[edges.len() / 2], edges[edges.len() - 1]);
        println!("mesh {mesh:?}: edges median {median:.2} px, longest {longest:.2} px");
        assert!(mesh[0] == mesh[1] && mesh[0].is_power_of_two(), "a square power-of-two mesh: {mesh:?}");
        assert!(
            (1.0..=QUAD_PIXELS).contains(&median) && longest < 2.0 * QUAD_PIXELS,
            "mesh {mesh:?}: its edges are {median:.2} px (median), {longest:.2} px at most on screen"
        );
        // Half as fine would make the median edge longer than a quad may be.
        let coarser = edge_pixels([1024; 2], mesh.map(|s| s / 2), &camera, size);
        assert!(coarser[coarser.len() / 2] > median * 1.9, "a mesh half as fine has edges twice as long");

        // Far away in a small view: coarse; seen close: the most; never more than a vertex a
        // texel; a box behind the eye: the most.
        let far = SurfaceView { distance: 6.0, ..SurfaceView::default() };
        let small = mesh_sides([1024; 2], &far.mvp(1.0), far.height, [200, 200]);
        assert!(small[0] <= 32 && small == [small[0]; 2], "a 1024² picture 6 widths away in 200² pixels: {small:?}");
        let near = SurfaceView { distance: 0.4, ..SurfaceView::default() };
        assert_eq!(mesh_sides([1024; 2], &near.mvp(1.5), near.height, [1500, 1000]), [MAX_MESH_SIDE; 2]);
        assert_eq!(mesh_sides([100, 50], &near.mvp(1.5), near.height, [1500, 1000]), [100, 50]);
        assert_eq!(mesh_sides([10, 10], &far.mvp(1.0), far.height, [20, 20]), [10, 10]);
        let mut behind = camera.mvp(1.0);
        behind[3][3] = -5.0;
        assert_eq!(mesh_sides([1024; 2], &behind, 0.25, [800, 600]), [MAX_MESH_SIDE; 2]);
        // A wide picture: fewer vertices across its short side.
        let wide = mesh_sides([1024, 256], &camera.mvp(1.5), camera.height, [960, 640]);
        assert!(wide[1] < wide[0] && wide[1] <= 256, "a 1024x256 picture: {wide:?}");
    }

    /// The vertex the non-indexed draw (the shader before the compute pass) made for its
    /// `vid`-th vertex: `(i, j)` from the quad `vid / 6` and the corner `vid % 6`.
    fn non_indexed_vertex(mesh: [u32; 2], vid: u32) -> (u32, u32) {
        let (q, k) = (vid / 6, (vid % 6) as usize);
        let (dx, dy) = ([0, 1, 0, 1, 1, 0], [0, 0, 1, 0, 1, 1]);
        (q % (mesh[0] - 1) + dx[k], q / (mesh[0] - 1) + dy[k])
    }

    #[test]
    fn the_index_buffer_lists_the_triangles_the_non_indexed_draw_drew_in_its_order() {
        for mesh in [[2, 2], [3, 5], [7, 4], [512, 256]] {
            let idx = mesh_indices(mesh);
            assert_eq!(idx.len() as u32, 6 * (mesh[0] - 1) * (mesh[1] - 1), "mesh {mesh:?}");
            for (vid, &v) in idx.iter().enumerate() {
                let (i, j) = non_indexed_vertex(mesh, vid as u32);
                assert_eq!(v, j * mesh[0] + i, "mesh {mesh:?}, vertex {vid}");
            }
            assert_eq!(idx.iter().max().copied(), Some(mesh[0] * mesh[1] - 1), "every vertex of {mesh:?} is used");
        }
    }
}
