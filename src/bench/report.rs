//! What a bench run reports: the table printed seed-style as cases finish (above a progress
//! spinner on terminals), the JSON records of `--json`, and the closing check line and exit
//! status.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::output;
use crate::progress::Progress;

/// One line of `bench --json`: one (kernel, backend, size).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Record {
    /// `wave`, `wave_scene`, `wave_frame`, `mandelbrot`, `mandelbrot_deep`, `wave_to_file` or
    /// `mandelbrot_to_file`.
    pub kernel: String,
    pub backend: String,
    /// The wave kernel variant (`blocked`, `simple`) on backends that have more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<&'static str>,
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
    /// Effective bandwidth at 12 bytes per cell update, GB/s (kept for old readers: the same
    /// number as `effective_gbps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gbps: Option<f64>,
    /// Bandwidth at the nominal 12 B per update, GB/s: may exceed the peak when the kernel
    /// moves fewer bytes (temporal blocking); `bandwidth_note` then says why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_gbps: Option<f64>,
    /// Bytes the kernel moves to and from device memory per update, from its design.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dram_bytes_per_update: Option<f64>,
    /// Bandwidth at `dram_bytes_per_update`, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dram_gbps: Option<f64>,
    /// The device's peak memory bandwidth, GB/s, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_gbps: Option<f64>,
    /// `dram_gbps` as a percentage of `peak_gbps`: never above 100 (absent, with a
    /// `bandwidth_note`, where the data came from cache).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dram_percent_of_peak: Option<f64>,
    /// Why a bandwidth figure is above the peak, when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_note: Option<String>,
    /// Bytes of the array a to-file case (`wave_to_file`, `mandelbrot_to_file`) writes (the
    /// `.npy` data, header left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_bytes: Option<u64>,
    /// `file_bytes` over `seconds` of a to-file case, GB/s: from the result in device memory to
    /// the file written, synced and renamed into place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_gbps: Option<f64>,
    /// `file_bytes` over the time of `read_field` into a fresh (never touched) host buffer, GB/s
    /// (`wave_to_file`): the copy to the host without the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_gbps: Option<f64>,
    /// The rule's iterations, `min(count + 1, iters)` per pixel (deep views).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_iterations: Option<u64>,
    /// The iterations actually executed (equal to `rule_iterations` while no iteration is
    /// skipped by series or bilinear approximation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executed_iterations: Option<u64>,
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

/// Where a run's lines, records and failures go.
pub struct Report {
    progress: Progress,
    pub records: Vec<Record>,
    pub failures: Vec<String>,
}

impl Report {
    /// A report with a spinner named `what` (drawn only on a terminal).
    #[must_use]
    pub fn new(what: &str) -> Self {
        Self { progress: Progress::spinner(what), records: Vec::new(), failures: Vec::new() }
    }

    /// Prints a line of the table above the spinner.
    pub fn say(&self, line: impl Into<String>) {
        self.progress.println(line.into());
    }

    /// Shows what is being measured now.
    pub fn status(&self, what: impl Into<String>) {
        self.progress.set_message(what.into());
    }

    /// Records a failure (printed at the end; the exit status becomes 1).
    pub fn fail(&mut self, what: impl Into<String>) {
        self.failures.push(what.into());
    }

    /// Removes the spinner, writes the records to `json` if asked, prints the check line and
    /// returns the exit status: 0 when nothing failed, else 1.
    ///
    /// # Errors
    /// The JSON file cannot be written.
    pub fn finish(self, json: Option<&Path>) -> Result<ExitCode> {
        self.progress.finish();
        if let Some(path) = json {
            let text = serde_json::to_string_pretty(&self.records)?;
            output::write_atomically(path, |w| {
                use std::io::Write;
                w.write_all(text.as_bytes())?;
                Ok(())
            })?;
            crate::outln!("\nwrote {} records to {}", self.records.len(), path.display());
        }
        Ok(check_line(&self.failures))
    }
}

/// Prints `Check result: OK!` or the failures, and returns the exit status.
#[must_use]
pub fn check_line(failures: &[String]) -> ExitCode {
    if failures.is_empty() {
        crate::outln!("\nCheck result: OK!");
        ExitCode::SUCCESS
    } else {
        crate::outln!("\nCheck result: FAILED");
        for f in failures {
            crate::outln!("  {f}");
        }
        ExitCode::from(1)
    }
}

/// Human time: s, ms or µs.
#[must_use]
pub fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}
