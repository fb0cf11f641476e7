//! Scenes checked against wave optics: a double slit's maxima and a grating's orders against
//! `d·sinθ = m·λ`, a wall without a gap stopping the wave, Snell's law at a slab of slower medium,
//! and the theory overlay the app draws on the presets pointing at their simulated maxima. Each
//! check prints and asserts the number it measured.

#![allow(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::f64::consts::TAU;

use crate::scene::{cpu_scene, fields, open_scene};

use wavebrot::backend::WaveSim;
use wavebrot::sim::wave::scene::{Boundary, Medium, Source, Wall, preset};
use wavebrot::sim::wave::scene_cells::{SceneCells, energy_in};

/// λ = 4π·sqrt(c2)/freq cells (two updates and one source write per step).
fn wavelength(c2: f64, freq: f64) -> f64 {
    2.0 * TAU * c2.sqrt() / freq
}

/// A plane wave (a line source at x = 20 across the whole height, in a reflecting box) onto a wall
/// at x = 330..=333 with `slits` gaps of `width` cells, `spacing` apart, centred on `ny/2`; returns
/// the time-averaged intensity (mean of f² over three periods) on the line x = 333 + `screen` once
/// the steady state has reached `reach` cells off the axis, before any echo of the box's far side
/// or of the source line can arrive. (The source line holds its cells, so it reflects the wall's
/// echo: with absorbing edges the plane wave also grazes the top and bottom edges, where a
/// first-order Mur edge distorts it; a reflecting box keeps it plane.)
fn slit_intensity(
    ny: usize,
    slits: usize,
    spacing: usize,
    width: usize,
    freq: f64,
    screen: usize,
    reach: f64,
) -> Vec<f64> {
    let (wall, far): (i64, usize) = (330, 220);
    let nx = wall as usize + 3 + screen + far;
    let mut s = open_scene(nx, ny);
    s.boundary = Boundary::Reflecting;
    s.sources.push(Source::Line { x0: 20, y0: 1, x1: 20, y1: ny as i64 - 2, freq, amplitude: 1.0, phase: 0.0 });
    let centre = ny as i64 / 2;
    let first = centre - (spacing * (slits - 1)) as i64 / 2;
    let mut y = 0;
    for k in 0..slits {
        let lo = first + (k * spacing) as i64 - width as i64 / 2;
        s.walls.push(Wall { x0: wall, y0: y, x1: wall + 3, y1: lo - 1 });
        y = lo + width as i64;
    }
    s.walls.push(Wall { x0: wall, y0: y, x1: wall + 3, y1: ny as i64 - 1 });
    s.validate().unwrap();
    let mut sim = cpu_scene(&s);
    let period_steps = (3.0 * TAU / freq).round() as u32;
    // The wave reaches the farthest maximum, then three periods for the switch-on to pass.
    let direct = (wall - 20) as u32;
    let settle = direct + (screen as f64).hypot(reach) as u32 + period_steps;
    // Echoes: of the far side, 2*far steps after the direct wave; of the wall off the source line,
    // 2*(wall - 20) after it (both plane waves at normal incidence, harmless, but kept out).
    let end = settle + period_steps;
    assert!(end < direct + screen as u32 + 2 * far as u32 && end < 3 * direct, "an echo would arrive in the window");
    sim.advance(settle).unwrap();
    let x = wall as usize + 3 + screen;
    let mut intensity = vec![0.0; ny];
    let mut f = vec![0.0; s.cells()];
    for _ in 0..period_steps {
        sim.advance(1).unwrap();
        sim.read_field(&mut f).unwrap();
        for (j, i) in intensity.iter_mut().enumerate() {
            *i += f64::from(f[x * ny + j]).powi(2) / f64::from(period_steps);
        }
    }
    intensity
}

/// The local maxima of `v` above `floor * max`, each refined by a parabola through its neighbours.
fn maxima(v: &[f64], floor: f64) -> Vec<f64> {
    let top = v.iter().copied().fold(0.0, f64::max);
    (1..v.len() - 1)
        .filter(|&j| v[j] > v[j - 1] && v[j] >= v[j + 1] && v[j] > floor * top)
        .map(|j| {
            let (a, b, c) = (v[j - 1], v[j], v[j + 1]);
            j as f64 + 0.5 * (a - c) / (a - 2.0 * b + c)
        })
        .collect()
}

/// Orders `-m..=m` of the maxima around `centre`: the one nearest it is order 0, then outwards
/// (or, with `strongest`, order ±1 is the strongest maximum on each side: a grating's subsidiary
/// maxima and the edges of its central beam lie between). Returns (order, sinθ measured from the
/// slits' plane `distance` cells away, relative error against m·λ/d).
#[expect(clippy::too_many_arguments, reason = "the pattern, the geometry and the theory")]
fn orders(
    intensity: &[f64],
    peaks: &[f64],
    centre: f64,
    distance: f64,
    m: usize,
    strongest: bool,
    lambda: f64,
    d: f64,
) -> Vec<(i64, f64, f64)> {
    let zero = peaks
        .iter()
        .enumerate()
        .min_by(|a, b| (a.1 - centre).abs().total_cmp(&(b.1 - centre).abs()))
        .map(|(k, _)| k)
        .unwrap();
    let height = |y: f64| intensity[y.round() as usize];
    let mut out = Vec::new();
    for order in 1..=m as i64 {
        for sign in [-1i64, 1] {
            let y = if strongest {
                let side = peaks.iter().copied().filter(|&y| (y - peaks[zero]) * sign as f64 > 1.0);
                side.max_by(|a, b| height(*a).total_cmp(&height(*b)))
            } else {
                usize::try_from(zero as i64 + sign * order).ok().and_then(|k| peaks.get(k)).copied()
            };
            let y = y.unwrap_or_else(|| panic!("order {} not found in {peaks:?}", sign * order));
            let off = y - centre;
            let sin = off.abs() / off.hypot(distance);
            let want = order as f64 * lambda / d;
            out.push((sign * order, sin, (sin - want) / want));
        }
    }
    out
}

/// A quarter of a cell of peak position on the slit tests' screen, as a relative error of sinθ
/// at order 1 (sinθ 0.31 at 301.5 cells: d(sinθ)/dy = cos³θ/301.5): the margin each slit
/// tolerance adds to what was measured.
const QUARTER_CELL: f64 = 0.0025;

#[test]
fn double_slit_maxima_obey_d_sin_theta_eq_m_lambda() {
    let (ny, d, freq, screen) = (900, 100, 0.2, 300);
    let lambda = wavelength(0.25, freq);
    let intensity = slit_intensity(ny, 2, d, 7, freq, screen, 250.0);
    let peaks = maxima(&intensity, 0.2);
    // The slits. plane: the middle of the wall.
    for (m, sin, err) in orders(&intensity, &peaks, (ny / 2) as f64, screen as f64 + 1.5, 2, false, lambda, d as f64) {
        println!(
            "double slit: order {m:+}: sinθ {sin:.4}, d·sinθ/λ {:.4}, error {:+.2}%",
            sin * d as f64 / lambda,
            100.0 * err
        );
        // Measured (CPU, deterministic): order ±1 -0.63% / -0.74%, order ±2 -2.21% / -2.23% (the
        // scheme's dispersion shortens λ, so every error is negative). Allowed: the larger of
        // each order + a quarter cell.
        let allowed = if m.abs() == 1 { 0.0074 } else { 0.0223 } + QUARTER_CELL;
        assert!(
            err.abs() < allowed,
            "double slit order {m}: sinθ {sin:.4} is {:+.2}% from m·λ/d, allowed {:.2}% (peaks {peaks:.1?})",
            100.0 * err,
            100.0 * allowed
        );
    }
}

#[test]
fn grating_orders_obey_d_sin_theta_eq_m_lambda() {
    let (ny, d, freq, screen) = (900, 30, 0.4, 300);
    let lambda = wavelength(0.25, freq);
    let intensity = slit_intensity(ny, 5, d, 3, freq, screen, 190.0);
    let peaks = maxima(&intensity, 0.1);
    for (m, sin, err) in orders(&intensity, &peaks, (ny / 2) as f64, screen as f64 + 1.5, 1, true, lambda, d as f64) {
        println!(
            "grating: order {m:+}: sinθ {sin:.4}, d·sinθ/λ {:.4}, error {:+.2}%",
            sin * d as f64 / lambda,
            100.0 * err
        );
        // Measured (CPU, deterministic): -0.43% at both orders ±1. Allowed: + a quarter cell.
        let allowed = 0.0043 + QUARTER_CELL;
        assert!(
            err.abs() < allowed,
            "grating order {m}: sinθ {sin:.4} is {:+.2}% from m·λ/d, allowed {:.2}% (peaks {peaks:.1?})",
            100.0 * err,
            100.0 * allowed
        );
    }
}

#[test]
fn a_wall_without_a_gap_stops_the_wave() {
    let mut s = open_scene(200, 120);
    s.sources.push(Source::point(60, 60, 0.3));
    s.walls.push(Wall { x0: 100, y0: 0, x1: 101, y1: 119 });
    let mut sim = cpu_scene(&s);
    sim.advance(400).unwrap();
    let (f, g) = fields(sim.as_mut());
    let cells = SceneCells::new(&s);
    let front = energy_in(&cells, &f, &g, 0..100, 0..120);
    let behind = energy_in(&cells, &f, &g, 102..200, 0..120);
    println!("wall: energy behind {behind:.3e}, in front {front:.3e}");
    assert!(
        front > 0.0 && behind.abs() < 1e-3 * front,
        "energy behind the wall is {:.3e} of the energy in front",
        behind / front
    );
}

/// The wave vector (kx, ky) of the steady field at `freq` in the cells `xs`, `ys`: the phase
/// gradient of the lock-in amplitude A = Σ f·e^{-i·freq·t} over three periods.
fn wave_vector(sim: &mut dyn WaveSim, freq: f64, xs: std::ops::Range<usize>, ys: std::ops::Range<usize>) -> (f64, f64) {
    let ny = sim.params().ny;
    let (w, h) = (xs.len(), ys.len());
    let mut re = vec![0.0; w * h];
    let mut im = vec![0.0; w * h];
    let mut f = vec![0.0; sim.params().cells()];
    let steps = (3.0 * TAU / freq).round() as u32;
    for _ in 0..steps {
        sim.advance(1).unwrap();
        sim.read_field(&mut f).unwrap();
        let phase = freq * f64::from(sim.tstep());
        for (a, x) in xs.clone().enumerate() {
            for (b, y) in ys.clone().enumerate() {
                let v = f64::from(f[x * ny + y]);
                re[a * h + b] += v * phase.cos();
                im[a * h + b] -= v * phase.sin();
            }
        }
    }
    // arg Σ A(next)·conj(A): the phase step per cell along x and along y.
    let step = |da: usize, db: usize| {
        let (mut sr, mut si) = (0.0, 0.0);
        for a in 0..w - da {
            for b in 0..h - db {
                let (p, q) = (a * h + b, (a + da) * h + b + db);
                sr += re[q] * re[p] + im[q] * im[p];
                si += im[q] * re[p] - re[q] * im[p];
            }
        }
        si.atan2(sr)
    };
    (step(1, 0).abs(), step(0, 1).abs())
}

#[test]
fn refraction_obeys_snell() {
    // A plane wave at 45° (a diagonal line source) onto a slab of c2 0.1 filling x >= 300.
    let (c1, c2, freq) = (0.25, 0.1, 0.2);
    let mut s = open_scene(600, 600);
    s.sources.push(Source::Line { x0: 40, y0: 330, x1: 280, y1: 90, freq, amplitude: 1.0, phase: 0.0 });
    let region = (340..420, 340..440);
    let mut control = cpu_scene(&s);
    control.advance(420).unwrap();
    let (k1x, k1y) = wave_vector(control.as_mut(), freq, region.0.clone(), region.1.clone());
    s.media.push(Medium::Rect { x0: 300, y0: 0, x1: 599, y1: 599, c2 });
    let mut slab = cpu_scene(&s);
    slab.advance(420).unwrap();
    let (k2x, k2y) = wave_vector(slab.as_mut(), freq, region.0, region.1);
    let (sin1, sin2) = (k1y / k1x.hypot(k1y), k2y / k2x.hypot(k2y));
    let (want, got) = ((c1 / c2).sqrt(), sin1 / sin2);
    let err = (got - want) / want;
    println!(
        "refraction: θ1 {:.2}°, θ2 {:.2}°, sinθ1/sinθ2 {got:.4} (sqrt(c2_1/c2_2) = {want:.4}, error {:+.2}%); |k2|/|k1| {:.4}",
        sin1.asin().to_degrees(),
        sin2.asin().to_degrees(),
        100.0 * err,
        k2x.hypot(k2y) / k1x.hypot(k1y)
    );
    assert!(
        (sin1.asin().to_degrees() - 45.0).abs() < 2.0,
        "the incident wave is not at 45°: θ1 {:.2}°",
        sin1.asin().to_degrees()
    );
    // Measured (CPU, deterministic): +0.65%. Allowed: 1.0%, the measurement + 0.35 points (the
    // phase-gradient fit's spread across the region's rows); a slab of c2 0.11 instead of 0.1 is
    // 4.6% off and fails.
    assert!(
        err.abs() < 0.010,
        "Snell: sinθ1/sinθ2 = {got:.4}, sqrt(c2_1/c2_2) = {want:.4}: {:+.2}% off (allowed 1.0%)",
        100.0 * err
    );
}

/// The theory overlay of a preset (`sim::wave::theory`, what the app draws) against the preset's own
/// simulated steady state: the time-averaged intensity on a screen `L` cells along the overlay's
/// axis from its origin, each maximum's direction `sinθ = u/hypot(u, L)` (u across the axis)
/// paired with the nearest predicted order. Every maximum must be an order theory predicts, every
/// predicted order on the screen must be there, and each within `allowed` of its `sinθ`
/// (order 0: within `allowed` absolutely). Returns (order, theory sinθ, simulated sinθ).
fn overlay_against_simulation(name: &str, screen: f64, allowed: f64) -> Vec<(i32, f64, f64)> {
    use wavebrot::sim::wave::theory::Theory;
    let s = preset(name).unwrap();
    let theory = Theory::of(&s).unwrap_or_else(|| panic!("{name}: no overlay"));
    let axis = theory.axes[0];
    let (ox, oy) = theory.origin;
    let (ax, ay) = theory.across;
    // The screen's cells: origin + L·axis + u·across, kept 40 cells from the absorbing edges
    // (closer, their small echoes add maxima of their own).
    let inside = |v: f64, n: usize| (40.0..(n - 40) as f64).contains(&v);
    let cell = |u: f64| -> Option<usize> {
        let (x, y) = ((ox + screen * axis.0 + u * ax).round(), (oy + screen * axis.1 + u * ay).round());
        (inside(x, s.nx) && inside(y, s.ny)).then(|| x as usize * s.ny + y as usize)
    };
    let us: Vec<f64> = (-1000..=1000).map(f64::from).filter(|&u| cell(u).is_some()).collect();
    let mut sim = cpu_scene(&s);
    // Steady state: 5000 steps (the switch-on has left the 640x480 grid through its absorbing
    // edges; at 2000 the double slit still shows transient fringes), then three periods.
    sim.advance(5000).unwrap();
    let freq = s.sources[0].freq();
    let period_steps = (3.0 * TAU / freq).round() as u32;
    let mut intensity = vec![0.0; us.len()];
    let mut f = vec![0.0; s.cells()];
    for _ in 0..period_steps {
        sim.advance(1).unwrap();
        sim.read_field(&mut f).unwrap();
        for (i, &u) in us.iter().enumerate() {
            intensity[i] += f64::from(f[cell(u).unwrap()]).powi(2);
        }
    }
    let sin_of = |u: f64| u / u.hypot(screen);
    // Orders up to |sinθ| 0.45 (order 1 of both presets): further out the screen is in the
    // near field (two sources' order 2 lies 7.5% inside its far-field direction).
    let peaks: Vec<f64> =
        maxima(&intensity, 0.2).iter().map(|&k| us[0] + k).filter(|&u| sin_of(u).abs() <= 0.45).collect();
    let (lo, hi) = (sin_of(us[0] + 3.0).max(-0.45), sin_of(us[us.len() - 1] - 3.0).min(0.45));
    let predicted: Vec<(i32, f64)> =
        theory.angles().into_iter().map(|(m, t)| (m, t.sin())).filter(|&(_, s)| s > lo && s < hi).collect();
    let mut out = Vec::new();
    for &u in &peaks {
        let got = sin_of(u);
        let &(m, want) = predicted
            .iter()
            .min_by(|a, b| (a.1 - got).abs().total_cmp(&(b.1 - got).abs()))
            .unwrap_or_else(|| panic!("{name}: a maximum at sinθ {got:.3} and no order predicted"));
        out.push((m, want, got));
    }
    for &(m, want, got) in &out {
        let err = if m == 0 { got.abs() } else { (got - want) / want };
        println!("{name}: order {m:+}: overlay sinθ {want:.4}, simulated {got:.4}, error {:+.2}%", 100.0 * err);
        assert!(
            err.abs() <= allowed,
            "{name} order {m}: simulated sinθ {got:.4}, overlay {want:.4}: {:+.2}% (allowed {:.1}%)",
            100.0 * err,
            100.0 * allowed
        );
    }
    let mut orders: Vec<i32> = out.iter().map(|o| o.0).collect();
    orders.sort_unstable();
    let want: Vec<i32> = predicted.iter().map(|p| p.0).collect();
    assert_eq!(orders, want, "{name}: maxima found {out:?}, orders predicted on the screen {predicted:?}");
    out
}

/// The overlay is the far field (`d·sinθ = m·λ` from the midpoint); the simulated maxima lie
/// 250 cells away (Fraunhofer distance d²/λ: 204 cells for the double slit, 318 for the two
/// sources) on a grid whose dispersion shortens λ a little (tests above: -0.7% at freq 0.2).
/// Measured (CPU, deterministic; the presets' `absorbing` edge is the matched layer, 32 cells
/// inside the grid): double slit order ±1 -2.34% / -3.15%, order 0 0.20%; two sources order ±1
/// +1.62% / +1.61%, order 0 0.00% (with Mur's edge, which returned part of the waves: -2.01% /
/// -2.82% and -2.58% / -3.05%). Allowed: 3.7%, the largest + half a cell of peak position (0.55%
/// of sinθ at order 1). The grating preset is left out: 350 cells wide, its
/// Fraunhofer distance is 5800 cells, so on any screen the grid holds its pattern is near-field
/// (subsidiary maxima as strong as the orders; `grating_orders_obey_d_sin_theta_eq_m_lambda`
/// checks gratings in the far field).
#[test]
fn the_overlay_points_at_the_simulated_maxima() {
    overlay_against_simulation("double-slit", 250.0, 0.037);
    overlay_against_simulation("two-sources", 250.0, 0.037);
}
