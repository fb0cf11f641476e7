//! `render wave`: the seed's wave2d, or a scene (`--preset NAME`, `--scene FILE`), run for
//! `tmax` steps and written as PNG, `.npy`, numbered frames or an animated GIF; the intensity
//! on a screen and the intensity picture are averaged over its last periods (`wave_screen`).

use anyhow::{Context, Result};

use super::wave_args::{DEFAULT_TMAX, RenderWave};
use super::wave_screen::{Tail, picture_range};
use super::{CliError, open_backend};
use crate::backend::{self, BackendChoice, BackendKind};
use crate::bench;
use crate::output;
use crate::progress::Progress;
use crate::sim::wave::scene::{Scene, SceneError, preset};
use crate::sim::wave::{DEFAULT_FREQ, WaveParams};

/// The scene `render wave` runs: the preset or file with the flags given beside it applied, or
/// `None` for the seed's problem from the flags alone.
fn wave_scene(a: &RenderWave) -> Result<Option<Scene>, SceneError> {
    let scene = match (&a.preset, &a.scene) {
        (Some(name), _) => preset(name)?,
        (None, Some(path)) => crate::files::load_scene(path)?,
        (None, None) => return Ok(None),
    };
    let mut scene = scene.resized(a.nx.unwrap_or(scene.nx), a.ny.unwrap_or(scene.ny));
    if let Some(freq) = a.freq {
        scene = scene.with_freq(freq);
    }
    let origin = a.preset.as_ref().map_or_else(
        || a.scene.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
        |n| format!("preset {n}"),
    );
    scene
        .validate()
        .map_err(|e| SceneError::File { path: format!("{origin} with the flags given"), message: e.to_string() })?;
    Ok(Some(scene))
}

/// `wavebrot render wave`.
///
/// # Errors
/// A scene or flags that cannot run (usage), or a failed run.
pub fn render_wave(a: &RenderWave) -> Result<(), CliError> {
    let scene = wave_scene(a).map_err(CliError::usage)?;
    if a.every.is_some() && a.frames_dir.is_none() && a.gif.is_none() {
        return Err(CliError::usage("--every needs --frames-dir DIR or --gif FILE"));
    }
    // The screen and the average are checked before the backend opens (a usage error is one line).
    let (grid, steps) = match &scene {
        Some(s) => ((s.nx, s.ny), a.tmax.or(s.tmax).unwrap_or(DEFAULT_TMAX)),
        None => ((a.nx.unwrap_or(1000), a.ny.unwrap_or(800)), a.tmax.unwrap_or(DEFAULT_TMAX)),
    };
    let mut tail = Tail::new(a, scene.as_ref(), a.freq.unwrap_or(DEFAULT_FREQ), grid, steps)?;
    for path in a.png.iter().chain(&a.npy).chain(&a.gif).chain(&a.csv) {
        output::check_writable(path)?;
    }
    let mut b = open_backend(a.backend.backend)?;
    let (mut sim, tmax) = match &scene {
        Some(s) => {
            let sim = match b.new_scene(s) {
                // `auto` falls back to the CPU where the fastest backend has no scene kernel yet.
                Err(backend::BackendError::Unavailable { reason, .. }) if a.backend.backend == BackendChoice::Auto => {
                    eprintln!("note: {} cannot run this scene ({reason}); using the CPU", b.kind());
                    b = backend::open(BackendKind::Cpu)?;
                    b.new_scene(s)?
                }
                other => other?,
            };
            (sim, a.tmax.or(s.tmax).unwrap_or(DEFAULT_TMAX))
        }
        None => {
            let params = WaveParams::new(a.nx.unwrap_or(1000), a.ny.unwrap_or(800), a.freq.unwrap_or(DEFAULT_FREQ));
            (b.new_wave(&params)?, a.tmax.unwrap_or(DEFAULT_TMAX))
        }
    };
    let (nx, ny) = (sim.params().nx, sim.params().ny);
    if let Some(dir) = &a.frames_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let every = a.every.unwrap_or(tmax);
    let progress = Progress::new(u64::from(tmax), "wave");
    let start = web_time::Instant::now();
    let mut run = |gif: &mut dyn FnMut(&[u8]) -> Result<()>| -> Result<()> {
        let mut rgba = Vec::new();
        let mut done = 0;
        let chunk = every.min((tmax / 50).max(1)).max(1);
        while done < tmax {
            // The averaged tail goes one step at a time.
            let n = if done >= tail.from { 1 } else { chunk.min(tail.from - done) };
            let n = n.min(tmax - done).min(every - done % every);
            sim.advance(n)?;
            done += n;
            if done > tail.from {
                tail.sample(sim.as_mut())?;
            }
            progress.set(u64::from(done));
            if (a.frames_dir.is_some() || a.gif.is_some()) && done % every == 0 {
                rgba.resize(nx * ny * 4, 0);
                sim.render_rgba(-0.1, 0.1, &mut rgba)?;
                if let Some(dir) = &a.frames_dir {
                    output::write_png(&dir.join(format!("wave2d_{done:03}.png")), &rgba, nx, ny)?;
                }
                gif(&rgba)?;
            }
        }
        Ok(())
    };
    match &a.gif {
        Some(path) => {
            let frames = output::write_hot_gif(path, nx, ny, 4, |push| run(push))?;
            eprintln!("wrote {frames} frames to {}", path.display());
        }
        None => run(&mut |_| Ok(()))?,
    }
    // The picture needs the field in memory; a .npy alone gets it straight from the backend's
    // chunks (`bench::to_file`).
    let mut f = Vec::new();
    if a.png.is_some() || a.npy.is_none() {
        f = vec![0.0f32; nx * ny];
        sim.read_field(&mut f)?;
    }
    let elapsed = start.elapsed();
    progress.finish();
    let copy = if f.is_empty() { "final copy with the .npy below" } else { "incl. final copy" };
    eprintln!("nx={nx}, ny={ny}, tmax={}: {:.3} s ({}, {copy})", tmax, elapsed.as_secs_f64(), b.kind());
    if let Some(path) = &a.png {
        let intensity = tail.intensity();
        let picture = intensity.as_deref().unwrap_or(f.as_slice());
        let (lo, hi) = picture_range(picture, intensity.is_some(), a.auto_contrast);
        output::write_wave_png(path, picture, nx, ny, lo, hi)?;
    }
    if let Some(path) = &a.csv {
        tail.write_screen(path, scene.as_ref())?;
    }
    if let Some(path) = &a.npy {
        let start = web_time::Instant::now();
        if f.is_empty() {
            bench::to_file::write_field_npy(sim.as_mut(), path)?;
        } else {
            output::write_npy(path, &f, &[nx as u64, ny as u64])?;
        }
        let secs = start.elapsed().as_secs_f64();
        let bytes = (4 * nx * ny) as f64;
        eprintln!("wrote {}: {:.3} s, {:.2} GB/s", path.display(), secs, bytes / secs / 1e9);
    }
    Ok(())
}
