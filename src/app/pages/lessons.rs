//! The Lessons view's worker: `wavebrot lesson`'s SAXPY, reduction and device lessons
//! ([`crate::bench::lesson::teach`]) run on the `wavebrot-lesson` thread on the backends picked,
//! their lines and the check against the CPU shared with the UI (`lessons_view.rs`).

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::backend::{self, Backend, BackendKind};
use crate::bench::lesson::{self, Lesson};

/// What a lesson has said so far.
#[derive(Clone, Debug, Default)]
pub struct LessonProgress {
    /// Its lines, as `wavebrot lesson` prints them.
    pub lines: Vec<String>,
    /// Results that differ from the CPU's, or backends that failed.
    pub failures: Vec<String>,
    pub finished: bool,
}

impl LessonProgress {
    /// `Check result: OK!` (as the seed programs print) or `Check result: FAILED`, once finished.
    #[must_use]
    pub fn check_line(&self) -> Option<&'static str> {
        self.finished.then_some(if self.failures.is_empty() { "Check result: OK!" } else { "Check result: FAILED" })
    }
}

/// A lesson running (or run) on its own thread.
pub struct LessonRun {
    pub lesson: Lesson,
    shared: Arc<Mutex<LessonProgress>>,
    thread: Option<JoinHandle<()>>,
}

impl LessonRun {
    /// Runs `lesson` on `kinds` with `elements` elements.
    ///
    /// # Errors
    /// The thread could not be started.
    pub fn start(
        lesson: Lesson,
        kinds: Vec<BackendKind>,
        elements: usize,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<Self> {
        let shared = Arc::new(Mutex::new(LessonProgress::default()));
        let s = Arc::clone(&shared);
        let thread = std::thread::Builder::new().name("wavebrot-lesson".to_owned()).spawn(move || {
            let push = |f: &mut dyn FnMut(&mut LessonProgress)| {
                if let Ok(mut g) = s.lock() {
                    f(&mut g);
                }
                wake();
            };
            let mut backends: Vec<Box<dyn Backend>> = Vec::new();
            for k in kinds {
                match backend::open(k) {
                    Ok(b) => backends.push(b),
                    Err(e) => push(&mut |g| g.failures.push(format!("{k}: {e}"))),
                }
            }
            let failures =
                lesson::teach(lesson, &mut backends, elements, &mut |l| push(&mut |g| g.lines.push(l.clone())));
            push(&mut |g| {
                g.failures.extend(failures.iter().cloned());
                g.finished = true;
            });
        })?;
        Ok(Self { lesson, shared, thread: Some(thread) })
    }

    /// What the lesson has said so far.
    #[must_use]
    pub fn progress(&self) -> LessonProgress {
        self.shared.lock().map(|g| g.clone()).unwrap_or_default()
    }
}

impl Drop for LessonRun {
    fn drop(&mut self) {
        // A lesson is a few kernels: waiting for it is short.
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
