//! A check that ARCHITECTURE.md's kernel-family table and the files agree, so neither list is
//! kept by hand: every path the table names under `kernels/`, `shaders/` and `src/backend/`
//! exists, every kernel and shader is in the table, and every CUDA kernel file `NAME.cu` has its
//! CPU twin and both GPU drivers, `src/backend/{cpu,cuda,wgpu}/NAME.rs`.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The rows of the table under "## Kernel families" (header and rule left out).
fn table_rows() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md is readable");
    let after = text.split("## Kernel families").nth(1).expect("ARCHITECTURE.md has a kernel-family section");
    after
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(str::to_owned)
        .collect()
}

/// Every `code span` of `text`.
fn spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The files of `dir` (relative to the root) ending in `.ext`, by stem.
fn stems(dir: &str, ext: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root().join(dir))
        .expect("the folder is readable")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == ext).then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_path_the_table_names_exists() {
    let rows = table_rows();
    assert!(rows.len() >= 8, "the kernel-family table has {} rows", rows.len());
    let mut missing = Vec::new();
    for row in &rows {
        for span in spans(row) {
            let path = span.split_whitespace().next().unwrap_or_default();
            let ours = ["kernels/", "shaders/", "src/backend/"].iter().any(|d| path.starts_with(d));
            if ours && !Path::new(&root().join(path)).exists() {
                missing.push(path.to_owned());
            }
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md's kernel-family table names files that do not exist: {missing:?}");
}

#[test]
fn every_kernel_and_shader_is_in_the_table() {
    let table = table_rows().join("\n");
    let named = spans(&table).into_iter().map(|s| s.rsplit('/').next().unwrap_or(s).to_owned()).collect::<Vec<_>>();
    let mut absent = Vec::new();
    for (dir, ext) in [("kernels", "cu"), ("shaders", "wgsl"), ("shaders/parts", "wgsl")] {
        for stem in stems(dir, ext) {
            let file = format!("{stem}.{ext}");
            if !named.contains(&file) {
                absent.push(format!("{dir}/{file}"));
            }
        }
    }
    assert!(absent.is_empty(), "files missing from ARCHITECTURE.md's kernel-family table: {absent:?}");
}

#[test]
fn every_cuda_kernel_has_its_cpu_twin_and_gpu_drivers() {
    let mut missing = Vec::new();
    for stem in stems("kernels", "cu") {
        for backend in ["cpu", "cuda", "wgpu"] {
            let path = format!("src/backend/{backend}/{stem}.rs");
            if !root().join(&path).exists() {
                missing.push(path);
            }
        }
    }
    assert!(missing.is_empty(), "kernel families without a twin or driver: {missing:?}");
}
