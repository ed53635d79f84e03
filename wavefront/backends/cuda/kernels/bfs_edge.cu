// Edge-centric BFS step (PMPP ch. 15.4, seeds 003/004: fig. 15.10): one
// thread per arc of a COO; an arc whose source is in the previous level and
// whose destination is unvisited marks the destination. Like the vertex push
// the race is benign (same level, any previous-level parent), so no atomics.
// Also: expanding a CSR row pointer into the COO's per-arc source array.
#include "common.cuh"

extern "C" __global__ void edge_step(long long m, int level, const vid_t* sources,
                                     const vid_t* targets, int* levels, long long* parents,
                                     counter_t* counters) {
    long long e = global_thread_id();
    int visited = 0;
    if (e < m) {
        vid_t u = sources[e];
        if (levels[u] == level - 1) {
            vid_t w = targets[e];
            if (levels[w] == WF_UNVISITED) {
                record_visit(levels, parents, w, level, u);
                visited = 1;
            }
        }
    }
    if (__any_sync(WF_FULL_MASK, visited) && (threadIdx.x & 31) == 0) counters[CNT_FLAG] = 1;
}

// sources[e] = the row of arc e: one thread per vertex writes its row's slots.
extern "C" __global__ void expand_rows(long long n, const eid_t* indptr, vid_t* sources) {
    long long v = global_thread_id();
    if (v < n) {
        eid_t end = indptr[v + 1];
        for (eid_t e = indptr[v]; e < end; ++e) sources[e] = (vid_t)v;
    }
}
