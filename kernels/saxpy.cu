// SAXPY, y = a*x + y: the CUDA twin of `saxpy` in src/backend/cpu/saxpy.rs and
// shaders/saxpy.wgsl. One thread per element, grid-stride. The multiply and the add are rounded
// separately (no fused multiply-add), as the CPU does, so the result is the CPU's bit for bit.
// The lesson: 12 bytes move per element (read x and y, write y) for 2 flops, so the kernel runs
// at the memory's speed, and the copies to and from the host cost more than the kernel.

extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);
    }
}
