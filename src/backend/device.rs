//! [`Backend`]: one device that opens wave problems and computes Mandelbrot, Julia and the
//! lessons' kernels; [`DeviceInfo`], what it says of itself; [`ReduceMethod`].

use serde::{Deserialize, Serialize};

use super::{BackendError, BackendKind, LessonTiming, MandelbrotRun, WaveSim, WaveVariant, unsupported};
use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::julia::JuliaParams;
use crate::sim::fractal::mandelbrot::MandelbrotParams;
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::Scene;

/// Facts about one backend's device, for `info` and the app.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// Human name of the device ("NVIDIA H100 80GB HBM3", "llvmpipe", "AMD EPYC ... (16 threads)").
    pub name: String,
    /// Further facts as `(label, value)` lines: compute capability, memory, driver...
    pub details: Vec<(String, String)>,
    /// Device memory that problems may use, where known.
    pub memory_bytes: Option<u64>,
    /// Peak memory bandwidth in GB/s where known or measured (for "share of peak").
    pub peak_gbps: Option<f64>,
    /// The last-level cache in bytes, where known (a GPU's L2, the CPU's largest cache): data
    /// larger than this streams from memory (the sweep marks it).
    #[serde(default)]
    pub cache_bytes: Option<u64>,
}

/// Largest difference between a backend's smooth escape value `nu` and the CPU's at a pixel
/// whose counts agree: the iterations are the same roundings (no FMA), only the two logarithms
/// may differ in their last bits (CUDA's `log2`, WGSL's `f32` `log2`) and wgpu forms `ν` in
/// `f32` (a rounding of `2^-24 ν`): `1e-3 + 2.5e-7 |ν|`, far below a colour step.
#[must_use]
pub fn smooth_tolerance(nu: f32) -> f32 {
    1e-3 + nu.abs() * 2.5e-7
}

/// Largest relative difference between a backend's distance estimate and the CPU's at a pixel
/// whose counts agree, and largest difference of a normal's component. The orbit's roundings
/// are the CPU's (no FMA), only the final logarithm and square roots differ (CUDA's `log` in
/// its last bits; wgpu forms the distance in `f32`). Measured (`tests/kernels/distance.rs`):
/// lavapipe 3.6e-7 (distance) and 1.2e-7 (normal), the CUDA source on the host 0; the
/// tolerance is about 3x that, still far below what a colour shows.
#[must_use]
pub fn distance_tolerance() -> (f32, f32) {
    (1e-6, 5e-7)
}

/// How a lesson's sum reduction adds up ([`Backend::reduce_sum`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceMethod {
    /// Partial sums per block, halved in shared memory (a tree), then the partials.
    Tree,
    /// Every element added to one counter with an atomic add.
    Atomic,
}

impl ReduceMethod {
    /// Both, the tree first.
    pub const ALL: [Self; 2] = [Self::Tree, Self::Atomic];

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Tree => "tree",
            Self::Atomic => "atomics",
        }
    }
}

/// One device that can run both demos.
pub trait Backend: Send {
    /// Which backend this is.
    fn kind(&self) -> BackendKind;

    /// The device it runs on.
    fn device_info(&self) -> DeviceInfo;

    /// True when the "device" is a software emulation on the CPU (llvmpipe): `auto` then
    /// prefers the CPU backend, which is faster than an emulated GPU.
    fn is_software(&self) -> bool {
        false
    }

    /// Allocates a wave problem (zero fields). Refuses, without allocating, a problem
    /// larger than the device's memory.
    ///
    /// # Errors
    /// Invalid parameters, out of memory, or a device failure.
    fn new_wave(&self, params: &WaveParams) -> Result<Box<dyn WaveSim>, BackendError> {
        self.new_wave_variant(params, WaveVariant::Auto)
    }

    /// [`Backend::new_wave`] with a chosen kernel variant. Backends with one kernel (the CPU)
    /// take only `Auto`.
    ///
    /// # Errors
    /// As `new_wave`, and [`BackendError::Invalid`] for a variant this backend lacks.
    fn new_wave_variant(&self, params: &WaveParams, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError>;

    /// Allocates a wave scene (zero fields). A scene that is the seed's rule
    /// ([`Scene::plain_params`]) runs on the plain kernel ([`Backend::new_wave`]), bit for bit
    /// today's results; any other on [`Backend::scene_kernel`].
    ///
    /// # Errors
    /// An invalid scene, out of memory, a device failure, or (for backends without a scene
    /// kernel) [`BackendError::Unavailable`] for a scene that is not plain.
    fn new_scene(&self, scene: &Scene) -> Result<Box<dyn WaveSim>, BackendError> {
        self.new_scene_variant(scene, WaveVariant::Auto)
    }

    /// [`Backend::new_scene`] with a chosen kernel variant (a plain scene runs that variant of the
    /// plain kernel): the variant checked against [`Backend::scene_variants`], the scene
    /// validated, then the plain kernel or the scene kernel. Backends provide the scene kernel
    /// ([`Backend::scene_kernel`]), not this.
    ///
    /// # Errors
    /// As `new_scene`, and [`BackendError::Invalid`] for a variant this backend lacks.
    fn new_scene_variant(&self, scene: &Scene, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        if variant != WaveVariant::Auto && !self.scene_variants().contains(&variant) {
            return Err(BackendError::Invalid(format!("{} has no scene variant `{}`", self.kind(), variant.name())));
        }
        scene.validate()?;
        match scene.plain_params() {
            Some(p) => self.new_wave_variant(&p, variant),
            None => self.scene_kernel(scene, variant),
        }
    }

    /// The scene kernel on a valid scene that is not plain, `variant` one of
    /// [`Backend::scene_variants`] or `Auto` ([`Backend::new_scene_variant`] checked both).
    ///
    /// # Errors
    /// Out of memory, a device failure, or (the default, for backends without a scene kernel)
    /// [`BackendError::Unavailable`].
    fn scene_kernel(&self, scene: &Scene, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        let _ = (scene, variant);
        Err(unsupported(self.kind(), "scenes"))
    }

    /// The scene kernel variants this backend offers besides `Auto` (empty: one scene kernel).
    fn scene_variants(&self) -> &'static [WaveVariant] {
        &[]
    }

    /// The wave kernel variants this backend offers besides `Auto` (empty: one kernel).
    fn wave_variants(&self) -> &'static [WaveVariant] {
        &[]
    }

    /// Computes escape counts into `counts` (`width*height`, row 0 at `miny`).
    ///
    /// # Errors
    /// Invalid parameters (a precision the device lacks), out of memory, or a device failure.
    fn mandelbrot(&mut self, params: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError>;

    /// [`Backend::mandelbrot`] that also writes each pixel's continuous escape value into
    /// `smooth` (`width*height`, same layout as `counts`), for smooth colouring
    /// ([`crate::sim::colour::palette`]). The counts are exactly those of [`Backend::mandelbrot`] (the
    /// seed's rule, bailout 2); the smooth value is [`crate::sim::fractal::mandelbrot::smooth_value`],
    /// taken a few iterations past the escape ([`crate::sim::fractal::mandelbrot::SMOOTH_EXTRA_ITERS`]),
    /// `iters` for pixels that never escape. Backends agree with the CPU's smooth values within
    /// [`smooth_tolerance`] wherever their counts agree. `total_iters` counts the rule's
    /// iterations only.
    ///
    /// # Errors
    /// As [`Backend::mandelbrot`]; `smooth` of the wrong length; (the default, for a backend
    /// without the kernel, such as a test double) [`BackendError::Unavailable`].
    fn mandelbrot_smooth(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        let _ = (params, counts, smooth);
        Err(unsupported(self.kind(), "smooth escape values"))
    }

    /// [`Backend::mandelbrot_smooth`] that also writes each pixel's exterior distance estimate
    /// and slope normal into `de` ([`crate::sim::fractal::distance`]: [`crate::sim::fractal::distance::DE_VALUES`]
    /// numbers a pixel, the distance in pixels, then the normal's `x` and `y`), for distance colouring and
    /// slope lighting. Counts and smooth values are exactly [`Backend::mandelbrot_smooth`]'s;
    /// distances agree with the CPU's within [`distance_tolerance`] where the counts agree. A
    /// kernel of its own, so the plain kernels keep their speed.
    ///
    /// # Errors
    /// As [`Backend::mandelbrot_smooth`]; `de` of the wrong length; (the default, for a backend
    /// without the kernel) [`BackendError::Unavailable`].
    fn mandelbrot_distance(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        let _ = (params, counts, smooth, de);
        Err(unsupported(self.kind(), "distance estimates"))
    }

    /// Computes the Julia set of `params.c` ([`crate::sim::fractal::julia`]): escape counts into `counts`
    /// (`width*height`, row 0 at `miny`) and, when `smooth` is given, each pixel's continuous
    /// escape value (as [`Backend::mandelbrot_smooth`]). Counts agree with the CPU's as the
    /// Mandelbrot family's do (CUDA bit for bit; budgets of
    /// [`crate::sim::fractal::mandelbrot::mismatch_tolerance`]).
    ///
    /// # Errors
    /// Invalid parameters (a precision the device lacks), buffers of the wrong length, out of
    /// memory, a device failure, or (the default, for a backend without the kernel)
    /// [`BackendError::Unavailable`].
    fn julia(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: Option<&mut [f32]>,
    ) -> Result<MandelbrotRun, BackendError> {
        let _ = (params, counts, smooth);
        Err(unsupported(self.kind(), "Julia sets"))
    }

    /// [`Backend::julia`] with smooth values and each pixel's exterior distance estimate and
    /// slope normal into `de`, as [`Backend::mandelbrot_distance`] does for the Mandelbrot set
    /// but with the derivative with respect to the starting point
    /// ([`crate::sim::fractal::distance::julia_distance_row`]). Counts and smooth values are
    /// exactly [`Backend::julia`]'s; distances agree with the CPU's within
    /// [`distance_tolerance`] where the counts agree.
    ///
    /// # Errors
    /// As [`Backend::mandelbrot_distance`].
    fn julia_distance(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        let _ = (params, counts, smooth, de);
        Err(unsupported(self.kind(), "distance estimates of Julia sets"))
    }

    /// The SAXPY lesson: `y = a*x + y` on the device, `x` and `y` copied there and `y` back.
    ///
    /// # Errors
    /// Out of memory, a device failure, or a backend without the lesson's kernel.
    fn saxpy(&mut self, a: f32, x: &[f32], y: &mut [f32]) -> Result<LessonTiming, BackendError> {
        let _ = (a, x, y);
        Err(unsupported(self.kind(), "the saxpy lesson's kernel"))
    }

    /// The reduction lesson: the wrapping sum of `x` by `method`, `x` copied to the device.
    ///
    /// # Errors
    /// Out of memory, a device failure, or a backend without the lesson's kernel.
    fn reduce_sum(&mut self, x: &[u32], method: ReduceMethod) -> Result<(u32, LessonTiming), BackendError> {
        let _ = (x, method);
        Err(unsupported(self.kind(), "the reduction lesson's kernel"))
    }

    /// Computes the escape counts of a deep view by perturbation around `job`'s reference
    /// orbit into `counts` (`width*height`, row 0 at `miny`).
    ///
    /// # Errors
    /// Out of memory, a device failure, or (the default, for a backend without a perturbation
    /// kernel, such as a test double) [`BackendError::Unavailable`].
    fn mandelbrot_deep(&mut self, job: &DeepJob, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        let _ = (job, counts);
        Err(unsupported(self.kind(), "deep zoom (perturbation)"))
    }

    /// [`Backend::mandelbrot_deep`] that also writes each pixel's continuous escape value into
    /// `smooth`, as [`Backend::mandelbrot_smooth`] does for shallow views (the extra iterations
    /// run on the full `z = Z + dz`, in the deltas' precision). The counts are exactly those of
    /// [`Backend::mandelbrot_deep`].
    ///
    /// # Errors
    /// As [`Backend::mandelbrot_deep`]; `smooth` of the wrong length.
    fn mandelbrot_deep_smooth(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        let _ = (job, counts, smooth);
        Err(unsupported(self.kind(), "smooth escape values of deep views"))
    }

    /// [`Backend::mandelbrot_deep_smooth`] that also writes each pixel's distance estimate and
    /// normal into `de`, as [`Backend::mandelbrot_distance`] does for shallow views: the
    /// derivative of the full `z = Z + δ` with respect to `c` rides beside the perturbed orbit
    /// (`d' = 2 z d + 1`, through BLA steps as `d' = A d + B`, unchanged by rebasing).
    ///
    /// # Errors
    /// As [`Backend::mandelbrot_deep_smooth`]; `de` of the wrong length; (the default, for a
    /// backend without the kernel) [`BackendError::Unavailable`].
    fn mandelbrot_deep_distance(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        let _ = (job, counts, smooth, de);
        Err(unsupported(self.kind(), "distance estimates of deep views"))
    }

    /// The arithmetic [`Backend::mandelbrot_deep`] uses for `job`, in words
    /// (`perturbation f64`, `perturbation f64, extended exponent`, ...).
    fn deep_arith(&self, job: &DeepJob) -> String {
        job.arith_label("f64")
    }
}
