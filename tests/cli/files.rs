//! Output files as an administrator sees them: links followed and kept, devices and FIFOs
//! written in place (never replaced), modes from the umask, and no temporary file left
//! after Ctrl-C, SIGTERM or a killed run.

#![allow(clippy::unwrap_used, reason = "test helpers: a failed unwrap is a failed test")]

use crate::common;

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use web_time::{Duration, Instant};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wavebrot"))
}

/// `render wave` of a 16x16 grid on `cpu1`, writing a PNG to `png`.
fn small_wave(png: &Path) -> std::process::Output {
    Command::new(bin())
        .args(["render", "wave", "--nx", "16", "--ny", "16", "--tmax", "2", "--backend", "cpu1", "--png"])
        .arg(png)
        .output()
        .unwrap()
}

fn is_png(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x89PNG\r\n\x1a\n")
}

fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(".wavebrot-"))
        .collect()
}

#[test]
fn a_symlink_is_followed_its_target_written_and_the_link_kept() {
    let dir = tempfile::tempdir().unwrap();
    let shared = tempfile::tempdir().unwrap();
    let real = shared.path().join("real.png");
    std::fs::write(&real, b"old").unwrap();
    let link = dir.path().join("link.png");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = small_wave(&link);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_link(&link).unwrap(), real);
    assert!(is_png(&std::fs::read(&real).unwrap()), "the target was not written");
    assert!(temporaries(dir.path()).is_empty() && temporaries(shared.path()).is_empty());

    // A link to a file still to be made: the file is made where the link points.
    let relative = dir.path().join("rel.png");
    std::os::unix::fs::symlink("sub/made.png", &relative).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let out = small_wave(&relative);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::symlink_metadata(&relative).unwrap().file_type().is_symlink());
    assert!(is_png(&std::fs::read(dir.path().join("sub/made.png")).unwrap()));
}

#[test]
fn stdout_is_written_in_place() {
    let out = small_wave(Path::new("/dev/stdout"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(is_png(&out.stdout), "stdout holds no PNG");
}

#[test]
fn a_fifo_is_written_through_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.png");
    match Command::new("mkfifo").arg(&fifo).status() {
        Ok(s) if s.success() => {}
        other => {
            common::skip(common::Need::Fifo, &format!("cannot make a FIFO with mkfifo ({other:?})"));
            return;
        }
    }
    let reader_path = fifo.clone();
    let reader = std::thread::Builder::new()
        .name("fifo-reader".to_owned())
        .spawn(move || std::fs::read(reader_path).unwrap())
        .unwrap();
    let out = small_wave(&fifo);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = reader.join().unwrap();
    assert!(is_png(&bytes), "the reader got no PNG ({} bytes)", bytes.len());
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn dev_full_fails_with_the_os_error_and_stays_a_device() {
    let full = Path::new("/dev/full");
    if !std::fs::metadata(full).is_ok_and(|m| m.file_type().is_char_device()) {
        common::skip(common::Need::DevFull, "no /dev/full character device here");
        return;
    }
    // Any user may write /dev/full; only root could replace the node, which is what went wrong.
    let out = small_wave(full);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    let last = err.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("error: cannot write /dev/full") && last.contains("No space left on device"), "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("error")).count(), 1, "{err}");
    let m = std::fs::symlink_metadata(full).unwrap();
    assert!(m.file_type().is_char_device(), "/dev/full is no longer a device");
    let names: Vec<String> = temporaries(Path::new("/dev"));
    assert!(names.is_empty(), "temporary files in /dev: {names:?}");
}

/// Runs `render wave` under `sh -c 'umask U; exec wavebrot …'`; the PNG's permission bits.
fn mode_under_umask(umask: &str, png: &Path) -> u32 {
    let cmd = format!("umask {umask}; exec \"$0\" render wave --nx 16 --ny 16 --tmax 2 --backend cpu1 --png \"$1\"");
    let out = Command::new("sh").arg("-c").arg(cmd).arg(bin()).arg(png).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::metadata(png).unwrap().permissions().mode() & 0o7777
}

#[test]
fn new_files_get_the_umask_mode_and_replaced_files_keep_theirs() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(mode_under_umask("022", &dir.path().join("a.png")), 0o644);
    assert_eq!(mode_under_umask("077", &dir.path().join("b.png")), 0o600);
    assert_eq!(mode_under_umask("002", &dir.path().join("c.png")), 0o664);
    let kept = dir.path().join("kept.png");
    std::fs::write(&kept, b"old").unwrap();
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
    assert_eq!(mode_under_umask("022", &kept), 0o640);
    assert!(is_png(&std::fs::read(&kept).unwrap()));
}

/// Starts a write that cannot end by itself and sends `signal` once it is under way; returns
/// the exit status and what is left in the folder.
///
/// The handshake, with no race to lose: `render wave --gif` writes its frames as they are
/// computed into a temporary file, and `--tmax` is u32::MAX steps (years at any speed), so the
/// temporary file holding bytes says the write is under way and the run cannot end before the
/// signal comes. A run that ends or stays silent for a minute is a failure, never a skip.
fn interrupt_a_write(signal: &str) -> (Option<i32>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin())
        .args(["render", "wave", "--nx", "64", "--ny", "64", "--every", "1", "--backend", "cpu1"])
        .args(["--tmax", &u32::MAX.to_string(), "--gif"])
        .arg(dir.path().join("never.gif"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let writing = std::fs::read_dir(dir.path()).unwrap().flatten().any(|e| {
            e.file_name().to_string_lossy().starts_with(".wavebrot-") && e.metadata().is_ok_and(|m| m.len() > 0)
        });
        if writing {
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            panic!("the endless write ended by itself ({status:?}): {err}");
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("no bytes in a temporary file after 60 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let sent = Command::new("kill").arg(format!("-{signal}")).arg(child.id().to_string()).status().unwrap();
    assert!(sent.success(), "kill -{signal} failed");
    // A handler that never ends the process fails the test in 30 s rather than hanging CI.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("the run was still going 30 s after SIG{signal}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (
        status.code(),
        std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
    )
}

#[test]
fn sigint_during_a_write_exits_130_and_leaves_no_temporary_file() {
    let (code, left) = interrupt_a_write("INT");
    assert_eq!(code, Some(130));
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn sigterm_during_a_write_exits_143_and_leaves_no_temporary_file() {
    let (code, left) = interrupt_a_write("TERM");
    assert_eq!(code, Some(143));
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn the_next_run_removes_temporary_files_of_killed_runs_only() {
    let dir = tempfile::tempdir().unwrap();
    // What a SIGKILLed run leaves: its PID (above the kernel's maximum, so never running) in the name.
    let stale = dir.path().join(".wavebrot-99999999-Ab12Cd.tmp");
    std::fs::write(&stale, b"half a file").unwrap();
    // One of a live process (this test) is kept.
    let live = dir.path().join(format!(".wavebrot-{}-Ab12Cd.tmp", std::process::id()));
    std::fs::write(&live, b"being written").unwrap();
    let out = small_wave(&dir.path().join("w.png"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!stale.exists(), "the stale temporary file is still there");
    assert!(live.exists(), "a live process's temporary file was removed");
}
