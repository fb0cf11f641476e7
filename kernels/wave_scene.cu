// The wave's scene kernels: a material id per cell, walls, media, damping, Mur's edge, forced
// cells and the matched layer, one update at a time and with temporal blocking. NVRTC compiles
// this file after kernels/wave.cu, as one program (src/backend/cuda/mod.rs: WAVE_CU), so it uses
// that file's tile, medium and update helpers; the host tests include both, in that order.

// ---- Scenes (src/sim/scene_cells.rs): a material id per cell, a material table, walls ----
// The CUDA twins of `scene_update_cell` / `scene_update` (src/sim/scene_cells.rs, run by
// src/backend/cpu/wave_scene.rs) and of shaders/wave_scene.wgsl. One launch per update (the
// `simple` shape); sources are written by `wave_scene_sources` before each time step.

#define SCENE_WALL 0xffffu

// Material table entries (src/sim/scene_cells.rs `Material`): c2, a, b, mur, edge (u32 bits).
#define SCENE_MAT 5

// ---- The matched layer (src/sim/wave/pml.rs; WGSL twin `layer_cell` in shaders/wave_scene.wgsl) ----
// Its cells are the outer `layer_w` cells of every side. `aux` holds the auxiliary values of
// `LayerFields` (row by row: a row in the layer from side to side has its ny-2 interior cells,
// any other row its 2*layer_w cells at the two ends; PML_AUX planes of the row's cells each: ux
// previous, ux current, phix, phiy, gx, gy). `layer` holds the `Axis` coefficients (a, b, e, ds,
// al, w1, w0), low[0..=w] then high[0..=w].
#define PML_AUX 6
#define PML_AXIS 7

// Where the `Axis` of index k of an axis of n cells starts in `layer` (`Layer::axis_at`).
__device__ __forceinline__ int pml_axis_base(int k, int n, int w) {
    if (k <= w) return PML_AXIS * (w + 1 - k);
    if (k + 1 + w >= n) return PML_AXIS * (w + 1 + (w + 2 + k - n));
    return 0;
}

// Where the auxiliary values of the layer cell at interior (i, j) start in `aux` (`LayerFields`),
// and the stride `len` between its PML_AUX planes.
__device__ __forceinline__ long long pml_aux_offset(int nx, int ny, int w, int i, int j, long long& len) {
    const bool full = i <= w || i + 1 + w >= nx;
    long long start;
    if (i <= w) {
        start = (long long)(i - 1) * (ny - 2);
    } else if (i + 1 + w < nx) {
        start = (long long)w * (ny - 2) + (long long)(i - 1 - w) * 2 * w;
    } else {
        start = (long long)w * (ny - 2) + (long long)(nx - 2 - 2 * w) * 2 * w + (long long)(i - (nx - 1 - w)) * (ny - 2);
    }
    len = full ? ny - 2 : 2 * w;
    const long long slot = full || j <= w ? j - 1 : 2 * w + j + 1 - ny;
    return PML_AUX * start + slot;
}

// The layer's product `x ⊗ y` (`layer_product` in src/sim/wave/pml.rs): the product, or 0 where
// its magnitude is below 2^-125.
__device__ __forceinline__ float pml_mul(float x, float y) {
    const float p = __fmul_rn(x, y);
    return fabsf(p) < 0x1p-125f ? 0.0f : p;
}

// The layer's rule for one cell: the twin of `pml_cell`, the same operations in the same order,
// each rounded on its own (no contraction into fused multiply-adds). `x`, `y` the cell's `Axis`
// records, `v` its auxiliary values (updated), `old` its f, `mid` its g; returns its new f.
__device__ __forceinline__ float pml_rule(const float* __restrict__ x, const float* __restrict__ y, float c2,
                                          float (&v)[PML_AUX], float old, float mid, float up, float down,
                                          float left, float right) {
    const float pu = v[0], cu = v[1], px0 = v[2], py0 = v[3], gx0 = v[4], gy0 = v[5];
    const float gx = pml_mul(__fsub_rn(down, up), 0.5f);
    const float gy = pml_mul(__fsub_rn(right, left), 0.5f);
    const float px = __fadd_rn(pml_mul(x[4], px0), __fadd_rn(pml_mul(x[5], gx), pml_mul(x[6], gx0)));
    const float py = __fadd_rn(pml_mul(y[4], py0), __fadd_rn(pml_mul(y[5], gy), pml_mul(y[6], gy0)));
    const float dxx = __fsub_rn(__fadd_rn(up, down), __fmul_rn(2.0f, mid));
    const float dyy = __fsub_rn(__fadd_rn(left, right), __fmul_rn(2.0f, mid));
    const float tx = __fsub_rn(__fadd_rn(pml_mul(c2, __fsub_rn(dxx, pml_mul(x[3], px))), pml_mul(x[2], cu)),
                               pml_mul(x[0], pu));
    const float ux = pml_mul(x[1], tx);
    const float ty = __fsub_rn(
        __fadd_rn(pml_mul(c2, __fsub_rn(dyy, pml_mul(y[3], py))), pml_mul(y[2], __fsub_rn(mid, cu))),
        pml_mul(y[0], __fsub_rn(old, pu)));
    const float uy = pml_mul(y[1], ty);
    v[0] = cu;
    v[1] = ux;
    v[2] = px;
    v[3] = py;
    v[4] = gx;
    v[5] = gy;
    return __fadd_rn(ux, uy);
}

// One cell of the matched layer at interior (i, j), c2 of its material, or a wall (`wall`):
// `pml_rule` on the cell's values in `aux`. A wall cell becomes 0, its auxiliary values too.
__device__ __forceinline__ void pml_layer_cell(int nx, int ny, int w, int i, int j, long long idx, float c2, bool wall,
                                               float* __restrict__ f, const float* __restrict__ g,
                                               float* __restrict__ aux, const float* __restrict__ layer) {
    long long len;
    float* a = aux + pml_aux_offset(nx, ny, w, i, j, len);
    if (wall) {
        for (int p = 0; p < PML_AUX; ++p) a[p * len] = 0.0f;
        f[idx] = 0.0f;
        return;
    }
    const float* x = layer + pml_axis_base(i, nx, w);
    const float* y = layer + pml_axis_base(j, ny, w);
    float v[PML_AUX];
    for (int p = 0; p < PML_AUX; ++p) v[p] = a[p * len];
    f[idx] = pml_rule(x, y, c2, v, f[idx], g[idx], g[idx - ny], g[idx + ny], g[idx - 1], g[idx + 1]);
    for (int p = 0; p < PML_AUX; ++p) a[p * len] = v[p];
}

// update(f, g) of a scene, all but the absorbing-edge cells: `ids` one u16 per cell (SCENE_WALL:
// held at 0), `materials` SCENE_MAT words per id. Grid and block as `wave_update`. With a matched
// layer (`layer_w` > 0; 0: none, `aux` and `layer` then unread) its cells run `pml_layer_cell`:
// each reads only its own old value of `f` and auxiliary values, so one pass does every cell.
extern "C" __global__ void wave_scene_update(int nx, int ny, float* __restrict__ f, const float* __restrict__ g,
                                             const unsigned short* __restrict__ ids,
                                             const float* __restrict__ materials, float* __restrict__ aux,
                                             const float* __restrict__ layer, int layer_w) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1) return;
    const long long idx = (long long)i * ny + j;
    const unsigned id = ids[idx];
    const int w = layer_w;
    if (w > 0 && (i <= w || j <= w || i + 1 + w >= nx || j + 1 + w >= ny)) {
        const bool wall = id == SCENE_WALL;
        pml_layer_cell(nx, ny, w, i, j, idx, wall ? 0.0f : materials[SCENE_MAT * id], wall, f, g, aux, layer);
        return;
    }
    if (id == SCENE_WALL) {
        f[idx] = 0.0f;
        return;
    }
    const float* m = materials + SCENE_MAT * id;
    if (__float_as_uint(m[4]) != 0u) return;  // an edge cell: `wave_scene_edges`, after this pass
    f[idx] = scene_cell(m[0], m[1], m[2], f[idx], g[idx], g[idx - ny], g[idx + ny], g[idx - 1], g[idx + 1]);
}

// The absorbing edge (Mur's first-order condition), after `wave_scene_update` of the same
// update: the ring of cells next to the border, one thread each (2*(ny-2) + 2*(nx-2) threads).
// An edge cell looking at neighbour n: f = g[n] + mur * (f_new[n] - g), f_new[n] already written.
extern "C" __global__ void wave_scene_edges(int nx, int ny, float* __restrict__ f, const float* __restrict__ g,
                                            const unsigned short* __restrict__ ids,
                                            const float* __restrict__ materials) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int ri = nx - 2, rj = ny - 2;
    int i, j;
    if (k < rj) {
        i = 1; j = 1 + k;
    } else if (k < 2 * rj) {
        i = nx - 2; j = 1 + (k - rj);
    } else if (k < 2 * rj + ri) {
        i = 1 + (k - 2 * rj); j = 1;
    } else if (k < 2 * rj + 2 * ri) {
        i = 1 + (k - 2 * rj - ri); j = ny - 2;
    } else {
        return;
    }
    const long long idx = (long long)i * ny + j;
    const unsigned id = ids[idx];
    if (id == SCENE_WALL) return;
    const float* m = materials + SCENE_MAT * id;
    const unsigned edge = __float_as_uint(m[4]);
    long long n;
    switch (edge) {
        case 1: n = idx + ny; break;
        case 2: n = idx - ny; break;
        case 3: n = idx + 1; break;
        case 4: n = idx - 1; break;
        default: return;
    }
    f[idx] = __fadd_rn(g[n], __fmul_rn(m[3], __fsub_rn(f[n], g[idx])));
}

// The sources of one time step: g[cells[k]] = values[source_of[k]] for the `n` forced cells,
// where a NaN value means "this source does not force at this step".
extern "C" __global__ void wave_scene_sources(float* __restrict__ g, const long long* __restrict__ cells,
                                              const int* __restrict__ source_of, const float* __restrict__ values,
                                              int n) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const float v = values[source_of[k]];
    if (v == v) g[cells[k]] = v;
}

// ---- Scenes with temporal blocking (the `blocked` variant of scenes) ----
// `wave_scene_steps` runs `nsteps` (<= WAVE_K/2) time steps of a scene per launch on the tiles
// of `wave_steps` (same size, halo and output centre), reading (f_in, g_in) and writing the
// centres to (f_out, g_out). Each tile has a kind, chosen on the host
// (src/backend/cuda/wave_scene.rs, `tile_kinds`), one u16 per tile in `kinds`:
// - a material id: every interior cell of the tile (halo included) has that id, which is not a
//   wall or an edge cell, and no forced cell lies in it: the tile runs in registers exactly as
//   `wave_steps` does, with that material's (c2, a, b) — most of a large scene;
// - SCENE_MIXED: walls, several media or forced cells, but no absorbing-edge cell: the tile runs
//   in registers as above, each cell's material id read from shared memory (walls held at 0)
//   and the forced cells written before each step;
// - SCENE_GENERAL_EDGES: a tile with absorbing-edge cells (or a mixed tile of a scene with more
//   than SCENE_SMEM_MATERIALS materials) runs in shared memory, cell by cell by the scene rule,
//   the edge cells after the others.
// Every cell computes the same operations as `wave_scene_update`/`wave_scene_edges`, so the
// result is bit for bit the CPU's. `mat4` holds (c2, a, b, mur) per material id.
//
// Validity: an edge cell reads its neighbour's new value, so its value depends on cells two
// rows (columns) away in one update. Where an edge cell at i = nx-2 (j = ny-2) is a tile's first
// output row (column), that is, (nx-2) % out_i == 0 ((ny-2) % out_j == 0), the host runs at
// most (WAVE_K-1)/2 steps per launch (`steps_per_launch`).

#define SCENE_FROZEN 0xfffeu  // a cell the general path never updates (border, outside, tile rim)
#define SCENE_MIXED 0xfffeu
#define SCENE_GENERAL_EDGES 0xffffu
#define SCENE_LAYER 0xfffcu  // a tile holding matched-layer cells: `wave_scene_layer_steps`
#define SCENE_TILE_CELLS (WAVE_TI * WAVE_TJ)
#define SCENE_SMEM_MATERIALS 128  // material table entries kept in shared memory
#define NO_SOURCE (-(1 << 29))    // a source row/column no tile reaches

// a = update(a, b) over the tile in shared memory: every live cell by the interior rule (edge
// cells too, overwritten next), then, with `edges`, the absorbing-edge lines i = 1, nx-2, j = 1,
// ny-2 by Mur's rule from their neighbours' new values.
__device__ __forceinline__ void scene_half_shared(float* a, const float* b, const unsigned short* ids,
                                                  const float4* mat, bool edges, int nx, int ny, int ti_first,
                                                  int tj_first) {
    const int tid = threadIdx.y * 32 + threadIdx.x;
    for (int k = tid; k < SCENE_TILE_CELLS; k += 32 * WAVE_WARPS) {
        const unsigned id = ids[k];
        if (id == SCENE_FROZEN) continue;
        if (id == SCENE_WALL) {
            a[k] = 0.0f;
            continue;
        }
        const float4 m = mat[id];
        a[k] = scene_cell(m.x, m.y, m.z, a[k], b[k], b[k - WAVE_TJ], b[k + WAVE_TJ], b[k - 1], b[k + 1]);
    }
    __syncthreads();
    if (!edges) return;
    // Each edge cell once: the corners, on two lines, are walls.
    for (int q = tid; q < 2 * (WAVE_TI + WAVE_TJ); q += 32 * WAVE_WARPS) {
        int r, c, dn;
        if (q < WAVE_TJ) {
            r = 1 - ti_first; c = q; dn = WAVE_TJ;
        } else if (q < 2 * WAVE_TJ) {
            r = nx - 2 - ti_first; c = q - WAVE_TJ; dn = -WAVE_TJ;
        } else if (q < 2 * WAVE_TJ + WAVE_TI) {
            r = q - 2 * WAVE_TJ; c = 1 - tj_first; dn = 1;
        } else {
            r = q - 2 * WAVE_TJ - WAVE_TI; c = ny - 2 - tj_first; dn = -1;
        }
        if (r < 0 || r >= WAVE_TI || c < 0 || c >= WAVE_TJ) continue;
        const int k = r * WAVE_TJ + c;
        const unsigned id = ids[k];
        if (id == SCENE_FROZEN || id == SCENE_WALL) continue;
        const int n = k + dn;
        a[k] = __fadd_rn(b[n], __fmul_rn(mat[id].w, __fsub_rn(a[n], b[k])));
    }
    __syncthreads();
}

extern "C" __global__ void __launch_bounds__(32 * WAVE_WARPS, WAVE_MINB)
    wave_scene_steps(int nx, int ny, const float* __restrict__ f_in, const float* __restrict__ g_in,
                     float* __restrict__ f_out, float* __restrict__ g_out, const unsigned short* __restrict__ kinds,
                     const unsigned short* __restrict__ ids, const float4* __restrict__ mat4, int n_mat,
                     const unsigned* __restrict__ tile_offsets, const unsigned* __restrict__ tile_entries,
                     const float* __restrict__ values, int sources, int nsteps) {
    // The general path's two fields, ids and material table; the register path uses the first
    // 8 KB as `edge`.
    __shared__ float4 smem4[(2 * SCENE_TILE_CELLS + SCENE_TILE_CELLS / 2) / 4 + SCENE_SMEM_MATERIALS];
    float* smem = reinterpret_cast<float*>(smem4);
    const unsigned kind = kinds[blockIdx.y * gridDim.x + blockIdx.x];
    const int tid = threadIdx.y * 32 + threadIdx.x;
    const unsigned tile = blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned first = tile_offsets[tile], last = tile_offsets[tile + 1];
    const int ti_first = blockIdx.y * WAVE_OI - WAVE_K, tj_first = blockIdx.x * WAVE_OJ - WAVE_K;
    float4* smat = smem4 + (2 * SCENE_TILE_CELLS + SCENE_TILE_CELLS / 2) / 4;
    if (kind == SCENE_LAYER) return;  // `wave_scene_layer_steps` runs it
    if (kind == SCENE_MIXED && n_mat <= SCENE_SMEM_MATERIALS) {
        // After `edge` (2048 floats): the ids in pairs, then the forcing source of each cell.
        unsigned* sid32 = reinterpret_cast<unsigned*>(smem + 2048);
        unsigned short* ssrc = reinterpret_cast<unsigned short*>(smem + 4096);
        for (int k = tid; k < n_mat; k += 32 * WAVE_WARPS) smat[k] = mat4[k];
        for (int k = tid; k < SCENE_TILE_CELLS / 2; k += 32 * WAVE_WARPS) {
            const int r = k / (WAVE_TJ / 2), c = 2 * (k % (WAVE_TJ / 2));
            const int i = ti_first + r, j = tj_first + c;
            const bool row = i >= 0 && i < nx;
            const unsigned lo = row && j >= 0 && j < ny ? ids[(long long)i * ny + j] : 0u;
            const unsigned hi = row && j + 1 >= 0 && j + 1 < ny ? ids[(long long)i * ny + j + 1] : 0u;
            sid32[k] = lo | (hi << 16);
            reinterpret_cast<unsigned*>(ssrc)[k] = 0xffffffffu;
        }
        __syncthreads();
        for (unsigned q = first + tid; q < last; q += 32 * WAVE_WARPS) {
            const unsigned e = tile_entries[q];
            ssrc[e >> 16] = (unsigned short)(e & 0xffffu);
        }
        __syncthreads();
        auto edge = reinterpret_cast<float (*)[2][WAVE_WARPS][WAVE_TJ]>(smem);
        const Mixed mx{sid32, smat, ssrc, values, sources};
        tile_in_registers<false, true>(nx, ny, Medium{1.0f, 1.0f, 1.0f}, f_in, g_in, f_out, g_out, NO_SOURCE,
                                       NO_SOURCE, values, nsteps, edge, mx);
        return;
    }
    if (kind < SCENE_MIXED) {
        const float4 m = mat4[kind];
        const Medium md{m.x, m.y, m.z};
        auto edge = reinterpret_cast<float (*)[2][WAVE_WARPS][WAVE_TJ]>(smem);
        if (md.a == 1.0f && md.b == 1.0f)
            tile_in_registers<false>(nx, ny, md, f_in, g_in, f_out, g_out, NO_SOURCE, NO_SOURCE, values, nsteps, edge);
        else
            tile_in_registers<true>(nx, ny, md, f_in, g_in, f_out, g_out, NO_SOURCE, NO_SOURCE, values, nsteps, edge);
        return;
    }
    float* sf = smem;
    float* sg = smem + SCENE_TILE_CELLS;
    unsigned short* sid = reinterpret_cast<unsigned short*>(smem + 2 * SCENE_TILE_CELLS);
    const float4* mat = n_mat <= SCENE_SMEM_MATERIALS ? smat : mat4;
    for (int k = tid; k < n_mat && k < SCENE_SMEM_MATERIALS; k += 32 * WAVE_WARPS) smat[k] = mat4[k];
    for (int k = tid; k < SCENE_TILE_CELLS; k += 32 * WAVE_WARPS) {
        const int r = k / WAVE_TJ, c = k % WAVE_TJ;
        const int i = ti_first + r, j = tj_first + c;
        const bool inside = i >= 0 && i < nx && j >= 0 && j < ny;
        const long long idx = (long long)i * ny + j;
        sf[k] = inside ? f_in[idx] : 0.0f;
        sg[k] = inside ? g_in[idx] : 0.0f;
        const bool live = i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1 && r > 0 && r < WAVE_TI - 1 && c > 0 &&
                          c < WAVE_TJ - 1;
        sid[k] = live ? ids[idx] : (unsigned short)SCENE_FROZEN;
    }
    __syncthreads();
    const bool edges = kind == SCENE_GENERAL_EDGES;
    for (int s = 0; s < nsteps; ++s) {
        // The forced cells of this tile: (place in the tile) << 16 | source.
        for (unsigned q = first + tid; q < last; q += 32 * WAVE_WARPS) {
            const unsigned e = tile_entries[q];
            const float v = values[s * sources + (e & 0xffffu)];
            if (v == v) sg[e >> 16] = v;
        }
        __syncthreads();
        scene_half_shared(sf, sg, sid, mat, edges, nx, ny, ti_first, tj_first);
        scene_half_shared(sg, sf, sid, mat, edges, nx, ny, ti_first, tj_first);
    }
    for (int k = tid; k < SCENE_TILE_CELLS; k += 32 * WAVE_WARPS) {
        const int r = k / WAVE_TJ, c = k % WAVE_TJ;
        const int i = ti_first + r, j = tj_first + c;
        if (r >= WAVE_K && r < WAVE_TI - WAVE_K && c >= WAVE_K && c < WAVE_TJ - WAVE_K && i < nx && j < ny) {
            const long long idx = (long long)i * ny + j;
            f_out[idx] = sf[k];
            g_out[idx] = sg[k];
        }
    }
}

// ---- The matched layer with temporal blocking (issue 24) ----
// `wave_scene_layer_steps` runs the tiles of `wave_scene_steps` whose footprint (halo included)
// holds a layer cell, kind SCENE_LAYER (`wave_scene_steps` skips them): one block per entry of
// `tiles` (tile indices, row-major). The tile's fields, ids and forced cells sit in shared memory
// as on the general path; each thread owns the cells k = tid + 256*m of the tile and keeps their
// auxiliary values in registers, loaded from `aux_in` (for every live layer cell, halo included),
// updated by `pml_rule` exactly as `pml_layer_cell` does, and written to `aux_out` for the layer
// cells of the tile's output centre only. Halo cells' values are computed and discarded, as the
// fields' are: a layer cell reads only its neighbours' g and its own history, so the valid region
// shrinks by one cell per update as for every other cell. Each layer cell of the grid lies in
// exactly one output centre, so `aux_out` is written whole; the host swaps the two buffers.
// Scenes with Mur's edge cells never take this path.
#define LAYER_CELLS_PER_THREAD (SCENE_TILE_CELLS / (32 * WAVE_WARPS))

extern "C" __global__ void __launch_bounds__(32 * WAVE_WARPS, 1)
    wave_scene_layer_steps(int nx, int ny, const float* __restrict__ f_in, const float* __restrict__ g_in,
                           float* __restrict__ f_out, float* __restrict__ g_out, const unsigned* __restrict__ tiles,
                           const unsigned short* __restrict__ ids, const float4* __restrict__ mat4, int n_mat,
                           const unsigned* __restrict__ tile_offsets, const unsigned* __restrict__ tile_entries,
                           const float* __restrict__ values, int sources, int nsteps,
                           const float* __restrict__ aux_in, float* __restrict__ aux_out,
                           const float* __restrict__ layer, int layer_w) {
    __shared__ float sf[SCENE_TILE_CELLS];
    __shared__ float sg[SCENE_TILE_CELLS];
    __shared__ unsigned short sid[SCENE_TILE_CELLS];
    __shared__ float4 smat[SCENE_SMEM_MATERIALS];
    const int tid = threadIdx.y * 32 + threadIdx.x;
    const unsigned tile = tiles[blockIdx.x];
    const int tiles_j = (ny + WAVE_OJ - 1) / WAVE_OJ;
    const int bi = (int)(tile / tiles_j), bj = (int)(tile % tiles_j);
    const unsigned first = tile_offsets[tile], last = tile_offsets[tile + 1];
    const int ti_first = bi * WAVE_OI - WAVE_K, tj_first = bj * WAVE_OJ - WAVE_K;
    const int w = layer_w;
    const float4* mat = n_mat <= SCENE_SMEM_MATERIALS ? smat : mat4;
    for (int k = tid; k < n_mat && k < SCENE_SMEM_MATERIALS; k += 32 * WAVE_WARPS) smat[k] = mat4[k];
    for (int k = tid; k < SCENE_TILE_CELLS; k += 32 * WAVE_WARPS) {
        const int r = k / WAVE_TJ, c = k % WAVE_TJ;
        const int i = ti_first + r, j = tj_first + c;
        const bool inside = i >= 0 && i < nx && j >= 0 && j < ny;
        const long long idx = (long long)i * ny + j;
        sf[k] = inside ? f_in[idx] : 0.0f;
        sg[k] = inside ? g_in[idx] : 0.0f;
        const bool live = i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1 && r > 0 && r < WAVE_TI - 1 && c > 0 &&
                          c < WAVE_TJ - 1;
        sid[k] = live ? ids[idx] : (unsigned short)SCENE_FROZEN;
    }
    // The auxiliary values of the thread's live layer cells.
    float v[LAYER_CELLS_PER_THREAD][PML_AUX];
#pragma unroll
    for (int m = 0; m < LAYER_CELLS_PER_THREAD; ++m) {
        const int k = tid + m * 32 * WAVE_WARPS;
        const int r = k / WAVE_TJ, c = k % WAVE_TJ;
        const int i = ti_first + r, j = tj_first + c;
        const bool live = i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1 && r > 0 && r < WAVE_TI - 1 && c > 0 &&
                          c < WAVE_TJ - 1;
        const bool in_layer = live && (i <= w || j <= w || i + 1 + w >= nx || j + 1 + w >= ny);
        long long len = 0, off = 0;
        if (in_layer) off = pml_aux_offset(nx, ny, w, i, j, len);
#pragma unroll
        for (int p = 0; p < PML_AUX; ++p) v[m][p] = in_layer ? aux_in[off + p * len] : 0.0f;
    }
    __syncthreads();
    for (int s = 0; s < nsteps; ++s) {
        // The forced cells of this tile: (place in the tile) << 16 | source.
        for (unsigned q = first + tid; q < last; q += 32 * WAVE_WARPS) {
            const unsigned e = tile_entries[q];
            const float val = values[s * sources + (e & 0xffffu)];
            if (val == val) sg[e >> 16] = val;
        }
        __syncthreads();
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            float* a = half == 0 ? sf : sg;
            const float* b = half == 0 ? sg : sf;
#pragma unroll
            for (int m = 0; m < LAYER_CELLS_PER_THREAD; ++m) {
                const int k = tid + m * 32 * WAVE_WARPS;
                const unsigned id = sid[k];
                if (id == SCENE_FROZEN) continue;
                const int i = ti_first + k / WAVE_TJ, j = tj_first + k % WAVE_TJ;
                if (i <= w || j <= w || i + 1 + w >= nx || j + 1 + w >= ny) {
                    if (id == SCENE_WALL) {
#pragma unroll
                        for (int p = 0; p < PML_AUX; ++p) v[m][p] = 0.0f;
                        a[k] = 0.0f;
                    } else {
                        a[k] = pml_rule(layer + pml_axis_base(i, nx, w), layer + pml_axis_base(j, ny, w),
                                        mat[id].x, v[m], a[k], b[k], b[k - WAVE_TJ], b[k + WAVE_TJ], b[k - 1],
                                        b[k + 1]);
                    }
                } else if (id == SCENE_WALL) {
                    a[k] = 0.0f;
                } else {
                    const float4 mt = mat[id];
                    a[k] = scene_cell(mt.x, mt.y, mt.z, a[k], b[k], b[k - WAVE_TJ], b[k + WAVE_TJ], b[k - 1], b[k + 1]);
                }
            }
            __syncthreads();
        }
    }
#pragma unroll
    for (int m = 0; m < LAYER_CELLS_PER_THREAD; ++m) {
        const int k = tid + m * 32 * WAVE_WARPS;
        const int r = k / WAVE_TJ, c = k % WAVE_TJ;
        const int i = ti_first + r, j = tj_first + c;
        if (r >= WAVE_K && r < WAVE_TI - WAVE_K && c >= WAVE_K && c < WAVE_TJ - WAVE_K && i < nx && j < ny) {
            const long long idx = (long long)i * ny + j;
            f_out[idx] = sf[k];
            g_out[idx] = sg[k];
            if (i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1 &&
                (i <= w || j <= w || i + 1 + w >= nx || j + 1 + w >= ny)) {
                long long len;
                const long long off = pml_aux_offset(nx, ny, w, i, j, len);
#pragma unroll
                for (int p = 0; p < PML_AUX; ++p) aux_out[off + p * len] = v[m][p];
            }
        }
    }
}
