//! What `wavebrot --version` says (the version, the commit, the optional parts built in) and the
//! man pages, generated from the clap definitions (`clap_mangen`) for the Debian package and the
//! archive (`tools/dist.sh`).

use std::path::Path;

use anyhow::Context as _;

/// `wavebrot -V`.
pub const SHORT: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("WAVEBROT_COMMIT"), ")");

/// `wavebrot --version`: the version, the commit, and what was built in.
pub const LONG: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\ncommit: ",
    env!("WAVEBROT_COMMIT"),
    "\nbuilt with: ",
    built_with!(),
    "\nloaded at run time when present: libcuda and libnvrtc (CUDA), a Vulkan/Metal/DX12 driver (wgpu), libasound.so.2 (sound)"
);

#[cfg(feature = "cuda")]
macro_rules! built_with {
    () => {
        "cuda (cudarc, CUDA 13 driver API and NVRTC), wgpu, cpu"
    };
}
#[cfg(not(feature = "cuda"))]
macro_rules! built_with {
    () => {
        "wgpu, cpu (without cuda: built with --no-default-features)"
    };
}
use built_with;

/// Writes `wavebrot.1` and `wavebrot-SUB.1` for each visible subcommand (and each of its
/// subcommands, `wavebrot-render-wave.1`) into `dir`, made if missing.
///
/// # Errors
/// The folder or a page cannot be written.
pub fn write_man_pages(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let cmd = <super::Cli as clap::CommandFactory>::command().version(SHORT);
    write_page(&cmd, "wavebrot", dir)
}

fn write_page(cmd: &clap::Command, name: &str, dir: &Path) -> anyhow::Result<()> {
    let mut page = Vec::new();
    let cmd = cmd.clone().name(name.to_owned());
    clap_mangen::Man::new(cmd.clone()).render(&mut page)?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_page(sub, &format!("{name}-{}", sub.get_name()), dir)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_version_names_the_commit_and_the_parts() {
        assert!(LONG.starts_with(env!("CARGO_PKG_VERSION")));
        assert!(LONG.contains("\ncommit: "));
        assert!(LONG.contains("built with: "));
        #[cfg(feature = "cuda")]
        assert!(LONG.contains("cuda"));
    }

    #[test]
    fn man_pages_are_written_for_every_visible_subcommand() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        write_man_pages(dir.path()).expect("written");
        for page in ["wavebrot.1", "wavebrot-render.1", "wavebrot-render-mandelbrot.1", "wavebrot-locations.1"] {
            let text = std::fs::read_to_string(dir.path().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
            assert!(text.contains(".TH"), "{page} is not a man page");
        }
        assert!(!dir.path().join("wavebrot-manpages.1").exists(), "the hidden command has no page");
    }
}
