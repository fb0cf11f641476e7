// Runs kernels/julia.cu (included by tests/kernels/julia.rs through -include) on the host, one "thread"
// at a time over the launch grid. Arguments: width height minx miny px py cr ci mandel iters f64.
// Prints each pixel's count and smooth value (%.9g), one a line.
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 12) return 2;
    const int w = atoi(argv[1]), h = atoi(argv[2]);
    const double minx = strtod(argv[3], nullptr), miny = strtod(argv[4], nullptr);
    const double px = strtod(argv[5], nullptr), py = strtod(argv[6], nullptr);
    const double cr = strtod(argv[7], nullptr), ci = strtod(argv[8], nullptr);
    const int mandel = atoi(argv[9]), iters = atoi(argv[10]), f64 = atoi(argv[11]);
    std::vector<int> counts(w * h, -1);
    std::vector<float> smooth(w * h, -1.0f);
    unsigned long long total = 0;
    for (int gy = 0; gy < (h + 7) / 8; ++gy)
        for (int gx = 0; gx < (w + 31) / 32; ++gx)
            for (int ty = 0; ty < 8; ++ty)
                for (int tx = 0; tx < 32; ++tx) {
                    blockIdx = {gx, gy, 0};
                    threadIdx = {tx, ty, 0};
                    if (f64)
                        julia_f64(w, h, minx, miny, px, py, cr, ci, mandel, iters, counts.data(), smooth.data(), 1,
                                  &total);
                    else
                        julia_f32(w, h, minx, miny, px, py, cr, ci, mandel, iters, counts.data(), smooth.data(), 1,
                                  &total);
                }
    for (int i = 0; i < w * h; ++i) printf("%d %.9g\n", counts[i], (double)smooth[i]);
    return 0;
}
