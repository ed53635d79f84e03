// Seed 001 (Suzuki, Kan, Hayashi, Yoshikawa: "GPU スレッド生成手法切り替えによる
// SSSP 探索の高速化"), built on Harish & Narayanan (HiPC 2007):
//   relax_all, update_all         algorithms 2 and 3 ("conventional": |V| threads a phase)
//   select_relax, select_update   algorithms 5 and 6 ("selection": threads only for NRa)
//   switch_to_frontier            algorithm 4's SWITCH_KERNEL (rebuild NRa from Ma)
// The host loops of algorithms 1 and 4 are in backends/cuda/sssp.py.
//
// Two fixes to the seed's pseudo-code make a phase race-free: the weight is
// indexed by the arc i (the seed writes Wa[n]), and the min on Ua is an
// atomicMin. Ca holds the costs at the start of a phase and Ua collects this
// phase's candidates; Ua <= Ca always holds, and after UPDATE Ua == Ca, so the
// seed's trailing "Ua = Ca" is already true and is not re-written.
#include "sssp_common.cuh"

// Algorithm 2. Also clears the update counter that update_all fills next
// (the host has read it by now).
extern "C" __global__ void relax_all(long long n, const eid_t* __restrict__ indptr,
                                     const vid_t* __restrict__ indices,
                                     const weight_t* __restrict__ weights, unsigned char* mask,
                                     const dist_t* __restrict__ cost, dist_t* updating,
                                     dist_t cutoff, unsigned int* updated_count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *updated_count = 0;
    long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool active = v < n && mask[v];
    eid_t begin = 0, end = 0;
    dist_t dv = 0;
    if (active) {
        mask[v] = 0;
        begin = indptr[v];
        end = indptr[v + 1];
        dv = cost[v];
    }
    for_each_arc(active, begin, end, dv, [&](bool valid, dist_t d, eid_t i) {
        if (!valid) return;
        dist_t nd = d + arc_weight(weights, i);
        vid_t u = indices[i];
        if (nd <= cutoff && nd < updating[u]) atomic_min_dist(&updating[u], nd);
    });
}

// Algorithm 3, counting the updated vertices with one atomic per warp.
extern "C" __global__ void update_all(long long n, unsigned char* mask, dist_t* cost,
                                      const dist_t* __restrict__ updating,
                                      unsigned int* updated_count) {
    long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool updated = false;
    if (v < n) {
        dist_t u = updating[v];
        if (cost[v] > u) {
            cost[v] = u;
            mask[v] = 1;
            updated = true;
        }
    }
    unsigned int ballot = __ballot_sync(SSSP_FULL_MASK, updated);
    if (lane_id() == 0 && ballot) atomicAdd(updated_count, (unsigned int)__popc(ballot));
}

// Algorithm 5: threads only for the frontier NRa (its length is read on the
// device, so the host need not know it). A target whose Ua drops is appended
// to NWa once: `scheduled` is the seed's "not yet scheduled" flag.
extern "C" __global__ void select_relax(const unsigned int* frontier_count,
                                        const vid_t* __restrict__ frontier,
                                        const eid_t* __restrict__ indptr,
                                        const vid_t* __restrict__ indices,
                                        const weight_t* __restrict__ weights,
                                        unsigned char* mask, const dist_t* __restrict__ cost,
                                        dist_t* updating, unsigned int* scheduled, vid_t* next,
                                        unsigned int* next_count, dist_t cutoff) {
    const long long count = *frontier_count;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < count; base += stride) {
        long long x = base + threadIdx.x;
        bool active = false;
        vid_t v = 0;
        if (x < count) {
            v = frontier[x];
            active = mask[v];
        }
        eid_t begin = 0, end = 0;
        dist_t dv = 0;
        if (active) {
            mask[v] = 0;
            begin = indptr[v];
            end = indptr[v + 1];
            dv = cost[v];
        }
        for_each_arc(active, begin, end, dv, [&](bool valid, dist_t d, eid_t i) {
            bool schedule = false;
            vid_t u = 0;
            if (valid) {
                dist_t nd = d + arc_weight(weights, i);
                u = indices[i];
                if (nd <= cutoff && nd < updating[u]) {
                    dist_t old = atomic_min_dist(&updating[u], nd);
                    schedule = nd < old && atomicExch(&scheduled[u], 1u) == 0u;
                }
            }
            warp_append(next, next_count, u, schedule);
        });
    }
}

// Algorithm 6 over NWa (which becomes the next NRa). It also empties the
// list the preceding select_relax read, which the next one will fill.
extern "C" __global__ void select_update(const unsigned int* updated_count,
                                         const vid_t* __restrict__ updated, unsigned char* mask,
                                         dist_t* cost, const dist_t* __restrict__ updating,
                                         unsigned int* scheduled, unsigned int* read_count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *read_count = 0;
    const long long count = *updated_count;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x; x < count; x += stride) {
        vid_t v = updated[x];
        scheduled[v] = 0u;
        dist_t u = updating[v];
        if (cost[v] > u) {
            cost[v] = u;
            mask[v] = 1;
        }
    }
}

// SWITCH_KERNEL: gather the vertices whose Ma is set into NRa (the all-vertex
// phases do not keep a list). frontier_count must be zero on entry.
extern "C" __global__ void switch_to_frontier(long long n, const unsigned char* __restrict__ mask,
                                              vid_t* frontier, unsigned int* frontier_count) {
    long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    warp_append(frontier, frontier_count, (vid_t)v, v < n && mask[v]);
}
