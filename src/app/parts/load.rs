//! What the app's own work takes of the CPU while it measures: the window's thread (layout,
//! painting) and a software renderer's threads (llvmpipe) run beside whatever is timed, on the
//! same cores. Read once a second from `/proc` (Linux; elsewhere nothing is said), so the
//! timing panel can say plainly how much the figures may be low by.
//!
//! Each thread of the process is given a role ([`role_of`]): the window (the UI thread, and
//! the renderer's threads while they only draw), or the work (every other thread: the backend's
//! and the comparison's cores, the meters). When the measured backend itself runs on the
//! software renderer (wgpu on llvmpipe) the renderer's threads compute what is timed, so they
//! are the work's, not the window's: counting them as the window's once gave "the window takes
//! 177% of one core" on 2 cores. And the window cannot have taken more than the cores the work
//! left over in the same second ([`Split::window_cores`]).

use std::collections::HashMap;
use std::path::Path;
use web_time::Instant;

/// Clock ticks per second of `/proc`'s CPU times (`sysconf(_SC_CLK_TCK)`, 100 on Linux).
const TICKS_PER_SEC: f64 = 100.0;

/// Samples before a figure is said: the first seconds hold the renderer's shader compiles
/// (LLVM, once), which are no part of what the window costs while it runs.
const WARM_SAMPLES: u32 = 3;

/// One thread of the process as `/proc/self/task/TID` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadTicks {
    pub tid: u32,
    /// Its name (`comm`): `llvmpipe-0`, `wavebrot-sim`, …
    pub comm: String,
    /// CPU time (user + system) since it started, in clock ticks.
    pub ticks: u64,
}

/// Who a thread works for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Draws the window: the UI thread, and the software renderer's threads while no measured
    /// backend computes on them.
    Window,
    /// Everything else: the backend, the CPU copy, the meters.
    Work,
}

/// A software renderer's thread: Mesa's llvmpipe rasteriser threads (`llvmpipe-N`) and its
/// compute pool (`lp:…`).
fn is_renderer(comm: &str) -> bool {
    comm.starts_with("llvmpipe") || comm.starts_with("lp:")
}

/// The role of thread `t`, with `ui_tid` the UI thread and `renderer_computes` true when the
/// measured backend runs on the software renderer (its threads then compute what is timed).
#[must_use]
pub fn role_of(t: &ThreadTicks, ui_tid: u32, renderer_computes: bool) -> Role {
    if t.tid == ui_tid || (is_renderer(&t.comm) && !renderer_computes) { Role::Window } else { Role::Work }
}

/// CPU time of the window and of the work over one interval, in cores (1.0: one whole core).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Split {
    pub window: f64,
    pub work: f64,
}

impl Split {
    /// The window's cores, at most what the work left of `cores` (the two ran on the same cores
    /// in the same interval; more means time was counted twice).
    #[must_use]
    pub fn window_cores(&self, cores: usize) -> f64 {
        self.window.min((cores as f64 - self.work).max(0.0)).max(0.0)
    }
}

/// The split between two readings `before` and `now` of the process's threads, `secs` apart. A
/// thread absent from `before` started in between: all its time is in the interval; threads
/// that ended are gone from both sums.
#[must_use]
pub fn split(
    before: &HashMap<u32, u64>,
    now: &[ThreadTicks],
    secs: f64,
    ui_tid: u32,
    renderer_computes: bool,
) -> Split {
    let mut s = Split::default();
    if secs <= 0.0 {
        return s;
    }
    for t in now {
        let used = t.ticks.saturating_sub(before.get(&t.tid).copied().unwrap_or(0)) as f64 / TICKS_PER_SEC / secs;
        match role_of(t, ui_tid, renderer_computes) {
            Role::Window => s.window += used,
            Role::Work => s.work += used,
        }
    }
    s
}

/// The app's own CPU use, sampled about once a second on the UI thread.
#[derive(Debug, Default)]
pub struct AppLoad {
    last: Option<(Instant, HashMap<u32, u64>)>,
    samples: u32,
    /// Cores' worth of CPU the window and its drawing take (1.0: one whole core), smoothed,
    /// at most what the work left of the machine's cores.
    pub cores_used: Option<f64>,
    /// True when the last sample found the measured backend on the software renderer.
    pub renderer_computes: bool,
}

impl AppLoad {
    /// Takes a sample when a second has passed since the last one (call it from the UI thread):
    /// `renderer_computes` says whether the measured backend runs on the software renderer
    /// that draws the window, `cores` the machine's cores.
    pub fn sample(&mut self, renderer_computes: bool, cores: usize) {
        let now = Instant::now();
        if self.last.as_ref().is_some_and(|(t, _)| now.duration_since(*t).as_secs_f64() < 1.0) {
            return;
        }
        let (Some(ui_tid), Some(threads)) = (ui_thread_id(), read_threads(Path::new("/proc/self/task"))) else {
            return;
        };
        if let Some((t, before)) = &self.last {
            let s = split(before, &threads, now.duration_since(*t).as_secs_f64(), ui_tid, renderer_computes);
            self.samples += 1;
            if renderer_computes != self.renderer_computes {
                self.cores_used = None;
            }
            if self.samples >= WARM_SAMPLES {
                let used = s.window_cores(cores);
                self.cores_used = Some(self.cores_used.map_or(used, |u| u + 0.5 * (used - u)));
            }
        }
        self.renderer_computes = renderer_computes;
        self.last = Some((now, threads.iter().map(|t| (t.tid, t.ticks)).collect()));
    }

    /// The line the panel shows: how many cores there are, what the app takes of them, and,
    /// only where something on these cores is timed now (`m`), which figures that lowers and by
    /// about how much; `true` when that is worth a warning (5% or more).
    #[must_use]
    pub fn note(&self, cores: usize, m: Measured) -> Option<(String, bool)> {
        let used = self.cores_used?;
        let cores = cores.max(1);
        let low = (used / cores as f64 * 100.0).min(100.0);
        let what =
            if self.renderer_computes { "the window's own thread takes" } else { "the window and its drawing take" };
        let base = format!("{cores} cores: {what} about {:.0}% of one core", used * 100.0);
        let beside = match (m.copy, m.timed && m.on_cpu) {
            (true, true) => Some(
                "beside what is measured (the CPU copy and the active backend take turns, never both at once), \
                 so CPU figures using every core",
            ),
            (true, false) => Some("beside the CPU copy, so its figure, using every core,"),
            (false, true) => Some("beside what is measured on these cores, so CPU figures using every core"),
            (false, false) => None,
        };
        let (mut text, warn) = match beside {
            Some(b) => (
                format!(
                    "{base} {b} may be low by about {low:.0}%; presenter mode (H) and fewer controls on screen lower it"
                ),
                low >= 5.0,
            ),
            // Nothing on these cores is timed: no figure is said to be low.
            None => (format!("{base}; nothing on these cores is being timed now"), false),
        };
        if self.renderer_computes {
            text += ". The GPU here is llvmpipe, software on these cores: it draws the window and computes \
                     what is measured on the same threads, so its figures include the drawing";
        }
        Some((text, warn))
    }
}

/// What is timed on the machine's cores now, for [`AppLoad::note`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// A CPU copy of the problem runs (the comparison).
    pub copy: bool,
    /// The active backend is being timed now: the waves run, a picture is being computed, or a
    /// page measures.
    pub timed: bool,
    /// What is timed computes on these cores (`cpu`, `cpu1`, a software renderer).
    pub on_cpu: bool,
}

impl Measured {
    /// A classroom page measuring backends, some of them on these cores.
    pub const PAGE: Self = Self { copy: false, timed: true, on_cpu: true };
}

/// True when a device named `name` is a software renderer on the CPU (Mesa's llvmpipe, whose
/// Vulkan face is lavapipe), whose threads also draw the window.
#[must_use]
pub fn is_software_renderer(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("llvmpipe") || n.contains("lavapipe") || n.contains("softpipe")
}

/// The calling thread's id (the first field of `/proc/thread-self/stat`).
fn ui_thread_id() -> Option<u32> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Every thread under `task` (`/proc/self/task`, or a copy of its layout in a test): its id,
/// name and CPU ticks, by id. `None` when the folder cannot be read (not Linux).
#[must_use]
pub fn read_threads(task: &Path) -> Option<Vec<ThreadTicks>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(task).ok()?.flatten() {
        let Some(tid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        // A thread that ended between the listing and the read is skipped.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some(ticks) = parse_ticks(&stat) else { continue };
        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default().trim_end().to_owned();
        out.push(ThreadTicks { tid, comm, ticks });
    }
    out.sort_by_key(|t| t.tid);
    Some(out)
}

fn parse_ticks(stat: &str) -> Option<u64> {
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

#[cfg(test)]
#[path = "load_tests.rs"]
mod tests;
