//! Build facts for `wavebrot --version`: the commit the binary was built from (`git`, where the
//! source is a checkout; `WAVEBROT_COMMIT` where it is not, as in a source archive), and whether
//! it has local changes. Nothing else: no system library is looked for.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=WAVEBROT_COMMIT");
    for f in [".git/HEAD", ".git/index"] {
        if std::path::Path::new(f).exists() {
            println!("cargo:rerun-if-changed={f}");
        }
    }
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let commit = std::env::var("WAVEBROT_COMMIT").ok().filter(|c| !c.is_empty()).or_else(|| {
        let hash = git(&["rev-parse", "--short=10", "HEAD"])?;
        let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
        Some(if dirty { format!("{hash}+changes") } else { hash })
    });
    println!("cargo:rustc-env=WAVEBROT_COMMIT={}", commit.unwrap_or_else(|| "unknown".into()));
}
