//! The functions behind `window.wavebrot` (the page's `index.html` puts them there once the
//! module is loaded): each computes exactly as the command line would — the same view rule,
//! automatic precision and perturbation for the Mandelbrot set, the same scene and steps for the
//! waves — so a page, an embedding or a test gets the CLI's `--npy` arrays.
//!
//! The arguments are a link's, untrusted: sizes, iterations, steps and centre digits are held to
//! the limits below and anything outside them is refused in one line, never a hung tab.

use wasm_bindgen::prelude::{JsError, wasm_bindgen};

use wavebrot::backend::tiles::{self, Picture, Strips};
use wavebrot::backend::{self, Backend, BackendKind};
use wavebrot::sim::fractal::deep::{DeepJob, View};
use wavebrot::sim::fractal::julia::JuliaParams;
use wavebrot::sim::fractal::mandelbrot::{Bounds, MandelbrotParams, Precision};
use wavebrot::sim::wave::scene::{self, Scene};

/// The most pixels a picture of the API may have (4096 x 4096).
pub const MAX_PIXELS: usize = 1 << 24;
/// The most iterations a Mandelbrot picture of the API may run.
pub const MAX_ITERS: u32 = 10_000_000;
/// The most digits a centre coordinate may have (a 1e10000 view needs about 10 000).
pub const MAX_CENTRE_DIGITS: usize = 20_000;
/// The most cells a wave grid of the API may have, and the most steps it may run.
pub const MAX_CELLS: usize = 1 << 22;
pub const MAX_STEPS: u32 = 1_000_000;

fn refuse(what: impl std::fmt::Display) -> JsError {
    JsError::new(&what.to_string())
}

/// The backend the API computes on, opened as natively (`kind`: "cpu", "cpu1"; "auto" is the CPU
/// in the browser build until WebGPU computing is wired up: `backend()` says why).
fn open_backend(kind: &str) -> Result<Box<dyn Backend>, JsError> {
    let kind = match kind {
        "" | "auto" | "cpu" => BackendKind::Cpu,
        "cpu1" => BackendKind::Cpu1,
        "wgpu" => BackendKind::Wgpu,
        other => return Err(refuse(format!("no backend called {other:?}: cpu, cpu1, wgpu or auto"))),
    };
    backend::open(kind).map_err(refuse)
}

/// The backend and device the API computes on and why the others cannot, as JSON:
/// `{"backend": "cpu", "device": "...", "notes": ["wgpu: ..."]}`.
#[wasm_bindgen]
#[must_use]
pub fn backend() -> String {
    let (b, notes) = match backend::open_choice(backend::BackendChoice::Auto) {
        Ok((b, notes)) => (Some(b), notes),
        Err(e) => (None, vec![e.to_string()]),
    };
    let (kind, device) =
        b.map_or_else(|| ("none".to_owned(), String::new()), |b| (b.kind().to_string(), b.device_info().name));
    serde_json::json!({ "backend": kind, "device": device, "notes": notes }).to_string()
}

/// Asks the app to open a share link on its next frame (a page address, or its part from
/// `#v=1&` on).
///
/// # Errors
/// The link cannot be read (one line); the app keeps what it shows.
#[wasm_bindgen(js_name = open)]
pub fn open_link(link: &str) -> Result<(), JsError> {
    wavebrot::app::shell::links::web::open(link).map_err(refuse)
}

/// The share link of what the app shows (its fragment, as the page's address has it; empty
/// before the first frame).
#[wasm_bindgen]
#[must_use]
pub fn link() -> String {
    wavebrot::app::shell::links::web::shown()
}

/// A picture's size and iterations held to the limits.
fn checked_picture(width: u32, height: u32, iters: u32) -> Result<(usize, usize), JsError> {
    let (w, h) = (width as usize, height as usize);
    if w == 0 || h == 0 || w.saturating_mul(h) > MAX_PIXELS {
        return Err(refuse(format!("a picture of {w} x {h} pixels: 1 to {MAX_PIXELS} pixels are allowed")));
    }
    if iters == 0 || iters > MAX_ITERS {
        return Err(refuse(format!("{iters} iterations: 1 to {MAX_ITERS} are allowed")));
    }
    Ok((w, h))
}

/// Escape counts as the `Uint32Array` JS gets (they are never negative).
fn as_u32(counts: Vec<i32>) -> Result<Vec<u32>, JsError> {
    counts
        .into_iter()
        .map(|c| u32::try_from(c).map_err(|_| refuse(format!("a negative escape count ({c}) came back"))))
        .collect()
}

/// The escape counts of the Mandelbrot set at centre `re + i im`, zoom `zoom` (decimal strings,
/// any number of digits; the view spans 4 / zoom vertically), `iters` iterations, a `width x
/// height` picture: row 0 at the smallest imaginary part, as `render mandelbrot --npy` writes
/// them. Direct `f32`/`f64` where it resolves the pixels, perturbation beyond, as the CLI picks.
///
/// # Errors
/// A centre or zoom that does not parse, a size, iterations or digits past the limits, or a
/// failed computation: one line.
#[wasm_bindgen(js_name = renderMandelbrot)]
pub fn render_mandelbrot(
    re: &str,
    im: &str,
    zoom: &str,
    iters: u32,
    width: u32,
    height: u32,
    backend: &str,
) -> Result<Vec<u32>, JsError> {
    let (w, h) = checked_picture(width, height, iters)?;
    if re.len().max(im.len()) > MAX_CENTRE_DIGITS || zoom.len() > 64 {
        return Err(refuse(format!("a centre of over {MAX_CENTRE_DIGITS} digits (or a zoom of over 64 characters)")));
    }
    let view = View::parse(&format!("{re},{im}"), zoom).map_err(refuse)?;
    let arith = view.auto_arith(w, h, iters);
    view.check_arith(arith, w, h, iters).map_err(refuse)?;
    let mut b = open_backend(backend)?;
    let mut counts = vec![0i32; w * h];
    // The command line's strips: a strip's bounds are rounded from the picture's (an ulp of f64
    // where they are not exact), so the same cut gives the same counts.
    let strips = Strips::for_picture(b.kind(), w);
    let mut go_on = |_: usize, _: usize| true;
    match arith.direct() {
        Some(precision) => {
            let bounds = view.bounds_f64(w, h).map_err(refuse)?;
            let params = MandelbrotParams { width: w, height: h, iters, bounds, precision };
            params.validate().map_err(refuse)?;
            tiles::render_tiled_de(b.as_mut(), Picture::Direct(&params), strips, &mut counts, None, None, &mut go_on)
                .map_err(refuse)?;
        }
        None => {
            let job = DeepJob::prepare(&view, w, h, iters).map_err(refuse)?;
            tiles::render_tiled_de(b.as_mut(), Picture::Deep(&job), strips, &mut counts, None, None, &mut go_on)
                .map_err(refuse)?;
        }
    }
    as_u32(counts)
}

/// The escape counts of the Julia set of `c = c_re + i c_im` as `render julia --npy` writes
/// them: `iters` iterations in `f64`, a `width x height` picture of the view centred on
/// `re + i im` spanning `2 / zoom` vertically, or, when `zoom` is 0, the CLI's default view
/// (`[-1.8, 1.8] x [-1.2, 1.2]`); row 0 at the smallest imaginary part.
///
/// # Errors
/// A size or iterations past the limits, a view that cannot be drawn: one line.
#[wasm_bindgen(js_name = renderJulia)]
#[expect(clippy::too_many_arguments, reason = "the JS call's fields, one by one")]
pub fn render_julia(
    c_re: f64,
    c_im: f64,
    re: f64,
    im: f64,
    zoom: f64,
    iters: u32,
    width: u32,
    height: u32,
    backend: &str,
) -> Result<Vec<u32>, JsError> {
    let (w, h) = checked_picture(width, height, iters)?;
    let bounds = if zoom == 0.0 {
        Bounds { minx: -1.8, maxx: 1.8, miny: -1.2, maxy: 1.2 }
    } else {
        let (half_w, half_h) = (w as f64 / h as f64 / zoom, 1.0 / zoom);
        Bounds { minx: re - half_w, maxx: re + half_w, miny: im - half_h, maxy: im + half_h }
    };
    let params = JuliaParams { width: w, height: h, iters, bounds, precision: Precision::F64, c: [c_re, c_im] };
    params.validate().map_err(refuse)?;
    let mut counts = vec![0i32; w * h];
    open_backend(backend)?.julia(&params, &mut counts, None).map_err(refuse)?;
    as_u32(counts)
}

/// The wave field after `tmax` steps (0: the scene's own, else the CLI's default) of the preset
/// `preset` or, when `scene_toml` is not empty, of that scene file's text, resized to `nx x ny`
/// (0: the scene's own): `nx * ny` values, as `render wave --npy` writes them (shape `(nx, ny)`).
///
/// # Errors
/// An unknown preset, a scene that does not parse or validate, a grid or steps past the limits,
/// or a failed run: one line.
#[wasm_bindgen(js_name = renderWave)]
pub fn render_wave(
    preset: &str,
    scene_toml: &str,
    nx: u32,
    ny: u32,
    tmax: u32,
    backend: &str,
) -> Result<Vec<f32>, JsError> {
    let scene = if scene_toml.is_empty() {
        scene::preset(preset).map_err(refuse)?
    } else {
        Scene::from_toml(scene_toml).map_err(refuse)?
    };
    let (nx, ny) = (if nx == 0 { scene.nx } else { nx as usize }, if ny == 0 { scene.ny } else { ny as usize });
    if nx.saturating_mul(ny) > MAX_CELLS {
        return Err(refuse(format!("a grid of {nx} x {ny} cells: at most {MAX_CELLS} are allowed")));
    }
    let scene = scene.resized(nx, ny);
    scene.validate().map_err(refuse)?;
    let tmax = if tmax == 0 { scene.tmax.unwrap_or(wavebrot::sim::wave::DEFAULT_TMAX) } else { tmax };
    if tmax > MAX_STEPS {
        return Err(refuse(format!("{tmax} steps: at most {MAX_STEPS} are allowed")));
    }
    let b = open_backend(backend)?;
    let mut sim = b.new_scene(&scene).map_err(refuse)?;
    sim.advance(tmax).map_err(refuse)?;
    let (nx, ny) = (sim.params().nx, sim.params().ny);
    let mut field = vec![0.0f32; nx * ny];
    sim.read_field(&mut field).map_err(refuse)?;
    Ok(field)
}
