// Issue 26 experiment: 2.5D streaming temporal blocking for the seed's wave rule.
// A block owns a strip of columns (halo K on each side) and a segment of rows (halo K above and
// below) and walks down the rows once, keeping K time levels of the last 4 rows in registers:
// level L computes row t - 2L at step t, so every level of a step reads only rows produced in
// earlier steps (one __syncthreads per step, for the warp-edge columns). Each pass does K updates
// (K/2 time steps) and reads f, g once and writes them once. Checked bit for bit against the
// one-update-per-launch kernel (the project's `simple` variant), timed with CUDA events.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

__device__ __forceinline__ float update_cell(float c2, float f, float g, float up, float down, float left, float right) {
    float s = __fadd_rn(__fadd_rn(__fadd_rn(up, down), left), right);
    float t = __fmul_rn(c2, fmaf(-4.0f, g, s));
    return __fsub_rn(fmaf(2.0f, g, t), f);
}

__global__ void wave_update(int nx, int ny, float c2, float* __restrict__ f, const float* __restrict__ g,
                            long long src_g, long long src_f, float sval) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1) return;
    const long long idx = (long long)i * ny + j;
    float gc = g[idx], up = g[idx - ny], down = g[idx + ny], left = g[idx - 1], right = g[idx + 1];
    float fc = f[idx];
    if (src_g >= 0) {
        if (idx == src_g) gc = sval;
        if (idx - ny == src_g) up = sval;
        if (idx + ny == src_g) down = sval;
        if (idx - 1 == src_g) left = sval;
        if (idx + 1 == src_g) right = sval;
    }
    if (idx == src_f) fc = sval;
    f[idx] = update_cell(c2, fc, gc, up, down, left, right);
}

struct Args {
    int nx, ny;
    float c2;
    const float* f_in;
    const float* g_in;
    float* f_out;
    float* g_out;
    int src_i, src_j;
    const float* svals;  // K/2 values of this pass
    int seg;             // output rows per block
};

template <int K, int CW, int WARPS>
struct Stream {
    static constexpr int W = 32 * CW * WARPS;  // loaded columns
    static constexpr int OW = W - 2 * K;       // output columns

    float R[K + 1][4][CW];  // level L's rows, slot = production step % 4
    float F[2][CW];         // f rows, slot = row % 2
    float PF[4][CW], PG[4][CW];  // rows of f and g fetched ahead, slot = row % 4
    int col[CW];
    bool zcol[CW], scol[CW], ocol[CW];

    template <int P>
    __device__ __forceinline__ void fetch(const Args& a, int row, int rhi) {
#pragma unroll
        for (int c = 0; c < CW; ++c) {
            const bool in = row < rhi && col[c] >= 0 && col[c] < a.ny;
            const long long idx = (long long)row * a.ny + col[c];
            PG[P][c] = in ? __ldg(a.g_in + idx) : 0.0f;
            PF[P][c] = in ? __ldg(a.f_in + idx) : 0.0f;
        }
    }

    // One step t (t % 4 == P). FAST: every level's row and the load are inside [rlo, rhi), so no
    // level is skipped (no branch between the levels). SRC: the source may be met in this step.
    template <int P, bool FAST, bool SRC>
    __device__ __forceinline__ void step(const Args& a, const float* ssv, int t, int rlo, int rhi, int i0, int i1,
                                         float (*edge)[K + 1][WARPS][2]) {
        const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
        constexpr int sc = (P + 2) & 3, su = (P + 1) & 3, sd = (P + 3) & 3, so = P & 3;
#pragma unroll
        for (int L = K; L >= 1; --L) {
            const int r = t - 2 * L;
            if (!FAST && (r < rlo || r >= rhi)) continue;
            const float lsh = __shfl_up_sync(0xffffffffu, R[L - 1][sc][CW - 1], 1);
            const float rsh = __shfl_down_sync(0xffffffffu, R[L - 1][sc][0], 1);
            const float el = edge[sc][L - 1][w > 0 ? w - 1 : 0][1];
            const float er = edge[sc][L - 1][w < WARPS - 1 ? w + 1 : WARPS - 1][0];
            const float lft = lane == 0 ? el : lsh;
            const float rgt = lane == 31 ? er : rsh;
            const bool zrow = r == 0 || r == a.nx - 1;
#pragma unroll
            for (int c = 0; c < CW; ++c) {
                const float old = L == 1 ? F[(P + 2) & 1][c] : R[L >= 2 ? L - 2 : 0][so][c];
                const float l = c > 0 ? R[L - 1][sc][c - 1] : lft;
                const float rr = c < CW - 1 ? R[L - 1][sc][c + 1] : rgt;
                float x = update_cell(a.c2, old, R[L - 1][sc][c], R[L - 1][su][c], R[L - 1][sd][c], l, rr);
                x = (zrow || zcol[c]) ? 0.0f : x;
                if (SRC && (L & 1) == 0 && L < K) x = (scol[c] && r == a.src_i) ? ssv[L / 2] : x;
                R[L][P][c] = x;
            }
        }
        // the edge columns of each warp for the other warps, the outputs
#pragma unroll
        for (int L = K; L >= 1; --L) {
            const int r = t - 2 * L;
            if (!FAST && (r < rlo || r >= rhi)) continue;
            if (lane == 0) edge[P][L][w][0] = R[L][P][0];
            if (lane == 31) edge[P][L][w][1] = R[L][P][CW - 1];
        }
#pragma unroll
        for (int L = K - 1; L <= K; ++L) {
            const int r = t - 2 * L;
            if (r >= i0 && r < i1) {
                float* out = L == K ? a.g_out : a.f_out;
#pragma unroll
                for (int c = 0; c < CW; ++c)
                    if (ocol[c]) out[(long long)r * a.ny + col[c]] = R[L][P][c];
            }
        }
        // row t of f and g (level 0), prefetched four steps ago; then prefetch row t + 4
        if (FAST || (t >= rlo && t < rhi)) {
#pragma unroll
            for (int c = 0; c < CW; ++c) {
                float gv = PG[P][c];
                if (SRC) gv = (scol[c] && t == a.src_i) ? ssv[0] : gv;
                R[0][P][c] = gv;
                F[P & 1][c] = PF[P][c];
            }
            if (lane == 0) edge[P][0][w][0] = R[0][P][0];
            if (lane == 31) edge[P][0][w][1] = R[0][P][CW - 1];
        }
        fetch<P>(a, t + 4, rhi);
        __syncthreads();
    }

    template <bool FAST, bool SRC>
    __device__ __forceinline__ void four(const Args& a, const float* ssv, int t, int rlo, int rhi, int i0, int i1,
                                         float (*edge)[K + 1][WARPS][2]) {
        step<0, FAST, SRC>(a, ssv, t, rlo, rhi, i0, i1, edge);
        step<1, FAST, SRC>(a, ssv, t + 1, rlo, rhi, i0, i1, edge);
        step<2, FAST, SRC>(a, ssv, t + 2, rlo, rhi, i0, i1, edge);
        step<3, FAST, SRC>(a, ssv, t + 3, rlo, rhi, i0, i1, edge);
    }
};

template <int K, int CW, int WARPS, int MINB>
__global__ void __launch_bounds__(32 * WARPS, MINB) wave_stream(Args a) {
    using S = Stream<K, CW, WARPS>;
    __shared__ float edge[4][K + 1][WARPS][2];
    __shared__ float ssv[K / 2];
    S s;
    const int j0 = blockIdx.x * S::OW, jl = j0 - K;
    const int i0 = blockIdx.y * a.seg, i1 = min(a.nx, i0 + a.seg);
    if (i0 >= a.nx) return;
    const int rlo = max(0, i0 - K), rhi = min(a.nx, i1 + K);
    if (threadIdx.x < K / 2) ssv[threadIdx.x] = a.svals[threadIdx.x];
    for (int k = threadIdx.x; k < 4 * (K + 1) * WARPS * 2; k += blockDim.x) (&edge[0][0][0][0])[k] = 0.0f;
    const bool src_strip = a.src_j >= jl && a.src_j < jl + S::W;
#pragma unroll
    for (int c = 0; c < CW; ++c) {
        const int cc = jl + (int)threadIdx.x * CW + c;
        s.col[c] = cc;
        s.zcol[c] = cc <= 0 || cc >= a.ny - 1;
        s.scol[c] = cc == a.src_j;
        s.ocol[c] = cc >= j0 && cc < j0 + S::OW && cc < a.ny;
#pragma unroll
        for (int p = 0; p < 4; ++p)
#pragma unroll
            for (int L = 0; L <= K; ++L) s.R[L][p][c] = 0.0f;
        s.F[0][c] = s.F[1][c] = 0.0f;
    }
    {
        const int t0 = rlo & ~3;
        if (t0 >= rlo) s.template fetch<0>(a, t0, rhi);
        if (t0 + 1 >= rlo) s.template fetch<1>(a, t0 + 1, rhi);
        if (t0 + 2 >= rlo) s.template fetch<2>(a, t0 + 2, rhi);
        if (t0 + 3 >= rlo) s.template fetch<3>(a, t0 + 3, rhi);
    }
    __syncthreads();
    const int tend = rhi - 1 + 2 * K;
    for (int t = rlo & ~3; t <= tend; t += 4) {
        const bool fast = t >= rlo + 2 * K && t + 3 < rhi;
        const bool src = src_strip && a.src_i >= t - 2 * K - 1 && a.src_i <= t + 4;
        if (fast && !src) s.template four<true, false>(a, ssv, t, rlo, rhi, i0, i1, edge);
        else s.template four<false, true>(a, ssv, t, rlo, rhi, i0, i1, edge);
    }
}

static float source_value(double freq, unsigned t) { return (float)sin(freq * (double)t); }

struct Bufs { float *f, *g, *f2, *g2, *sv; };

// reference: `updates` updates from zero with the simple kernel
static void run_reference(int nx, int ny, int updates, float* f, float* g, const std::vector<float>& sv) {
    dim3 b(32, 8), gr((ny + 31) / 32, (nx + 7) / 8);
    long long src = (long long)(nx / 2) * ny + ny / 2;
    for (int s = 0; s < updates / 2; ++s) {
        wave_update<<<gr, b>>>(nx, ny, 0.25f, f, g, src, -1, sv[s]);
        wave_update<<<gr, b>>>(nx, ny, 0.25f, g, f, -1, src, sv[s]);
    }
}

template <int K, int CW, int WARPS, int MINB>
static void run_stream(int nx, int ny, int updates, Bufs& B, int segs, bool timed, const char* name,
                       const std::vector<float>* refF, const std::vector<float>* refG) {
    using S = Stream<K, CW, WARPS>;
    size_t n = (size_t)nx * ny;
    CK(cudaMemset(B.f, 0, n * 4)); CK(cudaMemset(B.g, 0, n * 4));
    CK(cudaMemset(B.f2, 0, n * 4)); CK(cudaMemset(B.g2, 0, n * 4));
    int strips = (ny + S::OW - 1) / S::OW;
    int seg = (nx + segs - 1) / segs;
    dim3 grid(strips, (nx + seg - 1) / seg);
    float *fi = B.f, *gi = B.g, *fo = B.f2, *go = B.g2;
    int passes = updates / K;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    for (int p = 0; p < passes; ++p) {
        Args a{nx, ny, 0.25f, fi, gi, fo, go, nx / 2, ny / 2, B.sv + p * (K / 2), seg};
        wave_stream<K, CW, WARPS, MINB><<<grid, 32 * WARPS>>>(a);
        std::swap(fi, fo); std::swap(gi, go);
    }
    cudaEventRecord(e1); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    cudaFuncAttributes at; cudaFuncGetAttributes(&at, wave_stream<K, CW, WARPS, MINB>);
    int occ = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, wave_stream<K, CW, WARPS, MINB>, 32 * WARPS, 0);
    if (!name) return;
    const char* verdict = "";
    char buf[128] = "";
    if (refF) {
        std::vector<float> hf(n), hg(n);
        CK(cudaMemcpy(hf.data(), fi, n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hg.data(), gi, n * 4, cudaMemcpyDeviceToHost));
        size_t bad = 0; double md = 0;
        for (size_t k = 0; k < n; ++k) {
            if (memcmp(&hf[k], &(*refF)[k], 4) || memcmp(&hg[k], &(*refG)[k], 4)) ++bad;
            md = fmax(md, fabs((double)hf[k] - (*refF)[k]));
            md = fmax(md, fabs((double)hg[k] - (*refG)[k]));
        }
        snprintf(buf, sizeof buf, "bits: %s (%zu cells differ, max|diff| %.3g)", bad ? "DIFFER" : "same", bad, md);
        verdict = buf;
    }
    printf("%-26s %5dx%-5d K=%2d CW=%d W=%2d minb=%d regs=%3d local=%zu occ=%d blocks=%dx%d: %8.2f us/update %s\n",
           name, nx, ny, K, CW, WARPS, MINB, at.numRegs, (size_t)at.localSizeBytes, occ, grid.x, grid.y,
           1000.0 * ms / (passes * K), verdict);
}

int main(int argc, char** argv) {
    cudaDeviceProp pr; cudaGetDeviceProperties(&pr, 0);
    printf("%s, %d SMs\n", pr.name, pr.multiProcessorCount);
    int sizes[][2] = {{1000, 800}, {1001, 777}, {4096, 4096}, {8192, 8192}};
    for (auto& sz : sizes) {
        int nx = sz[0], ny = sz[1];
        size_t n = (size_t)nx * ny;
        Bufs B;
        CK(cudaMalloc(&B.f, n * 4)); CK(cudaMalloc(&B.g, n * 4)); CK(cudaMalloc(&B.f2, n * 4)); CK(cudaMalloc(&B.g2, n * 4));
        const int check_updates = 96 * 2;  // divisible by 8, 12, 16, 24, 32
        const int time_updates = nx >= 8192 ? 192 : 480;
        std::vector<float> sv(time_updates);
        for (int s = 0; s < time_updates; ++s) sv[s] = source_value(0.1, s + 1);
        CK(cudaMalloc(&B.sv, sv.size() * 4));
        CK(cudaMemcpy(B.sv, sv.data(), sv.size() * 4, cudaMemcpyHostToDevice));
        // reference
        CK(cudaMemset(B.f, 0, n * 4)); CK(cudaMemset(B.g, 0, n * 4));
        run_reference(nx, ny, check_updates, B.f, B.g, sv);
        std::vector<float> rf(n), rg(n);
        CK(cudaMemcpy(rf.data(), B.f, n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(rg.data(), B.g, n * 4, cudaMemcpyDeviceToHost));
        // simple kernel timing
        {
            cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
            cudaEventRecord(e0); run_reference(nx, ny, 96, B.f, B.g, sv); cudaEventRecord(e1); cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            printf("%-26s %5dx%-5d %8.2f us/update\n", "simple (one per launch)", nx, ny, 1000.0 * ms / 96);
        }
        int segs = nx >= 8192 ? 8 : nx >= 4096 ? 16 : 4;
#define TRY(K, CW, WP, MB, SEGS)                                                                 \
    run_stream<K, CW, WP, MB>(nx, ny, check_updates, B, SEGS, false, "stream check", &rf, &rg);   \
    run_stream<K, CW, WP, MB>(nx, ny, time_updates, B, SEGS, true, nullptr, nullptr, nullptr); \
    run_stream<K, CW, WP, MB>(nx, ny, time_updates, B, SEGS, true, "stream", nullptr, nullptr);
        TRY(8, 2, 8, 2, segs)
        TRY(12, 1, 8, 3, segs * 2)
        TRY(12, 2, 8, 1, segs * 2)
        TRY(16, 1, 8, 2, segs * 2)
        TRY(16, 1, 8, 2, segs * 4)
        TRY(16, 1, 16, 1, segs * 2)
        TRY(16, 1, 4, 4, segs * 2)
        TRY(20, 1, 8, 2, segs * 2)
        cudaFree(B.f); cudaFree(B.g); cudaFree(B.f2); cudaFree(B.g2); cudaFree(B.sv);
    }
    return 0;
}
