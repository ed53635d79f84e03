// Predecessors from final distances (seed 001 §3: "remember the neighbour that
// gave each node its shortest distance"), computed after the search so that
// every method shares one exact, deterministic rule:
//   parent[v] = the smallest u with an arc u -> v, d[u] < d[v] and
//               fl(d[u] + w) == d[v]   (confirm_parents),
// which points to a strictly smaller distance, so the parent graph is a tree.
// A vertex reached only through arcs that add nothing (zero weights, or a
// float32 weight below half an ulp of d) has no such u; those vertices form
// plateaus of equal distance, resolved breadth-first from confirmed vertices
// (plateau_round: round r accepts parents settled in rounds < r), again a tree.
// Plateau rounds run over all vertices; they are rare (none on the benchmark
// graphs), so they are kept simple.
#include "sssp_common.cuh"

#ifndef PARENT_BLOCK
#define PARENT_BLOCK 256
#endif
#ifndef PARENT_ITEMS
#define PARENT_ITEMS 8
#endif

#define NO_PARENT 0x7fffffffffffffffLL

// The vertex in [lo, hi] whose out-list holds arc e (largest u with indptr[u] <= e).
__device__ __forceinline__ long long arc_tail(const eid_t* __restrict__ indptr, long long lo,
                                              long long hi, eid_t e) {
    while (lo < hi) {
        long long mid = (lo + hi + 1) >> 1;
        if (indptr[mid] <= e) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

// One pass over all arcs, balanced by arcs (a hub costs what its arcs cost):
// each block takes PARENT_BLOCK * PARENT_ITEMS consecutive arcs and bounds its
// tail search by the tails of its first and last arc.
extern "C" __global__ void __launch_bounds__(PARENT_BLOCK)
confirm_parents(long long n, long long m, const eid_t* __restrict__ indptr,
                const vid_t* __restrict__ indices, const weight_t* __restrict__ weights,
                const dist_t* __restrict__ dist, long long* parent) {
    __shared__ long long bounds[2];
    const long long first = (long long)blockIdx.x * PARENT_BLOCK * PARENT_ITEMS;
    if (first >= m) return;
    const long long last = min(first + (long long)PARENT_BLOCK * PARENT_ITEMS, m) - 1;
    if (threadIdx.x == 0) {
        bounds[0] = arc_tail(indptr, 0, n - 1, first);
        bounds[1] = arc_tail(indptr, bounds[0], n - 1, last);
    }
    __syncthreads();
    const dist_t inf = dist_infinity();
    for (int k = 0; k < PARENT_ITEMS; ++k) {
        eid_t e = first + (long long)k * PARENT_BLOCK + threadIdx.x;
        if (e > last) break;
        long long u = arc_tail(indptr, bounds[0], bounds[1], e);
        dist_t du = dist[u];
        if (du == inf) continue;
        vid_t v = indices[e];
        dist_t dv = dist[v];
        if (du < dv && du + arc_weight(weights, e) == dv) atomicMin(parent + v, u);
    }
}

// Marks the source, sets settled_round (0: has a parent, -1: not yet) and
// counts the reached vertices still without a parent.
extern "C" __global__ void count_unsettled(long long n, long long source,
                                           const dist_t* __restrict__ dist, long long* parent,
                                           int* settled_round, unsigned int* unsettled) {
    long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool without = false;
    if (v < n) {
        if (v == source) parent[v] = source;
        without = parent[v] == NO_PARENT && dist[v] != dist_infinity();
        settled_round[v] = parent[v] == NO_PARENT ? -1 : 0;
    }
    unsigned int ballot = __ballot_sync(SSSP_FULL_MASK, without);
    if (lane_id() == 0 && ballot) atomicAdd(unsettled, (unsigned int)__popc(ballot));
}

// One breadth-first round over the plateau vertices, pulling over in-arcs:
// round r accepts a parent settled in a round < r (never one settled in this
// round, so the result does not depend on thread timing).
extern "C" __global__ void plateau_round(long long n, const eid_t* __restrict__ in_indptr,
                                         const vid_t* __restrict__ in_indices,
                                         const weight_t* __restrict__ in_weights,
                                         const dist_t* __restrict__ dist, long long* parent,
                                         int* settled_round, int round, unsigned int* settled) {
    long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool done = false;
    if (v < n && settled_round[v] < 0 && dist[v] != dist_infinity()) {
        dist_t dv = dist[v];
        long long best = NO_PARENT;
        for (eid_t i = in_indptr[v]; i < in_indptr[v + 1]; ++i) {
            long long u = in_indices[i];
            int r = settled_round[u];
            if (r >= 0 && r < round && u < best && dist[u] + arc_weight(in_weights, i) == dv) best = u;
        }
        if (best != NO_PARENT) {
            parent[v] = best;
            settled_round[v] = round;
            done = true;
        }
    }
    unsigned int ballot = __ballot_sync(SSSP_FULL_MASK, done);
    if (lane_id() == 0 && ballot) atomicAdd(settled, (unsigned int)__popc(ballot));
}
