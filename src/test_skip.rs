//! A unit test that cannot run says so where CI shows it, as the integration tests do
//! (`tests/common::skip`): a line on the process's stderr (not through libtest's captured
//! `eprintln!`) and in the skip log `$WAVEBROT_SKIP_LOG` that `.ci/run` summarises, and a failure
//! where `WAVEBROT_REQUIRE` names the need (or says `all`: everything but CUDA).

use std::io::Write as _;

/// Says that the running test cannot run for want of `need` (a short name such as `cpu-adx`).
///
/// # Panics
/// Where `need` is required here.
#[track_caller]
pub fn skip(need: &str, reason: &str) {
    let test = std::thread::current().name().unwrap_or("main").to_owned();
    let required = std::env::var("WAVEBROT_REQUIRE")
        .is_ok_and(|list| list.split(',').map(str::trim).any(|n| n == need || (n == "all" && need != "cuda")));
    let line = format!(
        "{need}\twavebrot::{test}\t{}{}\n",
        reason.replace(['\n', '\t'], " "),
        if required { " (required here)" } else { "" }
    );
    if let Some(log) = std::env::var_os("WAVEBROT_SKIP_LOG")
        && let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log)
    {
        // One short write with O_APPEND: lines of parallel tests do not interleave. A log that
        // cannot be written still leaves the stderr line.
        f.write_all(line.as_bytes()).ok();
    }
    writeln!(std::io::stderr(), "SKIPPED [{need}] wavebrot::{test}: {reason}").ok();
    assert!(!required, "{need} is required here (WAVEBROT_REQUIRE) but {reason}");
}
