// The distance variant of shaders/mandelbrot_deep.wgsl's derivative hooks (spliced in where it
// says `//#include SLOPE`): the twin of `Slope` in src/sim/fractal/deep_distance.rs and of
// kernels/mandelbrot_deep.cu's `mandelbrot_deep_de_f64`. The derivative of the pixel's z in
// pixels, S = (dz/dc) h = (sl_r + i sl_i) 2^sl_e, rides beside the perturbed orbit:
// S' = 2 z S + h a step, S' = A S + B h a BLA step, unchanged by a rebase; its mantissa is
// renormalised when it leaves [2^-32, 2^32]. At the escape (after the smooth tail), the distance
// |z| ln|z| / |S| in pixels and the normal z / S are formed in f32 (WGSL has no f64 logarithm).

// Three values a pixel: the distance in pixels, the normal's x and y.
@group(0) @binding(9) var<storage, read_write> de_values: array<f32>;

var<private> sl_r: real;
var<private> sl_i: real;
var<private> sl_e: i32;
// The pixel spacing h = sl_hm 2^sl_he, and h 2^-sl_e.
var<private> sl_hm: real;
var<private> sl_he: i32;
var<private> sl_h: real;
// [distance, ux, uy] of the pixel, set at its escape.
var<private> escape_de: vec3<f32>;

const SLOPE_RENORM_EXP: i32 = 32;

fn slope_start(hm: real, he: i32) {
    sl_r = hm;
    sl_i = real(0.0);
    sl_e = he;
    sl_hm = hm;
    sl_he = he;
    sl_h = hm;
    escape_de = vec3<f32>(0.0, 0.0, 0.0);
}

fn slope_renorm() {
    let q = max(abs(sl_r), abs(sl_i));
    if q > pow2i(SLOPE_RENORM_EXP) || (q < pow2i(-SLOPE_RENORM_EXP) && q > real(0.0)) {
        let t = ilogb_of(q);
        sl_r = ldexp_twin(sl_r, -t);
        sl_i = ldexp_twin(sl_i, -t);
        sl_e += t;
        sl_h = ldexp_twin(sl_hm, sl_he - sl_e);
    }
}

// One step z' = z^2 + c of the pixel's z = (zr + i zi) 2^ze.
fn slope_step(zr: real, zi: real, ze: i32) {
    let nr = real(2.0) * (zr * sl_r - zi * sl_i);
    let ni = real(2.0) * (zr * sl_i + zi * sl_r);
    if ze != 0 {
        sl_e += ze;
        sl_h = ldexp_twin(sl_hm, sl_he - sl_e);
    }
    sl_r = nr + sl_h;
    sl_i = ni;
    slope_renorm();
}

// A BLA step: A = (ab.x + i ab.y) 2^ea, B = (ab.z + i ab.w) 2^eb.
fn slope_bla(ab: vec4<real>, ea: i32, eb: i32) {
    let e1 = ea + sl_e;
    let e2 = eb + sl_he;
    let r = max(e1, e2);
    let nr = ldexp_twin(ab.x * sl_r - ab.y * sl_i, e1 - r) + ldexp_twin(ab.z * sl_hm, e2 - r);
    let ni = ldexp_twin(ab.x * sl_i + ab.y * sl_r, e1 - r) + ldexp_twin(ab.w * sl_hm, e2 - r);
    sl_r = nr;
    sl_i = ni;
    sl_e = r;
    sl_h = ldexp_twin(sl_hm, sl_he - r);
    slope_renorm();
}

// `Slope::distance` at the escaped z (in f32: |z| < 2^9, the mantissa below 2^42).
fn slope_finish(zr0: real, zi0: real) {
    let zr = f32(zr0);
    let zi = f32(zi0);
    let dr = f32(sl_r);
    let di = f32(sl_i);
    let mag = sqrt(zr * zr + zi * zi);
    let d = mag * log(mag) / sqrt(dr * dr + di * di);
    let ur = zr * dr + zi * di;
    let ui = zi * dr - zr * di;
    let norm = sqrt(ur * ur + ui * ui);
    let ok = norm > 0.0 && norm - norm == 0.0;
    let dist = select(0.0, d, d - d == 0.0);
    // 2^-sl_e in three steps of an exponent in range each, as `ldexp_twin`.
    let s = clamp(-sl_e, -378, 381);
    let s1 = clamp(s, -126, 127);
    let s2 = clamp(s - s1, -126, 127);
    let scaled = ldexp(ldexp(ldexp(dist, s1), s2), s - s1 - s2);
    escape_de = vec3<f32>(scaled, select(0.0, ur / norm, ok), select(0.0, ui / norm, ok));
}

fn slope_write(i: u32) {
    de_values[3u * i] = escape_de.x;
    de_values[3u * i + 1u] = escape_de.y;
    de_values[3u * i + 2u] = escape_de.z;
}
