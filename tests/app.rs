//! The desktop app driven as a user drives it (egui_kittest): sliders, buttons, keys, the
//! wheel and the backend picker, each checked against the model; plus snapshots of both
//! views with the timing numbers hidden.
//!
//! Snapshots need a wgpu adapter (lavapipe is enough). Without one they skip (logged, see
//! `tests/common`), a failure where wgpu is required (`.ci/run`).

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;
use app_support::settle;

mod common;

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use wavebrot::app::Demo;
use wavebrot::app::WavebrotApp;
use wavebrot::backend::{BackendChoice, BackendKind};

const SIZE: [f32; 2] = [1200.0, 720.0];

fn harness(view: Demo) -> Harness<'static, WavebrotApp> {
    app_support::harness(view, SIZE)
}

fn tstep(h: &Harness<'static, WavebrotApp>) -> u32 {
    h.state().wave_running().expect("a wave frame arrived").1
}

#[test]
fn wave_runs_from_the_first_frame_and_step_advances() {
    let mut h = harness(Demo::Wave);
    assert_eq!(tstep(&h), 80, "two frames of 40 steps before the first picture");
    h.get_by_label("Step").click();
    settle(&mut h);
    assert_eq!(tstep(&h), 120);
    h.key_press(egui::Key::S);
    settle(&mut h);
    assert_eq!(tstep(&h), 160, "S steps one frame");
    h.key_press(egui::Key::R);
    settle(&mut h);
    assert_eq!(tstep(&h), 0, "R resets");
}

#[test]
fn frequency_slider_changes_the_running_problem() {
    let mut h = harness(Demo::Wave);
    h.get_by_role_and_label(Role::Slider, "frequency").set_value_accesskit(0.3);
    settle(&mut h);
    assert!((h.state().settings().wave.freq - 0.3).abs() < 1e-9);
    h.get_by_label("Step").click();
    settle(&mut h);
    let (p, _) = h.state().wave_running().expect("frame");
    assert!((p.freq - 0.3).abs() < 1e-9, "the worker runs at the new frequency, got {}", p.freq);
}

#[test]
fn grid_sliders_reallocate_and_keep_running() {
    let mut h = harness(Demo::Wave);
    h.get_by_role_and_label(Role::Slider, "nx").set_value_accesskit(256.0);
    settle(&mut h);
    h.get_by_role_and_label(Role::Slider, "ny").set_value_accesskit(100.0);
    settle(&mut h);
    let (p, t) = h.state().wave_running().expect("frame");
    assert_eq!((p.nx, p.ny), (256, 100));
    assert_eq!(t, 0, "a new grid starts at rest");
    h.get_by_label("Step").click();
    settle(&mut h);
    assert_eq!(tstep(&h), 40);
}

#[test]
fn play_pause_and_reset() {
    let mut h = harness(Demo::Wave);
    h.get_by_label("Play").click();
    h.run_steps(2);
    assert!(h.state().settings().wave.playing);
    let before = tstep(&h);
    // Until it advances, up to 20 s: a loaded 2-core machine may take a while to run a frame.
    let end = web_time::Instant::now() + Duration::from_secs(20);
    while tstep(&h) == before && web_time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
        h.run_steps(1);
    }
    assert!(tstep(&h) > before, "playing advances the simulation");
    h.get_by_label("Pause").click();
    settle(&mut h);
    assert!(!h.state().settings().wave.playing);
    h.get_by_label("Reset").click();
    settle(&mut h);
    assert_eq!(tstep(&h), 0);
    h.key_press(egui::Key::Space);
    h.run_steps(1);
    assert!(h.state().settings().wave.playing, "space plays");
    h.key_press(egui::Key::Space);
    h.run_steps(1);
    assert!(!h.state().settings().wave.playing, "space pauses");
}

fn press(h: &mut Harness<'static, WavebrotApp>, pos: egui::Pos2, button: egui::PointerButton, pressed: bool) {
    h.event(egui::Event::PointerButton { pos, button, pressed, modifiers: egui::Modifiers::NONE });
}

/// A click with `button` at cell `(x, y)` of the wave picture.
fn click_cell(h: &mut Harness<'static, WavebrotApp>, x: f64, y: f64, button: egui::PointerButton) {
    let pos = h.state().field_point(x, y).expect("the field is drawn");
    h.hover_at(pos);
    h.run_steps(1);
    press(h, pos, button, true);
    h.run_steps(1);
    press(h, pos, button, false);
    settle(h);
}

/// A primary drag through the cells `path` of the wave picture.
fn drag_cells(h: &mut Harness<'static, WavebrotApp>, path: &[(f64, f64)]) {
    let at = |h: &Harness<'static, WavebrotApp>, (x, y): (f64, f64)| h.state().field_point(x, y).expect("field");
    let first = at(h, path[0]);
    h.hover_at(first);
    h.run_steps(1);
    press(h, first, egui::PointerButton::Primary, true);
    h.run_steps(1);
    let mut from = first;
    for &p in &path[1..] {
        // In small moves, so egui sees a drag and the brush a continuous stroke.
        let to = at(h, p);
        for k in 1..=4 {
            h.hover_at(from + (to - from) * (k as f32 / 4.0));
            h.run_steps(1);
        }
        from = to;
    }
    let last = at(h, path[path.len() - 1]);
    press(h, last, egui::PointerButton::Primary, false);
    settle(h);
}

fn running_scene(h: &Harness<'static, WavebrotApp>) -> wavebrot::sim::wave::scene::Scene {
    h.state().wave_scene().expect("a wave frame arrived").clone()
}

#[test]
fn sources_are_added_dragged_and_deleted_on_the_field() {
    let mut h = harness(Demo::Wave);
    assert_eq!(running_scene(&h).sources.len(), 1);
    assert_eq!(running_scene(&h).sources[0].anchor(), (80, 60));
    click_cell(&mut h, 30.5, 90.5, egui::PointerButton::Primary);
    let s = running_scene(&h);
    assert_eq!(s.sources.len(), 2, "a click on empty field adds a source: {:?}", s.sources);
    assert_eq!(s.sources[1].anchor(), (30, 90));
    let t0 = tstep(&h);
    drag_cells(&mut h, &[(30.5, 90.5), (50.5, 40.5)]);
    let s = running_scene(&h);
    assert_eq!(s.sources[1].anchor(), (50, 40), "dragged: {:?}", s.sources);
    assert_eq!(tstep(&h), t0, "moving a source keeps the waves (paused: no steps)");
    click_cell(&mut h, 50.5, 40.5, egui::PointerButton::Secondary);
    assert_eq!(running_scene(&h).sources.len(), 1, "a right click deletes the source");
    h.get_by_label("Step").click();
    settle(&mut h);
    assert_eq!(tstep(&h), t0 + 40, "and the scene keeps running");
}

#[test]
fn painting_a_wall_changes_the_running_scene_and_keeps_the_waves() {
    let mut h = harness(Demo::Wave);
    let t0 = tstep(&h);
    h.get_by_label("Walls").click();
    h.run_steps(1);
    drag_cells(&mut h, &[(120.5, 10.5), (120.5, 110.5)]);
    let s = running_scene(&h);
    assert!(!s.walls.is_empty(), "a stroke paints walls");
    let covered = |x: i64, y: i64| s.walls.iter().any(|w| w.contains(x, y));
    assert!((15..=105).all(|y| covered(120, y)), "the stroke's cells are walls: {:?}", s.walls);
    assert_eq!(tstep(&h), t0, "painting keeps the time step and the waves");
    h.get_by_label("Step").click();
    settle(&mut h);
    assert_eq!(tstep(&h), t0 + 40);
}

#[test]
fn a_preset_picked_from_the_menu_runs_and_the_intensity_view_shows_it() {
    let mut h = harness(Demo::Wave);
    h.get_by_label("preset").click();
    h.run_steps(3);
    h.get_by_label("double-slit").click();
    settle(&mut h);
    let s = running_scene(&h);
    assert_eq!((s.nx, s.ny, s.walls.len()), (640, 480, 3), "the double slit runs");
    assert_eq!(tstep(&h), 0, "a new preset starts from rest");
    assert!(h.state().settings().wave.theory, "its theory overlay is on");
    assert!(h.state().settings().wave.look.intensity, "it opens in the intensity view");
    h.get_by_label("field").click();
    settle(&mut h);
    assert!(!h.state().settings().wave.look.intensity);
    h.get_by_label("intensity").click();
    settle(&mut h);
    h.get_by_label("Step").click();
    settle(&mut h);
    let m = h.state().measured().expect("measured");
    assert!(m.intensity && m.averaged_steps > 0.0, "{m:?}");
    assert!(m.energy.is_some_and(|e| e > 0.0), "energy measured: {:?}", m.energy);
}

#[test]
fn keys_switch_views_and_mandelbrot_renders() {
    let mut h = harness(Demo::Wave);
    h.key_press(egui::Key::Num2);
    settle(&mut h);
    assert_eq!(h.state().settings().view, Demo::Mandelbrot);
    assert!(h.state().mandelbrot_shown().is_some(), "the Mandelbrot image was rendered");
    h.key_press(egui::Key::Num1);
    settle(&mut h);
    assert_eq!(h.state().settings().view, Demo::Wave);
}

#[test]
fn backend_picker_switches_and_disables_unavailable() {
    let mut h = harness(Demo::Wave);
    assert_eq!(h.state().active_backend(), Some(BackendKind::Cpu));
    assert!(h.get_by_label("CUDA").accesskit_node().is_disabled(), "CUDA is not probed in tests");
    h.get_by_label("auto").click();
    settle(&mut h);
    assert_eq!(h.state().settings().backend, BackendChoice::Auto);
    assert!(h.state().active_backend().is_some());
    h.get_by_label("CPU").click();
    settle(&mut h);
    assert_eq!(h.state().active_backend(), Some(BackendKind::Cpu));
    assert!(h.state().wave_running().is_some(), "the problem was recreated on the new backend");
}

/// A harness that renders, or `None` (with a note) where no wgpu adapter exists.
fn rendering_harness(view: Demo) -> Option<Harness<'static, WavebrotApp>> {
    let instance = wgpu::Instance::default();
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()));
    if let Err(e) = adapter {
        common::skip(common::Need::Wgpu, &format!("no wgpu adapter to draw with: {e}"));
        return None;
    }
    let mut setup = egui_kittest::wgpu::default_wgpu_setup();
    if let egui_wgpu::WgpuSetup::CreateNew(s) = &mut setup {
        s.device_descriptor = std::sync::Arc::new(wavebrot::app::device_descriptor);
    }
    let mut h = Harness::builder()
        .with_size(SIZE)
        .wgpu_setup(setup)
        .build_eframe(move |cc| WavebrotApp::new_for_test(cc, view).expect("app starts"));
    settle(&mut h);
    Some(h)
}

/// Compares the picture with `tests/snapshots/NAME.png`. `UPDATE_SNAPSHOTS=1` makes
/// egui_kittest rewrite the file instead of comparing: that is logged as a skip of the
/// comparison, so a run with it set never reads as a pass (`.ci/run` refuses it).
fn snapshot(h: &mut Harness<'static, WavebrotApp>, name: &str) {
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        common::skip(
            common::Need::Snapshot,
            &format!("UPDATE_SNAPSHOTS is set: tests/snapshots/{name}.png was rewritten, not compared"),
        );
    }
    h.snapshot(name);
}

#[test]
fn snapshot_wave_view() {
    let Some(mut h) = rendering_harness(Demo::Wave) else { return };
    snapshot(&mut h, "wave_view");
}

#[test]
fn snapshot_mandelbrot_view() {
    let Some(mut h) = rendering_harness(Demo::Mandelbrot) else { return };
    snapshot(&mut h, "mandelbrot_view");
}

/// Resident memory of this process in bytes.
#[cfg(target_os = "linux")]
fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("rss field");
    pages * 4096
}

/// Runs [`memory_probe`] alone in a child process, so other tests' allocations do not count.
#[cfg(target_os = "linux")]
#[test]
fn memory_stays_flat_when_the_grid_goes_back_and_forth() {
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args(["memory_probe", "--exact", "--ignored", "--nocapture"])
        .output()
        .expect("run the probe");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("1 passed"), "memory probe failed:\n{text}");
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "run alone by memory_stays_flat_when_the_grid_goes_back_and_forth"]
fn memory_probe() {
    let mut h = harness(Demo::Wave);
    let cycle = |h: &mut Harness<'static, WavebrotApp>| {
        for side in [2048.0, 64.0] {
            h.get_by_role_and_label(Role::Slider, "nx").set_value_accesskit(side);
            h.get_by_role_and_label(Role::Slider, "ny").set_value_accesskit(side);
            settle(h);
        }
    };
    cycle(&mut h);
    cycle(&mut h);
    let after_two = rss_bytes();
    for _ in 0..4 {
        cycle(&mut h);
    }
    let after_six = rss_bytes();
    let (p, _) = h.state().wave_running().expect("frame");
    assert_eq!((p.nx, p.ny), (64, 64));
    let growth = after_six.saturating_sub(after_two);
    // One 2048² cycle allocates ~80 MiB (32 MiB of fields, 16 MiB each for the frame, the egui
    // image and its texture): a leak would add that four times. Allocator arenas may keep one.
    println!("rss after two cycles {} MiB, after six {} MiB", after_two >> 20, after_six >> 20);
    assert!(growth < 96 << 20, "memory grew by {} MiB over four more cycles", growth >> 20);
}

#[test]
fn wgpu_frames_go_straight_to_the_display_texture() {
    let Some(mut h) = rendering_harness(Demo::Wave) else { return };
    h.state_mut().pick_backend(BackendChoice::Wgpu);
    settle(&mut h);
    if h.state().active_backend() != Some(BackendKind::Wgpu) {
        // The adapter kittest draws with has no compute (a GL-only machine): nothing to check.
        common::skip(
            common::Need::Wgpu,
            &format!("the adapter kittest draws with runs no wgpu compute: {:?}", h.state().message()),
        );
        return;
    }
    h.get_by_label("Step").click();
    settle(&mut h);
    assert!(h.state().wave_is_zero_copy(), "wgpu frames are drawn from the GPU texture");
    assert_eq!(tstep(&h), 120, "the waves carried over to wgpu (80 steps) and stepped once (40)");
    let r = wait_for_check(&mut h);
    assert_eq!(r.backend, BackendKind::Wgpu);
    assert!(r.ok(), "wgpu against the CPU within the wave tolerance: {r:?}");
    h.get_by_label("CPU").click();
    settle(&mut h);
    assert_eq!(h.state().active_backend(), Some(BackendKind::Cpu));
    assert!(!h.state().wave_is_zero_copy(), "CPU frames are uploaded");
}

#[test]
fn the_check_button_compares_the_active_backend_with_the_cpu() {
    let mut h = harness(Demo::Wave);
    let r = wait_for_check(&mut h);
    assert!(r.error.is_none(), "{r:?}");
    assert_eq!((r.from, r.steps), (80, wavebrot::app::worker::messages::CHECK_STEPS));
    assert!(r.ok() && r.max_diff == 0.0, "the CPU against its reference: the same bits, got {r:?}");
    assert_eq!((r.backend, r.against), (BackendKind::Cpu, BackendKind::Cpu1), "always against cpu1, the reference");
    assert!(h.query_by_label_contains("cpu vs cpu1").is_some(), "the result names both");
    assert_eq!(
        tstep(&h),
        80 + wavebrot::app::worker::messages::CHECK_STEPS,
        "the check's steps were run on the active backend"
    );
}

/// Clicks Check and waits for the answer (its CPU part runs in a thread of its own).
fn wait_for_check(h: &mut Harness<'static, WavebrotApp>) -> wavebrot::app::worker::messages::CheckResult {
    let before = h.state().last_check().cloned();
    h.get_by_label("Check").click();
    settle(h);
    for _ in 0..500 {
        if h.state().last_check().is_some() && h.state().last_check().cloned() != before {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        h.run_steps(1);
    }
    h.state().last_check().expect("a check result").clone()
}

#[test]
fn presenter_keys_hide_the_panels_and_show_the_key_list() {
    let mut h = harness(Demo::Wave);
    assert!(h.query_by_label("Step").is_some());
    h.key_press(egui::Key::H);
    h.run_steps(2);
    assert!(h.query_by_label("Step").is_none(), "H hides the side panels");
    h.key_press(egui::Key::H);
    h.run_steps(2);
    assert!(h.query_by_label("Step").is_some(), "and shows them again");
    h.key_press(egui::Key::F1);
    h.run_steps(2);
    assert!(h.query_by_label_contains("hide or show the side panels").is_some(), "F1 lists the keys");
}

/// Runs frames until `done` or `secs` pass; true when done.
fn run_until(h: &mut Harness<'static, WavebrotApp>, secs: u64, done: impl Fn(&WavebrotApp) -> bool) -> bool {
    let deadline = web_time::Instant::now() + Duration::from_secs(secs);
    while web_time::Instant::now() < deadline {
        h.run_steps(1);
        if done(h.state()) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_check_mismatch_turns_red_and_a_stale_result_goes_with_the_scene() {
    let mut h = harness(Demo::Wave);
    h.state_mut().inject_check_fault(true);
    let r = wait_for_check(&mut h);
    // The smallest fault: one cell one step of f32 off (the CPU's tolerance is 0).
    assert!(r.error.is_none() && !r.ok(), "one cell one f32 step off is a mismatch: {r:?}");
    assert!(r.max_diff > 0.0 && r.max_diff < 1e-6, "the fault is one f32 step: {r:?}");
    h.run_steps(2);
    assert!(h.query_by_label_contains("MISMATCH").is_some(), "the mismatch is shown");
    h.get_by_role_and_label(Role::Slider, "frequency").set_value_accesskit(0.3);
    settle(&mut h);
    assert!(h.state().last_check().is_none(), "the scene changed: the old result goes");
    assert!(h.query_by_label_contains("MISMATCH").is_none());
}

#[test]
fn the_speedup_needs_a_fresh_cpu_figure_of_the_same_scene() {
    let mut h = harness(Demo::Wave);
    h.get_by_label("CPU comparison").click();
    h.get_by_label("Play").click();
    assert!(run_until(&mut h, 60, |a| a.timing().speedup().is_some()), "{}", h.state().timing().sentence());
    let t = h.state().timing();
    assert_eq!(t.cpu.as_ref().unwrap().problem, t.active.as_ref().unwrap().problem);
    assert_eq!(t.cpu.as_ref().unwrap().kind, BackendKind::Cpu1);
    // Unticked: the CPU figure goes at once; no speedup against a frozen one.
    h.get_by_label("CPU comparison").click();
    h.run_steps(2);
    assert!(h.state().timing().cpu.is_none() && h.state().timing().speedup().is_none());
    assert!(h.state().timing().sentence().contains("comparison is off"), "{}", h.state().timing().sentence());
    // Ticked again, then paused: once the figures are stale the panel says it is paused.
    h.get_by_label("CPU comparison").click();
    assert!(run_until(&mut h, 60, |a| a.timing().speedup().is_some()));
    h.get_by_label("Pause").click();
    // The worker's pause may land after the CPU figure has gone stale (a loaded machine): wait
    // for the panel to have taken the pause in.
    let paused = |a: &WavebrotApp| a.timing().speedup().is_none() && a.timing().sentence().starts_with("Paused");
    assert!(run_until(&mut h, 10, paused), "no speedup of stale figures, and said paused");
    assert!(h.state().timing().sentence().starts_with("Paused"), "{}", h.state().timing().sentence());
}

#[test]
fn opening_a_scene_file_starts_from_rest_even_the_one_running() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("here.toml");
    // Tall, so the scene file's buttons at the foot of the lab are on screen.
    let mut h = Harness::builder()
        .with_size([1200.0, 1800.0])
        .build_eframe(move |cc| WavebrotApp::new_for_test(cc, Demo::Wave).expect("app starts"));
    settle(&mut h);
    h.state_mut().lab_mut().path = path.display().to_string();
    h.get_by_label("Step").click();
    settle(&mut h);
    // The step's picture may come late on a loaded machine: wait for it.
    assert!(run_until(&mut h, 30, |a| a.wave_running().is_some_and(|(_, t)| t == 120)), "t = {}", tstep(&h));
    h.get_by_label("Save").click();
    settle(&mut h);
    assert!(path.exists(), "{:?}", h.state().message());
    h.get_by_label("Open").click();
    settle(&mut h);
    assert!(
        run_until(&mut h, 30, |a| a.message().unwrap_or_default().starts_with("opened")),
        "{:?}",
        h.state().message()
    );
    assert!(
        run_until(&mut h, 30, |a| a.wave_running().is_some_and(|(_, t)| t == 0)),
        "a file opened starts from rest, even the scene running: t = {}",
        tstep(&h)
    );
}

#[test]
fn keep_aspect_moves_both_grid_sliders_and_a_preset_s_description_follows_the_grid() {
    let mut h = harness(Demo::Wave);
    h.get_by_label("keep aspect").click();
    h.run_steps(1);
    h.get_by_role_and_label(Role::Slider, "nx").set_value_accesskit(320.0);
    settle(&mut h);
    let (p, _) = h.state().wave_running().expect("frame");
    assert_eq!((p.nx, p.ny), (320, 240), "160x120 keeps its shape");
    h.get_by_label("preset").click();
    h.run_steps(3);
    h.get_by_label("two-sources").click();
    settle(&mut h);
    let s = running_scene(&h);
    assert!(s.description.contains("100 cells apart"), "{}", s.description);
    let (nx, ny) = (s.nx, s.ny);
    h.get_by_role_and_label(Role::Slider, "nx").set_value_accesskit((2 * nx) as f64);
    settle(&mut h);
    let s = running_scene(&h);
    assert_eq!((s.nx, s.ny), (2 * nx, 2 * ny), "a preset keeps the aspect lock");
    assert!(s.description.contains("200 cells apart"), "the description follows the grid: {}", s.description);
}

#[test]
fn a_pulse_added_while_running_starts_on_the_next_step() {
    use wavebrot::sim::wave::scene::Source;
    let mut h = harness(Demo::Wave);
    let t0 = tstep(&h);
    assert!(t0 > 0, "the waves have run");
    h.get_by_label("pulse").click();
    h.run_steps(1);
    click_cell(&mut h, 30.5, 90.5, egui::PointerButton::Primary);
    let s = running_scene(&h);
    // Before the fix a pulse always started at step 1: added at step 80 it never forced its cell.
    match &s.sources[..] {
        [_, Source::Pulse { x: 30, y: 90, start, .. }] => {
            assert_eq!(*start, t0 + 1, "the pulse starts on the step after the one shown ({t0})");
        }
        other => panic!("a click with 'pulse' chosen adds a pulse at (30, 90): {other:?}"),
    }
    h.get_by_label("Step").click();
    settle(&mut h);
    assert_eq!(tstep(&h), t0 + 40, "the waves go on");
    assert!(
        matches!(running_scene(&h).sources[1], Source::Pulse { start, .. } if start == t0 + 1),
        "the pulse keeps its start while the scene runs"
    );
}

#[test]
fn save_picture_writes_the_wave_view_whole_at_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("waves.png");
    let mut h = harness(Demo::Wave);
    *h.state_mut().wave_picture_path_mut() = path.display().to_string();
    h.get_by_value("as shown").click();
    h.run_steps(2);
    h.get_by_label("per cell").click();
    h.run_steps(1);
    h.get_by_label("Save picture").click();
    settle(&mut h);
    assert!(run_until(&mut h, 10, |_| path.exists()), "Save picture wrote {}", path.display());
    let (p, t) = h.state().wave_running().expect("a wave frame arrived");
    let img = image::open(&path).expect("a whole PNG").to_rgba8();
    assert_eq!((img.width() as usize, img.height() as usize), (p.nx, p.ny), "one pixel per cell of the grid shown");
    // The waves of step t, not a blank picture: more than a few colours.
    let colours: std::collections::HashSet<[u8; 4]> = img.pixels().map(|p| p.0).collect();
    assert!(colours.len() > 20, "the saved picture at step {t} holds {} colours", colours.len());
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "only the picture: {names:?}");
    // Ctrl+S saves again, to another name.
    let again = dir.path().join("again.png");
    *h.state_mut().wave_picture_path_mut() = again.display().to_string();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    assert!(run_until(&mut h, 10, |_| again.exists()), "Ctrl+S wrote {}", again.display());
}

#[test]
fn grid_and_step_sliders_snap_on_the_rail_and_keep_typed_values() {
    let mut h = harness(Demo::Wave);
    // A press on the rail a third of the way along: the value under the pointer, rounded to two
    // significant digits (before: any whole number, 40 px spanning 640 to 6 000).
    for (label, x) in [("nx", 0.37f32), ("nx", 0.81), ("ny", 0.55), ("steps / frame", 0.62)] {
        let rect = h.get_by_role_and_label(Role::Slider, label).rect();
        let pos = egui::pos2(rect.left() + x * rect.width(), rect.center().y);
        h.hover_at(pos);
        h.run_steps(1);
        press(&mut h, pos, egui::PointerButton::Primary, true);
        h.run_steps(1);
        press(&mut h, pos, egui::PointerButton::Primary, false);
        settle(&mut h);
        let w = &h.state().settings().wave;
        let v = match label {
            "nx" => w.nx as u64,
            "ny" => w.ny as u64,
            _ => u64::from(w.steps_per_frame),
        };
        assert_eq!(wavebrot::app::widgets::two_digits(v), v, "{label} at {x} of the rail: {v} is not on a step");
    }
    // A typed (or screen-reader) value is kept exactly.
    h.get_by_role_and_label(Role::Slider, "nx").set_value_accesskit(641.0);
    settle(&mut h);
    assert_eq!(h.state().settings().wave.nx, 641, "a typed grid side is kept");
    h.get_by_role_and_label(Role::Slider, "steps / frame").set_value_accesskit(37.0);
    settle(&mut h);
    assert_eq!(h.state().settings().wave.steps_per_frame, 37);
    let (p, _) = h.state().wave_running().expect("frame");
    assert_eq!(p.nx, 641, "the worker runs the typed grid");
}

#[test]
fn the_getting_started_page_opens_from_the_top_bar_and_starts_a_demo() {
    let mut h = harness(Demo::Mandelbrot);
    assert!(!h.state().getting_started_shown());
    h.get_by_label("Getting started").click();
    h.run_steps(2);
    assert!(h.state().getting_started_shown(), "the button opens the page");
    // What a newcomer needs: the three demos, the keys, the timing panel.
    for text in ["GPU vs CPU in one minute", "The double slit", "Dive to 1e100", "Keys", "Reading the timing panel"] {
        let _ = h.get_by_label(text);
    }
    h.get_by_label("Open the double slit").click();
    settle(&mut h);
    assert!(!h.state().getting_started_shown(), "a guided start closes the page");
    assert_eq!(h.state().settings().view, Demo::Wave);
    assert_eq!(h.state().settings().wave.preset, "double-slit");
    assert!(!running_scene(&h).walls.is_empty(), "the double slit's walls run");
}

/// The Mandelbrot explorer's typed iterations (beside the typed centre and zoom).
#[test]
fn typed_iterations_apply_on_enter_and_bad_ones_keep_the_last_good_value() {
    let mut h = harness(Demo::Mandelbrot);
    h.get_by_label("Go to, continuous zoom").click();
    h.run_steps(2);
    assert_eq!(h.state_mut().goto_mut().iters, "auto", "the field shows the automatic iterations");
    let field = |h: &Harness<'static, WavebrotApp>| h.get_by_role_and_label(Role::TextInput, "iterations").focus();
    // Cleared, 2500 typed, Enter; then "lots" and Enter: refused in one line, 2500 stays.
    for (typed, said) in [("2500", None), ("lots", Some("iterations 'lots' must be a whole number"))] {
        h.state_mut().goto_mut().iters.clear();
        field(&h);
        h.run_steps(1);
        h.get_by_role_and_label(Role::TextInput, "iterations").type_text(typed);
        h.run_steps(1);
        h.key_press(egui::Key::Enter);
        settle(&mut h);
        let m = &h.state().settings().mandelbrot;
        assert_eq!((m.auto_iters, m.iters), (false, 2500), "after typing {typed}: the last good value");
        let msg = h.state().message().unwrap_or_default();
        assert!(said.is_none_or(|s| msg.contains(s) && !msg.contains('\n')), "{msg:?}");
    }
    assert!(
        run_until(&mut h, 30, |a| a.mandelbrot_shown().is_some_and(|s| s.request.iters == 2500)),
        "rendered at 2500"
    );
}
