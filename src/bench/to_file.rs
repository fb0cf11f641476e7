//! From the device to a file: [`write_field_npy`] (what `render wave --npy` does: the field handed
//! from the backend's staging chunks straight to the `.npy` writer) and the bench cases that time
//! it for a wave field and for Mandelbrot counts, in GB/s.

use std::path::{Path, PathBuf};
use web_time::Instant;

use anyhow::Result;

use crate::backend::{Backend, BackendError, BackendKind, TimingSource, WaveSim};
use crate::output;
use crate::sim::fractal::mandelbrot::{Bounds, MandelbrotParams, Precision};
use crate::sim::wave::{self, WaveParams};

use super::report::{Record, Report, fmt_time};

/// Writes the field `f` of `sim` to `path` as `.npy` (`<f4`, shape `(nx, ny)`), atomically, its
/// bytes going from the backend's chunks to the file ([`WaveSim::stream_field`],
/// [`output::write_npy_streamed`]).
///
/// # Errors
/// A device failure or the file cannot be written.
pub fn write_field_npy(sim: &mut dyn WaveSim, path: &Path) -> Result<()> {
    let (nx, ny) = (sim.params().nx, sim.params().ny);
    output::write_npy_streamed::<f32>(path, &[nx as u64, ny as u64], 4 * nx * ny, |sink| {
        let mut failed = None;
        let streamed = sim.stream_field(&mut |offset, bytes| {
            sink(offset, bytes).map_err(|e| {
                let message = format!("{e:#}");
                failed = Some(e);
                BackendError::Invalid(message)
            })
        });
        if let Some(e) = failed {
            return Err(e);
        }
        streamed?;
        Ok(())
    })
}

/// A file in the temporary folder (`TMPDIR` or `/tmp`) for one case, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(what: &str) -> Self {
        Self(std::env::temp_dir().join(format!("wavebrot-bench-{}-{what}.npy", std::process::id())))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Repeats of a to-file case: files of a GiB take seconds where the disk is slow.
fn repeats(quick: bool) -> usize {
    if quick { 1 } else { 3 }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The wave field of an `n x n` grid from the device to a `.npy` file: the time from "the result
/// is in device memory" (after the time steps finished) to "the file is written, synced and
/// renamed into place", as `render wave --npy` does it; and, apart, the copy into a fresh
/// (pageable, never touched) host buffer, as `read_field` does it.
///
/// # Errors
/// Never for a backend's failure (that is reported and the run marked failed); only the report.
pub fn wave_to_file(r: &mut Report, quick: bool, backends: &mut [Box<dyn Backend>], n: usize) -> Result<()> {
    let p = WaveParams::new(n, n, wave::DEFAULT_FREQ);
    let bytes = 4 * p.cells();
    r.say(format!(
        "\nwave2d to file  nx={n}, ny={n}: the field f ({:.0} MB) from the device to a .npy file, synced and closed",
        bytes as f64 / 1e6
    ));
    let file = Scratch::new("wave");
    for b in backends.iter_mut().filter(|b| b.kind() != BackendKind::Cpu1) {
        let kind = b.kind();
        r.status(kind.name());
        let device = b.device_info().name;
        let mut sim = match b.new_wave(&p) {
            Ok(s) => s,
            Err(e @ BackendError::OutOfMemory { .. }) => {
                r.say(format!("  {:<5} {device:<40} skipped: {e}", kind.name()));
                continue;
            }
            Err(e) => {
                r.say(format!("  {:<5} {device:<40} failed: {e}", kind.name()));
                r.fail(format!("wave to file {n}x{n} on {kind}: {e}"));
                continue;
            }
        };
        // (to the file, to a fresh host buffer) per repeat.
        let run = || -> Result<(f64, f64)> {
            sim.advance(2)?;
            let start = Instant::now();
            let mut host = vec![0.0f32; p.cells()];
            sim.read_field(&mut host)?;
            let to_host = start.elapsed().as_secs_f64();
            drop(host);
            let start = Instant::now();
            write_field_npy(sim.as_mut(), &file.0)?;
            let secs = start.elapsed().as_secs_f64();
            // The file holds the field: its length always; its bytes where a second copy is cheap.
            let len = std::fs::metadata(&file.0)?.len();
            anyhow::ensure!(len == (output::npy_header("<f4", &[n as u64, n as u64]).len() + bytes) as u64);
            if bytes <= 256 << 20 {
                let mut want = vec![0.0f32; p.cells()];
                sim.read_field(&mut want)?;
                let (got, _) = output::read_npy::<f32>(&file.0)?;
                anyhow::ensure!(got == want, "the file differs from the field");
            }
            Ok((secs, to_host))
        };
        let (mut times, mut host_times) = (Vec::new(), Vec::new());
        let mut run = run;
        let outcome: Result<()> = (0..repeats(quick)).try_for_each(|_| {
            let (secs, to_host) = run()?;
            times.push(secs);
            host_times.push(to_host);
            Ok(())
        });
        if let Err(e) = outcome {
            r.say(format!("  {:<5} {device:<40} failed: {e:#}", kind.name()));
            r.fail(format!("wave to file {n}x{n} on {kind}: {e:#}"));
            continue;
        }
        let (secs, host_secs) = (median(times), median(host_times));
        let (gbps, host_gbps) = (bytes as f64 / secs / 1e9, bytes as f64 / host_secs / 1e9);
        r.say(format!(
            "  {:<5} {device:<40} {:>10}  {gbps:6.2} GB/s device to file  ({host_gbps:.2} GB/s into a fresh host buffer)",
            kind.name(),
            fmt_time(secs)
        ));
        r.records.push(Record {
            kernel: "wave_to_file".into(),
            host_gbps: Some(host_gbps),
            backend: kind.name().into(),
            device,
            nx: Some(n),
            ny: Some(n),
            seconds: secs,
            timing_source: TimingSource::WallClock.label(),
            file_bytes: Some(bytes as u64),
            file_gbps: Some(gbps),
            repeats: repeats(quick),
            ok: true,
            ..Record::default()
        });
    }
    Ok(())
}

/// Mandelbrot counts of an `n x n` image (seed bounds, 100 iterations, f64) from the device to a
/// `.npy` file as `render mandelbrot --npy` does it: the copy to the host (the run's wall time
/// less its kernel time, on backends with a device clock) plus writing the file, synced and
/// closed. On backends without a device clock (the CPU) the counts are in host memory already
/// and only the write is timed.
///
/// # Errors
/// Never for a backend's failure (that is reported and the run marked failed); only the report.
pub fn mandelbrot_to_file(r: &mut Report, quick: bool, backends: &mut [Box<dyn Backend>], n: usize) -> Result<()> {
    let p = MandelbrotParams { width: n, height: n, iters: 100, bounds: Bounds::SEED, precision: Precision::F64 };
    let bytes = 4 * p.pixels();
    r.say(format!(
        "\nmandelbrot to file  {n}x{n}, iters=100, f64: the counts ({:.0} MB) from the device to a .npy file, synced and closed",
        bytes as f64 / 1e6
    ));
    let file = Scratch::new("mandelbrot");
    for b in backends.iter_mut().filter(|b| b.kind() != BackendKind::Cpu1) {
        let kind = b.kind();
        r.status(kind.name());
        let device = b.device_info().name;
        let mut run = || -> Result<f64> {
            let mut counts = vec![0i32; p.pixels()];
            let run = b.mandelbrot(&p, &mut counts)?;
            let copy = run.timing.device.map_or(0.0, |d| (run.timing.wall.saturating_sub(d)).as_secs_f64());
            let start = Instant::now();
            output::write_npy(&file.0, &counts, &[n as u64, n as u64])?;
            Ok(copy + start.elapsed().as_secs_f64())
        };
        let mut times = Vec::new();
        let outcome: Result<()> = (0..repeats(quick)).try_for_each(|_| {
            times.push(run()?);
            Ok(())
        });
        if let Err(e) = outcome {
            let e = e.downcast::<BackendError>().map_or_else(|e| format!("{e:#}"), |e| e.to_string());
            r.say(format!("  {:<5} {device:<40} failed: {e}", kind.name()));
            r.fail(format!("mandelbrot to file {n}x{n} on {kind}: {e}"));
            continue;
        }
        let secs = median(times);
        let gbps = bytes as f64 / secs / 1e9;
        r.say(format!("  {:<5} {device:<40} {:>10}  {gbps:6.2} GB/s device to file", kind.name(), fmt_time(secs)));
        r.records.push(Record {
            kernel: "mandelbrot_to_file".into(),
            backend: kind.name().into(),
            device,
            width: Some(n),
            height: Some(n),
            iters: Some(p.iters),
            precision: Some(p.precision.name()),
            seconds: secs,
            timing_source: TimingSource::WallClock.label(),
            file_bytes: Some(bytes as u64),
            file_gbps: Some(gbps),
            repeats: repeats(quick),
            ok: true,
            ..Record::default()
        });
    }
    Ok(())
}
