//! The names of the choices: [`BackendKind`] (what computes), [`BackendChoice`] (a kind or
//! `auto`, as the CLI takes it) and [`WaveVariant`] (which wave kernel a GPU backend runs).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The ways wavebrot can compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
pub enum BackendKind {
    /// NVIDIA GPUs through CUDA (kernels compiled at run time with NVRTC).
    Cuda,
    /// Any GPU through wgpu compute shaders (Vulkan, Metal, DX12).
    Wgpu,
    /// All CPU cores (rayon).
    Cpu,
    /// One CPU thread: the reference every other backend is compared with.
    #[value(name = "cpu1")]
    Cpu1,
}

impl BackendKind {
    /// Every kind, fastest first: the order `auto` tries them in.
    pub const ALL: [Self; 4] = [Self::Cuda, Self::Wgpu, Self::Cpu, Self::Cpu1];

    /// The name used on the command line and in JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Cuda => "cuda",
            Self::Wgpu => "wgpu",
            Self::Cpu => "cpu",
            Self::Cpu1 => "cpu1",
        }
    }

    /// True for the GPU backends.
    #[must_use]
    pub fn is_gpu(self) -> bool {
        matches!(self, Self::Cuda | Self::Wgpu)
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a backend choice on the command line may be: a kind or `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, Default)]
pub enum BackendChoice {
    /// The fastest available: CUDA, then wgpu, then the CPU.
    #[default]
    Auto,
    Cuda,
    Wgpu,
    Cpu,
    #[value(name = "cpu1")]
    Cpu1,
}

impl BackendChoice {
    /// The kind asked for, or `None` for `auto`.
    #[must_use]
    pub fn kind(self) -> Option<BackendKind> {
        match self {
            Self::Auto => None,
            Self::Cuda => Some(BackendKind::Cuda),
            Self::Wgpu => Some(BackendKind::Wgpu),
            Self::Cpu => Some(BackendKind::Cpu),
            Self::Cpu1 => Some(BackendKind::Cpu1),
        }
    }

    /// The choice of exactly `kind`.
    #[must_use]
    pub fn of(kind: BackendKind) -> Self {
        match kind {
            BackendKind::Cuda => Self::Cuda,
            BackendKind::Wgpu => Self::Wgpu,
            BackendKind::Cpu => Self::Cpu,
            BackendKind::Cpu1 => Self::Cpu1,
        }
    }
}

/// Which wave kernel a GPU backend runs: `wavebrot bench --variant`, listed by `info`.
///
/// Both variants compute the same rule (CUDA bit for bit, wgpu within the wave tolerance);
/// they differ in how often each cell goes to memory, which is what the bench shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize, clap::ValueEnum)]
pub enum WaveVariant {
    /// The backend's best for its device: `blocked` on GPUs, `simple` on software adapters
    /// (llvmpipe runs shaders on the CPU, where recomputing halos costs more than it saves).
    #[default]
    Auto,
    /// Temporal blocking: several time steps per launch on tiles held on chip.
    Blocked,
    /// wgpu only: the first temporal-blocking kernel (neighbours through workgroup memory,
    /// two barriers per update), kept to compare with `blocked` and for devices with less
    /// workgroup memory than `blocked` needs.
    BlockedWorkgroup,
    /// One update per launch, each cell reading its neighbours from memory: the seed's
    /// kernel shape, at the 12-bytes-per-update DRAM floor.
    Simple,
}

impl WaveVariant {
    /// The concrete variants of every backend (what `auto` picks from).
    pub const CONCRETE: [Self; 2] = [Self::Blocked, Self::Simple];
    /// The concrete variants of the wgpu backend.
    pub const WGPU: [Self; 3] = [Self::Blocked, Self::BlockedWorkgroup, Self::Simple];

    /// The name used on the command line and in JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Blocked => "blocked",
            Self::BlockedWorkgroup => "blocked-workgroup",
            Self::Simple => "simple",
        }
    }
}

impl fmt::Display for WaveVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
