#!/usr/bin/env python3
"""Writes the wave-lab presets whose walls or media are curves or many pieces (mirrors, zone plates,
prisms, Fresnel lenses, ...) and the other presets of the classic set-ups, as scene files in
assets/scenes/. Scene files hold rectangles and circles only, so a curve is written as one
rectangle per row of cells. Run from the repository root: python3 tools/make_scenes.py
(each file is rewritten; src/sim/wave/presets.rs lists them)."""

import math
import os

OUT = os.path.join(os.path.dirname(__file__), "..", "assets", "scenes")


def header(description, nx, ny, tmax, boundary="absorbing", c2=0.25):
    assert "\n" not in description and "Teaches:" in description
    return [f'description = "{description}"', f"nx = {nx}", f"ny = {ny}", f"c2 = {c2}",
            f'boundary = "{boundary}"', f"tmax = {tmax}", ""]


def table(name, **keys):
    lines = [f"[[{name}]]"]
    for k, v in keys.items():
        if isinstance(v, str):
            lines.append(f'{k} = "{v}"')
        elif isinstance(v, float):
            lines.append(f"{k} = {v!r}")
        else:
            lines.append(f"{k} = {v}")
    return lines + [""]


def line_source(x, ny, freq, amplitude=0.1):
    return table("source", kind="line", x0=x, y0=1, x1=x, y1=ny - 2, freq=freq, amplitude=amplitude)


def wall(x0, y0, x1, y1):
    return table("wall", x0=x0, y0=y0, x1=x1, y1=y1)


def rect(x0, y0, x1, y1, c2):
    return table("medium", shape="rect", x0=x0, y0=y0, x1=x1, y1=y1, c2=c2)


def barrier(x, ny, gaps, thick=4):
    """Walls at columns x..x+thick-1 over the whole height but the gaps [(y0, y1)] (inclusive)."""
    out, y = [], 0
    for g0, g1 in sorted(gaps):
        if g0 > y:
            out += wall(x, y, x + thick - 1, g0 - 1)
        y = g1 + 1
    if y <= ny - 1:
        out += wall(x, y, x + thick - 1, ny - 1)
    return out


def runs(cells_by_row):
    """Rectangles covering {row y: set of x}: one per run of consecutive x in a row, merged with
    the rows above while they have the same run."""
    rects = []
    open_runs = {}
    for y in sorted(cells_by_row):
        xs = sorted(cells_by_row[y])
        row_runs = []
        for x in xs:
            if row_runs and x == row_runs[-1][1] + 1:
                row_runs[-1][1] = x
            else:
                row_runs.append([x, x])
        now = {}
        for x0, x1 in row_runs:
            key = (x0, x1)
            if key in open_runs and open_runs[key][3] == y - 1:
                r = open_runs.pop(key)
                r[3] = y
                now[key] = r
            else:
                now[key] = [x0, y, x1, y]
        rects += list(open_runs.values())
        open_runs = now
    rects += list(open_runs.values())
    return sorted(rects, key=lambda r: (r[1], r[0]))


# The axis each "N cells" of a description is measured along (`description_axes`): a new grid
# in the app scales each length as the geometry (src/sim/wave/description.rs).
AXES = {"triple-slit": "y", "grating-fine": "y", "narrow-gap": "y", "zone-plate": "x",
        "elliptical-reflector": "x", "lloyds-mirror": "y", "waveguide": "y", "frustrated-tir": "x",
        "fresnel-lens": "x", "phased-array": "y", "dipole": "xy"}


def write(name, lines):
    if name in AXES:
        lines = lines[:1] + [f'description_axes = ["{AXES[name]}"]'] + lines[1:]
    with open(os.path.join(OUT, name + ".toml"), "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")


def lam(freq, c2=0.25):
    return 4 * math.pi * math.sqrt(c2) / freq


def main():
    nx, ny = 640, 480
    # Slits and gratings.
    write("triple-slit", header(
        "A plane wave through three slits 80 cells apart: principal maxima where d sin(theta) = m lambda, one weak maximum between. Teaches: how more slits sharpen the orders.",
        nx, ny, 800) + line_source(60, ny, 0.2) + barrier(160, ny, [(155, 164), (235, 244), (315, 324)]))
    write("grating-fine", header(
        "A plane wave through 15 slits 24 cells apart at lambda 15.7: first orders near 41 degrees. Teaches: the grating equation d sin(theta) = m lambda.",
        nx, ny, 800) + line_source(60, ny, 0.4)
        + barrier(160, ny, [(240 + 24 * k - 3, 240 + 24 * k + 2) for k in range(-7, 8)]))
    write("narrow-gap", header(
        "A plane wave through a gap of 10 cells, a quarter of its wavelength: half circles spread behind it. Teaches: Huygens' principle, a small opening radiates like a point source.",
        nx, ny, 700) + line_source(60, ny, 0.15) + barrier(200, ny, [(235, 244)]))
    # A Fresnel zone plate: the odd zones open, r_n^2 = n lambda F + (n lambda / 2)^2.
    f_zone, lz = 200.0, lam(0.4)
    radii = [math.sqrt(n * lz * f_zone + (n * lz / 2) ** 2) for n in range(1, 9)]
    gaps = [(240 - round(radii[0]), 240 + round(radii[0]))]
    for n in range(1, 7, 2):
        a, b = round(radii[n]), round(radii[n + 1])
        if 240 + b < ny - 1:
            gaps += [(240 + a, 240 + b), (240 - b, 240 - a)]
    write("zone-plate", header(
        f"A Fresnel zone plate (the odd zones open, r_n^2 = n lambda F) focusing a plane wave of lambda {lz:.1f} at F = 200 cells behind it. Teaches: focusing by diffraction, F = r_1^2 / lambda.",
        nx, ny, 700) + line_source(40, ny, 0.4) + barrier(120, ny, gaps, thick=3))
    # Mirrors: the parabola x = 60 + (y - 240)^2 / (4 F), F = 100, walls 4 cells deep behind it.
    cells = {}
    for y in range(40, 441):
        x = 60 + round((y - 240) ** 2 / 400.0)
        cells[y] = set(range(x - 3, x + 1))
    write("parabolic-mirror", header(
        "A plane wave onto a parabolic mirror (vertex x = 60, focal length 100): it gathers at the focus (160, 240). Teaches: a parabola's focus, F = 1/(4a).",
        nx, ny, 900) + table("source", kind="line", x0=560, y0=1, x1=560, y1=ny - 2, freq=0.4, amplitude=0.1)
        + sum((wall(*r) for r in runs(cells)), []))
    # An ellipse a bit larger than the grid (so the waves also reach the edges), foci on y = 210.
    ex, ey, a, b = 280, 210, 300.0, 225.0
    c = math.sqrt(a * a - b * b)
    cells = {}
    for y in range(0, 420):
        for x in range(0, 560):
            r = math.hypot((x - ex) / a, (y - ey) / b)
            if 1.0 <= r <= 1.0 + 3.5 / b:
                cells.setdefault(y, set()).add(x)
    write("elliptical-reflector", header(
        f"A point source at one focus of an elliptical wall (a = 300, b = 225, cut by the grid's reflecting edges): the waves gather at the other focus {2 * c:.0f} cells away. Teaches: every path focus-wall-focus is 2a long.",
        560, 420, 900, boundary="reflecting")
        + table("source", kind="point", x=round(ex - c), y=ey, freq=0.3, amplitude=0.1)
        + sum((wall(*r) for r in runs(cells)), []))
    write("lloyds-mirror", header(
        "A point source 30 cells above a long mirror: fringes where the direct wave meets its mirror image, dark along the mirror. Teaches: interference with an image source 2h away and the half-wave flip.",
        nx, ny, 800) + table("source", kind="point", x=100, y=134, freq=0.3, amplitude=0.5)
        + wall(40, 100, 620, 103))
    write("standing-waves", header(
        "A plane wave reflected straight back by a wall (waves slip round its ends only near the edges): a standing wave with nodes lambda/2 apart. Teaches: the wavelength as twice the distance between nodes.",
        nx, ny, 900) + line_source(100, ny, 0.2) + wall(500, 24, 503, ny - 25))
    write("waveguide", header(
        "A point source between two parallel walls 72 cells apart: the guided modes, a zigzag of reflections. Teaches: a guide carries mode n only when lambda < 2w/n.",
        nx, ny, 800) + table("source", kind="point", x=110, y=230, freq=0.2, amplitude=0.5)
        + wall(80, 190, 560, 193) + wall(80, 266, 560, 269))
    # A closed box at the (3, 2) mode: omega = pi sqrt((3/199)^2 + (2/149)^2) per step.
    w32 = math.pi * math.hypot(3 / 199, 2 / 149)
    write("cavity-modes", header(
        f"A closed box of 200 x 150 cells driven at its (3, 2) mode, freq {w32:.4f}: a standing pattern of 3 x 2 loops that grows. Teaches: a cavity's modes, omega = c pi sqrt((m/Lx)^2 + (n/Ly)^2).",
        200, 150, 1500, boundary="reflecting")
        + table("source", kind="point", x=33, y=37, freq=round(w32, 6), amplitude=0.05))
    # Refraction set-ups.
    cells = {}
    for y in range(80, 401):
        half = (y - 80) * 100 / 320
        cells[y] = set(range(round(320 - half), round(320 + half) + 1))
    write("prism", header(
        "A plane wave through a triangular prism of slower medium (c2 0.125, n = 1.41): bent twice towards the base. Teaches: refraction at two faces, the deviation angle.",
        nx, ny, 900) + line_source(60, ny, 0.3) + sum((rect(*r, 0.125) for r in runs(cells)), []))
    write("total-internal-reflection", header(
        "A plane wave inside a slow medium (n = 1.77) meets its edge at 45 degrees, past the critical angle of 34.4: all of it reflects. Teaches: the critical angle asin(n2/n1).",
        nx, ny, 800, c2=0.25) + rect(0, 0, 319, ny - 1, 0.08)
        + table("source", kind="line", x0=30, y0=380, x1=190, y1=220, freq=0.2, amplitude=0.1))
    write("frustrated-tir", header(
        "Total internal reflection with a gap of 8 cells of fast medium and slow medium again beyond: part of the wave tunnels through. Teaches: the evanescent wave and its decay length.",
        nx, ny, 800, c2=0.25) + rect(0, 0, 319, ny - 1, 0.08) + rect(328, 0, nx - 1, ny - 1, 0.08)
        + table("source", kind="line", x0=30, y0=380, x1=190, y1=220, freq=0.2, amplitude=0.1))
    # A Fresnel lens: a thin lens's thickness r^2/(2F(n-1)) taken modulo one wavelength of phase.
    n_lens, lf, f_lens = math.sqrt(0.25 / 0.125), lam(0.4), 220.0
    step = lf / (n_lens - 1)
    cells = {}
    for y in range(40, 441):
        r = y - 240
        t = step - (r * r / (2 * f_lens * (n_lens - 1))) % step
        cells[y] = set(range(200, 200 + max(1, round(t))))
    write("fresnel-lens", header(
        "A Fresnel lens (a thin lens folded into rings one wavelength of phase deep, slower medium c2 0.125) focusing a plane wave about 220 cells behind it. Teaches: a lens is a phase profile.",
        nx, ny, 900) + line_source(60, ny, 0.4) + sum((rect(*r, 0.125) for r in runs(cells)), []))
    write("diverging-lens", header(
        "A plane wave through a round lens of faster medium (c2 0.45): the fronts bulge forward, spreading from a virtual focus in front of it. Teaches: a diverging lens, a negative focal length.",
        nx, ny, 900) + line_source(60, ny, 0.3) + table("medium", shape="circle", x=260, y=240, r=100.0, c2=0.45))
    # Moving sources and arrays.
    write("doppler", header(
        "A source moving at half the wave speed: fronts crowded ahead (f c/(c - v) = 2f) and spread behind (f c/(c + v)). Teaches: the Doppler effect.",
        nx, ny, 700) + table("source", kind="moving", x0=120, y0=240, x1=560, y1=240, speed=0.5, freq=0.3, amplitude=0.5))
    write("sonic-boom", header(
        "A source moving at 1.5 times the wave speed: a Mach cone of half angle asin(c/v) = 41.8 degrees trails it. Teaches: the Mach angle sin(alpha) = c/v.",
        nx, ny, 380) + table("source", kind="moving", x0=60, y0=240, x1=620, y1=240, speed=1.5, freq=0.3, amplitude=0.5))
    lp, dp = lam(0.2), 10
    step_20 = 2 * math.pi * dp * math.sin(math.radians(20)) / lp
    write("phased-array", header(
        f"Eight sources 10 cells apart with a phase step of {step_20:.3f} rad: the beam leaves at 20 degrees. Teaches: beam steering, each source a little later than the one below turns the beam.",
        nx, ny, 700) + table("source", kind="array", x=100, y=240, count=8, spacing=dp, phase_step=round(step_20, 6), freq=0.2, amplitude=0.5))
    write("beats", header(
        "Two point sources at freq 0.20 and 0.22 side by side: the pattern swells and fades every 314 steps. Teaches: beats at the difference frequency f1 - f2.",
        nx, ny, 900) + table("source", kind="point", x=300, y=240, freq=0.2, amplitude=0.5)
        + table("source", kind="point", x=340, y=240, freq=0.22, amplitude=0.5))
    write("dipole", header(
        "Two sources 6 cells apart in antiphase (a dipole along x): two lobes and no wave across the axis. Teaches: a dipole's null, I ~ sin^2(k d cos(phi) / 2).",
        nx, ny, 600) + table("source", kind="multipole", x=320, y=240, poles=2, radius=3.0, angle=0.0, freq=0.2, amplitude=1.0))
    write("quadrupole", header(
        "Four sources on a small circle, alternating in sign: four lobes with nulls between them. Teaches: a multipole's pattern and its nulls.",
        nx, ny, 600) + table("source", kind="multipole", x=320, y=240, poles=4, radius=4.0, angle=0.0, freq=0.2, amplitude=1.0))


if __name__ == "__main__":
    main()
