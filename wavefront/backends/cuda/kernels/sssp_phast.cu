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
// most blockDim.x vertices) is run by block 0 alone, a thread a vertex and
// __syncthreads between levels: the up sweep's last levels and the down
// sweep's first ones then cost a block barrier each instead of a grid one.
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

__device__ __forceinline__ void pull(vid_t y, const eid_t* __restrict__ indptr, const vid_t* __restrict__ from,
                                     const long long* __restrict__ weights, dist_t* dist) {
    dist_t best = __ldcg(dist + y);
    const eid_t end = indptr[y + 1];
    for (eid_t e = indptr[y]; e < end; ++e) {
        const dist_t d = __ldcg(dist + from[e]);
        if (d != SSSP_INT_INFINITY && d + weights[e] < best) best = d + weights[e];
    }
    dist[y] = best;
}

// Levels first..last (step +1 or -1, inclusive), each over the grid, a grid
// barrier after each; `barriers` counts the barriers passed so far.
__device__ __forceinline__ void wide_levels(int first, int last, int step, const eid_t* level_starts,
                                            const eid_t* indptr, const vid_t* from, const long long* weights,
                                            dist_t* dist, unsigned int* arrived, unsigned int& barriers) {
    const eid_t stride = (eid_t)gridDim.x * blockDim.x;
    for (int l = first; step > 0 ? l <= last : l >= last; l += step) {
        const eid_t lo = level_starts[l], hi = level_starts[l + 1];
        for (eid_t y = lo + (eid_t)blockIdx.x * blockDim.x + threadIdx.x; y < hi; y += stride)
            pull((vid_t)y, indptr, from, weights, dist);
        grid_barrier(arrived, gridDim.x * ++barriers);
    }
}

// Levels first..last by this block alone (each at most blockDim.x vertices).
__device__ __forceinline__ void narrow_levels(int first, int last, int step, const eid_t* level_starts,
                                              const eid_t* indptr, const vid_t* from, const long long* weights,
                                              dist_t* dist) {
    for (int l = first; step > 0 ? l <= last : l >= last; l += step) {
        const eid_t y = level_starts[l] + threadIdx.x;
        if (y < level_starts[l + 1]) pull((vid_t)y, indptr, from, weights, dist);
        __syncthreads();
    }
}

// dist: SSSP_INT_INFINITY everywhere but the sources (0). `source_level`: the
// lowest source's level; `levels`: the hierarchy's; `arrived`: zero.
extern "C" __global__ void phast_sweeps(const eid_t* __restrict__ level_starts, int levels, int source_level,
                                        int narrow_from, const eid_t* __restrict__ up_indptr,
                                        const vid_t* __restrict__ up_from, const long long* __restrict__ up_weights,
                                        const eid_t* __restrict__ down_indptr, const vid_t* __restrict__ down_from,
                                        const long long* __restrict__ down_weights, dist_t* dist,
                                        unsigned int* arrived) {
    unsigned int barriers = 0;
    const int top = levels - 1;
    // up: the wide levels above the source's, then (block 0) the narrow ones
    const int up_first = source_level + 1;
    const int up_wide_last = min(top, narrow_from - 1);
    if (up_first <= up_wide_last)
        wide_levels(up_first, up_wide_last, 1, level_starts, up_indptr, up_from, up_weights, dist, arrived,
                    barriers);
    if (blockIdx.x == 0) {
        narrow_levels(max(up_first, narrow_from), top, 1, level_starts, up_indptr, up_from, up_weights, dist);
        narrow_levels(top, narrow_from, -1, level_starts, down_indptr, down_from, down_weights, dist);
    }
    if (narrow_from <= 0) return;
    grid_barrier(arrived, gridDim.x * ++barriers);
    // down: the wide levels, from the highest
    wide_levels(narrow_from - 1, 0, -1, level_starts, down_indptr, down_from, down_weights, dist, arrived, barriers);
}
