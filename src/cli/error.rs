//! [`CliError`]: how a subcommand fails, and so the exit status `main` gives (2 usage, 1 run).

use std::fmt;
use std::process::ExitCode;

/// A subcommand's failure: a bad value the user gave (exit 2, one line naming it), or a run that
/// failed (exit 1: a device, a file; the error and its causes on one line).
#[derive(Debug)]
pub enum CliError {
    /// A value on the command line (or in a file it names) that cannot run.
    Usage(String),
    /// The run failed.
    Run(anyhow::Error),
}

impl CliError {
    /// The exit status of a usage error (clap's own errors exit with it too).
    pub const USAGE_STATUS: u8 = 2;
    /// The exit status of a failed run.
    pub const RUN_STATUS: u8 = 1;

    /// A usage error saying `message`.
    pub fn usage(message: impl fmt::Display) -> Self {
        Self::Usage(message.to_string())
    }

    /// Prints the error on stderr (one line) and gives the exit status.
    #[must_use]
    pub fn report(&self) -> ExitCode {
        match self {
            Self::Usage(message) => {
                eprintln!("error: {message}");
                ExitCode::from(Self::USAGE_STATUS)
            }
            Self::Run(e) => {
                eprintln!("error: {}", format_chain(e));
                ExitCode::from(Self::RUN_STATUS)
            }
        }
    }
}

/// Everything `?` meets in a run (backend, file, anyhow errors) is a failed run.
impl<E: Into<anyhow::Error>> From<E> for CliError {
    fn from(e: E) -> Self {
        Self::Run(e.into())
    }
}

/// `a: b: c` for an error and its causes, on one line unless a cause is multi-line (a compile log).
fn format_chain(e: &anyhow::Error) -> String {
    e.chain().map(ToString::to_string).collect::<Vec<_>>().join(": ")
}
