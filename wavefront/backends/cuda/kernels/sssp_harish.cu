// Seed 001 (Suzuki, Kan, Hayashi, Yoshikawa: "GPU スレッド生成手法切り替えによる
// SSSP 探索の高速化"), built on Harish & Narayanan (HiPC 2007):
//   relax_all, update_all         algorithms 2 and 3 ("conventional": |V| threads a phase)
//   select_relax, select_update   algorithms 5 and 6 ("selection": threads only for NRa)
//   switch_to_frontier            algorithm 4's SWITCH_KERNEL (rebuild NRa from Ma)
// The host loops of algorithms 1 and 4 are in backends/cuda/sssp_harish.py.
//
// Two fixes to the seed's pseudo-code make a phase race-free: the weight is
// indexed by the arc i (the seed writes Wa[n]), and the min on Ua is an
// atomicMin. Ca holds the costs at the start of a phase and Ua collects this
// phase's candidates; Ua <= Ca always holds, and after UPDATE Ua == Ca, so the
// seed's trailing "Ua = Ca" is already true and is not re-written.
//
// Algorithm 5's "not yet scheduled" flag is implied by that invariant: the
// first relaxation to lower Ua[u] in a phase is the one whose atomicMin
// returns Ca[u] (every later one returns less), so it alone appends u to NWa.
// Reading Ca[u] alongside Ua[u] costs no extra round trip, whereas a flag
// needs a second atomic after the atomicMin (and a reset in UPDATE).
#include "sssp_common.cuh"

#ifndef HARISH_BLOCK
#define HARISH_BLOCK 256  // SSSP_BLOCK of abi.py
#endif
// select_relax stages its appends to NWa in shared memory and adds them with
// one atomic per block: one atomic per warp on the list's single tail word
// serialized in L2 and made a selection phase of ~10^5 vertices slower than
// an all-vertex one. Appends past the stage go to NWa a warp at a time.
#ifndef HARISH_STAGE
#define HARISH_STAGE 2048
#endif
// Arcs a lane relaxes together: their loads and atomics are issued before any
// result is used, so a short list costs one chain of round trips, not one per arc.
#ifndef HARISH_ARCS
#define HARISH_ARCS 4
#endif

// Where select_relax's lanes put the vertices they schedule (all 32 lanes
// together): the block's shared stage, or NWa directly once the stage is full.
struct StagedList {
    vid_t* stage;
    unsigned int* staged;
    vid_t* next;
    unsigned int* next_count;

    __device__ __forceinline__ void append(vid_t u, bool want) const {
        unsigned int slot = 0;
        if (!warp_reserve(staged, want, &slot)) return;
        bool fits = want && slot < HARISH_STAGE;
        if (fits) stage[slot] = u;
        warp_append(next, next_count, u, want && !fits);
    }
};

// RELAX for each active lane's out-arcs [begin, end) from distance d (all 32
// lanes together). Lists of SSSP_WARP_COOP_DEGREE arcs or more are walked by
// the whole warp; shorter ones by their lane, HARISH_ARCS arcs at a time.
// With `list`, each vertex whose Ua this phase lowers first is appended to it.
template <bool kSchedule>
__device__ __forceinline__ void relax_out_arcs(bool active, eid_t begin, eid_t end, dist_t d,
                                               const vid_t* __restrict__ indices,
                                               const weight_t* __restrict__ weights,
                                               const dist_t* __restrict__ cost, dist_t* updating,
                                               dist_t cutoff, const StagedList* list) {
    auto relax_one = [&](bool valid, dist_t from, eid_t i) {
        bool schedule = false;
        vid_t u = 0;
        if (valid) {
            dist_t nd = from + arc_weight(weights, i);
            u = indices[i];
            dist_t seen = updating[u];
            dist_t start = kSchedule ? cost[u] : seen;
            if (nd <= cutoff && nd < seen) {
                dist_t old = atomic_min_dist(&updating[u], nd);
                schedule = nd < old && old == start;
            }
        }
        if (kSchedule) list->append(u, schedule);
    };
    bool cooperative = active && (end - begin) >= SSSP_WARP_COOP_DEGREE;
    for_each_warp_list(cooperative, begin, end, d, [&](eid_t b, eid_t e, dist_t dl, int) {
        for (eid_t base = b; base < e; base += 32) relax_one(base + lane_id() < e, dl, base + lane_id());
    });
    unsigned int length = (active && !cooperative) ? (unsigned int)(end - begin) : 0u;
    unsigned int longest = __reduce_max_sync(SSSP_FULL_MASK, length);
    for (unsigned int first = 0; first < longest; first += HARISH_ARCS) {
        vid_t u[HARISH_ARCS];
        dist_t nd[HARISH_ARCS], seen[HARISH_ARCS], start[HARISH_ARCS];
        bool valid[HARISH_ARCS], schedule[HARISH_ARCS];
#pragma unroll
        for (int k = 0; k < HARISH_ARCS; ++k) {
            valid[k] = first + k < length;
            u[k] = 0;
            nd[k] = 0;
            if (valid[k]) {
                u[k] = indices[begin + first + k];
                nd[k] = d + arc_weight(weights, begin + first + k);
            }
        }
#pragma unroll
        for (int k = 0; k < HARISH_ARCS; ++k) {
            if (valid[k]) {
                seen[k] = updating[u[k]];
                start[k] = kSchedule ? cost[u[k]] : seen[k];
                valid[k] = nd[k] <= cutoff && nd[k] < seen[k];
            }
        }
#pragma unroll
        for (int k = 0; k < HARISH_ARCS; ++k) {
            schedule[k] = false;
            if (valid[k]) {
                dist_t old = atomic_min_dist(&updating[u[k]], nd[k]);
                schedule[k] = nd[k] < old && old == start[k];
            }
        }
        if (kSchedule) {
#pragma unroll
            for (int k = 0; k < HARISH_ARCS; ++k) list->append(u[k], schedule[k]);
        }
    }
}

// Algorithm 2. Also clears the update counter that update_all fills next
// (the host has read it by now).
extern "C" __global__ void __launch_bounds__(HARISH_BLOCK)
relax_all(long long n, const eid_t* __restrict__ indptr, const vid_t* __restrict__ indices,
          const weight_t* __restrict__ weights, unsigned char* mask,
          const dist_t* __restrict__ cost, dist_t* updating, dist_t cutoff,
          unsigned int* updated_count) {
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
    relax_out_arcs<false>(active, begin, end, dv, indices, weights, cost, updating, cutoff, nullptr);
}

// Algorithm 3, counting the updated vertices with one global atomic per block.
extern "C" __global__ void __launch_bounds__(HARISH_BLOCK)
update_all(long long n, unsigned char* mask, dist_t* cost, const dist_t* __restrict__ updating,
           unsigned int* updated_count) {
    __shared__ unsigned int block_updated;
    if (threadIdx.x == 0) block_updated = 0;
    __syncthreads();
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
    if (lane_id() == 0 && ballot) atomicAdd(&block_updated, (unsigned int)__popc(ballot));
    __syncthreads();
    if (threadIdx.x == 0 && block_updated) atomicAdd(updated_count, block_updated);
}

// Algorithm 5: threads only for the frontier NRa (its length is read on the
// device, so the host need not know it). Each vertex whose Ua drops is
// appended to NWa once, through the block's stage.
extern "C" __global__ void __launch_bounds__(HARISH_BLOCK)
select_relax(const unsigned int* frontier_count, const vid_t* __restrict__ frontier,
             const eid_t* __restrict__ indptr, const vid_t* __restrict__ indices,
             const weight_t* __restrict__ weights, unsigned char* mask,
             const dist_t* __restrict__ cost, dist_t* updating, vid_t* next,
             unsigned int* next_count, dist_t cutoff) {
    __shared__ vid_t stage[HARISH_STAGE];
    __shared__ unsigned int staged, stage_at;
    const long long count = *frontier_count;
    const long long stride = (long long)gridDim.x * blockDim.x;
    if ((long long)blockIdx.x * blockDim.x >= count) return;  // the whole block
    if (threadIdx.x == 0) staged = 0;
    __syncthreads();
    const StagedList list{stage, &staged, next, next_count};
    for (long long base = (long long)blockIdx.x * blockDim.x; base < count; base += stride) {
        long long x = base + threadIdx.x;
        bool active = false;
        eid_t begin = 0, end = 0;
        dist_t dv = 0;
        if (x < count) {
            vid_t v = frontier[x];
            // Loaded together, used only if Ma[v] is set.
            active = mask[v];
            begin = indptr[v];
            end = indptr[v + 1];
            dv = cost[v];
            if (active) mask[v] = 0;
        }
        relax_out_arcs<true>(active, begin, end, dv, indices, weights, cost, updating, cutoff, &list);
    }
    __syncthreads();
    const unsigned int total = staged < HARISH_STAGE ? staged : HARISH_STAGE;
    if (threadIdx.x == 0) stage_at = total ? atomicAdd(next_count, total) : 0u;
    __syncthreads();
    for (unsigned int k = threadIdx.x; k < total; k += blockDim.x) next[stage_at + k] = stage[k];
}

// Algorithm 6 over NWa (which becomes the next NRa). It also empties the
// list the preceding select_relax read, which the next one will fill.
extern "C" __global__ void __launch_bounds__(HARISH_BLOCK)
select_update(const unsigned int* updated_count, const vid_t* __restrict__ updated,
              unsigned char* mask, dist_t* cost, const dist_t* __restrict__ updating,
              unsigned int* read_count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *read_count = 0;
    const long long count = *updated_count;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x; x < count; x += stride) {
        vid_t v = updated[x];
        dist_t u = updating[v];
        if (cost[v] > u) {
            cost[v] = u;
            mask[v] = 1;
        }
    }
}

// SWITCH_KERNEL: gather the vertices whose Ma is set into NRa (the all-vertex
// phases do not keep a list). frontier_count must be zero on entry.
extern "C" __global__ void __launch_bounds__(HARISH_BLOCK)
switch_to_frontier(long long n, const unsigned char* __restrict__ mask, vid_t* frontier,
                   unsigned int* frontier_count) {
    long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    warp_append(frontier, frontier_count, (vid_t)v, v < n && mask[v]);
}
