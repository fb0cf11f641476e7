//! The simulation thread's Mandelbrot part: the view asked for last, a coarse pass first where
//! the full one would take long, the full one in tiles abandoned for a newer view, a change of
//! colours only colouring the counts again, and exports to PNG in tiles with progress and
//! Cancel.

use web_time::{Duration, Instant};

use crate::backend;
use crate::backend::tiles::{DEFAULT_TILE_PIXELS, Strips};

use crate::app::worker::messages::{
    Command, ExportJob, ExportStatus, FrameSource, MandelRequest, MandelbrotFrame, Msg,
};
use crate::app::worker::simulation::{MandelDone, MandelLoop, SimLoop};

/// A Mandelbrot pass expected to take longer than this is preceded by a coarse one (1/2, 1/4 or
/// 1/8 of the size a side) that fits in it, so zooming stays fluid at any depth.
const COARSE_BUDGET: Duration = Duration::from_millis(35);

/// The full Mandelbrot pass is computed in tiles of about this long (paced: each cut from the
/// time the one before took), and abandoned between two when a newer view is asked for.
const TILE_BUDGET: Duration = Duration::from_millis(120);

/// An export is computed in tiles of about this long (unless a tile size is set; paced, so a
/// busy machine or the set's costly interior makes them smaller), so its progress moves and
/// Cancel acts within a second at any size and depth.
const EXPORT_TILE: Duration = Duration::from_millis(250);

impl SimLoop {
    /// Renders the Mandelbrot view asked for last: a coarse pass first when the full one would
    /// take longer than [`COARSE_BUDGET`], then the full picture in tiles of about
    /// [`TILE_BUDGET`], abandoned when a newer view is waiting.
    pub(super) fn mandelbrot_frame(&mut self) {
        let Some(req) = self.mandel.request.take() else { return };
        if let Some(MandelDone { request: done, arith, params, smooth, de }) = self.mandel.done.clone()
            && done.same_counts(&req)
        {
            // Only the colours changed: colour the counts again.
            let (w, h) = (req.width, req.height);
            let mut rgba = self.display.buffer(w * h * 4);
            let sm = smooth.then_some(self.mandel.smooth.as_slice());
            let dd = de.then_some(self.mandel.work.de.as_slice());
            let counts = &self.mandel.counts;
            crate::sim::colour::palette::colour_rgba_de(counts, sm, dd, w, h, req.iters, &req.colour, &mut rgba);
            self.mandel.done = Some(MandelDone { request: req.clone(), arith: arith.clone(), params, smooth, de });
            let frame = MandelbrotFrame {
                pixels: FrameSource::Rgba { rgba, width: w, height: h },
                request: req,
                width: w,
                height: h,
                coarse: 1,
                params,
                arith,
                counts: self.mandel.counts.clone(),
                total_iters: 0,
                timing: backend::Timing::wall(Duration::ZERO),
            };
            self.send(Msg::Mandelbrot(frame));
            return;
        }
        let estimate = self.mandel.secs_per_pixel * (req.width * req.height) as f64;
        let mut coarse = 1;
        while coarse < 8 && estimate / (coarse * coarse) as f64 > COARSE_BUDGET.as_secs_f64() {
            coarse *= 2;
        }
        if coarse > 1 {
            self.mandelbrot_pass(&req, coarse);
            if self.newer_view_waiting() {
                return;
            }
        }
        self.mandelbrot_pass(&req, 1);
    }

    /// Moves the commands sent so far into the inbox; true when one of them replaces the view
    /// being drawn.
    pub(super) fn newer_view_waiting(&mut self) -> bool {
        while let Ok(c) = self.commands.try_recv() {
            self.inbox.push_back(c);
        }
        self.inbox.iter().any(|c| {
            matches!(
                c,
                Command::Mandelbrot(_)
                    | Command::SetView(_)
                    | Command::SetBackend(_)
                    | Command::Export(_)
                    | Command::Quit
            )
        })
    }

    /// One pass of `req` at `1/coarse` of its size a side.
    pub(super) fn mandelbrot_pass(&mut self, req: &MandelRequest, coarse: usize) {
        let (w, h) = (req.width.div_ceil(coarse).max(1), req.height.div_ceil(coarse).max(1));
        let tile = if coarse == 1 && self.mandel.secs_per_pixel > 0.0 {
            let first =
                ((TILE_BUDGET.as_secs_f64() / self.mandel.secs_per_pixel) as usize).clamp(w * 8, DEFAULT_TILE_PIXELS);
            Strips::paced(first, TILE_BUDGET)
        } else {
            Strips::pixels(DEFAULT_TILE_PIXELS)
        };
        let start = Instant::now();
        let mut counts = std::mem::take(&mut self.mandel.counts);
        self.mandel.done = None;
        let computed = {
            let Self { backend, mandel: MandelLoop { work: mandel, smooth, .. }, commands, inbox, turn, .. } = self;
            let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            // Between tiles of the full pass: stop when a newer view is waiting.
            let mut progress = |done: usize, total: usize| {
                if coarse > 1 || done == total {
                    return true;
                }
                while let Ok(c) = commands.try_recv() {
                    inbox.push_back(c);
                }
                !inbox.iter().any(|c| matches!(c, Command::Mandelbrot(_) | Command::SetBackend(_) | Command::Quit))
            };
            mandel.compute(backend.as_mut(), req, (w, h), tile, &mut counts, smooth, &mut progress)
        };
        let result = match computed {
            Ok(c) => {
                for n in &c.notes {
                    self.send(Msg::Error(n.clone()));
                }
                // No run: abandoned for a newer view.
                c.run.map(|run| (c, run))
            }
            Err(e) => {
                self.send(Msg::Error(e.to_string()));
                None
            }
        };
        if let Some((c, run)) = result {
            if coarse == 1 {
                self.mandel.secs_per_pixel = start.elapsed().as_secs_f64() / (w * h) as f64;
                self.mandel.pass_iters = req.iters.max(1);
            }
            let mut rgba = self.display.buffer(w * h * 4);
            let sm = c.smooth.then_some(self.mandel.smooth.as_slice());
            let dd = c.de.then_some(self.mandel.work.de.as_slice());
            crate::sim::colour::palette::colour_rgba_de(&counts, sm, dd, w, h, req.iters, &req.colour, &mut rgba);
            if coarse == 1 {
                self.mandel.done = Some(MandelDone {
                    request: req.clone(),
                    arith: c.arith.clone(),
                    params: c.params,
                    smooth: c.smooth,
                    de: c.de,
                });
            }
            let frame = MandelbrotFrame {
                pixels: FrameSource::Rgba { rgba, width: w, height: h },
                request: req.clone(),
                width: w,
                height: h,
                coarse,
                params: c.params,
                arith: c.arith,
                counts: counts.clone(),
                // Executed: fewer than the rule's where BLA skipped some (the UI takes the rule's
                // from the counts).
                total_iters: run.executed(),
                timing: run.timing,
            };
            self.send(Msg::Mandelbrot(frame));
        }
        self.mandel.counts = counts;
    }

    /// Pixels in an export tile of about [`EXPORT_TILE`] of compute, at the last full pass's
    /// rate scaled to the export's iterations (a pixel inside the set costs all of them); 16
    /// rows while nothing was measured yet. At least one row.
    pub(super) fn export_tile(&self, req: &MandelRequest) -> usize {
        if self.mandel.secs_per_pixel <= 0.0 {
            return req.width * 16;
        }
        let deeper = (f64::from(req.iters) / f64::from(self.mandel.pass_iters)).max(1.0);
        let per_pixel = self.mandel.secs_per_pixel * deeper;
        ((EXPORT_TILE.as_secs_f64() / per_pixel) as usize).clamp(req.width, DEFAULT_TILE_PIXELS)
    }

    /// Renders `job` in tiles and writes it as PNG (atomically), reporting progress; a
    /// [`Command::CancelExport`] between two tiles stops it with nothing written. Other commands
    /// that arrive meanwhile wait in the inbox.
    pub(super) fn export(&mut self, job: &ExportJob) {
        let req = &job.request;
        let start = Instant::now();
        let pixels = req.width * req.height;
        let (_, avail, _) = backend::cpu::host_facts();
        if let Err(e) = backend::check_fits(backend::BackendKind::Cpu, "the picture", pixels as u64 * 8, avail) {
            self.send(Msg::Export(ExportStatus::Failed(e.to_string())));
            return;
        }
        if let Err(e) = crate::output::check_writable(&job.path) {
            self.send(Msg::Export(ExportStatus::Failed(format!("{e:#}"))));
            return;
        }
        let (mut counts, mut smooth) = (Vec::new(), Vec::new());
        let mut cancelled = false;
        // A tile size set by hand is kept; else paced, the first from the last pass's rate.
        let tile = job.tile_pixels.map_or_else(|| Strips::paced(self.export_tile(req), EXPORT_TILE), Strips::pixels);
        let computed = {
            let Self {
                backend, mandel: MandelLoop { work: mandel, .. }, commands, inbox, out, wake, turn, quit, ..
            } = self;
            let _turn = turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut progress = |done: usize, total: usize| {
                if out.send(Msg::Export(ExportStatus::Progress { done, total })).is_err() {
                    *quit = true;
                }
                wake();
                while let Ok(c) = commands.try_recv() {
                    inbox.push_back(c);
                }
                let before = inbox.len();
                inbox.retain(|c| !matches!(c, Command::CancelExport));
                cancelled |= inbox.len() != before || inbox.iter().any(|c| matches!(c, Command::Quit));
                !cancelled && !*quit
            };
            mandel.compute(
                backend.as_mut(),
                req,
                (req.width, req.height),
                tile,
                &mut counts,
                &mut smooth,
                &mut progress,
            )
        };
        let status = match computed {
            Ok(c) if c.run.is_none() || cancelled => ExportStatus::Cancelled,
            Ok(c) => {
                let mut rgba = vec![0u8; pixels * 4];
                let sm = c.smooth.then_some(smooth.as_slice());
                crate::sim::colour::palette::colour_rgba_de(
                    &counts,
                    sm,
                    c.de.then_some(self.mandel.work.de.as_slice()),
                    req.width,
                    req.height,
                    req.iters,
                    &req.colour,
                    &mut rgba,
                );
                match crate::output::write_png(&job.path, &rgba, req.width, req.height) {
                    Ok(()) => ExportStatus::Done {
                        path: job.path.clone(),
                        width: req.width,
                        height: req.height,
                        tiles: c.tiles,
                        millis: start.elapsed().as_secs_f64() * 1e3,
                    },
                    Err(e) => ExportStatus::Failed(format!("{e:#}")),
                }
            }
            Err(e) => ExportStatus::Failed(e.to_string()),
        };
        self.send(Msg::Export(status));
    }
}
