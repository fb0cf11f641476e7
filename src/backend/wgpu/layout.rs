//! Bind groups said once: a compute shader's bindings as a list of [`Binding`] kinds (binding
//! `i` is the `i`-th), from which come its bind-group layout ([`bind_group_layout`]), its
//! bind groups ([`bind_group`], [`bind_buffers`]) and, with the shader, its compiled
//! [`ComputeKernel`]; [`PerPrecision`] keeps a family's kernels compiled on first use.

use super::{Gpu, runtime};
use crate::backend::BackendError;
use crate::sim::fractal::mandelbrot::Precision;
use crate::sim::fractal::perturb::Mantissa;

/// What one binding of a compute shader is (all visible to the compute stage).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    /// `var<uniform>`.
    Uniform,
    /// `var<uniform>` picked per dispatch by a dynamic offset: a record of this many bytes.
    DynamicUniform(usize),
    /// `var<storage, read>`.
    ReadOnly,
    /// `var<storage, read_write>`.
    ReadWrite,
    /// `texture_storage_2d<rgba8unorm, write>`.
    WriteTexture,
    /// No binding at this index.
    Absent,
}

impl Binding {
    /// The layout entry of this kind at `binding`, or `None` for [`Binding::Absent`].
    fn entry(self, binding: u32) -> Option<wgpu::BindGroupLayoutEntry> {
        let buffer = |ty, has_dynamic_offset, min_binding_size| wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset,
            min_binding_size,
        };
        let ty = match self {
            Self::Uniform => buffer(wgpu::BufferBindingType::Uniform, false, None),
            Self::DynamicUniform(size) => {
                buffer(wgpu::BufferBindingType::Uniform, true, wgpu::BufferSize::new(size as u64))
            }
            Self::ReadOnly => buffer(wgpu::BufferBindingType::Storage { read_only: true }, false, None),
            Self::ReadWrite => buffer(wgpu::BufferBindingType::Storage { read_only: false }, false, None),
            Self::WriteTexture => wgpu::BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format: wgpu::TextureFormat::Rgba8Unorm,
                view_dimension: wgpu::TextureViewDimension::D2,
            },
            Self::Absent => return None,
        };
        Some(wgpu::BindGroupLayoutEntry { binding, visibility: wgpu::ShaderStages::COMPUTE, ty, count: None })
    }
}

/// The bind-group layout whose binding `i` is `kinds[i]`.
pub(crate) fn bind_group_layout(device: &wgpu::Device, label: &str, kinds: &[Binding]) -> wgpu::BindGroupLayout {
    let entries: Vec<_> = (0u32..).zip(kinds).filter_map(|(i, kind)| kind.entry(i)).collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries: &entries })
}

/// The bind group whose binding `i` is `resources[i]` (`None`: no binding at `i`).
pub(crate) fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: Vec<Option<wgpu::BindingResource<'_>>>,
) -> wgpu::BindGroup {
    let entries: Vec<_> = (0u32..)
        .zip(resources)
        .filter_map(|(binding, resource)| Some(wgpu::BindGroupEntry { binding, resource: resource? }))
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
}

/// The bind group whose binding `i` is all of `buffers[i]`.
pub(crate) fn bind_buffers(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    bind_group(device, label, layout, buffers.iter().map(|b| Some(b.as_entire_binding())).collect())
}

/// The first `size` bytes of `buffer`: a [`Binding::DynamicUniform`] record, moved by the
/// dynamic offset of each dispatch.
pub(crate) fn record(buffer: &wgpu::Buffer, size: usize) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding { buffer, offset: 0, size: wgpu::BufferSize::new(size as u64) })
}

/// One compiled entry point and the layout of its bind group 0.
pub(crate) struct ComputeKernel {
    pub layout: wgpu::BindGroupLayout,
    pub pipeline: wgpu::ComputePipeline,
}

impl ComputeKernel {
    /// Compiles `entry` of `source` (reported as `shaders/{file}`) with the bindings `kinds`.
    ///
    /// # Errors
    /// [`BackendError::Compile`] with wgpu's message.
    pub fn new(
        device: &wgpu::Device,
        file: &str,
        source: &str,
        entry: &str,
        kinds: &[Binding],
    ) -> Result<Self, BackendError> {
        Self::with_guards(device, file, source, entry, kinds, super::Guards::KEPT)
    }

    /// [`Self::new`] with the given [`super::Guards`].
    ///
    /// # Errors
    /// [`BackendError::Compile`] with wgpu's message.
    pub fn with_guards(
        device: &wgpu::Device,
        file: &str,
        source: &str,
        entry: &str,
        kinds: &[Binding],
        guards: super::Guards,
    ) -> Result<Self, BackendError> {
        let layout = bind_group_layout(device, entry, kinds);
        let pipeline = super::compute_pipeline_with(device, file, source, &[(entry, &layout)], guards)?
            .pop()
            .ok_or_else(|| runtime(format!("no {entry} pipeline")))?;
        Ok(Self { layout, pipeline })
    }

    /// A bind group of this kernel whose binding `i` is all of `buffers[i]`.
    pub fn bind_buffers(&self, gpu: &Gpu, label: &str, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        bind_buffers(&gpu.device, label, &self.layout, buffers)
    }
}

/// A family's kernels by precision, each compiled on first use.
pub(crate) struct PerPrecision<T> {
    f32: Option<T>,
    f64: Option<T>,
}

impl<T> Default for PerPrecision<T> {
    fn default() -> Self {
        Self { f32: None, f64: None }
    }
}

impl<T> PerPrecision<T> {
    /// The kernel of `precision`, made by `make` the first time.
    ///
    /// # Errors
    /// What `make` returned (nothing is kept then).
    pub fn get_or_make(
        &mut self,
        precision: Precision,
        make: impl FnOnce() -> Result<T, BackendError>,
    ) -> Result<&T, BackendError> {
        let slot = match precision {
            Precision::F32 => &mut self.f32,
            Precision::F64 => &mut self.f64,
        };
        if slot.is_none() {
            *slot = Some(make()?);
        }
        slot.as_ref().ok_or_else(|| runtime("a kernel compiled a moment ago is missing"))
    }
}

/// Deep zoom's deltas are cached by their precision too.
impl From<Mantissa> for Precision {
    fn from(m: Mantissa) -> Self {
        match m {
            Mantissa::F32 => Self::F32,
            Mantissa::F64 => Self::F64,
        }
    }
}
