//! The cost of distance colouring and slope lighting: one Mandelbrot view computed with smooth
//! values ([`Backend::mandelbrot_smooth`], what smooth colouring needs) and with distance
//! estimates ([`Backend::mandelbrot_distance`], what `--colour distance` and `--light` need,
//! smooth values included), the copies to the host included, and the ratio of the two times
//! (issue 25's target on CUDA: at most 1.5). The distances are checked against `cpu`'s
//! (counts within the Mandelbrot budget). The deep row does the same for a perturbation view
//! ([`Backend::mandelbrot_deep_distance`]).

use anyhow::Result;

use super::Options;
use super::report::{Record, Report, fmt_time};
use super::runner::{Plan, measure};
use crate::backend::{self, Backend, BackendKind};
use crate::sim::fractal::deep::{DeepJob, View};
use crate::sim::fractal::distance::DE_VALUES;
use crate::sim::fractal::mandelbrot::{self, MandelbrotParams};

/// Times `p` with smooth values and with distances on every backend (`cpu1` left out).
///
/// # Errors
/// The CPU reference failed.
pub fn mandelbrot_distance(
    r: &mut Report,
    opts: &Options,
    backends: &mut [Box<dyn Backend>],
    p: &MandelbrotParams,
) -> Result<()> {
    r.say(format!(
        "\nmandelbrot_distance  {}x{}, iters={}, {}  (smooth values against smooth values + distance estimates, copies \
         included; ratio = distance / smooth)",
        p.width,
        p.height,
        p.iters,
        p.precision.name()
    ));
    let n = p.pixels();
    let mut reference = vec![0i32; n];
    let (mut s, mut d) = (vec![0.0f32; n], vec![0.0f32; n * DE_VALUES]);
    backend::open(BackendKind::Cpu)?.mandelbrot_distance(p, &mut reference, &mut s, &mut d)?;
    let tol = mandelbrot::mismatch_tolerance(p.precision);
    let mut counts = vec![0i32; n];
    let mut ok_all = true;
    for b in backends.iter_mut() {
        let kind = b.kind();
        if kind == BackendKind::Cpu1 {
            continue;
        }
        r.status(kind.name());
        let device = b.device_info().name;
        let plan = || Plan::new(opts.quick, (3, 7), (2, 5));
        let smooth = measure(plan(), || Ok(b.mandelbrot_smooth(p, &mut counts, &mut s)?.timing));
        let mut total = 0;
        let distance = measure(plan(), || {
            let run = b.mandelbrot_distance(p, &mut counts, &mut s, &mut d)?;
            total = run.total_iters;
            Ok(run.timing)
        });
        let ((_, ms), (_, md)) = match (smooth, distance) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                r.say(format!("  {:<5} {device:<40} failed: {e:#}", kind.name()));
                if !matches!(e.downcast_ref(), Some(backend::BackendError::Invalid(_))) {
                    r.fail(format!("mandelbrot_distance on {kind}: {e:#}"));
                    ok_all = false;
                }
                continue;
            }
        };
        let mism = mandelbrot::mismatch_frac(&counts, &reference);
        let ok = mism <= tol;
        ok_all &= ok;
        let pick = |m: &super::runner::Measured| m.kernel_seconds.unwrap_or(m.seconds);
        let ratio = pick(&md) / pick(&ms);
        r.say(format!(
            "  {:<5} {device:<40} smooth {:>10}  distance {:>10}  ratio {ratio:.2} ({})  mismatch {:.4}%",
            kind.name(),
            fmt_time(pick(&ms)),
            fmt_time(pick(&md)),
            if md.kernel_seconds.is_some() { md.source.label() } else { "wall" },
            mism * 100.0
        ));
        if !ok {
            r.fail(format!(
                "mandelbrot_distance on {kind}: {:.4}% of pixels differ (> {}%)",
                mism * 100.0,
                tol * 100.0
            ));
        }
        for (kernel, m) in [("mandelbrot_smooth", &ms), ("mandelbrot_distance", &md)] {
            r.records.push(Record {
                kernel: kernel.into(),
                backend: kind.name().into(),
                device: device.clone(),
                width: Some(p.width),
                height: Some(p.height),
                iters: Some(p.iters),
                precision: Some(p.precision.name()),
                seconds: m.seconds,
                kernel_seconds: m.kernel_seconds,
                timing_source: m.source.label(),
                giter_per_s: Some(total as f64 / m.seconds / 1e9),
                mismatch_frac: Some(mism),
                repeats: m.repeats,
                ok,
                ..Record::default()
            });
        }
    }
    r.say(format!("Check result: {}", if ok_all { "OK!" } else { "MISMATCH (see above)" }));
    Ok(())
}

/// The deep row: `view` by perturbation with smooth values ([`Backend::mandelbrot_deep_smooth`])
/// and with distance estimates ([`Backend::mandelbrot_deep_distance`]), the reference orbit
/// computed once beforehand (not timed), copies included, and the ratio. Checked: the counts
/// with distances are those without (the derivative only rides along). The CPU backends are
/// timed with `--quick` only (a full-size deep picture takes them minutes); a backend without
/// the kernel says so.
///
/// # Errors
/// The view could not be prepared.
pub fn mandelbrot_deep_distance(
    r: &mut Report,
    opts: &Options,
    backends: &mut [Box<dyn Backend>],
    (label, view, iters): (&str, &View, u32),
    (width, height): (usize, usize),
) -> Result<()> {
    r.say(format!(
        "\nmandelbrot_deep_distance  {width}x{height}, iters={iters}, {label} zoom {}  (perturbation: smooth values \
         against smooth values + distance estimates, reference orbit and BLA table computed before; ratio = distance \
         / smooth)",
        view.zoom
    ));
    let job = DeepJob::prepare(view, width, height, iters)?;
    let n = job.pixels();
    let (mut counts, mut with_de) = (vec![0i32; n], vec![0i32; n]);
    let (mut s, mut d) = (vec![0.0f32; n], vec![0.0f32; n * DE_VALUES]);
    let mut ok_all = true;
    for b in backends.iter_mut() {
        let kind = b.kind();
        if kind == BackendKind::Cpu1 || (!kind.is_gpu() && !opts.quick) {
            continue;
        }
        r.status(kind.name());
        let device = b.device_info().name;
        let plan = || Plan::new(opts.quick, (2, 5), (1, 3));
        let smooth = measure(plan(), || Ok(b.mandelbrot_deep_smooth(&job, &mut counts, &mut s)?.timing));
        let mut total = 0;
        let distance = measure(plan(), || {
            let run = b.mandelbrot_deep_distance(&job, &mut with_de, &mut s, &mut d)?;
            total = run.total_iters;
            Ok(run.timing)
        });
        let ((_, ms), (_, md)) = match (smooth, distance) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                r.say(format!("  {:<5} {device:<40} not measured: {e:#}", kind.name()));
                continue;
            }
        };
        let mism = mandelbrot::mismatch_frac(&with_de, &counts);
        let ok = mism == 0.0;
        ok_all &= ok;
        let pick = |m: &super::runner::Measured| m.kernel_seconds.unwrap_or(m.seconds);
        let ratio = pick(&md) / pick(&ms);
        r.say(format!(
            "  {:<5} {device:<40} smooth {:>10}  distance {:>10}  ratio {ratio:.2} ({})  counts {}",
            kind.name(),
            fmt_time(pick(&ms)),
            fmt_time(pick(&md)),
            if md.kernel_seconds.is_some() { md.source.label() } else { "wall" },
            if ok { "unchanged".to_owned() } else { format!("differ on {:.4}%", mism * 100.0) }
        ));
        if !ok {
            r.fail(format!("mandelbrot_deep_distance on {kind}: the counts change with distance estimates"));
        }
        for (kernel, m) in [("mandelbrot_deep_smooth", &ms), ("mandelbrot_deep_distance", &md)] {
            r.records.push(Record {
                kernel: kernel.into(),
                backend: kind.name().into(),
                device: device.clone(),
                width: Some(width),
                height: Some(height),
                iters: Some(iters),
                precision: Some("perturbation"),
                seconds: m.seconds,
                kernel_seconds: m.kernel_seconds,
                timing_source: m.source.label(),
                giter_per_s: Some(total as f64 / m.seconds / 1e9),
                mismatch_frac: Some(mism),
                repeats: m.repeats,
                ok,
                ..Record::default()
            });
        }
    }
    r.say(format!("Check result: {}", if ok_all { "OK!" } else { "MISMATCH (see above)" }));
    Ok(())
}
