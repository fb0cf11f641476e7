// The smooth escape value of src/sim/mandelbrot.rs (`smooth_value`): the continuous count
// ν = n - log2(log2 |z_n|), clamped to [0, iters], from the index n of an iterate with
// |z_n|^2 = mag2, taken after up to SMOOTH_EXTRA_ITERS iterations past the escape, until
// |z|^2 >= SMOOTH_RADIUS_SQ. Computed in f32 here (WGSL's log2 has no f64), in f64 on the CPU.

const SMOOTH_RADIUS_SQ: f32 = 65536.0;
const SMOOTH_EXTRA_ITERS: u32 = 32u;

fn smooth_value(n: u32, mag2: f32, iters: u32) -> f32 {
    let nu = f32(n) - log2(0.5 * log2(mag2));
    // NaN (an orbit that overflowed) fails the test: 0, as the CPU.
    if !(nu >= 0.0) {
        return 0.0;
    }
    return min(nu, f32(iters));
}
