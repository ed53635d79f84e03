// Helpers for persistent kernels (every block resident for the whole search,
// or one block running many levels): a software grid barrier, the global
// nanosecond timer and trace rows.
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

// Reads and writes that go to memory every time: words other blocks (or
// other warps of this block) change while a persistent kernel runs.
template <typename T>
__device__ __forceinline__ T load_volatile(const T* p) {
    return *reinterpret_cast<const volatile T*>(p);
}
template <typename T>
__device__ __forceinline__ void store_volatile(T* p, T v) {
    *reinterpret_cast<volatile T*>(p) = v;
}

// Trace rows of a persistent kernel (long long x TRACE_WIDTH): kind, vertices,
// splits so far, %globaltimer (ns) at the row's start. Rows past `capacity`
// are dropped.
#ifndef TRACE_WIDTH
#define TRACE_WIDTH 4
#endif
__device__ __forceinline__ void write_trace_row(long long* trace, int row, int capacity, int kind,
                                                long long vertices, int splits) {
    if (row >= capacity) return;
    trace[TRACE_WIDTH * row + 0] = kind;
    trace[TRACE_WIDTH * row + 1] = vertices;
    trace[TRACE_WIDTH * row + 2] = splits;
    trace[TRACE_WIDTH * row + 3] = (long long)global_timer_ns();
}
