//! NVRTC to the device's machine code: a CUBIN for a real architecture (`sm_90`), so the driver
//! loads it without assembling PTX (cudarc's safe `compile_ptx` returns PTX only). The kernel
//! cache (`kernel_cache.rs`) keeps what this returns.

#![expect(unsafe_code, reason = "NVRTC's program calls are unsafe in cudarc; each says why it is sound")]

use std::ffi::{CStr, CString};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaModule};
use cudarc::nvrtc::{result, sys};

use super::OpenError;
use super::kernel_cache::{self, Key};

/// One `kernels/*.cu` program and how it is compiled.
pub struct Program {
    pub name: &'static str,
    pub src: &'static str,
    /// Fused multiply-add allowed (off where the rounding must be the CPU's).
    pub fmad: bool,
    /// `-D` options.
    pub defines: Vec<String>,
}

/// Compiles (or finds in the kernel cache) and loads `programs` for `arch`
/// (`--gpu-architecture=sm_XY`); `versions` names the driver and NVRTC for the cache's key.
///
/// The programs are independent and NVRTC is thread-safe: compiled at once, on a named thread
/// each (the slowest alone instead of their sum), their results taken in order, so the error
/// reported is the first program's. Cached code the driver refuses (a driver update the key
/// missed) is dropped and compiled again.
pub(super) fn load_programs<const N: usize>(
    ctx: &Arc<CudaContext>,
    arch: &str,
    programs: [Program; N],
    versions: &str,
) -> Result<[Arc<CudaModule>; N], OpenError> {
    let cache = kernel_cache::folder();
    let build = |p: &Program| {
        let mut options = vec![arch.to_owned(), format!("--fmad={}", p.fmad)];
        options.extend(p.defines.iter().cloned());
        let key = Key::new(p.name, p.src, &[&options.join(" "), versions]);
        let code = kernel_cache::get_or_build(cache.as_deref(), &key, || {
            compile_cubin(p.name, p.src, &options)
                .map_err(|e| OpenError::Compile(format!("{} ({arch}):\n{}", p.name, e.0)))
        })?;
        Ok::<_, OpenError>((key, code))
    };
    let built = std::thread::scope(|scope| {
        let running = programs.each_ref().map(|p| {
            std::thread::Builder::new()
                .name(format!("wavebrot-nvrtc-{}", p.name))
                .spawn_scoped(scope, || build(p))
                .map_err(|e| OpenError::Compile(format!("a thread for NVRTC: {e}")))
        });
        running.map(|t| t.map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e))))
    });
    let mut modules = Vec::with_capacity(N);
    for (p, compiled) in programs.iter().zip(built) {
        let (key, code) = compiled??;
        let module = match (ctx.load_module(cudarc::nvrtc::Ptx::from_binary(code)), cache.as_deref()) {
            (Ok(m), _) => m,
            (Err(_), Some(folder)) => {
                kernel_cache::forget(folder, &key);
                let (_, code) = build(p)?;
                ctx.load_module(cudarc::nvrtc::Ptx::from_binary(code))
                    .map_err(|e| OpenError::Compile(format!("loading {} on the device: {e}", p.name)))?
            }
            (Err(e), None) => return Err(OpenError::Compile(format!("loading {} on the device: {e}", p.name))),
        };
        modules.push(module);
    }
    modules.try_into().map_err(|_| OpenError::Compile("a program was not loaded".into()))
}

/// Why a program did not compile: NVRTC's log (or the call that failed).
#[derive(Debug)]
pub struct Failed(pub String);

/// Compiles `src` (named `name` in the log) with NVRTC's `options` (one of them a real
/// `--gpu-architecture=sm_XY`) and returns the CUBIN.
pub fn compile_cubin(name: &str, src: &str, options: &[String]) -> Result<Vec<u8>, Failed> {
    let c_src = CString::new(src).map_err(|_| Failed(format!("{name} holds a NUL byte")))?;
    let c_name = CString::new(name).map_err(|_| Failed(format!("{name}: a NUL byte in the name")))?;
    let prog =
        result::create_program(&c_src, Some(&c_name)).map_err(|e| Failed(format!("creating the program: {e:?}")))?;
    // SAFETY: `prog` was made by create_program above, with `c_src` and `c_name` alive for as long
    // as it is; it is destroyed once, at the end, and used by no other thread.
    let out = unsafe { compile_and_take(prog, options) };
    // SAFETY: as above; nothing uses `prog` after this.
    let _ = unsafe { result::destroy_program(prog) };
    out
}

/// # Safety
/// `prog` is a live program from `create_program`.
unsafe fn compile_and_take(prog: sys::nvrtcProgram, options: &[String]) -> Result<Vec<u8>, Failed> {
    // SAFETY: the caller's.
    if let Err(e) = unsafe { result::compile_program(prog, options) } {
        // SAFETY: the caller's; the log is NUL-terminated.
        let log = unsafe { result::get_program_log(prog) }
            .map(|l| unsafe { CStr::from_ptr(l.as_ptr()) }.to_string_lossy().trim_end().to_owned())
            .unwrap_or_default();
        return Err(Failed(if log.is_empty() { format!("{e:?}") } else { log }));
    }
    let mut size = 0usize;
    // SAFETY: the caller's; writes one usize.
    unsafe { sys::nvrtcGetCUBINSize(prog, &raw mut size) }
        .result()
        .map_err(|e| Failed(format!("CUBIN size: {e:?}")))?;
    if size == 0 {
        return Err(Failed("NVRTC made no CUBIN (the architecture is not a real sm_XY)".into()));
    }
    let mut cubin = vec![0u8; size];
    // SAFETY: the caller's; `cubin` holds the `size` bytes NVRTC writes.
    unsafe { sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr().cast()) }
        .result()
        .map_err(|e| Failed(format!("CUBIN: {e:?}")))?;
    Ok(cubin)
}
