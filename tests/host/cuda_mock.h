// Just enough of CUDA's device environment to compile a kernel file as host C++
// (tests/kernels/mandelbrot_deep.rs runs kernels/mandelbrot_deep.cu this way, thread by thread, and
// compares its counts with the Rust CPU twin: the kernel's logic is checked without a GPU).
#include <cmath>
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
#define __shared__ static
struct D3 { int x, y, z; };
static D3 blockIdx, threadIdx;  // set by the harness before each "thread"
static unsigned long long __shfl_down_sync(unsigned, unsigned long long v, int) { return v; }
static void __syncthreads() {}
static unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) { auto o = *a; *a += v; return o; }
static double __longlong_as_double(long long v) { double d; __builtin_memcpy(&d, &v, 8); return d; }
static long long __double_as_longlong(double v) { long long d; __builtin_memcpy(&d, &v, 8); return d; }
static int __popc(unsigned v) { return __builtin_popcount(v); }
static int __ffs(int v) { return __builtin_ffs(v); }
using std::max; using std::fmax; using std::fabs; using std::fmin; using std::fma; using std::log2;
