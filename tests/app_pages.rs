//! The classroom pages driven as a user drives them (egui_kittest): Race mode (two backends
//! side by side, started together), the Scaling view (the sweep on a worker thread) and the
//! Lessons view (SAXPY, reduction), each checked against what its thread measured.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

#[path = "support/app.rs"]
mod app_support;

use web_time::{Duration, Instant};

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use wavebrot::app::pages::Page;
use wavebrot::app::{Demo, WavebrotApp};
use wavebrot::backend::BackendKind;
use wavebrot::bench::lesson::Lesson;

fn harness() -> Harness<'static, WavebrotApp> {
    let mut h = app_support::open(Demo::Wave, [1200.0, 720.0]);
    h.run_steps(2);
    h
}

/// Runs frames until `done` holds, at most `secs` seconds; true when it held.
fn run_until(h: &mut Harness<'static, WavebrotApp>, secs: u64, done: impl Fn(&WavebrotApp) -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        h.run_steps(1);
        if done(h.state()) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn race_starts_both_sides_together_and_counts_their_steps() {
    let mut h = harness();
    h.key_press(egui::Key::Num3);
    h.run_steps(2);
    assert_eq!(h.state().page(), Some(Page::Race));
    assert!(!h.state().settings().wave.playing, "the waves pause while a page measures");
    // No GPU is probed in tests: the race is the CPU's cores against one thread.
    assert_eq!(h.state().race().kinds, [BackendKind::Cpu, BackendKind::Cpu1]);
    assert!(
        run_until(&mut h, 20, |a| a.race().sides().len() == 2
            && a.race().sides().iter().all(|s| s.status().device.is_some())),
        "both backends open"
    );
    assert!(h.query_by_label_contains("cores").is_some(), "the page says how the sides share the cores");
    h.get_by_label("Start").click();
    h.run_steps(1);
    assert!(h.state().race().running());
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        run_until(&mut h, 20, |a| a.race().sides().iter().all(|s| s.status().steps > 0 && s.status().picture_seq > 1)),
        "both sides step and send pictures"
    );
    let st: Vec<_> = h.state().race().sides().iter().map(wavebrot::app::pages::race::RaceSide::status).collect();
    for s in &st {
        let rate = s.steps_per_sec().unwrap();
        assert!(s.error.is_none(), "{s:?}");
        assert!(rate > 0.0 && s.secs > 0.5, "steps/s {rate} over {} s", s.secs);
        // The rate is the steps over the time since the common start.
        assert!((rate - s.steps as f64 / s.secs).abs() < 1e-9);
    }
    // Started together: their clocks differ only by when each last reported (a call of ~15 ms,
    // up to one picture of 512² on a loaded machine). A loaded machine can hold one side's report
    // back for longer at any one moment, so the clocks are read again and again: the smallest
    // difference seen is the start's offset plus the shortest lag, below 0.25 s for a common start
    // (a side started late keeps its offset at every reading).
    let mut closest = (st[0].secs - st[1].secs).abs();
    let end = Instant::now() + Duration::from_secs(10);
    while closest >= 0.05 && Instant::now() < end {
        h.run_steps(1);
        let now: Vec<_> = h.state().race().sides().iter().map(wavebrot::app::pages::race::RaceSide::status).collect();
        closest = closest.min((now[0].secs - now[1].secs).abs());
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(closest < 0.25, "the clocks never came closer than {closest} s");
    assert_eq!(h.query_all_by_label_contains("step ").count(), 2, "a step counter under each picture");
    h.get_by_label("Reset").click();
    assert!(
        run_until(&mut h, 20, |a| !a.race().running() && a.race().sides().iter().all(|s| s.status().steps == 0)),
        "Reset puts both sides back at rest"
    );
    h.key_press(egui::Key::Num1);
    h.run_steps(2);
    assert_eq!(h.state().page(), None);
    assert!(h.state().race().sides().is_empty(), "leaving the race ends its threads");
    assert!(!h.state().settings().wave.playing, "the test app started paused and stays so");
}

#[test]
fn scaling_view_sweeps_on_a_thread_and_plots_every_point() {
    let mut h = harness();
    h.get_by_label("Scaling (4)").click();
    h.run_steps(2);
    assert_eq!(h.state().page(), Some(Page::Scaling));
    let s = h.state_mut().scaling_mut();
    assert_eq!(s.kinds, vec![BackendKind::Cpu], "the available backends are ticked");
    s.kinds.push(BackendKind::Cpu1);
    s.max_side = 128;
    s.quick = true;
    h.run_steps(1);
    h.get_by_label("Run sweep").click();
    assert!(run_until(&mut h, 50, |a| a.scaling_progress().is_some_and(|p| p.finished)), "the sweep finishes");
    let p = h.state().scaling_progress().unwrap();
    assert!(p.failures.is_empty(), "{:?}", p.failures);
    assert_eq!((p.done, p.total), (4, 4), "2 backends × sides 64, 128");
    let mut got: Vec<(String, usize)> = p.records.iter().map(|r| (r.backend.clone(), r.nx.unwrap())).collect();
    got.sort();
    assert_eq!(got, [("cpu".into(), 64), ("cpu".into(), 128), ("cpu1".into(), 64), ("cpu1".into(), 128)]);
    for r in &p.records {
        let us = r.per_step_us.unwrap();
        assert!(us > 0.0 && us.is_finite(), "{} {:?}: {us} µs/update", r.backend, r.nx);
        assert_eq!(r.max_abs_diff, Some(0.0), "the CPU backends compute the reference's bits");
    }
    let marks = p.marks.expect("marks once finished");
    assert!(!marks.compared, "no GPU in the sweep: no crossover is sought");
    // A frame drawn after the sweep finished shows its marks.
    h.run_steps(2);
    assert!(h.query_by_label_contains("crossover: needs a GPU").is_some());
}

#[test]
fn lessons_run_on_the_chosen_backend_and_check_against_the_cpu() {
    let mut h = harness();
    h.key_press(egui::Key::Num5);
    h.run_steps(2);
    assert_eq!(h.state().page(), Some(Page::Lessons));
    for (lesson, kind, needle) in
        [(Lesson::Saxpy, BackendKind::Cpu, "GB/s"), (Lesson::Reduction, BackendKind::Cpu1, "Gelem/s")]
    {
        let l = h.state_mut().lessons_mut();
        l.lesson = lesson;
        l.backend = Some(kind);
        l.elements = 1 << 16;
        h.run_steps(1);
        h.get_by_label("Run lesson").click();
        assert!(run_until(&mut h, 30, |a| a.lesson_progress().is_some_and(|p| p.finished)), "{lesson:?} finishes");
        h.run_steps(2);
        let p = h.state().lesson_progress().unwrap();
        assert!(p.failures.is_empty(), "{lesson:?}: {:?}", p.failures);
        assert_eq!(p.check_line(), Some("Check result: OK!"));
        let measured = p.lines.iter().find(|l| l.contains(kind.name()) && l.contains(needle));
        assert!(measured.is_some(), "{lesson:?} reports the {needle} measured on {kind}: {:?}", p.lines);
        assert!(h.query_by_label("Check result: OK!").is_some(), "the check is shown");
    }
}

#[test]
fn the_frame_profile_splits_a_running_frame_into_its_stages() {
    let mut h = harness();
    h.key_press(egui::Key::Space);
    assert!(
        run_until(&mut h, 30, |a| a.frame_profile().frames() >= 10
            && a.frame_profile().average().is_some_and(|s| s[0] > 0.0 && s[1] > 0.0 && s[3] > 0.0 && s[4] > 0.0)),
        "compute, colour, upload and ui measured: {:?}",
        h.state().frame_profile().average()
    );
    let avg = h.state().frame_profile().average().unwrap();
    for (name, s) in wavebrot::app::parts::profile::STAGES.iter().zip(avg) {
        assert!(s.is_finite() && (0.0..1.0).contains(&s), "{name}: {s} s per frame");
    }
    let flame = h.state().frame_profile().flame();
    assert!(flame.iter().any(|s| s.name == "ui" && s.depth == 0), "the UI thread's frame is a top scope: {flame:?}");
}

#[test]
fn the_check_button_works_in_the_mandelbrot_view() {
    let mut h = Harness::builder()
        .with_size([1200.0, 720.0])
        .build_eframe(|cc| WavebrotApp::new_for_test(cc, Demo::Mandelbrot).expect("app starts"));
    assert!(run_until(&mut h, 30, |a| a.mandelbrot_shown().is_some()), "an image is shown");
    h.get_by_label("Check").click();
    assert!(run_until(&mut h, 60, |a| a.last_mandelbrot_check().is_some()), "the check answers");
    h.run_steps(2);
    let r = h.state().last_mandelbrot_check().unwrap().clone();
    assert!(r.error.is_none(), "{r:?}");
    assert_eq!((r.backend, r.against), (BackendKind::Cpu, BackendKind::Cpu1));
    assert_eq!(r.params, h.state().mandelbrot_shown().unwrap().params.unwrap(), "the image shown is checked");
    assert!(r.ok() && r.share == 0.0, "the CPU against itself: no pixel differs, got {r:?}");
    assert_eq!(r.budget, wavebrot::app::worker::compare::CHECK_BUDGET);
    assert!(h.query_by_label_contains("pixels differ (none allowed): OK").is_some(), "the result is shown");
}

#[test]
fn record_writes_the_pictures_shown_to_a_gif_when_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("waves.gif");
    let mut h = harness();
    h.state_mut().sync();
    h.run_steps(2);
    h.state_mut().set_record_path(path.to_str().unwrap());
    h.get_by_label("Record").click();
    h.run_steps(1);
    assert!(h.state().recording().is_some(), "recording: {:?}", h.state().message());
    for _ in 0..3 {
        h.key_press(egui::Key::S);
        h.run_steps(1);
        h.state_mut().sync();
        h.run_steps(1);
    }
    let sent = h.state().recording().unwrap().sent;
    assert_eq!(sent, 3, "one frame per picture shown");
    assert!(!path.exists(), "nothing is written until the recording stops");
    h.key_press(egui::Key::G);
    h.run_steps(1);
    assert!(h.state().recording().is_none());
    let file = std::fs::File::open(&path).expect("the GIF is written");
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::Indexed);
    let mut d = opts.read_info(file).unwrap();
    assert_eq!((d.width(), d.height()), (160, 120), "the picture's size");
    let mut frames = 0;
    while d.read_next_frame().unwrap().is_some() {
        frames += 1;
    }
    assert_eq!(frames, sent, "every frame handed over is in the file");
}

/// What a recording of the default wave lab weighs: the `point` preset (640x480, absorbing
/// edges, auto contrast) recorded at 25 frames/s for 6 s, 150 frames 12 steps apart (the lab's
/// 5 steps a frame at 60 frames a second), through the recorder's own encoder, at full width
/// with every colour (the recording before the width and colour choices) and at the choices
/// offered. `cargo test --test app_pages recording_sizes -- --nocapture` prints the sizes.
#[test]
fn recording_sizes() {
    use wavebrot::app::shell::recording::DEFAULT_SHRINK;
    use wavebrot::app::worker::recorder::{Shrink, encode};
    use wavebrot::sim::colour::colormap::{HOT_LUT, wave_rgba_strided};
    use wavebrot::sim::wave::analysis::AutoRange;
    let scene = wavebrot::sim::wave::scene::preset("point").unwrap();
    let (nx, ny) = (scene.nx, scene.ny);
    assert_eq!((nx, ny), (640, 480), "the default lab's grid");
    let backend = wavebrot::backend::open(BackendKind::Cpu).unwrap();
    let mut sim = backend.new_scene(&scene).unwrap();
    let mut auto = AutoRange::new(0.1);
    let mut f = vec![0.0f32; nx * ny];
    let mut frames = Vec::with_capacity(150);
    for _ in 0..150 {
        sim.advance(12).unwrap();
        sim.read_field(&mut f).unwrap();
        let (lo, hi) = auto.update(&f);
        let mut rgba = vec![0u8; nx * ny * 4];
        wave_rgba_strided(&f, nx, ny, lo, hi, 1, &mut rgba);
        frames.push(rgba);
    }
    let dir = tempfile::tempdir().unwrap();
    let choices = [
        ("full width, 256 colours", Shrink { max_width: None, levels: 256 }),
        ("640 px, 64 colours", Shrink { max_width: Some(640), levels: 64 }),
        ("480 px, 256 colours", Shrink { max_width: Some(480), levels: 256 }),
        ("480 px, 64 colours", Shrink { max_width: Some(480), levels: 64 }),
        ("480 px, 32 colours (default)", DEFAULT_SHRINK),
        ("320 px, 64 colours", Shrink { max_width: Some(320), levels: 64 }),
    ];
    let sizes: Vec<u64> = std::thread::scope(|s| {
        let jobs: Vec<_> = choices
            .iter()
            .enumerate()
            .map(|(k, &(_, shrink))| {
                let (frames, path) = (&frames, dir.path().join(format!("{k}.gif")));
                s.spawn(move || {
                    let lut = &HOT_LUT[..];
                    assert_eq!(encode(&path, (nx, ny), lut, 4, shrink, frames.iter().cloned()).unwrap(), 150);
                    std::fs::metadata(&path).unwrap().len()
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().unwrap()).collect()
    });
    for ((name, _), bytes) in choices.iter().zip(&sizes) {
        println!("6 s at 25 frames/s of the default lab, {name}: {:.1} MB", *bytes as f64 / 1e6);
    }
    let (full, default) = (sizes[0], sizes[4]);
    // Measured on this machine: 31.4 MB at full width with every colour, 6.7 MB by default
    // (4.7 times smaller); at least 4 times smaller leaves room for the waves' details.
    assert!(default * 4 <= full, "the default choice keeps {default} bytes of {full}");
}

/// Record on wgpu (lavapipe here): the picture goes straight into the display texture, and
/// while recording the worker reads it back, so the GIF holds the waves stepped.
#[test]
fn record_on_wgpu_reads_the_picture_back_while_recording() {
    if let Err(e) =
        pollster::block_on(wgpu::Instance::default().request_adapter(&wgpu::RequestAdapterOptions::default()))
    {
        common::skip(common::Need::Wgpu, &format!("no wgpu adapter to draw with: {e}"));
        return;
    }
    let mut setup = egui_kittest::wgpu::default_wgpu_setup();
    if let egui_wgpu::WgpuSetup::CreateNew(s) = &mut setup {
        s.device_descriptor = std::sync::Arc::new(wavebrot::app::device_descriptor);
    }
    let mut h = Harness::builder()
        .with_size([1200.0, 720.0])
        .wgpu_setup(setup)
        .build_eframe(|cc| WavebrotApp::new_for_test(cc, Demo::Wave).expect("app starts"));
    h.run_steps(2);
    h.state_mut().pick_backend(wavebrot::backend::BackendChoice::Wgpu);
    h.run_steps(2);
    h.state_mut().sync();
    h.run_steps(2);
    if h.state().active_backend() != Some(BackendKind::Wgpu) {
        common::skip(common::Need::Wgpu, &format!("no wgpu compute here: {:?}", h.state().message()));
        return;
    }
    h.key_press(egui::Key::S);
    h.run_steps(1);
    h.state_mut().sync();
    h.run_steps(1);
    assert!(h.state().wave_is_zero_copy(), "wgpu frames are drawn from the GPU texture");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wgpu.gif");
    h.state_mut().set_record_path(path.to_str().unwrap());
    h.get_by_label("Record").click();
    h.run_steps(1);
    assert!(h.state().recording().is_some(), "recording on wgpu: {:?}", h.state().message());
    h.state_mut().sync();
    for _ in 0..3 {
        h.key_press(egui::Key::S);
        h.run_steps(1);
        h.state_mut().sync();
        h.run_steps(1);
    }
    assert!(h.state().wave_is_zero_copy(), "the display keeps its zero copy while recording");
    let sent = h.state().recording().unwrap().sent;
    assert_eq!(sent, 3, "one frame per picture stepped, read back from the GPU");
    h.key_press(egui::Key::G);
    h.run_steps(1);
    let said = h.state().message().unwrap_or_default().to_owned();
    assert!(said.starts_with("wrote "), "{said}");
    let (w, h_px, frames) = decoded(&path);
    assert_eq!((w, h_px), (160, 120), "the picture's size");
    assert_eq!(frames.len(), 3, "every frame handed over is in the file");
    // The waves moved between the pictures, and they are not blank.
    assert_ne!(frames[0], frames[2], "the frames differ");
    let colours: std::collections::HashSet<&[u8]> = frames[2].chunks_exact(4).collect();
    assert!(colours.len() > 4, "the last frame holds {} colours", colours.len());
}

/// A GIF's size and its frames as RGBA pictures (each composited over the one before).
fn decoded(path: &std::path::Path) -> (u16, u16, Vec<Vec<u8>>) {
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut d = opts.read_info(std::fs::File::open(path).expect("the GIF is written")).unwrap();
    let (w, h) = (d.width(), d.height());
    let mut canvas = vec![0u8; usize::from(w) * usize::from(h) * 4];
    let mut frames = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        for y in 0..usize::from(f.height) {
            for x in 0..usize::from(f.width) {
                let p = &f.buffer[(y * usize::from(f.width) + x) * 4..][..4];
                if p[3] != 0 {
                    let at = ((usize::from(f.top) + y) * usize::from(w) + usize::from(f.left) + x) * 4;
                    canvas[at..at + 4].copy_from_slice(p);
                }
            }
        }
        frames.push(canvas.clone());
    }
    (w, h, frames)
}
