// The orbit of z^2 + c with the escape test, shared by shaders/mandelbrot.wgsl and
// shaders/julia.wgsl (after their `//#include PRECISION`, which defines `real`, `exact` and
// `CHUNK`). CPU twins: `escape_count_f32`/`_f64` and `escape_smooth_f32`/`_f64` in
// src/sim/mandelbrot.rs; CUDA twins: `escape_count` and `mandel_step` in kernels/mandelbrot.cu
// (`julia_orbit` in kernels/julia.cu checks every iteration).

// `ordered_sum`: the sums' fence, by backend (parts/orbit_order_vulkan.wgsl or
// parts/orbit_order_fenced.wgsl). Products are always fenced by `exact`: only a product can be
// fused (FMA) into the add it feeds.
//#include ORBIT_ORDER

// z and its squares (the squares serve the escape test and the next step).
struct Z {
    zr: real,
    zi: real,
    zr2: real,
    zi2: real,
}

// z at the orbit's start, with its squares.
fn orbit_start(zr: real, zi: real) -> Z {
    return Z(zr, zi, exact(zr * zr), exact(zi * zi));
}

// One iteration as the CPU writes it: nr = zr*zr - zi*zi + cr; ni = zr*zi + zi*zr + ci
// (zr*zi + zi*zr = p + p exactly), every product and sum rounded on its own (`exact`).
fn step(z: Z, cr: real, ci: real) -> Z {
    let p = exact(z.zr * z.zi);
    let zr = ordered_sum(ordered_sum(z.zr2 - z.zi2) + cr);
    let zi = ordered_sum(ordered_sum(p + p) + ci);
    return Z(zr, zi, exact(zr * zr), exact(zi * zi));
}

// The first k in 0..iters with |z_{k+1}|^2 >= 4 (else iters) and z_{k+1} (else z_iters).
struct Escape {
    k: u32,
    z: Z,
}

// The orbit from `z0`, checked once per CHUNK iterations; a chunk that ends outside is run again
// one iteration at a time from its start, so the count is exactly the first k, as checking every
// iteration gives (CUDA's `escape_count`). That needs an orbit that, once |z|^2 >= 4, stays
// there until the chunk ends, and a chunk that cannot overflow (CHUNK in the precision's
// file): both hold from |z0|^2 < 4 with |c|^2 < 3.9, since |z^2 + c| >= |z|^2 - |c| >= 2.025
// for |z| >= 2, a margin far above any rounding. Other orbits (|c| near or beyond 2, where
// they escape at once or sit on the set's tip) check every iteration.
fn escape(z0: Z, cr: real, ci: real, iters: u32) -> Escape {
    var z = z0;
    var k = 0u;
    if cr * cr + ci * ci < real(3.9) && z.zr2 + z.zi2 < real(4.0) {
        loop {
            if iters - k < CHUNK {
                break;
            }
            var t = z;
            for (var u = 0u; u < CHUNK; u++) {
                t = step(t, cr, ci);
            }
            if !(t.zr2 + t.zi2 < real(4.0)) {
                break;
            }
            z = t;
            k += CHUNK;
        }
    }
    // The exact escape step: from the last state known inside, one iteration at a time.
    for (; k < iters; k++) {
        z = step(z, cr, ci);
        if z.zr2 + z.zi2 >= real(4.0) {
            return Escape(k, z);
        }
    }
    return Escape(iters, z);
}
