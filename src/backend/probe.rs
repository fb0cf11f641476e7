//! Opening a backend: [`open`] one kind, [`open_choice`] (`auto`: the fastest that runs here),
//! [`probe_all`] for `info` and the app's picker.

#[cfg(feature = "cuda")]
use super::cuda;
use super::{Backend, BackendChoice, BackendError, BackendKind, DeviceInfo, WaveVariant, cpu, wgpu};

/// Opens the backend of `kind`.
///
/// # Errors
/// [`BackendError::Unavailable`] with the reason when it cannot run here.
pub fn open(kind: BackendKind) -> Result<Box<dyn Backend>, BackendError> {
    match kind {
        #[cfg(feature = "cuda")]
        BackendKind::Cuda => cuda::open(),
        #[cfg(not(feature = "cuda"))]
        BackendKind::Cuda => Err(BackendError::Unavailable {
            kind,
            reason: "this wavebrot was built without the `cuda` feature".to_owned(),
        }),
        BackendKind::Wgpu => wgpu::open(),
        BackendKind::Cpu => Ok(Box::new(cpu::CpuBackend::new(cpu::Threads::All))),
        BackendKind::Cpu1 => Ok(Box::new(cpu::CpuBackend::new(cpu::Threads::One))),
    }
}

/// `first` and, where it is CUDA, a backend on every other CUDA device of the machine (one
/// context each): the devices a job spread over GPUs runs on ([`super::spread`]). A device that
/// does not open is left out with a note saying why.
#[must_use]
pub fn every_device(first: Box<dyn Backend>) -> (Vec<Box<dyn Backend>>, Vec<String>) {
    #[cfg(feature = "cuda")]
    let (others, notes) = {
        let mut notes = Vec::new();
        let mut others: Vec<Box<dyn Backend>> = Vec::new();
        if first.kind() == BackendKind::Cuda {
            for i in 1..cuda::device_count() {
                match cuda::open_device(i) {
                    Ok(b) => others.push(b),
                    Err(e) => notes.push(format!("CUDA device {i} left out: {e}")),
                }
            }
        }
        (others, notes)
    };
    #[cfg(not(feature = "cuda"))]
    let (others, notes): (Vec<Box<dyn Backend>>, Vec<String>) = (Vec::new(), Vec::new());
    let mut all = vec![first];
    all.extend(others);
    (all, notes)
}

/// Opens what `choice` asks for; `auto` takes the first of CUDA, wgpu, CPU that opens and
/// returns why the ones before it could not.
///
/// # Errors
/// The reason the one named backend is unavailable.
pub fn open_choice(choice: BackendChoice) -> Result<(Box<dyn Backend>, Vec<String>), BackendError> {
    if let Some(kind) = choice.kind() {
        return open(kind).map(|b| (b, Vec::new()));
    }
    let mut notes = Vec::new();
    for kind in [BackendKind::Cuda, BackendKind::Wgpu] {
        match open(kind) {
            Ok(b) if b.is_software() => {
                notes
                    .push(format!("{kind} runs on {}, a software emulation slower than the CPU", b.device_info().name));
            }
            Ok(b) => return Ok((b, notes)),
            Err(e) => notes.push(e.to_string()),
        }
    }
    Ok((Box::new(cpu::CpuBackend::new(cpu::Threads::All)), notes))
}

/// Why a backend cannot run here: the reason [`open`] gave (no device, no driver, not probed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotAvailable(pub String);

/// Whether each backend can run here: its device, or the reason it cannot.
#[must_use]
pub fn probe_all() -> Vec<(BackendKind, Result<DeviceInfo, NotAvailable>)> {
    probe_all_with_variants().into_iter().map(|(k, p)| (k, p.map(|(info, _)| info))).collect()
}

/// What [`probe_all_with_variants`] finds of one backend: its device and wave kernel
/// variants, or why it cannot run here.
pub type Probe = Result<(DeviceInfo, &'static [WaveVariant]), NotAvailable>;

/// [`probe_all`] with the wave kernel variants each available backend offers (`info`).
#[must_use]
pub fn probe_all_with_variants() -> Vec<(BackendKind, Probe)> {
    BackendKind::ALL
        .iter()
        .map(|&k| {
            let probe = open(k).map(|b| (b.device_info(), b.wave_variants())).map_err(|e| {
                NotAvailable(match e {
                    BackendError::Unavailable { reason, .. } => reason,
                    other => other.to_string(),
                })
            });
            (k, probe)
        })
        .collect()
}
