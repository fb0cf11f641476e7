//! The CPU backend: the single-thread reference (`cpu1`) and the all-cores path (`cpu`).
//!
//! Both run the same row kernels ([`crate::sim::wave::update_row`],
//! [`crate::sim::fractal::mandelbrot::mandelbrot_row`]), so they give the same bits; `cpu` only
//! spreads rows over rayon's threads. One file per kernel family, the CPU twins of
//! `kernels/NAME.cu` and `shaders/NAME.wgsl` (the families: ARCHITECTURE.md's table, checked
//! against the files by `backend::families`); [`wave_blocked`] is the temporal blocking of `cpu`'s
//! wave and scene steps, `fields` the host fields both wave twins share.

pub mod colormap;
mod fields;
pub mod julia;
pub mod mandelbrot;
pub mod mandelbrot_deep;
pub mod reduction;
pub mod saxpy;
pub mod wave;
pub mod wave_blocked;
pub mod wave_scene;

use super::{
    Backend, BackendError, BackendKind, DeviceInfo, LessonTiming, MandelbrotRun, ReduceMethod, WaveSim, WaveVariant,
    check_fits,
};
use crate::sim::fractal::deep::DeepJob;
use crate::sim::fractal::julia::JuliaParams;
use crate::sim::fractal::mandelbrot::MandelbrotParams;
use crate::sim::fractal::perturb::Mantissa;
use crate::sim::wave::WaveParams;
use crate::sim::wave::scene::Scene;

pub use wave::{auto_depth, wave_tstep, wave_tsteps_blocked, wave_update};

/// How many threads a CPU backend uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// One thread: the reference.
    One,
    /// All of rayon's threads.
    All,
}

/// A CPU backend.
#[derive(Clone, Debug)]
pub struct CpuBackend {
    threads: Threads,
}

impl CpuBackend {
    #[must_use]
    pub fn new(threads: Threads) -> Self {
        Self { threads }
    }
}

/// The host's CPU model and the memory a problem may still take.
#[must_use]
pub fn host_facts() -> (String, Option<u64>, Option<u64>) {
    let mut sys = sysinfo::System::new();
    sys.refresh_memory();
    sys.refresh_cpu_all();
    let brand = sys.cpus().first().map_or_else(|| "unknown CPU".to_owned(), |c| c.brand().trim().to_owned());
    let avail = Some(sys.available_memory()).filter(|&b| b > 0);
    let total = Some(sys.total_memory()).filter(|&b| b > 0);
    (brand, avail, total)
}

/// Allocates `n` zeroed values, or reports the failure instead of aborting.
pub(crate) fn zeroed<T: Clone + Default>(kind: BackendKind, what: &str, n: usize) -> Result<Vec<T>, BackendError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| BackendError::OutOfMemory {
        kind,
        what: what.to_owned(),
        needed_bytes: (n * size_of::<T>()) as u64,
        available_bytes: 0,
    })?;
    v.resize(n, T::default());
    Ok(v)
}

impl CpuBackend {
    /// A scene on the scene kernel even when it is plain (`new_scene` runs a plain scene on the
    /// plain kernel): for tests that the two agree bit for bit.
    ///
    /// # Errors
    /// An invalid scene, or one larger than memory.
    pub fn new_scene_kernel(&self, scene: &Scene) -> Result<Box<dyn WaveSim>, BackendError> {
        scene.validate()?;
        let kind = self.kind();
        let (_, avail, _) = host_facts();
        let what = format!("wave scene {}x{}", scene.nx, scene.ny);
        // Two f32 fields and a u16 material id per cell.
        check_fits(kind, &what, 10 * scene.cells() as u64, avail)?;
        let f = zeroed(kind, &what, scene.cells())?;
        let g = zeroed(kind, &what, scene.cells())?;
        Ok(Box::new(wave_scene::CpuSceneWave::new(scene.clone(), self.threads, f, g)))
    }
}

impl Backend for CpuBackend {
    fn kind(&self) -> BackendKind {
        match self.threads {
            Threads::One => BackendKind::Cpu1,
            Threads::All => BackendKind::Cpu,
        }
    }

    fn device_info(&self) -> DeviceInfo {
        let (brand, avail, total) = host_facts();
        let threads = match self.threads {
            Threads::One => 1,
            Threads::All => rayon::current_num_threads(),
        };
        let mut details = vec![("threads".to_owned(), threads.to_string())];
        if let Some(t) = total {
            details.push(("memory".to_owned(), format!("{:.1} GiB", t as f64 / f64::from(1u32 << 30))));
        }
        DeviceInfo {
            name: format!("{brand} ({threads} thread{})", if threads == 1 { "" } else { "s" }),
            details,
            memory_bytes: avail,
            peak_gbps: None,
            cache_bytes: largest_cache_bytes(),
        }
    }

    fn new_wave_variant(&self, params: &WaveParams, variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        let blocked = match (self.threads, variant) {
            (Threads::All, WaveVariant::Auto | WaveVariant::Blocked) => true,
            (Threads::All, WaveVariant::Simple) | (Threads::One, WaveVariant::Auto) => false,
            (Threads::One, _) => {
                return Err(BackendError::Invalid(format!(
                    "{} is the reference: one wave kernel (both updates of a step fused in one pass); variant {variant} is for cpu, cuda and wgpu",
                    self.kind()
                )));
            }
            (Threads::All, WaveVariant::BlockedWorkgroup) => {
                return Err(BackendError::Invalid(format!(
                    "{} has no wave variant {variant} (a wgpu kernel); its variants are blocked and simple",
                    self.kind()
                )));
            }
        };
        params.validate()?;
        let kind = self.kind();
        let (_, avail, _) = host_facts();
        let what = format!("wave {}x{}", params.nx, params.ny);
        check_fits(kind, &what, params.field_bytes(), avail)?;
        let f = zeroed(kind, &what, params.cells())?;
        let g = zeroed(kind, &what, params.cells())?;
        Ok(Box::new(wave::CpuWave::new(*params, self.threads, f, g, blocked)))
    }

    /// `cpu`: `blocked` (temporal blocking over L2-sized row blocks, the default) and `simple`
    /// (one fused step per pass over memory on every thread); `cpu1` has one kernel.
    fn wave_variants(&self) -> &'static [WaveVariant] {
        match self.threads {
            Threads::All => &WaveVariant::CONCRETE,
            Threads::One => &[],
        }
    }

    fn scene_kernel(&self, scene: &Scene, _variant: WaveVariant) -> Result<Box<dyn WaveSim>, BackendError> {
        self.new_scene_kernel(scene)
    }

    fn mandelbrot(&mut self, params: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        params.validate()?;
        super::check_image_len(counts, None, params.pixels())?;
        Ok(mandelbrot::mandelbrot(self.threads, params, counts))
    }

    fn mandelbrot_smooth(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        params.validate()?;
        super::check_image_len(counts, Some(smooth), params.pixels())?;
        Ok(mandelbrot::mandelbrot_smooth(self.threads, params, counts, smooth))
    }

    fn mandelbrot_distance(
        &mut self,
        params: &MandelbrotParams,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        julia::mandelbrot_distance(self.threads, params, counts, smooth, de)
    }

    fn julia(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: Option<&mut [f32]>,
    ) -> Result<MandelbrotRun, BackendError> {
        julia::julia(self.threads, params, counts, smooth)
    }

    fn julia_distance(
        &mut self,
        params: &JuliaParams,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        julia::julia_distance(self.threads, params, counts, smooth, de)
    }

    fn saxpy(&mut self, a: f32, x: &[f32], y: &mut [f32]) -> Result<LessonTiming, BackendError> {
        if x.len() != y.len() {
            return Err(BackendError::Invalid(format!("saxpy: x has {} values, y {}", x.len(), y.len())));
        }
        let start = web_time::Instant::now();
        saxpy::saxpy(self.threads, a, x, y);
        Ok(LessonTiming { kernel: start.elapsed(), ..LessonTiming::default() })
    }

    fn reduce_sum(&mut self, x: &[u32], method: ReduceMethod) -> Result<(u32, LessonTiming), BackendError> {
        let start = web_time::Instant::now();
        let sum = match method {
            ReduceMethod::Tree => reduction::reduce_tree(self.threads, x),
            ReduceMethod::Atomic => reduction::reduce_atomic(self.threads, x),
        };
        Ok((sum, LessonTiming { kernel: start.elapsed(), ..LessonTiming::default() }))
    }

    fn mandelbrot_deep(&mut self, job: &DeepJob, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        mandelbrot_deep::mandelbrot_deep(self.threads, job, Mantissa::F64, counts)
    }

    fn mandelbrot_deep_smooth(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        mandelbrot_deep::mandelbrot_deep_smooth(self.threads, job, Mantissa::F64, counts, Some(smooth))
    }

    fn mandelbrot_deep_distance(
        &mut self,
        job: &DeepJob,
        counts: &mut [i32],
        smooth: &mut [f32],
        de: &mut [f32],
    ) -> Result<MandelbrotRun, BackendError> {
        mandelbrot_deep::mandelbrot_deep_distance(self.threads, job, Mantissa::F64, counts, smooth, de)
    }
}

/// The largest cache of CPU 0 (its last level), from Linux's sysfs; `None` elsewhere.
fn largest_cache_bytes() -> Option<u64> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("size")).ok())
        .filter_map(|s| parse_cache_size(s.trim()))
        .max()
}

/// `48K`, `2048K`, `32M` (sysfs's cache sizes) in bytes.
fn parse_cache_size(s: &str) -> Option<u64> {
    let (num, mult) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mult)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fractal::mandelbrot;
    use crate::sim::wave;

    #[test]
    fn both_cpu_paths_equal_the_reference_bit_for_bit() {
        for (nx, ny) in [(37, 53), (64, 3), (3, 64), (120, 97)] {
            let p = WaveParams::new(nx, ny, 0.1);
            let want = wave::reference(&p, 70);
            for threads in [Threads::One, Threads::All] {
                let mut sim = CpuBackend::new(threads).new_wave(&p).unwrap();
                sim.advance(30).unwrap();
                sim.advance(40).unwrap();
                let mut got = vec![0.0; p.cells()];
                sim.read_field(&mut got).unwrap();
                assert_eq!(got, want, "{threads:?} at {nx}x{ny}");
            }
        }
    }

    #[test]
    fn mandelbrot_paths_agree() {
        for precision in [mandelbrot::Precision::F64, mandelbrot::Precision::F32] {
            let p = MandelbrotParams { width: 97, height: 61, iters: 200, precision, ..MandelbrotParams::SEED };
            let (want, want_total) = mandelbrot::reference(&p);
            for threads in [Threads::One, Threads::All] {
                let mut counts = vec![0; p.pixels()];
                let run = CpuBackend::new(threads).mandelbrot(&p, &mut counts).unwrap();
                assert_eq!(counts, want);
                assert_eq!(run.total_iters, want_total);
            }
        }
    }

    #[test]
    fn reset_and_source_moves() {
        let p = WaveParams::new(20, 20, 0.5);
        let mut sim = CpuBackend::new(Threads::All).new_wave(&p).unwrap();
        sim.advance(5).unwrap();
        assert_eq!(sim.tstep(), 5);
        sim.reset().unwrap();
        assert_eq!(sim.tstep(), 0);
        let mut f = vec![1.0; p.cells()];
        sim.read_field(&mut f).unwrap();
        assert!(f.iter().all(|&v| v == 0.0));
        assert!(sim.set_source(25, 3).is_err());
        sim.set_source(3, 4).unwrap();
        sim.advance(1).unwrap();
        sim.read_field(&mut f).unwrap();
        assert_ne!(f[3 * 20 + 4 + 1], 0.0, "the wave starts at the new source");
    }

    #[test]
    fn a_grid_larger_than_memory_is_refused() {
        let p = WaveParams::new(1 << 20, 1 << 20, 0.1);
        match CpuBackend::new(Threads::All).new_wave(&p) {
            Err(BackendError::OutOfMemory { needed_bytes, .. }) => assert_eq!(needed_bytes, 8 << 40),
            Err(e) => panic!("wrong error: {e}"),
            Ok(_) => panic!("an 8 TiB grid must be refused"),
        }
    }
}
