// Shared definitions for the BFS kernels (bfs_*.cu).
//
// Index types (vid_t, eid_t): index_types.cuh.
// Bitmaps hold one bit per vertex in 32-bit words (vertex v: word v>>5, bit v&31).
// Counters are unsigned 64-bit so one atomicAdd per warp can accumulate them.
#pragma once

#include "index_types.cuh"
#include "block_scan.cuh"

typedef unsigned int word_t;
typedef unsigned long long counter_t;

#define WF_UNVISITED (-1)
#define WF_FULL_MASK 0xffffffffu

// Slots of the per-search counter array (device side; the host reads them
// with one small copy per level).
#define CNT_NEXT_COUNT 0     // vertices in the next frontier (queue tail)
#define CNT_NEXT_DEGREE 1    // out-degree sum of the next frontier (m_f)
#define CNT_EDGES 2          // edges examined by the step
#define CNT_FLAG 3           // "a vertex was visited" (vertex-/edge-centric)
#define CNT_LEVELS_RUN 4     // levels completed by the single-block kernel
#define CNT_FRONTIER 5       // vertices of the frontier a vertex-centric step started from
#define CNT_SCAN_DONE 6      // blocks of frontier_scan done (the last one scans the block totals)
#define CNT_SLOTS 8

__device__ __forceinline__ long long global_thread_id() {
    return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ bool bit_test(const word_t* bitmap, vid_t v) {
    return (bitmap[v >> 5] >> (v & 31)) & 1u;
}

// Sets v's bit; true only for the one caller that flipped it (the claim).
__device__ __forceinline__ bool bit_claim(word_t* bitmap, vid_t v) {
    word_t mask = 1u << (v & 31);
    return !(atomicOr(&bitmap[v >> 5], mask) & mask);
}

__device__ __forceinline__ eid_t vertex_degree(const eid_t* indptr, vid_t v) {
    return indptr[v + 1] - indptr[v];
}

// Sum over the lanes of `mask`, added to *counter by one lane: one atomic per
// warp instead of one per thread. All 32 lanes must call it (no early return).
__device__ __forceinline__ void warp_add(counter_t* counter, long long value) {
    for (int offset = 16; offset > 0; offset >>= 1)
        value += __shfl_down_sync(WF_FULL_MASK, value, offset);
    int lane = threadIdx.x & 31;
    if (lane == 0 && value != 0)
        atomicAdd(counter, (counter_t)value);
}

// Sum over all 32 lanes, returned to every lane (all lanes must call it).
__device__ __forceinline__ long long warp_sum(long long value) {
    for (int offset = 16; offset > 0; offset >>= 1)
        value += __shfl_xor_sync(WF_FULL_MASK, value, offset);
    return value;
}

// Sum over the block (THREADS threads, a multiple of 32), returned to thread 0
// (others get 0). All threads must call it; it contains two __syncthreads(),
// so consecutive calls may reuse its shared scratch. One atomic per block on
// a shared counter instead of one per warp: at SCALE 26 a grid-wide step has
// ~10^5 warps, whose same-address atomics would serialize in L2.
template <int THREADS>
__device__ __forceinline__ long long block_sum(long long value) {
    __shared__ long long partial[THREADS / 32];
    value = warp_sum(value);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = value;
    __syncthreads();
    long long total = 0;
    if (threadIdx.x == 0)
        for (int k = 0; k < THREADS / 32; ++k) total += partial[k];
    __syncthreads();
    return total;
}

// The edge-balanced top-down step's frontier offsets come in two levels
// (frontier_scan in bfs_convert.cu): offsets within chunks of
// 2^FRONTIER_SCAN_SHIFT frontier vertices, plus each chunk's first offset.
#define FRONTIER_SCAN_SHIFT 10

// Visits one vertex found at `level` from `parent` (its claim already won).
__device__ __forceinline__ void record_visit(int* levels, long long* parents, vid_t v, int level,
                                             vid_t parent) {
    levels[v] = level;
    parents[v] = (long long)parent;
}

// "No parent found" in a candidate's 32-bit result entry (ids stay < 2^31 there).
#define NO_PARENT 0xffffffffu

// Writes the levels and parents of word w's 32 vertices whole, in 16-byte
// stores, so that no DRAM sector of either array is left partly written (an
// HBM sector written in part is read back and merged first, and at SCALE 26
// the big bottom-up level's scattered 12-byte records cost that read for
// nearly every sector). Candidate bit b (ascending) takes the next entry of
// parent_of_candidate: a parent id, found at `level`, or NO_PARENT; a `keep`
// bit keeps the values already stored (visited at an earlier level); any
// other vertex gets -1. Returns the found bits.
__device__ __forceinline__ word_t write_word_whole(long long n, long long w, int level, word_t candidates,
                                                   const unsigned int* parent_of_candidate, word_t keep,
                                                   int* levels, long long* parents) {
    const long long first = w * 32;
    const int count = (int)min(32LL, n - first);
    word_t found = 0;
    int slot = 0;
#pragma unroll
    for (int g = 0; g < 32; g += 4) {
        int lv[4];
        long long pv[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int b = g + j;
            lv[j] = WF_UNVISITED;
            pv[j] = -1;
            if ((candidates >> b) & 1u) {
                const unsigned int parent = parent_of_candidate[slot++];
                if (parent != NO_PARENT) {
                    lv[j] = level;
                    pv[j] = (long long)parent;
                    found |= 1u << b;
                }
            } else if (((keep >> b) & 1u) && b < count) {
                lv[j] = levels[first + b];
                pv[j] = parents[first + b];
            }
        }
        if (count == 32) {
            reinterpret_cast<int4*>(levels + first)[g / 4] = make_int4(lv[0], lv[1], lv[2], lv[3]);
            reinterpret_cast<longlong2*>(parents + first)[g / 2] = make_longlong2(pv[0], pv[1]);
            reinterpret_cast<longlong2*>(parents + first)[g / 2 + 1] = make_longlong2(pv[2], pv[3]);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                if (g + j < count) {
                    levels[first + g + j] = lv[j];
                    parents[first + g + j] = pv[j];
                }
            }
        }
    }
    return found;
}
