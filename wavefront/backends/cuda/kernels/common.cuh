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

#ifndef WF_UNVISITED
#define WF_UNVISITED (-1)
#endif
#define WF_FULL_MASK 0xffffffffu

// Slots of the per-search counter array (device side; the host reads them
// with one small copy per level).
#ifndef CNT_NEXT_COUNT
#define CNT_NEXT_COUNT 0     // vertices in the next frontier (queue tail)
#endif
#ifndef CNT_NEXT_DEGREE
#define CNT_NEXT_DEGREE 1    // out-degree sum of the next frontier (m_f)
#endif
#ifndef CNT_EDGES
#define CNT_EDGES 2          // edges examined by the step
#endif
#ifndef CNT_FLAG
#define CNT_FLAG 3           // "a vertex was visited" (vertex-/edge-centric)
#endif
#ifndef CNT_LEVELS_RUN
#define CNT_LEVELS_RUN 4     // levels completed by the single-block kernel
#endif
#ifndef CNT_FRONTIER
#define CNT_FRONTIER 5       // vertices of the frontier a vertex-centric step started from
#endif
#ifndef CNT_SCAN_DONE
#define CNT_SCAN_DONE 6      // blocks of frontier_scan done (the last one scans the block totals)
#endif
#ifndef CNT_LARGE_LEFT
#define CNT_LARGE_LEFT 7     // bottom_up_small_first left large vertices to bottom_up_large_first
#endif
#ifndef CNT_LOGGED
#define CNT_LOGGED 8         // entries the padded single block wrote to the discovery log
#endif
#ifndef CNT_SLOTS
#define CNT_SLOTS 9
#endif

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
#ifndef FRONTIER_SCAN_SHIFT
#define FRONTIER_SCAN_SHIFT 10
#endif

// Visits one vertex found at `level` from `parent` (its claim already won).
__device__ __forceinline__ void record_visit(int* levels, long long* parents, vid_t v, int level,
                                             vid_t parent) {
    levels[v] = level;
    parents[v] = (long long)parent;
}

// Entries of the padded rows (device_graph.padded_rows), which the padded
// single block and the grid-levels kernel read: a neighbour's id in the low
// PAD_DEGREE_SHIFT bits and its out-degree (0..32) above them, so a winner's
// degree comes with its parent's row (the next level's arc count without a
// load or a count); -1 marks an empty slot.
#ifndef PAD_DEGREE_SHIFT
#define PAD_DEGREE_SHIFT (WF_INDEX64 ? 56 : 25)
#endif

__device__ __forceinline__ vid_t padded_id(vid_t entry) {
    return entry & (vid_t)((1ull << PAD_DEGREE_SHIFT) - 1);
}
__device__ __forceinline__ unsigned int padded_degree(vid_t entry) {
    return (unsigned int)((unsigned long long)entry >> PAD_DEGREE_SHIFT);
}

// The discovery log of the multi-level road kernels (bfs_grid_levels.cu, the
// padded single block): a level appends its new vertices to log[p] and
// (parent << LOG_LEVEL_BITS | level - the launch's first level) to
// record[p], p running over the launch, each warp's entries contiguous.
// Scattered result stores inside a level cost it dearly (one SM's
// single block: seattle 2.12 against 1.66 us a level without them, H100;
// a grid level waits at its barrier for every store in flight), so one pass
// over the whole GPU writes the logged levels and parents afterwards.
#ifndef LOG_LEVEL_BITS
#define LOG_LEVEL_BITS 12
#endif

__device__ __forceinline__ unsigned long long log_record(vid_t parent, int stamp) {
    return ((unsigned long long)parent << LOG_LEVEL_BITS) | (unsigned long long)stamp;
}

// Log entry i's level and parent into the results. Entries other blocks
// (or an earlier kernel) wrote are read from L2.
__device__ __forceinline__ void record_logged(const vid_t* log, const unsigned long long* record, long long i,
                                              int first_level, int* levels, long long* parents) {
    const vid_t v = __ldcg(log + i);
    const unsigned long long word = __ldcg(record + i);
    record_visit(levels, parents, v, first_level + (int)(word & ((1u << LOG_LEVEL_BITS) - 1)),
                 (vid_t)(word >> LOG_LEVEL_BITS));
}

// "No parent found" in a candidate's 32-bit result entry (ids stay < 2^31 there).
#define NO_PARENT 0xffffffffu

// Writes the levels and parents of the 32 bitmap words of a warp whole, one
// word after another, each as one coalesced 128-byte store of levels and one
// 256-byte store of parents by the 32 lanes, so that no DRAM sector of
// either array is left partly written (a partly written HBM sector is read
// back and merged first: at SCALE 26 the big bottom-up level's scattered
// 12-byte records cost ~0.6 GB of such reads, ncu). Lane i brings word w_i:
// its candidate bits, with `entries` pointing at one 32-bit result per
// candidate (ascending bit order; a parent id found at `level`, or
// NO_PARENT), and its `keep` bits, whose stored values stay (visited at an
// earlier level), except the level of those also in `previous`: level - 1,
// which the top-down step before did not write. Every other vertex gets -1.
// Every lane of the warp must call it. Returns the lane's own word's found bits.
__device__ __forceinline__ word_t write_words_whole(long long n, long long words, long long w, int level,
                                                    word_t candidates, const unsigned int* entries, word_t keep,
                                                    word_t previous, int* levels, long long* parents) {
    const int lane = threadIdx.x & 31;
    const unsigned int below = (1u << lane) - 1u;
    word_t mine = 0;
    for (int owner = 0; owner < 32; ++owner) {
        const long long word = __shfl_sync(WF_FULL_MASK, w, owner);
        const word_t owner_candidates = __shfl_sync(WF_FULL_MASK, candidates, owner);
        const word_t owner_keep = __shfl_sync(WF_FULL_MASK, keep, owner);
        const word_t owner_previous = __shfl_sync(WF_FULL_MASK, previous, owner);
        const unsigned int* owner_entries = (const unsigned int*)__shfl_sync(
            WF_FULL_MASK, (unsigned long long)entries, owner);
        if (word >= words) continue;  // the same for every lane
        const long long v = word * 32 + lane;
        int level_of = WF_UNVISITED;
        long long parent_of = -1;
        bool found = false;
        if ((owner_candidates >> lane) & 1u) {
            const unsigned int parent = owner_entries[__popc(owner_candidates & below)];
            found = parent != NO_PARENT;
            if (found) {
                level_of = level;
                parent_of = (long long)parent;
            }
        } else if (((owner_keep >> lane) & 1u) && v < n) {
            level_of = ((owner_previous >> lane) & 1u) ? level - 1 : levels[v];
            parent_of = parents[v];
        }
        if (v < n) {
            levels[v] = level_of;
            parents[v] = parent_of;
        }
        const word_t found_bits = __ballot_sync(WF_FULL_MASK, found);
        if (lane == owner) mine = found_bits;
    }
    return mine;
}
