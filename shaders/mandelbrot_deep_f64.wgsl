// The f64 variant of shaders/mandelbrot_deep.wgsl (needs `SHADER_F64`): deltas as an f64
// mantissa and an i32 exponent; spliced in where it says `//#include DELTA`.

alias real = f64;

const PLAIN_MIN_EXP: i32 = -560;
const MAX_EXP: i32 = 1023;
const MIN_EXP: i32 = -1022;

// 2^n for n in MIN_EXP..=MAX_EXP (exact: a power of two in range).
fn pow2i(n: i32) -> f64 {
    return ldexp(f64(1.0), n);
}

// One step of `ilogb_of`: brings x toward [2^-126, 2^126), counting the powers taken out.
fn ilogb_step(v: vec2<f64>) -> vec2<f64> {
    let big = v.x >= pow2i(126);
    let small = v.x < pow2i(-126);
    let x = select(select(v.x, v.x * pow2i(126), small), v.x * pow2i(-126), big);
    let k = v.y + select(select(f64(0.0), f64(-126.0), small), f64(126.0), big);
    return vec2<f64>(x, k);
}

// The exponent k with 2^k <= |x| < 2^(k+1) of a normal x, with no loop (see `ldexp_twin`;
// naga's f64 `frexp` needs 64-bit integers): nine steps bring x into f32's range, then the
// exponent of x as f32 (which may round up to k + 1 just below a power of two: the caller only
// renormalises with it).
fn ilogb_of(x0: f64) -> i32 {
    var v = vec2<f64>(abs(x0), f64(0.0));
    v = ilogb_step(ilogb_step(ilogb_step(v)));
    v = ilogb_step(ilogb_step(ilogb_step(v)));
    v = ilogb_step(ilogb_step(ilogb_step(v)));
    return i32(v.y) + i32((bitcast<u32>(f32(v.x)) >> 23u) & 0xffu) - 127;
}
