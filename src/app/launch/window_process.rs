//! The window in a child process, so a GPU driver that crashes while the window opens does not
//! take the app with it.
//!
//! No Rust code can catch a driver's segfault, but a parent can outlive it. `wavebrot gui`
//! (the parent) starts the same binary again as the *window process*, marked by
//! [`WINDOW_PROCESS_ENV`], and waits. The window process opens the window on the chosen
//! [`DisplayAdapter`] and prints [`WINDOW_UP_LINE`] on its stdout once the first frame is on
//! screen. If it dies from a crash signal (SIGSEGV, SIGBUS, SIGABRT, …) before that line, the
//! parent says why on stderr and starts it again on a safer adapter: software Vulkan
//! (llvmpipe), then wgpu's GL backend. A crash after the window was up is reported, not
//! retried. Otherwise the parent exits with the window process's status, so
//! `gui --screenshot FILE` works the same through it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

use crate::app::options::GuiArgs;

/// Set on the window process. Its value is `1`, or a line for the app's status bar saying
/// why the display adapter was changed. Set by hand (`=1`), `gui` opens the window in its own
/// process with no guard.
pub const WINDOW_PROCESS_ENV: &str = "WAVEBROT_WINDOW_PROCESS";
/// The display adapter, as `--display-adapter` takes it.
pub const DISPLAY_ADAPTER_ENV: &str = "WAVEBROT_DISPLAY_ADAPTER";
/// Test-only: makes the window process abort (SIGABRT) on purpose — before the window opens when
/// the value lists its display adapter (`auto,software`), or just after the window is up when it
/// is `window-up`.
pub const TEST_CRASH_ENV: &str = "WAVEBROT_TEST_CRASH";
/// What the window process prints on stdout once the first frame is on screen.
pub const WINDOW_UP_LINE: &str = "wavebrot: window up";

pub use crate::app::options::DisplayAdapter;

impl DisplayAdapter {
    /// The next, safer adapter to try after this one crashed: software Vulkan, then GL.
    #[must_use]
    pub fn safer(&self) -> Option<Self> {
        match self {
            Self::Auto | Self::Named(_) => Some(Self::Software),
            Self::Software => Some(Self::Gl),
            Self::Gl => None,
        }
    }

    /// A short description for messages.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Self::Auto => "the default adapter".to_owned(),
            Self::Software => "software Vulkan (llvmpipe)".to_owned(),
            Self::Gl => "wgpu's GL backend".to_owned(),
            Self::Named(n) => format!("the adapter named '{n}'"),
        }
    }

    /// eframe's wgpu setup for this adapter, asking for [`crate::app::device_descriptor`].
    #[must_use]
    pub fn wgpu_setup(&self) -> egui_wgpu::WgpuSetup {
        let mut setup = egui_wgpu::WgpuSetupCreateNew::without_display_handle();
        setup.device_descriptor = Arc::new(crate::app::device_descriptor);
        match self {
            Self::Auto => {}
            Self::Gl => setup.instance_descriptor.backends = wgpu::Backends::GL,
            Self::Software => {
                setup.instance_descriptor.backends = wgpu::Backends::VULKAN;
                setup.native_adapter_selector = Some(Arc::new(|adapters, surface| {
                    pick(adapters, surface, |i| i.device_type == wgpu::DeviceType::Cpu)
                        .ok_or_else(|| format!("no software Vulkan adapter (llvmpipe) among {}", names(adapters)))
                }));
            }
            Self::Named(name) => {
                let wanted = name.to_lowercase();
                setup.native_adapter_selector = Some(Arc::new(move |adapters, surface| {
                    pick(adapters, surface, |i| i.name.to_lowercase().contains(&wanted))
                        .ok_or_else(|| format!("no adapter named like '{wanted}' among {}", names(adapters)))
                }));
            }
        }
        egui_wgpu::WgpuSetup::CreateNew(setup)
    }
}

/// The first adapter that `fits` and can draw on `surface`.
fn pick(
    adapters: &[wgpu::Adapter],
    surface: Option<&wgpu::Surface<'_>>,
    fits: impl Fn(&wgpu::AdapterInfo) -> bool,
) -> Option<wgpu::Adapter> {
    adapters.iter().find(|a| fits(&a.get_info()) && surface.is_none_or(|s| a.is_surface_supported(s))).cloned()
}

fn names(adapters: &[wgpu::Adapter]) -> String {
    if adapters.is_empty() {
        return "none found".to_owned();
    }
    adapters
        .iter()
        .map(|a| {
            let i = a.get_info();
            format!("'{}' ({:?})", i.name, i.backend)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// How the window process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChildEnd {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it.
    Signalled(i32),
}

impl ChildEnd {
    #[must_use]
    pub fn from_status(status: ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(c), _) => Self::Exited(c),
            (None, Some(s)) => Self::Signalled(s),
            (None, None) => Self::Exited(1),
        }
    }

    /// The status to exit with: the window process's own, or 128 + the signal that ended it.
    #[must_use]
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Exited(c) => u8::try_from(c).unwrap_or(1),
            Self::Signalled(s) => u8::try_from(128 + s).unwrap_or(1),
        }
    }
}

/// What the parent does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Exit with this status (the window process's own, or 128 + a stopping signal's number).
    Exit(u8),
    /// Start the window process again on `adapter`; `why` is said on stderr and in the app.
    Retry { adapter: DisplayAdapter, why: String },
    /// Report this one line and exit 1.
    Fail(String),
}

/// Signals that mean a crash (a driver's fault), as opposed to a request to stop.
fn is_crash(signal: i32) -> bool {
    use signal_hook::consts::signal::{SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGSYS, SIGTRAP};
    [SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGSYS, SIGTRAP].contains(&signal)
}

fn signal_name(signal: i32) -> String {
    signal_hook::low_level::signal_name(signal).map_or_else(|| format!("signal {signal}"), str::to_owned)
}

/// Decides what follows the window process's end on `tried`. `window_up`: it had said the window
/// was on screen. `fallback`: `tried` was a fallback, not the user's choice, so a plain failure
/// on it (no such adapter here) also moves on to the next one.
#[must_use]
pub fn next_step(tried: &DisplayAdapter, fallback: bool, end: ChildEnd, window_up: bool) -> Next {
    match end {
        ChildEnd::Exited(code) if code != 0 && fallback && !window_up => match tried.safer() {
            Some(adapter) => Next::Retry {
                why: format!(
                    "the window could not open on {} either (status {code}); trying {}",
                    tried.describe(),
                    adapter.describe()
                ),
                adapter,
            },
            None => Next::Fail(format!(
                "the window could not open on any display adapter tried (the last, {}, ended with status {code}); \
                 pick one with --display-adapter",
                tried.describe()
            )),
        },
        ChildEnd::Exited(code) => Next::Exit(u8::try_from(code).unwrap_or(1)),
        ChildEnd::Signalled(s) if !is_crash(s) => Next::Exit(u8::try_from(128 + s).unwrap_or(1)),
        ChildEnd::Signalled(s) if window_up => Next::Fail(format!(
            "the window process crashed ({}) after the window opened, on {}",
            signal_name(s),
            tried.describe()
        )),
        ChildEnd::Signalled(s) => match tried.safer() {
            Some(adapter) => Next::Retry {
                why: format!(
                    "the window process crashed ({}; a GPU driver's fault, most often) while the window opened \
                     on {}; starting it again on {} (choose with --display-adapter or {DISPLAY_ADAPTER_ENV})",
                    signal_name(s),
                    tried.describe(),
                    adapter.describe()
                ),
                adapter,
            },
            None => Next::Fail(format!(
                "the window process crashed ({}) while the window opened, on every display adapter tried \
                 (the last: {}); pick one with --display-adapter",
                signal_name(s),
                tried.describe()
            )),
        },
    }
}

/// The window process's arguments: `gui` with the same settings and `adapter`.
fn child_args(args: &GuiArgs, adapter: &DisplayAdapter) -> Vec<std::ffi::OsString> {
    use clap::ValueEnum;
    let mut v: Vec<std::ffi::OsString> = vec!["gui".into()];
    if let Some(b) = args.backend.and_then(|b| b.to_possible_value()) {
        v.extend(["--backend".into(), b.get_name().into()]);
    }
    if let Some(d) = args.demo.and_then(|d| d.to_possible_value()) {
        v.extend(["--demo".into(), d.get_name().into()]);
    }
    if let Some(p) = &args.preset {
        v.extend(["--preset".into(), p.into()]);
    }
    if let Some(p) = &args.scene {
        v.extend(["--scene".into(), p.clone().into_os_string()]);
    }
    if let Some(p) = &args.location {
        v.extend(["--location".into(), p.clone().into_os_string()]);
    }
    if let Some(l) = &args.link {
        v.extend(["--link".into(), l.into()]);
    }
    if let Some(p) = &args.screenshot {
        v.extend([
            "--screenshot".into(),
            p.clone().into_os_string(),
            "--frames".into(),
            args.frames.to_string().into(),
        ]);
    }
    v.extend(["--display-adapter".into(), adapter.to_string().into()]);
    v
}

/// Runs one window process on `adapter`; how it ended and whether it said the window was up.
fn run_child(args: &GuiArgs, adapter: &DisplayAdapter, note: Option<&str>) -> anyhow::Result<(ChildEnd, bool)> {
    let exe = std::env::current_exe().context("cannot find wavebrot's own executable to open the window")?;
    let mut child = Command::new(&exe)
        .args(child_args(args, adapter))
        .env(WINDOW_PROCESS_ENV, note.unwrap_or("1"))
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start the window process {}", exe.display()))?;
    let up = Arc::new(AtomicBool::new(false));
    // Forward the window process's stdout, watching for the line that says the window is up.
    let reader = child.stdout.take().map(|out| {
        let up = Arc::clone(&up);
        std::thread::Builder::new().name("wavebrot-window-watch".to_owned()).spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if line == WINDOW_UP_LINE {
                    up.store(true, Ordering::SeqCst);
                } else {
                    let mut o = std::io::stdout().lock();
                    let _ = writeln!(o, "{line}").and_then(|()| o.flush());
                }
            }
        })
    });
    let forwarding = forward_signals(child.id());
    let status = child.wait().context("lost the window process")?;
    if let Some(f) = forwarding {
        f.close();
    }
    if let Some(Ok(h)) = reader {
        let _ = h.join();
    }
    Ok((ChildEnd::from_status(status), up.load(Ordering::SeqCst)))
}

/// Forwards SIGINT and SIGTERM that reach `gui` (the parent) to the window process `pid`, until
/// the returned handle is closed. The window then ends as the signal asks and the parent exits
/// with its status (128 + the signal, as a shell reports it), instead of leaving the window
/// running without its parent. Sent with the system's `kill` command (std has no `kill(2)` and
/// wavebrot keeps `unsafe` to the CUDA backend).
/// Set once a signal was passed on: the window was asked to end, so it is not started again.
static FORWARDED: AtomicBool = AtomicBool::new(false);

fn forward_signals(pid: u32) -> Option<signal_hook::iterator::Handle> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
        Ok(s) => s,
        Err(e) => {
            log::warn!("cannot watch SIGINT/SIGTERM ({e}); they will not reach the window process");
            return None;
        }
    };
    let handle = signals.handle();
    let spawned = std::thread::Builder::new().name("wavebrot-forward".to_owned()).spawn(move || {
        for signal in signals.forever() {
            FORWARDED.store(true, Ordering::SeqCst);
            let name = if signal == SIGINT { "-INT" } else { "-TERM" };
            let sent = Command::new("kill").args([name, &pid.to_string()]).stderr(Stdio::null()).status();
            if !sent.is_ok_and(|s| s.success()) {
                // Most often it had ended already (a terminal's Ctrl+C reaches both processes).
                log::debug!("{} not passed on to the window process {pid}", signal_name(signal));
            }
        }
    });
    match spawned {
        Ok(_) => Some(handle),
        Err(e) => {
            log::warn!("cannot start the signal thread ({e})");
            handle.close();
            None
        }
    }
}

/// `wavebrot gui` as the parent: runs the window process, and again on a safer adapter after a
/// crash while the window opened. The exit status is the window process's.
///
/// # Errors
/// The window process could not be started, or crashed on every adapter, or after the window
/// was up.
pub fn run_guarded(args: &GuiArgs) -> anyhow::Result<ExitCode> {
    let mut adapter = args.display_adapter.clone().unwrap_or_default();
    let mut fallback = false;
    let mut note: Option<String> = None;
    loop {
        let (end, up) = run_child(args, &adapter, note.as_deref())?;
        if FORWARDED.load(Ordering::SeqCst) {
            // Asked to end: the window process's status, never another attempt.
            return Ok(ExitCode::from(end.exit_code()));
        }
        match next_step(&adapter, fallback, end, up) {
            Next::Exit(code) => return Ok(ExitCode::from(code)),
            Next::Fail(why) => anyhow::bail!("{why}"),
            Next::Retry { adapter: next, why } => {
                eprintln!("note: {why}");
                note = Some(why);
                adapter = next;
                fallback = true;
            }
        }
    }
}

/// In the window process: whether [`TEST_CRASH_ENV`] asks for a crash at `moment`
/// (`window-up`, or a display adapter's name).
#[must_use]
pub fn test_crash_requested(moment: &str) -> bool {
    std::env::var(TEST_CRASH_ENV).is_ok_and(|v| v.split(',').any(|m| m.trim().eq_ignore_ascii_case(moment)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEGV: i32 = 11;
    const ABRT: i32 = 6;
    const INT: i32 = 2;

    #[test]
    fn adapters_parse_and_print() {
        assert_eq!("auto".parse::<DisplayAdapter>(), Ok(DisplayAdapter::Auto));
        assert_eq!("Software".parse::<DisplayAdapter>(), Ok(DisplayAdapter::Software));
        assert_eq!("GL".parse::<DisplayAdapter>(), Ok(DisplayAdapter::Gl));
        assert_eq!("NVIDIA H100".parse::<DisplayAdapter>(), Ok(DisplayAdapter::Named("NVIDIA H100".into())));
        assert!("  ".parse::<DisplayAdapter>().is_err());
        for a in [DisplayAdapter::Auto, DisplayAdapter::Software, DisplayAdapter::Gl, DisplayAdapter::Named("x".into())]
        {
            assert_eq!(a.to_string().parse::<DisplayAdapter>(), Ok(a));
        }
    }

    #[test]
    fn a_crash_before_the_window_moves_to_software_then_gl_then_gives_up() {
        let auto = DisplayAdapter::Auto;
        let Next::Retry { adapter, why } = next_step(&auto, false, ChildEnd::Signalled(SEGV), false) else {
            panic!("no retry")
        };
        assert_eq!(adapter, DisplayAdapter::Software);
        assert!(why.contains("SIGSEGV") && why.contains("software Vulkan"), "{why}");
        let named = DisplayAdapter::Named("NVIDIA".into());
        assert!(matches!(
            next_step(&named, false, ChildEnd::Signalled(ABRT), false),
            Next::Retry { adapter: DisplayAdapter::Software, .. }
        ));
        let sw = DisplayAdapter::Software;
        assert!(matches!(
            next_step(&sw, true, ChildEnd::Signalled(SEGV), false),
            Next::Retry { adapter: DisplayAdapter::Gl, .. }
        ));
        // No software adapter here: the fallback fails plainly and the next one is tried.
        assert!(matches!(
            next_step(&sw, true, ChildEnd::Exited(1), false),
            Next::Retry { adapter: DisplayAdapter::Gl, .. }
        ));
        assert!(matches!(next_step(&DisplayAdapter::Gl, true, ChildEnd::Signalled(SEGV), false), Next::Fail(_)));
        assert!(matches!(next_step(&DisplayAdapter::Gl, true, ChildEnd::Exited(1), false), Next::Fail(_)));
    }

    #[test]
    fn statuses_pass_through_and_late_crashes_are_not_retried() {
        let auto = DisplayAdapter::Auto;
        assert_eq!(next_step(&auto, false, ChildEnd::Exited(0), true), Next::Exit(0));
        // The user's own choice failing plainly (no display, bad screenshot path): its status.
        assert_eq!(next_step(&auto, false, ChildEnd::Exited(1), false), Next::Exit(1));
        assert_eq!(next_step(&DisplayAdapter::Software, true, ChildEnd::Exited(0), true), Next::Exit(0));
        // Ctrl-C is not a crash.
        assert_eq!(next_step(&auto, false, ChildEnd::Signalled(INT), false), Next::Exit(130));
        let Next::Fail(why) = next_step(&auto, false, ChildEnd::Signalled(SEGV), true) else { panic!("retried") };
        assert!(why.contains("after the window opened"), "{why}");
    }

    #[test]
    fn the_window_process_gets_the_same_settings() {
        let args = GuiArgs {
            backend: Some(crate::backend::BackendChoice::Cpu),
            demo: Some(crate::app::options::Demo::Mandelbrot),
            screenshot: Some("shot.png".into()),
            frames: 7,
            display_adapter: None,
            preset: Some("lens".into()),
            scene: None,
            location: Some("spot.toml".into()),
            link: Some("#v=1&wave=lens".into()),
        };
        let v: Vec<String> =
            child_args(&args, &DisplayAdapter::Software).into_iter().map(|s| s.into_string().unwrap()).collect();
        assert_eq!(
            v,
            [
                "gui",
                "--backend",
                "cpu",
                "--demo",
                "mandelbrot",
                "--preset",
                "lens",
                "--location",
                "spot.toml",
                "--link",
                "#v=1&wave=lens",
                "--screenshot",
                "shot.png",
                "--frames",
                "7",
                "--display-adapter",
                "software"
            ]
        );
    }
}
