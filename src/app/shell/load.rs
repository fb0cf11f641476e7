//! What the app's own work takes of the CPU while it measures: the window's thread (layout,
//! painting) and a software renderer's threads (llvmpipe) run beside whatever is timed, on the
//! same cores. Read once a second from `/proc` (Linux; elsewhere nothing is said), so the
//! timing panel can say plainly how much the figures may be low by.

use std::time::Instant;

/// Clock ticks per second of `/proc`'s CPU times (`sysconf(_SC_CLK_TCK)`, 100 on Linux).
const TICKS_PER_SEC: f64 = 100.0;

/// The app's own CPU use, sampled about once a second on the UI thread.
#[derive(Debug, Default)]
pub struct AppLoad {
    last: Option<(Instant, u64)>,
    /// Cores' worth of CPU the window and the display take (1.0: one whole core), smoothed.
    pub cores_used: Option<f64>,
}

impl AppLoad {
    /// Takes a sample when a second has passed since the last one (call it from the UI thread).
    pub fn sample(&mut self) {
        let now = Instant::now();
        if self.last.is_some_and(|(t, _)| now.duration_since(t).as_secs_f64() < 1.0) {
            return;
        }
        let Some(ticks) = own_ticks() else { return };
        if let Some((t, before)) = self.last {
            let secs = now.duration_since(t).as_secs_f64();
            let used = ticks.saturating_sub(before) as f64 / TICKS_PER_SEC / secs;
            self.cores_used = Some(self.cores_used.map_or(used, |u| u + 0.5 * (used - u)));
        }
        self.last = Some((now, ticks));
    }

    /// The line the panel shows: how many cores there are, what the app takes of them, and how
    /// much a figure using every core may be low by; `true` when that is worth a warning (5% or
    /// more).
    #[must_use]
    pub fn note(&self, cores: usize) -> Option<(String, bool)> {
        let used = self.cores_used?;
        let cores = cores.max(1);
        let low = (used / cores as f64 * 100.0).min(100.0);
        let text = format!(
            "{cores} cores: the window and its drawing take about {:.0}% of one core beside what is measured \
             (the CPU copy and the active backend take turns, never both at once), so CPU figures using every \
             core may be low by about {low:.0}%; presenter mode (H) and fewer controls on screen lower it",
            used * 100.0
        );
        Some((text, low >= 5.0))
    }
}

/// CPU ticks (user + system) of the calling thread and of any software-renderer thread.
fn own_ticks() -> Option<u64> {
    let mut total = ticks_of("/proc/thread-self/stat")?;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for t in tasks.flatten() {
            let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            if comm.starts_with("llvmpipe") || comm.starts_with("lp:") {
                total += ticks_of(&t.path().join("stat").to_string_lossy()).unwrap_or(0);
            }
        }
    }
    Some(total)
}

/// `utime + stime` of a `/proc/…/stat` file.
fn ticks_of(path: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    parse_ticks(&text)
}

fn parse_ticks(stat: &str) -> Option<u64> {
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_are_read_after_the_command_name() {
        let line = "1234 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 70 30 0 0 20 0 1 0";
        assert_eq!(parse_ticks(line), Some(100));
        assert_eq!(parse_ticks("garbage"), None);
    }

    #[test]
    fn the_note_says_how_low_figures_may_be() {
        let l = AppLoad { last: None, cores_used: Some(0.5) };
        let (text, warn) = l.note(2).unwrap();
        assert!(
            text.starts_with("2 cores") && text.contains("50% of one core") && text.contains("about 25%"),
            "{text}"
        );
        assert!(warn);
        let l = AppLoad { last: None, cores_used: Some(0.02) };
        assert!(!l.note(16).unwrap().1);
        assert!(AppLoad::default().note(2).is_none());
    }
}
