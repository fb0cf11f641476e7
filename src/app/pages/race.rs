//! Race mode's state and threads: the same wave problem on two backends, each on its own
//! `wavebrot-race-N` thread running as fast as it can from a common start, with its step
//! counter, steps/s and a live picture. The UI is `race_view.rs`.
//!
//! The two threads are not given turns (unlike the CPU comparison, [`crate::app::worker::messages::ComputeTurn`]):
//! a race is two backends running at once, so on a machine with few cores they compete for
//! them, and [`RaceState::sharing`] says how.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use web_time::{Duration, Instant};

use crate::backend::{self, BackendKind};
use crate::sim::wave::{self, WaveParams};

/// Wall time a side aims its `advance` calls at: short enough to stop and redraw promptly, long
/// enough that call overhead is small.
const CALL_TARGET: Duration = Duration::from_millis(15);
/// How often a side colours a picture while running.
const PICTURE_EVERY: Duration = Duration::from_millis(50);
/// The colour range of the race pictures (the wave view's default).
const RANGE: (f32, f32) = (-0.1, 0.1);

/// What the UI asks of a race thread.
enum RaceCmd {
    /// Start from rest; steps/s are counted from this instant, the same for both sides.
    Start(Instant),
    /// Stop and go back to rest.
    Reset,
}

/// What a race side has done so far (read by the UI).
#[derive(Clone, Debug, Default)]
pub struct SideStatus {
    /// The device's name once the backend is open.
    pub device: Option<String>,
    /// Time steps since the start.
    pub steps: u64,
    /// Seconds since the common start (frozen when stopped).
    pub secs: f64,
    pub running: bool,
    /// Why the side cannot run.
    pub error: Option<String>,
    /// Increases with each new picture.
    pub picture_seq: u64,
}

impl SideStatus {
    /// Time steps per second since the start (`None` before any).
    #[must_use]
    pub fn steps_per_sec(&self) -> Option<f64> {
        (self.steps > 0 && self.secs > 0.0).then(|| self.steps as f64 / self.secs)
    }
}

/// One side's shared state: its status and its last picture (RGBA, `n`×`n`).
#[derive(Default)]
struct Shared {
    status: SideStatus,
    picture: Option<Vec<u8>>,
}

/// One racing backend on its own thread.
pub struct RaceSide {
    pub kind: BackendKind,
    shared: Arc<Mutex<Shared>>,
    tx: Option<Sender<RaceCmd>>,
    thread: Option<JoinHandle<()>>,
}

impl RaceSide {
    fn spawn(index: usize, kind: BackendKind, n: usize, wake: Arc<dyn Fn() + Send + Sync>) -> std::io::Result<Self> {
        let shared = Arc::new(Mutex::new(Shared::default()));
        let (tx, rx) = mpsc::channel();
        let s = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("wavebrot-race-{index}"))
            .spawn(move || side_thread(kind, n, &rx, &s, wake.as_ref()))?;
        Ok(Self { kind, shared, tx: Some(tx), thread: Some(thread) })
    }

    /// The side's status now.
    #[must_use]
    pub fn status(&self) -> SideStatus {
        self.shared.lock().map(|g| g.status.clone()).unwrap_or_default()
    }

    /// The picture if it is newer than `seen` (its sequence number with it).
    #[must_use]
    pub fn picture_after(&self, seen: u64) -> Option<(u64, Vec<u8>)> {
        let g = self.shared.lock().ok()?;
        (g.status.picture_seq > seen).then(|| g.picture.clone().map(|p| (g.status.picture_seq, p)))?
    }

    fn send(&self, c: RaceCmd) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(c);
        }
    }
}

impl Drop for RaceSide {
    fn drop(&mut self) {
        // Closing the channel ends the thread after its current call.
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[allow(clippy::too_many_lines, reason = "read whole; allow, not expect: a later split may shrink it")]
fn side_thread(kind: BackendKind, n: usize, rx: &Receiver<RaceCmd>, shared: &Mutex<Shared>, wake: &(dyn Fn() + Sync)) {
    let set = |f: &mut dyn FnMut(&mut Shared)| {
        if let Ok(mut g) = shared.lock() {
            f(&mut g);
        }
        wake();
    };
    let params = WaveParams::new(n, n, wave::DEFAULT_FREQ);
    let opened = backend::open(kind).and_then(|b| {
        let sim = b.new_wave(&params)?;
        Ok((b.device_info().name, sim))
    });
    let (device, mut sim) = match opened {
        Ok(x) => x,
        Err(e) => {
            set(&mut |g| g.status.error = Some(e.to_string()));
            return;
        }
    };
    let mut rgba = vec![0u8; params.cells() * 4];
    let mut seq = 0u64;
    let mut picture =
        |sim: &mut dyn backend::WaveSim, rgba: &mut Vec<u8>, status: SideStatus| -> Result<(), backend::BackendError> {
            sim.render_rgba(RANGE.0, RANGE.1, rgba)?;
            seq += 1;
            let p = rgba.clone();
            set(&mut |g| {
                g.status = SideStatus { picture_seq: seq, ..status.clone() };
                g.picture = Some(p.clone());
            });
            Ok(())
        };
    let mut status = SideStatus { device: Some(device), ..SideStatus::default() };
    if let Err(e) = picture(sim.as_mut(), &mut rgba, status.clone()) {
        let e = e.to_string();
        set(&mut |g| g.status.error = Some(e.clone()));
        return;
    }
    let mut start: Option<Instant> = None;
    let mut steps_per_call = 1u32;
    let mut last_picture = Instant::now();
    loop {
        let cmd = if start.is_some() {
            match rx.try_recv() {
                Ok(c) => Some(c),
                Err(mpsc::TryRecvError::Empty) => None,
                Err(mpsc::TryRecvError::Disconnected) => return,
            }
        } else {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(c) => Some(c),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        };
        match cmd {
            Some(RaceCmd::Start(t0)) => {
                if let Err(e) = sim.reset() {
                    set(&mut |g| g.status.error = Some(e.to_string()));
                    return;
                }
                start = Some(t0);
                status.steps = 0;
                status.secs = 0.0;
                status.running = true;
            }
            Some(RaceCmd::Reset) => {
                start = None;
                status = SideStatus { device: status.device.clone(), ..SideStatus::default() };
                if let Err(e) = sim.reset().map_err(|e| e.to_string()) {
                    set(&mut |g| g.status.error = Some(e.clone()));
                    return;
                }
                let _ = picture(sim.as_mut(), &mut rgba, status.clone());
                continue;
            }
            None => {}
        }
        let Some(t0) = start else { continue };
        let call = Instant::now();
        if let Err(e) = sim.advance(steps_per_call) {
            set(&mut |g| {
                g.status.error = Some(e.to_string());
                g.status.running = false;
            });
            return;
        }
        let took = call.elapsed();
        status.steps += u64::from(steps_per_call);
        status.secs = t0.elapsed().as_secs_f64();
        // Aim the next call at CALL_TARGET (at most doubling or halving at once).
        let ratio = CALL_TARGET.as_secs_f64() / took.as_secs_f64().max(1e-6);
        steps_per_call = ((f64::from(steps_per_call) * ratio.clamp(0.5, 2.0)) as u32).clamp(1, 4096);
        if last_picture.elapsed() >= PICTURE_EVERY {
            last_picture = Instant::now();
            if let Err(e) = picture(sim.as_mut(), &mut rgba, status.clone()) {
                let e = e.to_string();
                set(&mut |g| g.status.error = Some(e.clone()));
                return;
            }
        } else {
            let st = status.clone();
            set(&mut |g| {
                let seq = g.status.picture_seq;
                g.status = SideStatus { picture_seq: seq, ..st.clone() };
            });
        }
    }
}

/// The race: two sides on one grid.
pub struct RaceState {
    /// The backends picked for the left and right side.
    pub kinds: [BackendKind; 2],
    /// The grid side (cells per side).
    pub n: usize,
    sides: Vec<RaceSide>,
    /// The grid the open sides run.
    sides_n: usize,
    started: Option<Instant>,
}

impl Default for RaceState {
    fn default() -> Self {
        Self { kinds: [BackendKind::Cuda, BackendKind::Cpu], n: 512, sides: Vec::new(), sides_n: 0, started: None }
    }
}

impl RaceState {
    /// Opens both sides anew when the kinds or the grid changed (or nothing runs yet).
    ///
    /// # Errors
    /// A thread could not be started.
    pub fn ensure(&mut self, wake: &Arc<dyn Fn() + Send + Sync>) -> std::io::Result<()> {
        let same = self.sides.len() == 2 && self.sides.iter().zip(self.kinds).all(|(s, k)| s.kind == k);
        if same && self.sides_n == self.n {
            return Ok(());
        }
        self.stop();
        for (i, k) in self.kinds.into_iter().enumerate() {
            self.sides.push(RaceSide::spawn(i, k, self.n, Arc::clone(wake))?);
        }
        self.sides_n = self.n;
        Ok(())
    }

    /// Both sides, left then right (empty while closed).
    #[must_use]
    pub fn sides(&self) -> &[RaceSide] {
        &self.sides
    }

    /// True while the race runs.
    #[must_use]
    pub fn running(&self) -> bool {
        self.started.is_some()
    }

    /// Starts both sides at the same instant, from rest.
    pub fn start(&mut self) {
        let t0 = Instant::now();
        for s in &self.sides {
            s.send(RaceCmd::Start(t0));
        }
        self.started = Some(t0);
    }

    /// Stops both sides and puts them back at rest.
    pub fn reset(&mut self) {
        for s in &self.sides {
            s.send(RaceCmd::Reset);
        }
        self.started = None;
    }

    /// Ends both threads (leaving the race view).
    pub fn stop(&mut self) {
        self.sides.clear();
        self.started = None;
    }

    /// How the two sides share this machine's cores.
    #[must_use]
    pub fn sharing(&self) -> String {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        sharing(self.kinds, cores)
    }
}

/// How two racing backends share `cores` cores (a GPU side needs a core to feed its GPU).
#[must_use]
pub fn sharing(kinds: [BackendKind; 2], cores: usize) -> String {
    let c = if cores == 1 { "1 core".to_owned() } else { format!("{cores} cores") };
    let [a, b] = kinds;
    let gpu = kinds.iter().find(|k| k.is_gpu());
    match (a.is_gpu(), b.is_gpu(), kinds.contains(&BackendKind::Cpu)) {
        (true, true, _) => format!(
            "{c}: each GPU side feeds its GPU from one core; they compete for the cores only when there are fewer than two"
        ),
        (false, false, _) if a == b => {
            format!("{c}: both sides are {a} and share the cores, so each runs at about half its speed alone")
        }
        (false, false, true) => format!(
            "{c}: the cpu side takes all of them and the cpu1 side one, so they compete: both are slower than alone"
        ),
        (false, false, false) => format!("{c}: two cpu1 sides, one core each where there are two"),
        (_, _, true) => {
            let g = gpu.map_or("GPU", |k| k.name());
            if cores <= 2 {
                format!(
                    "{c}: the cpu side takes both, and the {g} side needs one to feed its GPU: they compete, so both are slower than alone"
                )
            } else {
                format!(
                    "{c}: the cpu side takes all of them, and the {g} side needs one to feed its GPU: they compete for it"
                )
            }
        }
        _ => {
            let g = gpu.map_or("GPU", |k| k.name());
            if cores >= 2 {
                format!("{c}: the cpu1 side uses one and the {g} side another to feed its GPU")
            } else {
                format!("{c}: the cpu1 side and the {g} side's feeding thread take turns on it")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sharing_says_the_cpu_side_takes_both_of_two_cores() {
        let s = sharing([BackendKind::Cuda, BackendKind::Cpu], 2);
        assert!(s.starts_with("2 cores: the cpu side takes both"), "{s}");
        assert!(s.contains("compete"), "{s}");
        let s = sharing([BackendKind::Cpu1, BackendKind::Wgpu], 8);
        assert!(s.contains("cpu1 side uses one"), "{s}");
    }
}
