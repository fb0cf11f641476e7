// Julia sets of z^2 + c, and the Mandelbrot set with smooth values: the CUDA twins of
// `julia_row` in src/sim/julia.rs (run by src/backend/cpu/julia.rs) and of shaders/julia.wgsl;
// for the Mandelbrot mode, of `mandelbrot_row_smooth` in src/sim/mandelbrot.rs. One template,
// two precisions. Compiled by NVRTC with --fmad=false, so every multiply and add rounds as the
// CPU's do (the one fma below is an exact rewrite): the counts are the CPU's, bit for bit.
//
// Pixel (row y, col x) is p = (minx + x*px) + i(miny + y*py) in double (rounded to float for
// the f32 kernel). Julia (mandel = 0): z0 = p, c fixed. Mandelbrot (mandel = 1): z0 = 0, c = p.
// z_{k+1} = z_k^2 + c; the count is the first k in 0..iters with |z_{k+1}|^2 >= 4, else iters.
// With want_smooth, the smooth value (`smooth_value` in src/sim/mandelbrot.rs) goes to smooth:
// up to SMOOTH_EXTRA_ITERS iterations past the escape, until |z|^2 >= SMOOTH_RADIUS_SQ, then
// nu = n - log2(log2 |z_n|) in double, clamped to [0, iters]. Each block adds the iterations
// executed, min(count + 1, iters) per pixel, to *total with one atomicAdd.
//
// julia_de_f64 / julia_de_f32: julia_* with a derivative beside the orbit (kernels of their
// own, so julia_* keep their speed). Mandelbrot mode (mandel = 1): dz/dc, dz0 = 0,
// dz' = 2 z dz + 1, the twins of `distance_row` in src/sim/fractal/distance.rs; Julia mode
// (mandel = 0): dz/dz0, dz0 = 1, dz' = 2 z dz (+ 0), the twins of `julia_distance_row`. Counts
// and smooth values are julia_*'s; de gets per pixel the distance estimate |z| ln|z| / |dz| in
// pixels (of width px) and the unit normal z/dz / |z/dz|.

#define JULIA_SMOOTH_RADIUS_SQ 65536.0
#define JULIA_SMOOTH_EXTRA_ITERS 32

// One iteration, as the CPU writes it: nr = zr*zr - zi*zi + cr; ni = zr*zi + zi*zr + ci.
// zr*zi + zi*zr = 2*(zr*zi) exactly, so fma(2, p, ci) rounds exactly like (p + p) + ci.
template <typename T>
__device__ __forceinline__ void julia_step(T& zr, T& zi, T& zr2, T& zi2, T cr, T ci) {
    const T p = zr * zi;
    const T nr = (zr2 - zi2) + cr;
    const T ni = fma(T(2), p, ci);
    zr = nr;
    zi = ni;
    zr2 = zr * zr;
    zi2 = zi * zi;
}

// `smooth_value` of src/sim/mandelbrot.rs.
__device__ __forceinline__ float julia_smooth_value(unsigned n, double mag2, int iters) {
    const double nu = (double)n - log2(0.5 * log2(mag2));
    if (!(nu >= 0.0)) return 0.0f;  // NaN too, as the CPU
    return (float)fmin(nu, (double)iters);
}

// The count of the orbit from (zr, zi) and, when nu is not null, its smooth value.
template <typename T>
__device__ __forceinline__ int julia_orbit(T zr, T zi, T cr, T ci, int iters, float* nu) {
    T zr2 = zr * zr, zi2 = zi * zi;
    for (int k = 0; k < iters; ++k) {
        julia_step(zr, zi, zr2, zi2, cr, ci);
        if (zr2 + zi2 >= T(4)) {
            if (nu) {
                unsigned n = (unsigned)k + 1u;
                T mag2 = zr2 + zi2;
                for (int j = 0; j < JULIA_SMOOTH_EXTRA_ITERS; ++j) {
                    if (mag2 >= T(JULIA_SMOOTH_RADIUS_SQ)) break;
                    julia_step(zr, zi, zr2, zi2, cr, ci);
                    mag2 = zr2 + zi2;
                    ++n;
                }
                *nu = julia_smooth_value(n, (double)mag2, iters);
            }
            return k;
        }
    }
    if (nu) *nu = (float)iters;
    return iters;
}

template <typename T>
__device__ __forceinline__ void julia(int width, int height, double minx, double miny, double px, double py,
                                      double cr, double ci, int mandel, int iters, int* __restrict__ counts,
                                      float* __restrict__ smooth, int want_smooth,
                                      unsigned long long* __restrict__ total) {
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y = blockIdx.y * 8 + threadIdx.y;
    unsigned long long executed = 0;
    if (x < width && y < height) {
        const T pr = (T)(minx + (double)x * px);
        const T pi = (T)(miny + (double)y * py);
        float nu = 0.0f;
        float* out = want_smooth ? &nu : nullptr;
        const int count = mandel ? julia_orbit<T>(T(0), T(0), pr, pi, iters, out)
                                 : julia_orbit<T>(pr, pi, (T)cr, (T)ci, iters, out);
        const long long at = (long long)y * width + x;
        counts[at] = count;
        if (want_smooth) smooth[at] = nu;
        executed = (unsigned long long)(count < iters ? count + 1 : iters);
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

// Grid (ceil(width/32), ceil(height/8)), block (32, 8), one pixel a thread. `smooth` must point
// to width*height floats when want_smooth is 1 (any valid pointer otherwise).
extern "C" __global__ void __launch_bounds__(256)
    julia_f64(int width, int height, double minx, double miny, double px, double py, double cr, double ci,
              int mandel, int iters, int* __restrict__ counts, float* __restrict__ smooth, int want_smooth,
              unsigned long long* __restrict__ total) {
    julia<double>(width, height, minx, miny, px, py, cr, ci, mandel, iters, counts, smooth, want_smooth, total);
}

extern "C" __global__ void __launch_bounds__(256)
    julia_f32(int width, int height, double minx, double miny, double px, double py, double cr, double ci,
              int mandel, int iters, int* __restrict__ counts, float* __restrict__ smooth, int want_smooth,
              unsigned long long* __restrict__ total) {
    julia<float>(width, height, minx, miny, px, py, cr, ci, mandel, iters, counts, smooth, want_smooth, total);
}

// One step of the derivative, dz' = 2 z dz + add (add = 1: dz/dc; 0: dz/dz0), from the z
// before the step, as `orbit_distance_*` of src/sim/fractal/distance.rs writes it.
template <typename T>
__device__ __forceinline__ void julia_de_step(T zr, T zi, T& dr, T& di, T add) {
    const T ndr = T(2) * (zr * dr - zi * di) + add;
    const T ndi = T(2) * (zr * di + zi * dr);
    dr = ndr;
    di = ndi;
}

// True for a finite x (x - x is NaN for an infinity or a NaN); isfinite is not in scope when
// this file is compiled as host C++ (tests/host/).
__device__ __forceinline__ bool julia_finite(double x) { return x - x == 0.0; }

// `distance_and_normal` of src/sim/fractal/distance.rs, in double, the distance over px.
__device__ __forceinline__ void julia_de_out(double zr, double zi, double dr, double di, double px, float* out) {
    const double mag = hypot(zr, zi);
    const double d = mag * log(mag) / hypot(dr, di);
    const double ur = zr * dr + zi * di, ui = zi * dr - zr * di;
    const double norm = hypot(ur, ui);
    const bool ok = norm > 0.0 && julia_finite(norm);
    out[0] = julia_finite(d) ? (float)(d / px) : 0.0f;
    out[1] = ok ? (float)(ur / norm) : 0.0f;
    out[2] = ok ? (float)(ui / norm) : 0.0f;
}

// The orbit from (zr, zi) with the derivative from (d0, 0), adding `add` at each step.
template <typename T>
__device__ __forceinline__ int julia_de_orbit(T zr, T zi, T cr, T ci, T d0, T add, int iters, double px, float* nu,
                                              float* de) {
    T zr2 = zr * zr, zi2 = zi * zi, dr = d0, di = T(0);
    for (int k = 0; k < iters; ++k) {
        julia_de_step(zr, zi, dr, di, add);
        julia_step(zr, zi, zr2, zi2, cr, ci);
        if (zr2 + zi2 >= T(4)) {
            unsigned n = (unsigned)k + 1u;
            T mag2 = zr2 + zi2;
            for (int j = 0; j < JULIA_SMOOTH_EXTRA_ITERS; ++j) {
                if (mag2 >= T(JULIA_SMOOTH_RADIUS_SQ)) break;
                julia_de_step(zr, zi, dr, di, add);
                julia_step(zr, zi, zr2, zi2, cr, ci);
                mag2 = zr2 + zi2;
                ++n;
            }
            *nu = julia_smooth_value(n, (double)mag2, iters);
            julia_de_out((double)zr, (double)zi, (double)dr, (double)di, px, de);
            return k;
        }
    }
    *nu = (float)iters;
    de[0] = de[1] = de[2] = 0.0f;
    return iters;
}

template <typename T>
__device__ __forceinline__ void julia_de(int width, int height, double minx, double miny, double px, double py,
                                         double cr, double ci, int mandel, int iters, int* __restrict__ counts,
                                         float* __restrict__ smooth, float* __restrict__ de,
                                         unsigned long long* __restrict__ total) {
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y = blockIdx.y * 8 + threadIdx.y;
    unsigned long long executed = 0;
    if (x < width && y < height) {
        const T pr = (T)(minx + (double)x * px);
        const T pi = (T)(miny + (double)y * py);
        const long long at = (long long)y * width + x;
        float d[3];
        float nu = 0.0f;
        const int count = mandel ? julia_de_orbit<T>(T(0), T(0), pr, pi, T(0), T(1), iters, px, &nu, d)
                                 : julia_de_orbit<T>(pr, pi, (T)cr, (T)ci, T(1), T(0), iters, px, &nu, d);
        counts[at] = count;
        smooth[at] = nu;
        de[3 * at] = d[0];
        de[3 * at + 1] = d[1];
        de[3 * at + 2] = d[2];
        executed = (unsigned long long)(count < iters ? count + 1 : iters);
    }
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

// Grid (ceil(width/32), ceil(height/8)), block (32, 8), one pixel a thread; smooth holds
// width*height floats, de 3*width*height.
extern "C" __global__ void __launch_bounds__(256)
    julia_de_f64(int width, int height, double minx, double miny, double px, double py, double cr, double ci,
                 int mandel, int iters, int* __restrict__ counts, float* __restrict__ smooth, float* __restrict__ de,
                 unsigned long long* __restrict__ total) {
    julia_de<double>(width, height, minx, miny, px, py, cr, ci, mandel, iters, counts, smooth, de, total);
}

extern "C" __global__ void __launch_bounds__(256)
    julia_de_f32(int width, int height, double minx, double miny, double px, double py, double cr, double ci,
                 int mandel, int iters, int* __restrict__ counts, float* __restrict__ smooth, float* __restrict__ de,
                 unsigned long long* __restrict__ total) {
    julia_de<float>(width, height, minx, miny, px, py, cr, ci, mandel, iters, counts, smooth, de, total);
}
