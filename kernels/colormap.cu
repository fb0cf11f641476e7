// Colormap kernels: the CUDA twins of `wave_rgba` in src/sim/colormap.rs (run on all cores by
// src/backend/cpu/colormap.rs) and of shaders/colormap.wgsl. Compiled by NVRTC with the wave
// kernels' options (src/backend/cuda/mod.rs).

// matplotlib's `hot` index: floor(t*256) clipped to 0..255 with t in double, NaN -> 0,
// exactly `lut_index` of src/sim/colormap.rs.
__device__ __forceinline__ int lut_index(float v, double vmin, double vmax) {
    const double t = ((double)v - vmin) / (vmax - vmin);
    const double x = floor(t * 256.0);
    if (!(x >= 0.0)) return 0;
    return x > 255.0 ? 255 : (int)x;
}

// The field f through `hot` into RGBA8 (one u32 per pixel, bytes R,G,B,A) in the seed's
// orientation: picture row ny-1-j, column i. A 32x32 tile goes through shared memory so
// that both the reads (along j) and the writes (along i) are coalesced. Block (32, 8).
extern "C" __global__ void wave_rgba(const float* __restrict__ f, int nx, int ny, double vmin, double vmax,
                                     const unsigned* __restrict__ lut, unsigned* __restrict__ rgba) {
    __shared__ unsigned char tile[32][33];
    const int i0 = blockIdx.y * 32, j0 = blockIdx.x * 32;
    for (int k = threadIdx.y; k < 32; k += 8) {
        const int i = i0 + k, j = j0 + threadIdx.x;
        if (i < nx && j < ny) tile[k][threadIdx.x] = (unsigned char)lut_index(f[(long long)i * ny + j], vmin, vmax);
    }
    __syncthreads();
    for (int k = threadIdx.y; k < 32; k += 8) {
        const int j = j0 + k, i = i0 + threadIdx.x;
        if (i < nx && j < ny) rgba[(long long)(ny - 1 - j) * nx + i] = lut[tile[threadIdx.x][k]];
    }
}

// `wave_rgba` taken every `stride`-th pixel from the top-left one: the `w x h` picture
// (w = ceil(nx/stride), h = ceil(ny/stride)) of the cells i = x*stride, j = ny-1-y*stride,
// exactly the full picture subsampled (`wave_rgba_strided` in src/sim/colormap.rs). Only
// those cells are read and only w*h pixels written, so a big grid's frame is small. One
// thread per pixel; block (32, 8).
extern "C" __global__ void wave_rgba_strided(const float* __restrict__ f, int nx, int ny, double vmin, double vmax,
                                             int stride, const unsigned* __restrict__ lut,
                                             unsigned* __restrict__ rgba) {
    const int w = (nx + stride - 1) / stride, h = (ny + stride - 1) / stride;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const long long i = (long long)x * stride, j = (long long)(ny - 1) - (long long)y * stride;
    rgba[(long long)y * w + x] = lut[lut_index(f[i * ny + j], vmin, vmax)];
}
