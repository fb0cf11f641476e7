// What kernels/wave.cu needs of CUDA's device environment beyond tests/host/cuda_mock.h, to
// compile it as host C++ (tests/kernels/pml.rs runs its scene kernels this way, thread by thread,
// against the Rust CPU twin). Compiled with -ffp-contract=off: each float operation is rounded on
// its own, as the intrinsics __fadd_rn / __fmul_rn are on the device.
#include "cuda_mock.h"
#include <cstring>
#undef __launch_bounds__
#define __launch_bounds__(...)
static D3 blockDim, gridDim;  // set by the harness
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
static float2 make_float2(float x, float y) { return {x, y}; }
static float __fadd_rn(float a, float b) { return a + b; }
static float __fsub_rn(float a, float b) { return a - b; }
static float __fmul_rn(float a, float b) { return a * b; }
static unsigned __float_as_uint(float v) { unsigned u; std::memcpy(&u, &v, 4); return u; }
// The register kernels' shuffles are compiled, never run, by the harness.
static float __shfl_up_sync(unsigned, float v, int) { return v; }
static float __shfl_down_sync(unsigned, float v, int) { return v; }
using std::fmaf;
