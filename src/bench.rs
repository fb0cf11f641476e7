//! The timing harness behind `wavebrot bench` and `wavebrot verify`: the same cases,
//! run on every backend, compared with the CPU reference, printed seed-style and as JSON.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Serialize;

use crate::backend::{self, Backend, BackendKind, WaveSim};
use crate::output;
use crate::progress::Progress;
use crate::sim::mandelbrot::{self, Bounds, MandelbrotParams, Precision};
use crate::sim::wave::{self, BYTES_PER_CELL_UPDATE, WAVE_TOLERANCE, WaveParams};

/// Which kernels `bench` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Suite {
    Wave,
    Mandelbrot,
    All,
}

/// One line of `bench --json`: one (kernel, backend, size).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Record {
    /// `wave`, `wave_frame` or `mandelbrot`.
    pub kernel: String,
    pub backend: String,
    pub device: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nx: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ny: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tmax: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iters: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<&'static str>,
    /// Median wall time of the whole case, final copy to the host included.
    pub seconds: f64,
    /// Median time of the kernels alone, from the device's own clock, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_seconds: Option<f64>,
    /// Where `kernel_seconds` came from.
    pub timing_source: &'static str,
    /// Time per update (half a time step) in microseconds: kernel time where known, else wall.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_step_us: Option<f64>,
    /// Time per displayed frame (one time step, colormap and copy to the host) in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_frame_ms: Option<f64>,
    /// Cell updates per second, in billions (from `per_step_us`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gcells_per_s: Option<f64>,
    /// Effective bandwidth at 12 bytes per cell update, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gbps: Option<f64>,
    /// Iterations executed per second over `seconds` (copies included, like the peers), in billions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub giter_per_s: Option<f64>,
    /// The same over `kernel_seconds`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_giter_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_diff: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatch_frac: Option<f64>,
    pub repeats: usize,
    /// Within the tolerance of DESIGN.md against the CPU reference.
    pub ok: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) }
}

/// How many repeats fit a time budget after a first run took `first`.
fn repeats_for(first: Duration, wanted: usize, budget: Duration) -> usize {
    let fit = (budget.as_secs_f64() / first.as_secs_f64().max(1e-9)) as usize;
    fit.clamp(1, wanted.max(1))
}

/// The timing of one wave run from zero: wall time (final copy included) and device time.
pub struct WaveRun {
    pub wall: Duration,
    pub device: Option<Duration>,
    pub source: backend::TimingSource,
}

/// Runs `tmax` steps from zero on `sim` and copies `f` into `field`, timing it as the seed
/// does (its timer includes the final `cp.asnumpy`). `field` is the caller's, reused from run
/// to run as an application would, so the copy is not charged for first-touch page faults.
///
/// # Errors
/// A device failure.
pub fn time_wave(sim: &mut dyn WaveSim, tmax: u32, field: &mut [f32]) -> Result<WaveRun> {
    sim.reset()?;
    let start = Instant::now();
    let t = sim.advance(tmax)?;
    sim.read_field(field)?;
    Ok(WaveRun { wall: start.elapsed(), device: t.device, source: t.source })
}

struct Ctx {
    quick: bool,
    progress: Progress,
    records: Vec<Record>,
    failures: Vec<String>,
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Human time: s, ms or µs.
fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

/// Prints a line of the table above the progress bar (which is drawn only on a terminal).
macro_rules! say {
    ($ctx:expr, $($arg:tt)*) => {
        $ctx.progress.println(format!($($arg)*))
    };
}

fn wave_case(
    ctx: &mut Ctx,
    backends: &mut [Box<dyn Backend>],
    nx: usize,
    ny: usize,
    tmax: u32,
    with_cpu1: bool,
) -> Result<()> {
    let p = WaveParams::new(nx, ny, wave::DEFAULT_FREQ);
    say!(
        ctx,
        "\nwave2d  nx={nx}, ny={ny}, tmax={tmax}  ({} updates; time includes the final copy to the host)",
        2 * tmax
    );
    let reference = reference_wave(&p, tmax)?;
    let updates = f64::from(2 * tmax);
    let cells = (nx * ny) as f64;
    let mut ok_all = true;
    for b in backends.iter_mut() {
        let kind = b.kind();
        ctx.progress.set_message(format!("{kind}"));
        if kind == BackendKind::Cpu1 && !with_cpu1 {
            say!(ctx, "  {:<5} skipped: the single-thread reference is timed on the seed case only", kind.name());
            continue;
        }
        let device = b.device_info().name;
        let mut sim = match b.new_wave(&p) {
            Ok(s) => s,
            Err(e @ backend::BackendError::OutOfMemory { .. }) => {
                say!(ctx, "  {:<5} {device:<40} skipped: {e}", kind.name());
                continue;
            }
            Err(e) => {
                say!(ctx, "  {:<5} {device:<40} failed: {e}", kind.name());
                ctx.failures.push(format!("wave {nx}x{ny} on {kind}: {e}"));
                continue;
            }
        };
        let budget = Duration::from_secs(if ctx.quick { 2 } else { 6 });
        let wanted = if ctx.quick { 3 } else { 7 };
        let mut field = vec![0.0f32; p.cells()];
        let timed = (|| -> Result<_> {
            // Warm-up: one whole untimed run, so compiles, caches, page faults and GPU clock
            // ramp-up happen here; its field is the one checked.
            let warm = time_wave(sim.as_mut(), tmax, &mut field)?;
            let diff = f64::from(wave::max_abs_diff(&field, &reference));
            let n = repeats_for(warm.wall, wanted, budget);
            let (mut walls, mut devs) = (Vec::new(), Vec::new());
            let mut source = warm.source;
            for _ in 0..n {
                let r = time_wave(sim.as_mut(), tmax, &mut field)?;
                walls.push(secs(r.wall));
                devs.extend(r.device.map(secs));
                source = r.source;
            }
            Ok((diff, source, n, walls, devs))
        })();
        let (diff, source, n, walls, devs) = match timed {
            Ok(t) => t,
            Err(e) => {
                say!(ctx, "  {:<5} {device:<40} failed: {e:#}", kind.name());
                ctx.failures.push(format!("wave {nx}x{ny} tmax={tmax} on {kind}: {e:#}"));
                ok_all = false;
                continue;
            }
        };
        let seconds = median(walls);
        let kernel_seconds = (!devs.is_empty()).then(|| median(devs));
        let step = kernel_seconds.unwrap_or(seconds) / updates;
        let ok = diff <= f64::from(WAVE_TOLERANCE);
        ok_all &= ok;
        let kernel_txt =
            kernel_seconds.map_or(String::new(), |k| format!("  (kernels {} by {})", fmt_time(k), source.label()));
        say!(
            ctx,
            "  {:<5} {device:<40} {:>10}  {:>9}/update  {:>7.2} Gcell/s  {:>7.1} GB/s  max|diff| {diff:.1e}{kernel_txt}",
            kind.name(),
            fmt_time(seconds),
            fmt_time(step),
            cells / step / 1e9,
            cells * BYTES_PER_CELL_UPDATE as f64 / step / 1e9,
        );
        if !ok {
            ctx.failures
                .push(format!("wave {nx}x{ny} tmax={tmax} on {kind}: max|diff| {diff:.3e} > {WAVE_TOLERANCE:e}"));
        }
        ctx.records.push(Record {
            kernel: "wave".into(),
            backend: kind.name().into(),
            device,
            nx: Some(nx),
            ny: Some(ny),
            tmax: Some(tmax),
            seconds,
            kernel_seconds,
            timing_source: source.label(),
            per_step_us: Some(step * 1e6),
            gcells_per_s: Some(cells / step / 1e9),
            gbps: Some(cells * BYTES_PER_CELL_UPDATE as f64 / step / 1e9),
            max_abs_diff: Some(diff),
            repeats: n,
            ok,
            ..Record::default()
        });
    }
    say!(ctx, "Check result: {}", if ok_all { "OK!" } else { "MISMATCH (see above)" });
    Ok(())
}

/// The CPU reference field (the all-cores path, bit-identical to the single-thread one).
fn reference_wave(p: &WaveParams, tmax: u32) -> Result<Vec<f32>> {
    let mut sim = backend::open(BackendKind::Cpu)?.new_wave(p)?;
    let mut field = vec![0.0f32; p.cells()];
    time_wave(sim.as_mut(), tmax, &mut field)?;
    Ok(field)
}

fn frame_case(ctx: &mut Ctx, backends: &mut [Box<dyn Backend>], n: usize) -> Result<()> {
    let p = WaveParams::new(n, n, wave::DEFAULT_FREQ);
    say!(ctx, "\nwave2d frame  nx={n}, ny={n}: one time step + hot colormap + RGBA copy to the host");
    let mut rgba = vec![0u8; n * n * 4];
    for b in backends.iter_mut().filter(|b| b.kind() != BackendKind::Cpu1) {
        let kind = b.kind();
        ctx.progress.set_message(format!("{kind}"));
        let device = b.device_info().name;
        let mut sim = match b.new_wave(&p) {
            Ok(s) => s,
            Err(e) => {
                say!(ctx, "  {:<5} {device:<40} failed: {e}", kind.name());
                continue;
            }
        };
        let seconds = Duration::from_secs(if ctx.quick { 1 } else { 3 });
        let timed = (|| -> Result<Vec<f64>> {
            sim.advance(10)?;
            sim.render_rgba(-0.1, 0.1, &mut rgba)?;
            let mut times = Vec::new();
            let deadline = Instant::now() + seconds;
            while times.len() < 5 || (times.len() < 50 && Instant::now() < deadline) {
                let start = Instant::now();
                sim.advance(1)?;
                sim.render_rgba(-0.1, 0.1, &mut rgba)?;
                times.push(secs(start.elapsed()));
            }
            Ok(times)
        })();
        let times = match timed {
            Ok(t) => t,
            Err(e) => {
                say!(ctx, "  {:<5} {device:<40} failed: {e:#}", kind.name());
                ctx.failures.push(format!("wave frame {n}x{n} on {kind}: {e:#}"));
                continue;
            }
        };
        let repeats = times.len();
        let frame = median(times);
        say!(ctx, "  {:<5} {device:<40} {:>10}/frame  ({:.0} frames/s)", kind.name(), fmt_time(frame), 1.0 / frame);
        ctx.records.push(Record {
            kernel: "wave_frame".into(),
            backend: kind.name().into(),
            device,
            nx: Some(n),
            ny: Some(n),
            tmax: Some(1),
            seconds: frame,
            timing_source: backend::TimingSource::WallClock.label(),
            per_frame_ms: Some(frame * 1e3),
            repeats,
            ok: true,
            ..Record::default()
        });
    }
    Ok(())
}

fn mandel_case(ctx: &mut Ctx, backends: &mut [Box<dyn Backend>], p: &MandelbrotParams, with_cpu1: bool) -> Result<()> {
    let b0 = &p.bounds;
    say!(
        ctx,
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
    );
    let mut reference = vec![0i32; p.pixels()];
    backend::open(BackendKind::Cpu)?.mandelbrot(p, &mut reference)?;
    let tol = mandelbrot::mismatch_tolerance(p.precision);
    let mut ok_all = true;
    let mut counts = vec![0i32; p.pixels()];
    for b in backends.iter_mut() {
        let kind = b.kind();
        ctx.progress.set_message(format!("{kind}"));
        if kind == BackendKind::Cpu1 && !with_cpu1 {
            say!(ctx, "  {:<5} skipped: the single-thread reference is timed on the seed case only", kind.name());
            continue;
        }
        let device = b.device_info().name;
        let first = match b.mandelbrot(p, &mut counts) {
            Ok(r) => r,
            Err(e) => {
                say!(ctx, "  {:<5} {device:<40} failed: {e}", kind.name());
                if !matches!(e, backend::BackendError::Invalid(_)) {
                    ctx.failures.push(format!("mandelbrot on {kind}: {e}"));
                }
                continue;
            }
        };
        let n = repeats_for(
            first.timing.wall,
            if ctx.quick { 3 } else { 7 },
            Duration::from_secs(if ctx.quick { 2 } else { 5 }),
        );
        let mut walls = vec![];
        let mut devs = vec![];
        let mut total = first.total_iters;
        let mut failed = None;
        for _ in 0..n {
            match b.mandelbrot(p, &mut counts) {
                Ok(r) => {
                    walls.push(secs(r.timing.wall));
                    devs.extend(r.timing.device.map(secs));
                    total = r.total_iters;
                }
                Err(e) => failed = Some(e),
            }
        }
        if let Some(e) = failed {
            say!(ctx, "  {:<5} {device:<40} failed: {e}", kind.name());
            ctx.failures.push(format!("mandelbrot on {kind}: {e}"));
            ok_all = false;
            continue;
        }
        let mism = mandelbrot::mismatch_frac(&counts, &reference);
        let ok = mism <= tol;
        ok_all &= ok;
        let seconds = median(walls);
        let kernel_seconds = (!devs.is_empty()).then(|| median(devs));
        let giter = total as f64 / seconds / 1e9;
        let kgiter = kernel_seconds.map(|k| total as f64 / k / 1e9);
        let kernel_txt = kernel_seconds.map_or(String::new(), |k| {
            format!(
                "  (kernel {} = {:.0} Giter/s by {})",
                fmt_time(k),
                total as f64 / k / 1e9,
                first.timing.source.label()
            )
        });
        say!(
            ctx,
            "  {:<5} {device:<40} {:>10}  {:>8.1} Giter/s  mismatch {:.4}%{kernel_txt}",
            kind.name(),
            fmt_time(seconds),
            giter,
            mism * 100.0
        );
        if !ok {
            ctx.failures.push(format!(
                "mandelbrot {}x{} iters={} {} on {kind}: {:.4}% of pixels differ (> {}%)",
                p.width,
                p.height,
                p.iters,
                p.precision.name(),
                mism * 100.0,
                tol * 100.0
            ));
        }
        ctx.records.push(Record {
            kernel: "mandelbrot".into(),
            backend: kind.name().into(),
            device,
            width: Some(p.width),
            height: Some(p.height),
            iters: Some(p.iters),
            precision: Some(p.precision.name()),
            seconds,
            kernel_seconds,
            timing_source: first.timing.source.label(),
            giter_per_s: Some(giter),
            kernel_giter_per_s: kgiter,
            mismatch_frac: Some(mism),
            repeats: n,
            ok,
            ..Record::default()
        });
    }
    say!(ctx, "Check result: {}", if ok_all { "OK!" } else { "MISMATCH (see above)" });
    Ok(())
}

/// Opens the backends asked for (every available one when `asked` is empty), saying why any is missing.
fn open_backends(asked: &[BackendKind]) -> Result<Vec<Box<dyn Backend>>> {
    let mut kinds: Vec<BackendKind> = if asked.is_empty() { BackendKind::ALL.to_vec() } else { asked.to_vec() };
    kinds.sort();
    kinds.dedup();
    // The reference first, then fastest last, so the table reads like the seed's.
    kinds.reverse();
    let mut out = Vec::new();
    for kind in kinds {
        match backend::open(kind) {
            Ok(b) => out.push(b),
            Err(e) if asked.is_empty() => crate::outln!("skipped: {e}"),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}

/// `wavebrot bench`.
///
/// # Errors
/// A backend asked for by name is unavailable, or a device failed.
pub fn run_bench(suite: Suite, asked: &[BackendKind], json: Option<&Path>, quick: bool) -> Result<ExitCode> {
    let mut backends = open_backends(asked)?;
    for b in &backends {
        crate::outln!("{:<5} {}", b.kind().name(), b.device_info().name);
    }
    let mut ctx = Ctx { quick, progress: Progress::spinner("bench"), records: Vec::new(), failures: Vec::new() };
    if matches!(suite, Suite::Wave | Suite::All) {
        wave_case(&mut ctx, &mut backends, 1000, 800, 500, true)?;
        if quick {
            wave_case(&mut ctx, &mut backends, 2048, 2048, 20, false)?;
            frame_case(&mut ctx, &mut backends, 1024)?;
        } else {
            wave_case(&mut ctx, &mut backends, 4096, 4096, 100, false)?;
            wave_case(&mut ctx, &mut backends, 8192, 8192, 50, false)?;
            frame_case(&mut ctx, &mut backends, 4096)?;
        }
    }
    if matches!(suite, Suite::Mandelbrot | Suite::All) {
        for precision in [Precision::F64, Precision::F32] {
            mandel_case(&mut ctx, &mut backends, &MandelbrotParams { precision, ..MandelbrotParams::SEED }, true)?;
        }
        let (size, iters) = if quick { (1024, 200) } else { (4096, 1000) };
        for precision in [Precision::F64, Precision::F32] {
            let p = MandelbrotParams { width: size, height: size, iters, bounds: Bounds::SEED, precision };
            mandel_case(&mut ctx, &mut backends, &p, false)?;
        }
    }
    ctx.progress.finish();
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&ctx.records)?;
        output::write_atomically(path, |w| {
            use std::io::Write;
            w.write_all(text.as_bytes())?;
            Ok(())
        })?;
        crate::outln!("\nwrote {} records to {}", ctx.records.len(), path.display());
    }
    finish(&ctx.failures)
}

fn finish(failures: &[String]) -> Result<ExitCode> {
    if failures.is_empty() {
        crate::outln!("\nCheck result: OK!");
        Ok(ExitCode::SUCCESS)
    } else {
        crate::outln!("\nCheck result: FAILED");
        for f in failures {
            crate::outln!("  {f}");
        }
        Ok(ExitCode::from(1))
    }
}

/// `wavebrot verify`: every backend against the single-thread CPU reference.
///
/// # Errors
/// A backend asked for by name is unavailable.
pub fn run_verify(asked: &[BackendKind]) -> Result<ExitCode> {
    let mut backends = open_backends(asked)?;
    let mut failures = Vec::new();
    let wave_cases = [(1000, 800, 500), (37, 53, 300), (257, 129, 200), (3, 3, 10), (1023, 65, 120)];
    for (nx, ny, tmax) in wave_cases {
        let p = WaveParams::new(nx, ny, wave::DEFAULT_FREQ);
        let reference = wave::reference(&p, tmax);
        for b in &mut backends {
            let kind = b.kind();
            let result = b.new_wave(&p).map_err(anyhow::Error::from).and_then(|mut sim| {
                // Two calls, to cover state carried between advances.
                sim.advance(tmax / 3)?;
                sim.advance(tmax - tmax / 3)?;
                let mut f = vec![0.0; p.cells()];
                sim.read_field(&mut f)?;
                Ok(wave::max_abs_diff(&f, &reference))
            });
            match result {
                Ok(d) if d <= WAVE_TOLERANCE => {
                    crate::outln!("ok    wave {nx}x{ny} tmax={tmax:<4} {:<5} max|diff| {d:.1e}", kind.name())
                }
                Ok(d) => {
                    crate::outln!(
                        "FAIL  wave {nx}x{ny} tmax={tmax:<4} {:<5} max|diff| {d:.3e} > {WAVE_TOLERANCE:e}",
                        kind.name()
                    );
                    failures.push(format!("wave {nx}x{ny} tmax={tmax} on {kind}: max|diff| {d:.3e}"));
                }
                Err(e) => {
                    crate::outln!("FAIL  wave {nx}x{ny} tmax={tmax:<4} {:<5} {e:#}", kind.name());
                    failures.push(format!("wave {nx}x{ny} tmax={tmax} on {kind}: {e:#}"));
                }
            }
        }
    }
    let zoom = Bounds { minx: -0.7530, maxx: -0.7490, miny: 0.0990, maxy: 0.1020 };
    let mandel_cases = [(1536, 1024, 20, Bounds::SEED), (641, 479, 1000, Bounds::SEED), (512, 384, 2000, zoom)];
    for (width, height, iters, bounds) in mandel_cases {
        for precision in [Precision::F64, Precision::F32] {
            let p = MandelbrotParams { width, height, iters, bounds, precision };
            let (reference, ref_total) = mandelbrot::reference(&p);
            let tol = mandelbrot::mismatch_tolerance(precision);
            for b in &mut backends {
                let kind = b.kind();
                let mut counts = vec![0; p.pixels()];
                let label =
                    format!("mandelbrot {width}x{height} iters={iters:<5} {} {:<5}", precision.name(), kind.name());
                match b.mandelbrot(&p, &mut counts) {
                    Ok(run) => {
                        let m = mandelbrot::mismatch_frac(&counts, &reference);
                        // The iteration total must match the counts the backend returned.
                        let own_total: u64 =
                            counts.iter().map(|&c| mandelbrot::iterations_executed(c.max(0) as u32, iters)).sum();
                        let total_ok = run.total_iters == own_total;
                        if m <= tol && total_ok {
                            crate::outln!("ok    {label} mismatch {:.4}% (ref total {ref_total})", m * 100.0);
                        } else {
                            crate::outln!(
                                "FAIL  {label} mismatch {:.4}% (limit {}%), iterations {} vs {own_total}",
                                m * 100.0,
                                tol * 100.0,
                                run.total_iters
                            );
                            failures.push(format!(
                                "{label}: {:.4}% differ, iteration total {}",
                                m * 100.0,
                                run.total_iters
                            ));
                        }
                    }
                    Err(backend::BackendError::Invalid(why)) => crate::outln!("skip  {label} {why}"),
                    Err(e) => {
                        crate::outln!("FAIL  {label} {e}");
                        failures.push(format!("{label}: {e}"));
                    }
                }
            }
        }
    }
    finish(&failures)
}
