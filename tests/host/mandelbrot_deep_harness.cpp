// Runs kernels/mandelbrot_deep.cu (included by the test through -include) on the host, one
// "thread" at a time over the launch grid, for the job in argv[1] (written by
// tests/kernels/mandelbrot_deep.rs), and prints each pixel's count and smooth value (hex float), one a line;
// with a second argument `de`, runs mandelbrot_deep_de_f64 and adds the distance and normal (hex floats).
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    FILE* f = fopen(argv[1], "r");
    if (!f) return 2;
    int w, h, iters, last, exp;
    double ax, bx, ay, by;
    if (fscanf(f, "%d %d %d %d %d %la %la %la %la", &w, &h, &iters, &last, &exp, &ax, &bx, &ay, &by) != 9) return 2;
    std::vector<double> zr(last + 1), zi(last + 1), lr(last + 1), li(last + 1), m4(last + 1);
    std::vector<int> ze(last + 1);
    for (int m = 0; m <= last; ++m)
        if (fscanf(f, "%la %la %la %la %la %d", &zr[m], &zi[m], &lr[m], &li[m], &m4[m], &ze[m]) != 6) return 2;
    // The BLA table: levels, n, entries, then per entry A, B (4 mantissas), r^2, the radius's
    // mantissa and the exponents (A's, B's, the radius's).
    int levels, entries;
    unsigned n;
    if (fscanf(f, "%d %u %d", &levels, &n, &entries) != 3) return 2;
    const int ne = entries > 0 ? entries : 1;
    std::vector<double> ab(4 * ne, 0.0), r2(ne, 0.0), rm(ne, 0.0);
    std::vector<int> ex(4 * ne, 0);
    for (int j = 0; j < entries; ++j)
        if (fscanf(f, "%la %la %la %la %la %la %d %d %d", &ab[4 * j], &ab[4 * j + 1], &ab[4 * j + 2], &ab[4 * j + 3],
                   &r2[j], &rm[j], &ex[4 * j], &ex[4 * j + 1], &ex[4 * j + 2]) != 9)
            return 2;
    std::vector<int> counts(w * h, -1);
    std::vector<float> smooth(w * h, -1.0f);
    const bool want_de = argc > 2 && argv[2][0] == 'd';
    std::vector<float> de(3 * w * h, -1.0f);
    unsigned long long total[2] = {0, 0};
    for (int gy = 0; gy < (h + 15) / 16; ++gy)
        for (int gx = 0; gx < (w + 15) / 16; ++gx)
            for (int ty = 0; ty < 8; ++ty)
                for (int tx = 0; tx < 32; ++tx) {
                    blockIdx = {gx, gy, 0};
                    threadIdx = {tx, ty, 0};
                    if (want_de)
                        mandelbrot_deep_de_f64(w, h, zr.data(), zi.data(), lr.data(), li.data(), m4.data(), ze.data(),
                                               last, ab.data(), r2.data(), rm.data(), ex.data(), levels, n, exp, ax, bx,
                                               ay, by, iters, counts.data(), smooth.data(), de.data(), total);
                    else
                    mandelbrot_deep_f64(w, h, zr.data(), zi.data(), lr.data(), li.data(), m4.data(), ze.data(), last,
                                        ab.data(), r2.data(), rm.data(), ex.data(), levels, n, exp, ax, bx, ay, by, iters, counts.data(),
                                        smooth.data(), 1, total);
                }
    // (total is not meaningful here: the mock's warp shuffle does not exchange values.)
    for (int i = 0; i < w * h; ++i) {
        if (want_de)
            printf("%d %a %a %a %a\n", counts[i], (double)smooth[i], (double)de[3 * i], (double)de[3 * i + 1],
                   (double)de[3 * i + 2]);
        else
            printf("%d %a\n", counts[i], (double)smooth[i]);
    }
    return 0;
}
