//! The documents stay a house someone else can carry on: the README is a page a newcomer reads
//! to the end, `docs/` holds no run logs or large pictures (the runs are indexed in
//! `docs/runs.md`, their files kept in the history), every relative link in the documents
//! points at a file that exists (and every anchor into `docs/runs.md` at a run it lists), and
//! the guide's `SUMMARY.md` and its chapters agree.
//!
//! Each check is a function over text or names, with a unit test that shows it catching a
//! broken sample; the `#[test]`s at the end run them on the repository.

use std::path::{Path, PathBuf};

/// The README's length a newcomer reads to the end.
const README_MAX_LINES: usize = 250;
/// A PNG under `docs/` is sized for the page.
const PNG_MAX_BYTES: u64 = 300 * 1024;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (recursively), relative to the repository root with `/` separators.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(root()) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// What is wrong with a README of this text, if anything.
fn readme_problem(text: &str) -> Option<String> {
    let lines = text.lines().count();
    (lines > README_MAX_LINES).then(|| format!("README.md has {lines} lines (at most {README_MAX_LINES})"))
}

/// The paths (relative to the root) that are run logs or bulky evidence, which stay out of `docs/`.
fn run_log_problems(paths: &[String]) -> Vec<String> {
    paths
        .iter()
        .filter(|p| p.starts_with("docs/"))
        .filter(|p| {
            p.starts_with("docs/runs/")
                || p.ends_with(".log")
                || p.ends_with(".tar.gz")
                || p.ends_with(".tgz")
                || p.ends_with(".patch")
        })
        .cloned()
        .collect()
}

/// The PNGs (path, bytes) over the page's size.
fn png_problems(pngs: &[(String, u64)]) -> Vec<String> {
    pngs.iter()
        .filter(|(p, bytes)| p.ends_with(".png") && *bytes > PNG_MAX_BYTES)
        .map(|(p, bytes)| format!("{p}: {bytes} bytes (at most {PNG_MAX_BYTES})"))
        .collect()
}

/// `text` without fenced code blocks and inline code spans, where `](` is code, not a link.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if !fenced {
            // Keep the text between code spans, drop the spans (their delimiters too).
            for (i, part) in line.split('`').enumerate() {
                if i % 2 == 0 {
                    out.push_str(part);
                }
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of the markdown links and images `[..](target)` / `![..](target)` in `text`.
fn link_targets(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut out = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let mut depth = 0usize;
        let mut end = None;
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = Some(i);
                    break;
                }
                ')' => depth -= 1,
                '\n' => break,
                _ => {}
            }
        }
        if let Some(end) = end {
            // A title after the target (`(path "title")`) is not part of it.
            let target = after[..end].split_whitespace().next().unwrap_or_default();
            out.push(target.to_owned());
            rest = &after[end..];
        } else {
            rest = after;
        }
    }
    out
}

/// The anchors a page offers: its headings' ids (as GitHub and mdBook make them) and every
/// `id="..."` it sets.
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix('#') {
            let title = heading.trim_start_matches('#').trim();
            let id: String = title
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect();
            out.push(id);
        }
    }
    let mut rest = text;
    while let Some(at) = rest.find("id=\"") {
        let after = &rest[at + 4..];
        if let Some(end) = after.find('"') {
            out.push(after[..end].to_owned());
            rest = &after[end..];
        } else {
            break;
        }
    }
    out
}

/// The broken relative links of the document `doc` (a path relative to the root) with `text`:
/// a target that is not a file or folder, or an anchor into `docs/runs.md` that it does not
/// offer. `exists` and `read` see the repository (or a sample, in the unit tests).
fn broken_links(
    doc: &str,
    text: &str,
    exists: &dyn Fn(&str) -> bool,
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let base = Path::new(doc).parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for target in link_targets(text) {
        if target.is_empty()
            || target.starts_with('#')
            || target.starts_with("http://")
            || target.starts_with("https://")
            || target.starts_with("mailto:")
        {
            continue;
        }
        let (file, anchor) = target.split_once('#').map_or((target.as_str(), None), |(f, a)| (f, Some(a)));
        let path = normalise(&base.join(file));
        if !exists(&path) {
            out.push(format!("{doc}: link to {target}: no file {path}"));
            continue;
        }
        if let (Some(anchor), true) = (anchor, path == "docs/runs.md") {
            let offered = read(&path).map(|t| anchors(&t)).unwrap_or_default();
            if !offered.iter().any(|a| a == anchor) {
                out.push(format!("{doc}: link to {target}: docs/runs.md has no run {anchor}"));
            }
        }
    }
    out
}

/// `path` with `.` and `..` resolved, `/`-separated (relative to the root).
fn normalise(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir if parts.pop().is_none() => parts.push("..".to_owned()),
            std::path::Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

/// What is wrong between the guide's `SUMMARY.md` and its chapters: `chapters` are the `.md`
/// files under the guide's `src/` (relative to it).
fn summary_problems(summary: &str, chapters: &[String]) -> Vec<String> {
    let listed: Vec<String> = link_targets(summary)
        .into_iter()
        .filter(|t| !t.is_empty())
        .map(|t| t.split('#').next().unwrap_or_default().trim_start_matches("./").to_owned())
        .collect();
    let mut out = Vec::new();
    for chapter in &listed {
        if !chapters.contains(chapter) {
            out.push(format!("SUMMARY.md lists {chapter}, which does not exist"));
        }
    }
    for chapter in chapters {
        if chapter != "SUMMARY.md" && !listed.contains(chapter) {
            out.push(format!("{chapter} is not in SUMMARY.md"));
        }
    }
    out
}

/// The documents whose links are checked, relative to the root.
fn documents() -> Vec<String> {
    let mut docs: Vec<String> = ["README.md", "ARCHITECTURE.md", "DESIGN.md"].iter().map(|s| (*s).to_owned()).collect();
    docs.extend(files_under(&root().join("docs")).into_iter().filter(|p| {
        let top = p.strip_prefix("docs/").is_some_and(|rest| !rest.contains('/'));
        (top || p.starts_with("docs/guide/src/")) && p.ends_with(".md")
    }));
    docs
}

fn read_root(path: &str) -> Option<String> {
    std::fs::read_to_string(root().join(path)).ok()
}

#[test]
fn the_readme_is_a_page_a_newcomer_reads_to_the_end() {
    let text = read_root("README.md").expect("README.md is readable");
    assert_eq!(readme_problem(&text), None);
}

#[test]
fn docs_hold_no_run_logs() {
    let problems = run_log_problems(&files_under(&root().join("docs")));
    assert!(problems.is_empty(), "run logs belong in the issue note, indexed in docs/runs.md: {problems:?}");
}

#[test]
fn pictures_under_docs_are_sized_for_the_page() {
    let pngs: Vec<(String, u64)> = files_under(&root().join("docs"))
        .into_iter()
        .filter(|p| p.ends_with(".png"))
        .map(|p| {
            let bytes = std::fs::metadata(root().join(&p)).map(|m| m.len()).unwrap_or(0);
            (p, bytes)
        })
        .collect();
    let problems = png_problems(&pngs);
    assert!(problems.is_empty(), "resize these (ImageMagick: -resize 900x900> -strip): {problems:?}");
}

#[test]
fn every_relative_link_in_the_documents_points_at_a_file() {
    let exists = |p: &str| root().join(p).exists();
    let mut problems = Vec::new();
    for doc in documents() {
        let text = read_root(&doc).expect("a document is readable");
        problems.extend(broken_links(&doc, &text, &exists, &read_root));
    }
    assert!(problems.is_empty(), "broken links: {problems:#?}");
}

#[test]
fn the_guide_summary_and_its_chapters_agree() {
    let src = root().join("docs/guide/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("docs/guide/src/SUMMARY.md is readable");
    let chapters: Vec<String> = files_under(&src)
        .into_iter()
        .filter(|p| p.ends_with(".md"))
        .map(|p| p.trim_start_matches("docs/guide/src/").to_owned())
        .collect();
    let problems = summary_problems(&summary, &chapters);
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_readme_of_251_lines_is_refused_and_250_kept() {
    assert_eq!(readme_problem(&"line\n".repeat(250)), None);
    let problem = readme_problem(&"line\n".repeat(251)).expect("251 lines are too many");
    assert!(problem.contains("251 lines"), "{problem}");
}

#[test]
fn run_logs_tarballs_and_patches_under_docs_are_found() {
    let paths: Vec<String> = [
        "docs/runs/h200-2026-11-29-stop42/b_final/bench_wave.txt",
        "docs/notes/build.log",
        "docs/evidence.tar.gz",
        "docs/fix.patch",
        "docs/runs.md",
        "docs/guide/src/cli.md",
        "tools/dist.sh",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    assert_eq!(run_log_problems(&paths), paths[..4].to_vec());
}

#[test]
fn a_png_over_300_kb_is_found() {
    let pngs = vec![("docs/a.png".to_owned(), 300 * 1024), ("docs/b.png".to_owned(), 300 * 1024 + 1)];
    let problems = png_problems(&pngs);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("docs/b.png"), "{problems:?}");
}

#[test]
fn links_are_read_from_prose_not_code() {
    let text = "See [the guide](docs/guide/src/cli.md#flags) and ![a picture](img/a.png \"title\").\n\
                `not[a](link)` and\n```\nlet x = v[i](j);\n```\n[web](https://example.com) [mail](mailto:a@b)\n\
                ![alt with (brackets)](img/b.png)\n";
    assert_eq!(
        link_targets(text),
        ["docs/guide/src/cli.md#flags", "img/a.png", "https://example.com", "mailto:a@b", "img/b.png"]
    );
}

#[test]
fn a_link_to_a_missing_file_or_an_unknown_run_is_found() {
    let files = ["README.md", "docs/runs.md", "docs/guide/src/cli.md", "docs/guide/src/images/a.png", "DESIGN.md"];
    let exists = |p: &str| files.contains(&p) || p == "docs" || p == "docs/guide/src";
    let runs =
        "# Runs\n\n| run |\n|---|\n| <a id=\"h200-2026-11-29-stop42\"></a>`h200-2026-11-29-stop42` |\n".to_owned();
    let read = |p: &str| (p == "docs/runs.md").then(|| runs.clone());
    let good = "[cli](cli.md) ![a](images/a.png) [design](../../../DESIGN.md) [run](../../runs.md#h200-2026-11-29-stop42) \
                [runs](../../runs.md#runs) [web](https://example.com) [here](#top)";
    assert_eq!(broken_links("docs/guide/src/intro.md", good, &exists, &read), Vec::<String>::new());
    let bad = "[gone](wave.md) ![gone](images/b.png) [run](../../runs.md#h100-2099-01-01)";
    let problems = broken_links("docs/guide/src/intro.md", bad, &exists, &read);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("docs/guide/src/wave.md"), "{problems:?}");
    assert!(problems[2].contains("no run h100-2099-01-01"), "{problems:?}");
}

#[test]
fn headings_and_ids_are_anchors() {
    let text =
        "# Runs on the GPU machine: the index\n## `sweep`: when is a GPU faster?\n<a id=\"h100-2026-11-22\"></a>\n";
    assert_eq!(anchors(text), ["runs-on-the-gpu-machine-the-index", "sweep-when-is-a-gpu-faster", "h100-2026-11-22"]);
}

#[test]
fn a_chapter_missing_from_the_summary_or_listed_but_absent_is_found() {
    let summary =
        "# Summary\n\n[Getting started](introduction.md)\n\n- [The wave lab](wave-lab.md)\n- [Gone](gone.md)\n";
    let chapters: Vec<String> =
        ["SUMMARY.md", "introduction.md", "wave-lab.md", "orphan.md"].iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(
        summary_problems(summary, &chapters),
        ["SUMMARY.md lists gone.md, which does not exist", "orphan.md is not in SUMMARY.md"]
    );
}
