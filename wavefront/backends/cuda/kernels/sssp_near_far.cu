// Delta-stepping in near-far form: Davidson, Baxter, Garland, Owens, "Work-
// efficient parallel GPU methods for single-source shortest paths" (IPDPS
// 2014), section IV-C, run as ONE persistent kernel so that the hundreds to
// thousands of iterations a road network needs cost no host round trips.
//
// Each iteration is one of
//   near:  relax every vertex of the near queue (and every pending chunk of a
//          high-degree vertex); an improved target goes to the next near queue
//          when its distance is below the threshold, else to the far pile;
//   split: the near queue ran dry: raise the threshold by delta (at least past
//          the smallest far distance, so empty buckets are skipped) and move
//          far vertices below it into the near queue.
// Iterations are separated by a grid-wide barrier; the grid is sized by the
// host so that every block is resident (persistent kernel). Queue lengths are
// triple-buffered by iteration (and by split for the far pile) so that one
// barrier per iteration suffices: a slot is cleared two iterations after it
// was read.
//
// Load balance: out-lists of NF_CHUNK arcs or more become chunk tasks (one
// warp each, next iteration), 32..NF_CHUNK arcs are walked by a whole warp,
// shorter ones by one thread. `chain` > 0 lets a thread relax a small improved
// neighbour at once instead of queueing it (up to `chain` hops an iteration):
// on road networks, whose shortest-path trees are thousands of hops deep, it
// cuts the number of iterations. It is safe because whoever lowers a distance
// is responsible for relaxing that vertex later, and a later relaxation reads
// the current distance.
#include "sssp_common.cuh"

#ifndef NF_BLOCK
#define NF_BLOCK 512
#endif
#ifndef NF_CHUNK
#define NF_CHUNK 1024
#endif

// Control words (unsigned int).
#define CTL_NEAR 0          // 3 slots: near-queue length, by iteration % 3
#define CTL_CHUNK 3         // 3 slots: chunk tasks, by iteration % 3
#define CTL_FAR 6           // 3 slots: far-pile length, by split % 3
#define CTL_ARRIVED 9       // grid barrier: arrivals so far
#define CTL_ITERATIONS 11   // written at the end
#define CTL_WORDS 16

// Trace rows (long long x 4): kind (0 near, 1 split, 2 end), vertices, splits
// so far, %globaltimer (ns) at the iteration's start. The row after the last
// iteration holds the end time.
#define TRACE_WIDTH 4

__device__ __forceinline__ unsigned long long global_timer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// All blocks must be resident. `arrived` only grows: barrier k (0-based) is
// passed once it reaches gridDim.x * (k + 1). Thread 0 of each block arrives
// with release semantics (covering its block's writes, ordered by the
// __syncthreads before) and waits with acquire loads.
__device__ __forceinline__ void grid_barrier(unsigned int* arrived, unsigned int target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int seen;
        asm volatile("atom.add.release.gpu.u32 %0, [%1], 1;" : "=r"(seen) : "l"(arrived) : "memory");
        ++seen;  // the count including this block
        while (seen < target)
            asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(seen) : "l"(arrived) : "memory");
    }
    __syncthreads();
}

// Data written by other blocks in earlier iterations is read through L2
// (__ldcg): a stale L1 line would relax a vertex with an outdated distance.
struct NearFar {
    const eid_t* __restrict__ indptr;
    const vid_t* __restrict__ indices;
    const weight_t* __restrict__ weights;
    dist_t* dist;
    int* near_stamp;
    int* far_stamp;
    dist_t cutoff;

    // Lowers dist[u] through arc i from a vertex at distance d. Returns 1 when
    // u now needs relaxing in this bucket (the caller queues or chains it), 2
    // when u is new in the far pile, else 0.
    __device__ __forceinline__ int relax(dist_t d, eid_t i, vid_t& u, dist_t threshold,
                                         dist_t* far_min, int far_tag) const {
        dist_t nd = d + arc_weight(weights, i);
        u = indices[i];
        if (nd > cutoff || !(nd < __ldcg(dist + u))) return 0;
        dist_t old = atomic_min_dist(dist + u, nd);
        if (!(nd < old)) return 0;
        if (nd < threshold) return 1;
        if (nd < __ldcg(far_min)) atomic_min_dist(far_min, nd);
        return atomicExch(far_stamp + u, far_tag) != far_tag ? 2 : 0;
    }

    // True for the one caller that puts u in the next near queue.
    __device__ __forceinline__ bool claim_near(vid_t u, int near_tag) const {
        return atomicExch(near_stamp + u, near_tag) != near_tag;
    }
};

extern "C" __global__ void __launch_bounds__(NF_BLOCK, 2)
near_far(const eid_t* __restrict__ indptr, const vid_t* __restrict__ indices,
         const weight_t* __restrict__ weights, dist_t* dist, vid_t* near0, vid_t* near1,
         vid_t* far0, vid_t* far1, vid_t* chunk_vertex0, vid_t* chunk_vertex1,
         eid_t* chunk_begin0, eid_t* chunk_begin1, int* near_stamp, int* far_stamp,
         dist_t* far_min, unsigned int* ctl, dist_t delta, dist_t cutoff, int chain,
         long long* trace, int trace_capacity) {
    const NearFar nf{indptr, indices, weights, dist, near_stamp, far_stamp, cutoff};
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const long long warp = tid >> 5, nwarps = nthreads >> 5;
    const vid_t none = -1;
    dist_t threshold = delta;
    int split = 0;
    int it = 0;
    for (;; ++it) {
        const unsigned int near_count = __ldcg(ctl + CTL_NEAR + it % 3);
        const unsigned int chunk_count = __ldcg(ctl + CTL_CHUNK + it % 3);
        const unsigned int far_count = __ldcg(ctl + CTL_FAR + split % 3);
        const bool near_step = near_count + chunk_count > 0;
        if (!near_step && far_count == 0) break;

        vid_t* near_in = (it & 1) ? near1 : near0;
        vid_t* near_out = (it & 1) ? near0 : near1;
        unsigned int* near_out_count = ctl + CTL_NEAR + (it + 1) % 3;
        const int near_tag = it + 1;

        if (near_step) {
            if (tid == 0 && it < trace_capacity) {
                trace[TRACE_WIDTH * it + 0] = 0;
                trace[TRACE_WIDTH * it + 1] = near_count;
                trace[TRACE_WIDTH * it + 2] = split;
                trace[TRACE_WIDTH * it + 3] = (long long)global_timer_ns();
            }
            vid_t* far_out = (split & 1) ? far1 : far0;
            unsigned int* far_out_count = ctl + CTL_FAR + split % 3;
            dist_t* far_out_min = far_min + split % 3;
            const int far_tag = split + 1;
            const vid_t* chunk_v_in = (it & 1) ? chunk_vertex1 : chunk_vertex0;
            const eid_t* chunk_b_in = (it & 1) ? chunk_begin1 : chunk_begin0;
            vid_t* chunk_v_out = (it & 1) ? chunk_vertex0 : chunk_vertex1;
            eid_t* chunk_b_out = (it & 1) ? chunk_begin0 : chunk_begin1;
            unsigned int* chunk_out_count = ctl + CTL_CHUNK + (it + 1) % 3;

            vid_t next = none;  // a neighbour this lane relaxes at once (chaining)
            // One arc per lane, all lanes together (padding lanes: valid == false).
            auto step = [&](bool valid, dist_t d, eid_t i, bool may_chain) {
                vid_t u = 0;
                int outcome = valid ? nf.relax(d, i, u, threshold, far_out_min, far_tag) : 0;
                bool to_near = false;
                if (outcome == 1) {
                    if (may_chain && next == none) next = u;
                    else to_near = nf.claim_near(u, near_tag);
                }
                warp_append(near_out, near_out_count, u, to_near);
                warp_append(far_out, far_out_count, u, outcome == 2);
            };
            // Chunks of high-degree vertices queued last iteration: a warp each.
            for (long long c = warp; c < chunk_count; c += nwarps) {
                vid_t v = __ldcg(chunk_v_in + c);
                eid_t b = __ldcg(chunk_b_in + c);
                eid_t e = min(b + (eid_t)NF_CHUNK, indptr[v + 1]);
                dist_t dv = __ldcg(dist + v);
                for (eid_t base = b; base < e; base += 32)
                    step(base + lane_id() < e, dv, base + lane_id(), false);
            }
            // Near vertices.
            for (long long base = 0; base < near_count; base += nthreads) {
                long long x = base + tid;
                bool active = x < near_count;
                eid_t begin = 0, end = 0;
                dist_t dv = 0;
                if (active) {
                    vid_t v = __ldcg(near_in + x);
                    begin = indptr[v];
                    end = indptr[v + 1];
                    dv = __ldcg(dist + v);
                    if (end - begin >= NF_CHUNK) {
                        eid_t pieces = (end - begin + NF_CHUNK - 1) / NF_CHUNK;
                        unsigned int at = atomicAdd(chunk_out_count, (unsigned int)pieces);
                        for (eid_t p = 0; p < pieces; ++p) {
                            chunk_v_out[at + p] = v;
                            chunk_b_out[at + p] = begin + p * NF_CHUNK;
                        }
                        active = false;
                    }
                }
                for_each_arc(active, begin, end, dv,
                             [&](bool valid, dist_t d, eid_t i) { step(valid, d, i, chain > 0); });
                // Chaining: each lane relaxes its held neighbour now (short lists
                // only; a long one is queued), in lock step with the warp.
                for (int hop = 1; __any_sync(SSSP_FULL_MASK, next != none); ++hop) {
                    vid_t v = next;
                    next = none;
                    bool has = v != none, requeue = false;
                    eid_t b = 0, e = 0;
                    dist_t d = 0;
                    if (has) {
                        b = indptr[v];
                        e = indptr[v + 1];
                        if (e - b >= SSSP_WARP_COOP_DEGREE) {
                            requeue = nf.claim_near(v, near_tag);
                            has = false;
                        } else {
                            d = __ldcg(dist + v);
                        }
                    }
                    warp_append(near_out, near_out_count, v, requeue);
                    unsigned int length = has ? (unsigned int)(e - b) : 0u;
                    unsigned int longest = __reduce_max_sync(SSSP_FULL_MASK, length);
                    for (unsigned int k = 0; k < longest; ++k) step(k < length, d, b + k, hop < chain);
                }
            }
        } else {
            // Split: next bucket. Past the smallest far distance, so that at
            // least one far vertex moves to the near queue.
            const dist_t smallest = __ldcg(far_min + split % 3);
            dist_t raised = threshold + delta;
            dist_t skip = smallest + delta;
            dist_t above = dist_next_above(smallest);
            threshold = raised > skip ? raised : skip;
            threshold = threshold > above ? threshold : above;
            if (tid == 0 && it < trace_capacity) {
                trace[TRACE_WIDTH * it + 0] = 1;
                trace[TRACE_WIDTH * it + 1] = far_count;
                trace[TRACE_WIDTH * it + 2] = split;
                trace[TRACE_WIDTH * it + 3] = (long long)global_timer_ns();
            }
            const vid_t* far_in = (split & 1) ? far1 : far0;
            vid_t* far_keep = (split & 1) ? far0 : far1;
            unsigned int* keep_count = ctl + CTL_FAR + (split + 1) % 3;
            dist_t* keep_min = far_min + (split + 1) % 3;
            const int keep_tag = split + 2;
            for (long long base = 0; base < far_count; base += nthreads) {
                long long x = base + tid;
                vid_t u = 0;
                bool to_near = false, keep = false;
                if (x < far_count) {
                    u = __ldcg(far_in + x);
                    dist_t du = __ldcg(dist + u);
                    if (du < threshold) {
                        to_near = nf.claim_near(u, near_tag);
                    } else {
                        keep = atomicExch(far_stamp + u, keep_tag) != keep_tag;
                        if (du < __ldcg(keep_min)) atomic_min_dist(keep_min, du);
                    }
                }
                warp_append(near_out, near_out_count, u, to_near);
                warp_append(far_keep, keep_count, u, keep);
            }
            if (tid == 0) {
                ctl[CTL_FAR + (split + 2) % 3] = 0u;
                far_min[(split + 2) % 3] = dist_infinity();
            }
            ++split;
        }
        if (tid == 0) {
            ctl[CTL_NEAR + (it + 2) % 3] = 0u;
            ctl[CTL_CHUNK + (it + 2) % 3] = 0u;
        }
        grid_barrier(ctl + CTL_ARRIVED, gridDim.x * (unsigned int)(it + 1));
    }
    if (tid == 0) {
        ctl[CTL_ITERATIONS] = it;
        if (it < trace_capacity) {
            trace[TRACE_WIDTH * it + 0] = 2;
            trace[TRACE_WIDTH * it + 1] = 0;
            trace[TRACE_WIDTH * it + 2] = split;
            trace[TRACE_WIDTH * it + 3] = (long long)global_timer_ns();
        }
    }
}
