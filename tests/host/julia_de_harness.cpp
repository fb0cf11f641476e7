// Runs the distance kernels of kernels/julia.cu (julia_de_f64 / julia_de_f32, included by
// tests/kernels/distance.rs through -include) on the host, one "thread" at a time over the launch
// grid. Arguments: width height minx miny px py iters f64 cr ci mandel (mandel 1: the Mandelbrot
// set, c the pixel; 0: the Julia set of c). Prints each pixel's count, smooth
// value, distance in pixels and normal (%.9g), one pixel a line.
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 12) return 2;
    const int w = atoi(argv[1]), h = atoi(argv[2]);
    const double minx = strtod(argv[3], nullptr), miny = strtod(argv[4], nullptr);
    const double px = strtod(argv[5], nullptr), py = strtod(argv[6], nullptr);
    const int iters = atoi(argv[7]), f64 = atoi(argv[8]);
    const double cr = strtod(argv[9], nullptr), ci = strtod(argv[10], nullptr);
    const int mandel = atoi(argv[11]);
    std::vector<int> counts(w * h, -1);
    std::vector<float> smooth(w * h, -1.0f), de(3 * w * h, -1.0f);
    unsigned long long total = 0;
    for (int gy = 0; gy < (h + 7) / 8; ++gy)
        for (int gx = 0; gx < (w + 31) / 32; ++gx)
            for (int ty = 0; ty < 8; ++ty)
                for (int tx = 0; tx < 32; ++tx) {
                    blockIdx = {gx, gy, 0};
                    threadIdx = {tx, ty, 0};
                    if (f64)
                        julia_de_f64(w, h, minx, miny, px, py, cr, ci, mandel, iters, counts.data(), smooth.data(),
                                     de.data(), &total);
                    else
                        julia_de_f32(w, h, minx, miny, px, py, cr, ci, mandel, iters, counts.data(), smooth.data(),
                                     de.data(), &total);
                }
    for (int i = 0; i < w * h; ++i)
        printf("%d %.9g %.9g %.9g %.9g\n", counts[i], (double)smooth[i], (double)de[3 * i], (double)de[3 * i + 1],
               (double)de[3 * i + 2]);
    printf("total %llu\n", total);
    return 0;
}
