//! The 3D surface's GPU side: eframe's wgpu paint callback ([`SurfaceCallback`]) that draws the
//! field picture as a displaced, shaded mesh (`shaders/wave_surface.wgsl`) into an offscreen
//! colour and depth target in `prepare`, and copies it into egui's pass in `paint`. Its pipelines
//! and targets live in egui-wgpu's callback resources ([`Resources`]), made on first use. No UI
//! and no simulation here: the camera and the controls are `surface_ui.rs`.

use crate::backend::wgpu::shader;

/// The mesh's most vertices per side: a 1024² picture is drawn with 512² vertices (every other
/// texel), larger ones likewise decimated; smaller ones use one vertex per texel.
pub const MAX_MESH_SIDE: u32 = 512;

/// The offscreen target's depth format.
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// The offscreen target's colour format (gamma-space bytes, like the 2D picture).
const COLOUR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

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

/// Vertices of the mesh per side for a picture of `texels` per side.
#[must_use]
pub fn mesh_side(texels: u32) -> u32 {
    if texels <= MAX_MESH_SIDE { texels.max(2) } else { texels.div_ceil(texels.div_ceil(MAX_MESH_SIDE)).max(2) }
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

/// The surface's pipelines and targets, kept in egui-wgpu's callback resources.
pub struct Resources {
    mesh: wgpu::RenderPipeline,
    blit: wgpu::RenderPipeline,
    mesh_layout: wgpu::BindGroupLayout,
    blit_layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    sampler: wgpu::Sampler,
    offscreen: Option<Offscreen>,
    /// The field texture the mesh bind group was made for.
    field: Option<(wgpu::Texture, wgpu::BindGroup)>,
}

fn entry(binding: u32, visibility: wgpu::ShaderStages, ty: wgpu::BindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry { binding, visibility, ty, count: None }
}

fn texture_binding(filterable: bool) -> wgpu::BindingType {
    wgpu::BindingType::Texture {
        sample_type: wgpu::TextureSampleType::Float { filterable },
        view_dimension: wgpu::TextureViewDimension::D2,
        multisampled: false,
    }
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
        let mesh_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wave_surface mesh"),
            entries: &[entry(0, both, uniform_ty), entry(1, wgpu::ShaderStages::VERTEX, texture_binding(false))],
        });
        let blit_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wave_surface blit"),
            entries: &[
                entry(0, both, uniform_ty),
                entry(2, wgpu::ShaderStages::FRAGMENT, texture_binding(true)),
                entry(3, wgpu::ShaderStages::FRAGMENT, wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering)),
            ],
        });
        let pipeline = |layout: &wgpu::BindGroupLayout, vs: &str, fs: &str, format, depth: bool| {
            let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(vs),
                bind_group_layouts: &[Some(layout)],
                immediate_size: 0,
            });
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(vs),
                layout: Some(&pl),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers: &[],
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: None,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
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
        };
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
        Self { mesh, blit, mesh_layout, blit_layout, uniform, sampler, offscreen: None, field: None }
    }

    fn offscreen(&mut self, device: &wgpu::Device, size: [u32; 2]) -> &Offscreen {
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
        self.offscreen.as_ref().expect("made above")
    }

    fn field_group(&mut self, device: &wgpu::Device, field: &wgpu::Texture) -> wgpu::BindGroup {
        if let Some((t, g)) = &self.field
            && t == field
        {
            return g.clone();
        }
        let view = field.create_view(&wgpu::TextureViewDescriptor::default());
        let g = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wave_surface field"),
            layout: &self.mesh_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: self.uniform.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&view) },
            ],
        });
        self.field = Some((field.clone(), g.clone()));
        g
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
        let mesh = [mesh_side(w), mesh_side(h)];
        let u = Uniform {
            mvp: self.mvp,
            mesh,
            texels: [w, h],
            height: self.height,
            srgb_target: u32::from(self.target.is_srgb()),
            extent: extent(w, h),
        };
        queue.write_buffer(&r.uniform, 0, bytemuck::bytes_of(&u));
        let group = r.field_group(device, &self.field);
        let o = r.offscreen(device, self.size_px);
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
        pass.set_bind_group(0, &group, &[]);
        pass.draw(0..6 * (mesh[0] - 1) * (mesh[1] - 1), 0..1);
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
}
