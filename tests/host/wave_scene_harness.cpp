// Runs the scene kernels of kernels/wave_scene.cu (included by tests/kernels/pml.rs through -include)
// on the host, one "thread" at a time over each launch's grid, in the launch order of
// src/backend/cuda/wave.rs (`launch_scene`): per time step `wave_scene_sources`, then
// `wave_scene_update` (+ `wave_scene_edges`) of (f, g), then of (g, f).
// Arguments: IN OUT. IN holds, little-endian: i32 nx, ny, n_mat, layer_w, n_aux, n_axes, n_forced,
// sources, steps, edges; u16 ids[nx*ny]; f32 materials[5*n_mat], layer[7*n_axes], aux[n_aux],
// f[nx*ny], g[nx*ny]; i64 cells[n_forced]; i32 source_of[n_forced]; f32 values[steps*sources].
// OUT gets f, g and aux (f32).
#include <cstdio>
#include <cstdint>
#include <vector>

template <class T>
static bool read(FILE* in, std::vector<T>& v, size_t n) {
    v.resize(n);
    return n == 0 || fread(v.data(), sizeof(T), n, in) == n;
}

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    FILE* in = fopen(argv[1], "rb");
    if (!in) return 3;
    int32_t h[10];
    if (fread(h, 4, 10, in) != 10) return 4;
    const int nx = h[0], ny = h[1], n_mat = h[2], layer_w = h[3], n_aux = h[4], n_axes = h[5], n_forced = h[6],
              sources = h[7], steps = h[8], edges = h[9];
    const size_t n = (size_t)nx * ny;
    std::vector<unsigned short> ids;
    std::vector<float> materials, layer, aux, f, g, values;
    std::vector<long long> cells;
    std::vector<int> source_of;
    if (!read(in, ids, n) || !read(in, materials, 5 * (size_t)n_mat) || !read(in, layer, 7 * (size_t)n_axes) ||
        !read(in, aux, n_aux) || !read(in, f, n) || !read(in, g, n) || !read(in, cells, n_forced) ||
        !read(in, source_of, n_forced) || !read(in, values, (size_t)steps * sources))
        return 5;
    fclose(in);
    auto update = [&](float* out, const float* input) {
        blockDim = {32, 8, 1};
        gridDim = {(ny + 31) / 32, (nx + 7) / 8, 1};
        for (int by = 0; by < gridDim.y; ++by)
            for (int bx = 0; bx < gridDim.x; ++bx)
                for (int ty = 0; ty < 8; ++ty)
                    for (int tx = 0; tx < 32; ++tx) {
                        blockIdx = {bx, by, 0};
                        threadIdx = {tx, ty, 0};
                        wave_scene_update(nx, ny, out, input, ids.data(), materials.data(), aux.data(),
                                          layer.data(), layer_w);
                    }
        if (!edges) return;
        const int ring = 2 * (nx - 2) + 2 * (ny - 2);
        blockDim = {256, 1, 1};
        for (int b = 0; b < (ring + 255) / 256; ++b)
            for (int t = 0; t < 256; ++t) {
                blockIdx = {b, 0, 0};
                threadIdx = {t, 0, 0};
                wave_scene_edges(nx, ny, out, input, ids.data(), materials.data());
            }
    };
    for (int s = 0; s < steps; ++s) {
        blockDim = {256, 1, 1};
        for (int b = 0; b < (n_forced + 255) / 256; ++b)
            for (int t = 0; t < 256; ++t) {
                blockIdx = {b, 0, 0};
                threadIdx = {t, 0, 0};
                wave_scene_sources(g.data(), cells.data(), source_of.data(), values.data() + (size_t)s * sources,
                                   n_forced);
            }
        update(f.data(), g.data());
        update(g.data(), f.data());
    }
    FILE* out = fopen(argv[2], "wb");
    if (!out) return 6;
    fwrite(f.data(), 4, n, out);
    fwrite(g.data(), 4, n, out);
    if (n_aux) fwrite(aux.data(), 4, n_aux, out);
    fclose(out);
    return 0;
}
