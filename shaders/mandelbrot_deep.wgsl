// Deep-zoom Mandelbrot by perturbation, in the delta type `real` of the variant spliced in
// below: `mandelbrot_deep_f32.wgsl` (every adapter) or `mandelbrot_deep_f64.wgsl` (needs
// `SHADER_F64`), which also define `pow2i`, `ilogb_of`, `PLAIN_MIN_EXP`.
// src/backend/wgpu/shader.rs assembles the two shaders from this one body.
//
// CPU twin: `perturb_count` in src/sim/perturb.rs (run by src/backend/cpu/mandelbrot_deep.rs);
// CUDA twin: kernels/mandelbrot_deep.cu. The reference orbit Z_0..Z_last is iterated on the
// host in arbitrary precision; each pixel iterates its delta dz_{m+1} = 2 Z_m dz_m + dz_m^2 + dc
// with dc = ((ax + x*bx) + i(ay + y*by)) * 2^exp. Deltas below 2^PLAIN_MIN_EXP are held as a
// mantissa and an i32 exponent; when |Z_m + dz| < |dz| or the reference ends, the pixel rebases
// (dz = z, m = 0). Reference values below 2^TINY_EXP (Z_m passing close to 0 near a minibrot)
// are stored as a mantissa and an exponent (aux's w); their iterations, and the one after each
// rebase, are extended-exponent steps (`extended_step`). Plain deltas skip iterations by bilinear approximation (BLA) where the
// table built on the host (src/sim/bla.rs, which argues why a step never jumps over an escape
// or a rebase) has a valid step: dz_{m+2^l} = A dz_m + B dc (the f64 variant; the f32 one gets
// no table, bla_levels 0). Drivers may fuse a multiply and an add (WGSL cannot forbid it), so counts
// can differ from the CPU twin's on a few pixels; the tests bound how many.

struct Params {
    width: u32,
    height: u32,
    iters: u32,
    last: u32,
    exp: i32,
    // 1: write each pixel's smooth value to `smooth_values` (`perturb_count_smooth` of the CPU twin).
    want_smooth: u32,
    // BLA: levels in the table (0 or 1: none) and n = last - 1 (level l holds n >> l entries).
    bla_levels: u32,
    bla_n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// Z_m.
@group(0) @binding(1) var<storage, read> orbit: array<vec2<real>>;
// aux[0]: the grid (ax, bx, ay, by); aux[1 + m]: what rounding Z_m left out (re, im, used when
// a pixel rebases), |Z_m|^2 - 4 (for an escape test that keeps its precision near |z| = 2) and
// the exponent of a tiny Z_m (0: a plain value; else orbit[m] and the rounding are its mantissa).
@group(0) @binding(2) var<storage, read> aux: array<vec4<real>>;
@group(0) @binding(3) var<storage, read_write> counts: array<u32>;
// The rule's iterations (lo, hi) and the executed ones (lo, hi).
@group(0) @binding(4) var<storage, read_write> total: array<atomic<u32>, 4>;
// One value per pixel with `want_smooth`, else 4 bytes, never written.
@group(0) @binding(5) var<storage, read_write> smooth_values: array<f32>;
// The BLA table: the mantissas (Re A, Im A, Re B, Im B), (the squared radius for plain deltas,
// the radius's mantissa) and the exponents (A's, B's, the radius's, 0) of each entry (one
// unused entry where bla_levels is 0).
@group(0) @binding(6) var<storage, read> bla_ab: array<vec4<real>>;
@group(0) @binding(7) var<storage, read> bla_r2: array<vec2<real>>;
@group(0) @binding(8) var<storage, read> bla_exps: array<vec4<i32>>;

// The smooth value of the pixel being computed, set by `perturb_count` when it escapes.
var<private> escape_nu: f32;
// The iterations executed by `perturb_count` (one per escape test, single or BLA step).
var<private> executed_iters: u32;

var<workgroup> wg_lo: atomic<u32>;
var<workgroup> wg_hi: atomic<u32>;
var<workgroup> wg_exec_lo: atomic<u32>;
var<workgroup> wg_exec_hi: atomic<u32>;

//#include DELTA
//#include SMOOTH
//#include SLOPE

// `smooth_tail` of src/sim/perturb.rs: from the escaped z_n, up to SMOOTH_EXTRA_ITERS more
// iterations of z^2 + c until |z|^2 >= SMOOTH_RADIUS_SQ, then `smooth_value` (in f32).
fn deep_smooth_tail(zr0: real, zi0: real, cr: real, ci: real, n0: u32) -> f32 {
    var zr = zr0;
    var zi = zi0;
    var n = n0;
    var mag2 = zr * zr + zi * zi;
    for (var j = 0u; j < SMOOTH_EXTRA_ITERS; j++) {
        if mag2 >= real(SMOOTH_RADIUS_SQ) {
            break;
        }
        slope_step(zr, zi, 0);
        let nr = zr * zr - zi * zi + cr;
        let ni = zr * zi + zi * zr + ci;
        zr = nr;
        zi = ni;
        mag2 = zr * zr + zi * zi;
        n += 1u;
    }
    slope_finish(zr, zi);
    return smooth_value(n, f32(mag2), params.iters);
}

// x * 2^n for any n (as the CPU twin's `Real::ldexp`): n clamped to three times the type's
// exponent range (beyond it the result is 0 or infinity anyway), then three multiplications by
// powers of two in range. No loop: llvmpipe counts the iterations of an inner loop across the
// whole invocation and ends the kernel's outer loop after 65535 of them (measured: deep pixels
// stopped at ~1100 steps with their count at `iters`).
fn ldexp_twin(x: real, n0: i32) -> real {
    let n = clamp(n0, 3 * MIN_EXP, 3 * MAX_EXP);
    let n1 = clamp(n, MIN_EXP, MAX_EXP);
    let n2 = clamp(n - n1, MIN_EXP, MAX_EXP);
    let n3 = n - n1 - n2;
    return x * pow2i(n1) * pow2i(n2) * pow2i(n3);
}

// The exponent of a zero term in `extended_step`: below any value's.
const ZERO_EXP: i32 = -16777216;

// The delta being iterated: mantissa (wr, wi), exponent e, scaled (e != 0 form) or plain.
struct Delta {
    wr: real,
    wi: real,
    e: i32,
    scaled: bool,
}

// `normalise` of src/sim/perturb.rs: (nr + i ni) 2^r as a delta, plain at or above
// 2^PLAIN_MIN_EXP, else a mantissa in [1, 2) and an exponent.
fn normalise(nr: real, ni: real, r: i32) -> Delta {
    let q = max(abs(nr), abs(ni));
    if !(q > real(0.0)) {
        return Delta(nr, ni, 0, false);
    }
    let s = ilogb_of(q);
    if r + s >= PLAIN_MIN_EXP {
        return Delta(ldexp_twin(nr, r), ldexp_twin(ni, r), 0, false);
    }
    return Delta(ldexp_twin(nr, -s), ldexp_twin(ni, -s), r + s, true);
}

// A plain step's result nr + i ni (a plain delta has e = 0): kept plain, or as a mantissa in
// [1, 2) and an exponent where it fell below plain_min = 2^PLAIN_MIN_EXP (the plain branch of
// `perturb_count` in src/sim/perturb.rs). Exact: only powers of two scale it.
fn plain_result(nr: real, ni: real, plain_min: real) -> Delta {
    let q = max(abs(nr), abs(ni));
    if q < plain_min && q > real(0.0) {
        let t = ilogb_of(q);
        return Delta(ldexp_twin(nr, -t), ldexp_twin(ni, -t), t, true);
    }
    return Delta(nr, ni, 0, false);
}

// `extended_step` of src/sim/perturb.rs: dz' = 2 Z dz + dz^2 + dc with Z = (zr + i zi) 2^ze,
// dz = (ur0 + i ui0) 2^ue0, dc = (dcr + i dci) 2^dce, each term brought to the largest's exponent.
fn extended_step(zr: real, zi: real, ze: i32, ur0: real, ui0: real, ue0: i32, dcr: real, dci: real, dce: i32) -> Delta {
    let q = max(abs(ur0), abs(ui0));
    var ur = real(0.0);
    var ui = real(0.0);
    var ue = ZERO_EXP;
    if q > real(0.0) {
        let s = ilogb_of(q);
        ur = ldexp_twin(ur0, -s);
        ui = ldexp_twin(ui0, -s);
        ue = ue0 + s;
    }
    let e1 = select(ZERO_EXP, ze + ue, max(abs(zr), abs(zi)) > real(0.0));
    let e2 = ue + ue;
    let e3 = select(ZERO_EXP, dce, max(abs(dcr), abs(dci)) > real(0.0));
    let r = max(max(e1, e2), e3);
    let nr = ldexp_twin(real(2.0) * (zr * ur - zi * ui), e1 - r) + ldexp_twin(ur * ur - ui * ui, e2 - r) + ldexp_twin(dcr, e3 - r);
    let ni = ldexp_twin(real(2.0) * (zr * ui + zi * ur), e1 - r) + ldexp_twin(real(2.0) * ur * ui, e2 - r) + ldexp_twin(dci, e3 - r);
    return normalise(nr, ni, r);
}

// `level_offset` of src/sim/bla.rs: the first entry of level l.
fn bla_offset(l: u32) -> u32 {
    let n = params.bla_n;
    let h = n >> l;
    return 2u * n - countOneBits(n) - 2u * h + countOneBits(h);
}

// Inside entry j's radius: |dz|^2 = dd < r2 (plain), or |w|^2 = dd with dz = w 2^e (ext):
// dd 2^(2(e - er)) < rm^2.
fn bla_inside(j: u32, dd: real, ext: bool, e: i32) -> bool {
    let r = bla_r2[j];
    if ext {
        return ldexp_twin(dd, 2 * (e - bla_exps[j].z)) < r.y * r.y;
    }
    return dd < r.x;
}

// One candidate of `BlaTable::lookup`: level l at m (m - 1 = mm) after k iterations.
fn bla_valid(l: u32, cap: u32, m: u32, mm: u32, k: u32, iters: u32, dd: real, ext: bool, e: i32) -> bool {
    return l <= cap && m + (1u << l) <= params.last && k + (1u << l) <= iters && bla_inside(bla_offset(l) + (mm >> l), dd, ext, e);
}

// `BlaTable::lookup`: the longest valid step's level at m (0: none), with no loop.
fn bla_lookup(m: u32, k: u32, iters: u32, dd: real, ext: bool, e: i32) -> u32 {
    if params.bla_levels < 2u || m == 0u {
        return 0u;
    }
    let mm = m - 1u;
    let cap = min(countTrailingZeros(mm), params.bla_levels - 1u);
    if !bla_valid(1u, cap, m, mm, k, iters, dd, ext, e) {
        return 0u;
    }
    var l = 1u;
    l += select(0u, 16u, bla_valid(l + 16u, cap, m, mm, k, iters, dd, ext, e));
    l += select(0u, 8u, bla_valid(l + 8u, cap, m, mm, k, iters, dd, ext, e));
    l += select(0u, 4u, bla_valid(l + 4u, cap, m, mm, k, iters, dd, ext, e));
    l += select(0u, 2u, bla_valid(l + 2u, cap, m, mm, k, iters, dd, ext, e));
    l += select(0u, 1u, bla_valid(l + 1u, cap, m, mm, k, iters, dd, ext, e));
    return l;
}

fn perturb_count(dcr: real, dci: real, dce: i32, iters: u32) -> u32 {
    let plain_dcr = ldexp_twin(dcr, dce);
    let plain_dci = ldexp_twin(dci, dce);
    let plain_min = pow2i(PLAIN_MIN_EXP);
    var scaled = dce < PLAIN_MIN_EXP;
    var wr = select(plain_dcr, dcr, scaled);
    var wi = select(plain_dci, dci, scaled);
    var e = select(0, dce, scaled);
    var m = 1u;
    executed_iters = 0u;
    // c = Z_1 + dc, for the smooth value.
    let c1r = ldexp_twin(orbit[1].x, i32(aux[2].w)) + plain_dcr;
    let c1i = ldexp_twin(orbit[1].y, i32(aux[2].w)) + plain_dci;
    var k = 0u;
    for (; k < iters;) {
        executed_iters += 1u;
        let a = aux[m + 1u];
        let ze = i32(a.w);
        if ze != 0 {
            // A tiny reference value Z_m = (zr + i zi) 2^ze: only a large dz escapes; the rebase
            // test |Z_m + dz| < |dz| in their common exponent.
            let zmr = orbit[m].x;
            let zmi = orbit[m].y;
            let ue = select(0, e, scaled);
            let pr = ldexp_twin(zmr, ze) + ldexp_twin(wr, ue);
            let pi = ldexp_twin(zmi, ze) + ldexp_twin(wi, ue);
            if pr * pr + pi * pi >= real(4.0) {
                if params.want_smooth != 0u {
                    escape_nu = deep_smooth_tail(pr, pi, c1r, c1i, k + 1u);
                }
                return k;
            }
            let q = max(abs(wr), abs(wi));
            var big = ze;
            if q > real(0.0) {
                big = max(ze, ue + ilogb_of(q));
            }
            let ar = ldexp_twin(wr, ue - big);
            let ai = ldexp_twin(wi, ue - big);
            let fr = ldexp_twin(zmr, ze - big) + ar;
            let fi = ldexp_twin(zmi, ze - big) + ai;
            slope_step(fr, fi, big);
            var next: Delta;
            if m == params.last || fr * fr + fi * fi < ar * ar + ai * ai {
                let gr = fr + ldexp_twin(a.x, ze - big);
                let gi = fi + ldexp_twin(a.y, ze - big);
                next = extended_step(real(0.0), real(0.0), 0, gr, gi, big, dcr, dci, dce);
                m = 1u;
            } else {
                next = extended_step(zmr, zmi, ze, wr, wi, ue, dcr, dci, dce);
                m += 1u;
            }
            wr = next.wr;
            wi = next.wi;
            e = next.e;
            scaled = next.scaled;
            k += 1u;
            continue;
        }
        let rr = orbit[m].x;
        let ri = orbit[m].y;
        var dr = wr;
        var di = wi;
        if scaled {
            dr = ldexp_twin(wr, e);
            di = ldexp_twin(wi, e);
        }
        let fr = rr + dr;
        let fi = ri + di;
        let dd = dr * dr + di * di;
        if a.z + (real(2.0) * (rr * dr + ri * di) + dd) >= real(0.0) {
            if params.want_smooth != 0u {
                escape_nu = deep_smooth_tail(fr, fi, c1r, c1i, k + 1u);
            }
            return k;
        }
        let mag = fr * fr + fi * fi;
        if m == params.last || mag < dd {
            // Rebase: on from the reference's start, Z_0 = 0, dz = z (with what rounding Z left out).
            slope_step(fr, fi, 0);
            let next = extended_step(real(0.0), real(0.0), 0, fr + a.x, fi + a.y, 0, dcr, dci, dce);
            wr = next.wr;
            wi = next.wi;
            e = next.e;
            scaled = next.scaled;
            m = 1u;
            k += 1u;
            continue;
        }
        // A BLA step where one is valid (m >= 1, Z_m not tiny, so dd is |dz|^2): plainly, or
        // in extended exponent for a scaled delta.
        let ww = wr * wr + wi * wi;
        let l = bla_lookup(m, k, iters, select(dd, ww, scaled), scaled, e);
        if l > 0u {
            let j = bla_offset(l) + ((m - 1u) >> l);
            let ab = bla_ab[j];
            let ea = bla_exps[j].x;
            let eb = bla_exps[j].y;
            slope_bla(ab, ea, eb);
            if scaled {
                let e1 = ea + e;
                let e2 = eb + dce;
                let r = max(e1, e2);
                let nr = ldexp_twin(ab.x * wr - ab.y * wi, e1 - r) + ldexp_twin(ab.z * dcr - ab.w * dci, e2 - r);
                let ni = ldexp_twin(ab.x * wi + ab.y * wr, e1 - r) + ldexp_twin(ab.z * dci + ab.w * dcr, e2 - r);
                let next = normalise(nr, ni, r);
                wr = next.wr;
                wi = next.wi;
                e = next.e;
                scaled = next.scaled;
            } else {
                let ar = ldexp_twin(ab.x, ea);
                let ai = ldexp_twin(ab.y, ea);
                let br = ldexp_twin(ab.z, eb);
                let bi = ldexp_twin(ab.w, eb);
                let nr = (ar * wr - ai * wi) + (br * plain_dcr - bi * plain_dci);
                let ni = (ar * wi + ai * wr) + (br * plain_dci + bi * plain_dcr);
                let next = plain_result(nr, ni, plain_min);
                wr = next.wr;
                wi = next.wi;
                e = next.e;
                scaled = next.scaled;
            }
            m += 1u << l;
            k += 1u << l;
            continue;
        }
        slope_step(fr, fi, 0);
        if scaled {
            let s = ldexp_twin(real(1.0), e);
            let cr = ldexp_twin(dcr, dce - e);
            let ci = ldexp_twin(dci, dce - e);
            let nr = real(2.0) * (rr * wr - ri * wi) + (wr * wr - wi * wi) * s + cr;
            let ni = real(2.0) * (rr * wi + ri * wr) + real(2.0) * wr * wi * s + ci;
            wr = nr;
            wi = ni;
            let q = max(abs(nr), abs(ni));
            if q > real(0.0) {
                let t = ilogb_of(q);
                if e + t >= PLAIN_MIN_EXP {
                    wr = ldexp_twin(nr, e);
                    wi = ldexp_twin(ni, e);
                    e = 0;
                    scaled = false;
                } else if t < -8 || t > 8 {
                    wr = ldexp_twin(nr, -t);
                    wi = ldexp_twin(ni, -t);
                    e = e + t;
                }
            }
        } else {
            let tr = rr + rr + wr;
            let ti = ri + ri + wi;
            let nr = tr * wr - ti * wi + plain_dcr;
            let ni = tr * wi + ti * wr + plain_dci;
            let next = plain_result(nr, ni, plain_min);
            wr = next.wr;
            wi = next.wi;
            e = next.e;
            scaled = next.scaled;
        }
        m += 1u;
        k += 1u;
    }
    escape_nu = f32(iters);
    // The loop ends early only where the implementation stops it: llvmpipe ends a shader's loops
    // after 65535 trips in all (a trip here counts about 3). Report it (count 0xffffffff, the
    // driver refuses the picture) rather than a wrong count.
    if k < iters {
        return 0xffffffffu;
    }
    return iters;
}

@compute @workgroup_size(16, 16, 1)
fn mandelbrot_deep(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x = gid.x;
    let y = gid.y;
    var executed = 0u;
    var ran = 0u;
    if x < params.width && y < params.height {
        let grid = aux[0];
        let dcr = grid.x + real(x) * grid.y;
        let dci = grid.z + real(y) * grid.w;
        slope_start(grid.y, params.exp);
        let count = perturb_count(dcr, dci, params.exp, params.iters);
        counts[y * params.width + x] = count;
        slope_write(y * params.width + x);
        if params.want_smooth != 0u {
            smooth_values[y * params.width + x] = escape_nu;
        }
        executed = select(min(count + 1u, params.iters), 0u, count == 0xffffffffu);
        ran = executed_iters;
    }
    // Each add detects its own carry, so the pair is an exact 64-bit sum.
    let before = atomicAdd(&wg_lo, executed);
    if before + executed < before {
        atomicAdd(&wg_hi, 1u);
    }
    let before_ran = atomicAdd(&wg_exec_lo, ran);
    if before_ran + ran < before_ran {
        atomicAdd(&wg_exec_hi, 1u);
    }
    workgroupBarrier();
    if lid == 0u {
        let lo = atomicLoad(&wg_lo);
        let hi = atomicLoad(&wg_hi);
        let old = atomicAdd(&total[0], lo);
        atomicAdd(&total[1], hi + select(0u, 1u, old + lo < old));
        let elo = atomicLoad(&wg_exec_lo);
        let ehi = atomicLoad(&wg_exec_hi);
        let eold = atomicAdd(&total[2], elo);
        atomicAdd(&total[3], ehi + select(0u, 1u, eold + elo < eold));
    }
}
