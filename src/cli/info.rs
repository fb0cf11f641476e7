//! `info` (the backends found, their devices, why any is missing) and `scenes` (the presets).

use crate::backend::{self, BackendChoice};
use crate::sim::wave::scene::PRESETS;

/// `wavebrot scenes`: every preset with its description.
pub fn scenes() {
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

/// `wavebrot locations`: the bundled locations by name, with their centre and depth.
pub fn locations() {
    for b in crate::sim::fractal::bundled::BUNDLED {
        match b.location() {
            Ok(l) => {
                // The centre's first digits: the file holds them all (`cat` it, or `--location NAME`).
                let short = |d: &str| {
                    if d.chars().count() > 24 {
                        format!("{}…", d.chars().take(24).collect::<String>())
                    } else {
                        d.to_owned()
                    }
                };
                crate::outln!("{:<18} {}", b.name, l.name);
                crate::outln!(
                    "{:<18} re {} im {} zoom {} iterations {}",
                    "",
                    short(&l.re),
                    short(&l.im),
                    l.zoom,
                    l.iters
                );
            }
            Err(e) => crate::outln!("{:<18} broken: {e}", b.name),
        }
    }
}

/// `wavebrot info`: every backend, its device or the reason it is missing.
pub fn info() {
    crate::outln!("wavebrot {}", super::version::SHORT);
    crate::outln!("sound  {}", crate::audio::describe());
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
