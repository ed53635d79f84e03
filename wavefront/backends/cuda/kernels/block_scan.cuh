// Block-wide exclusive scan, shared by the BFS kernels (through common.cuh)
// and the SSSP near-far kernel.
#pragma once

// Exclusive scan of `value` over a block of THREADS threads (a multiple of 32,
// at most 1024); *total receives the block's sum. T is unsigned int (counts)
// or long long (edge offsets). Contains __syncthreads(); a caller that loops
// over it needs one more barrier between calls before it reuses warp_sums.
template <typename T> struct wf_non_deduced { typedef T type; };  // T comes from warp_sums alone

template <int THREADS, typename T>
__device__ __forceinline__ T block_exclusive_scan(typename wf_non_deduced<T>::type value, T* warp_sums,
                                                  T* total) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T inclusive = value;
    for (int offset = 1; offset < 32; offset <<= 1) {
        T up = __shfl_up_sync(0xffffffffu, inclusive, offset);
        if (lane >= offset) inclusive += up;
    }
    if (lane == 31) warp_sums[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        T s = (lane < THREADS / 32) ? warp_sums[lane] : T(0);
        T t = s;
        for (int offset = 1; offset < 32; offset <<= 1) {
            T up = __shfl_up_sync(0xffffffffu, t, offset);
            if (lane >= offset) t += up;
        }
        if (lane < THREADS / 32) warp_sums[lane] = t - s;  // exclusive, per warp
        if (lane == 31) *total = t;
    }
    __syncthreads();
    return warp_sums[warp] + inclusive - value;
}
