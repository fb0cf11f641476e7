// Runs `wave_scene_layer_steps` of kernels/wave_scene.cu (included by tests/kernels/pml_cuda.rs through
// -include, with tests/host/wave_threads_mock.h) on the host: every tile of the grid as a layer
// tile, 256 worker threads per block meeting at real barriers, `per` time steps per launch
// (the last launch the rest), the fields and the layer's values ping-ponged between launches as
// src/backend/cuda/wave.rs does.
// Arguments: IN OUT PER. IN and OUT as tests/host/wave_scene_harness.cpp (`edges` must be 0).
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

template <class T>
static bool read(FILE* in, std::vector<T>& v, size_t n) {
    v.resize(n);
    return n == 0 || fread(v.data(), sizeof(T), n, in) == n;
}

int main(int argc, char** argv) {
    if (argc != 4) return 2;
    const int per = atoi(argv[3]);
    if (per < 1 || per > WAVE_K / 2) return 2;
    FILE* in = fopen(argv[1], "rb");
    if (!in) return 3;
    int32_t h[10];
    if (fread(h, 4, 10, in) != 10) return 4;
    const int nx = h[0], ny = h[1], n_mat = h[2], layer_w = h[3], n_aux = h[4], n_axes = h[5], n_forced = h[6],
              sources = h[7], steps = h[8], edges = h[9];
    if (edges) return 7;
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
    if (layer.empty()) layer.resize(7);
    if (aux.empty()) aux.resize(1);
    // (c2, a, b, mur) per material, as src/backend/cuda/wave_scene.rs uploads `mat4`.
    std::vector<float4> mat4(n_mat);
    for (int m = 0; m < n_mat; ++m) mat4[m] = {materials[5 * m], materials[5 * m + 1], materials[5 * m + 2], materials[5 * m + 3]};
    // The forced cells of each tile (src/backend/cuda/wave_scene.rs `tile_sources`).
    const int tj = (ny + WAVE_OJ - 1) / WAVE_OJ, ti = (nx + WAVE_OI - 1) / WAVE_OI, nt = tj * ti;
    std::vector<std::vector<unsigned>> per_tile(nt);
    for (int q = 0; q < n_forced; ++q) {
        const int i = (int)(cells[q] / ny), j = (int)(cells[q] % ny);
        for (int bi = 0; bi < ti; ++bi)
            for (int bj = 0; bj < tj; ++bj) {
                const int r = i - (bi * WAVE_OI - WAVE_K), c = j - (bj * WAVE_OJ - WAVE_K);
                if (r >= 0 && r < WAVE_TI && c >= 0 && c < WAVE_TJ)
                    per_tile[bi * tj + bj].push_back((unsigned)(r * WAVE_TJ + c) << 16 | (unsigned)source_of[q]);
            }
    }
    std::vector<unsigned> offsets(nt + 1, 0), entries, tiles(nt);
    for (int t = 0; t < nt; ++t) {
        entries.insert(entries.end(), per_tile[t].begin(), per_tile[t].end());
        offsets[t + 1] = (unsigned)entries.size();
        tiles[t] = (unsigned)t;
    }
    if (entries.empty()) entries.push_back(0);
    std::vector<float> f2(n, 0.0f), g2(n, 0.0f), aux2(aux.size(), 0.0f);
    float *fi = f.data(), *gi = g.data(), *fo = f2.data(), *go = g2.data(), *ai = aux.data(), *ao = aux2.data();
    const int threads = 32 * WAVE_WARPS;
    std::barrier<> sync(threads);
    block_barrier = &sync;
    std::barrier<> gate(threads + 1);  // the harness and the workers, around each block
    int launch_steps = 0;
    const float* launch_values = values.data();
    bool done = false;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            threadIdx = {t % 32, t / 32, 0};
            for (;;) {
                gate.arrive_and_wait();
                if (done) return;
                wave_scene_layer_steps(nx, ny, fi, gi, fo, go, tiles.data(), ids.data(), mat4.data(), n_mat,
                                       offsets.data(), entries.data(), launch_values, sources, launch_steps, ai, ao,
                                       layer.data(), layer_w);
                gate.arrive_and_wait();
            }
        });
    blockDim = {32, WAVE_WARPS, 1};
    gridDim = {nt, 1, 1};
    for (int s = 0; s < steps; s += per) {
        launch_steps = steps - s < per ? steps - s : per;
        launch_values = values.data() + (size_t)s * sources;
        for (int b = 0; b < nt; ++b) {
            blockIdx = {b, 0, 0};
            gate.arrive_and_wait();  // start the block
            gate.arrive_and_wait();  // its threads are done
        }
        std::swap(fi, fo);
        std::swap(gi, go);
        std::swap(ai, ao);
    }
    done = true;
    gate.arrive_and_wait();
    for (auto& t : pool) t.join();
    FILE* out = fopen(argv[2], "wb");
    if (!out) return 6;
    fwrite(fi, 4, n, out);
    fwrite(gi, 4, n, out);
    if (n_aux) fwrite(ai, 4, n_aux, out);
    fclose(out);
    return 0;
}
