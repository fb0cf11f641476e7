//! The CPU comparison (thread `wavebrot-cpu-compare`): runs the active view's problem on a
//! copy, on the CPU (`cpu` or `cpu1`), for the timing panel's comparison. It lags at big grids,
//! only reports its rate, and idles half the time so it leaves cores to the UI and the active
//! backend. It computes only while it holds the [`ComputeTurn`], so the active backend and it
//! never run at the same time and neither figure includes the other's load.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use crate::backend::{self, Backend, BackendKind, Timing, WaveSim};
use crate::sim::fractal::mandelbrot::{self, MandelbrotParams};
use crate::sim::wave::scene::Scene;

use crate::app::worker::hush::Hush;
use crate::app::worker::messages::{CompareJob, CompareSample, ComputeTurn};

/// How often the two CPU sides are measured alike beside an active `cpu`: each time the
/// simulation waits and the window is held quiet for the pair's length (about 0.2 s), so the
/// rest of the period the waves play.
const ALIKE_PERIOD: Duration = Duration::from_millis(1000);

/// What the UI asks of the comparison thread.
enum CompareCmd {
    Job(CompareJob),
    Kind(BackendKind),
    Quit,
}

/// The app's side of the CPU comparison: the thread (started when first needed), the job it
/// runs, the CPU backend it runs on (`cpu1` beside the `cpu` backend, `cpu` beside the others),
/// and the compute turn it shares with the simulation thread.
pub struct Comparing {
    pub thread: Option<CpuCompare>,
    pub job: CompareJob,
    pub kind: BackendKind,
    pub turn: ComputeTurn,
    /// Held while the two CPU sides are measured alike: the window draws nothing new then (the
    /// simulation waits for its turn, so the picture would not change), leaving the cores to
    /// what is measured, and the measurement waits for the frame in flight.
    pub hush: Arc<Hush>,
}

impl Comparing {
    /// `hush`: shared with the window, which draws nothing new while a measurement holds it.
    #[must_use]
    pub fn new(turn: ComputeTurn, hush: Arc<Hush>) -> Self {
        Self { thread: None, job: CompareJob::Off, kind: BackendKind::Cpu, turn, hush }
    }

    /// True while a measurement asks the window not to redraw.
    #[must_use]
    pub fn quiet(&self) -> bool {
        self.hush.asked()
    }
}

/// Handle on the CPU comparison thread.
pub struct CpuCompare {
    commands: Sender<CompareCmd>,
    samples: Receiver<CompareSample>,
}

impl CpuCompare {
    /// Starts the thread on `kind` (`cpu` or `cpu1`).
    ///
    /// # Errors
    /// The thread could not be spawned.
    pub fn spawn(
        kind: BackendKind,
        turn: ComputeTurn,
        hush: Arc<Hush>,
        wake: impl Fn() + Send + 'static,
    ) -> std::io::Result<Self> {
        let (commands, rx) = mpsc::channel();
        let (tx, samples) = mpsc::channel();
        std::thread::Builder::new()
            .name("wavebrot-cpu-compare".into())
            .spawn(move || compare_loop(kind, &rx, &tx, &turn, &hush, &wake))?;
        Ok(Self { commands, samples })
    }

    pub fn set_job(&self, job: CompareJob) {
        let _ = self.commands.send(CompareCmd::Job(job));
    }

    pub fn set_kind(&self, kind: BackendKind) {
        let _ = self.commands.send(CompareCmd::Kind(kind));
    }

    /// Samples measured since the last call.
    pub fn drain(&self) -> Vec<CompareSample> {
        self.samples.try_iter().collect()
    }
}

impl Drop for CpuCompare {
    fn drop(&mut self) {
        // Not joined: a long Mandelbrot on the CPU may still be running; it ends on its own.
        let _ = self.commands.send(CompareCmd::Quit);
    }
}

fn cpu_backend(kind: BackendKind) -> backend::cpu::CpuBackend {
    let threads = if kind == BackendKind::Cpu1 { backend::cpu::Threads::One } else { backend::cpu::Threads::All };
    backend::cpu::CpuBackend::new(threads)
}

#[allow(clippy::too_many_lines, reason = "read whole; allow, not expect: a later split may shrink it")]
fn compare_loop(
    kind: BackendKind,
    rx: &Receiver<CompareCmd>,
    tx: &Sender<CompareSample>,
    turn: &ComputeTurn,
    hush: &Hush,
    wake: &dyn Fn(),
) {
    let mut backend = cpu_backend(kind);
    let mut device = backend.device_info().name;
    // Beside an active `cpu` (the copy is then `cpu1`), `cpu` is measured here too, in turn and
    // in the same conditions: the live figure shares the cores with the window's drawing.
    let partner_of = |k: BackendKind| (k == BackendKind::Cpu1).then(|| cpu_backend(BackendKind::Cpu));
    let mut partner = partner_of(kind);
    let mut partner_sim: Option<Box<dyn WaveSim>> = None;
    let mut job = CompareJob::Off;
    let mut sim: Option<Box<dyn WaveSim>> = None;
    // The scene `sim` runs.
    let mut running: Option<Arc<Scene>> = None;
    let mut mandelbrot_done = false;
    let mut counts: Vec<i32> = Vec::new();
    let mut chunk = 1u32;
    let mut wait = None::<Duration>;
    loop {
        let idle = match &job {
            CompareJob::Off => true,
            CompareJob::Mandelbrot(_) => mandelbrot_done,
            CompareJob::Wave(_) => false,
        };
        let cmd = if idle {
            rx.recv().map_err(|_| ())
        } else if let Some(w) = wait.take() {
            match rx.recv_timeout(w) {
                Ok(c) => Ok(c),
                Err(RecvTimeoutError::Timeout) => Err(()),
                Err(RecvTimeoutError::Disconnected) => return,
            }
        } else {
            rx.try_recv().map_err(|_| ())
        };
        match cmd {
            Ok(CompareCmd::Quit) => return,
            Ok(CompareCmd::Kind(k)) => {
                if k != backend.kind() {
                    backend = cpu_backend(k);
                    device = backend.device_info().name;
                    partner = partner_of(k);
                    partner_sim = None;
                    sim = None;
                    running = None;
                    mandelbrot_done = false;
                }
                continue;
            }
            Ok(CompareCmd::Job(j)) => {
                if j != job {
                    job = j;
                    mandelbrot_done = false;
                    if !matches!(job, CompareJob::Wave(_)) {
                        sim = None;
                        partner_sim = None;
                        running = None;
                    }
                }
                continue;
            }
            Err(()) if idle => return,
            Err(()) => {}
        }
        let (bk, dev) = (backend.kind(), device.clone());
        let sample = move |job, steps, timing, total_iters, error| CompareSample {
            kind: bk,
            device: dev.clone(),
            job,
            steps,
            timing,
            total_iters,
            error,
        };
        match &job {
            CompareJob::Off => {}
            CompareJob::Wave(p) => {
                // The same scene as the active backend: sources swapped in place, anything else
                // opened anew (its waves need not match: only its rate is compared).
                let same = running.as_ref().is_some_and(|r| Arc::ptr_eq(r, p) || **r == **p);
                let swapped =
                    !same && sim.as_mut().is_some_and(|s| s.set_sources(&p.sources).is_ok() && s.scene() == **p);
                if !same {
                    partner_sim = partner.as_ref().and_then(|b| b.new_scene(p).ok());
                }
                if !same && !swapped {
                    sim = None;
                    match backend.new_scene(p) {
                        Ok(s) => sim = Some(s),
                        Err(e) => {
                            let _ =
                                tx.send(sample(job.clone(), 0, Timing::wall(Duration::ZERO), 0, Some(e.to_string())));
                            wake();
                            job = CompareJob::Off;
                            running = None;
                            continue;
                        }
                    }
                }
                let p = Arc::clone(p);
                running = Some(p);
                let Some(s) = sim.as_mut() else { continue };
                let (advanced, alike) = {
                    let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    if partner_sim.is_some() {
                        hush.hold();
                    }
                    let both = (s.advance(chunk), partner_sim.as_mut().map(|s2| s2.advance(chunk)));
                    hush.release();
                    both
                };
                let pair = alike.as_ref().and_then(|r| r.as_ref().ok()).map(|t2| t2.wall);
                if let (Some(Ok(t2)), Some(b)) = (alike, partner.as_ref()) {
                    let _ = tx.send(CompareSample {
                        kind: b.kind(),
                        device: b.device_info().name,
                        job: job.clone(),
                        steps: chunk,
                        timing: t2,
                        total_iters: 0,
                        error: None,
                    });
                }
                match advanced {
                    Ok(t) => {
                        let _ = tx.send(sample(job.clone(), chunk, t, 0, None));
                        wake();
                        let per_step = t.wall.as_secs_f64() / f64::from(chunk);
                        chunk = ((0.1 / per_step.max(1e-9)) as u32).clamp(1, 1000);
                        // Half the time idle: leaves cores for the UI and the active backend;
                        // beside an active `cpu`, one pair a period (the waves play between).
                        wait = Some(
                            match pair {
                                Some(t2) => ALIKE_PERIOD.saturating_sub(t.wall + t2),
                                None => t.wall,
                            }
                            .max(Duration::from_millis(5)),
                        );
                    }
                    Err(e) => {
                        let _ = tx.send(sample(job.clone(), 0, Timing::wall(Duration::ZERO), 0, Some(e.to_string())));
                        job = CompareJob::Off;
                        running = None;
                    }
                }
            }
            CompareJob::Mandelbrot(p) => {
                let p = *p;
                mandelbrot_done = true;
                counts.clear();
                counts.resize(p.pixels(), 0);
                // Both pictures while holding the turn: the active backend's own rendering waits.
                let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if partner.is_some() {
                    hush.hold();
                }
                if let Some(b) = partner.as_mut() {
                    // The active `cpu`'s picture taken alike, first (the copy's last, so its
                    // figure arrives with the pair complete).
                    if let Ok(run) = b.mandelbrot(&p, &mut counts) {
                        let _ = tx.send(CompareSample {
                            kind: b.kind(),
                            device: b.device_info().name,
                            job: job.clone(),
                            steps: 0,
                            timing: run.timing,
                            total_iters: run.total_iters,
                            error: None,
                        });
                    }
                }
                let r = backend.mandelbrot(&p, &mut counts);
                hush.release();
                let s = match r {
                    Ok(run) => sample(job.clone(), 0, run.timing, run.total_iters, None),
                    Err(e) => sample(job.clone(), 0, Timing::wall(Duration::ZERO), 0, Some(e.to_string())),
                };
                let _ = tx.send(s);
                wake();
            }
        }
    }
}

/// The Mandelbrot check: the active backend's counts against the CPU reference's for the image
/// shown (same parameters), as the share of pixels that differ against [`CHECK_BUDGET`].
#[derive(Clone, Debug, PartialEq)]
pub struct MandelCheck {
    pub backend: BackendKind,
    pub against: BackendKind,
    pub params: MandelbrotParams,
    /// Share of pixels whose escape counts differ.
    pub share: f64,
    /// The share allowed ([`CHECK_BUDGET`]).
    pub budget: f64,
    pub error: Option<String>,
}

impl MandelCheck {
    /// True when the share is within the budget.
    #[must_use]
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.share <= self.budget
    }
}

/// The share of pixels the app's Check lets differ from `cpu1`: none. Every backend's kernels
/// round each product and sum as the CPU does (NVRTC `--fmad=false`, SPIR-V `NoContraction`), and
/// `verify` measures 0.0000% on every Mandelbrot case on the CPU, lavapipe and the H100's and
/// H200's CUDA and Vulkan, so one differing pixel is a bug and the Check says FAIL (DESIGN.md's
/// 0.01% / 1% stay `verify`'s budget for a GPU never seen).
pub const CHECK_BUDGET: f64 = 0.0;

/// Checks `kind` against `cpu1` (the reference, whatever `kind` is) on `params` (`fault`: a
/// test seam making the reference wrong) on the `wavebrot-mandel-check` thread (each on a
/// backend of its own, taking the compute turn); the answer comes on the returned channel.
///
/// # Errors
/// The thread could not be spawned.
pub fn check_mandelbrot(
    kind: BackendKind,
    params: MandelbrotParams,
    fault: bool,
    turn: ComputeTurn,
    wake: impl Fn() + Send + 'static,
) -> std::io::Result<Receiver<MandelCheck>> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new().name("wavebrot-mandel-check".into()).spawn(move || {
        let against = BackendKind::Cpu1;
        let run = || -> Result<f64, backend::BackendError> {
            let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut got = vec![0i32; params.pixels()];
            let mut want = vec![0i32; params.pixels()];
            backend::open(kind).and_then(|mut b| b.mandelbrot(&params, &mut got))?;
            backend::open(against).and_then(|mut b| b.mandelbrot(&params, &mut want))?;
            if fault && let Some(c) = want.get_mut(params.pixels() / 2) {
                // Test seam: the smallest fault, one pixel's count off by one.
                *c += 1;
            }
            Ok(mandelbrot::mismatch_frac(&got, &want))
        };
        let r = run();
        let _ = tx.send(MandelCheck {
            backend: kind,
            against,
            params,
            share: r.as_ref().map_or(f64::NAN, |s| *s),
            budget: CHECK_BUDGET,
            error: r.err().map(|e| e.to_string()),
        });
        wake();
    })?;
    Ok(rx)
}
