//! Sources of several cells and shaped walls checked against physics: a moving source's Doppler
//! shift ahead and behind (`f·c/(c ∓ v)`), its Mach cone past the wave speed (`sin α = c/v`), a
//! phased array's beam (`sin θ = Δφ·λ/(2π d)`), a dipole's null, and a parabolic mirror's focus.
//! Each test prints and asserts the number it measured; all run on the CPU backend (every twin runs
//! the same forced cells, compared in `wave::` and `scene::`).

use std::f64::consts::{PI, TAU};

use wavebrot::backend::cpu::{CpuBackend, Threads};
use wavebrot::backend::{Backend, WaveSim};
use wavebrot::sim::wave::scene::{Boundary, Scene, Source, Wall};
use wavebrot::sim::wave::sources::{Moving, Multipole, PhasedArray};

/// A scene of `nx x ny` with Mur's edge (its measurements reach the border: no layer inside the
/// grid), c2 0.25 (the wave speed is 1 cell per time step).
fn open(nx: usize, ny: usize, sources: Vec<Source>) -> Scene {
    Scene {
        description: String::new(),
        description_axes: Vec::new(),
        nx,
        ny,
        c2: 0.25,
        damping: 0.0,
        boundary: Boundary::Mur,
        tmax: None,
        sources,
        walls: Vec::new(),
        media: Vec::new(),
    }
}

fn sim(scene: &Scene) -> Box<dyn WaveSim> {
    CpuBackend::new(Threads::All).new_scene(scene).unwrap()
}

fn field(sim: &mut dyn WaveSim) -> Vec<f32> {
    let mut f = vec![0.0; sim.params().cells()];
    sim.read_field(&mut f).unwrap();
    f
}

/// λ = 4π·sqrt(c2)/freq cells.
fn wavelength(c2: f64, freq: f64) -> f64 {
    2.0 * TAU * c2.sqrt() / freq
}

/// The mean of f² over time steps `from+1 ..= to` (the sim starts at step 0).
fn mean_square(sim: &mut dyn WaveSim, from: u32, to: u32) -> Vec<f64> {
    sim.advance(from).unwrap();
    let mut acc = vec![0.0; sim.params().cells()];
    for _ in from..to {
        sim.advance(1).unwrap();
        for (a, v) in acc.iter_mut().zip(field(sim)) {
            *a += f64::from(v) * f64::from(v);
        }
    }
    let n = f64::from(to - from);
    acc.iter_mut().for_each(|a| *a /= n);
    acc
}

/// `v` at the point `(x, y)` of an `nx x ny` field, bilinear.
fn sample(v: &[f64], ny: usize, x: f64, y: f64) -> f64 {
    let (i, j) = (x.floor() as usize, y.floor() as usize);
    let (u, w) = (x - i as f64, y - j as f64);
    let at = |i: usize, j: usize| v[i * ny + j];
    (1.0 - u) * ((1.0 - w) * at(i, j) + w * at(i, j + 1)) + u * ((1.0 - w) * at(i + 1, j) + w * at(i + 1, j + 1))
}

/// The angular frequency (radians per time step) of a signal sampled once per step, from its
/// zero crossings (linearly interpolated): π per crossing between the first and the last. The
/// signal is first averaged over `smooth` steps (a filter that keeps frequencies: it removes the
/// ripple a moving source makes each time it steps to the next cell, every `1/v` steps).
fn crossing_freq(signal: &[f32], smooth: usize) -> f64 {
    let smoothed: Vec<f64> =
        signal.windows(smooth).map(|w| w.iter().map(|&v| f64::from(v)).sum::<f64>() / smooth as f64).collect();
    let mut times = Vec::new();
    for (t, w) in smoothed.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        if a != 0.0 && (a < 0.0) != (b < 0.0) {
            times.push(t as f64 + a / (a - b));
        }
    }
    assert!(times.len() > 10, "only {} zero crossings", times.len());
    PI * (times.len() - 1) as f64 / (times[times.len() - 1] - times[0])
}

/// The angle (radians, from `+x`) in `angles` where the intensity `v` on the circle of `radius`
/// about `centre` is largest (`pick` = 1) or smallest (`pick` = -1), refined by a parabola
/// through the three samples around it; with the extreme and the largest value.
fn extreme_on_arc(v: &[f64], ny: usize, centre: (f64, f64), radius: f64, angles: &[f64], pick: f64) -> (f64, f64, f64) {
    let values: Vec<f64> =
        angles.iter().map(|a| sample(v, ny, centre.0 + radius * a.cos(), centre.1 + radius * a.sin())).collect();
    let (k, _) = values.iter().enumerate().max_by(|a, b| (pick * a.1).total_cmp(&(pick * b.1))).unwrap();
    let k = k.clamp(1, values.len() - 2);
    let (l, m, r) = (values[k - 1], values[k], values[k + 1]);
    let shift = 0.5 * (l - r) / (l - 2.0 * m + r);
    let step = angles[1] - angles[0];
    let top = values.iter().copied().fold(0.0, f64::max);
    (angles[k] + shift.clamp(-1.0, 1.0) * step, m, top)
}

#[test]
fn a_moving_source_is_doppler_shifted_ahead_and_behind() {
    // A source at v = 0.3 cells per step (0.3 c) moving along +x from x = 200 to 500 at y = 200.
    let (freq, v) = (0.2, 0.3);
    let mover = Moving { x0: 200, y0: 200, x1: 500, y1: 200, speed: v, freq, amplitude: 1.0, phase: 0.0 };
    let scene = open(700, 400, vec![Source::Moving(mover)]);
    let mut s = sim(&scene);
    let (ahead, behind) = ((600usize, 200usize), (100usize, 200usize));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..1250 {
        s.advance(1).unwrap();
        let f = field(s.as_mut());
        a.push(f[ahead.0 * scene.ny + ahead.1]);
        b.push(f[behind.0 * scene.ny + behind.1]);
    }
    // Waves emitted in steps 100..900 (the source under way) reach x = 600 in steps 470..1030
    // (t + 600 - 200 - 0.3 t) and x = 100 in steps 230..1270 (t + 100 + 0.3 t).
    // The source steps to the next cell every 1/v = 3.3 steps: averaging over 10 steps (three of
    // those ripples, a quarter of the slowest period, 41 steps) leaves the waves' frequency.
    let (fa, fb) = (crossing_freq(&a[500..1000], 10), crossing_freq(&b[300..1200], 10));
    let (wa, wb) = (freq / (1.0 - v), freq / (1.0 + v));
    let (ea, eb) = (fa / wa - 1.0, fb / wb - 1.0);
    println!(
        "Doppler at v = 0.3 c: ahead {fa:.5} rad/step (f c/(c-v) = {wa:.5}, {:+.3}%), behind {fb:.5} (f c/(c+v) = {wb:.5}, {:+.3}%)",
        100.0 * ea,
        100.0 * eb
    );
    // Measured (CPU): +0.112% ahead, -0.217% behind. Allowed: 0.5% (the measurement + 0.28
    // points: a crossing 1.4 steps off over the 500-step window; the issue asks for 2%).
    assert!(ea.abs() < 0.005, "ahead of the source: {fa:.5} rad/step, {:+.2}% from f c/(c-v) = {wa:.5}", 100.0 * ea);
    assert!(eb.abs() < 0.005, "behind the source: {fb:.5} rad/step, {:+.2}% from f c/(c+v) = {wb:.5}", 100.0 * eb);
}

#[test]
fn a_source_faster_than_the_waves_draws_a_mach_cone() {
    // v = 1.5 cells per step = 1.5 c along y = 250: sin α = c/v = 2/3, α = 41.81°.
    let (v, c, yc) = (1.5, 1.0, 250usize);
    let mover =
        Moving { x0: 100, y0: yc as i64, x1: 690, y1: yc as i64, speed: v, freq: 0.3, amplitude: 1.0, phase: 0.0 };
    let scene = open(700, 500, vec![Source::Moving(mover.clone())]);
    let mut s = sim(&scene);
    let steps = 300;
    s.advance(steps).unwrap();
    let f = field(s.as_mut());
    let xs_now = mover.position(steps).unwrap().0;
    let peak = f.iter().map(|v| v.abs()).fold(0.0, f32::max);
    // The cone's half width at each column: the outermost cell off the axis with |f| above 1e-3 of
    // the peak. Columns from x = 320 (behind it the edge is the circle of the start, tangent to
    // the cone at x = 100 + 300 sin α = 300) to 30 cells behind the source.
    let (mut sx, mut sy, mut sxx, mut sxy, mut n) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for x in 320..(xs_now as usize - 30) {
        let half = (1..yc - 2)
            .rev()
            .find(|&d| f[x * scene.ny + yc + d].abs() > 1e-3 * peak || f[x * scene.ny + yc - d].abs() > 1e-3 * peak)
            .unwrap_or(0) as f64;
        let x = x as f64;
        (sx, sy, sxx, sxy, n) = (sx + x, sy + half, sxx + x * x, sxy + x * half, n + 1.0);
    }
    let slope = -(n * sxy - sx * sy) / (n * sxx - sx * sx);
    let (alpha, want) = (slope.atan(), (c / v).asin());
    let e = alpha / want - 1.0;
    println!(
        "Mach cone at v = 1.5 c: half-angle {:.3}° (asin(c/v) = {:.3}°, {:+.3}%)",
        alpha.to_degrees(),
        want.to_degrees(),
        100.0 * e
    );
    // Measured (CPU): -1.191% (the front's threshold sits a little inside the true cone). Allowed:
    // 2% (the measurement + 0.8 points, one cell of the front over the 170-cell fit; the issue
    // asks for 3%).
    assert!(
        e.abs() < 0.02,
        "Mach cone half-angle {:.3}°, {:+.2}% from asin(c/v) = {:.3}°",
        alpha.to_degrees(),
        100.0 * e,
        want.to_degrees()
    );
}

#[test]
fn a_phased_array_steers_its_beam_to_the_phase_step() {
    // 8 elements 10 cells apart at λ = 31.4: a phase step for 20° towards +y.
    let (freq, spacing) = (0.2, 10);
    let lambda = wavelength(0.25, freq);
    let want = 20f64.to_radians();
    let phase_step = TAU * spacing as f64 * want.sin() / lambda;
    let array = PhasedArray { x: 100, y: 300, count: 8, spacing, phase_step, freq, amplitude: 1.0, phase: 0.0 };
    assert!((array.steering(lambda).unwrap() - want).abs() < 1e-12);
    let scene = open(600, 600, vec![Source::Array(array)]);
    let mut s = sim(&scene);
    // Five periods once the steady state has reached 300 cells, before the far edges' echoes.
    let period = TAU / freq;
    let i = mean_square(s.as_mut(), 430, 430 + (5.0 * period).round() as u32);
    let angles: Vec<f64> = (0..=480).map(|k| (-60.0 + 0.25 * f64::from(k)).to_radians()).collect();
    let (theta, _, _) = extreme_on_arc(&i, scene.ny, (100.0, 297.5), 300.0, &angles, 1.0);
    let e = (theta - want).to_degrees();
    println!(
        "phased array: beam at {:.3}° for a phase step of {phase_step:.4} rad (asin = 20°, {e:+.3}°)",
        theta.to_degrees()
    );
    // Measured (CPU): -0.032°. Allowed: 0.3° (the measurement + the arc's 0.25° step; the issue
    // asks for 2°).
    assert!(e.abs() < 0.3, "the phased array's beam points at {:.3}°, {e:+.3}° from 20°", theta.to_degrees());
}

#[test]
fn a_dipole_is_silent_across_its_axis() {
    // Two poles 6 cells apart along x, in antiphase: intensity ∝ sin²(k d cos φ / 2), zero at ±90°.
    let freq = 0.2;
    let dipole = Multipole { x: 300, y: 300, poles: 2, radius: 3.0, angle: 0.0, freq, amplitude: 1.0, phase: 0.0 };
    let scene = open(600, 600, vec![Source::Multipole(dipole)]);
    let mut s = sim(&scene);
    let i = mean_square(s.as_mut(), 300, 300 + (5.0 * TAU / freq).round() as u32);
    let angles: Vec<f64> = (0..=360).map(|k| (0.5 * f64::from(k)).to_radians()).collect();
    let (null, low, top) = extreme_on_arc(&i, scene.ny, (300.0, 300.0), 150.0, &angles, -1.0);
    let e = null.to_degrees() - 90.0;
    println!(
        "dipole: null at {:.3}° ({e:+.3}° from 90°), {:.2e} of the largest intensity on the circle",
        null.to_degrees(),
        low / top
    );
    // Measured (CPU): +0.000° and exactly 0 (the field is antisymmetric about x = 300 until the
    // edges' echoes, 1.5% in amplitude, come back). Allowed: 0.5° (the circle's step) and 1e-4
    // (those echoes' share of the intensity, 2.3e-4, halved).
    assert!(e.abs() < 0.5, "the dipole's null is at {:.3}°, {e:+.3}° from 90°", null.to_degrees());
    assert!(low / top < 1e-4, "the dipole's null holds {:.2e} of its peak", low / top);
}

/// Walls along the parabola `x = vertex + (y - yc)²/(4 focal)` for `|y - yc| <= half`, each row
/// `thick` cells deep (behind the curve, towards `-x`), so no diagonal leaves a gap.
fn parabola(vertex: i64, yc: i64, focal: f64, half: i64, thick: i64) -> Vec<Wall> {
    (-half..=half)
        .map(|d| {
            let x = vertex + ((d * d) as f64 / (4.0 * focal)).round() as i64;
            Wall { x0: x - thick + 1, y0: yc + d, x1: x, y1: yc + d }
        })
        .collect()
}

#[test]
fn a_parabolic_mirror_focuses_a_plane_wave_at_its_focus() {
    // A plane wave from a line source at x = 400 travels to -x onto a parabola with its vertex at
    // x = 60 and focal length 100: the focus is (160, 180). The reflected field is the difference
    // of the runs with and without the mirror (the scheme is linear).
    let (freq, yc, focal) = (0.4, 180i64, 100.0);
    let line = Source::Line { x0: 400, y0: 1, x1: 400, y1: 358, freq, amplitude: 1.0, phase: 0.0 };
    let bare = open(460, 360, vec![line]);
    let mut mirror = bare.clone();
    mirror.walls = parabola(60, yc, focal, 150, 3);
    let (mut a, mut b) = (sim(&mirror), sim(&bare));
    // Steady at the focus by step 470 (the rim's echo arrives at ~430); the echo of the line
    // source comes back after ~940.
    let (from, to) = (500, 500 + (5.0 * TAU / freq).round() as u32);
    a.advance(from).unwrap();
    b.advance(from).unwrap();
    let mut i = vec![0.0; mirror.cells()];
    for _ in from..to {
        a.advance(1).unwrap();
        b.advance(1).unwrap();
        for ((acc, x), y) in i.iter_mut().zip(field(a.as_mut())).zip(field(b.as_mut())) {
            *acc += f64::from(x - y).powi(2);
        }
    }
    // The reflected intensity's peak in front of the mirror (x 70..390).
    let ny = mirror.ny;
    let (k, _) =
        i.iter().enumerate().filter(|(k, _)| (70..390).contains(&(k / ny))).max_by(|a, b| a.1.total_cmp(b.1)).unwrap();
    let (px, py) = ((k / ny) as f64, (k % ny) as f64);
    let off = (px - (60.0 + focal)).hypot(py - yc as f64);
    println!("parabolic mirror: reflected intensity peaks at ({px}, {py}), {off:.2} cells from the focus (160, 180)");
    // Measured (CPU): (159, 180), 1.00 cell from the focus (the finite aperture's focal shift
    // towards the mirror). Allowed: 2 cells (the target: the measurement + 1 cell).
    assert!(off <= 2.0, "the mirror's focus is at ({px}, {py}), {off:.2} cells from (160, 180)");
}
