//! The one way a fractal render (`render mandelbrot`, its perturbation path, `render julia`)
//! goes from flags to files: the files checked writable before any work, the backend opened,
//! the host's buffers checked against its memory and allocated (smooth values and distance
//! estimates only where the PNG wants them), a spinner around the computation, its report, then
//! the PNG coloured by the colour flags and the `.npy` of the counts.

use std::path::PathBuf;

use super::args::{ColourArgs, PictureFiles};
use super::{CliError, open_backend};
use crate::backend::{self, Backend, BackendChoice, BackendKind};
use crate::output;
use crate::progress::Progress;
use crate::sim::colour::palette::{ColourSettings, colour_rgba_de};
use crate::sim::fractal::distance::DE_VALUES;

/// One picture to render: where it goes, on what, its size and what its host buffers take.
pub struct PictureJob<'a> {
    pub files: &'a PictureFiles,
    pub backend: BackendChoice,
    pub colour: &'a ColourArgs,
    pub width: usize,
    pub height: usize,
    /// The iterations: the colour range of the PNG.
    pub iters: u32,
    /// Host memory per pixel, for the check before anything is allocated (counts, smooth
    /// values, the picture).
    pub host_bytes_per_pixel: u64,
    /// The spinner's label.
    pub label: &'a str,
    /// True when the picture can have distance estimates (`--colour distance`, `--light`).
    pub distance: bool,
}

/// The buffers a render fills besides the counts, each only where the PNG needs it.
pub struct Extras<'a> {
    /// Smooth escape values (also given with `de`).
    pub smooth: Option<&'a mut [f32]>,
    /// Distance estimates, [`DE_VALUES`] numbers a pixel.
    pub de: Option<&'a mut [f32]>,
    /// The render's spinner, which `compute` may turn into a bar ([`Progress::into_bar`]).
    pub progress: &'a Progress,
}

/// Renders `job`: `compute(backend, counts, extras)` fills the buffers (a usage error it returns
/// stops the render with exit 2), `report(backend, result, counts)` says on stderr what it took.
///
/// # Errors
/// An unwritable file, a backend that cannot open, a picture larger than memory, or what
/// `compute` returned.
pub fn render_picture<R>(
    job: &PictureJob<'_>,
    compute: impl FnOnce(&mut dyn Backend, &mut [i32], Extras<'_>) -> Result<R, CliError>,
    report: impl FnOnce(&dyn Backend, &R, &[i32]),
) -> Result<(), CliError> {
    let files = job.files;
    let settings = job.colour.settings();
    if settings.needs_distance() && !job.distance {
        return Err(CliError::usage(format!(
            "--colour distance and --light need distance estimates, which {} does not compute; use render mandelbrot",
            job.label
        )));
    }
    for path in files.png.iter().chain(&files.npy) {
        output::check_writable(path)?;
    }
    let mut b = open_backend(job.backend)?;
    let (_, avail, _) = backend::cpu::host_facts();
    let pixels = job.width * job.height;
    let want_de = settings.needs_distance() && files.png.is_some();
    // The distances (and smooth values) beside the counts.
    let per_pixel = job.host_bytes_per_pixel + if want_de { 4 * DE_VALUES as u64 + 4 } else { 0 };
    backend::check_fits(BackendKind::Cpu, "the counts and picture", pixels as u64 * per_pixel, avail)?;
    let mut counts = vec![0i32; pixels];
    let mut smooth = ((settings.smooth || want_de) && files.png.is_some()).then(|| vec![0.0f32; pixels]);
    let mut de = want_de.then(|| vec![0.0f32; pixels * DE_VALUES]);
    let progress = Progress::spinner(job.label);
    let extras = Extras { smooth: smooth.as_deref_mut(), de: de.as_deref_mut(), progress: &progress };
    let result = compute(b.as_mut(), &mut counts, extras);
    progress.finish();
    let result = result?;
    report(b.as_ref(), &result, &counts);
    let bufs = (counts.as_slice(), smooth.as_deref(), de.as_deref());
    write_picture(files.png.as_ref(), bufs, job.width, job.height, job.iters, &settings)?;
    if let Some(path) = &files.npy {
        output::write_npy(path, &counts, &[job.height as u64, job.width as u64])?;
    }
    Ok(())
}

/// Writes the PNG of `counts` (with `smooth` values and distance estimates `de` where given)
/// coloured by `settings`, when `png` is given.
///
/// # Errors
/// The file could not be written.
pub fn write_picture(
    png: Option<&PathBuf>,
    (counts, smooth, de): (&[i32], Option<&[f32]>, Option<&[f32]>),
    width: usize,
    height: usize,
    iters: u32,
    settings: &ColourSettings,
) -> anyhow::Result<()> {
    if let Some(path) = png {
        let mut rgba = vec![0u8; width * height * 4];
        colour_rgba_de(counts, smooth, de, width, height, iters, settings, &mut rgba);
        output::write_png(path, &rgba, width, height)?;
    }
    Ok(())
}
