//! The command line: clap definitions and what each subcommand does.
//!
//! Exit status: 0 success; 1 a runtime failure or a `verify` mismatch; 2 a usage error,
//! always with one line naming the bad value.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::app::GuiArgs;
use crate::backend::{self, BackendChoice, BackendKind, WaveVariant};
use crate::bench::lesson::Lesson;
use crate::bench::sweep::{SweepKernel, SweepOptions};
use crate::bench::{self, Suite};
use crate::output;
use crate::progress::Progress;
use crate::sim::deep::{Arith, DeepJob, Location, View, format_zoom};
use crate::sim::mandelbrot::{Bounds, MandelbrotParams, Precision};
use crate::sim::scene::{PRESETS, Scene, SceneError, preset};
use crate::sim::wave::{DEFAULT_FREQ, WaveParams};

mod julia;
mod zoom_gif;

pub use julia::{ColourArgs, RenderJulia};

/// The seed's number of time steps.
const DEFAULT_TMAX: u32 = 500;

/// Watch a GPU work: a 2D wave simulation and the Mandelbrot set on CUDA, wgpu and the CPU.
#[derive(Debug, Parser)]
#[command(name = "wavebrot", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the app (the default).
    Gui(GuiArgs),
    /// Compute one problem and write it as PNG and/or .npy.
    #[command(subcommand)]
    Render(Render),
    /// Time every backend on the seed problems and larger ones, side by side.
    Bench(BenchArgs),
    /// Check every available backend against the CPU reference.
    Verify(VerifyArgs),
    /// Short lessons from the seed programs: saxpy, reduction, device, on every backend.
    Lesson(LessonArgs),
    /// Time every backend against grid size (64² up to what the device holds): when is a GPU faster?
    Sweep(SweepArgs),
    /// Show the backends found, their devices and limits, and why any is missing.
    Info,
    /// List the scene presets (`render wave --preset NAME`) with their descriptions.
    Scenes,
}

#[derive(Debug, Subcommand)]
pub enum Render {
    /// The seed's wave2d (a sine source in the middle of an nx x ny grid, run for tmax steps), or a
    /// scene: --preset NAME or --scene FILE.
    #[command(allow_negative_numbers = true)]
    Wave(RenderWave),
    /// The seed's Mandelbrot image.
    #[command(allow_negative_numbers = true)]
    Mandelbrot(RenderMandelbrot),
    /// The Julia set of z^2 + c for a fixed c (--c RE,IM): the Mandelbrot rule with the orbit
    /// starting at the pixel.
    #[command(allow_negative_numbers = true)]
    Julia(RenderJulia),
}

#[derive(Debug, Args)]
pub struct RenderWave {
    /// A scene preset (`wavebrot scenes` lists them); flags given beside it override its values.
    #[arg(long, value_name = "NAME", conflicts_with = "scene")]
    pub preset: Option<String>,
    /// A scene file (TOML, see assets/scenes/); flags given beside it override its values.
    #[arg(long, value_name = "FILE")]
    pub scene: Option<PathBuf>,
    /// Cells along i (picture width) [default: 1000, or the scene's; a scene's geometry is scaled].
    #[arg(long, value_parser = grid_side)]
    pub nx: Option<usize>,
    /// Cells along j (picture height) [default: 800, or the scene's; a scene's geometry is scaled].
    #[arg(long, value_parser = grid_side)]
    pub ny: Option<usize>,
    /// Time steps (each is two updates) [default: 500, or the scene's `tmax`].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub tmax: Option<u32>,
    /// Source frequency: the source is sin(freq * tstep) [default: 0.1; with a scene: every
    /// source's freq].
    #[arg(long, value_parser = positive_f64)]
    pub freq: Option<f64>,
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Write f after the last step through `hot` (vmin -0.1, vmax 0.1) as PNG.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Write f after the last step as .npy (<f4, shape (nx, ny)).
    #[arg(long, value_name = "FILE")]
    pub npy: Option<PathBuf>,
    /// Write a numbered PNG (wave2d_010.png, ...) every --every steps into DIR.
    #[arg(long, value_name = "DIR", requires = "every")]
    pub frames_dir: Option<PathBuf>,
    /// Record an animated GIF: one frame every --every steps, one pixel per cell like the PNG.
    #[arg(long, value_name = "FILE", requires = "every")]
    pub gif: Option<PathBuf>,
    /// Steps between frames written to --frames-dir and --gif.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub every: Option<u32>,
}

#[derive(Debug, Args)]
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
    /// A location file (TOML: re, im, zoom, iters; see assets/locations/) instead of --center/--zoom.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["bounds", "center", "zoom"])]
    pub location: Option<PathBuf>,
    /// Also save the view (centre, zoom, iterations) as a location file.
    #[arg(long, value_name = "FILE")]
    pub save_location: Option<PathBuf>,
    /// Arithmetic: f32, f64 (the seed's rule) or perturbation; default f64 where it resolves
    /// the pixels, perturbation beyond.
    #[arg(long, value_enum)]
    pub precision: Option<Arith>,
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Write the picture as PNG, imaginary axis up: the counts through `hot` (0..iters) by
    /// default, else as the colour flags below say.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Write the counts as .npy (<i4, shape (height, width), row 0 at miny).
    #[arg(long, value_name = "FILE")]
    pub npy: Option<PathBuf>,
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
    pub colour: ColourArgs,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Which kernels to time.
    #[arg(value_enum, default_value_t = Suite::All)]
    pub suite: Suite,
    /// Backends to time (repeatable); default every available one.
    #[arg(long, value_enum)]
    pub backend: Vec<BackendKind>,
    /// Also write the records as a JSON array to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Smaller sizes and fewer repeats.
    #[arg(long)]
    pub quick: bool,
    /// Wave kernel variants to time on backends that have several (repeatable): `blocked`
    /// (temporal blocking, the GPU default) or `simple` (one update per launch, the seed's
    /// kernel shape); `auto` is each backend's default. `wavebrot info` lists them.
    #[arg(long, value_enum)]
    pub variant: Vec<WaveVariant>,
    /// Side N of the to-file cases (the N x N wave field and Mandelbrot counts from the device to
    /// a .npy file in the temporary folder, in GB/s); default 16384 (1 GiB each), 2048 with
    /// --quick; 0 leaves them out.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=65_536))]
    pub file_size: Option<u32>,
}

#[derive(Debug, Args)]
pub struct LessonArgs {
    /// Which lesson.
    #[arg(value_enum)]
    pub lesson: Lesson,
    /// Backends to run it on (repeatable); default every available one.
    #[arg(long, value_enum)]
    pub backend: Vec<BackendKind>,
    /// Elements of the arrays.
    #[arg(long, default_value_t = bench::lesson::DEFAULT_ELEMENTS, value_parser = elements)]
    pub elements: usize,
}

/// A lesson's array length: 1 to 2^28.
fn elements(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("'{s}' is not a whole number of elements"))?;
    if n == 0 || n > 1 << 28 {
        return Err(format!("{n} elements: give 1 to {}", 1 << 28));
    }
    Ok(n)
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Which kernel to sweep.
    #[arg(value_enum, default_value_t = SweepKernel::Wave)]
    pub kernel: SweepKernel,
    /// Backends to time (repeatable); default every available one.
    #[arg(long, value_enum)]
    pub backend: Vec<BackendKind>,
    /// The smallest grid side; sides double from it.
    #[arg(long, default_value_t = 64, value_parser = grid_side)]
    pub min_side: usize,
    /// The largest grid side [default: until a device refuses, at most 16384].
    #[arg(long, value_parser = grid_side)]
    pub max_side: Option<usize>,
    /// Write the records as a JSON array to FILE (fields in the README).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the records as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Draw the log-log plot as a PNG to FILE.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Fewer repeats.
    #[arg(long)]
    pub quick: bool,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Backends to check (repeatable); default every available one.
    #[arg(long, value_enum)]
    pub backend: Vec<BackendKind>,
    /// Small cases only: seconds on a CPU.
    #[arg(long)]
    pub quick: bool,
    /// To see the checks fail: every backend returns one wrong value per result (a cell, a
    /// count, an element); verify must report FAIL and exit 1.
    #[arg(long)]
    pub inject_fault: bool,
}

/// A grid side: an integer of at least 3.
fn grid_side(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("'{s}' is not a whole number of cells"))?;
    if n < 3 {
        return Err(format!("{n} is too small: a grid needs at least 3 cells a side"));
    }
    Ok(n)
}

/// An image side: an integer of at least 1.
fn image_side(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("'{s}' is not a whole number of pixels"))?;
    if n == 0 {
        return Err("an image needs at least 1 pixel a side".to_owned());
    }
    Ok(n)
}

/// A finite number above zero.
fn positive_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("{s} must be a finite number > 0"));
    }
    Ok(v)
}

fn parse_bounds(s: &str) -> Result<Bounds, String> {
    s.parse()
}

/// Parses the arguments and runs; the process exit status.
#[must_use]
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            // One line naming the bad value, without clap's usage block.
            let text = e.render().to_string();
            let line: Vec<&str> = text
                .lines()
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
                .collect();
            eprintln!("{}", line.join(" "));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", format_chain(&e));
            ExitCode::from(1)
        }
    }
}

/// `a: b: c` for an error and its causes, on one line unless a cause is multi-line (a compile log).
fn format_chain(e: &anyhow::Error) -> String {
    e.chain().map(ToString::to_string).collect::<Vec<_>>().join(": ")
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command.unwrap_or(Command::Gui(GuiArgs::default())) {
        Command::Gui(args) if std::env::var_os(crate::app::window_process::WINDOW_PROCESS_ENV).is_some() => {
            crate::app::run(&args).map(|()| ExitCode::SUCCESS)
        }
        Command::Gui(args) => {
            if let Err(e) = args.start_scene() {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
            if let Err(e) = args.start_location() {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
            crate::app::window_process::run_guarded(&args)
        }
        Command::Render(Render::Wave(args)) => render_wave(&args),
        Command::Render(Render::Mandelbrot(args)) => render_mandelbrot(&args),
        Command::Render(Render::Julia(args)) => julia::render_julia(&args),
        Command::Bench(args) => {
            let variants = if args.variant.is_empty() { vec![WaveVariant::Auto] } else { args.variant.clone() };
            let file_size = args.file_size.map(|n| n as usize);
            let opts = bench::Options { quick: args.quick, variants, file_size };
            bench::run_bench(args.suite, &args.backend, args.json.as_deref(), &opts)
        }
        Command::Verify(args) => {
            bench::run_verify(&args.backend, bench::verify::VerifyOptions { quick: args.quick }, args.inject_fault)
        }
        Command::Lesson(a) => bench::lesson::run_lesson(a.lesson, &a.backend, a.elements),
        Command::Sweep(a) => {
            if a.max_side.is_some_and(|m| m < a.min_side) {
                eprintln!("error: --max-side {} is below --min-side {}", a.max_side.unwrap_or(0), a.min_side);
                return Ok(ExitCode::from(2));
            }
            bench::sweep::run_sweep(&SweepOptions {
                kernel: a.kernel,
                backends: a.backend,
                min_side: a.min_side,
                max_side: a.max_side,
                json: a.json,
                csv: a.csv,
                png: a.png,
                quick: a.quick,
            })
        }
        Command::Info => {
            info();
            Ok(ExitCode::SUCCESS)
        }
        Command::Scenes => {
            scenes();
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `wavebrot scenes`: every preset with its description.
fn scenes() {
    for p in PRESETS {
        match p.scene() {
            Ok(s) => {
                crate::outln!("{:<12} {}", p.name, s.description);
                crate::outln!("{:<12} {s}", "");
            }
            Err(e) => crate::outln!("{:<12} broken: {e}", p.name),
        }
    }
}

/// The scene `render wave` runs: the preset or file with the flags given beside it applied, or
/// `None` for the seed's problem from the flags alone.
fn wave_scene(a: &RenderWave) -> Result<Option<Scene>, SceneError> {
    let scene = match (&a.preset, &a.scene) {
        (Some(name), _) => preset(name)?,
        (None, Some(path)) => Scene::load(path)?,
        (None, None) => return Ok(None),
    };
    let mut scene = scene.resized(a.nx.unwrap_or(scene.nx), a.ny.unwrap_or(scene.ny));
    if let Some(freq) = a.freq {
        scene = scene.with_freq(freq);
    }
    let origin = a.preset.as_ref().map_or_else(
        || a.scene.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
        |n| format!("preset {n}"),
    );
    scene
        .validate()
        .map_err(|e| SceneError::File { path: format!("{origin} with the flags given"), message: e.to_string() })?;
    Ok(Some(scene))
}

/// Opens the backend asked for and says on stderr why `auto` skipped faster ones.
fn open_backend(choice: BackendChoice) -> Result<Box<dyn backend::Backend>> {
    let (b, notes) = backend::open_choice(choice)?;
    for n in notes {
        eprintln!("note: {n}; using the next backend");
    }
    eprintln!("backend: {} on {}", b.kind(), b.device_info().name);
    Ok(b)
}

fn render_wave(a: &RenderWave) -> Result<ExitCode> {
    let scene = match wave_scene(a) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    if a.every.is_some() && a.frames_dir.is_none() && a.gif.is_none() {
        eprintln!("error: --every needs --frames-dir DIR or --gif FILE");
        return Ok(ExitCode::from(2));
    }
    for path in a.png.iter().chain(&a.npy).chain(&a.gif) {
        output::check_writable(path)?;
    }
    let mut b = open_backend(a.backend)?;
    let (mut sim, tmax) = match &scene {
        Some(s) => {
            let sim = match b.new_scene(s) {
                // `auto` falls back to the CPU where the fastest backend has no scene kernel yet.
                Err(backend::BackendError::Unavailable { reason, .. }) if a.backend == BackendChoice::Auto => {
                    eprintln!("note: {} cannot run this scene ({reason}); using the CPU", b.kind());
                    b = backend::open(BackendKind::Cpu)?;
                    b.new_scene(s)?
                }
                other => other?,
            };
            (sim, a.tmax.or(s.tmax).unwrap_or(DEFAULT_TMAX))
        }
        None => {
            let params = WaveParams::new(a.nx.unwrap_or(1000), a.ny.unwrap_or(800), a.freq.unwrap_or(DEFAULT_FREQ));
            (b.new_wave(&params)?, a.tmax.unwrap_or(DEFAULT_TMAX))
        }
    };
    let (nx, ny) = (sim.params().nx, sim.params().ny);
    if let Some(dir) = &a.frames_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let every = a.every.unwrap_or(tmax);
    let progress = Progress::new(u64::from(tmax), "wave");
    let start = std::time::Instant::now();
    let mut run = |gif: &mut dyn FnMut(&[u8]) -> Result<()>| -> Result<()> {
        let mut rgba = Vec::new();
        let mut done = 0;
        let chunk = every.min((tmax / 50).max(1)).max(1);
        while done < tmax {
            let n = chunk.min(tmax - done).min(every - done % every);
            sim.advance(n)?;
            done += n;
            progress.set(u64::from(done));
            if (a.frames_dir.is_some() || a.gif.is_some()) && done % every == 0 {
                rgba.resize(nx * ny * 4, 0);
                sim.render_rgba(-0.1, 0.1, &mut rgba)?;
                if let Some(dir) = &a.frames_dir {
                    output::write_png(&dir.join(format!("wave2d_{done:03}.png")), &rgba, nx, ny)?;
                }
                gif(&rgba)?;
            }
        }
        Ok(())
    };
    match &a.gif {
        Some(path) => {
            let frames = output::write_hot_gif(path, nx, ny, 4, |push| run(push))?;
            eprintln!("wrote {frames} frames to {}", path.display());
        }
        None => run(&mut |_| Ok(()))?,
    }
    // The picture needs the field in memory; a .npy alone gets it straight from the backend's
    // chunks (`bench::to_file`).
    let mut f = Vec::new();
    if a.png.is_some() || a.npy.is_none() {
        f = vec![0.0f32; nx * ny];
        sim.read_field(&mut f)?;
    }
    let elapsed = start.elapsed();
    progress.finish();
    let copy = if f.is_empty() { "final copy with the .npy below" } else { "incl. final copy" };
    eprintln!("nx={nx}, ny={ny}, tmax={}: {:.3} s ({}, {copy})", tmax, elapsed.as_secs_f64(), b.kind());
    if let Some(path) = &a.png {
        output::write_wave_png(path, &f, nx, ny, -0.1, 0.1)?;
    }
    if let Some(path) = &a.npy {
        let start = std::time::Instant::now();
        if f.is_empty() {
            bench::to_file::write_field_npy(sim.as_mut(), path)?;
        } else {
            output::write_npy(path, &f, &[nx as u64, ny as u64])?;
        }
        let secs = start.elapsed().as_secs_f64();
        let bytes = (4 * nx * ny) as f64;
        eprintln!("wrote {}: {:.3} s, {:.2} GB/s", path.display(), secs, bytes / secs / 1e9);
    }
    Ok(ExitCode::SUCCESS)
}

fn render_mandelbrot(a: &RenderMandelbrot) -> Result<ExitCode> {
    let location = match &a.location {
        Some(path) => {
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: cannot read location file {}: {e}", path.display());
                    return Ok(ExitCode::from(2));
                }
            };
            match Location::from_toml(&text) {
                Ok(loc) => Some(loc),
                Err(e) => {
                    eprintln!("error: location file {}: {e}", path.display());
                    return Ok(ExitCode::from(2));
                }
            }
        }
        None => None,
    };
    if let Some(path) = &a.gif {
        let view = match (&a.center, &a.zoom, &location) {
            (_, _, Some(loc)) => loc.view(),
            (Some(center), Some(zoom), None) => match View::parse(center, zoom) {
                Ok(v) => v,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(2));
                }
            },
            _ => {
                eprintln!("error: --gif needs the view to zoom to: --center and --zoom, or --location");
                return Ok(ExitCode::from(2));
            }
        };
        let iters = a.iters.or(location.as_ref().map(|l| l.iters));
        return zoom_gif::render_zoom_gif(a, &view, iters, path, a.gif_frames);
    }
    let iters = a.iters.or(location.as_ref().map(|l| l.iters)).unwrap_or(20);
    let view = match (&a.center, &a.zoom, &location) {
        (_, _, Some(loc)) => Some(loc.view()),
        (Some(center), Some(zoom), None) => match View::parse(center, zoom) {
            Ok(v) => Some(v),
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
        },
        _ => None,
    };
    if let Some(path) = &a.save_location {
        let Some(v) = &view else {
            eprintln!("error: --save-location needs a view given as --center and --zoom (or --location)");
            return Ok(ExitCode::from(2));
        };
        let name = location.as_ref().map(|l| l.name.clone()).unwrap_or_default();
        let colour = location.as_ref().and_then(|l| l.colour);
        let loc = Location { name, re: v.re.clone(), im: v.im.clone(), zoom: v.zoom.clone(), iters, colour };
        output::check_writable(path)?;
        std::fs::write(path, loc.to_toml()).map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    }
    let arith = match &view {
        Some(v) => {
            let arith = a.precision.unwrap_or_else(|| v.auto_arith(a.width, a.height, iters));
            if let Err(e) = v.check_arith(arith, a.width, a.height, iters) {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
            arith
        }
        None => a.precision.unwrap_or(Arith::F64),
    };
    let Some(precision) = arith.direct() else {
        let Some(view) = view else {
            eprintln!("error: --precision perturbation needs a view given as --center RE,IM --zoom Z");
            return Ok(ExitCode::from(2));
        };
        return render_mandelbrot_deep(a, &view, iters);
    };
    let bounds = match &view {
        Some(v) => match v.bounds_f64(a.width, a.height) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
        },
        None => a.bounds,
    };
    let params = MandelbrotParams { width: a.width, height: a.height, iters, bounds, precision };
    if let Err(e) = params.validate() {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(2));
    }
    for path in a.png.iter().chain(&a.npy) {
        output::check_writable(path)?;
    }
    let mut b = open_backend(a.backend)?;
    let (_, avail, _) = backend::cpu::host_facts();
    backend::check_fits(BackendKind::Cpu, "the counts and picture", params.pixels() as u64 * 8, avail)?;
    let mut counts = vec![0i32; params.pixels()];
    let settings = a.colour.settings();
    let mut smooth = (settings.smooth && a.png.is_some()).then(|| vec![0.0f32; params.pixels()]);
    let progress = Progress::spinner("mandelbrot");
    let run =
        render_in_tiles(b.as_mut(), backend::tiles::Picture::Direct(&params), &mut counts, smooth.as_deref_mut())?;
    progress.finish();
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
    if MandelbrotParams::all_escape_at_once(&counts) {
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
    julia::write_picture(a.png.as_ref(), &counts, smooth.as_deref(), a.width, a.height, iters, &settings)?;
    if let Some(path) = &a.npy {
        output::write_npy(path, &counts, &[a.height as u64, a.width as u64])?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A Mandelbrot picture in one piece where the device holds it, in strips of rows where it
/// does not (a note says how many).
fn render_in_tiles(
    b: &mut dyn backend::Backend,
    picture: backend::tiles::Picture<'_>,
    counts: &mut [i32],
    smooth: Option<&mut [f32]>,
) -> Result<backend::MandelbrotRun> {
    let t =
        backend::tiles::render_tiled(b, picture, backend::tiles::DEFAULT_TILE_PIXELS, counts, smooth, &mut |_, _| {
            true
        })?;
    if t.tiles > 1 {
        eprintln!("note: rendered in {} tiles: the picture does not fit the device at once", t.tiles);
    }
    t.run.ok_or_else(|| anyhow::anyhow!("the tiled render stopped"))
}

/// `render mandelbrot` of a view too deep for `f64`: perturbation around the centre's orbit.
fn render_mandelbrot_deep(a: &RenderMandelbrot, view: &View, iters: u32) -> Result<ExitCode> {
    for path in a.png.iter().chain(&a.npy) {
        output::check_writable(path)?;
    }
    let mut b = open_backend(a.backend)?;
    let (_, avail, _) = backend::cpu::host_facts();
    let pixels = a.width * a.height;
    backend::check_fits(BackendKind::Cpu, "the counts and picture", pixels as u64 * 8, avail)?;
    let progress = Progress::spinner("mandelbrot (perturbation)");
    let start = std::time::Instant::now();
    let job = match DeepJob::prepare(view, a.width, a.height, iters) {
        Ok(job) => job,
        Err(e) => {
            progress.finish();
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut counts = vec![0i32; pixels];
    let settings = a.colour.settings();
    let mut smooth = (settings.smooth && a.png.is_some()).then(|| vec![0.0f32; pixels]);
    let run = render_in_tiles(b.as_mut(), backend::tiles::Picture::Deep(&job), &mut counts, smooth.as_deref_mut())?;
    let secs = start.elapsed().as_secs_f64();
    progress.finish();
    eprintln!(
        "{}x{}, iters={}, zoom {}, {}: {:.3} ms ({:.3} ms reference orbit of {} steps, {} bits; {:.3} ms BLA \
         table), {:.2} Giter/s ({}); iterations: rule {}, executed {}",
        a.width,
        a.height,
        iters,
        format_zoom(job.zoom_log10),
        b.deep_arith(&job),
        secs * 1e3,
        job.orbit.millis,
        job.orbit.steps(),
        view.bits(a.height),
        job.bla.millis,
        run.total_iters as f64 / secs / 1e9,
        b.kind(),
        run.total_iters,
        run.executed()
    );
    if MandelbrotParams::all_escape_at_once(&counts) {
        eprintln!(
            "note: every pixel escaped at the first iteration: no pixel of this view lies within distance 2 of 0"
        );
    }
    julia::write_picture(a.png.as_ref(), &counts, smooth.as_deref(), a.width, a.height, iters, &settings)?;
    if let Some(path) = &a.npy {
        output::write_npy(path, &counts, &[a.height as u64, a.width as u64])?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `wavebrot info`: every backend, its device or the reason it is missing.
fn info() {
    crate::outln!("wavebrot {}", env!("CARGO_PKG_VERSION"));
    for (kind, probe) in backend::probe_all_with_variants() {
        match probe {
            Ok((d, variants)) => {
                crate::outln!("{kind:5}  available: {}", d.name);
                for (k, v) in &d.details {
                    crate::outln!("       {k}: {v}");
                }
                if !variants.is_empty() {
                    let names: Vec<&str> = variants.iter().map(|v| v.name()).collect();
                    crate::outln!(
                        "       wave variants (bench --variant): {} (auto: the best for this device)",
                        names.join(", ")
                    );
                }
            }
            Err(why) => crate::outln!("{kind:5}  unavailable: {why}"),
        }
    }
    let adapters = backend::wgpu::list_adapters();
    crate::outln!("wgpu adapters found: {}", adapters.len());
    for a in adapters {
        crate::outln!("       {a}");
    }
    match backend::open_choice(BackendChoice::Auto) {
        Ok((b, _)) => crate::outln!("auto   uses: {}", b.kind()),
        Err(e) => crate::outln!("auto   fails: {e}"),
    }
}
