//! The live timing panel: the active backend against the CPU on the same problem, measured as
//! it runs. On top, one plain sentence for a class ("The GPU did … steps while the CPU did …:
//! 83 times faster", or what the comparison waits for); under it, on demand, the numbers behind
//! it: speedup, throughput, share of the device's peak, what each time includes and where it
//! came from, and a rolling plot of the last 30 s. The figures and their problems are
//! [`crate::app::parts::timing_stats`].

pub use crate::app::parts::timing_stats::{
    Comparison, HISTORY_SECS, LAUNCH_BOUND_RATIO, Problem, Rate, TimingStats, fmt_secs, launch_bound_hint,
};

use crate::app::options::Demo;

/// The lines the panel shows under a rate: its time, its throughput and (waves) its bandwidth,
/// effective and DRAM, with the reason when a figure is above the peak.
#[must_use]
pub fn rate_lines(stats: &TimingStats, r: &Rate, active: bool) -> Vec<String> {
    let (unit, per) = match stats.demo {
        Demo::Wave => ("Gcell/s", "per update (2 a step)"),
        Demo::Mandelbrot => ("Giter/s", "per image"),
    };
    let mut lines = vec![format!("{} {per}", fmt_secs(r.secs)), format!("{:.3} {unit}", r.giga_per_s())];
    if stats.demo == Demo::Mandelbrot {
        lines[1].push_str(" executed");
        // The CPU comparison runs the rule exactly; the active backend's rule count is its frame's.
        let rule = if active { stats.rule_iters.unwrap_or(r.work) } else { r.work };
        let same = (rule - r.work).abs() < 0.5;
        lines.push(format!(
            "{:.3} {unit} of the rule's iterations (min(count+1, iters) a pixel){}",
            rule / r.secs / 1e9,
            if same { ": the same, every iteration the rule asks is run" } else { "" }
        ));
        if !same {
            lines.push(format!("executed {:.0} of the rule's {:.0} iterations per image", r.work, rule));
        }
        return lines;
    }
    let bw = stats.bandwidth(r, active);
    lines.push(format!("effective {:.1} GB/s (nominal 12 B/update)", bw.effective_gbps));
    if let Some(n) = bw.effective_note() {
        lines.push(n);
    }
    if let (Some(d), Some(b)) = (bw.dram_gbps, bw.dram_bytes_per_update) {
        let mut line = format!("DRAM {d:.1} GB/s ({b:.2} B/update by the kernel's design)");
        if let (Some(pct), Some(peak)) = (bw.dram_percent_of_peak(), bw.peak_gbps) {
            line.push_str(&format!(", {pct:.0}% of {peak:.0} GB/s peak"));
        }
        lines.push(line);
        if let Some(n) = bw.dram_note() {
            lines.push(n);
        }
    }
    lines
}

/// Draws the panel: the sentence, then the numbers behind it (folded away in the class view).
/// While it shows a figure, it is drawn again every second: the ages ("3 s ago"), a figure going
/// stale after Pause and the sentence that then says so change with time, not with the mouse.
pub fn timing_panel_ui(ui: &mut egui::Ui, stats: &mut TimingStats) {
    if !stats.frozen && (stats.active.is_some() || stats.cpu.is_some()) {
        ui.ctx().request_repaint_after(std::time::Duration::from_secs(1));
    }
    ui.horizontal(|ui| {
        ui.heading("Timing");
        ui.checkbox(&mut stats.class_view, "class view")
            .on_hover_text("one plain sentence; the numbers behind it under \"The numbers\"");
    });
    let sentence = if stats.frozen {
        match stats.comparison() {
            Comparison::Speedup(_) => "— times faster".to_owned(),
            Comparison::Waiting(_) => stats.sentence(),
        }
    } else {
        stats.sentence()
    };
    let size = if stats.class_view { 22.0 } else { 16.0 };
    ui.add(egui::Label::new(egui::RichText::new(sentence).strong().size(size)).wrap())
        .on_hover_text("both figures are of the same problem (scene and grid, or view, size and iterations) and fresh; otherwise this says what it waits for");
    if stats.class_view {
        egui::CollapsingHeader::new("The numbers").id_salt("timing_numbers").default_open(false).show(ui, |ui| {
            numbers_ui(ui, stats);
        });
    } else {
        numbers_ui(ui, stats);
    }
}

/// The numbers behind the sentence: both rates, the speedup, notes, and the plot.
#[expect(clippy::too_many_lines, reason = "the panel's figures read top to bottom as they are drawn")]
fn numbers_ui(ui: &mut egui::Ui, stats: &TimingStats) {
    let hidden = stats.frozen;
    let num = |s: String| if hidden { "—".to_owned() } else { s };
    let unit = match stats.demo {
        Demo::Wave => "Gcell/s",
        Demo::Mandelbrot => "Giter/s",
    };
    // What the window takes of the cores: one of the numbers, folded away in the class view
    // (seen there: a 60-word orange caveat under the sentence a class reads).
    if let Some((mut text, mut warn)) = stats.load.note(stats.cores, stats.measured).filter(|_| !hidden) {
        if stats.compared_alike() {
            text += ". The two figures compared are taken with the window held still (nothing drawn while they are measured), so they do not include its load";
            warn = false;
        }
        if warn {
            ui.colored_label(ui.visuals().warn_fg_color, text);
        } else {
            ui.weak(text);
        }
    }
    let comparison = stats.comparison();
    let rows = [("active", &stats.active), ("CPU copy", &stats.cpu)];
    egui::Grid::new("timing_grid").num_columns(2).striped(true).show(ui, |ui| {
        for (name, rate) in rows {
            ui.strong(name);
            match rate {
                Some(r) => {
                    ui.vertical(|ui| {
                        if hidden {
                            ui.label(r.kind.to_string());
                        } else {
                            ui.label(format!("{} on {}", r.kind, r.device));
                        }
                        for line in rate_lines(stats, r, name == "active") {
                            ui.label(num(line));
                        }
                        ui.weak(r.includes());
                        ui.weak(num(format!("of {}, {:.0} s ago", stats.of_what(r), r.age().as_secs_f64())));
                    });
                }
                None => {
                    let why = match (name, stats.cpu_enabled) {
                        ("CPU copy", false) => "off",
                        ("CPU copy", true) => stats.cpu_error.as_deref().unwrap_or("measuring…"),
                        _ => "waiting…",
                    };
                    ui.weak(why);
                }
            }
            ui.end_row();
        }
    });
    let over = stats.cpu.as_ref().map_or("CPU".to_owned(), |c| c.kind.to_string());
    match &comparison {
        Comparison::Speedup(s) => {
            ui.label(
                egui::RichText::new(format!("speedup over {over}: {}", num(format!("{s:.1} x")))).strong().size(16.0),
            );
        }
        Comparison::Waiting(why) => {
            ui.label(egui::RichText::new(format!("speedup over {over}: —")).strong().size(16.0));
            ui.weak(why.clone());
        }
    }
    if let Some(r) = stats.render_secs
        && stats.demo == Demo::Wave
    {
        if stats.zero_copy {
            ui.weak(num(format!(
                "frame coloured on the GPU into the display texture, no copy: {} to submit",
                fmt_secs(r)
            )));
        } else {
            ui.weak(num(format!("colour + copy of a frame to the host: {}", fmt_secs(r))));
        }
    }
    if let Some(hint) = stats.launch_hint().filter(|_| !hidden) {
        ui.colored_label(ui.visuals().warn_fg_color, hint);
    }
    if stats.demo == Demo::Wave {
        ui.weak(
            "Effective bandwidth counts the seed kernel's 12 B per update (read f and g, write f); DRAM counts \
             what this kernel moves: fewer bytes where it keeps several updates on chip.",
        );
    } else {
        ui.weak(
            "Rates count iterations per pixel: those the kernel executed and the rule's, min(count+1, iters) \
             (the same for the plain kernels; fewer executed where iterations are skipped by approximation). \
             A GPU's lanes also sit idle while a warp waits for its slowest pixel; that is not counted.",
        );
    }
    ui.weak(
        "The CPU runs a copy of the same problem in its own thread, at half duty, so it lags on big problems. \
         It takes turns with the active backend, never computing at the same time, so neither figure includes \
         the other's load. A speedup is shown only when both figures are of the same problem and fresh.",
    );
    if let Some(f) = stats.ui_fps
        && !hidden
    {
        ui.weak(format!("window: {f:.0} frames/s"));
    }
    if let Some(a) = stats.display_adapter.as_ref().filter(|_| !hidden) {
        ui.weak(format!("display: {a}"));
    }
    let line = |name: &str, k: usize| {
        let pts: Vec<[f64; 2]> = if hidden {
            Vec::new()
        } else {
            stats.history().filter(|h| h[k].is_finite()).map(|h| [h[0], h[k]]).collect()
        };
        egui_plot::Line::new(name.to_owned(), pts)
    };
    egui_plot::Plot::new("timing_plot")
        .legend(egui_plot::Legend::default())
        .height(ui.available_height().clamp(80.0, 220.0))
        .y_axis_label(unit)
        .x_axis_label("s")
        .include_y(0.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .show(ui, |p| {
            p.line(line("active", 1));
            p.line(line("CPU", 2));
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{BackendKind, TimingSource};

    fn wave_stats(secs_per_update: f64, cells: f64, dram: Option<f64>, peak: Option<f64>) -> TimingStats {
        let mut s = TimingStats::new(false);
        s.clear(Demo::Wave);
        s.peak_gbps = peak;
        s.dram_bytes_per_update = dram;
        s.active = Some(Rate {
            kind: BackendKind::Cuda,
            device: "fake GPU".into(),
            secs: secs_per_update,
            work: cells,
            source: TimingSource::CudaEvents,
            kernel_only: true,
            problem: Problem::Wave(std::sync::Arc::new(crate::sim::wave::scene::Scene::seed(1000, 800, 0.1))),
            at: web_time::Instant::now(),
            took: std::time::Duration::from_millis(1),
            samples: 2,
            recent: std::collections::VecDeque::new(),
        });
        s
    }

    /// Seen after switching backend: "speedup 0.0 x" while the new one warmed up. Its first frame
    /// is not compared, and the second replaces it instead of being averaged with it.
    #[test]
    fn a_new_backend_s_first_frame_is_not_compared() {
        let mut s = wave_stats(1.0, 8e5, None, None);
        let a = s.active.as_mut().unwrap();
        a.samples = 1;
        assert!(
            matches!(s.comparison(), Comparison::Waiting(w) if w.contains("first frame warms it up")),
            "{:?}",
            s.comparison()
        );
        let warm = crate::backend::Timing::wall(std::time::Duration::from_micros(2));
        let problem = s.active.as_ref().unwrap().problem.clone();
        TimingStats::record(&mut s.active, BackendKind::Cuda, "fake GPU", 1e-6, 8e5, &warm, problem);
        let a = s.active.as_ref().unwrap();
        assert_eq!((a.samples, a.secs), (2, 1e-6), "the warm-up second is dropped, not averaged");
    }

    #[test]
    fn the_issue_h100_frame_shows_effective_above_peak_with_its_reason_and_dram_below() {
        // 1.1 µs per update of 1000 x 800 cells: 8.7 TB/s nominal on a 3352 GB/s device.
        let s = wave_stats(1.1e-6, 8e5, Some(2.78), Some(3352.0));
        let lines = rate_lines(&s, s.active.as_ref().unwrap(), true);
        let text = lines.join("\n");
        assert!(text.contains("effective"), "{text}");
        assert!(text.contains("temporal blocking"), "{text}");
        let pct_lines: Vec<&String> = lines.iter().filter(|l| l.contains("% of")).collect();
        assert_eq!(pct_lines.len(), 1, "{text}");
        assert!(pct_lines[0].starts_with("DRAM"), "{text}");
    }

    #[test]
    fn share_of_peak_never_above_100_percent() {
        for secs in [1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5] {
            for dram in [None, Some(2.78), Some(8.0), Some(12.0)] {
                let s = wave_stats(secs, 8e5, dram, Some(3352.0));
                for line in rate_lines(&s, s.active.as_ref().unwrap(), true) {
                    if let Some(i) = line.find("% of") {
                        let num: String =
                            line[..i].chars().rev().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
                        let pct: f64 = num.chars().rev().collect::<String>().parse().unwrap();
                        assert!(pct <= 100.0, "{secs} {dram:?}: {line}");
                    }
                }
            }
        }
    }

    #[test]
    fn without_a_kernel_design_no_share_of_peak_is_given() {
        let s = wave_stats(1e-5, 8e5, None, Some(3352.0));
        let lines = rate_lines(&s, s.active.as_ref().unwrap(), true);
        assert!(lines.iter().all(|l| !l.contains("% of")), "{lines:?}");
    }

    #[test]
    fn launch_bound_hint_appears_when_calls_are_much_slower_per_update() {
        // The issue: 2.62 µs per update at 5 steps/frame against 1.1 µs in large calls.
        let mut s = wave_stats(2.62e-6, 8e5, None, None);
        s.steps_per_frame = 5;
        assert!(s.launch_hint().is_none(), "no large-call figure yet");
        s.large_call_update_secs = Some(1.1e-6);
        let hint = s.launch_hint().expect("launch-bound");
        assert!(hint.contains("5 steps/frame"), "{hint}");
        // Close to the large-call rate: not launch-bound.
        s.active.as_mut().unwrap().secs = 1.3e-6;
        assert!(s.launch_hint().is_none());
        assert!(launch_bound_hint(2.3e-6, 1.1e-6, 5, false).is_some());
        assert!(launch_bound_hint(2.1e-6, 1.1e-6, 5, false).is_none());
        assert!(launch_bound_hint(f64::NAN, 1.1e-6, 5, false).is_none());
        assert!(launch_bound_hint(5e-6, 1.1e-6, 0, false).is_none());
        s.demo = Demo::Mandelbrot;
        assert!(s.launch_hint().is_none());
    }

    #[test]
    fn with_fastest_ticked_the_hint_does_not_ask_to_tick_it() {
        let with = launch_bound_hint(5e-6, 1.1e-6, 5, true).unwrap();
        assert!(!with.contains("tick"), "{with}");
        assert!(with.contains("already fills"), "{with}");
        assert!(launch_bound_hint(5e-6, 1.1e-6, 5, false).unwrap().contains("tick \"fastest\""));
    }
}

#[cfg(test)]
mod mandelbrot_tests {
    use super::*;

    /// The repaint the panel leaves scheduled after a few settled frames (`Duration::MAX`: none).
    fn repaint_delay_after_frames(stats: &mut TimingStats) -> std::time::Duration {
        let ctx = egui::Context::default();
        let mut delay = std::time::Duration::MAX;
        for _ in 0..4 {
            let out = ctx.run_ui(egui::RawInput::default(), |ui| timing_panel_ui(ui, stats));
            delay =
                out.viewport_output.get(&egui::ViewportId::ROOT).map_or(std::time::Duration::MAX, |v| v.repaint_delay);
        }
        delay
    }

    /// Seen: 6 s and 16 s after Pause the panel still said "0 s ago" until the mouse moved.
    #[test]
    fn a_shown_figure_is_redrawn_every_second_without_input() {
        let mut s = TimingStats::new(false);
        s.clear(Demo::Mandelbrot);
        assert_eq!(repaint_delay_after_frames(&mut s), std::time::Duration::MAX, "nothing shown: no repaint asked");
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &frame(3_000_000, 0.01));
        let delay = repaint_delay_after_frames(&mut s);
        assert!(delay <= std::time::Duration::from_secs(1), "a figure with its age shown, next repaint in {delay:?}");
    }
    use crate::app::worker::messages::{CompareJob, CompareSample, FrameSource, MandelbrotFrame};
    use crate::backend::{BackendKind, Timing};

    fn frame(total_iters: u64, secs: f64) -> MandelbrotFrame {
        let view = crate::sim::fractal::deep::View { re: "-0.5".into(), im: "0".into(), zoom: "1".into() };
        let request = crate::app::worker::messages::MandelRequest {
            view,
            width: 100,
            height: 50,
            iters: 200,
            arith: None,
            colour: Default::default(),
            julia: None,
        };
        MandelbrotFrame {
            pixels: FrameSource::Rgba { rgba: Vec::new(), width: 100, height: 50 },
            request,
            width: 100,
            height: 50,
            coarse: 1,
            params: Some(crate::sim::fractal::mandelbrot::MandelbrotParams {
                width: 100,
                height: 50,
                iters: 200,
                bounds: crate::sim::fractal::mandelbrot::Bounds::SEED,
                precision: crate::sim::fractal::mandelbrot::Precision::F32,
            }),
            arith: "f32".into(),
            counts: Vec::new(),
            total_iters,
            timing: Timing::wall(std::time::Duration::from_secs_f64(secs)),
        }
    }

    #[test]
    fn mandelbrot_rates_say_executed_and_rule_iterations() {
        let mut s = TimingStats::new(false);
        s.clear(Demo::Mandelbrot);
        // 3e9 iterations in 1.5 s: 2 Giter/s, executed and by the rule.
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &frame(3_000_000_000, 1.5));
        let text = rate_lines(&s, s.active.as_ref().unwrap(), true).join("\n");
        assert!(text.contains("2.000 Giter/s executed"), "{text}");
        assert!(text.contains("2.000 Giter/s of the rule's iterations") && text.contains("the same"), "{text}");
        // A kernel that skips a third of the rule's iterations: the rule's rate is higher.
        s.set_rule_iters(4_500_000_000);
        let text = rate_lines(&s, s.active.as_ref().unwrap(), true).join("\n");
        assert!(text.contains("2.000 Giter/s executed"), "{text}");
        assert!(text.contains("3.000 Giter/s of the rule's iterations"), "{text}");
        assert!(text.contains("executed 3000000000 of the rule's 4500000000"), "{text}");
    }

    fn cpu_sample(p: crate::sim::fractal::mandelbrot::MandelbrotParams, secs: f64) -> CompareSample {
        CompareSample {
            kind: BackendKind::Cpu1,
            device: "CPU".into(),
            job: CompareJob::Mandelbrot(p),
            steps: 0,
            timing: Timing::wall(std::time::Duration::from_secs_f64(secs)),
            total_iters: 1000,
            error: None,
        }
    }

    /// Seen on a 2-core machine: "every CPU core drew this picture in 398.87 ms while one CPU
    /// core took 80.93 ms: 4.9 times faster" (the live figure shared the cores with the window).
    /// The comparison thread's own `cpu` figure, taken beside `cpu1`, is the one compared, and the
    /// sentence names the faster side plainly.
    #[test]
    fn an_active_cpu_is_compared_by_its_figure_taken_alike() {
        let mut s = TimingStats::new(false);
        s.clear(Demo::Mandelbrot);
        let f = frame(3_000_000, 0.399);
        let shown = f.params.unwrap();
        s.record_mandelbrot(BackendKind::Cpu, "2 cores", &f);
        s.record_cpu(&cpu_sample(shown, 0.081));
        assert!(s.sentence().contains("one CPU core was 4.9 times faster"), "{}", s.sentence());
        assert!(!s.compared_alike());
        let alike = CompareSample { kind: BackendKind::Cpu, ..cpu_sample(shown, 0.045) };
        s.record_cpu(&alike);
        assert!(s.compared_alike());
        assert_eq!(s.cpu.as_ref().map(|c| c.kind), Some(BackendKind::Cpu1), "the copy's figure is kept apart");
        assert_eq!(s.speedup().map(|x| (x * 10.0).round() / 10.0), Some(1.8));
        assert!(
            s.sentence().starts_with("Every CPU core (cpu) drew this picture in 45.00 ms while one CPU core (cpu1) took 81.00 ms: 1.8 times faster"),
            "{}",
            s.sentence()
        );
        // Another view: the alike figure is of the old picture, so the live one is used again.
        let other = frame(3_000_000, 0.2);
        let mut p = other.params.unwrap();
        p.iters = 300;
        let other = MandelbrotFrame { params: Some(p), ..other };
        s.record_mandelbrot(BackendKind::Cpu, "2 cores", &other);
        assert!(!s.compared_alike());
    }

    #[test]
    fn a_cpu_figure_of_another_view_is_never_compared() {
        let mut s = TimingStats::new(false);
        s.clear(Demo::Mandelbrot);
        let f = frame(3_000_000, 0.01);
        let shown = f.params.unwrap();
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &f);
        assert!(matches!(s.comparison(), Comparison::Waiting(w) if w.contains("waiting for the CPU copy")));
        // The CPU copy of the same picture: a speedup.
        s.record_cpu(&cpu_sample(shown, 0.5));
        assert_eq!(s.speedup().map(|x| x.round()), Some(50.0));
        assert!(s.sentence().contains("50 times faster"), "{}", s.sentence());
        assert!(
            s.sentence()
                .starts_with("The GPU (CUDA) drew this picture in 10.00 ms while one CPU core (cpu1) took 500.00 ms"),
            "{}",
            s.sentence()
        );
        // Zoomed in: the same size, other bounds. The old CPU figure is not compared.
        let mut zoomed = frame(3_000_000, 0.02);
        zoomed.params.as_mut().unwrap().bounds.minx += 0.1;
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &zoomed);
        assert_eq!(s.speedup(), None);
        s.drop_stale_cpu();
        assert!(s.sentence().contains("Waiting for the CPU copy to measure this 100x50 view"), "{}", s.sentence());
        // A perturbation picture: said, never compared.
        let mut deep = frame(3_000_000, 0.02);
        deep.params = None;
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &deep);
        s.record_cpu(&cpu_sample(shown, 0.5));
        assert!(s.sentence().contains("not by perturbation"), "{}", s.sentence());
        // A Julia picture (computed directly, no parameters of the Mandelbrot set): said as such.
        let mut julia = frame(3_000_000, 0.02);
        julia.params = None;
        julia.request.julia = Some([-0.8, 0.156]);
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &julia);
        s.record_cpu(&cpu_sample(shown, 0.5));
        assert!(s.sentence().contains("no comparison on a Julia set"), "{}", s.sentence());
        // Switched off: its figure goes at once.
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &f);
        s.record_cpu(&cpu_sample(shown, 0.5));
        assert!(s.speedup().is_some());
        s.set_cpu_enabled(false);
        assert!(s.cpu.is_none() && s.speedup().is_none());
        assert!(s.sentence().contains("comparison is off"), "{}", s.sentence());
    }

    /// Seen in a dive (I held from the whole set to 1.6e180 on the CPU): "Every CPU core (cpu)
    /// drew this picture in 510.77 ms while one CPU core (cpu1) took 275.66 ms", a figure "of
    /// this 399x715 view …, 305 s ago" while the coarse passes of other views were shown.
    #[test]
    fn a_view_being_drawn_is_never_given_the_figure_of_the_one_before() {
        let mut s = TimingStats::new(false);
        s.clear(Demo::Mandelbrot);
        let f = frame(3_000_000, 0.01);
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &f);
        s.record_cpu(&cpu_sample(f.params.unwrap(), 0.5));
        assert!(s.speedup().is_some());
        let a = s.active.clone().unwrap();
        assert!(s.of_what(&a).starts_with("this 100x50 view"), "{}", s.of_what(&a));
        s.drawing_a_new_view();
        assert_eq!(s.speedup(), None);
        assert_eq!(s.sentence(), "Drawing this view: the comparison comes when its picture is complete");
        assert!(s.of_what(&a).starts_with("the picture before this one (100x50 view"), "{}", s.of_what(&a));
        // Its full picture measured: compared again once the CPU copy has it.
        s.record_mandelbrot(BackendKind::Cuda, "fake GPU", &f);
        assert!(s.speedup().is_some() && s.of_what(&a).starts_with("this "));
        // The wave view has no coarse passes: nothing changes there.
        s.clear(Demo::Wave);
        s.drawing_a_new_view();
        assert!(!s.drawing);
    }

    /// Seen on a 2-core machine: "every CPU core (cpu) did 550 steps … while one CPU core
    /// (cpu1) did 1 200", the figure going 370 … 1 180 from one second to the next. Each side's
    /// figure is the best of its recent samples taken alike, so one sample that shared the
    /// cores with a frame of the window loses to its neighbours.
    #[test]
    fn the_cpu_sides_are_each_the_best_of_their_recent_samples() {
        let scene = std::sync::Arc::new(crate::sim::wave::scene::Scene::seed(1000, 800, 0.1));
        let mut s = TimingStats::new(false);
        s.clear(Demo::Wave);
        s.active = Some(Rate {
            kind: BackendKind::Cpu,
            device: "2 cores".into(),
            secs: 1e-3,
            work: 800_000.0,
            source: crate::backend::TimingSource::WallClock,
            kernel_only: false,
            problem: Problem::Wave(std::sync::Arc::clone(&scene)),
            at: web_time::Instant::now(),
            took: std::time::Duration::from_millis(1),
            samples: 2,
            recent: std::collections::VecDeque::new(),
        });
        let sample = |kind, secs: f64| CompareSample {
            kind,
            device: "CPU".into(),
            job: CompareJob::Wave(std::sync::Arc::clone(&scene)),
            steps: 100,
            timing: Timing::wall(std::time::Duration::from_secs_f64(secs)),
            total_iters: 0,
            error: None,
        };
        // Pairs as the comparison sends them: `cpu` alike first, then the copy `cpu1`; the second
        // pair's `cpu` shared the cores with a frame (0.30 s, not 0.12).
        for (all, one) in [(0.12, 0.22), (0.30, 0.21), (0.125, 0.26)] {
            s.record_cpu(&sample(BackendKind::Cpu, all));
            s.record_cpu(&sample(BackendKind::Cpu1, one));
        }
        // 100 steps in 0.12 s: 833 steps a second; one core 100 in 0.21 s: 476.
        assert!(s.compared_alike());
        assert_eq!(s.speedup().map(|x| (x * 100.0).round() / 100.0), Some(1.75));
        assert!(
            s.sentence().starts_with("In one second every CPU core (cpu) did 830 steps of the 1000x800 grid while one CPU core (cpu1) did 480: 1.8 times faster"),
            "{}",
            s.sentence()
        );
    }

    #[test]
    fn counts_read_as_a_class_reads_them() {
        use crate::app::parts::timing_stats::fmt_count;
        assert_eq!(fmt_count(12.2), "12");
        assert_eq!(fmt_count(1004.0), "1 000");
        assert_eq!(fmt_count(41_236.0), "41 240");
        assert_eq!(fmt_count(2.5e6), "2.5 million");
    }
}
