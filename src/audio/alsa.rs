//! ALSA playback through `libasound.so.2` opened at run time (`libloading`), the way SDL, PortAudio
//! (`PA_ALSA_DYNAMIC`), cubeb and tinyaudio's run-time ALSA do it: the binary neither links nor
//! needs the library until sound is switched on.
//!
//! Seven functions of ALSA's simple PCM API are used: `snd_pcm_open`, `snd_pcm_set_params` (the
//! `plug` layer converts the format and rate, so any card plays), `snd_pcm_writei` (blocks until
//! the device has room: it paces the thread), `snd_pcm_recover` (an underrun is heard, not
//! fatal), `snd_pcm_drop`, `snd_pcm_close` and `snd_strerror`. A named thread writes a period at
//! a time from the [`Source`].

#![expect(
    unsafe_code,
    reason = "calling into a C library opened at run time is unsafe; each call says why it is sound"
)]

use std::ffi::{CStr, CString, c_char, c_int, c_long, c_uint, c_ulong, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{SoundError, Source};

/// The library's name as the runtime package installs it (`libasound2` on Debian; not the
/// `-dev` package's `libasound.so`).
const LIBRARY: &str = "libasound.so.2";
const SND_PCM_STREAM_PLAYBACK: c_int = 0;
const SND_PCM_FORMAT_S16_LE: c_int = 2;
const SND_PCM_ACCESS_RW_INTERLEAVED: c_int = 3;
const CHANNELS: usize = 2;
const SAMPLE_RATE: u32 = 48_000;
/// The device's buffer: short enough to follow the simulation, long enough not to underrun.
const LATENCY_MICROS: c_uint = 60_000;
/// Frames written per call.
const PERIOD_FRAMES: usize = 480;

type Pcm = *mut c_void;

/// alsa-lib's `snd_lib_error_handler_t` is variadic (`…, const char *fmt, ...)`); this one reads
/// only the five fixed arguments, which on Linux's C ABIs (x86-64 SysV, AAPCS64) are passed alike
/// to a variadic and a fixed-argument function, so ALSA may call it through its pointer.
type ErrorHandler = unsafe extern "C" fn(*const c_char, c_int, *const c_char, c_int, *const c_char);

/// Says nothing: the error's code comes back from the call that failed.
unsafe extern "C" fn quiet(
    _file: *const c_char,
    _line: c_int,
    _function: *const c_char,
    _err: c_int,
    _fmt: *const c_char,
) {
}

/// The entry points, resolved once per stream (the library stays open as long as they do).
struct Api {
    open: unsafe extern "C" fn(*mut Pcm, *const c_char, c_int, c_int) -> c_int,
    set_params: unsafe extern "C" fn(Pcm, c_int, c_int, c_uint, c_uint, c_int, c_uint) -> c_int,
    writei: unsafe extern "C" fn(Pcm, *const c_void, c_ulong) -> c_long,
    recover: unsafe extern "C" fn(Pcm, c_int, c_int) -> c_int,
    drop: unsafe extern "C" fn(Pcm) -> c_int,
    close: unsafe extern "C" fn(Pcm) -> c_int,
    strerror: unsafe extern "C" fn(c_int) -> *const c_char,
    /// `snd_lib_error_set_handler`: alsa-lib prints its own errors to stderr (eight lines when
    /// there is no sound card); they are said once, in the lab's note, from the return codes.
    set_error_handler: Option<unsafe extern "C" fn(Option<ErrorHandler>) -> c_int>,
    /// Kept last: dropped after the pointers above are no longer used.
    _lib: libloading::Library,
}

impl Api {
    fn load() -> Result<Self, SoundError> {
        let missing =
            |e: libloading::Error| SoundError::NoLibrary(format!("{LIBRARY} not found ({e}); install libasound2"));
        // SAFETY: loading libasound runs its initialisers, which only set up ALSA's own state.
        let lib = unsafe { libloading::Library::new(LIBRARY) }.map_err(missing)?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the signature is ALSA's own, from <alsa/pcm.h> and <alsa/error.h>;
                // the pointer is used only while `_lib` keeps the library loaded.
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|e| SoundError::NoLibrary(format!("{LIBRARY} lacks {} ({e})", $name)))?
            };
        }
        Ok(Self {
            open: sym!("snd_pcm_open"),
            set_params: sym!("snd_pcm_set_params"),
            writei: sym!("snd_pcm_writei"),
            recover: sym!("snd_pcm_recover"),
            drop: sym!("snd_pcm_drop"),
            close: sym!("snd_pcm_close"),
            strerror: sym!("snd_strerror"),
            // SAFETY: as `sym!`; optional, so an alsa-lib without it still plays.
            set_error_handler: unsafe { lib.get(b"snd_lib_error_set_handler\0") }.ok().map(|f| *f),
            _lib: lib,
        })
    }

    fn error(&self, code: c_int) -> String {
        // SAFETY: snd_strerror returns a pointer to a static, NUL-terminated string.
        let text = unsafe { (self.strerror)(code) };
        if text.is_null() {
            return format!("ALSA error {code}");
        }
        // SAFETY: non-null and NUL-terminated, as above.
        unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
    }
}

/// An open PCM with its library.
struct Device {
    api: Api,
    pcm: Pcm,
}

// SAFETY: an ALSA PCM handle may be used from any one thread at a time; the handle moves to
// the playback thread and is used there only.
unsafe impl Send for Device {}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: `pcm` was opened by `snd_pcm_open` and is closed once, here.
        unsafe {
            (self.api.drop)(self.pcm);
            (self.api.close)(self.pcm);
        }
    }
}

/// A stream being written by its thread.
pub struct Playback {
    stop: Arc<AtomicBool>,
    frames: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Playback {
    /// Opens `name` (`"default"`, `"null"`, `"hw:0"`, …) and starts writing `source` to it.
    pub fn open(name: &str, mut source: Source) -> Result<(Self, String, u32), SoundError> {
        let api = Api::load()?;
        if let Some(set) = api.set_error_handler {
            // SAFETY: `quiet` does nothing and lives as long as the program (see `ErrorHandler`).
            unsafe { set(Some(quiet)) };
        }
        let label = format!("ALSA {name}");
        let c_name = CString::new(name)
            .map_err(|_| SoundError::Open { device: label.clone(), error: "a NUL in the name".into() })?;
        let mut pcm: Pcm = std::ptr::null_mut();
        // SAFETY: `pcm` is a valid out-pointer, `c_name` a NUL-terminated string.
        let rc = unsafe { (api.open)(&raw mut pcm, c_name.as_ptr(), SND_PCM_STREAM_PLAYBACK, 0) };
        if rc < 0 || pcm.is_null() {
            let error = api.error(rc);
            return Err(if name == "default" {
                SoundError::NoDevice
            } else {
                SoundError::Open { device: label, error }
            });
        }
        let device = Device { api, pcm };
        #[expect(clippy::cast_possible_truncation, reason = "2 channels")]
        // SAFETY: `pcm` is open; the values are valid enumerators of the simple API.
        let rc = unsafe {
            (device.api.set_params)(
                device.pcm,
                SND_PCM_FORMAT_S16_LE,
                SND_PCM_ACCESS_RW_INTERLEAVED,
                CHANNELS as c_uint,
                SAMPLE_RATE,
                1,
                LATENCY_MICROS,
            )
        };
        if rc < 0 {
            return Err(SoundError::Open { device: label, error: device.api.error(rc) });
        }
        let stop = Arc::new(AtomicBool::new(false));
        let frames = Arc::new(AtomicU64::new(0));
        let (stop_t, frames_t) = (Arc::clone(&stop), Arc::clone(&frames));
        let thread = std::thread::Builder::new()
            .name("wavebrot-sound".into())
            .spawn(move || {
                // The whole device moves here (not only its pointer field): it closes when the thread ends.
                let device = device;
                let mut mono = vec![0.0f32; PERIOD_FRAMES];
                let mut pcm16 = vec![0i16; PERIOD_FRAMES * CHANNELS];
                let start = web_time::Instant::now();
                while !stop_t.load(Ordering::Relaxed) {
                    // A device that does not block (alsa-lib's `null`, some plugins) is held to
                    // the sample rate, a buffer ahead, so the thread never spins.
                    let ahead_secs = frames_t.load(Ordering::Relaxed) as f64 / f64::from(SAMPLE_RATE)
                        - start.elapsed().as_secs_f64()
                        - f64::from(LATENCY_MICROS) * 1e-6;
                    if ahead_secs > 0.0 {
                        std::thread::sleep(std::time::Duration::from_secs_f64(ahead_secs));
                    }
                    source(&mut mono);
                    for (frame, &v) in pcm16.chunks_mut(CHANNELS).zip(&mono) {
                        #[expect(clippy::cast_possible_truncation, reason = "clamped to i16's range first")]
                        frame.fill((v.clamp(-1.0, 1.0) * f32::from(i16::MAX)) as i16);
                    }
                    let mut done = 0;
                    while done < PERIOD_FRAMES && !stop_t.load(Ordering::Relaxed) {
                        let rest = &pcm16[done * CHANNELS..];
                        // SAFETY: `rest` holds `(PERIOD_FRAMES - done) * CHANNELS` interleaved
                        // S16 samples, as set by snd_pcm_set_params.
                        let n = unsafe {
                            (device.api.writei)(device.pcm, rest.as_ptr().cast(), (PERIOD_FRAMES - done) as c_ulong)
                        };
                        if n >= 0 {
                            done += usize::try_from(n).unwrap_or(0);
                            frames_t.fetch_add(n.unsigned_abs(), Ordering::Relaxed);
                        } else {
                            let code = c_int::try_from(n).unwrap_or(c_int::MIN);
                            // SAFETY: `pcm` is open; silent recovery from an underrun or suspend.
                            if unsafe { (device.api.recover)(device.pcm, code, 1) } < 0 {
                                // The device is gone: the lab hears nothing more, the simulation runs on.
                                return;
                            }
                        }
                    }
                }
            })
            .map_err(|e| SoundError::Stream { device: label.clone(), error: e.to_string() })?;
        Ok((Self { stop, frames, thread: Some(thread) }, label, SAMPLE_RATE))
    }

    pub fn frames_played(&self) -> u64 {
        self.frames.load(Ordering::Relaxed)
    }
}

impl Drop for Playback {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            // A writei blocks for at most a period (10 ms) before the flag is seen.
            let _ = t.join();
        }
    }
}

/// `wavebrot info`'s line: whether the library loads, without opening a device.
pub fn describe() -> String {
    match Api::load() {
        Ok(_) => format!("ALSA through {LIBRARY} (loaded at run time, default device)"),
        Err(e) => e.to_string(),
    }
}
