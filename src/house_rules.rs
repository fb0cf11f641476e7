//! Checks that ARCHITECTURE.md's "Rules the code keeps" hold, read from the sources so no list
//! is kept by hand:
//! - no file over [`MAX_LINES`] lines in `src/`, `shaders/`, `kernels/` and `tests/` but the
//!   data tables of [`LONG_FILES_ALLOWED`];
//! - the app's rooms import only rooms below them, in the order of [`APP_ROOMS`];
//! - errors are typed: no `Result<_, String>` (nor `type Err = String`) anywhere in `src/`
//!   but the clap value parsers of [`STRING_ERRORS_ALLOWED`];
//! - `src/sim/` reads no clock and no file: none of [`SIM_FORBIDDEN`] (the caller times, and
//!   reads the file the simulation parses).
//!
//! - nothing names std's clock (`std::time::Instant`, `SystemTime`): it panics in the browser
//!   build, where `web_time`'s is `performance.now()` (natively it is std's own).
//!
//! Each check is a function over a file's text, tested on a sample that breaks the rule.

use std::path::{Path, PathBuf};

/// Functions (or closures, `let NAME = |...|`) that may return `Result<_, String>`: clap value
/// parsers, whose message clap prints after `invalid value 'X' for '--flag'`.
const STRING_ERRORS_ALLOWED: &[(&str, &str)] = &[
    ("src/cli/args.rs", "colour_offset"),
    ("src/cli/args.rs", "colour_cycle"),
    ("src/cli/args.rs", "elements"),
    ("src/cli/args.rs", "grid_side"),
    ("src/cli/args.rs", "image_side"),
    ("src/cli/args.rs", "positive_f64"),
    ("src/cli/args.rs", "parse_bounds"),
    ("src/cli/args.rs", "interior_colour"),
    ("src/cli/args.rs", "light"),
    ("src/cli/julia.rs", "complex"),
    ("src/cli/julia.rs", "num"),
];

/// The most lines a file of code may have.
pub const MAX_LINES: usize = 650;

/// Files allowed past [`MAX_LINES`]: data, not code.
const LONG_FILES_ALLOWED: &[&str] = &["src/sim/colour/palette_tables.rs"];

/// The app's rooms from the ground up: a room may import the rooms before it, never one after
/// it (`mod.rs` is the app itself: `WavebrotApp` and its start; the views' panels implement it).
const APP_ROOMS: &[&str] =
    &["widgets", "options", "worker", "parts", "wave", "pages", "mandel", "shell", "inbox", "launch"];

/// What `src/sim/` may not name: clocks and the file system.
const SIM_FORBIDDEN: &[&str] = &["std::time", "Instant", "SystemTime", "std::fs", "File::", "OpenOptions"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, as paths relative to the root (`src/...`), sorted.
fn rust_files(dir: &Path) -> Vec<String> {
    files_ending(dir, &["rs"])
}

/// Every file under `dir` whose extension is one of `exts`, relative to the root, sorted.
fn files_ending(dir: &Path, exts: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![root().join(dir)];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("the source folder is readable").flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
                let rel = p.strip_prefix(root()).expect("under the root").to_string_lossy().replace('\\', "/");
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// A line without its `//` comment (good enough for these checks: no `//` in the strings
/// that matter).
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// The top-level arguments of the generic list that starts after `open` (the text after `<`).
fn generic_args(after_open: &str) -> Option<Vec<String>> {
    let mut depth = 0usize;
    let mut args = vec![String::new()];
    for ch in after_open.chars() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' if depth == 0 => return (ch == '>').then_some(args),
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                args.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = args.last_mut() {
            last.push(ch);
        }
    }
    None
}

/// The function or closure a line defines, if any: `fn NAME` or `let NAME =`.
fn defined_name(line: &str) -> Option<&str> {
    let ident = |s: &str| s.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().map(str::to_owned);
    if let Some(i) = line.find("fn ") {
        return ident(&line[i + 3..]).and_then(|n| line[i + 3..].get(..n.len()));
    }
    let rest = line.trim_start().strip_prefix("let ")?;
    let rest = rest.strip_prefix("mut ").unwrap_or(rest);
    ident(rest).and_then(|n| rest.get(..n.len()))
}

/// Lines of `text` (from 1) whose code returns or holds a `Result<_, String>` or says
/// `type Err = String`, with the name they define (if any).
fn string_errors(text: &str) -> Vec<(usize, Option<String>)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let c = code(line);
        let mut hit = c.replace(' ', "").contains("typeErr=String;");
        let mut rest = c;
        while let Some(i) = rest.find("Result<") {
            rest = &rest[i + "Result<".len()..];
            if let Some(args) = generic_args(rest)
                && args.len() == 2
                && args[1].trim() == "String"
            {
                hit = true;
            }
        }
        if hit {
            out.push((n + 1, defined_name(c).map(str::to_owned)));
        }
    }
    out
}

/// Lines of `text` (from 1) naming one of [`SIM_FORBIDDEN`] in code, with the word found.
fn clock_or_file_uses(text: &str) -> Vec<(usize, &'static str)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let c = code(line);
        if let Some(word) = SIM_FORBIDDEN.iter().find(|w| c.contains(**w)) {
            out.push((n + 1, *word));
        }
    }
    out
}

/// The files of `files` (path, text) over [`MAX_LINES`] lines that are not allowed to be.
fn too_long<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    files
        .into_iter()
        .filter(|(path, _)| !LONG_FILES_ALLOWED.contains(path))
        .filter_map(|(path, text)| {
            let n = text.lines().count();
            (n > MAX_LINES).then(|| format!("{path} ({n} lines)"))
        })
        .collect()
}

/// The app room a file of `src/app/` is in (`mod.rs` of `src/app/` is in none).
fn app_room(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("src/app/")?;
    let first = rest.split('/').next()?;
    let room = first.strip_suffix(".rs").unwrap_or(first);
    (room != "mod").then_some(room)
}

/// The imports of `text` (a file of `room`) that name an app room after `room` in [`APP_ROOMS`]:
/// `crate::app::ROOM` in code (not comments), as `(line, room)`.
fn imports_running_up(room: &str, text: &str) -> Vec<(usize, String)> {
    let Some(here) = APP_ROOMS.iter().position(|r| *r == room) else {
        return vec![(0, format!("{room} is not in APP_ROOMS"))];
    };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = code(line);
        while let Some(i) = rest.find("crate::app::") {
            rest = &rest[i + "crate::app::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if let Some(there) = APP_ROOMS.iter().position(|r| *r == name)
                && there > here
            {
                out.push((n + 1, name));
            }
        }
    }
    out
}

#[test]
fn no_file_is_over_the_line_limit() {
    let mut files = Vec::new();
    for (dir, exts) in
        [("src", &["rs"][..]), ("shaders", &["wgsl"]), ("kernels", &["cu", "h"]), ("tests", &["rs", "cpp", "h", "py"])]
    {
        for f in files_ending(Path::new(dir), exts) {
            let text = std::fs::read_to_string(root().join(&f)).expect("readable");
            files.push((f, text));
        }
    }
    assert!(files.len() > 200, "the sources were found ({} files)", files.len());
    let long = too_long(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    assert!(long.is_empty(), "files over {MAX_LINES} lines (ARCHITECTURE.md: split by what they do): {long:?}");
    for f in LONG_FILES_ALLOWED {
        assert!(root().join(f).exists(), "{f} is allowed to be long but does not exist");
    }
}

#[test]
fn app_rooms_import_only_rooms_below_them() {
    let mut found = Vec::new();
    let mut rooms = std::collections::BTreeSet::new();
    for file in rust_files(Path::new("src/app")) {
        let Some(room) = app_room(&file) else { continue };
        rooms.insert(room.to_owned());
        let text = std::fs::read_to_string(root().join(&file)).expect("readable");
        found.extend(imports_running_up(room, &text).into_iter().map(|(l, r)| format!("{file}:{l} imports {r}")));
    }
    let listed: std::collections::BTreeSet<String> = APP_ROOMS.iter().map(|r| (*r).to_owned()).collect();
    assert_eq!(rooms, listed, "APP_ROOMS names exactly the rooms of src/app/");
    assert!(found.is_empty(), "imports running back up among the app's rooms ({APP_ROOMS:?}, ground first): {found:?}");
}

#[test]
fn the_size_and_room_checks_catch_one_line_over() {
    let at = "x\n".repeat(MAX_LINES);
    let over = "x\n".repeat(MAX_LINES + 1);
    assert!(too_long([("src/a.rs", at.as_str())]).is_empty());
    assert_eq!(too_long([("src/a.rs", over.as_str())]), ["src/a.rs (651 lines)"]);
    assert!(too_long([("src/sim/colour/palette_tables.rs", over.as_str())]).is_empty());
    assert_eq!(app_room("src/app/worker/mandel.rs"), Some("worker"));
    assert_eq!(app_room("src/app/options.rs"), Some("options"));
    assert_eq!(app_room("src/app/mod.rs"), None);
    let worker = "use crate::app::options::Demo;\nuse crate::app::wave::view::WaveLook;\n// crate::app::shell\n";
    assert_eq!(imports_running_up("worker", worker), [(2, "wave".to_owned())]);
    assert!(imports_running_up("launch", worker).is_empty());
}

#[test]
fn errors_are_typed_outside_clap_value_parsers() {
    let mut found = Vec::new();
    for file in rust_files(Path::new("src")) {
        if file == "src/house_rules.rs" {
            continue;
        }
        let text = std::fs::read_to_string(root().join(&file)).expect("readable");
        for (line, name) in string_errors(&text) {
            let allowed = name.as_deref().is_some_and(|n| STRING_ERRORS_ALLOWED.contains(&(file.as_str(), n)));
            if !allowed {
                found.push(format!("{file}:{line} ({})", name.as_deref().unwrap_or("no name")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} Result<_, String> outside the clap value parsers (ARCHITECTURE.md: errors are typed; give the module a \
         thiserror enum): {found:?}",
        found.len()
    );
}

#[test]
fn sim_reads_no_clock_and_no_file() {
    let mut found = Vec::new();
    for file in rust_files(Path::new("src/sim")) {
        let text = std::fs::read_to_string(root().join(&file)).expect("readable");
        found.extend(clock_or_file_uses(&text).into_iter().map(|(line, w)| format!("{file}:{line} ({w})")));
    }
    assert!(
        found.is_empty(),
        "src/sim/ names a clock or the file system (ARCHITECTURE.md: the caller times and reads files): {found:?}"
    );
}

/// Lines of `text` (from 1) naming std's clock in code.
fn std_clock_uses(text: &str) -> Vec<usize> {
    let words = ["std::time::Instant", "std::time::SystemTime", "std::time::UNIX_EPOCH", "std::time::{"];
    text.lines().enumerate().filter(|(_, l)| words.iter().any(|w| code(l).contains(w))).map(|(n, _)| n + 1).collect()
}

#[test]
fn nothing_names_std_clock() {
    let mut found = Vec::new();
    for dir in ["src", "web/src"] {
        // This file names the words it looks for.
        for file in rust_files(Path::new(dir)).into_iter().filter(|f| f != "src/house_rules.rs") {
            let text = std::fs::read_to_string(root().join(&file)).expect("readable");
            found.extend(std_clock_uses(&text).into_iter().map(|line| format!("{file}:{line}")));
        }
    }
    assert!(found.is_empty(), "std's clock panics in the browser build: use web_time's: {found:?}");
    let sample = "use std::time::Duration;\nuse std::time::{Duration, Instant};\nlet t = std::time::Instant::now();\n\
                  // std::time::Instant\nuse web_time::Instant;\n";
    assert_eq!(std_clock_uses(sample), [2, 3]);
}

#[test]
fn the_checks_catch_what_they_are_for() {
    // A String error, nested generics, a closure, a FromStr: all found, with their names.
    let sample = "pub fn parse(s: &str) -> Result<Vec<(u8, u8)>, String> {\n\
                  let f = |x: &str| -> Result<f64, String> { todo!() };\n\
                  type Err = String;\n\
                  fn ok() -> Result<Option<Result<u8, String>>, ParamsError> {}\n\
                  fn fine() -> Result<(), ViewError> {}\n\
                  // fn commented() -> Result<(), String>\n";
    let hits = string_errors(sample);
    let lines: Vec<usize> = hits.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [1, 2, 3, 4], "{hits:?}");
    assert_eq!(hits[0].1.as_deref(), Some("parse"));
    assert_eq!(hits[1].1.as_deref(), Some("f"));
    // The allow-list names functions that exist (a renamed parser must not leave a stale entry).
    for (file, name) in STRING_ERRORS_ALLOWED {
        let text = std::fs::read_to_string(root().join(file)).expect("readable");
        assert!(
            string_errors(&text).iter().any(|(_, n)| n.as_deref() == Some(*name)),
            "{file}: {name} is allowed a String error but has none"
        );
    }
    let sim = "use web_time::Instant;\nlet t = Instant::now();\nlet s = std::fs::read_to_string(p);\n// Instant\n";
    let uses: Vec<usize> = clock_or_file_uses(sim).iter().map(|(l, _)| *l).collect();
    assert_eq!(uses, [1, 2, 3]);
}
