// Edge-balanced top-down step (PMPP ch. 15.8 "load balance", seed 004; the
// scan-based alternative to Merrill & Garland's thread/warp/block buckets).
//
// frontier_scan (bfs_convert.cu) leaves the frontier's edge offsets in two
// levels: frontier[i] owns the edge slots from
// block_offsets[i >> FRONTIER_SCAN_SHIFT] + offsets[i] on (the cupy.cumsum
// alternative writes whole offsets and zero block offsets). Block b owns the
// edge slots [b*CHUNK, (b+1)*CHUNK): it locates its first and last frontier vertex
// with two binary searches, stages that stretch of offsets, vertex ids and row
// starts in shared memory, and each thread then handles LB_ITEMS slots, finding
// its vertex by a binary search in shared memory. A hub with a million edges
// is spread over a thousand blocks; a frontier of degree-1 vertices costs one
// slot per thread. Claims go through the visited bitmap (atomicOr), so the
// bitmap stays exact for a following bottom-up step (seed 000 sec. 2.3).
// Winners are gathered in a block queue in shared memory (at most one per
// slot, so it cannot overflow) and reserved in the global queue with one
// atomicAdd per block: a single global tail hit once per warp serializes.
// write_levels == 0: winners get only their parent; the level, implied by
// the next queue, is written by the next step (the first bottom-up level,
// writing the results whole, reads it off its frontier bitmap) or by
// record_levels: at SCALE 26 the hub level's 1.5 M scattered levels cost a
// DRAM read and write of a sector each.
// The winners' degree sum (the policy's next m_f) counts degree_indptr's
// rows: the out-rows on one GPU, the in-rows on a one-column grid's block,
// whose out-rows hold only the arcs into the rank's own rows.
#include "common.cuh"

#ifndef LB_BLOCK
#define LB_BLOCK 256
#endif
#ifndef LB_ITEMS
#define LB_ITEMS 4
#endif
#define LB_CHUNK (LB_BLOCK * LB_ITEMS)

// First edge slot of frontier[i].
__device__ __forceinline__ eid_t offset_at(const eid_t* offsets, const eid_t* block_offsets, long long i) {
    return block_offsets[i >> FRONTIER_SCAN_SHIFT] + offsets[i];
}

// Largest i in [lo, hi) with offset_at(i) <= slot (nondecreasing in i, offset_at(lo) <= slot).
__device__ __forceinline__ long long owner_of(const eid_t* offsets, const eid_t* block_offsets, long long lo,
                                              long long hi, eid_t slot) {
    while (hi - lo > 1) {
        long long mid = lo + (hi - lo) / 2;
        if (offset_at(offsets, block_offsets, mid) <= slot) lo = mid; else hi = mid;
    }
    return lo;
}

// The same search over the block's staged (whole) offsets in shared memory.
__device__ __forceinline__ long long staged_owner_of(const eid_t* staged, long long hi, eid_t slot) {
    long long lo = 0;
    while (hi - lo > 1) {
        long long mid = lo + (hi - lo) / 2;
        if (staged[mid] <= slot) lo = mid; else hi = mid;
    }
    return lo;
}

extern "C" __global__ void __launch_bounds__(LB_BLOCK)
top_down_balanced_step(const vid_t* frontier, long long count, const eid_t* offsets,
                       const eid_t* block_offsets, long long total, int level, const eid_t* indptr,
                       const vid_t* indices, int* levels, long long* parents, word_t* visited, vid_t* next,
                       counter_t* counters, int write_levels, const eid_t* degree_indptr) {
    __shared__ eid_t stage_offset[LB_CHUNK + 1];
    __shared__ eid_t stage_row[LB_CHUNK + 1];
    __shared__ vid_t stage_vertex[LB_CHUNK + 1];
    __shared__ long long first_owner, last_owner;
    __shared__ vid_t block_queue[LB_CHUNK];
    __shared__ unsigned int block_tail;
    __shared__ counter_t block_base;

    eid_t start = (eid_t)blockIdx.x * LB_CHUNK;
    eid_t stop = min(start + (eid_t)LB_CHUNK, (eid_t)total);
    if (threadIdx.x == 0) first_owner = owner_of(offsets, block_offsets, 0, count, start);
    if (threadIdx.x == 1) last_owner = owner_of(offsets, block_offsets, 0, count, stop - 1);
    if (threadIdx.x == 2) block_tail = 0;
    __syncthreads();
    long long lo = first_owner, span = last_owner - first_owner + 1;
    // Zero-degree frontier vertices (directed graphs) can stretch a block's
    // span beyond the stage; then the search runs on global memory instead.
    bool staged = span <= LB_CHUNK + 1;
    if (staged) {
        for (long long k = threadIdx.x; k < span; k += LB_BLOCK) {
            vid_t u = frontier[lo + k];
            stage_offset[k] = offset_at(offsets, block_offsets, lo + k);
            stage_vertex[k] = u;
            stage_row[k] = indptr[u];
        }
    }
    __syncthreads();

    long long degree_sum = 0;
    for (int item = 0; item < LB_ITEMS; ++item) {
        eid_t slot = start + (eid_t)item * LB_BLOCK + threadIdx.x;
        bool won = false;
        vid_t w = 0;
        if (slot < stop) {
            vid_t u;
            eid_t edge;
            if (staged) {
                long long k = staged_owner_of(stage_offset, span, slot);
                u = stage_vertex[k];
                edge = stage_row[k] + (slot - stage_offset[k]);
            } else {
                long long i = owner_of(offsets, block_offsets, lo, last_owner + 1, slot);
                u = frontier[i];
                edge = indptr[u] + (slot - offset_at(offsets, block_offsets, i));
            }
            w = indices[edge];
            if (!bit_test(visited, w) && bit_claim(visited, w)) {
                if (write_levels) levels[w] = level;
                parents[w] = (long long)u;
                degree_sum += vertex_degree(degree_indptr, w);
                won = true;
            }
        }
        unsigned int ballot = __ballot_sync(WF_FULL_MASK, won);
        if (ballot) {
            int lane = threadIdx.x & 31;
            unsigned int first = 0;
            if (lane == 0) first = atomicAdd(&block_tail, (unsigned int)__popc(ballot));
            first = __shfl_sync(WF_FULL_MASK, first, 0);
            if (won) block_queue[first + __popc(ballot & ((1u << lane) - 1u))] = w;
        }
    }
    long long block_degree = block_sum<LB_BLOCK>(degree_sum);  // also orders the block queue writes
    unsigned int kept = block_tail;
    if (threadIdx.x == 0 && kept) {
        block_base = atomicAdd(&counters[CNT_NEXT_COUNT], (counter_t)kept);
        if (block_degree) atomicAdd(&counters[CNT_NEXT_DEGREE], (counter_t)block_degree);
    }
    __syncthreads();
    for (unsigned int k = threadIdx.x; k < kept; k += LB_BLOCK) next[block_base + k] = block_queue[k];
}

// The levels a top_down_balanced_step with write_levels == 0 left out: the
// vertices of its output queue[:count] were found at `level`.
extern "C" __global__ void record_levels(const vid_t* queue, long long count, int level, int* levels) {
    long long i = global_thread_id();
    if (i < count) levels[queue[i]] = level;
}
