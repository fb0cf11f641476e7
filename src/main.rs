//! The `wavebrot` binary: the command line, and the app when run without a subcommand.

fn main() -> std::process::ExitCode {
    wavebrot::cli::main()
}
