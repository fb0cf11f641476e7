//! Every shader the wgpu backend compiles — assembled from `shaders/` as the backend does it
//! (`src/backend/wgpu/shader.rs`) — parses and validates through naga, with no GPU (as rerun's
//! `tests/kernels/shader_validation.rs` does). The f64 variants are validated with the `FLOAT64`
//! capability and the blocked wave's subgroup lanes with `SUBGROUP`, every other shader without
//! them.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use std::path::PathBuf;

use naga::valid::{Capabilities, ValidationFlags, Validator};
use wavebrot::backend::wgpu::shader;

fn validate(source: &str, caps: Capabilities) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    Validator::new(ValidationFlags::all(), caps).validate(&module).map(|_| ()).map_err(|e| e.emit_to_string(source))
}

#[test]
fn every_shader_validates() {
    let shaders = shader::all();
    assert!(shaders.len() >= 5, "expected the two wave variants, two Mandelbrot precisions and the colormap");
    let mut failures = Vec::new();
    for (name, source, needs) in &shaders {
        let mut caps = Capabilities::default();
        caps.set(Capabilities::FLOAT64, needs.f64);
        caps.set(Capabilities::SUBGROUP, needs.subgroups);
        match validate(source, caps) {
            Ok(()) => println!("ok {name}"),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "shaders failed validation:\n{}", failures.join("\n"));
}

#[test]
fn the_f64_shader_needs_the_f64_capability() {
    // Guards the test above: without FLOAT64 naga must refuse the f64 shader, so a shader
    // that silently lost its f64 would be noticed.
    let (name, source, _) = shader::all().into_iter().find(|(_, _, needs)| needs.f64).unwrap();
    assert!(validate(&source, Capabilities::default()).is_err(), "{name} validated without FLOAT64");
}

#[test]
fn the_subgroup_lanes_need_the_subgroup_capability() {
    // As above for `SUBGROUP`: the blocked wave's shuffles must really be subgroup operations,
    // and its other form must need nothing.
    let all = shader::all();
    let (name, source, _) = all.iter().find(|(_, _, needs)| needs.subgroups).unwrap();
    assert!(validate(source, Capabilities::default()).is_err(), "{name} validated without SUBGROUP");
    for order in [shader::Order::Vulkan, shader::Order::Fenced] {
        validate(&shader::wave_blocked(order, false), Capabilities::default()).unwrap();
        validate(&shader::wave_blocked(order, true), Capabilities::SUBGROUP).unwrap();
    }
}

#[test]
fn every_wgsl_file_is_used() {
    // A file in shaders/ that no assembled shader contains is dead code (or a forgotten include).
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let shaders = shader::all();
    let mut files = Vec::new();
    for sub in [dir.clone(), dir.join("parts")] {
        for entry in std::fs::read_dir(&sub).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "wgsl") {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 7, "found {files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        // The first code line (not a comment) of the file must appear in some shader.
        let line = text.lines().find(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//")).unwrap();
        assert!(
            shaders.iter().any(|(_, source, _)| source.contains(line)),
            "{} is in no shader the backend compiles (looked for {line:?})",
            path.display()
        );
    }
}
