//! What `wavebrot bench` measures: the seed's wave run (final copy included, as the seed times
//! it), large grids per update, a displayed wave frame, and Mandelbrot images, each on every
//! backend asked for, checked against the CPU reference and reported as a table line and a
//! JSON record.

use web_time::Instant;

use anyhow::Result;

use crate::backend::bandwidth::Bandwidth;
use crate::backend::{self, Backend, BackendKind, Timing, WaveSim, WaveVariant};
use crate::sim::fractal::deep::perturb_row;
use crate::sim::fractal::deep::{DeepJob, View};
use crate::sim::fractal::mandelbrot::{self, MandelbrotParams};
use crate::sim::fractal::perturb::Mantissa;
use crate::sim::wave::scene::{Boundary, Scene};
use crate::sim::wave::{self, WAVE_TOLERANCE, WaveParams};

use super::deep_views::short_digits;
pub use super::deep_views::{deep_bench_view, deep_suite};
use super::report::{Record, Report, fmt_time};
use super::runner::{Plan, SETTLE, measure, settle, time_wave};

/// Settings every case shares.
#[derive(Clone, Debug)]
pub struct Options {
    /// Smaller sizes and fewer repeats.
    pub quick: bool,
    /// Wave kernel variants to time on backends that have them (`Auto`: each backend's default).
    pub variants: Vec<WaveVariant>,
    /// The side of the to-file cases ([`super::to_file`]); `None`: 16384 (1 GiB), 2048 with
    /// `quick`; `Some(0)` leaves them out.
    pub file_size: Option<usize>,
    /// `bench mandelbrot --deep-suite`: only the deep-zoom suite ([`deep_suite`]).
    pub deep_suite: bool,
}

/// The variants of `b` to time: those asked for that it has (its default where it has one).
fn variants_of(b: &dyn Backend, asked: &[WaveVariant]) -> Vec<WaveVariant> {
    variants_among(b.wave_variants(), asked)
}

/// The variants among `offered` to time: those asked for (`Auto` alone where none is offered).
fn variants_among(offered: &[WaveVariant], asked: &[WaveVariant]) -> Vec<WaveVariant> {
    let mut out: Vec<WaveVariant> =
        asked.iter().copied().filter(|v| *v == WaveVariant::Auto || offered.contains(v)).collect();
    if offered.is_empty() || out.is_empty() {
        out = vec![WaveVariant::Auto];
    }
    out.dedup();
    out
}

/// A backend's name with the variant it runs, for the table: `cuda`, `cuda/simple`.
fn label(kind: BackendKind, variant: Option<WaveVariant>, asked: &[WaveVariant]) -> String {
    match variant {
        Some(v) if asked.iter().any(|a| *a != WaveVariant::Auto) => format!("{}/{}", kind.name(), v.name()),
        _ => kind.name().to_owned(),
    }
}

/// The seed's wave run of `tmax` steps from zero on an `nx x ny` grid, final copy included.
pub fn wave(
    r: &mut Report,
    opts: &Options,
    backends: &mut [Box<dyn Backend>],
    (nx, ny, tmax): (usize, usize, u32),
    with_cpu1: bool,
) -> Result<()> {
    let p = WaveParams::new(nx, ny, wave::DEFAULT_FREQ);
    r.say(format!(
        "\nwave2d  nx={nx}, ny={ny}, tmax={tmax}  ({} updates; time includes the final copy to the host)",
        2 * tmax
    ));
    let reference = reference_wave(&p, tmax)?;
    let mut ok_all = true;
    for b in backends.iter_mut() {
        let kind = b.kind();
        if kind == BackendKind::Cpu1 && !with_cpu1 {
            r.say(format!("  {:<5} skipped: the single-thread reference is timed on the seed case only", kind.name()));
            continue;
        }
        let info = b.device_info();
        let device = info.name;
        for asked in variants_of(b.as_ref(), &opts.variants) {
            r.status(kind.name());
            let mut sim = match b.new_wave_variant(&p, asked) {
                Ok(s) => s,
                Err(e @ backend::BackendError::OutOfMemory { .. }) => {
                    r.say(format!("  {:<5} {device:<40} skipped: {e}", kind.name()));
                    continue;
                }
                Err(e) => {
                    r.say(format!("  {:<5} {device:<40} failed: {e}", kind.name()));
                    r.fail(format!("wave {nx}x{ny} on {kind}: {e}"));
                    continue;
                }
            };
            let name = label(kind, sim.variant(), &opts.variants);
            let case = Timed {
                kernel: "wave",
                name: &name,
                kind,
                device: &device,
                tmax,
                nominal_bytes: true,
                peak_gbps: info.peak_gbps,
                settle: kind.is_gpu() && !b.is_software(),
            };
            ok_all &= time_and_report(r, opts, sim.as_mut(), &case, &reference);
        }
    }
    r.say(format!("Check result: {}", if ok_all { "OK!" } else { "MISMATCH (see above)" }));
    Ok(())
}

/// The scene of the speed budget (issue 9): an `n x n` grid with Mur's edges (the edge the budget
/// was set on), a plane wave through a double slit, and a lens of slower medium behind it.
#[must_use]
pub fn budget_scene(n: usize) -> Scene {
    budget_scene_with(n, Boundary::Mur)
}

/// [`budget_scene`] with another edge (`absorbing`, the perfectly matched layer: what scenes get).
#[must_use]
pub fn budget_scene_with(n: usize, boundary: Boundary) -> Scene {
    let n_i = n as i64;
    let (wall_x, slit, gap) = (n_i / 4, n_i / 40, n_i / 8);
    let mid = n_i / 2;
    let text = format!(
        r#"
description = "bench: {edge} edges, a double slit and a lens"
nx = {n}
ny = {n}
c2 = 0.25
boundary = "{edge}"

[[source]]
kind = "line"
x0 = {sx}
y0 = 2
x1 = {sx}
y1 = {top}
freq = 0.2
amplitude = 0.1

[[wall]]
x0 = {wall_x}
y0 = 0
x1 = {wall_x2}
y1 = {w1}

[[wall]]
x0 = {wall_x}
y0 = {w2}
x1 = {wall_x2}
y1 = {w3}

[[wall]]
x0 = {wall_x}
y0 = {w4}
x1 = {wall_x2}
y1 = {last}

[[medium]]
shape = "circle"
x = {lens_x}
y = {mid}
r = {r}.0
c2 = 0.125
"#,
        edge = boundary.name(),
        sx = n_i / 8,
        top = n_i - 3,
        wall_x2 = wall_x + 3,
        w1 = mid - gap / 2 - slit - 1,
        w2 = mid - gap / 2,
        w3 = mid + gap / 2,
        w4 = mid + gap / 2 + slit + 1,
        last = n_i - 1,
        lens_x = n_i * 5 / 8,
        r = n_i / 8,
    );
    Scene::from_toml(&text).unwrap_or_else(|e| unreachable!("the bench scene is valid: {e}"))
}

/// A scene of `tmax` steps from zero, final copy included, against the CPU's run of it: the cost
/// of walls, media and absorbing edges beside the plain kernel's (`wave`) at the same size.
pub fn scene(r: &mut Report, opts: &Options, backends: &mut [Box<dyn Backend>], s: &Scene, tmax: u32) -> Result<()> {
    let (nx, ny) = (s.nx, s.ny);
    r.say(format!(
        "
wave2d scene  nx={nx}, ny={ny}, tmax={tmax}: {} ({} updates; time includes the final copy)",
        s.description,
        2 * tmax
    ));
    let reference = {
        let mut sim = backend::open(BackendKind::Cpu)?.new_scene(s)?;
        let mut field = vec![0.0f32; s.cells()];
        time_wave(sim.as_mut(), tmax, &mut field)?;
        field
    };
    let mut ok_all = true;
    for b in backends.iter_mut().filter(|b| b.kind() != BackendKind::Cpu1) {
        let kind = b.kind();
        r.status(kind.name());
        let info = b.device_info();
        let device = info.name;
        for variant in variants_among(b.scene_variants(), &opts.variants) {
            let name = label(kind, (!b.scene_variants().is_empty()).then_some(variant), &opts.variants);
            let mut sim = match b.new_scene_variant(s, variant) {
                Ok(sim) => sim,
                Err(e) => {
                    r.say(format!("  {name:<5} {device:<40} skipped: {e}"));
                    continue;
                }
            };
            // The row says the variant it ran, `auto` resolved (wgpu's blocked scene kernel).
            let name = match sim.variant() {
                Some(v) if !name.contains('/') => format!("{name}/{}", v.name()),
                _ => name,
            };
            let case = Timed {
                kernel: "wave_scene",
                name: &name,
                kind,
                device: &device,
                tmax,
                nominal_bytes: false,
                peak_gbps: info.peak_gbps,
                settle: kind.is_gpu() && !b.is_software(),
            };
            ok_all &= time_and_report(r, opts, sim.as_mut(), &case, &reference);
        }
    }
    r.say(format!("Check result: {}", if ok_all { "OK!" } else { "MISMATCH (see above)" }));
    Ok(())
}

/// What one timed wave run is, for its table line and record.
struct Timed<'a> {
    /// `wave` or `wave_scene`.
    kernel: &'static str,
    /// The backend as the table names it (`cuda`, `cuda/simple`).
    name: &'a str,
    kind: BackendKind,
    device: &'a str,
    tmax: u32,
    /// Show the bandwidth at the nominal 12 bytes per update (the plain rule's).
    nominal_bytes: bool,
    /// The device's peak memory bandwidth, for the DRAM figure's share.
    peak_gbps: Option<f64>,
    /// A GPU (not a software one): its clocks brought up before the timed runs (`SETTLE`).
    settle: bool,
}

/// Times `case.tmax` steps from zero on `sim` (final copy included), checks the field against
/// `reference`, prints the table line and records it. Returns whether it matched.
fn time_and_report(r: &mut Report, opts: &Options, sim: &mut dyn WaveSim, case: &Timed<'_>, reference: &[f32]) -> bool {
    let (nx, ny, tmax, name, device) = (sim.params().nx, sim.params().ny, case.tmax, case.name, case.device);
    let mut field = vec![0.0f32; sim.params().cells()];
    // A GPU's clocks up before the timed runs (`SETTLE`); its failure is the run's.
    let settled = if case.settle { settle(sim, tmax, SETTLE).map(|_| ()) } else { Ok(()) };
    let m = match settled
        .and_then(|()| measure(Plan::new(opts.quick, (3, 7), (2, 6)), || time_wave(sim, tmax, &mut field)))
    {
        Ok((_, m)) => m,
        Err(e) => {
            r.say(format!("  {name:<5} {device:<40} failed: {e:#}"));
            r.fail(format!("{} {nx}x{ny} tmax={tmax} on {name}: {e:#}", case.kernel));
            return false;
        }
    };
    // Every run starts from zero, so the last run's field is the one each run made.
    let diff = f64::from(wave::max_abs_diff(&field, reference));
    let (cells, updates) = ((nx * ny) as f64, f64::from(2 * tmax));
    let step = m.best_seconds() / updates;
    let ok = diff <= f64::from(WAVE_TOLERANCE);
    let bw = case.nominal_bytes.then(|| Bandwidth::new(step, cells, sim.dram_bytes_per_update(tmax), case.peak_gbps));
    let gbps = bw.map(|b| b.effective_gbps);
    let gbps_txt = bw.map_or(String::new(), |b| format!("  {}", b.summary()));
    let note = bw.and_then(|b| b.effective_note().or_else(|| b.dram_note()));
    let kernel_txt =
        m.kernel_seconds.map_or(String::new(), |k| format!("  (kernels {} by {})", fmt_time(k), m.source.label()));
    r.say(format!(
        "  {name:<5} {device:<40} {:>10}  {:>9}/update  {:>7.2} Gcell/s{gbps_txt}  max|diff| {diff:.1e}{kernel_txt}",
        fmt_time(m.seconds),
        fmt_time(step),
        cells / step / 1e9,
    ));
    if let Some(n) = &note {
        r.say(format!("        ({n})"));
    }
    if let Some(k) = sim.kernel_note() {
        r.say(format!("        (kernel: {k})"));
    }
    if !ok {
        r.fail(format!("{} {nx}x{ny} tmax={tmax} on {name}: max|diff| {diff:.3e} > {WAVE_TOLERANCE:e}", case.kernel));
    }
    r.records.push(Record {
        kernel: case.kernel.into(),
        backend: case.kind.name().into(),
        variant: sim.variant().map(WaveVariant::name),
        device: device.to_owned(),
        nx: Some(nx),
        ny: Some(ny),
        tmax: Some(tmax),
        seconds: m.seconds,
        kernel_seconds: m.kernel_seconds,
        timing_source: m.source.label(),
        per_step_us: Some(step * 1e6),
        gcells_per_s: Some(cells / step / 1e9),
        gbps,
        effective_gbps: gbps,
        dram_bytes_per_update: bw.and_then(|b| b.dram_bytes_per_update),
        dram_gbps: bw.and_then(|b| b.dram_gbps),
        peak_gbps: bw.and_then(|b| b.peak_gbps),
        dram_percent_of_peak: bw.and_then(|b| b.dram_percent_of_peak()),
        bandwidth_note: note,
        max_abs_diff: Some(diff),
        repeats: m.repeats,
        ok,
        ..Record::default()
    });
    ok
}

/// The CPU reference field (the all-cores path, bit-identical to the single-thread one).
fn reference_wave(p: &WaveParams, tmax: u32) -> Result<Vec<f32>> {
    let mut sim = backend::open(BackendKind::Cpu)?.new_wave(p)?;
    let mut field = vec![0.0f32; p.cells()];
    time_wave(sim.as_mut(), tmax, &mut field)?;
    Ok(field)
}

/// One displayed frame of an `n x n` wave: a time step, the colormap and the RGBA copy to the host.
pub fn wave_frame(r: &mut Report, opts: &Options, backends: &mut [Box<dyn Backend>], n: usize) -> Result<()> {
    let p = WaveParams::new(n, n, wave::DEFAULT_FREQ);
    r.say(format!("\nwave2d frame  nx={n}, ny={n}: one time step + hot colormap + RGBA copy to the host"));
    let mut rgba = vec![0u8; n * n * 4];
    for b in backends.iter_mut().filter(|b| b.kind() != BackendKind::Cpu1) {
        let kind = b.kind();
        r.status(kind.name());
        let device = b.device_info().name;
        let mut sim = match b.new_wave(&p) {
            Ok(s) => s,
            Err(e) => {
                r.say(format!("  {:<5} {device:<40} failed: {e}", kind.name()));
                continue;
            }
        };
        let plan = Plan { min: 5, ..Plan::new(opts.quick, (50, 50), (1, 3)) };
        let measured = measure(plan, || {
            let start = Instant::now();
            sim.advance(1)?;
            sim.render_rgba(-0.1, 0.1, &mut rgba)?;
            Ok(Timing::wall(start.elapsed()))
        });
        let m = match measured {
            Ok((_, m)) => m,
            Err(e) => {
                r.say(format!("  {:<5} {device:<40} failed: {e:#}", kind.name()));
                r.fail(format!("wave frame {n}x{n} on {kind}: {e:#}"));
                continue;
            }
        };
        let frame = m.seconds;
        r.say(format!(
            "  {:<5} {device:<40} {:>10}/frame  ({:.0} frames/s)",
            kind.name(),
            fmt_time(frame),
            1.0 / frame
        ));
        r.records.push(Record {
            kernel: "wave_frame".into(),
            backend: kind.name().into(),
            variant: sim.variant().map(WaveVariant::name),
            device,
            nx: Some(n),
            ny: Some(n),
            tmax: Some(1),
            seconds: frame,
            timing_source: backend::TimingSource::WallClock.label(),
            per_frame_ms: Some(frame * 1e3),
            repeats: m.repeats,
            ok: true,
            ..Record::default()
        });
    }
    Ok(())
}

/// One Mandelbrot image, the copy of the counts to the host included.
pub fn mandelbrot(
    r: &mut Report,
    opts: &Options,
    backends: &mut [Box<dyn Backend>],
    p: &MandelbrotParams,
    with_cpu1: bool,
) -> Result<()> {
    let b0 = &p.bounds;
    r.say(format!(
        "\nmandelbrot  {}x{}, iters={}, {}, view [{},{}]x[{},{}]  (time includes the copy of the counts to the host; \
         Giter/s counts the rule's iterations, min(count+1, iters) per pixel, as the peers do)",
        p.width,
        p.height,
        p.iters,
        p.precision.name(),
        b0.minx,
        b0.maxx,
        b0.miny,
        b0.maxy
    ));
    let mut reference = vec![0i32; p.pixels()];
    backend::open(BackendKind::Cpu)?.mandelbrot(p, &mut reference)?;
    let tol = mandelbrot::mismatch_tolerance(p.precision);
    let mut ok_all = true;
    let mut counts = vec![0i32; p.pixels()];
    for b in backends.iter_mut() {
        let kind = b.kind();
        r.status(kind.name());
        if kind == BackendKind::Cpu1 && !with_cpu1 {
            r.say(format!("  {:<5} skipped: the single-thread reference is timed on the seed case only", kind.name()));
            continue;
        }
        let device = b.device_info().name;
        let mut total = 0;
        let plan = Plan::new(opts.quick, (3, 7), (2, 5));
        let measured = measure(plan, || {
            let run = b.mandelbrot(p, &mut counts)?;
            total = run.total_iters;
            Ok(run.timing)
        });
        let m = match measured {
            Ok((_, m)) => m,
            Err(e) => {
                r.say(format!("  {:<5} {device:<40} failed: {e:#}", kind.name()));
                // A precision the device lacks is a skip, not a failure.
                if !matches!(e.downcast_ref(), Some(backend::BackendError::Invalid(_))) {
                    r.fail(format!("mandelbrot on {kind}: {e:#}"));
                    ok_all = false;
                }
                continue;
            }
        };
        let mism = mandelbrot::mismatch_frac(&counts, &reference);
        let ok = mism <= tol;
        ok_all &= ok;
        let giter = total as f64 / m.seconds / 1e9;
        let kgiter = m.kernel_seconds.map(|k| total as f64 / k / 1e9);
        let kernel_txt = m.kernel_seconds.map_or(String::new(), |k| {
            format!("  (kernel {} = {:.0} Giter/s by {})", fmt_time(k), total as f64 / k / 1e9, m.source.label())
        });
        r.say(format!(
            "  {:<5} {device:<40} {:>10}  {:>8.1} Giter/s  mismatch {:.4}%{kernel_txt}",
            kind.name(),
            fmt_time(m.seconds),
            giter,
            mism * 100.0
        ));
        if !ok {
            r.fail(format!(
                "mandelbrot {}x{} iters={} {} on {kind}: {:.4}% of pixels differ (> {}%)",
                p.width,
                p.height,
                p.iters,
                p.precision.name(),
                mism * 100.0,
                tol * 100.0
            ));
        }
        r.records.push(Record {
            kernel: "mandelbrot".into(),
            backend: kind.name().into(),
            device,
            width: Some(p.width),
            height: Some(p.height),
            iters: Some(p.iters),
            precision: Some(p.precision.name()),
            seconds: m.seconds,
            kernel_seconds: m.kernel_seconds,
            timing_source: m.source.label(),
            giter_per_s: Some(giter),
            kernel_giter_per_s: kgiter,
            mismatch_frac: Some(mism),
            repeats: m.repeats,
            ok,
            ..Record::default()
        });
    }
    r.say(format!("Check result: {}", if ok_all { "OK!" } else { "MISMATCH (see above)" }));
    Ok(())
}

/// One deep view by perturbation on each GPU backend, the reference orbit (arbitrary
/// precision, on the host) included in the time; checked against the CPU twin on every 16th row.
#[allow(clippy::too_many_lines, reason = "read whole; allow, not expect: a later split may shrink it")]
pub fn mandelbrot_deep(
    r: &mut Report,
    opts: &Options,
    backends: &mut [Box<dyn Backend>],
    view: &View,
    width: usize,
    height: usize,
    iters: u32,
) -> Result<()> {
    r.say(format!(
        "\nmandelbrot deep  {width}x{height}, iters={iters}, centre {},{} zoom {}  (time includes the reference \
         orbit in arbitrary precision, its BLA table and the copy of the counts; Giter/s counts the rule's \
         iterations, min(count+1, iters) a pixel; executed = single iterations + BLA steps; checked against the CPU \
         twin on every 16th row)",
        short_digits(&view.re),
        short_digits(&view.im),
        view.zoom
    ));
    let mut ok_all = true;
    let mut counts = vec![0i32; width * height];
    for b in backends.iter_mut() {
        let kind = b.kind();
        r.status(kind.name());
        if !kind.is_gpu() || b.is_software() {
            r.say(format!(
                "  {:<5} skipped: timed on GPUs only, not on the CPU or a software adapter (the CPU twin checks the GPU rows)",
                kind.name()
            ));
            continue;
        }
        let device = b.device_info().name;
        let repeats = if opts.quick { 1 } else { 3 };
        let mut secs = Vec::new();
        let mut kernel_secs = Vec::new();
        let mut total = 0;
        let mut executed = 0;
        let (mut orbit_ms, mut prep_ms) = (0.0, 0.0);
        let mut bla_ms = 0.0;
        let mut job = None;
        let mut failed = None;
        for _ in 0..repeats {
            let start = web_time::Instant::now();
            let prepared = match DeepJob::prepare_timed(view, width, height, iters, crate::backend::monotonic_millis) {
                Ok(j) => {
                    prep_ms = start.elapsed().as_secs_f64() * 1e3;
                    j
                }
                Err(e) => {
                    failed = Some(e.to_string());
                    break;
                }
            };
            match b.mandelbrot_deep(&prepared, &mut counts) {
                Ok(run) => {
                    secs.push(start.elapsed().as_secs_f64());
                    kernel_secs.extend(run.timing.device.map(|d| d.as_secs_f64()));
                    total = run.total_iters;
                    executed = run.executed();
                    let millis = prepared.millis.unwrap_or_default();
                    orbit_ms = millis.orbit;
                    bla_ms = millis.bla;
                    job = Some(prepared);
                }
                Err(e) => {
                    failed = Some(e.to_string());
                    break;
                }
            }
        }
        let (Some(job), None) = (job, failed.clone()) else {
            let e = failed.unwrap_or_default();
            r.say(format!("  {:<5} {device:<40} failed: {e}", kind.name()));
            r.fail(format!("deep mandelbrot on {kind}: {e}"));
            ok_all = false;
            continue;
        };
        secs.sort_by(f64::total_cmp);
        kernel_secs.sort_by(f64::total_cmp);
        let seconds = secs[secs.len() / 2];
        let kernel_seconds = kernel_secs.get(kernel_secs.len() / 2).copied();
        // The CPU twin on every 16th row.
        let arith = b.deep_arith(&job);
        let mantissa = if arith.contains("f32") { Mantissa::F32 } else { Mantissa::F64 };
        let rows: Vec<usize> = (0..height).step_by(16).collect();
        let (mut differ, mut checked) = (0usize, 0usize);
        for &y in &rows {
            let mut want = vec![0i32; width];
            match mantissa {
                Mantissa::F64 => perturb_row(&job, &job.deltas_f64(), y, &mut want),
                Mantissa::F32 => perturb_row(&job, &job.deltas_f32(), y, &mut want),
            };
            differ += want.iter().zip(&counts[y * width..(y + 1) * width]).filter(|(a, b)| a != b).count();
            checked += width;
        }
        let mism = differ as f64 / checked as f64;
        let tol = if kind == BackendKind::Cuda { 1e-4 } else { 0.01 };
        let ok = mism <= tol;
        ok_all &= ok;
        let giter = total as f64 / seconds / 1e9;
        r.say(format!(
            "  {:<5} {device:<40} {:>10}  {:>8.1} Giter/s  {arith}; reference orbit {:.1} ms, BLA table {:.1} ms; \
             kernel {}; rule iterations {total}, executed {executed} ({:.1}x fewer); mismatch {:.4}% on {} rows; \
             reference: {} (ball, Newton, orbit and BLA {prep_ms:.1} ms)",
            kind.name(),
            fmt_time(seconds),
            giter,
            orbit_ms,
            bla_ms,
            kernel_seconds.map_or("-".to_owned(), fmt_time),
            total as f64 / executed.max(1) as f64,
            mism * 100.0,
            rows.len(),
            job.reference.label()
        ));
        if !ok {
            r.fail(format!(
                "deep mandelbrot on {kind}: {:.4}% of checked pixels differ (> {}%)",
                mism * 100.0,
                tol * 100.0
            ));
        }
        r.records.push(Record {
            kernel: "mandelbrot_deep".into(),
            backend: kind.name().into(),
            device,
            width: Some(width),
            height: Some(height),
            iters: Some(iters),
            precision: Some("perturbation"),
            seconds,
            kernel_seconds,
            timing_source: "wall clock (reference orbit + render + copy)",
            giter_per_s: Some(giter),
            kernel_giter_per_s: kernel_seconds.map(|k| total as f64 / k / 1e9),
            mismatch_frac: Some(mism),
            rule_iterations: Some(total),
            executed_iterations: Some(executed),
            repeats: secs.len(),
            ok,
            ..Record::default()
        });
    }
    r.say(format!("Check result: {}", if ok_all { "OK!" } else { "MISMATCH (see above)" }));
    Ok(())
}
