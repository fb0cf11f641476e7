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

// The exponent k with 2^k <= |x| < 2^(k+1) of a normal x.
fn ilogb_of(x: f64) -> i32 {
    return frexp(x).exp - 1;
}
