//! How the simulation thread computes a Mandelbrot picture: the arithmetic (the direct rule in
//! `f32` or `f64` while it resolves the pixels, perturbation beyond, as `render` chooses), the
//! reference orbit (computed on the `wavebrot-reference` thread by `render`'s rule, the view's
//! centre or a minibrot's nucleus where its period pays, and reused while its point stays in the
//! picture and it is long enough), and the picture in tiles ([`crate::backend::tiles`]).

use std::sync::Arc;

use astro_float::BigFloat;

use crate::backend::tiles::{self, Picture, Strips};
use crate::backend::{Backend, BackendError, MandelbrotRun};
use crate::sim::fractal::bla::FloatExp;
use crate::sim::fractal::deep::{Arith, DeepJob, PixelGrid, View, ViewError, max_orbit_steps};
use crate::sim::fractal::julia::JuliaParams;
use crate::sim::fractal::mandelbrot::{MandelbrotParams, Precision};
use crate::sim::fractal::perturb::ReferenceOrbit;
use crate::sim::fractal::reference::{ReferenceChoice, Referenced, reference_orbit};

use crate::app::worker::messages::MandelRequest;

/// Picture height a reference orbit's precision is computed for: enough for any coarse or full
/// picture of the view and for exports up to this many rows.
const ORBIT_HEIGHT: usize = 16384;

/// A reference orbit and the point it belongs to.
struct Reference {
    /// The point: the centre of the view it was computed for, or a nucleus.
    re: BigFloat,
    im: BigFloat,
    bits: usize,
    /// The iterations it was computed for.
    iters: u32,
    /// It serves any iterations: its point escaped before `iters`, or it is a nucleus's period
    /// (the pixels rebase at its end).
    complete: bool,
    kind: crate::sim::fractal::deep::Reference,
    orbit: Arc<ReferenceOrbit>,
}

/// Why a picture was not computed: one line for the status bar.
#[derive(Debug, thiserror::Error)]
pub enum MandelError {
    /// The view cannot be computed (its bounds, its size).
    #[error(transparent)]
    View(#[from] ViewError),
    /// The backend failed on the direct rule.
    #[error("Mandelbrot failed: {0}")]
    Direct(BackendError),
    /// The backend failed on perturbation.
    #[error("Mandelbrot (perturbation) failed: {0}")]
    Deep(BackendError),
    /// The backend failed on a Julia set.
    #[error("Julia set failed: {0}")]
    Julia(BackendError),
}

impl MandelError {
    /// True when the backend does not compute what was asked (smooth values on some backends).
    #[must_use]
    pub fn not_implemented(&self) -> bool {
        match self {
            Self::Direct(e) | Self::Deep(e) | Self::Julia(e) => e.to_string().contains("not implemented"),
            Self::View(_) => false,
        }
    }
}

/// A computed picture.
pub struct Computed {
    /// The direct parameters (`None`: perturbation).
    pub params: Option<MandelbrotParams>,
    /// The arithmetic in words (`f32`, `f64`, `perturbation f64, extended exponent`, ...).
    pub arith: String,
    /// The summed run (`None`: stopped by the caller's progress).
    pub run: Option<MandelbrotRun>,
    /// Tiles it was computed in.
    pub tiles: usize,
    /// Smooth escape values were computed beside the counts.
    pub smooth: bool,
    /// Distance estimates were computed into [`MandelWork::de`].
    pub de: bool,
    /// Notes for the user (a fallback taken).
    pub notes: Vec<String>,
}

/// The Mandelbrot state of the simulation thread.
#[derive(Default)]
pub struct MandelWork {
    reference: Option<Reference>,
    /// Reference orbits computed (not reused), for tests and readouts.
    pub orbits_computed: u64,
    /// The distance estimates of the last picture computed with them
    /// ([`crate::sim::fractal::distance::DE_VALUES`] a pixel; [`Computed::de`] says when).
    pub de: Vec<f32>,
}

/// The arithmetic `req` asks for at `width x height` (`None` in the request: the cheapest that
/// resolves the full picture's pixels).
#[must_use]
pub fn choose_arith(req: &MandelRequest) -> Arith {
    let (v, w, h, n) = (&req.view, req.width, req.height, req.iters);
    match req.arith {
        None if v.direct_resolves(Precision::F32, w, h, n) => Arith::F32,
        None if v.direct_resolves(Precision::F64, w, h, n) => Arith::F64,
        None => Arith::Perturbation,
        // The direct rule as asked where f64 can hold the bounds, even where it is blocky.
        Some(a @ (Arith::F32 | Arith::F64)) if v.bounds_f64(w, h).is_ok() => a,
        Some(_) => Arith::Perturbation,
    }
}

impl MandelWork {
    /// Computes `req`'s view at `width x height` (its own size, or smaller for a coarse pass)
    /// into `counts`, in `strips` ([`Strips`]: a number of pixels, or paced); `progress(rows_done,
    /// rows)` may stop it between two.
    ///
    /// # Errors
    /// The backend failed, or the view cannot be computed (the message says why).
    #[expect(clippy::too_many_arguments, reason = "the picture, its buffers and its progress")]
    pub fn compute(
        &mut self,
        backend: &mut dyn Backend,
        req: &MandelRequest,
        (width, height): (usize, usize),
        strips: impl Into<Strips>,
        counts: &mut Vec<i32>,
        smooth: &mut Vec<f32>,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Computed, MandelError> {
        let strips = strips.into();
        let want_smooth = req.colour.smooth || req.colour.needs_distance();
        let mut c =
            self.compute_once(backend, req, (width, height), strips, counts, want_smooth.then_some(smooth), progress);
        if want_smooth && matches!(&c, Err(e) if e.not_implemented()) {
            // Smooth values not on this backend yet: the counts, coloured by their integers.
            c = self.compute_once(backend, req, (width, height), strips, counts, None, progress).map(|mut c| {
                c.notes.push(format!("smooth colour is not available on {} yet: integer counts", backend.kind()));
                c
            });
        }
        c
    }

    #[expect(clippy::too_many_arguments, reason = "as compute")]
    fn compute_once(
        &mut self,
        backend: &mut dyn Backend,
        req: &MandelRequest,
        (width, height): (usize, usize),
        strips: Strips,
        counts: &mut Vec<i32>,
        mut smooth: Option<&mut Vec<f32>>,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Computed, MandelError> {
        counts.clear();
        counts.resize(width * height, 0);
        if let Some(s) = smooth.as_deref_mut() {
            s.clear();
            s.resize(width * height, 0.0);
        }
        let has_smooth = smooth.is_some();
        let mut notes = Vec::new();
        if let Some(c) = req.julia {
            let de = (has_smooth && req.colour.needs_distance()).then_some(&mut self.de);
            return julia(backend, req, (width, height), c, counts, smooth, de, progress);
        }
        let mut arith = choose_arith(req);
        if req.arith.is_some_and(|a| a != arith) {
            notes.push("f64 cannot hold this view's bounds: computed by perturbation".to_owned());
        }
        if let Some(precision) = arith.direct() {
            let bounds = req.view.bounds_f64(width, height)?;
            let p = MandelbrotParams { width, height, iters: req.iters, bounds, precision };
            let sm = smooth.as_deref_mut().map(Vec::as_mut_slice);
            let want_de = has_smooth && req.colour.needs_distance();
            let de = want_de.then(|| {
                self.de.clear();
                self.de.resize(width * height * crate::sim::fractal::distance::DE_VALUES, 0.0);
                self.de.as_mut_slice()
            });
            match tiles::render_tiled_de(backend, Picture::Direct(&p), strips, counts, sm, de, progress) {
                Ok(t) => {
                    let arith = precision.name().to_owned();
                    let (run, tiles, smooth) = (t.run, t.tiles, has_smooth);
                    return Ok(Computed { params: Some(p), arith, run, tiles, smooth, de: want_de, notes });
                }
                // A device without f64 (many GPUs through wgpu): perturbation works in f32.
                Err(BackendError::Invalid(why)) if precision == Precision::F64 => {
                    notes.push(format!("{why}; computed by perturbation instead"));
                    arith = Arith::Perturbation;
                }
                Err(e) => return Err(MandelError::Direct(e)),
            }
        }
        debug_assert_eq!(arith, Arith::Perturbation);
        let job = self.deep_job(&req.view, width, height, req.iters)?;
        let arith = backend.deep_arith(&job);
        let mut sm = smooth.map(Vec::as_mut_slice);
        if has_smooth && req.colour.needs_distance() {
            self.de.clear();
            self.de.resize(width * height * crate::sim::fractal::distance::DE_VALUES, 0.0);
            let de = Some(self.de.as_mut_slice());
            match tiles::render_tiled_de(backend, Picture::Deep(&job), strips, counts, sm.as_deref_mut(), de, progress)
            {
                Ok(t) => {
                    let (run, tiles) = (t.run, t.tiles);
                    return Ok(Computed { params: None, arith, run, tiles, smooth: true, de: true, notes });
                }
                Err(e @ BackendError::Unavailable { .. }) => notes.push(format!(
                    "distance colouring and lighting of deep views are not available on {} yet ({e})",
                    backend.kind()
                )),
                Err(e) => return Err(MandelError::Deep(e)),
            }
        }
        let t = tiles::render_tiled(backend, Picture::Deep(&job), strips, counts, sm, progress)
            .map_err(MandelError::Deep)?;
        Ok(Computed { params: None, arith, run: t.run, tiles: t.tiles, smooth: has_smooth, de: false, notes })
    }

    /// The perturbation job of `view`: the reference orbit of the last job when its point is
    /// still in the picture, its precision enough and it is long enough; else the orbit of the
    /// view's centre, computed on its own thread.
    fn deep_job(&mut self, view: &View, width: usize, height: usize, iters: u32) -> Result<DeepJob, ViewError> {
        if width == 0 || height == 0 || width > 1 << 16 || height > 1 << 16 {
            return Err(ViewError::ImageSize { width, height });
        }
        let bits = view.bits(ORBIT_HEIGHT);
        let mut b = view.bounds_big(width, height, bits)?;
        // The reference may lie up to one picture's width or height outside it (a nucleus near
        // the view): the pixels' offsets from it stay small.
        let inside = |r: &Reference| {
            let rm = crate::sim::fractal::perturb::RM;
            let within = |v: &BigFloat, lo: &BigFloat, hi: &BigFloat| {
                let span = hi.sub(lo, bits, rm);
                let (lo, hi) = (lo.sub(&span, bits, rm), hi.add(&span, bits, rm));
                v.cmp(&lo).is_some_and(|c| c >= 0) && v.cmp(&hi).is_some_and(|c| c <= 0)
            };
            within(&r.re, &b.minx, &b.maxx) && within(&r.im, &b.miny, &b.maxy)
        };
        let reuse =
            self.reference.as_ref().is_some_and(|r| r.bits >= bits && (r.complete || r.iters >= iters) && inside(r));
        if !reuse {
            let (cr, ci) = (b.re.clone(), b.im.clone());
            // Headroom, so the iterations growing with the zoom do not recompute the orbit at
            // every step (a point that escapes ends its orbit earlier anyway).
            let iters = iters.saturating_mul(2).min(i32::MAX as u32);
            let radius = view.radius(width, height);
            let aspect = width as f64 / height as f64;
            let pixel = FloatExp::new(radius.m * 2.0 / (height as f64 * (1.0 + aspect * aspect).sqrt()), radius.e);
            let run = crate::sim::own_thread::run_on_own_thread("wavebrot-reference", move || {
                let choice = ReferenceChoice::Auto;
                reference_orbit((&cr, &ci), (radius, pixel), iters, bits, max_orbit_steps(), choice)
            })
            .map_err(|e| ViewError::Thread(e.0))??;
            let Referenced { orbit, reference: kind, point } = run;
            // A cut or periodic orbit serves any iterations: pixels rebase at its end.
            let complete = orbit.steps() < iters as usize
                || matches!(
                    kind,
                    crate::sim::fractal::deep::Reference::Nucleus { .. }
                        | crate::sim::fractal::deep::Reference::Period { .. }
                );
            let (re, im) = point.unwrap_or_else(|| (b.re.clone(), b.im.clone()));
            self.orbits_computed += 1;
            self.reference = Some(Reference { re, im, bits, iters, complete, kind, orbit: Arc::new(orbit) });
        }
        let r = self.reference.as_ref().ok_or_else(|| ViewError::Thread("no reference orbit".to_owned()))?;
        // The pixels' offsets are taken from the reference's point, wherever it lies.
        b.re = r.re.clone();
        b.im = r.im.clone();
        let grid = PixelGrid::new(&b, width, height);
        // The BLA table depends on the grid's |dc|max: built for each job (about 2 complex
        // multiplies per orbit step).
        let bla = Arc::new(r.orbit.bla_table(grid.dc_max(width, height)));
        Ok(DeepJob {
            width,
            height,
            iters,
            orbit: Arc::clone(&r.orbit),
            bla,
            grid,
            zoom_log10: view.zoom_log10(),
            millis: None,
            reference: r.kind,
        })
    }
}

/// The Julia set of `c` in `req`'s view (its own camera): the direct rule in `f32` while it
/// resolves the pixels, else `f64` (Julia views have no perturbation), in one piece; with `de`
/// (given with `smooth` where the colouring needs distances), the distance estimates too, as
/// `render julia --colour distance` computes them.
#[expect(clippy::too_many_arguments, reason = "the picture, its buffers and its progress")]
fn julia(
    backend: &mut dyn Backend,
    req: &MandelRequest,
    (width, height): (usize, usize),
    c: [f64; 2],
    counts: &mut [i32],
    smooth: Option<&mut Vec<f32>>,
    de: Option<&mut Vec<f32>>,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Computed, MandelError> {
    let bounds = req.view.bounds_f64(width, height)?;
    let mut p = JuliaParams { width, height, iters: req.iters, bounds, precision: Precision::F32, c };
    p.precision = match req.arith {
        Some(Arith::F32) => Precision::F32,
        Some(_) => Precision::F64,
        None if p.precision_exhausted() => Precision::F64,
        None => Precision::F32,
    };
    let has_smooth = smooth.is_some();
    let mut notes = Vec::new();
    let mut has_de = false;
    let run = match (smooth, de) {
        (Some(smooth), Some(de)) => {
            de.clear();
            de.resize(width * height * crate::sim::fractal::distance::DE_VALUES, 0.0);
            match backend.julia_distance(&p, counts, smooth, de) {
                Ok(run) => {
                    has_de = true;
                    run
                }
                Err(e @ BackendError::Unavailable { .. }) => {
                    notes.push(format!(
                        "distance colouring and lighting of Julia sets are not available on {} ({e})",
                        backend.kind()
                    ));
                    backend.julia(&p, counts, Some(smooth)).map_err(MandelError::Julia)?
                }
                Err(e) => return Err(MandelError::Julia(e)),
            }
        }
        (smooth, _) => backend.julia(&p, counts, smooth.map(Vec::as_mut_slice)).map_err(MandelError::Julia)?,
    };
    let run = progress(height, height).then_some(run);
    let arith = p.precision.name().to_owned();
    Ok(Computed { params: None, arith, run, tiles: 1, smooth: has_smooth, de: has_de, notes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::{CpuBackend, Threads};

    fn req(re: &str, im: &str, zoom: &str, iters: u32) -> MandelRequest {
        let view = View { re: re.into(), im: im.into(), zoom: zoom.into() };
        MandelRequest { view, width: 48, height: 32, iters, arith: None, colour: Default::default(), julia: None }
    }

    #[test]
    fn arithmetic_by_depth() {
        assert_eq!(choose_arith(&req("-0.5", "0", "1", 100)), Arith::F32);
        assert_eq!(choose_arith(&req("-0.74", "0.13", "1e8", 100)), Arith::F64);
        assert_eq!(choose_arith(&req("-0.74", "0.13", "1e14", 100)), Arith::Perturbation);
        let forced = MandelRequest { arith: Some(Arith::F64), ..req("-0.74", "0.13", "1e30", 100) };
        assert_eq!(choose_arith(&forced), Arith::Perturbation, "f64 cannot hold the bounds");
    }

    #[test]
    fn a_reused_orbit_gives_the_counts_of_a_fresh_one() {
        let mut cpu = CpuBackend::new(Threads::All);
        let centre = ("-0.743643887037158704752191506114774", "0.131825904205311970493132056385139");
        let a = req(centre.0, centre.1, "1e15", 3000);
        let mut work = MandelWork::default();
        let mut counts = Vec::new();
        let c =
            work.compute(&mut cpu, &a, (48, 32), usize::MAX, &mut counts, &mut Vec::new(), &mut |_, _| true).unwrap();
        assert!(c.arith.starts_with("perturbation"), "{}", c.arith);
        // A pan of a fifth of the picture keeps the reference in it.
        let moved = crate::sim::fractal::nav::panned(&a.view, [10.0, 4.0], 32.0).unwrap();
        let b = MandelRequest { view: moved, ..a.clone() };
        let mut reused = Vec::new();
        work.compute(&mut cpu, &b, (48, 32), usize::MAX, &mut reused, &mut Vec::new(), &mut |_, _| true).unwrap();
        assert_eq!(work.orbits_computed, 1, "the orbit was reused");
        let mut fresh = Vec::new();
        MandelWork::default()
            .compute(&mut cpu, &b, (48, 32), usize::MAX, &mut fresh, &mut Vec::new(), &mut |_, _| true)
            .unwrap();
        let bad = crate::sim::fractal::mandelbrot::mismatch_frac(&reused, &fresh);
        assert!(bad <= 2e-3, "{:.3}% of the pixels differ between a reused and a fresh orbit", bad * 100.0);
        // Far away: a new orbit.
        let far = MandelRequest { view: View { zoom: "1e15".into(), ..req("-0.7436", "0.1318", "1", 1).view }, ..a };
        work.compute(&mut cpu, &far, (48, 32), usize::MAX, &mut reused, &mut Vec::new(), &mut |_, _| true).unwrap();
        assert_eq!(work.orbits_computed, 2);
    }

    #[test]
    fn deep_views_get_distances_and_lighting() {
        // The colour controls pass distance and light through to a perturbation picture: the
        // distances are the CPU twin's, the counts those of a plain picture, and no note.
        use crate::sim::colour::palette::{ColourBy, ColourSettings, Light};
        let mut cpu = CpuBackend::new(Threads::All);
        let colour = ColourSettings { by: ColourBy::Distance, light: Some(Light::DEFAULT), ..ColourSettings::DEFAULT };
        let a = MandelRequest { colour, ..req("3e-21", "1.000000000000000000001", "1e20", 2000) };
        let mut work = MandelWork::default();
        let (mut counts, mut smooth) = (Vec::new(), Vec::new());
        let c = work.compute(&mut cpu, &a, (48, 32), 600, &mut counts, &mut smooth, &mut |_, _| true).unwrap();
        assert!(
            c.arith.starts_with("perturbation") && c.de && c.tiles > 1,
            "{} de {} tiles {}",
            c.arith,
            c.de,
            c.tiles
        );
        assert!(c.notes.is_empty(), "{:?}", c.notes);
        let job = DeepJob::prepare(&a.view, 48, 32, 2000).unwrap();
        let n = job.pixels();
        let (mut k, mut s, mut d) = (vec![0; n], vec![0.0; n], vec![0.0; n * 3]);
        cpu.mandelbrot_deep_distance(&job, &mut k, &mut s, &mut d).unwrap();
        assert_eq!((&counts, &smooth, &work.de), (&k, &s, &d), "the app's distances are the CPU twin's");
        let plain = MandelRequest { colour: ColourSettings::DEFAULT, ..a };
        let mut plain_counts = Vec::new();
        let c =
            work.compute(&mut cpu, &plain, (48, 32), 600, &mut plain_counts, &mut smooth, &mut |_, _| true).unwrap();
        assert!(!c.de);
        assert_eq!(plain_counts, counts, "the counts with distances are the plain ones");
    }

    #[test]
    fn julia_views_get_distances_and_lighting_or_say_why_not() {
        // A Julia view coloured by distance and lit: the worker computes the Julia distance
        // estimate (the CPU twin's, bit for bit) beside the plain picture's counts.
        use crate::sim::colour::palette::{ColourBy, ColourSettings, Light};
        let mut cpu = CpuBackend::new(Threads::All);
        let colour = ColourSettings { by: ColourBy::Distance, light: Some(Light::DEFAULT), ..ColourSettings::DEFAULT };
        let a = MandelRequest { colour, julia: Some([-0.8, 0.156]), ..req("0", "0", "0.8", 300) };
        let mut work = MandelWork::default();
        let (mut counts, mut smooth) = (Vec::new(), Vec::new());
        let c = work.compute(&mut cpu, &a, (48, 32), usize::MAX, &mut counts, &mut smooth, &mut |_, _| true).unwrap();
        assert!(c.de && c.notes.is_empty(), "de {} notes {:?}", c.de, c.notes);
        let bounds = a.view.bounds_f64(48, 32).unwrap();
        let p = JuliaParams { width: 48, height: 32, iters: 300, bounds, precision: Precision::F32, c: [-0.8, 0.156] };
        let (k, s, d, _) = crate::sim::fractal::distance::julia_reference(&p);
        assert_eq!((&counts, &smooth, &work.de), (&k, &s, &d), "the app's Julia distances are the CPU twin's");
        let plain = MandelRequest { colour: ColourSettings::DEFAULT, ..a.clone() };
        let mut plain_counts = Vec::new();
        let c = work
            .compute(&mut cpu, &plain, (48, 32), usize::MAX, &mut plain_counts, &mut smooth, &mut |_, _| true)
            .unwrap();
        assert!(!c.de);
        assert_eq!(plain_counts, counts, "the counts with distances are the plain ones");
        // A backend without the Julia distance kernel: the picture by counts, and a note.
        let mut without = crate::bench::faulty::Faulty::new(Box::new(CpuBackend::new(Threads::All)));
        let c =
            work.compute(&mut without, &a, (48, 32), usize::MAX, &mut counts, &mut smooth, &mut |_, _| true).unwrap();
        assert!(!c.de, "no distances from a backend without them");
        assert!(c.notes.iter().any(|n| n.contains("Julia sets are not available")), "{:?}", c.notes);
    }
}
