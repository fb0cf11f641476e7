//! The `wavebrot` binary: the command line, and the app when run without a subcommand.

fn main() -> std::process::ExitCode {
    quiet_device_select();
    wavebrot::cli::main()
}

/// Keeps the commands that draw on no display quiet where no Wayland session is set up.
///
/// Mesa's Vulkan device-selection layer (`VK_LAYER_MESA_device_select`, loaded implicitly into
/// every Vulkan program) connects to the Wayland compositor to find the display's GPU whenever a
/// program enables `VK_KHR_wayland_surface`, which wgpu always does; without `XDG_RUNTIME_DIR`,
/// libwayland then prints "error: XDG_RUNTIME_DIR is invalid or not set in the environment." for
/// every Vulkan instance (four lines for `wavebrot info`), even on success. `render`, `bench`,
/// `verify`, `info` and the rest compute and never draw, so for them the layer is switched off
/// with its documented switch, `NODEVICE_SELECT=1`; `gui` (and no subcommand: the app) keeps it,
/// as the window does need the display's GPU.
fn quiet_device_select() {
    let runtime_dir_ok = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| d.to_string_lossy().starts_with('/'));
    if runtime_dir_ok || std::env::var_os("NODEVICE_SELECT").is_some() {
        return;
    }
    let command = std::env::args_os().skip(1).find(|a| !a.to_string_lossy().starts_with('-'));
    let draws = command.as_ref().is_none_or(|c| c == "gui");
    if draws {
        return;
    }
    // SAFETY: nothing else runs yet (the first statement of `main`, before any thread is
    // started), so no other thread can read or write the environment meanwhile.
    #[allow(unsafe_code, reason = "set_var is unsafe in edition 2024; main has no other thread yet")]
    unsafe {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}
