//! Bad input, tried harder (proptest): scene files and location files made by mutating the
//! shipped ones, and command-line values drawn from numbers that break parsers, each either runs
//! or is refused with one line that names the entry, key or value: never a panic, a hang or an
//! out-of-memory abort.
//!
//! In process (the parsers themselves): many cases. Through the binary (what a user sees: exit
//! status and stderr): fewer, each with a time limit, since every case is a process.

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use web_time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::select;
use wavebrot::sim::fractal::deep::Location;
use wavebrot::sim::wave::scene::{PRESETS, Scene};

/// Values that break parsers: signs, zero, overflow of every integer width, non-finite and
/// huge floats, wrong types, empty and odd strings.
const ODD_VALUES: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "3",
    "0.5",
    "-0.25",
    "1e308",
    "-1e308",
    "1e-320",
    "nan",
    "inf",
    "-inf",
    "99999999999",
    "18446744073709551616",
    "4294967296",
    "2147483648",
    "100000",
    "\"x\"",
    "\"\"",
    "\"1e99999\"",
    "\"-0.75\"",
    "true",
    "[]",
    "{}",
    "[1, 2]",
    "\"sticky\"",
    "\"absorbing\"",
    "\"circle\"",
    "\"line\"",
];

/// One change to a TOML text: a value replaced, a line dropped, a line doubled, a key renamed, a
/// table header doubled or a line cut short.
#[derive(Clone, Debug)]
enum Mutation {
    Value(usize, &'static str),
    Drop(usize),
    Double(usize),
    Rename(usize, &'static str),
    Cut(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), select(ODD_VALUES)).prop_map(|(l, v)| Mutation::Value(l, v)),
        1 => any::<usize>().prop_map(Mutation::Drop),
        1 => any::<usize>().prop_map(Mutation::Double),
        1 => (any::<usize>(), select(&["nx", "kind", "x", "freq", "c2", "shape", "colour", "re", "zoom", "iters", "r"][..]))
            .prop_map(|(l, k)| Mutation::Rename(l, k)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(l, at)| Mutation::Cut(l, at)),
    ]
}

/// `text` with `mutations` applied (line numbers taken modulo the line count).
fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for m in mutations {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match *m {
            Mutation::Value(l, v) => {
                let line = &mut lines[l % n];
                if let Some((key, _)) = line.split_once('=') {
                    *line = format!("{key}= {v}");
                }
            }
            Mutation::Drop(l) => {
                lines.remove(l % n);
            }
            Mutation::Double(l) => {
                let line = lines[l % n].clone();
                lines.insert(l % n, line);
            }
            Mutation::Rename(l, k) => {
                let line = &mut lines[l % n];
                if let Some((_, value)) = line.split_once('=') {
                    *line = format!("{k} ={value}");
                }
            }
            Mutation::Cut(l, at) => {
                let line = &mut lines[l % n];
                let cut = if line.is_empty() { 0 } else { at % line.len() };
                if line.is_char_boundary(cut) {
                    line.truncate(cut);
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

/// Whether the one-line message `msg` names something of `text`: a line number, an entry
/// (`source 1`), or a key or value that appears in the text.
fn names_the_entry(msg: &str, text: &str) -> bool {
    if msg.contains("line ") || ["source ", "wall ", "medium "].iter().any(|e| msg.contains(e)) {
        return true;
    }
    let words = msg.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '-'));
    if words.filter(|w| w.len() >= 2).any(|w| text.contains(w)) {
        return true;
    }
    // A quoted value ('x', "x", `x`) that is a value of the text, however short.
    msg.split(['\'', '"', '`'])
        .skip(1)
        .any(|v| !v.is_empty() && (text.contains(&format!("\"{v}\"")) || text.contains(&format!("= {v}"))))
}

fn location_texts() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/locations");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    v.sort();
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Mutated presets: parsed and checked, or refused with one line naming the entry or key.
    #[test]
    fn mutated_scene_files_parse_or_say_which_entry(
        preset in 0..PRESETS.len(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let text = mutate(PRESETS[preset].toml, &mutations);
        match Scene::from_toml(&text) {
            Ok(s) => prop_assert!(s.validate().is_ok()),
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.contains('\n') && !msg.is_empty(), "not one line: {msg:?}");
                prop_assert!(names_the_entry(&msg, &text), "{msg:?} names nothing of\n{text}");
            }
        }
    }

    /// Mutated shipped locations: parsed and checked, or refused with one line.
    #[test]
    fn mutated_location_files_parse_or_say_why(
        file in 0..5usize,
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let texts = location_texts();
        let text = mutate(&texts[file % texts.len()], &mutations);
        match Location::from_toml(&text) {
            Ok(loc) => prop_assert!(loc.view().validate().is_ok()),
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.contains('\n') && !msg.is_empty(), "not one line: {msg:?}");
                prop_assert!(names_the_entry(&msg, &text), "{msg:?} names nothing of\n{text}");
            }
        }
    }
}

/// Runs the binary with `args`, killing it after `limit`: (exit code, stderr). A run past the
/// limit, a signal or a panic fails the test.
fn run(args: &[String], limit: Duration) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wavebrot"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("wavebrot {args:?} still running after {limit:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let err = reader.join().unwrap();
    let code = status.code().unwrap_or_else(|| panic!("wavebrot {args:?} killed by a signal ({status:?}): {err}"));
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "wavebrot {args:?} panicked: {err}");
    (code, err)
}

/// The run's verdict: 0 (it ran), or 1/2 with one `error:` line, which for 2 names what was bad.
fn check_refusal(args: &[String], code: i32, err: &str, named: &[&str]) -> Result<(), TestCaseError> {
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    match code {
        0 => prop_assert!(errors.is_empty(), "{args:?}: ran but said {err}"),
        1 | 2 => {
            prop_assert_eq!(errors.len(), 1, "{:?}: exit {} with {} error lines: {}", args, code, errors.len(), err);
            if code == 2 {
                let line = errors[0];
                prop_assert!(named.iter().any(|n| line.contains(n)), "{args:?}: {line:?} names none of {named:?}");
            }
        }
        other => prop_assert!(false, "{args:?}: exit {other}: {err}"),
    }
    Ok(())
}

fn write_temp(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// `render wave --scene` of a mutated preset: runs (two steps), or exits 1/2 with one line;
    /// a usage error names the entry, key or line.
    #[test]
    fn render_wave_with_a_mutated_scene_runs_or_exits_with_one_line(
        preset in 0..PRESETS.len(),
        mutations in prop::collection::vec(mutation(), 1..3),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let text = mutate(PRESETS[preset].toml, &mutations);
        let file = write_temp(dir.path(), "s.toml", &text);
        let args: Vec<String> = ["render", "wave", "--tmax", "2", "--backend", "cpu", "--scene"]
            .iter().map(|s| (*s).to_owned()).chain([file.display().to_string()]).collect();
        let (code, err) = run(&args, Duration::from_secs(60));
        let words: Vec<&str> = text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| w.len() >= 2).collect();
        let mut named = vec!["line ", "source ", "wall ", "medium "];
        named.extend(words);
        check_refusal(&args, code, &err, &named)?;
    }

    /// `render mandelbrot --location` of a mutated location (16x8 pixels, 200 iterations).
    #[test]
    fn render_mandelbrot_with_a_mutated_location_runs_or_exits_with_one_line(
        file in 0..5usize,
        mutations in prop::collection::vec(mutation(), 1..3),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let texts = location_texts();
        let text = mutate(&texts[file % texts.len()], &mutations);
        let path = write_temp(dir.path(), "l.toml", &text);
        let args: Vec<String> =
            ["render", "mandelbrot", "--width", "16", "--height", "8", "--iters", "200", "--backend", "cpu", "--location"]
                .iter().map(|s| (*s).to_owned()).chain([path.display().to_string()]).collect();
        let (code, err) = run(&args, Duration::from_secs(60));
        let words: Vec<&str> = text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| w.len() >= 2).collect();
        let mut named = vec!["line ", "location file"];
        named.extend(words);
        check_refusal(&args, code, &err, &named)?;
    }

    /// Command-line values drawn from the odd values, one flag at a time, on small problems.
    #[test]
    fn odd_command_line_values_run_or_exit_2_naming_the_value(
        which in 0..11usize,
        value in select(ODD_VALUES),
    ) {
        let value = value.trim_matches('"');
        let wave = |flag: &str| -> Vec<String> {
            let mut a = vec!["render", "wave", "--nx", "24", "--ny", "16", "--tmax", "3", "--backend", "cpu"];
            if let Some(i) = a.iter().position(|x| *x == flag) { a.remove(i); a.remove(i); }
            // `--flag=value`: a value such as -inf given apart reads as short flags (clap says
            // "unexpected argument '-i'"), which is clap's rule, not a bad value.
            a.iter().map(|s| (*s).to_owned()).chain([format!("{flag}={value}")]).collect()
        };
        let mandel = |flag: &str, v: String| -> Vec<String> {
            let mut a = vec!["render", "mandelbrot", "--width", "16", "--height", "8", "--iters", "50", "--backend", "cpu"];
            if let Some(i) = a.iter().position(|x| *x == flag) { a.remove(i); a.remove(i); }
            a.iter().map(|s| (*s).to_owned()).chain([format!("{flag}={v}")]).collect()
        };
        let args = match which {
            0 => wave("--nx"),
            1 => wave("--ny"),
            // Long runs are not hangs: a valid tmax is capped at 1000 steps of 24x16.
            2 => if value.parse::<u64>().is_ok_and(|t| t > 1000) { wave("--every") } else { wave("--tmax") },
            3 => wave("--freq"),
            4 => mandel("--width", value.to_owned()),
            5 => mandel("--height", value.to_owned()),
            6 => if value.parse::<u64>().is_ok_and(|t| t > 100_000) { mandel("--width", value.to_owned()) } else { mandel("--iters", value.to_owned()) },
            7 => mandel("--bounds", format!("-2,{value},-1,1")),
            8 => mandel("--center", format!("{value},0.1")),
            9 => { let mut a = mandel("--center", "-0.75,0.1".to_owned()); a.push(format!("--zoom={value}")); a }
            _ => mandel("--precision", value.to_owned()),
        };
        let (code, err) = run(&args, Duration::from_secs(60));
        check_refusal(&args, code, &err, &[value, "--"])?;
    }
}
