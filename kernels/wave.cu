// Wave kernels: the CUDA twins of `wave_update` / `wave_tstep` in src/backend/cpu/wave.rs and of
// shaders/wave.wgsl (variant `simple`) and shaders/wave_blocked.wgsl (variant `blocked`).
// Compiled at run time by NVRTC (src/backend/cuda/mod.rs) with -DWAVE_R, -DWAVE_WARPS,
// -DWAVE_K, -DWAVE_CW and -DWAVE_MINB set from the Rust side (src/backend/cuda/wave.rs).
//
// Fields are row-major, f[i*ny + j], j the fast index. Only interior cells are updated;
// the border stays 0.

#ifndef WAVE_R
#define WAVE_R 8      // rows of the tile each thread owns
#endif
#ifndef WAVE_WARPS
#define WAVE_WARPS 8  // warps per block, stacked along i
#endif
#ifndef WAVE_K
#define WAVE_K 8      // halo width = most updates (2 per time step) one launch may do
#endif
#ifndef WAVE_MINB
#define WAVE_MINB 1   // blocks per SM the register budget must allow
#endif
#ifndef WAVE_CW
#define WAVE_CW 2     // columns per lane
#endif
#define WAVE_TJ (32 * WAVE_CW)            // tile width along j
#define WAVE_TI (WAVE_WARPS * WAVE_R)     // tile height along i
#define WAVE_OJ (WAVE_TJ - 2 * WAVE_K)    // output width along j
#define WAVE_OI (WAVE_TI - 2 * WAVE_K)    // output height along i

// One cell of update(f, g) in numpy's order, bit for bit the CPU's `update_cell`:
// c2*(up + down + left + right - 4*g) + 2*g - f. The two fmaf are exact rewrites
// (4*g and 2*g are exact), so no rounding differs from the unfused CPU code.
__device__ __forceinline__ float update_cell(float c2, float f, float g, float up, float down, float left,
                                             float right) {
    float s = __fadd_rn(__fadd_rn(__fadd_rn(up, down), left), right);
    float t = __fmul_rn(c2, fmaf(-4.0f, g, s));
    return __fsub_rn(fmaf(2.0f, g, t), f);
}

// update(f, g) for one update, one thread per cell on a 2D grid (x along j, y along i).
// The source is fused: where a read of `g` hits index `src_g` it sees `sval`; where the
// read of the cell's own old `f` hits `src_f` it sees `sval` (-1 disables each).
// A time step is wave_update(f, g, src, -1) then wave_update(g, f, -1, src).
extern "C" __global__ void wave_update(int nx, int ny, float c2, float* __restrict__ f, const float* __restrict__ g,
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

// One cell with material (c2, a, b), in the CPU's order, every operation rounded:
// s = ((up + down) + left) + right; t = s - 4g; f_new = b * ((c2*t + 2g) - a*f).
// With a = b = 1 this is `update_cell` bit for bit.
__device__ __forceinline__ float scene_cell(float c2, float a, float b, float f, float g, float up, float down,
                                            float left, float right) {
    const float s = __fadd_rn(__fadd_rn(__fadd_rn(up, down), left), right);
    const float t = __fsub_rn(s, __fmul_rn(4.0f, g));
    const float x = __fsub_rn(__fadd_rn(__fmul_rn(c2, t), __fmul_rn(2.0f, g)), __fmul_rn(a, f));
    return __fmul_rn(b, x);
}

// The medium of a tile run in registers: the plain rule's c2, or a damped material (a, b).
struct Medium {
    float c2, a, b;
};

// A scene tile of several materials, walls or forced cells run in registers (`wave_scene_steps`,
// kind SCENE_MIXED), its per-cell data in shared memory.
struct Mixed {
    // Material ids, two per word: the thread's two columns of tile row r at [r * WAVE_TJ/2 + lane].
    const unsigned* ids;
    // (c2, a, b, mur) per material id.
    const float4* mat;
    // The source forcing each cell of the tile (0xffff: none).
    const unsigned short* src;
    // This launch's source values, `sources` per step (NaN: not forcing).
    const float* values;
    int sources;
};

// Half a time step on registers: a = update(a, b) for the thread's R x CW cells.
// Vertical neighbours past the thread's strip come through shared memory (one barrier,
// double-buffered by `parity`), horizontal ones from the neighbouring lanes by shuffles.
// DAMPED picks `scene_cell` with the medium's (a, b); else `update_cell` (the same bits for a = b = 1).
// MIXED takes each cell's material from `mx` (walls held at 0).
template <bool MASK, bool DAMPED, bool MIXED>
__device__ __forceinline__ void half_step(Medium md, float (&a)[WAVE_R][WAVE_CW], const float (&b)[WAVE_R][WAVE_CW],
                                          unsigned interior, float (*edge)[2][WAVE_WARPS][WAVE_TJ], int parity,
                                          const Mixed& mx) {
    const int lane = threadIdx.x, w = threadIdx.y;
#pragma unroll
    for (int c = 0; c < WAVE_CW; ++c) {
        edge[parity][0][w][lane * WAVE_CW + c] = b[0][c];
        edge[parity][1][w][lane * WAVE_CW + c] = b[WAVE_R - 1][c];
    }
    __syncthreads();
    float above[WAVE_CW], below[WAVE_CW];
#pragma unroll
    for (int c = 0; c < WAVE_CW; ++c) {
        // Rows past the tile are never valid; any finite value does.
        above[c] = w > 0 ? edge[parity][1][w - 1][lane * WAVE_CW + c] : 0.0f;
        below[c] = w < WAVE_WARPS - 1 ? edge[parity][0][w + 1][lane * WAVE_CW + c] : 0.0f;
    }
#pragma unroll
    for (int r = 0; r < WAVE_R; ++r) {
        const float left = __shfl_up_sync(0xffffffffu, b[r][WAVE_CW - 1], 1);
        const float right = __shfl_down_sync(0xffffffffu, b[r][0], 1);
        unsigned pair = 0;
        if (MIXED) pair = mx.ids[(w * WAVE_R + r) * (WAVE_TJ / 2) + lane];
#pragma unroll
        for (int c = 0; c < WAVE_CW; ++c) {
            const float up = r > 0 ? b[r - 1][c] : above[c];
            const float down = r < WAVE_R - 1 ? b[r + 1][c] : below[c];
            const float l = c > 0 ? b[r][c - 1] : left;
            const float rt = c < WAVE_CW - 1 ? b[r][c + 1] : right;
            float v;
            if (MIXED) {
                const unsigned id = c == 0 ? pair & 0xffffu : pair >> 16;
                if (id == 0xffffu) {
                    v = 0.0f;  // a wall
                } else {
                    const float4 m = mx.mat[id];
                    v = scene_cell(m.x, m.y, m.z, a[r][c], b[r][c], up, down, l, rt);
                }
            } else {
                v = DAMPED ? scene_cell(md.c2, md.a, md.b, a[r][c], b[r][c], up, down, l, rt)
                           : update_cell(md.c2, a[r][c], b[r][c], up, down, l, rt);
            }
            if (!MASK || (interior & (1u << (r * WAVE_CW + c)))) a[r][c] = v;
        }
    }
}

// `forced`: with MIXED, 1 bit per cell of the thread (as `interior`) where a source forces it.
template <bool MASK, bool DAMPED, bool MIXED>
__device__ __forceinline__ void run_steps(Medium md, float (&F)[WAVE_R][WAVE_CW], float (&G)[WAVE_R][WAVE_CW],
                                          unsigned interior, float (*edge)[2][WAVE_WARPS][WAVE_TJ], bool has_src,
                                          int sr, int sc, const float* __restrict__ svals, int nsteps,
                                          const Mixed& mx, unsigned forced) {
    const int ti0 = threadIdx.y * WAVE_R, tj0 = threadIdx.x * WAVE_CW;
    for (int s = 0; s < nsteps; ++s) {
        if (has_src) {
            const float v = svals[s];
#pragma unroll
            for (int r = 0; r < WAVE_R; ++r)
#pragma unroll
                for (int c = 0; c < WAVE_CW; ++c)
                    if (r == sr && c == sc) G[r][c] = v;
        }
        if (MIXED && forced != 0u) {
#pragma unroll
            for (int r = 0; r < WAVE_R; ++r)
#pragma unroll
                for (int c = 0; c < WAVE_CW; ++c)
                    if (forced & (1u << (r * WAVE_CW + c))) {
                        const float v = mx.values[s * mx.sources + mx.src[(ti0 + r) * WAVE_TJ + tj0 + c]];
                        if (v == v) G[r][c] = v;
                    }
        }
        half_step<MASK, DAMPED, MIXED>(md, F, G, interior, edge, 0, mx);
        half_step<MASK, DAMPED, MIXED>(md, G, F, interior, edge, 1, mx);
    }
}

// `nsteps` (<= WAVE_K/2) whole time steps in one launch, by temporal blocking: each block
// loads a tile of f and g with a halo of WAVE_K cells into registers, runs the steps there
// (the valid region shrinks by one cell per update) and writes the tile's centre to
// (f_out, g_out). Reads and writes go to different buffers, so blocks never race.
// Each step first sets g at the source to svals[step] (the value the CPU stores), then
// runs update(f, g) and update(g, f), exactly the seed's loop.
template <bool DAMPED, bool MIXED = false>
__device__ __forceinline__ void tile_in_registers(int nx, int ny, Medium md, const float* __restrict__ f_in,
                                                  const float* __restrict__ g_in, float* __restrict__ f_out,
                                                  float* __restrict__ g_out, int src_i, int src_j,
                                                  const float* __restrict__ svals, int nsteps,
                                                  float (*edge)[2][WAVE_WARPS][WAVE_TJ], const Mixed& mx = Mixed{}) {
    const int lane = threadIdx.x, w = threadIdx.y;
    const int ti0 = w * WAVE_R, tj0 = lane * WAVE_CW;  // thread's first cell in the tile
    const int i0 = blockIdx.y * WAVE_OI - WAVE_K + ti0;
    const int j0 = blockIdx.x * WAVE_OJ - WAVE_K + tj0;
    float F[WAVE_R][WAVE_CW], G[WAVE_R][WAVE_CW];
    const int ti_first = blockIdx.y * WAVE_OI - WAVE_K, tj_first = blockIdx.x * WAVE_OJ - WAVE_K;
    // A tile wholly inside the grid with an even ny is read and written as float2: each
    // warp instruction then covers 256 contiguous bytes (tj_first and tj0 are even).
    const bool vec = WAVE_CW == 2 && (ny % 2 == 0) && ti_first >= 0 && ti_first + WAVE_TI <= nx && tj_first >= 0 &&
                     tj_first + WAVE_TJ <= ny;
    unsigned interior = 0;
#pragma unroll
    for (int r = 0; r < WAVE_R; ++r) {
#pragma unroll
        for (int c = 0; c < WAVE_CW; ++c) {
            const int i = i0 + r, j = j0 + c;
            if (i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1) interior |= 1u << (r * WAVE_CW + c);
        }
    }
#if WAVE_CW == 2
    if (vec) {
#pragma unroll
        for (int r = 0; r < WAVE_R; ++r) {
            const long long idx = (long long)(i0 + r) * ny + j0;
            const float2 a = *reinterpret_cast<const float2*>(f_in + idx);
            const float2 b = *reinterpret_cast<const float2*>(g_in + idx);
            F[r][0] = a.x;
            F[r][1] = a.y;
            G[r][0] = b.x;
            G[r][1] = b.y;
        }
    } else
#endif
    {
#pragma unroll
        for (int r = 0; r < WAVE_R; ++r) {
#pragma unroll
            for (int c = 0; c < WAVE_CW; ++c) {
                const int i = i0 + r, j = j0 + c;
                const bool inside = i >= 0 && i < nx && j >= 0 && j < ny;
                const long long idx = (long long)i * ny + j;
                F[r][c] = inside ? f_in[idx] : 0.0f;
                G[r][c] = inside ? g_in[idx] : 0.0f;
            }
        }
    }
    const int sr = src_i - i0, sc = src_j - j0;
    const bool has_src = sr >= 0 && sr < WAVE_R && sc >= 0 && sc < WAVE_CW;
    // Blocks whose whole tile is interior (most of a large grid) skip the border mask.
    const bool all_interior =
        ti_first >= 1 && ti_first + WAVE_TI <= nx - 1 && tj_first >= 1 && tj_first + WAVE_TJ <= ny - 1;
    unsigned forced = 0;
    if (MIXED) {
#pragma unroll
        for (int r = 0; r < WAVE_R; ++r)
#pragma unroll
            for (int c = 0; c < WAVE_CW; ++c)
                if (mx.src[(ti0 + r) * WAVE_TJ + tj0 + c] != 0xffffu) forced |= 1u << (r * WAVE_CW + c);
        run_steps<true, false, true>(md, F, G, interior, edge, false, 0, 0, svals, nsteps, mx, forced);
    } else if (all_interior) {
        run_steps<false, DAMPED, false>(md, F, G, interior, edge, has_src, sr, sc, svals, nsteps, mx, 0u);
    } else {
        run_steps<true, DAMPED, false>(md, F, G, interior, edge, has_src, sr, sc, svals, nsteps, mx, 0u);
    }
#if WAVE_CW == 2
    if (vec) {
        if (tj0 >= WAVE_K && tj0 < WAVE_TJ - WAVE_K) {
#pragma unroll
            for (int r = 0; r < WAVE_R; ++r) {
                const int ti = ti0 + r;
                if (ti >= WAVE_K && ti < WAVE_TI - WAVE_K) {
                    const long long idx = (long long)(i0 + r) * ny + j0;
                    *reinterpret_cast<float2*>(f_out + idx) = make_float2(F[r][0], F[r][1]);
                    *reinterpret_cast<float2*>(g_out + idx) = make_float2(G[r][0], G[r][1]);
                }
            }
        }
        return;
    }
#endif
#pragma unroll
    for (int r = 0; r < WAVE_R; ++r) {
#pragma unroll
        for (int c = 0; c < WAVE_CW; ++c) {
            const int ti = ti0 + r, tj = tj0 + c;
            const int i = i0 + r, j = j0 + c;
            if (ti >= WAVE_K && ti < WAVE_TI - WAVE_K && tj >= WAVE_K && tj < WAVE_TJ - WAVE_K && i < nx && j < ny) {
                const long long idx = (long long)i * ny + j;
                f_out[idx] = F[r][c];
                g_out[idx] = G[r][c];
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(32 * WAVE_WARPS, WAVE_MINB)
    wave_steps(int nx, int ny, float c2, const float* __restrict__ f_in, const float* __restrict__ g_in,
               float* __restrict__ f_out, float* __restrict__ g_out, int src_i, int src_j,
               const float* __restrict__ svals, int nsteps) {
    __shared__ float edge[2][2][WAVE_WARPS][WAVE_TJ];
    tile_in_registers<false>(nx, ny, Medium{c2, 1.0f, 1.0f}, f_in, g_in, f_out, g_out, src_i, src_j, svals, nsteps,
                             edge);
}
