use super::*;

/// A `/proc/self/task` of synthetic threads: `(tid, comm, utime, stime)`.
fn fake_task(dir: &Path, threads: &[(u32, &str, u64, u64)]) {
    for &(tid, comm, utime, stime) in threads {
        let t = dir.join(tid.to_string());
        std::fs::create_dir_all(&t).unwrap();
        std::fs::write(t.join("comm"), format!("{comm}\n")).unwrap();
        let stat = format!("{tid} ({comm}) S 1 2 3 4 5 6 7 8 9 10 {utime} {stime} 0 0 20 0 1 0");
        std::fs::write(t.join("stat"), stat).unwrap();
    }
}

#[test]
fn stat_lines_are_read_after_the_command_name() {
    let line = "1234 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 70 30 0 0 20 0 1 0";
    assert_eq!(parse_ticks(line), Some(100));
    assert_eq!(parse_ticks("garbage"), None);
}

/// The scene of the report: 2 cores, a CPU render on two rayon threads (named after the thread
/// that started them), llvmpipe's two threads drawing, the UI thread. One second apart.
fn cpu_render(dir: &Path, renderer_ticks: u64) -> (HashMap<u32, u64>, Vec<ThreadTicks>) {
    let before = [
        (100, "wavebrot", 500, 20),
        (101, "llvmpipe-0", 300, 0),
        (102, "llvmpipe-1", 300, 0),
        (110, "wavebrot", 900, 0),
        (111, "wavebrot", 900, 0),
        (120, "wavebrot-sim", 50, 0),
    ];
    let b = dir.join("before");
    fake_task(&b, &before);
    let mut after = before;
    after[0].2 += 8; // the UI thread: 8% of a core
    after[1].2 += renderer_ticks;
    after[2].2 += renderer_ticks;
    after[3].2 += 90; // the CPU render: 90% of each core
    after[4].2 += 90;
    let a = dir.join("after");
    fake_task(&a, &after);
    let before: HashMap<u32, u64> = read_threads(&b).unwrap().iter().map(|t| (t.tid, t.ticks)).collect();
    (before, read_threads(&a).unwrap())
}

#[test]
fn the_window_is_the_ui_thread_and_the_drawing_renderer() {
    let dir = tempfile::tempdir().unwrap();
    let (before, now) = cpu_render(dir.path(), 1);
    assert_eq!(now.len(), 6);
    let s = split(&before, &now, 1.0, 100, false);
    // The UI thread's 8 ticks and the renderer's 2; the render's 180 are the work's.
    assert!((s.window - 0.10).abs() < 1e-9 && (s.work - 1.80).abs() < 1e-9, "{s:?}");
    assert!((s.window_cores(2) - 0.10).abs() < 1e-9, "{s:?}");
}

#[test]
fn a_renderer_that_computes_what_is_measured_is_not_the_window() {
    // wgpu on llvmpipe: the renderer's threads run the measured kernels at 85% each.
    let dir = tempfile::tempdir().unwrap();
    let (before, now) = cpu_render(dir.path(), 85);
    let drawn = split(&before, &now, 1.0, 100, false);
    // Counted as the window's, the renderer gives the implausible figure of the report: the
    // window "takes 178%" of the 2 cores while the work took 180% of them.
    assert!(drawn.window > 1.7, "{drawn:?}");
    // The bound of the same interval: the work left 0.2 of the 2 cores, so the window took at most that.
    assert!((drawn.window_cores(2) - 0.20).abs() < 1e-9, "{drawn:?}");
    let computes = split(&before, &now, 1.0, 100, true);
    assert!((computes.window - 0.08).abs() < 1e-9, "{computes:?}");
    assert!((computes.work - 3.50).abs() < 1e-9, "{computes:?}");
    assert_eq!(role_of(&now[1], 100, true), Role::Work);
    assert_eq!(role_of(&now[1], 100, false), Role::Window);
    assert_eq!(role_of(&now[0], 100, true), Role::Window);
}

#[test]
fn threads_that_start_or_end_between_readings_count_once() {
    let before: HashMap<u32, u64> = [(1, 100), (2, 500)].into_iter().collect();
    // Thread 2 ended, thread 3 started with 30 ticks.
    let now = vec![
        ThreadTicks { tid: 1, comm: "wavebrot".into(), ticks: 110 },
        ThreadTicks { tid: 3, comm: "llvmpipe-0".into(), ticks: 30 },
    ];
    let s = split(&before, &now, 2.0, 1, false);
    assert!((s.window - 0.20).abs() < 1e-9 && s.work == 0.0, "{s:?}");
    assert_eq!(split(&before, &now, 0.0, 1, false), Split::default());
}

#[test]
fn the_note_says_how_low_figures_may_be() {
    let both = Measured { copy: true, timed: true, on_cpu: true };
    let l = AppLoad { cores_used: Some(0.5), ..AppLoad::default() };
    let (text, warn) = l.note(2, both).unwrap();
    assert!(text.starts_with("2 cores") && text.contains("50% of one core") && text.contains("about 25%"), "{text}");
    assert!(text.contains("the CPU copy and the active backend take turns"), "{text}");
    assert!(warn);
    let l = AppLoad { cores_used: Some(0.02), ..AppLoad::default() };
    assert!(!l.note(16, both).unwrap().1);
    assert!(AppLoad::default().note(2, both).is_none());
    let l = AppLoad { cores_used: Some(0.1), renderer_computes: true, ..AppLoad::default() };
    let (text, _) = l.note(2, both).unwrap();
    assert!(text.contains("window's own thread") && text.contains("llvmpipe"), "{text}");
}

#[test]
fn the_note_names_only_what_is_timed() {
    let l = AppLoad { cores_used: Some(1.72), ..AppLoad::default() };
    // A deep Mandelbrot view on the CPU backend, its picture done, no comparison: no CPU copy
    // and nothing timed, so no figure is said to be low and no copy is named.
    let still = Measured { copy: false, timed: false, on_cpu: true };
    let (text, warn) = l.note(2, still).unwrap();
    assert_eq!(
        text,
        "2 cores: the window and its drawing take about 172% of one core; nothing on these cores is being timed now"
    );
    assert!(!warn, "nothing to warn about");
    // The same view while its picture is computed on the CPU: the backend's figure, no copy.
    let (text, warn) = l.note(2, Measured { timed: true, ..still }).unwrap();
    assert!(text.contains("beside what is measured on these cores") && text.contains("low by about 86%"), "{text}");
    assert!(!text.contains("copy") && warn, "{text}");
    // A GPU backend with the CPU copy running: only the copy's figure is lowered.
    let (text, _) = l.note(2, Measured { copy: true, timed: true, on_cpu: false }).unwrap();
    assert!(text.contains("beside the CPU copy, so its figure") && !text.contains("take turns"), "{text}");
    // A GPU backend and no copy: nothing on these cores is timed.
    let (text, warn) = l.note(2, Measured { copy: false, timed: true, on_cpu: false }).unwrap();
    assert!(text.ends_with("nothing on these cores is being timed now") && !warn, "{text}");
}

#[test]
fn this_process_is_read() {
    // On Linux the test's own threads are found, with the calling thread among them.
    if let (Some(me), Some(all)) = (ui_thread_id(), read_threads(Path::new("/proc/self/task"))) {
        assert!(all.iter().any(|t| t.tid == me), "thread {me} not among {all:?}");
    }
}

#[test]
fn software_renderers_are_known_by_name() {
    assert!(is_software_renderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
    assert!(!is_software_renderer("NVIDIA H100 80GB HBM3"));
}
