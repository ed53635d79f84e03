// Helpers for persistent kernels (every block resident for the whole search):
// a software grid barrier and the global nanosecond timer for traces.
#pragma once

__device__ __forceinline__ unsigned long long global_timer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// All blocks must be resident. `arrived` only grows: barrier k (0-based) is
// passed once it reaches gridDim.x * (k + 1). Thread 0 of each block arrives
// with release semantics (covering its block's writes, ordered by the
// __syncthreads before) and waits with acquire loads.
__device__ __forceinline__ void grid_barrier(unsigned int* arrived, unsigned int target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int seen;
        asm volatile("atom.add.release.gpu.u32 %0, [%1], 1;" : "=r"(seen) : "l"(arrived) : "memory");
        ++seen;  // the count including this block
        while (seen < target)
            asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(seen) : "l"(arrived) : "memory");
    }
    __syncthreads();
}
