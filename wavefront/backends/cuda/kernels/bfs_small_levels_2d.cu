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
//   small_top_down_2d  a (virtual) block per tile of frontier vertices (at
//                      most K of them, with at most K arcs in all), the
//                      tile's arcs spread over its threads and several
//                      blocks: no global scan, no count read back;
//   segments_to_queue  the gathered segments as the next step's queue.
#include "common.cuh"

#ifndef SEG_COUNT  // a segment's header; abi.py's values
#define SEG_COUNT 0
#define SEG_DEGREE 1
#define SEG_EXAMINED 2
#define SEG_IDS 3
#endif

// The finds of one thread: claimed through the visited bitmap, the winner
// gets its level and parent, and its global id (target + offset) goes into
// the segment by one atomic a warp. Every lane of the warp must call it.
__device__ __forceinline__ long long small_claim(bool valid, vid_t u, eid_t e, int level, const vid_t* indices,
                                                 const eid_t* degree_indptr, int* levels, long long* parents,
                                                 word_t* visited, long long offset, long long* segment) {
    int lane = threadIdx.x & 31;
    bool won = false;
    vid_t w = 0;
    long long degree = 0;
    if (valid) {
        w = indices[e];
        if (!bit_test(visited, w) && bit_claim(visited, w)) {
            levels[w] = level;
            parents[w] = (long long)u;
            degree = vertex_degree(degree_indptr, w);
            won = true;
        }
    }
    unsigned int ballot = __ballot_sync(WF_FULL_MASK, won);
    if (ballot) {
        unsigned long long first = 0;
        if (lane == 0)
            first = atomicAdd(reinterpret_cast<unsigned long long*>(&segment[SEG_COUNT]),
                              (unsigned long long)__popc(ballot));
        first = __shfl_sync(WF_FULL_MASK, first, 0);
        if (won) segment[SEG_IDS + first + __popc(ballot & ((1u << lane) - 1u))] = (long long)w + offset;
    }
    return degree;
}

// A level's values (int64 slots, SMALL_*), read from device memory so that
// one launch, or one captured CUDA graph of the whole level
// (wavefront/distributed/gpu_small_levels.py), serves every small level: the
// host writes them into pinned memory and the level's first node copies them.
#ifndef SMALL_COUNT
#define SMALL_COUNT 0    // frontier vertices in queue
#define SMALL_LEVEL 1    // the level the finds get
#define SMALL_LEVELS 2   // the owner's levels (int*)
#define SMALL_PARENTS 3  // the owner's parents (long long*)
#define SMALL_TILES 4    // tiles of SMALL_TILE frontier vertices
#define SMALL_SPREAD 5   // blocks that share one tile's arcs
#endif

// queue[0 .. count): the frontier (global, that is column-local, ids). A
// virtual block takes a tile of SMALL_TILE frontier vertices, scans their row
// lengths in shared memory and spreads the tile's arcs over its threads and
// over `spread` virtual blocks (every spread-th run of SMALL_TILE arcs), so a
// hub's arcs are claimed by many threads at once where one warp would take
// them in a chain of dependent rounds (a 4 k-arc row on one warp cost its level
// about 0.25 ms on an H100). The grid is fixed (a captured graph's is) and its
// blocks stride over the tiles x spread virtual blocks. The segment's header
// must be zero.
#ifndef SMALL_TILE
#define SMALL_TILE 256
#endif
extern "C" __global__ void __launch_bounds__(SMALL_TILE)
small_top_down_2d(const long long* params, const vid_t* queue, const eid_t* indptr, const vid_t* indices,
                  const eid_t* degree_indptr, word_t* visited, long long offset, long long* segment) {
    __shared__ long long before[SMALL_TILE];  // arcs of the tile's earlier vertices
    __shared__ eid_t begins[SMALL_TILE];
    __shared__ vid_t tile[SMALL_TILE];
    __shared__ long long warp_sums[SMALL_TILE / 32];
    __shared__ long long arcs;
    long long count = params[SMALL_COUNT], spread = params[SMALL_SPREAD];
    long long virtual_blocks = params[SMALL_TILES] * spread;
    int level = (int)params[SMALL_LEVEL];
    int* levels = reinterpret_cast<int*>(params[SMALL_LEVELS]);
    long long* parents = reinterpret_cast<long long*>(params[SMALL_PARENTS]);
    int t = threadIdx.x;
    long long degree_sum = 0, examined = 0;
    for (long long v = blockIdx.x; v < virtual_blocks; v += gridDim.x) {  // the same trips for every thread
        long long first = (v / spread) * SMALL_TILE, part = v % spread;
        __syncthreads();  // the last tile's shared arrays are read no more
        long long length = 0;
        if (first + t < count) {
            vid_t u = queue[first + t];
            eid_t begin = indptr[u];
            tile[t] = u;
            begins[t] = begin;
            length = (long long)(indptr[u + 1] - begin);
        }
        before[t] = block_exclusive_scan<SMALL_TILE, long long>(length, warp_sums, &arcs);
        __syncthreads();
        long long total = arcs;
        int vertices = (int)min((long long)SMALL_TILE, count - first);
        for (long long base = part * SMALL_TILE; base < total; base += spread * SMALL_TILE) {
            long long i = base + t;  // the block runs every round: the ballot sees whole warps
            bool valid = i < total;
            int j = 0;
            if (valid) {  // the last tile vertex whose arcs start at or before i
                int lo = 0, hi = vertices - 1;
                while (lo < hi) {
                    int mid = (lo + hi + 1) >> 1;
                    if (before[mid] <= i) lo = mid; else hi = mid - 1;
                }
                j = lo;
            }
            degree_sum += small_claim(valid, tile[j], valid ? begins[j] + (eid_t)(i - before[j]) : 0, level,
                                      indices, degree_indptr, levels, parents, visited, offset, segment);
        }
        if (part == 0) examined += total;
    }
    counter_t* header = reinterpret_cast<counter_t*>(segment);
    warp_add(&header[SEG_DEGREE], degree_sum);
    if (t == 0 && examined) atomicAdd(&header[SEG_EXAMINED], (counter_t)examined);
}

// The gathered segments (`ranks` of them, `stride` int64 apart, rank order)
// -> queue: rank r's ids after every earlier rank's. blockIdx.y is the rank;
// the blocks of a rank stride over its ids (the grid is fixed).
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
