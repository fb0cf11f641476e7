// CUDA's device environment for kernels/wave.cu's shared-memory kernels run as host C++ with one
// real thread per CUDA thread of a block (tests/host/wave_layer_blocked_harness.cpp): threadIdx is
// per thread and __syncthreads is a barrier of the block's threads, so a kernel that exchanges
// values through shared memory between barriers runs as on the device. Blocks run one at a time
// (the kernel's `__shared__` arrays become statics shared by the block's threads). Compiled with
// -ffp-contract=off: each float operation is rounded on its own, as __fadd_rn / __fmul_rn are.
#include <barrier>
#include <cmath>
#include <cstring>
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __shared__ static
struct D3 { int x, y, z; };
static D3 blockIdx, blockDim, gridDim;  // set by the harness before each block
static thread_local D3 threadIdx;       // set by each worker thread
static std::barrier<>* block_barrier;   // the block's threads
static void __syncthreads() { block_barrier->arrive_and_wait(); }
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
static float2 make_float2(float x, float y) { return {x, y}; }
static float __fadd_rn(float a, float b) { return a + b; }
static float __fsub_rn(float a, float b) { return a - b; }
static float __fmul_rn(float a, float b) { return a * b; }
static unsigned __float_as_uint(float v) { unsigned u; std::memcpy(&u, &v, 4); return u; }
// The register kernels' shuffles are compiled, never run, by this harness.
static float __shfl_up_sync(unsigned, float v, int) { return v; }
static float __shfl_down_sync(unsigned, float v, int) { return v; }
using std::fmaf;
