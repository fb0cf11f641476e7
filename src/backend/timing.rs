//! What a call measured: [`Timing`] with its [`TimingSource`], a Mandelbrot image's
//! [`MandelbrotRun`] and a lesson's [`LessonTiming`].

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Where a measured time came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum TimingSource {
    /// CUDA events recorded on the stream around the kernels.
    CudaEvents,
    /// wgpu timestamp queries written by the GPU.
    TimestampQueries,
    /// The host's monotonic clock around the call (includes launch and sync overhead).
    #[default]
    WallClock,
}

impl TimingSource {
    /// Short label for tables and the timing panel.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::CudaEvents => "CUDA events",
            Self::TimestampQueries => "GPU timestamps",
            Self::WallClock => "wall clock",
        }
    }
}

/// The time one call took: always the wall time, and the device's own measure of
/// its kernels where it has one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Host wall time of the whole call (launches, synchronisation, copies it did).
    pub wall: Duration,
    /// Time of the kernels alone, measured on the device.
    pub device: Option<Duration>,
    /// Where `device` came from (`WallClock` when it is `None`).
    pub source: TimingSource,
}

impl Timing {
    /// A wall-clock-only timing.
    #[must_use]
    pub fn wall(wall: Duration) -> Self {
        Self { wall, device: None, source: TimingSource::WallClock }
    }

    /// The device time where known, else the wall time.
    #[must_use]
    pub fn best(&self) -> Duration {
        self.device.unwrap_or(self.wall)
    }
}

/// One Mandelbrot image: counts and the iterations executed.
#[derive(Clone, Copy, Debug)]
pub struct MandelbrotRun {
    /// The rule's iterations over all pixels (`min(count + 1, iters)` each).
    pub total_iters: u64,
    /// Iterations executed where the kernel skipped some (deep zoom with BLA: single steps plus
    /// BLA steps, one each); `None`: every iteration of the rule was executed.
    pub executed_iters: Option<u64>,
    pub timing: Timing,
}

impl MandelbrotRun {
    /// The iterations executed ([`Self::executed_iters`], else the rule's).
    #[must_use]
    pub fn executed(&self) -> u64 {
        self.executed_iters.unwrap_or(self.total_iters)
    }
}

/// The times of one lesson kernel: the copies to and from the device and the kernel between.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LessonTiming {
    /// Host to device (wall clock, waited for); zero on the CPU, which copies nothing.
    pub upload: Duration,
    /// The kernel alone.
    pub kernel: Duration,
    /// Device to host (wall clock, waited for); zero on the CPU.
    pub download: Duration,
    /// Where `kernel` came from.
    pub source: TimingSource,
}

/// Milliseconds on the host's monotonic clock since the first call: the [`crate::sim::fractal::deep::Clock`]
/// the program hands the simulation, which reads no clock itself.
#[must_use]
pub fn monotonic_millis() -> f64 {
    static START: std::sync::OnceLock<web_time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(web_time::Instant::now).elapsed().as_secs_f64() * 1e3
}
