//! `wavebrot sweep`: time against problem size, from 64² up to the largest the device holds
//! (or `--max-side`), on every backend, to show *when* a GPU is faster and why not always:
//! small grids are launch-bound on a GPU, large ones stream from memory once they no longer fit
//! the cache. Prints a table, writes JSON records (bench's [`Record`]), a CSV and a log-log PNG
//! drawn with `plotters` (text through `ab_glyph` with egui's embedded font, so no system fonts
//! or fontconfig are needed), marking where the GPU starts to beat the CPU and where the data
//! outgrows each device's cache.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use web_time::Instant;

use anyhow::{Result, anyhow};
use serde::Serialize;

use crate::backend::{self, Backend, BackendError, BackendKind, Timing};
use crate::output;
use crate::sim::fractal::mandelbrot::{self, Bounds, MandelbrotParams, Precision};
use crate::sim::wave::{self, WAVE_TOLERANCE, WaveParams};

use super::report::{Record, Report, fmt_time};
use super::runner::{Plan, measure};

/// Which kernel `sweep` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum SweepKernel {
    #[default]
    Wave,
    Mandelbrot,
}

/// What `sweep` is asked for.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    pub kernel: SweepKernel,
    /// Backends (empty: every available one).
    pub backends: Vec<BackendKind>,
    /// The smallest side (a power of two is not required; sides double from it).
    pub min_side: usize,
    /// The largest side; `None`: until a device refuses, at most [`DEFAULT_MAX_SIDE`].
    pub max_side: Option<usize>,
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub png: Option<PathBuf>,
    /// Fewer repeats.
    pub quick: bool,
}

/// The largest side tried when `--max-side` is not given (a device that holds less stops sooner).
pub const DEFAULT_MAX_SIDE: usize = 16_384;
/// Sides up to this are checked against the CPU reference.
const CHECK_MAX_SIDE: usize = 1024;
/// A backend stops growing once one timed call takes longer than this (seconds).
pub const SLOW_CALL_SECS: f64 = 3.0;
/// Mandelbrot: iterations per pixel at every size (the seed's view).
const MANDELBROT_ITERS: u32 = 200;

/// The sides swept: `min`, `2 min`, ... up to `max`.
#[must_use]
pub fn sides(min: usize, max: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut n = min.max(3);
    while n <= max {
        out.push(n);
        n *= 2;
    }
    out
}

/// Time steps per timed call on `cells` cells: enough updates that the launch cost is spread out
/// (the "large call" of the bench), at most 256.
fn steps_per_call(cells: usize) -> u32 {
    ((1usize << 22) / cells.max(1)).clamp(1, 256) as u32
}

/// `wavebrot sweep`.
///
/// # Errors
/// A backend asked for by name is unavailable, a device failed, or a file cannot be written.
pub fn run_sweep(o: &SweepOptions) -> Result<ExitCode> {
    for path in o.json.iter().chain(&o.csv).chain(&o.png) {
        output::check_writable(path)?;
    }
    let mut backends = super::open_backends(&o.backends)?;
    let max = o.max_side.unwrap_or(DEFAULT_MAX_SIDE);
    let sizes = sides(o.min_side, max);
    let mut r = Report::new("sweep");
    let plan = Plan::new(o.quick, (3, 7), (1, 1));
    let what = match o.kernel {
        SweepKernel::Wave => {
            "wave: time per update in calls of many steps (kernel time where measured), \
                              and per displayed frame (one step + colormap + RGBA copy to the host, wall clock)"
        }
        SweepKernel::Mandelbrot => {
            "mandelbrot (seed view, 200 iterations, f32): time per image incl. the copy of \
                                    the counts (wall clock), and the kernel alone where measured"
        }
    };
    r.say(format!("sweep {what}; sides {}..={max}", o.min_side));
    for b in &mut backends {
        let info = b.device_info();
        r.say(format!("\n{:<5} {}", b.kind().name(), info.name));
        for &n in &sizes {
            r.status(format!("{} {n}x{n}", b.kind()));
            let point = point(o.kernel, b.as_mut(), &info.name, n, plan);
            match point {
                Ok((rec, call_secs)) => {
                    r.say(line(&rec));
                    if !rec.ok {
                        r.fail(format!("{} {n}x{n} on {}: differs from the CPU reference", rec.kernel, rec.backend));
                    }
                    r.records.push(rec);
                    if call_secs > SLOW_CALL_SECS && Some(n) != sizes.last().copied() {
                        r.say(format!(
                            "  stops at {n}x{n}: one call took {} (the sweep's time budget)",
                            fmt_time(call_secs)
                        ));
                        break;
                    }
                }
                Err(e) if is_out_of_memory(&e) => {
                    r.say(format!("  stops at {n}x{n}: {e}"));
                    break;
                }
                Err(e) => {
                    r.say(format!("  {n}x{n} failed: {e:#}"));
                    r.fail(format!("{n}x{n} on {}: {e:#}", b.kind()));
                    break;
                }
            }
        }
    }
    let marks = Marks::of(&r.records, &backends, o.kernel);
    r.say(String::new());
    for m in marks.lines() {
        r.say(m);
    }
    if let Some(path) = &o.csv {
        write_csv(path, &r.records)?;
        r.say(format!("wrote {}", path.display()));
    }
    if let Some(path) = &o.png {
        plot_png(path, &r.records, &marks, o.kernel)?;
        r.say(format!("wrote {}", path.display()));
    }
    r.finish(o.json.as_deref())
}

/// One wave size on one backend: the record and the longest timed call (seconds).
pub fn wave_point(b: &dyn Backend, device: &str, n: usize, plan: Plan) -> Result<(Record, f64)> {
    let p = WaveParams::new(n, n, wave::DEFAULT_FREQ);
    let mut sim = b.new_wave(&p)?;
    let k = steps_per_call(p.cells());
    let (warm, m) = measure(plan, || Ok(sim.advance(k)?))?;
    let per_update = m.best_seconds() / f64::from(2 * k);
    let mut rgba = vec![0u8; p.cells() * 4];
    let (_, frame) = measure(plan, || {
        let start = Instant::now();
        sim.advance(1)?;
        sim.render_rgba(-0.1, 0.1, &mut rgba)?;
        Ok(Timing::wall(start.elapsed()))
    })?;
    let mut diff = None;
    if n <= CHECK_MAX_SIDE {
        // The scalar rule of `sim::wave`, which no backend runs: no backend is checked
        // against itself.
        let want = wave::reference(&p, k);
        let mut got = vec![0.0f32; p.cells()];
        sim.reset()?;
        sim.advance(k)?;
        sim.read_field(&mut got)?;
        diff = Some(f64::from(wave::max_abs_diff(&got, &want)));
    }
    let cells = p.cells() as f64;
    let bw = backend::bandwidth::Bandwidth::new(per_update, cells, sim.dram_bytes_per_update(k), None);
    let rec = Record {
        kernel: "wave".into(),
        backend: b.kind().name().into(),
        variant: sim.variant().map(backend::WaveVariant::name),
        device: device.to_owned(),
        nx: Some(n),
        ny: Some(n),
        tmax: Some(k),
        seconds: m.seconds,
        kernel_seconds: m.kernel_seconds,
        timing_source: m.source.label(),
        per_step_us: Some(per_update * 1e6),
        per_frame_ms: Some(frame.seconds * 1e3),
        gcells_per_s: Some(cells / per_update / 1e9),
        gbps: Some(bw.effective_gbps),
        effective_gbps: Some(bw.effective_gbps),
        dram_bytes_per_update: bw.dram_bytes_per_update,
        dram_gbps: bw.dram_gbps,
        max_abs_diff: diff,
        repeats: m.repeats,
        ok: diff.is_none_or(|d| d <= f64::from(WAVE_TOLERANCE)),
        ..Record::default()
    };
    Ok((rec, warm.wall.as_secs_f64().max(m.seconds)))
}

/// One Mandelbrot size on one backend: the record and the longest timed call (seconds).
pub fn mandelbrot_point(b: &mut dyn Backend, device: &str, n: usize, plan: Plan) -> Result<(Record, f64)> {
    let p = MandelbrotParams {
        width: n,
        height: n,
        iters: MANDELBROT_ITERS,
        bounds: Bounds::SEED,
        precision: Precision::F32,
    };
    let (_, avail, _) = backend::cpu::host_facts();
    backend::check_fits(b.kind(), "the counts", p.pixels() as u64 * 4, avail)?;
    let mut counts = vec![0i32; p.pixels()];
    let mut total = 0;
    let (warm, m) = measure(plan, || {
        let run = b.mandelbrot(&p, &mut counts)?;
        total = run.total_iters;
        Ok(run.timing)
    })?;
    let mut mism = None;
    if n <= CHECK_MAX_SIDE {
        // The scalar rule of `sim::fractal::mandelbrot` (no backend checked against itself); the CPU
        // backends must give its counts exactly, GPUs within the f32 budget.
        let (want, _) = mandelbrot::reference(&p);
        mism = Some(mandelbrot::mismatch_frac(&counts, &want));
    }
    let rec = Record {
        kernel: "mandelbrot".into(),
        backend: b.kind().name().into(),
        device: device.to_owned(),
        nx: Some(n),
        ny: Some(n),
        width: Some(n),
        height: Some(n),
        iters: Some(p.iters),
        precision: Some(p.precision.name()),
        seconds: m.seconds,
        kernel_seconds: m.kernel_seconds,
        timing_source: m.source.label(),
        per_frame_ms: Some(m.seconds * 1e3),
        giter_per_s: Some(total as f64 / m.seconds / 1e9),
        kernel_giter_per_s: m.kernel_seconds.map(|k| total as f64 / k / 1e9),
        mismatch_frac: mism,
        repeats: m.repeats,
        ok: mism.is_none_or(|f| f <= if b.kind().is_gpu() { mandelbrot::mismatch_tolerance(p.precision) } else { 0.0 }),
        ..Record::default()
    };
    Ok((rec, warm.wall.as_secs_f64().max(m.seconds)))
}

/// One size on one backend (the app's Scaling view measures with this too): the record and
/// the longest timed call (seconds).
///
/// # Errors
/// The device refused the size (`BackendError::OutOfMemory` inside) or failed.
pub fn point(kernel: SweepKernel, b: &mut dyn Backend, device: &str, n: usize, plan: Plan) -> Result<(Record, f64)> {
    match kernel {
        SweepKernel::Wave => wave_point(b, device, n, plan),
        SweepKernel::Mandelbrot => mandelbrot_point(b, device, n, plan),
    }
}

/// True when `e` says the device cannot hold the size (the sweep stops growing there).
#[must_use]
pub fn is_out_of_memory(e: &anyhow::Error) -> bool {
    matches!(e.downcast_ref(), Some(BackendError::OutOfMemory { .. }))
}

/// A table line for one point.
#[must_use]
pub fn line(r: &Record) -> String {
    let n = r.nx.unwrap_or(0);
    let check = match (r.max_abs_diff, r.mismatch_frac) {
        (Some(d), _) => format!("  max|diff| {d:.1e}"),
        (_, Some(f)) => format!("  mismatch {:.4}%", f * 100.0),
        _ => String::new(),
    };
    match r.kernel.as_str() {
        "wave" => format!(
            "  {:>6}²  {:>10}/update  {:>10}/frame  {:>8.3} Gcell/s{check}",
            n,
            fmt_time(r.per_step_us.unwrap_or(f64::NAN) * 1e-6),
            fmt_time(r.per_frame_ms.unwrap_or(f64::NAN) * 1e-3),
            r.gcells_per_s.unwrap_or(f64::NAN)
        ),
        _ => format!(
            "  {:>6}²  {:>10}/image  {:>8.2} Giter/s{}{check}",
            n,
            fmt_time(r.seconds),
            r.giter_per_s.unwrap_or(f64::NAN),
            r.kernel_seconds.map_or(String::new(), |k| format!("  (kernel {})", fmt_time(k)))
        ),
    }
}

/// The time a point is plotted and compared by: per update (wave) or per image (Mandelbrot).
#[must_use]
pub fn plotted_secs(r: &Record) -> Option<f64> {
    match r.kernel.as_str() {
        "wave" => r.per_step_us.map(|u| u * 1e-6),
        _ => Some(r.kernel_seconds.unwrap_or(r.seconds)),
    }
}

/// Where the GPU starts to beat the CPU, and where the data outgrows each cache.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    /// The smallest side from which a GPU backend is faster than every CPU one at every larger
    /// side measured by both; `None` when that never happens in the range.
    pub crossover: Option<usize>,
    /// True when both GPU and CPU backends were measured (otherwise no crossover is sought).
    pub compared: bool,
    /// `(label, side)`: the side at which the problem's data fills a device's cache.
    pub caches: Vec<(String, f64)>,
}

impl Marks {
    /// The marks of `records`.
    #[must_use]
    pub fn of(records: &[Record], backends: &[Box<dyn Backend>], kernel: SweepKernel) -> Self {
        let mut marks = Self { crossover: crossover(records), ..Self::default() };
        let has = |gpu: bool| records.iter().any(|r| is_gpu_name(&r.backend) == gpu);
        marks.compared = has(true) && has(false);
        if kernel == SweepKernel::Wave {
            for b in backends {
                let info = b.device_info();
                if let Some(bytes) = info.cache_bytes {
                    // The two fields, 8 B a cell.
                    let side = (bytes as f64 / 8.0).sqrt();
                    let label = if b.kind().is_gpu() {
                        format!("{} L2 {} MiB", b.kind().name(), bytes >> 20)
                    } else {
                        format!("CPU cache {} MiB", bytes >> 20)
                    };
                    if !marks.caches.iter().any(|(l, _)| l == &label) {
                        marks.caches.push((label, side));
                    }
                }
            }
        }
        marks
    }

    /// Lines for the terminal.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        match (self.compared, self.crossover) {
            (false, _) => out.push("crossover: needs a GPU and a CPU backend in the sweep".to_owned()),
            (true, Some(n)) => out.push(format!("crossover: the GPU beats the CPU from {n}x{n} on")),
            (true, None) => out.push("crossover: the GPU does not beat the CPU in this range".to_owned()),
        }
        for (label, side) in &self.caches {
            out.push(format!("{label}: the two fields fill it at about {side:.0}x{side:.0}"));
        }
        out
    }
}

fn is_gpu_name(name: &str) -> bool {
    BackendKind::ALL.iter().any(|k| k.is_gpu() && k.name() == name)
}

/// The smallest side from which the fastest GPU beats the fastest CPU at every side both measured.
#[must_use]
pub fn crossover(records: &[Record]) -> Option<usize> {
    let mut sides: Vec<usize> = records.iter().filter_map(|r| r.nx).collect();
    sides.sort_unstable();
    sides.dedup();
    let best = |n: usize, gpu: bool| {
        records
            .iter()
            .filter(|r| r.nx == Some(n) && is_gpu_name(&r.backend) == gpu)
            .filter_map(plotted_secs)
            .min_by(f64::total_cmp)
    };
    let both: Vec<(usize, bool)> = sides.iter().filter_map(|&n| Some((n, best(n, true)? < best(n, false)?))).collect();
    let last_loss = both.iter().rposition(|&(_, gpu_wins)| !gpu_wins);
    let from = last_loss.map_or(0, |i| i + 1);
    both.get(from).map(|&(n, _)| n)
}

/// One CSV row: the fields every sweep record has, in a fixed set of columns.
#[derive(Serialize)]
struct CsvRow<'a> {
    kernel: &'a str,
    backend: &'a str,
    variant: Option<&'a str>,
    device: &'a str,
    nx: Option<usize>,
    ny: Option<usize>,
    per_step_us: Option<f64>,
    per_frame_ms: Option<f64>,
    seconds: f64,
    kernel_seconds: Option<f64>,
    timing_source: &'a str,
    gcells_per_s: Option<f64>,
    giter_per_s: Option<f64>,
    max_abs_diff: Option<f64>,
    mismatch_frac: Option<f64>,
    ok: bool,
}

fn write_csv(path: &Path, records: &[Record]) -> Result<()> {
    output::write_atomically(path, |w| {
        let mut out = csv::Writer::from_writer(w);
        for r in records {
            out.serialize(CsvRow {
                kernel: &r.kernel,
                backend: &r.backend,
                variant: r.variant,
                device: &r.device,
                nx: r.nx,
                ny: r.ny,
                per_step_us: r.per_step_us,
                per_frame_ms: r.per_frame_ms,
                seconds: r.seconds,
                kernel_seconds: r.kernel_seconds,
                timing_source: r.timing_source,
                gcells_per_s: r.gcells_per_s,
                giter_per_s: r.giter_per_s,
                max_abs_diff: r.max_abs_diff,
                mismatch_frac: r.mismatch_frac,
                ok: r.ok,
            })?;
        }
        out.flush()?;
        Ok(())
    })
}

/// Registers egui's embedded font with plotters once (no system fonts are looked up).
///
/// # Errors
/// The embedded font could not be read.
#[cfg(target_arch = "wasm32")]
pub fn register_font() -> Result<()> {
    // plotters has no embedded-font renderer in the browser; it lays text out with the page's fonts.
    Ok(())
}

/// Registers egui's embedded font with plotters once (no system fonts are looked up).
///
/// # Errors
/// The embedded font could not be read.
#[cfg(not(target_arch = "wasm32"))]
pub fn register_font() -> Result<()> {
    static DONE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        plotters::style::register_font(
            "sans-serif",
            plotters::style::FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        )
        .is_ok()
    });
    if ok { Ok(()) } else { Err(anyhow!("the embedded plot font could not be read")) }
}

/// Plot size in pixels.
const PLOT_SIZE: (u32, u32) = (1100, 700);

/// The log-log plot of `records` as a PNG: one line per backend (wave: per update solid, per
/// frame dashed), the crossover and the cache marks as vertical lines.
///
/// # Errors
/// Nothing to plot, drawing failed, or the file cannot be written.
pub fn plot_png(path: &Path, records: &[Record], marks: &Marks, kernel: SweepKernel) -> Result<()> {
    use plotters::prelude::*;
    register_font()?;
    let pts: Vec<(f64, f64)> =
        records.iter().filter_map(|r| Some((r.nx? as f64, plotted_secs(r)? * 1e6))).filter(|p| p.1 > 0.0).collect();
    if pts.is_empty() {
        anyhow::bail!("nothing was measured: no plot to draw");
    }
    let frames: Vec<f64> = records.iter().filter_map(|r| r.per_frame_ms.filter(|_| r.kernel == "wave")).collect();
    let (xmin, xmax) = pts.iter().fold((f64::MAX, 0.0f64), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (ymin, ymax) = pts
        .iter()
        .map(|p| p.1)
        .chain(frames.iter().map(|f| f * 1e3))
        .fold((f64::MAX, 0.0f64), |(a, b), y| (a.min(y), b.max(y)));
    let (x0, x1) = (xmin / 1.3, (xmax * 1.3).max(xmin * 2.0));
    let (y0, y1) = (ymin / 2.0, ymax * 2.0);
    let (w, h) = PLOT_SIZE;
    let mut buf = vec![0u8; (w * h * 3) as usize];
    let err = |e: &dyn std::fmt::Display| anyhow!("drawing the plot: {e}");
    {
        let root = BitMapBackend::with_buffer(&mut buf, PLOT_SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let (title, ydesc) = match kernel {
            SweepKernel::Wave => ("wavebrot sweep: wave, time per update (solid) and per frame (dashed)", "µs"),
            SweepKernel::Mandelbrot => ("wavebrot sweep: Mandelbrot, time per image (200 iterations)", "µs per image"),
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("grid side n (n x n cells)")
            .y_desc(ydesc)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y}"))
            .label_style(("sans-serif", 15))
            .draw()
            .map_err(|e| err(&e))?;
        let mut names: Vec<&str> = records.iter().map(|r| r.backend.as_str()).collect();
        names.dedup();
        for (i, name) in names.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let mine: Vec<&Record> = records.iter().filter(|r| r.backend == *name).collect();
            let line: Vec<(f64, f64)> =
                mine.iter().filter_map(|r| Some((r.nx? as f64, plotted_secs(r)? * 1e6))).collect();
            chart
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(*name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            chart.draw_series(line.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(|e| err(&e))?;
            let frame: Vec<(f64, f64)> =
                mine.iter().filter_map(|r| Some((r.nx? as f64, r.per_frame_ms? * 1e3))).collect();
            if kernel == SweepKernel::Wave && !frame.is_empty() {
                chart.draw_series(DashedLineSeries::new(frame, 6, 4, color.stroke_width(1))).map_err(|e| err(&e))?;
            }
        }
        let mut vline = |x: f64, label: String, color: RGBColor, row: usize| -> Result<()> {
            if !(x0..=x1).contains(&x) {
                return Ok(());
            }
            chart
                .draw_series(DashedLineSeries::new(vec![(x, y0), (x, y1)], 8, 5, color.stroke_width(2)))
                .map_err(|e| err(&e))?;
            let y = y1 / 1.5f64.powi(row as i32 + 1);
            chart
                .draw_series(std::iter::once(Text::new(
                    label,
                    (x * 1.03, y),
                    ("sans-serif", 15).into_font().color(&color),
                )))
                .map_err(|e| err(&e))?;
            Ok(())
        };
        if let Some(n) = marks.crossover {
            vline(n as f64, format!("GPU faster from {n}²"), RGBColor(0, 120, 0), 0)?;
        }
        for (i, (label, side)) in marks.caches.iter().enumerate() {
            vline(*side, format!("{label} full"), RGBColor(150, 0, 150), i + 1)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 16))
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    output::write_atomically(path, |out| {
        image::write_buffer_with_format(out, &buf, w, h, image::ExtendedColorType::Rgb8, image::ImageFormat::Png)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(backend: &str, n: usize, us: f64) -> Record {
        Record {
            kernel: "wave".into(),
            backend: backend.into(),
            nx: Some(n),
            per_step_us: Some(us),
            ..Record::default()
        }
    }

    #[test]
    fn sides_double_up_to_the_max() {
        assert_eq!(sides(64, 512), vec![64, 128, 256, 512]);
        assert_eq!(sides(64, 500), vec![64, 128, 256]);
        assert!(sides(64, 32).is_empty());
    }

    #[test]
    fn crossover_is_where_the_gpu_stays_ahead() {
        let r = vec![
            rec("cpu", 64, 1.0),
            rec("cuda", 64, 5.0),
            rec("cpu", 128, 4.0),
            rec("cuda", 128, 3.0),
            rec("cpu", 256, 16.0),
            rec("cuda", 256, 20.0),
            rec("cpu", 512, 64.0),
            rec("cuda", 512, 10.0),
            rec("cpu1", 1024, 512.0),
            rec("cpu", 1024, 256.0),
            rec("cuda", 1024, 40.0),
        ];
        assert_eq!(crossover(&r), Some(512));
        assert_eq!(crossover(&r[..6]), None);
        assert_eq!(crossover(&[rec("cpu", 64, 1.0)]), None);
    }
}
