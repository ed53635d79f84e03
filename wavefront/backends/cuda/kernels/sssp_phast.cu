// PHAST (Delling, Goldberg, Nowatzyk, Werneck, "PHAST: Hardware-accelerated
// shortest path trees", IPDPS 2011): one search over a contraction hierarchy
// as two level-synchronous pull sweeps, in one persistent launch.
//
// The vertices are numbered by level (wavefront/graph/hierarchy.py): level l
// is ids level_starts[l] .. level_starts[l+1]-1, and no arc joins two vertices
// of one level. Sweep 1 (up) takes the levels above the lowest source's,
// ascending: a vertex pulls from its lower in-neighbours (up_*). Sweep 2
// (down) takes every level, descending: a vertex pulls from its higher
// in-neighbours (down_*). A level's vertices are independent, so its work is
// spread over the grid and a software grid barrier (persistent.cuh) ends it.
//
// The narrow top of the hierarchy (every level from `narrow_from` up holds at
// most blockDim.x vertices) is run by block 0 alone, __syncthreads between
// levels: the up sweep's last levels and the down
// sweep's first ones then cost a block barrier each instead of a grid one.
//
// The top of the narrow part, ids resident_from .. n-1 (as many as the
// launch's dynamic shared memory holds), is kept in block 0's shared memory
// while block 0 runs the narrow levels: those vertices' distances and both
// sweeps' row starts. A narrow level then waits on one L2 round trip (the
// arcs) instead of three (row starts, arcs, distances). Block 0 loads them
// when the narrow up levels begin and writes the distances back before the
// wide down levels read them.
//
// Distances are int64 (integer weights, SSSP_INT_INFINITY unreached).
// Reads of other vertices' distances go through L2 (__ldcg): other blocks
// wrote them before the last barrier.
#include "index_types.cuh"
#include "persistent.cuh"

#ifndef SSSP_INT_INFINITY
#define SSSP_INT_INFINITY 0x7fffffffffffffffLL  // an unreached vertex (abi.SSSP_INT_INFINITY)
#endif

typedef long long dist_t;

// One level's vertices lo..hi-1 over `threads` threads (this one `tid`): a
// group of G lanes a vertex (G a power of two up to 32, as many as the
// threads allow), each lane taking every G-th in-arc, the group's least
// found by shuffles. A hub's arcs are then read in parallel instead of one
// dependent L2 round trip after another. Every thread runs the same number
// of rounds (the shuffles need whole warps).
//
// RESIDENT: ids from `resident_from` on read their row starts from
// `resident_rows` and their distances from `resident_dist` (shared memory);
// the others go to global memory.
template <bool RESIDENT>
__device__ __forceinline__ void pull_level(eid_t lo, eid_t hi, long long tid, long long threads,
                                           const eid_t* __restrict__ indptr, const vid_t* __restrict__ from,
                                           const long long* __restrict__ weights, dist_t* dist,
                                           long long resident_from = 0, const eid_t* resident_rows = nullptr,
                                           dist_t* resident_dist = nullptr) {
    const long long width = hi - lo;
    int lanes = 1;
    while (lanes < 32 && (long long)lanes * 2 * width <= threads) lanes *= 2;
    const int lane = (int)(tid & (lanes - 1));
    const long long groups = threads / lanes;
    for (eid_t first = lo; first < hi; first += groups) {
        const eid_t y = first + tid / lanes;
        dist_t best = SSSP_INT_INFINITY;
        const bool mine = RESIDENT && y >= resident_from;
        if (y < hi) {
            const eid_t begin = mine ? resident_rows[y - resident_from] : indptr[y];
            const eid_t end = mine ? resident_rows[y - resident_from + 1] : indptr[y + 1];
            for (eid_t e = begin + lane; e < end; e += lanes) {
                const long long x = from[e];
                const dist_t d = RESIDENT && x >= resident_from ? resident_dist[x - resident_from]
                                                                : __ldcg(dist + x);
                if (d != SSSP_INT_INFINITY && d + weights[e] < best) best = d + weights[e];
            }
        }
        for (int offset = lanes >> 1; offset > 0; offset >>= 1)
            best = min(best, (dist_t)__shfl_xor_sync(0xffffffffu, best, offset));
        if (y < hi && lane == 0) {
            dist_t* slot = mine ? resident_dist + (y - resident_from) : dist + y;
            const dist_t own = mine ? *slot : __ldcg(slot);
            if (best < own) *slot = best;
        }
    }
}

// Levels first..last (step +1 or -1, inclusive), each over the grid, a grid
// barrier after each but the last of the search; `barriers` counts them.
__device__ __forceinline__ void wide_levels(int first, int last, int step, bool barrier_after_last,
                                            const eid_t* level_starts, const eid_t* indptr, const vid_t* from,
                                            const long long* weights, dist_t* dist, unsigned int* arrived,
                                            unsigned int& barriers) {
    const long long threads = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (int l = first; step > 0 ? l <= last : l >= last; l += step) {
        pull_level<false>(level_starts[l], level_starts[l + 1], tid, threads, indptr, from, weights, dist);
        if (l != last || barrier_after_last) grid_barrier(arrived, gridDim.x * ++barriers);
    }
}

// Levels first..last by this block alone (each at most blockDim.x vertices),
// the resident top's rows and distances in shared memory.
__device__ __forceinline__ void narrow_levels(int first, int last, int step, const eid_t* level_starts,
                                              const eid_t* indptr, const vid_t* from, const long long* weights,
                                              dist_t* dist, long long resident_from, const eid_t* resident_rows,
                                              dist_t* resident_dist) {
    for (int l = first; step > 0 ? l <= last : l >= last; l += step) {
        pull_level<true>(level_starts[l], level_starts[l + 1], threadIdx.x, blockDim.x, indptr, from, weights, dist,
                         resident_from, resident_rows, resident_dist);
        __syncthreads();
    }
}

// The search writes dist whole: SSSP_INT_INFINITY, 0 at the sources
// (`first_seed` and `seeds[0..seed_count)`, hierarchy ids), then the sweeps. `source_level`:
// the lowest source's level; `levels`: the hierarchy's; `arrived`: zero.
// `resident_from` (at least level_starts[narrow_from], at most n): the first
// id kept in shared memory; the launch gives 8 x (3 (n - resident_from) + 2)
// bytes of dynamic shared memory.
extern "C" __global__ void phast_sweeps(long long n, long long first_seed, const vid_t* __restrict__ seeds,
                                        int seed_count,
                                        const eid_t* __restrict__ level_starts, int levels, int source_level,
                                        int narrow_from, long long resident_from, const eid_t* __restrict__ up_indptr,
                                        const vid_t* __restrict__ up_from, const long long* __restrict__ up_weights,
                                        const eid_t* __restrict__ down_indptr, const vid_t* __restrict__ down_from,
                                        const long long* __restrict__ down_weights, dist_t* dist,
                                        unsigned int* arrived) {
    unsigned int barriers = 0;
    const long long threads = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long v = tid; v < n; v += threads) dist[v] = SSSP_INT_INFINITY;
    grid_barrier(arrived, gridDim.x * ++barriers);
    if (tid == 0) dist[first_seed] = 0;
    for (long long i = tid; i < seed_count; i += threads) dist[seeds[i]] = 0;
    grid_barrier(arrived, gridDim.x * ++barriers);
    const int top = levels - 1;
    // up: the wide levels above the source's, then (block 0) the narrow ones
    const int up_first = source_level + 1;
    const int up_wide_last = min(top, narrow_from - 1);
    if (up_first <= up_wide_last)
        wide_levels(up_first, up_wide_last, 1, true, level_starts, up_indptr, up_from, up_weights, dist, arrived,
                    barriers);
    if (blockIdx.x == 0) {
        extern __shared__ long long resident[];  // distances, up row starts, down row starts
        const long long count = n - resident_from;
        dist_t* resident_dist = resident;
        eid_t* resident_up = resident + count;
        eid_t* resident_down = resident_up + count + 1;
        for (long long k = threadIdx.x; k <= count; k += blockDim.x) {
            if (k < count) resident_dist[k] = __ldcg(dist + resident_from + k);
            resident_up[k] = up_indptr[resident_from + k];
            resident_down[k] = down_indptr[resident_from + k];
        }
        __syncthreads();
        narrow_levels(max(up_first, narrow_from), top, 1, level_starts, up_indptr, up_from, up_weights, dist,
                      resident_from, resident_up, resident_dist);
        narrow_levels(top, narrow_from, -1, level_starts, down_indptr, down_from, down_weights, dist, resident_from,
                      resident_down, resident_dist);
        for (long long k = threadIdx.x; k < count; k += blockDim.x) dist[resident_from + k] = resident_dist[k];
    }
    if (narrow_from <= 0) return;
    grid_barrier(arrived, gridDim.x * ++barriers);
    // down: the wide levels, from the highest
    wide_levels(narrow_from - 1, 0, -1, false, level_starts, down_indptr, down_from, down_weights, dist, arrived,
                barriers);
}
