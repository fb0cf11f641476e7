//! The Scaling view's worker: `wavebrot sweep`'s measurements ([`crate::bench::sweep::point`])
//! run on the `wavebrot-sweep` thread for every backend picked, growing the grid from 64² until
//! the largest side asked, a device refuses, or one call takes longer than the sweep's budget.
//! Progress and records are shared with the UI (`scaling_view.rs`), which plots them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::backend::{self, Backend, BackendKind};
use crate::bench::Record;
use crate::bench::runner::Plan;
use crate::bench::sweep::{self, Marks, SweepKernel};

/// What the sweep has done so far.
#[derive(Clone, Debug, Default)]
pub struct SweepProgress {
    /// Every measured point, in the order measured.
    pub records: Vec<Record>,
    /// Points done (measured, refused or skipped) and planned.
    pub done: usize,
    pub total: usize,
    /// What is being measured now.
    pub current: Option<String>,
    /// The table lines, as `wavebrot sweep` prints them, and notes (stops, failures).
    pub lines: Vec<String>,
    /// The crossover and cache marks, once finished.
    pub marks: Option<Marks>,
    pub finished: bool,
    /// Points that differed from the CPU reference or failed.
    pub failures: Vec<String>,
}

/// A sweep running (or run) on its own thread.
pub struct SweepRun {
    pub kernel: SweepKernel,
    shared: Arc<Mutex<SweepProgress>>,
    cancel: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl SweepRun {
    /// Starts a sweep of `kernel` on `kinds` over `sides`.
    ///
    /// # Errors
    /// The thread could not be started.
    pub fn start(
        kernel: SweepKernel,
        kinds: Vec<BackendKind>,
        sides: Vec<usize>,
        quick: bool,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<Self> {
        let shared =
            Arc::new(Mutex::new(SweepProgress { total: kinds.len() * sides.len(), ..SweepProgress::default() }));
        let cancel = Arc::new(AtomicBool::new(false));
        let (s, c) = (Arc::clone(&shared), Arc::clone(&cancel));
        let thread = std::thread::Builder::new().name("wavebrot-sweep".to_owned()).spawn(move || {
            sweep_thread(kernel, &kinds, &sides, quick, &s, &c, wake.as_ref());
        })?;
        Ok(Self { kernel, shared, cancel, thread: Some(thread) })
    }

    /// The progress now.
    #[must_use]
    pub fn progress(&self) -> SweepProgress {
        self.shared.lock().map(|g| g.clone()).unwrap_or_default()
    }

    /// Asks the sweep to stop after the point it is measuring.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl Drop for SweepRun {
    fn drop(&mut self) {
        self.cancel();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn sweep_thread(
    kernel: SweepKernel,
    kinds: &[BackendKind],
    sides: &[usize],
    quick: bool,
    shared: &Mutex<SweepProgress>,
    cancel: &AtomicBool,
    wake: &(dyn Fn() + Sync),
) {
    let update = |f: &mut dyn FnMut(&mut SweepProgress)| {
        if let Ok(mut g) = shared.lock() {
            f(&mut g);
        }
        wake();
    };
    let plan = Plan::new(quick, (3, 7), (1, 1));
    let mut opened: Vec<Box<dyn Backend>> = Vec::new();
    for &kind in kinds {
        let mut b = match backend::open(kind) {
            Ok(b) => b,
            Err(e) => {
                update(&mut |g| {
                    g.lines.push(format!("{kind}: {e}"));
                    g.done += sides.len();
                });
                continue;
            }
        };
        let device = b.device_info().name;
        update(&mut |g| g.lines.push(format!("{:<5} {device}", kind.name())));
        for (i, &n) in sides.iter().enumerate() {
            if cancel.load(Ordering::Relaxed) {
                update(&mut |g| {
                    g.lines.push("cancelled".to_owned());
                    g.current = None;
                    g.finished = true;
                });
                return;
            }
            update(&mut |g| g.current = Some(format!("{kind} {n}×{n}")));
            let stop = |g: &mut SweepProgress, why: String| {
                g.lines.push(why);
                g.done += sides.len() - i - 1;
            };
            match sweep::point(kernel, b.as_mut(), &device, n, plan) {
                Ok((rec, call_secs)) => {
                    let slow = call_secs > sweep::SLOW_CALL_SECS && i + 1 < sides.len();
                    update(&mut |g| {
                        g.lines.push(sweep::line(&rec));
                        if !rec.ok {
                            g.failures
                                .push(format!("{} {n}×{n} on {kind}: differs from the CPU reference", rec.kernel));
                        }
                        g.records.push(rec.clone());
                        g.done += 1;
                        if slow {
                            stop(g, format!("  stops at {n}×{n}: one call took {call_secs:.1} s (the sweep's budget)"));
                        }
                    });
                    if slow {
                        break;
                    }
                }
                Err(e) => {
                    let oom = sweep::is_out_of_memory(&e);
                    update(&mut |g| {
                        g.done += 1;
                        if !oom {
                            g.failures.push(format!("{n}×{n} on {kind}: {e:#}"));
                        }
                        stop(g, format!("  stops at {n}×{n}: {e:#}"));
                    });
                    break;
                }
            }
        }
        opened.push(b);
    }
    update(&mut |g| {
        let marks = Marks::of(&g.records, &opened, kernel);
        g.lines.extend(marks.lines());
        g.marks = Some(marks);
        g.current = None;
        g.finished = true;
    });
}
