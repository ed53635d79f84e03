// Vertex-centric BFS steps (PMPP ch. 15.3, seeds 003/004: figs 15.6 and 15.8).
//
// push (Harish & Narayanan): one thread per vertex; a vertex of the previous
//   level marks its unvisited out-neighbours. Every writer of a vertex writes
//   the same level and a parent from the previous level, so the race is
//   benign and no atomics are needed; "a vertex was visited" is an
//   idempotent flag.
// pull: one thread per unvisited vertex scans its in-edges (CSC) and stops at
//   the first neighbour of the previous level (early exit).
// Both also count the new vertices and the edges they examined, for the trace.
#include "common.cuh"

extern "C" __global__ void vertex_push_step(long long n, int level, const eid_t* indptr,
                                            const vid_t* indices, int* levels,
                                            long long* parents, counter_t* counters) {
    long long v = global_thread_id();
    long long examined = 0, visited = 0, in_frontier = 0;
    if (v < n && levels[v] == level - 1) {
        in_frontier = 1;
        eid_t end = indptr[v + 1];
        for (eid_t e = indptr[v]; e < end; ++e) {
            vid_t w = indices[e];
            if (levels[w] == WF_UNVISITED) {
                record_visit(levels, parents, w, level, (vid_t)v);
                visited = 1;
            }
        }
        examined = end - indptr[v];
    }
    if (__any_sync(WF_FULL_MASK, visited) && (threadIdx.x & 31) == 0) counters[CNT_FLAG] = 1;
    warp_add(&counters[CNT_EDGES], examined);
    warp_add(&counters[CNT_FRONTIER], in_frontier);
}

extern "C" __global__ void vertex_pull_step(long long n, int level, const eid_t* in_indptr,
                                            const vid_t* in_indices, int* levels,
                                            long long* parents, counter_t* counters) {
    long long v = global_thread_id();
    long long examined = 0, found = 0;
    if (v < n && levels[v] == WF_UNVISITED) {
        eid_t begin = in_indptr[v], end = in_indptr[v + 1];
        for (eid_t e = begin; e < end; ++e) {
            vid_t u = in_indices[e];
            if (levels[u] == level - 1) {
                record_visit(levels, parents, (vid_t)v, level, u);
                found = 1;
                examined = e - begin + 1;
                break;
            }
        }
        if (!found) examined = end - begin;
    }
    if (__any_sync(WF_FULL_MASK, found) && (threadIdx.x & 31) == 0) counters[CNT_FLAG] = 1;
    warp_add(&counters[CNT_EDGES], examined);
    warp_add(&counters[CNT_NEXT_COUNT], found);
}
