//! Every `shaders/*.wgsl` parses and validates through naga, with no GPU (as rerun's
//! `tests/shader_validation.rs` does). A shader that needs `f64` (its name says so) is
//! validated with the `FLOAT64` capability, every other one without it.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use std::path::PathBuf;

use naga::valid::{Capabilities, ValidationFlags, Validator};

fn shader_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_wgsl_file_validates() {
    let files = shader_files();
    assert!(files.len() >= 4, "expected the wave, mandelbrot (f32, f64) and colormap shaders, found {files:?}");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(path).unwrap();
        let module = match naga::front::wgsl::parse_str(&source) {
            Ok(m) => m,
            Err(e) => {
                failures.push(e.emit_to_string_with_path(&source, &name));
                continue;
            }
        };
        let mut caps = Capabilities::default();
        if name.contains("f64") {
            caps |= Capabilities::FLOAT64;
        }
        if let Err(e) = Validator::new(ValidationFlags::all(), caps).validate(&module) {
            failures.push(format!("{name}: {}", e.emit_to_string_with_path(&source, &name)));
        } else {
            println!("ok {name}");
        }
    }
    assert!(failures.is_empty(), "shaders failed validation:\n{}", failures.join("\n"));
}

#[test]
fn the_f64_shader_needs_the_f64_capability() {
    // Guards the test above: without FLOAT64 naga must refuse the f64 shader, so a shader
    // that silently lost its f64 would be noticed.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("shaders/mandelbrot_f64.wgsl");
    let source = std::fs::read_to_string(path).unwrap();
    let module = naga::front::wgsl::parse_str(&source).unwrap();
    assert!(Validator::new(ValidationFlags::all(), Capabilities::default()).validate(&module).is_err());
}
