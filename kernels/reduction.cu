// Sum reductions of u32 values (wrapping, so every order gives the same bits): the CUDA twins
// of src/backend/cpu/reduction.rs and shaders/reduction.wgsl.
//
// - `reduce_tree`: each block sums a grid-stride share per thread, then halves its shared array
//   in log2(256) steps (a tree), and writes one partial sum per block; the host adds the partials.
// - `reduce_atomic`: every thread adds each of its elements to one counter with atomicAdd: all
//   threads queue on one address, which is what the lesson shows.

#define REDUCE_BLOCK 256

extern "C" __global__ void reduce_tree(int n, const unsigned* __restrict__ x, unsigned* __restrict__ partial) {
    __shared__ unsigned s[REDUCE_BLOCK];
    unsigned acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int half = REDUCE_BLOCK / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_atomic(int n, const unsigned* __restrict__ x, unsigned* total) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(total, x[i]);
}
