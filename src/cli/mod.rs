//! The command line: the clap definitions of the subcommands and the dispatch; one file per
//! subcommand family (`wave`, `mandelbrot` with `zoom_gif`, `julia`, `info`, `minibrot`), the argument groups
//! and value parsers they share (`args`), the one way a fractal picture is rendered
//! (`picture`), and [`CliError`].
//!
//! Exit status: 0 success; 1 a runtime failure or a `verify` mismatch; 2 a usage error,
//! always with one line naming the bad value.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::app::GuiArgs;
use crate::backend::{self, BackendChoice, WaveVariant};
use crate::bench::lesson::Lesson;
use crate::bench::sweep::{SweepKernel, SweepOptions};
use crate::bench::{self, Suite};

mod args;
mod error;
mod info;
mod julia;
mod mandelbrot;
mod minibrot;
mod movie;
mod picture;
mod version;
mod wave;
mod wave_args;
mod wave_screen;
mod zoom_gif;

pub use args::{BackendArg, BackendsArg, ColourArgs, PictureFiles};
pub use error::CliError;
pub use julia::RenderJulia;
pub use mandelbrot::RenderMandelbrot;
pub use wave_args::RenderWave;

/// Watch a GPU work: a 2D wave simulation and the Mandelbrot set on CUDA, wgpu and the CPU.
#[derive(Debug, Parser)]
#[command(name = "wavebrot", version = version::SHORT, long_version = version::LONG, about, propagate_version = true)]
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
    /// List the bundled Mandelbrot locations (`--location NAME`) with their centre and depth.
    Locations,
    /// Print a shell's completion script: `wavebrot completions bash > ~/.local/share/bash-completion/completions/wavebrot`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the man pages (wavebrot.1 and one per subcommand) into DIR, generated from these
    /// definitions.
    #[command(hide = true)]
    Manpages {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// The lowest-period minibrot in or near a view: its nucleus (as many digits as its size
    /// needs), period and size; exit 1 when none is found within the iterations.
    #[command(allow_negative_numbers = true)]
    FindMinibrot(minibrot::FindMinibrot),
}

#[derive(Debug, Subcommand)]
pub enum Render {
    /// A 2D wave: a sine source in the middle of an nx x ny grid run for tmax steps (the
    /// tutorial's wave2d program), or a
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
pub struct BenchArgs {
    /// Which kernels to time.
    #[arg(value_enum, default_value_t = Suite::All)]
    pub suite: Suite,
    #[command(flatten)]
    pub backends: BackendsArg,
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
    /// Only the deep-zoom suite: rust-fractal-core's four benchmark locations (5e49 to 5e1085,
    /// assets/locations/rfc-*) at 1920x1080 (480x270 with --quick) on each GPU backend, wall
    /// time including the reference orbit, checked against the CPU twin on every 16th row.
    #[arg(long)]
    pub deep_suite: bool,
}

#[derive(Debug, Args)]
pub struct LessonArgs {
    /// Which lesson.
    #[arg(value_enum)]
    pub lesson: Lesson,
    #[command(flatten)]
    pub backends: BackendsArg,
    /// Elements of the arrays.
    #[arg(long, default_value_t = bench::lesson::DEFAULT_ELEMENTS, value_parser = args::elements)]
    pub elements: usize,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Which kernel to sweep.
    #[arg(value_enum, default_value_t = SweepKernel::Wave)]
    pub kernel: SweepKernel,
    #[command(flatten)]
    pub backends: BackendsArg,
    /// The smallest grid side; sides double from it.
    #[arg(long, default_value_t = 64, value_parser = args::grid_side)]
    pub min_side: usize,
    /// The largest grid side [default: until a device refuses, at most 16384].
    #[arg(long, value_parser = args::grid_side)]
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
    #[command(flatten)]
    pub backends: BackendsArg,
    /// Small cases only: seconds on a CPU.
    #[arg(long)]
    pub quick: bool,
    /// To see the checks fail: every backend returns one wrong value per result (a cell, a
    /// count, an element); verify must report FAIL and exit 1.
    #[arg(long)]
    pub inject_fault: bool,
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
                    ExitCode::from(CliError::USAGE_STATUS)
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
            return ExitCode::from(CliError::USAGE_STATUS);
        }
    };
    run(cli).unwrap_or_else(|e| e.report())
}

fn run(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command.unwrap_or(Command::Gui(GuiArgs::default())) {
        Command::Gui(args) if std::env::var_os(crate::app::launch::window_process::WINDOW_PROCESS_ENV).is_some() => {
            crate::app::run(&args)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Gui(args) => {
            args.start_scene().map_err(CliError::usage)?;
            args.start_location().map_err(CliError::usage)?;
            if let Some(link) = &args.link {
                crate::link::Link::parse(link).map_err(CliError::usage)?;
            }
            Ok(crate::app::launch::window_process::run_guarded(&args)?)
        }
        Command::Render(Render::Wave(args)) => wave::render_wave(&args).map(|()| ExitCode::SUCCESS),
        Command::Render(Render::Mandelbrot(args)) => mandelbrot::render_mandelbrot(&args).map(|()| ExitCode::SUCCESS),
        Command::Render(Render::Julia(args)) => julia::render_julia(&args).map(|()| ExitCode::SUCCESS),
        Command::Bench(args) => {
            let variants = if args.variant.is_empty() { vec![WaveVariant::Auto] } else { args.variant.clone() };
            let file_size = args.file_size.map(|n| n as usize);
            if args.deep_suite && args.suite == Suite::Wave {
                return Err(CliError::usage(
                    "--deep-suite times Mandelbrot views: use `bench mandelbrot --deep-suite`",
                ));
            }
            let opts = bench::Options { quick: args.quick, variants, file_size, deep_suite: args.deep_suite };
            Ok(bench::run_bench(args.suite, &args.backends.backend, args.json.as_deref(), &opts)?)
        }
        Command::Verify(args) => Ok(bench::run_verify(
            &args.backends.backend,
            bench::verify::VerifyOptions { quick: args.quick },
            args.inject_fault,
        )?),
        Command::Lesson(a) => Ok(bench::lesson::run_lesson(a.lesson, &a.backends.backend, a.elements)?),
        Command::Sweep(a) => {
            if let Some(max_side) = a.max_side.filter(|&m| m < a.min_side) {
                return Err(CliError::usage(format!("--max-side {max_side} is below --min-side {}", a.min_side)));
            }
            Ok(bench::sweep::run_sweep(&SweepOptions {
                kernel: a.kernel,
                backends: a.backends.backend,
                min_side: a.min_side,
                max_side: a.max_side,
                json: a.json,
                csv: a.csv,
                png: a.png,
                quick: a.quick,
            })?)
        }
        Command::Info => {
            info::info();
            Ok(ExitCode::SUCCESS)
        }
        Command::Scenes => {
            info::scenes();
            Ok(ExitCode::SUCCESS)
        }
        Command::Locations => {
            info::locations();
            Ok(ExitCode::SUCCESS)
        }
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "wavebrot",
                &mut std::io::stdout(),
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Manpages { dir } => {
            version::write_man_pages(&dir)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::FindMinibrot(a) => minibrot::find(&a),
    }
}

/// Opens the backend asked for and says on stderr why `auto` skipped faster ones.
fn open_backend(choice: BackendChoice) -> anyhow::Result<Box<dyn backend::Backend>> {
    announce_backend(backend::open_choice(choice))
}

/// What `open_backend` says of the backend `open_choice` opened (or its error), said on the
/// caller's thread when the opening ran on another.
fn announce_backend(
    opened: Result<(Box<dyn backend::Backend>, Vec<String>), backend::BackendError>,
) -> anyhow::Result<Box<dyn backend::Backend>> {
    let (b, notes) = opened?;
    for n in notes {
        eprintln!("note: {n}; using the next backend");
    }
    eprintln!("backend: {} on {}", b.kind(), b.device_info().name);
    Ok(b)
}
