//! `wavebrot gui` survives a window process that crashes while the window opens: it starts it
//! again on a safer display adapter and says why; a crash after the window is up is reported,
//! not retried. Crashes are made on purpose with the documented test-only `WAVEBROT_TEST_CRASH`.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wavebrot"))
}

/// `wavebrot gui ARGS` with `WAVEBROT_TEST_CRASH=crash` and the given display (none: no window
/// can open).
fn gui(crash: &str, display: Option<&str>, args: &[&str]) -> (Output, String) {
    let mut c = Command::new(bin());
    c.arg("gui").args(args).env("WAVEBROT_TEST_CRASH", crash).env("RUST_BACKTRACE", "0");
    for v in ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "WAVEBROT_DISPLAY_ADAPTER", "WAVEBROT_WINDOW_PROCESS"] {
        c.env_remove(v);
    }
    if let Some(d) = display {
        c.env("DISPLAY", d);
    }
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, err)
}

#[test]
fn a_crash_on_every_adapter_tries_software_then_gl_then_fails_with_one_error() {
    let (out, err) = gui("auto,software,gl", None, &[]);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note: the window process crashed (SIGABRT")).collect();
    assert_eq!(notes.len(), 2, "{err}");
    assert!(notes[0].contains("starting it again on software Vulkan"), "{err}");
    assert!(notes[1].contains("starting it again on wgpu's GL backend"), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains("on every display adapter tried"), "{err}");
}

#[test]
fn after_a_crash_a_fallback_that_cannot_open_moves_on_to_the_next() {
    // No display: the software and GL attempts fail plainly (status 1) after the crash on auto.
    let (out, err) = gui("auto", None, &[]);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("note: the window process crashed (SIGABRT"), "{err}");
    assert!(err.contains("could not open on software Vulkan (llvmpipe) either"), "{err}");
    assert!(err.lines().last().unwrap_or_default().contains("could not open on any display adapter tried"), "{err}");
}

#[test]
fn without_a_crash_the_window_process_status_is_the_exit_status() {
    // No display, no crash: the window process's own one-line error and status, no retry.
    let (out, err) = gui("", None, &[]);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot open the window") && !err.contains("note:"), "{err}");
    // A bad value is still a usage error, in the parent, before any window process.
    let (out, err) = gui("", None, &["--display-adapter", ""]);
    assert_eq!(out.status.code(), Some(2), "{err}");
}

/// An X display for the test: `$DISPLAY`, or a private Xvfb when installed; `None` says why not.
struct Display {
    name: String,
    xvfb: Option<Child>,
}

impl Drop for Display {
    fn drop(&mut self) {
        if let Some(x) = &mut self.xvfb {
            // SIGTERM, so Xvfb removes its lock file and socket (SIGKILL would leave them).
            let term = Command::new("kill").arg(x.id().to_string()).status().is_ok_and(|s| s.success());
            if !term {
                let _ = x.kill();
            }
            let _ = x.wait();
        }
    }
}

fn display() -> Result<Display, String> {
    if let Ok(d) = std::env::var("DISPLAY") {
        return Ok(Display { name: d, xvfb: None });
    }
    let n =
        (150..200).find(|n| !PathBuf::from(format!("/tmp/.X{n}-lock")).exists()).ok_or("no free X display number")?;
    let name = format!(":{n}");
    let child = Command::new("Xvfb")
        .args([&name, "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("no DISPLAY and no Xvfb ({e})"))?;
    let d = Display { name, xvfb: Some(child) };
    for _ in 0..100 {
        if PathBuf::from(format!("/tmp/.X11-unix/X{n}")).exists() {
            return Ok(d);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err("Xvfb did not start".to_owned())
}

#[test]
fn on_a_display_a_crash_before_the_window_is_survived_and_one_after_is_not_retried() {
    let d = match display() {
        Ok(d) => d,
        Err(why) => {
            common::skip(common::Need::Display, &why);
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("shot.png");
    let shot_arg = shot.to_str().unwrap();
    let (out, err) = gui("auto", Some(&d.name), &["--screenshot", shot_arg, "--frames", "3"]);
    if err.contains("no software Vulkan adapter") {
        common::skip(common::Need::Wgpu, &format!("no software Vulkan adapter here (mesa-vulkan-drivers): {err}"));
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("starting it again on software Vulkan"), "{err}");
    assert!(std::fs::read(&shot).unwrap().starts_with(b"\x89PNG"), "no screenshot");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("window up"), "the marker line leaked to stdout");

    let late = dir.path().join("late.png");
    let (out, err) = gui("window-up", Some(&d.name), &["--screenshot", late.to_str().unwrap(), "--frames", "3"]);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("crashing after the window opened").count(), 1, "retried: {err}");
    assert!(err.lines().any(|l| l.starts_with("error:") && l.contains("after the window opened")), "{err}");
    assert!(!err.contains("note: the window process crashed"), "{err}");
}

#[test]
fn commands_that_draw_nothing_are_quiet_without_xdg_runtime_dir() {
    // Mesa's device-selection layer would ask Wayland for the display's GPU and libwayland would
    // print "error: XDG_RUNTIME_DIR is invalid…" once per Vulkan instance.
    for args in [&["info"][..], &["render", "mandelbrot", "--width", "32", "--height", "32"][..]] {
        let out = Command::new(bin())
            .args(args)
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("NODEVICE_SELECT")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(!err.contains("XDG_RUNTIME_DIR"), "{args:?} printed: {err}");
    }
}

/// The children of process `pid` (Linux: `/proc/PID/task/PID/children`).
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|c| c.parse().ok())
        .collect()
}

#[test]
fn sigterm_to_gui_ends_the_window_process_and_the_parent_exits_with_its_status() {
    let d = match display() {
        Ok(d) => d,
        Err(why) => {
            common::skip(common::Need::Display, &why);
            return;
        }
    };
    let home = tempfile::tempdir().unwrap();
    let mut c = Command::new(bin());
    c.arg("gui").env("DISPLAY", &d.name).env("HOME", home.path()).env_remove("XDG_DATA_HOME");
    for v in [
        "WAYLAND_DISPLAY",
        "WAYLAND_SOCKET",
        "WAVEBROT_DISPLAY_ADAPTER",
        "WAVEBROT_WINDOW_PROCESS",
        "WAVEBROT_TEST_CRASH",
    ] {
        c.env_remove(v);
    }
    let mut parent = c.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = parent.id();
    let mut window = None;
    for _ in 0..200 {
        if let Some(&w) = children(pid).first() {
            window = Some(w);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let Some(window) = window else {
        let _ = parent.kill();
        panic!("no window process started");
    };
    // Let the window open (a few seconds on software rendering): the app's simulation thread
    // starts once the window is there. Then ask the parent to stop.
    let sim_started = || {
        std::fs::read_dir(format!("/proc/{window}/task"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|t| std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "wavebrot-sim"))
    };
    let mut opened = false;
    for _ in 0..1200 {
        if sim_started() {
            opened = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if !opened {
        let _ = Command::new("kill").args(["-KILL", &window.to_string()]).status();
        let _ = parent.kill();
        panic!("the window process {window} started no app within 60 s");
    }
    assert!(Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap().success());
    let mut status = None;
    for _ in 0..400 {
        if let Some(s) = parent.try_wait().unwrap() {
            status = Some(s);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let Some(status) = status else {
        let _ = Command::new("kill").args(["-KILL", &window.to_string()]).status();
        let _ = parent.kill();
        panic!("the parent did not end within 20 s of SIGTERM");
    };
    let mut err = String::new();
    std::io::Read::read_to_string(parent.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(143), "the window process's status, 128 + SIGTERM: {err}");
    assert!(!PathBuf::from(format!("/proc/{window}")).exists(), "the window process {window} is still running");
}
