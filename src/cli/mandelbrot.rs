//! `render mandelbrot`: a shallow view in `f32`/`f64` (`--bounds`, or `--center`/`--zoom` while
//! `f64` resolves the pixels), a deep one by perturbation, a location file, or (`--gif`) a zoom
//! movie ([`super::zoom_gif`]), or (`--video`) a zoom movie from keyframes ([`super::movie`]);
//! pictures larger than the device in strips ([`render_in_tiles`]).

use std::borrow::Cow;
use std::path::PathBuf;

use clap::Args;

use super::args::{BackendArg, ColourArgs, PictureFiles, image_side, parse_bounds};
use super::movie::{self, MovieArgs};
use super::picture::{Extras, PictureJob, render_picture};
use super::{CliError, zoom_gif};
use crate::backend;
use crate::output;
use crate::sim::fractal::deep::{Arith, DeepJob, Location, ReferenceChoice, View, format_zoom};
use crate::sim::fractal::mandelbrot::{Bounds, MandelbrotParams, Precision};

#[derive(Debug, Clone, Args)]
pub struct RenderMandelbrot {
    #[arg(long, default_value_t = 1536, value_parser = image_side)]
    pub width: usize,
    #[arg(long, default_value_t = 1024, value_parser = image_side)]
    pub height: usize,
    /// Maximum iterations per pixel [default: 20, or the location's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(i32::MAX)))]
    pub iters: Option<u32>,
    /// The region shown: MINX,MAXX,MINY,MAXY (shallow views; --center and --zoom go deep).
    #[arg(long, default_value = "-2,1,-1,1", allow_hyphen_values = true, value_parser = parse_bounds)]
    pub bounds: Bounds,
    /// The view's centre RE,IM: decimal numbers of any length, kept in arbitrary precision.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "bounds", requires = "zoom")]
    pub center: Option<String>,
    /// The zoom (1 is the whole set, 2 high; such as 1e300): the view is RE ± (1/Z)*width/height,
    /// IM ± 1/Z.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "bounds", requires = "center")]
    pub zoom: Option<String>,
    /// A location file instead of --center/--zoom: wavebrot's TOML (re, im, zoom, iters; see
    /// assets/locations/), a Kalles Fraktaler .kfr, or a Fraktaler 3 / rust-fractal TOML
    /// (their zoom is twice wavebrot's: converted).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["bounds", "center", "zoom"])]
    pub location: Option<PathBuf>,
    /// Also save the view (centre, zoom, iterations) as a location file: wavebrot's TOML, or a
    /// Kalles Fraktaler .kfr where FILE ends in .kfr (zoom doubled to KF's convention).
    #[arg(long, value_name = "FILE")]
    pub save_location: Option<PathBuf>,
    /// Arithmetic: f32, f64 (the seed's rule) or perturbation; default f64 where it resolves
    /// the pixels, perturbation beyond.
    #[arg(long, value_enum)]
    pub precision: Option<Arith>,
    /// The reference orbit of a perturbation render: `auto` a minibrot's nucleus where one is
    /// found near the view and the iterations are many periods (only one period is computed in
    /// arbitrary precision), else the centre; `centre`; `nucleus` wherever one is found.
    #[arg(long, value_enum, default_value_t)]
    pub reference: ReferenceChoice,
    #[command(flatten)]
    pub backend: BackendArg,
    #[command(flatten)]
    pub files: PictureFiles,
    /// Write a zoom movie instead: an animated GIF from the whole set (zoom 1) to the view given
    /// by --center and --zoom (or --location), about its centre, coloured by the colour flags;
    /// each frame computed as `render` computes a picture (f64, perturbation beyond). Without
    /// --iters the iterations grow with depth as in the app.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["png", "npy", "bounds", "save_location"])]
    pub gif: Option<PathBuf>,
    /// Frames of the --gif zoom movie.
    #[arg(long, value_name = "N", default_value_t = 60, requires = "gif", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub gif_frames: u32,
    #[command(flatten)]
    pub movie: MovieArgs,
    #[command(flatten)]
    pub colour: ColourArgs,
}

/// The location file of `--location` (wavebrot's, `.kfr`, Fraktaler 3 or rust-fractal) or a
/// bundled location by name (`wavebrot locations`), read
/// and parsed; what it ignored is said on stderr as `note:` lines.
fn read_location(path: &std::path::Path) -> Result<Location, CliError> {
    let found = crate::files::find_location(path).map_err(|e| match e {
        crate::files::LocationFileError::Parse(e) => CliError::usage(format!("location file {}: {e}", path.display())),
        e => CliError::usage(format!("cannot read location file {}: {e}", path.display())),
    })?;
    if let Some(note) = &found.note {
        eprintln!("note: {note}");
    }
    let imported = found.imported;
    for note in &imported.notes {
        eprintln!("note: {}: {note}", path.display());
    }
    Ok(imported.location)
}

/// The flags with the location's palette (a custom one too), which colours the picture unless
/// --palette says otherwise.
fn with_location_palette<'a>(a: &'a RenderMandelbrot, location: Option<&Location>) -> Cow<'a, RenderMandelbrot> {
    match location.and_then(|l| l.colour) {
        Some(c) => {
            let mut owned = a.clone();
            owned.colour.location_palette = Some(Box::new((c.palette, c.stops)));
            Cow::Owned(owned)
        }
        None => Cow::Borrowed(a),
    }
}

/// `wavebrot render mandelbrot`.
///
/// # Errors
/// A view or flags that cannot run (usage), or a failed run.
pub fn render_mandelbrot(a: &RenderMandelbrot) -> Result<(), CliError> {
    let location = a.location.as_deref().map(read_location).transpose()?;
    let a = &*with_location_palette(a, location.as_ref());
    if let Some(path) = &a.gif {
        let view = match (&a.center, &a.zoom, &location) {
            (_, _, Some(loc)) => loc.view(),
            (Some(center), Some(zoom), None) => View::parse(center, zoom).map_err(CliError::usage)?,
            _ => {
                return Err(CliError::usage("--gif needs the view to zoom to: --center and --zoom, or --location"));
            }
        };
        let iters = a.iters.or(location.as_ref().map(|l| l.iters));
        return zoom_gif::render_zoom_gif(a, &view, iters, path, a.gif_frames);
    }
    if let Some(path) = &a.movie.video {
        let view = match (&a.center, &a.zoom, &location) {
            (_, _, Some(loc)) => loc.view(),
            (Some(center), Some(zoom), None) => View::parse(center, zoom).map_err(CliError::usage)?,
            _ => {
                return Err(CliError::usage("--video needs the view to zoom to: --center and --zoom, or --location"));
            }
        };
        let iters = a.iters.or(location.as_ref().map(|l| l.iters));
        return movie::render_movie(a, &view, iters, path);
    }
    let iters = a.iters.or(location.as_ref().map(|l| l.iters)).unwrap_or(20);
    let view = match (&a.center, &a.zoom, &location) {
        (_, _, Some(loc)) => Some(loc.view()),
        (Some(center), Some(zoom), None) => Some(View::parse(center, zoom).map_err(CliError::usage)?),
        _ => None,
    };
    if let Some(w) = view.as_ref().and_then(View::digits_warning) {
        eprintln!("warning: {w}");
    }
    if let Some(path) = &a.save_location {
        let Some(v) = &view else {
            return Err(CliError::usage("--save-location needs a view given as --center and --zoom (or --location)"));
        };
        let name = location.as_ref().map(|l| l.name.clone()).unwrap_or_default();
        let colour = location.as_ref().and_then(|l| l.colour);
        let loc = Location { name, re: v.re.clone(), im: v.im.clone(), zoom: v.zoom.clone(), iters, colour };
        output::check_writable(path)?;
        crate::files::write_location(&loc, path)?;
    }
    let arith = match &view {
        Some(v) => {
            let arith = a.precision.unwrap_or_else(|| v.auto_arith(a.width, a.height, iters));
            v.check_arith(arith, a.width, a.height, iters).map_err(CliError::usage)?;
            arith
        }
        None => a.precision.unwrap_or(Arith::F64),
    };
    let Some(precision) = arith.direct() else {
        let Some(view) = view else {
            return Err(CliError::usage("--precision perturbation needs a view given as --center RE,IM --zoom Z"));
        };
        return render_mandelbrot_deep(a, &view, iters);
    };
    let bounds = match &view {
        Some(v) => v.bounds_f64(a.width, a.height).map_err(CliError::usage)?,
        None => a.bounds,
    };
    let params = MandelbrotParams { width: a.width, height: a.height, iters, bounds, precision };
    params.validate().map_err(CliError::usage)?;
    render_picture(
        &picture_job(a, iters, "mandelbrot"),
        |b, counts, extras| Ok(render_in_tiles(b, backend::tiles::Picture::Direct(&params), counts, extras)?),
        |b, run, counts| {
            let secs = run.timing.wall.as_secs_f64();
            eprintln!(
                "{}x{}, iters={}, {}: {:.3} ms, {:.2} Giter/s ({})",
                a.width,
                a.height,
                iters,
                precision.name(),
                secs * 1e3,
                run.total_iters as f64 / secs / 1e9,
                b.kind()
            );
            if MandelbrotParams::all_escape_at_once(counts) {
                let (px, py) = params.pixel_size();
                eprintln!(
                    "note: every pixel escaped at the first iteration: no pixel of this view lies within distance 2 of 0 \
                     (a pixel here is {px:.3e} x {py:.3e}), so the picture is one colour"
                );
            } else if params.precision_exhausted() {
                let hint = match precision {
                    Precision::F32 => "; try --precision f64",
                    Precision::F64 => "; neighbouring pixels get the same count, so the picture turns blocky",
                };
                eprintln!("note: the pixels are smaller than {} can resolve here{hint}", precision.name());
            }
        },
    )
}

/// The picture `render mandelbrot` writes: its files, backend and colours, `iters` deep.
fn picture_job<'a>(a: &'a RenderMandelbrot, iters: u32, label: &'a str) -> PictureJob<'a> {
    PictureJob {
        files: &a.files,
        backend: a.backend.backend,
        colour: &a.colour,
        width: a.width,
        height: a.height,
        iters,
        host_bytes_per_pixel: 8,
        label,
        distance: true,
    }
}

/// A Mandelbrot picture in one piece where the device holds it, in strips of rows where it
/// does not (a note says how many).
fn render_in_tiles(
    b: &mut dyn backend::Backend,
    picture: backend::tiles::Picture<'_>,
    counts: &mut [i32],
    extras: Extras<'_>,
) -> anyhow::Result<backend::MandelbrotRun> {
    // On the CPU a picture can take minutes: strips of about half a second each, the bar after
    // each, its time left from the rows done. The same counts as one piece (the app's full
    // pass and exports draw in the same strips). A GPU draws it in one piece, as fast as it can.
    let on_cpu = matches!(b.kind(), backend::BackendKind::Cpu | backend::BackendKind::Cpu1);
    let (width, height) = picture.size();
    if on_cpu {
        extras.progress.into_bar(height as u64, "rows");
    }
    let strips = backend::tiles::Strips::for_picture(b.kind(), width);
    let bar = extras.progress;
    let t = backend::tiles::render_tiled_de(b, picture, strips, counts, extras.smooth, extras.de, &mut |done, _| {
        bar.set(done as u64);
        true
    })?;
    if t.tiles > 1 && !on_cpu {
        eprintln!("note: rendered in {} tiles: the picture does not fit the device at once", t.tiles);
    }
    t.run.ok_or_else(|| anyhow::anyhow!("the tiled render stopped"))
}

/// `render mandelbrot` of a view too deep for `f64`: perturbation around the centre's orbit.
fn render_mandelbrot_deep(a: &RenderMandelbrot, view: &View, iters: u32) -> Result<(), CliError> {
    render_picture(
        &picture_job(a, iters, "mandelbrot (perturbation)"),
        |b, counts, extras| {
            let start = web_time::Instant::now();
            let job =
                DeepJob::prepare_with(view, a.width, a.height, iters, a.reference, Some(backend::monotonic_millis))
                    .map_err(CliError::usage)?;
            let run = render_in_tiles(b, backend::tiles::Picture::Deep(&job), counts, extras)?;
            Ok((job, run, start.elapsed().as_secs_f64()))
        },
        |b, (job, run, secs), counts| {
            eprintln!(
                "{}x{}, iters={}, zoom {}, {}: {:.3} ms ({:.3} ms reference orbit of {} steps, {} bits; {:.3} ms BLA \
                 table), {:.2} Giter/s ({}); iterations: rule {}, executed {}; reference: {}",
                a.width,
                a.height,
                iters,
                format_zoom(job.zoom_log10),
                b.deep_arith(job),
                secs * 1e3,
                job.millis.unwrap_or_default().orbit,
                job.orbit.steps(),
                view.bits(a.height),
                job.millis.unwrap_or_default().bla,
                run.total_iters as f64 / secs / 1e9,
                b.kind(),
                run.total_iters,
                run.executed(),
                job.reference.label()
            );
            if MandelbrotParams::all_escape_at_once(counts) {
                eprintln!(
                    "note: every pixel escaped at the first iteration: no pixel of this view lies within distance 2 of 0"
                );
            }
        },
    )
}
