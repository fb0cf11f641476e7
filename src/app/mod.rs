//! The eframe desktop app (issue 5): not built yet.

use crate::cli::GuiArgs;

/// Opens the app window.
///
/// # Errors
/// Always, until the app is built: it says so and points at the CLI.
pub fn run(_args: &GuiArgs) -> anyhow::Result<()> {
    anyhow::bail!("the desktop app is not built yet; try `wavebrot --help` for the command line")
}
