// Predecessors (seed 001 §3: "remember the neighbour that gave each node its
// shortest distance"). Delta-stepping with float32 weights records them during
// the search (parents_from_record below reads them). Every other search gets
// them after the search from the final distances, by one exact, deterministic rule:
//   parent[v] = the smallest u with an arc u -> v, d[u] < d[v] and
//               fl(d[u] + w) == d[v]   (confirm_parents, over v's in-arcs),
// which points to a strictly smaller distance, so the parent graph is a tree.
// A vertex reached only through arcs that add nothing (zero weights, or a
// float32 weight below half an ulp of d) has no such u; those vertices form
// plateaus of equal distance, resolved breadth-first from confirmed vertices
// (plateau_round: round r accepts parents settled in rounds < r), again a tree.
// Plateau rounds run over all vertices; they are rare (a handful of vertices on
// a Kronecker graph with float32 weights), so they are kept simple.
//
// Work balance (a Kronecker hub has ~10^6 in-arcs): lists shorter than
// SSSP_WARP_COOP_DEGREE are read by one lane, longer ones by a whole warp, and
// lists of PARENT_CHUNK arcs or more are left to confirm_parents_chunks, a
// warp per PARENT_CHUNK arcs, which combines them with atomicMin.
#include "sssp_common.cuh"

#ifndef PARENT_BLOCK
#define PARENT_BLOCK 256
#endif
#ifndef PARENT_CHUNK
#define PARENT_CHUNK 2048
#endif

#define NO_PARENT 0x7fffffffffffffffLL

// The smallest u over in-arcs [b, e) of a vertex with accepts(u, i), read by
// the whole warp and returned to every lane. All 32 lanes call it together.
template <typename Accepts>
__device__ __forceinline__ long long warp_min_in(eid_t b, eid_t e, const vid_t* __restrict__ in_indices,
                                                 Accepts accepts) {
    long long best = NO_PARENT;
    for (eid_t i = b + lane_id(); i < e; i += 32) {
        long long u = in_indices[i];
        if (u < best && accepts(u, i)) best = u;
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        long long other = __shfl_xor_sync(SSSP_FULL_MASK, best, offset);
        best = other < best ? other : best;
    }
    return best;
}

// The same over whole lists of the lanes that ask (`want`): a list of at
// least SSSP_WARP_COOP_DEGREE arcs is read by the whole warp, a shorter one
// by its own lane. All 32 lanes call it together.
template <typename Accepts>
__device__ __forceinline__ long long list_min_in(bool want, eid_t b, eid_t e, dist_t dv,
                                                 const vid_t* __restrict__ in_indices,
                                                 Accepts accepts) {
    long long best = NO_PARENT;
    const bool cooperative = want && e - b >= SSSP_WARP_COOP_DEGREE;
    for_each_warp_list(cooperative, b, e, dv, [&](eid_t lb, eid_t le, dist_t ld, int leader) {
        long long m = warp_min_in(lb, le, in_indices, [&](long long u, eid_t i) { return accepts(u, i, ld); });
        if ((int)lane_id() == leader) best = m;
    });
    if (want && !cooperative)
        for (eid_t i = b; i < e; ++i) {
            long long u = in_indices[i];
            if (u < best && accepts(u, i, dv)) best = u;
        }
    return best;
}

// One pass over the reached vertices, pulling over their in-arcs (no atomics,
// no search for an arc's tail). Writes every parent: -1 (unreached), the
// source for itself, the confirming in-neighbour, or NO_PARENT (no confirming
// in-arc among those read here: a list left to confirm_parents_chunks, or a
// plateau vertex).
extern "C" __global__ void confirm_parents(long long n, long long source,
                                           const eid_t* __restrict__ in_indptr,
                                           const vid_t* __restrict__ in_indices,
                                           const weight_t* __restrict__ in_weights,
                                           const dist_t* __restrict__ dist, long long* parent) {
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const bool in_range = v < n;
    const dist_t dv = in_range ? dist[v] : dist_infinity();
    const bool reached = in_range && dv != dist_infinity();
    bool search = reached && v != source;
    eid_t b = 0, e = 0;
    if (search) {
        b = in_indptr[v];
        e = in_indptr[v + 1];
        search = e - b < PARENT_CHUNK;
    }
    long long best = list_min_in(search, b, e, dv, in_indices, [&](long long u, eid_t i, dist_t d) {
        dist_t du = dist[u];
        return du < d && du + arc_weight(in_weights, i) == d;
    });
    if (in_range) parent[v] = !reached ? -1 : (v == source ? source : best);
}

// The long lists confirm_parents left: chunk c covers in-arcs
// [chunk_begin[c], min(chunk_begin[c] + PARENT_CHUNK, end of the list)) of
// chunk_vertex[c]; a warp each.
extern "C" __global__ void confirm_parents_chunks(long long chunks, const vid_t* __restrict__ chunk_vertex,
                                                  const eid_t* __restrict__ chunk_begin,
                                                  const eid_t* __restrict__ in_indptr,
                                                  const vid_t* __restrict__ in_indices,
                                                  const weight_t* __restrict__ in_weights,
                                                  const dist_t* __restrict__ dist, long long* parent) {
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < chunks; c += warps) {
        const vid_t v = chunk_vertex[c];
        const dist_t dv = dist[v];
        if (dv == dist_infinity()) continue;  // warp-uniform
        const eid_t b = chunk_begin[c];
        const eid_t e = min(b + (eid_t)PARENT_CHUNK, in_indptr[v + 1]);
        long long best = warp_min_in(b, e, in_indices, [&](long long u, eid_t i) {
            dist_t du = dist[u];
            return du < dv && du + arc_weight(in_weights, i) == dv;
        });
        if (lane_id() == 0 && best != NO_PARENT) atomicMin(parent + v, best);
    }
}

// Parents from the words near_far recorded (sssp_common.cuh, record_parent):
// the low word of record[v] is an in-neighbour whose arc gives dist[v]
// exactly, and these parents form a tree. A reached vertex without a matching
// word (which the record's invariant rules out) is counted in *missing, and
// the caller then falls back to confirm_parents for every vertex rather than
// mix the two rules.
extern "C" __global__ void parents_from_record(long long n, long long source,
                                               const unsigned long long* __restrict__ record,
                                               const dist_t* __restrict__ dist, long long* parent,
                                               unsigned int* missing) {
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool lacks = false;
    if (v < n) {
        const dist_t dv = dist[v];
        long long p = -1;
        if (v == source) {
            p = source;
        } else if (dv != dist_infinity()) {
            const unsigned long long word = record[v];
            const long long u = (long long)(word & 0xffffffffULL);
            lacks = !(record_matches(word, dv) && u < n && u != v && dist[u] <= dv);
            p = lacks ? NO_PARENT : u;
        }
        parent[v] = p;
    }
    unsigned int ballot = __ballot_sync(SSSP_FULL_MASK, lacks);
    if (lane_id() == 0 && ballot) atomicAdd(missing, (unsigned int)__popc(ballot));
}

// Sets settled_round (0: has a parent, -1: not yet) and counts the reached
// vertices still without a parent (the plateau).
extern "C" __global__ void count_unsettled(long long n, const long long* __restrict__ parent,
                                           int* settled_round, unsigned int* unsettled) {
    long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool without = false;
    if (v < n) {
        without = parent[v] == NO_PARENT;
        settled_round[v] = without ? -1 : 0;
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
    const long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const bool want = v < n && settled_round[v] < 0;
    eid_t b = 0, e = 0;
    dist_t dv = 0;
    if (want) {
        b = in_indptr[v];
        e = in_indptr[v + 1];
        dv = dist[v];
    }
    long long best = list_min_in(want, b, e, dv, in_indices, [&](long long u, eid_t i, dist_t d) {
        int r = settled_round[u];
        return r >= 0 && r < round && dist[u] + arc_weight(in_weights, i) == d;
    });
    const bool done = want && best != NO_PARENT;
    if (done) {
        parent[v] = best;
        settled_round[v] = round;
    }
    unsigned int ballot = __ballot_sync(SSSP_FULL_MASK, done);
    if (lane_id() == 0 && ballot) atomicAdd(settled, (unsigned int)__popc(ballot));
}
