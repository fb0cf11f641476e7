// The f32 variant of shaders/mandelbrot_deep.wgsl (every adapter): deltas as an f32 mantissa
// and an i32 exponent; spliced in where it says `//#include DELTA`.

alias real = f32;

const PLAIN_MIN_EXP: i32 = -52;
const MAX_EXP: i32 = 127;
const MIN_EXP: i32 = -126;

// 2^n for n in MIN_EXP..=MAX_EXP, from its bits.
fn pow2i(n: i32) -> f32 {
    return bitcast<f32>(u32(n + 127) << 23u);
}

// The exponent k with 2^k <= |x| < 2^(k+1) of a normal x.
fn ilogb_of(x: f32) -> i32 {
    return i32((bitcast<u32>(x) >> 23u) & 0xffu) - 127;
}
