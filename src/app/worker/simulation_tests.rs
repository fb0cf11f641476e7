//! The simulation thread driven with a fake backend (the CPU with a memory limit).
use super::*;
use crate::app::worker::messages::{ComputeTurn, FrameSource, WaveFrame};
use crate::backend::{BackendError, BackendKind, DeviceInfo, MandelbrotRun};
use crate::sim::fractal::mandelbrot::MandelbrotParams;
use crate::sim::wave::WaveParams;

/// The CPU backend with room for at most `max_cells` cells.
struct Small {
    cpu: backend::cpu::CpuBackend,
    max_cells: usize,
}

impl Backend for Small {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }
    fn device_info(&self) -> DeviceInfo {
        DeviceInfo { name: "small".into(), ..DeviceInfo::default() }
    }
    fn new_wave_variant(
        &self,
        p: &WaveParams,
        variant: backend::WaveVariant,
    ) -> Result<Box<dyn WaveSim>, BackendError> {
        backend::check_fits(BackendKind::Cpu, "the fields", p.field_bytes(), Some(8 * self.max_cells as u64))?;
        self.cpu.new_wave_variant(p, variant)
    }
    fn new_scene(&self, scene: &Scene) -> Result<Box<dyn WaveSim>, BackendError> {
        backend::check_fits(BackendKind::Cpu, "the fields", 8 * scene.cells() as u64, Some(8 * self.max_cells as u64))?;
        self.cpu.new_scene(scene)
    }
    fn mandelbrot(&mut self, p: &MandelbrotParams, counts: &mut [i32]) -> Result<MandelbrotRun, BackendError> {
        self.cpu.mandelbrot(p, counts)
    }
}

fn worker(max_cells: usize) -> Worker {
    let init = WorkerInit {
        backend: BackendChoice::Cpu,
        scene: Scene::seed(100, 80, 0.1),
        look: WaveLook::default(),
        playing: false,
        steps_per_frame: 10,
        fastest: false,
        vmin: -0.1,
        vmax: 0.1,
        view: Demo::Wave,
        render_state: None,
        turn: ComputeTurn::default(),
    };
    let open: Opener = Box::new(move |_| {
        let b: Box<dyn Backend> =
            Box::new(Small { cpu: backend::cpu::CpuBackend::new(backend::cpu::Threads::One), max_cells });
        Ok(Opened { backend: b, notes: Vec::new(), shares_display: false })
    });
    Worker::spawn_with(init, open, || {}).expect("thread")
}

/// Every message up to the answer to a ping.
fn until_pong(w: &Worker, n: u64) -> Vec<Msg> {
    w.send(Command::Ping(n));
    let mut out = Vec::new();
    while let Some(m) = w.recv_timeout(Duration::from_secs(20)) {
        if matches!(m, Msg::Pong(k) if k == n) {
            return out;
        }
        out.push(m);
    }
    panic!("no answer from the worker");
}

#[test]
fn a_grid_too_big_is_refused_and_the_previous_keeps_running() {
    let w = worker(200 * 200);
    until_pong(&w, 1);
    w.send(Command::SetScene { scene: Box::new(Scene::seed(400, 400, 0.1)), keep_waves: false });
    let msgs = until_pong(&w, 2);
    assert!(msgs.iter().any(|m| matches!(m, Msg::Error(e) if e.contains("refused"))), "{msgs:?}");
    assert!(msgs.iter().all(|m| !matches!(m, Msg::Wave(_))), "no frame of a grid that is not there");
    assert!(msgs.iter().any(|m| matches!(m, Msg::Grid { nx: 100, ny: 80, refused: true })), "{msgs:?}");
    w.send(Command::Step);
    let msgs = until_pong(&w, 3);
    let frame = msgs.iter().find_map(|m| if let Msg::Wave(f) = m { Some(f) } else { None });
    let f = frame.expect("a frame of the old grid");
    assert_eq!((f.params.nx, f.params.ny, f.tstep), (100, 80, 10));
    assert_eq!(f.pixels.size(), (100, 80));
}

#[test]
fn big_grids_are_shown_subsampled() {
    let w = worker(usize::MAX / 16);
    until_pong(&w, 1);
    w.send(Command::SetScene { scene: Box::new(Scene::seed(4100, 64, 0.1)), keep_waves: false });
    let msgs = until_pong(&w, 2);
    let f = msgs.iter().rev().find_map(|m| if let Msg::Wave(f) = m { Some(f) } else { None }).expect("frame");
    assert_eq!((f.params.nx, f.params.ny), (4100, 64));
    assert_eq!(f.pixels.size(), (4100_usize.div_ceil(3), 64_usize.div_ceil(3)));
}

#[test]
fn fastest_fills_the_frame_budget_with_steps() {
    let w = worker(usize::MAX / 16);
    until_pong(&w, 1);
    w.send(Command::SetFastest(true));
    w.send(Command::SetPlaying(true));
    let mut steps = Vec::new();
    while steps.len() < 6 {
        match w.recv_timeout(Duration::from_secs(20)) {
            Some(Msg::Wave(f)) if f.steps > 0 => steps.push(f.steps),
            Some(_) => {}
            None => panic!("no frames while playing"),
        }
    }
    // A 100x80 grid steps in microseconds: a frame's budget holds far more than the slider's 10.
    assert!(steps[5] > 10 * 10, "steps per frame with fastest: {steps:?}");
}

#[test]
fn scene_edits_keep_the_waves_and_a_bad_scene_is_refused() {
    let w = worker(usize::MAX / 16);
    until_pong(&w, 1);
    w.send(Command::Step);
    let frame = |msgs: Vec<Msg>| msgs.into_iter().rev().find_map(|m| if let Msg::Wave(f) = m { Some(f) } else { None });
    let f = frame(until_pong(&w, 2)).expect("a frame");
    assert_eq!(f.tstep, 10);
    let mut walled = (*f.scene).clone();
    assert!(walled.paint_wall(70, 0, 72, 79));
    w.send(Command::SetScene { scene: Box::new(walled.clone()), keep_waves: true });
    w.send(Command::Step);
    let f = frame(until_pong(&w, 3)).expect("a frame");
    assert_eq!((f.tstep, &*f.scene), (20, &walled), "the wall runs and the time step goes on");
    let mut bad = walled.clone();
    bad.c2 = 0.9;
    w.send(Command::SetScene { scene: Box::new(bad), keep_waves: true });
    let msgs = until_pong(&w, 4);
    assert!(msgs.iter().any(|m| matches!(m, Msg::Error(e) if e.contains("c2"))), "{msgs:?}");
    w.send(Command::Step);
    let f = frame(until_pong(&w, 5)).expect("a frame");
    assert_eq!((f.tstep, &*f.scene), (30, &walled), "the last good scene keeps running");
}

/// Switching backend keeps the waves (seen: CPU -> wgpu -> CPU started again from rest): the time
/// step goes on, and the picture after the switch and a step is the one an unswitched run draws.
#[test]
fn switching_backend_carries_the_waves_over() {
    let frame = |msgs: Vec<Msg>| msgs.into_iter().rev().find_map(|m| if let Msg::Wave(f) = m { Some(f) } else { None });
    let pixels = |f: &WaveFrame| match &f.pixels {
        FrameSource::Rgba { rgba, .. } => rgba.clone(),
        other => panic!("a host picture expected, got {other:?}"),
    };
    let straight = worker(usize::MAX / 16);
    until_pong(&straight, 1);
    straight.send(Command::Step);
    straight.send(Command::Step);
    let want = frame(until_pong(&straight, 2)).expect("a frame");
    assert_eq!(want.tstep, 20);

    let w = worker(usize::MAX / 16);
    until_pong(&w, 1);
    w.send(Command::Step);
    assert_eq!(frame(until_pong(&w, 2)).expect("a frame").tstep, 10);
    w.send(Command::SetBackend(BackendChoice::Cpu));
    w.send(Command::Step);
    let got = frame(until_pong(&w, 3)).expect("a frame after the switch");
    assert_eq!(got.tstep, 20, "the time step goes on across the switch");
    assert!(pixels(&got) == pixels(&want), "the picture after the switch differs from the unswitched run's");
}

#[test]
fn a_ping_never_cuts_a_paused_step_and_a_reset_drops_the_steps_asked_before_it() {
    let w = worker(usize::MAX / 16);
    until_pong(&w, 1);
    // 600x600 on one thread: a step takes milliseconds, so 400 of them outlast the 40 ms slice
    // after which a frame looks at the commands waiting.
    w.send(Command::SetScene { scene: Box::new(Scene::seed(600, 600, 0.1)), keep_waves: false });
    w.send(Command::SetStepsPerFrame(400));
    // One Step first: the frame learns this grid's time a step, and slices the next at 40 ms.
    w.send(Command::Step);
    until_pong(&w, 2);
    let frame = |msgs: Vec<Msg>| msgs.into_iter().rev().find_map(|m| if let Msg::Wave(f) = m { Some(f) } else { None });
    // A Step, and the tests' sync while its frame runs.
    w.send(Command::Step);
    std::thread::sleep(Duration::from_millis(60));
    let msgs = until_pong(&w, 3);
    let frames = msgs.iter().filter(|m| matches!(m, Msg::Wave(f) if f.steps > 0)).count();
    let f = frame(msgs).expect("a frame");
    assert_eq!((f.tstep, frames), (800, 1), "(time step, frames) after a Step of 400 steps from step 400");
    // A Step asked while another runs (it cuts that frame), then Reset: the field stays reset.
    w.send(Command::Step);
    std::thread::sleep(Duration::from_millis(60));
    w.send(Command::Step);
    w.send(Command::Reset);
    let f = frame(until_pong(&w, 4)).expect("a frame");
    assert_eq!(f.tstep, 0, "after the reset the field is at step {}: a Step asked before it ran after it", f.tstep);
}
