// Mandelbrot kernels: the CUDA twins of `mandelbrot_row` in src/sim/mandelbrot.rs (run by
// src/backend/cpu/mandelbrot.rs) and of shaders/mandelbrot.wgsl; one template, two precisions.
// Compiled by NVRTC with --fmad=false, so every multiply and add rounds as the CPU's
// do; the one fma below is an exact rewrite. Counts are then the CPU's, bit for bit.
//
// Pixel (row y, col x) has c = (minx + x*px) + i*(miny + y*py) in double (rounded to
// float for the f32 kernel). z0 = 0, z_{k+1} = z_k^2 + c; the count is the first k in
// 0..iters with |z_{k+1}|^2 >= 4, else iters. Each block adds the iterations executed,
// min(count + 1, iters) per pixel, to *total with one atomicAdd.

#define MB_ROWS_PER_THREAD 4  // a block of 32 x 8 threads covers 32 x 32 pixels
#define MB_CHUNK 8            // iterations between escape checks

// One iteration, as the CPU writes it: nr = zr*zr - zi*zi + cr; ni = zr*zi + zi*zr + ci.
// zr2 and zi2 are the squares of the current z (they are also the next |z|^2 terms);
// zr*zi + zi*zr = 2*(zr*zi) exactly, so fma(2, p, ci) rounds exactly like (p + p) + ci.
template <typename T>
__device__ __forceinline__ void mandel_step(T& zr, T& zi, T& zr2, T& zi2, T cr, T ci) {
    const T p = zr * zi;
    const T nr = (zr2 - zi2) + cr;
    const T ni = fma(T(2), p, ci);
    zr = nr;
    zi = ni;
    zr2 = zr * zr;
    zi2 = zi * zi;
}

// True when c lies well inside the main cardioid or the period-2 bulb: there the orbit is
// drawn to an attracting fixed point (2-cycle) with multiplier |lambda| < 0.95, so it
// never escapes, in exact or rounded arithmetic, and the count is iters. The margin keeps
// every point near the boundary, where rounding could matter, on the full loop.
__device__ __forceinline__ bool surely_inside(double cr, double ci) {
    // Period-2 bulb: lambda = 4(c + 1).
    const double br = cr + 1.0;
    if (16.0 * (br * br + ci * ci) < 0.9) return true;
    // Main cardioid: lambda = 1 - sqrt(1 - 4c).
    const double a = 1.0 - 4.0 * cr, b = -4.0 * ci;
    const double r = sqrt(a * a + b * b);
    const double wr = sqrt(0.5 * (r + a));
    const double wi = copysign(sqrt(fmax(0.0, 0.5 * (r - a))), b);
    const double lr = 1.0 - wr;
    return lr * lr + wi * wi < 0.9;
}

template <typename T>
__device__ __forceinline__ int escape_count(T cr, T ci, int iters) {
    T zr = 0, zi = 0, zr2 = 0, zi2 = 0;
    int k = 0;
    // Chunks of MB_CHUNK iterations with one check: an escaped orbit never comes back
    // under |z|^2 < 4 (it grows, or overflows to inf/NaN, which also fails the test).
    while (k + MB_CHUNK <= iters) {
        const T sr = zr, si = zi, sr2 = zr2, si2 = zi2;
#pragma unroll
        for (int u = 0; u < MB_CHUNK; ++u) mandel_step(zr, zi, zr2, zi2, cr, ci);
        if (!(zr2 + zi2 < T(4))) {
            zr = sr; zi = si; zr2 = sr2; zi2 = si2;
            break;
        }
        k += MB_CHUNK;
    }
    // The exact escape step: from the last state known inside, one iteration at a time.
    for (; k < iters; ++k) {
        mandel_step(zr, zi, zr2, zi2, cr, ci);
        if (zr2 + zi2 >= T(4)) return k;
    }
    return iters;
}

template <typename T>
__device__ __forceinline__ void mandelbrot(int width, int height, double minx, double miny, double px, double py,
                                           int iters, void* __restrict__ counts, int narrow,
                                           unsigned long long* __restrict__ total) {
    const int x = blockIdx.x * 32 + threadIdx.x;
    unsigned long long executed = 0;
    if (x < width) {
        const double crd = minx + (double)x * px;
#pragma unroll 1
        for (int k = 0; k < MB_ROWS_PER_THREAD; ++k) {
            const int y = (blockIdx.y * 8 + threadIdx.y) * MB_ROWS_PER_THREAD + k;
            if (y >= height) break;
            const double cid = miny + (double)y * py;
            const T cr = (T)crd, ci = (T)cid;
            const int count =
                surely_inside((double)cr, (double)ci) ? iters : escape_count<T>(cr, ci, iters);
            const long long at = (long long)y * width + x;
            if (narrow)
                ((unsigned short*)counts)[at] = (unsigned short)count;
            else
                ((int*)counts)[at] = count;
            executed += (unsigned long long)(count < iters ? count + 1 : iters);
        }
    }
    // Warp sum, then one atomic per block.
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) executed += __shfl_down_sync(0xffffffffu, executed, o);
    __shared__ unsigned long long warp_sums[8];
    if (threadIdx.x == 0) warp_sums[threadIdx.y] = executed;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        unsigned long long s = 0;
#pragma unroll
        for (int w = 0; w < 8; ++w) s += warp_sums[w];
        atomicAdd(total, s);
    }
}

// Grid (ceil(width/32), ceil(height/32)), block (32, 8). With `narrow` the counts are
// written as u16 (iters <= 65535), halving the copy to the host.
extern "C" __global__ void __launch_bounds__(256)
    mandelbrot_f64(int width, int height, double minx, double miny, double px, double py, int iters,
                   void* __restrict__ counts, int narrow, unsigned long long* __restrict__ total) {
    mandelbrot<double>(width, height, minx, miny, px, py, iters, counts, narrow, total);
}

extern "C" __global__ void __launch_bounds__(256)
    mandelbrot_f32(int width, int height, double minx, double miny, double px, double py, int iters,
                   void* __restrict__ counts, int narrow, unsigned long long* __restrict__ total) {
    mandelbrot<float>(width, height, minx, miny, px, py, iters, counts, narrow, total);
}
