// Small top-down levels of the 2-D BFS on a one-column grid's GPU block
// (wavefront/distributed/gpu.py, DistributedTuning.fixed_ids_edges), with a
// fixed-size exchange of the finds.
//
// A top-down level whose frontier holds at most K arcs in all (m_f, which
// every rank knows before the step) finds at most K vertices on any rank, so
// every rank can agree, with no communication, to send its finds as one
// segment of K + SEG_IDS int64: its count, their degree sum and the arcs it
// examined, then their global ids. One all-gather of equal parts then moves
// every rank's ids and totals at once, where a level otherwise took a
// read-back of the frontier's arc count, the step, a read-back of its counts,
// a host all-gather of the totals and an all-gather-v of the ids.
//
//   small_top_down_2d  a warp per frontier vertex (at most K of them, each
//                      with at most K arcs: no scan, no count read back);
//   segments_to_queue  the gathered segments as the next step's queue.
#include "common.cuh"

#ifndef SEG_COUNT  // a segment's header; abi.py's values
#define SEG_COUNT 0
#define SEG_DEGREE 1
#define SEG_EXAMINED 2
#define SEG_IDS 3
#endif

// queue[0 .. count): the frontier (global, that is column-local, ids). Each
// warp takes one vertex and claims its arcs' targets (row-local ids) through
// the visited bitmap; a winner gets its level and parent, and its global id
// (target + offset) goes into the segment. The segment's header must be zero.
extern "C" __global__ void small_top_down_2d(const vid_t* queue, long long count, int level, const eid_t* indptr,
                                             const vid_t* indices, const eid_t* degree_indptr, int* levels,
                                             long long* parents, word_t* visited, long long offset,
                                             long long* segment) {
    long long warp = global_thread_id() >> 5;
    int lane = threadIdx.x & 31;
    if (warp >= count) return;  // the whole warp: no shuffle below misses a lane
    vid_t u = queue[warp];
    eid_t begin = indptr[u], end = indptr[u + 1];
    unsigned long long* header = reinterpret_cast<unsigned long long*>(segment);
    long long degree_sum = 0;
    for (eid_t base = begin; base < end; base += 32) {  // every lane runs every round: the ballot sees the warp
        eid_t e = base + lane;
        bool won = false;
        vid_t w = 0;
        if (e < end) {
            w = indices[e];
            if (!bit_test(visited, w) && bit_claim(visited, w)) {
                levels[w] = level;
                parents[w] = (long long)u;
                degree_sum += vertex_degree(degree_indptr, w);
                won = true;
            }
        }
        unsigned int ballot = __ballot_sync(WF_FULL_MASK, won);
        if (ballot) {
            unsigned long long first = 0;
            if (lane == 0) first = atomicAdd(&header[SEG_COUNT], (unsigned long long)__popc(ballot));
            first = __shfl_sync(WF_FULL_MASK, first, 0);
            if (won) segment[SEG_IDS + first + __popc(ballot & ((1u << lane) - 1u))] = (long long)w + offset;
        }
    }
    for (int delta = 16; delta > 0; delta >>= 1) degree_sum += __shfl_down_sync(WF_FULL_MASK, degree_sum, delta);
    if (lane == 0) {
        if (degree_sum) atomicAdd(&header[SEG_DEGREE], (unsigned long long)degree_sum);
        if (end > begin) atomicAdd(&header[SEG_EXAMINED], (unsigned long long)(end - begin));
    }
}

// The gathered segments (`ranks` of them, `stride` int64 apart, rank order)
// -> queue: rank r's ids after every earlier rank's. blockIdx.y is the rank.
extern "C" __global__ void segments_to_queue(const long long* gathered, int ranks, long long stride, vid_t* queue) {
    int r = blockIdx.y;
    if (r >= ranks) return;
    long long start = 0;
    for (int q = 0; q < r; ++q) start += gathered[q * stride + SEG_COUNT];
    const long long* mine = gathered + r * stride;
    long long count = mine[SEG_COUNT];
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step)
        queue[start + i] = (vid_t)mine[SEG_IDS + i];
}
