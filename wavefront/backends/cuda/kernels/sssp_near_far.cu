// Delta-stepping in near-far form: Davidson, Baxter, Garland, Owens, "Work-
// efficient parallel GPU methods for single-source shortest paths" (IPDPS
// 2014), section IV-C, run as ONE persistent kernel so that the hundreds to
// thousands of iterations a road network needs cost no host round trips.
//
// Each iteration is one of
//   near:  relax every vertex of the near queue (and every pending chunk of a
//          high-degree vertex); an improved target goes to the next near queue
//          when its distance is below the threshold, else to the far pile;
//   heavy: with a light/heavy split (Meyer & Sanders' delta-stepping: each
//          out-list ordered light arcs (w < delta) first, light_end[v] where
//          the heavy ones start), near steps relax only light arcs, and once
//          the bucket's near queue runs dry its settled vertices' heavy arcs
//          are relaxed, once each: their targets land in later buckets, so a
//          vertex whose distance drops several times within a bucket does not
//          re-relax its heavy arcs each time (on Kronecker graphs with
//          uniform weights and a small delta, most arcs are heavy);
//   heavy by pull: the same step read from the other side when that reads
//          fewer arcs (direction-optimizing, as in Beamer's BFS): every
//          unsettled vertex reads its in-arcs and takes the heavy ones from
//          settled vertices. On a Kronecker graph the bucket that settles the
//          hubs would push ~460 M arcs at SCALE 24; the vertices left have ~37 M;
//   split: the near queue ran dry: raise the threshold by delta (at least past
//          the smallest far distance, so empty buckets are skipped), move far
//          vertices below it into the near queue and drop the stale ones
//          (lowered into an earlier bucket after they were piled, and relaxed
//          there: re-queueing them re-relaxed their arcs and settled them twice).
// With float32 weights and 32-bit ids each relaxation that lowers a distance
// also records its tail (record_parent in sssp_common.cuh), so the parents
// need no pass over the in-arcs afterwards.
// Iterations are separated by a grid-wide barrier; the grid is sized by the
// host so that every block is resident (persistent kernel). Queue lengths are
// triple-buffered by iteration (and by split for the far pile) so that one
// barrier per iteration suffices: a slot is cleared two iterations after it
// was read.
//
// Load balance: out-lists of NF_CHUNK arcs or more become chunk tasks (one
// block-wide round each, next iteration); shorter ones are relaxed by the
// block that dequeues them, arcs dealt out evenly across the block's batch of
// vertices. Queue appends: improved targets are staged in shared memory and
// each round's are reserved with one atomicAdd per block and queue, then
// copied out coalesced: a queue tail hit once per warp serializes in L2 and
// was what bounded the kernel on Kronecker graphs (ncu: L1TEX scoreboard
// stalls, memory 16 % busy, no gain from twice the warps). `chain` > 0 lets a thread relax a small improved
// neighbour at once instead of queueing it (up to `chain` hops an iteration):
// on road networks, whose shortest-path trees are thousands of hops deep, it
// cuts the number of iterations. It is safe because whoever lowers a distance
// is responsible for relaxing that vertex later, and a later relaxation reads
// the current distance.
#include "block_scan.cuh"
#include "persistent.cuh"
#include "sssp_common.cuh"

#ifndef NF_BLOCK
#define NF_BLOCK 512
#endif
// Blocks per SM the persistent grid may use (all must be resident at once).
#ifndef NF_MIN_BLOCKS
#define NF_MIN_BLOCKS 2
#endif
// Arcs a thread relaxes at once (see NearFar::relax).
#ifndef NF_ARCS
#define NF_ARCS 4
#endif
// Out-lists this long or longer are split into chunk tasks, one block-wide
// round of NF_ARCS arcs per thread each.
#define NF_CHUNK (NF_BLOCK * NF_ARCS)

// Control words (unsigned int).
#ifndef CTL_NEAR
#define CTL_NEAR 0          // 3 slots: near-queue length, by iteration % 3 (the host sets the first)
#endif
#define CTL_CHUNK 3         // 3 slots: chunk tasks, by iteration % 3
#define CTL_FAR 6           // 3 slots: far-pile length, by split % 3
#define CTL_ARRIVED 9       // grid barrier: arrivals so far
#ifndef CTL_ITERATIONS
#define CTL_ITERATIONS 11   // written at the end
#endif
#define CTL_SETTLED 12      // 3 slots: settled-list length, by split % 3
#define CTL_WIDE 16         // 64-bit counters from here on (ctl is 8-byte aligned):
#define WIDE_HEAVY_ARCS 0   //   3 slots: heavy arcs of the vertices settled, by split % 3
#define WIDE_SETTLED_IN 3   //   in-arcs of every vertex settled so far
#define WIDE_STATS 4        //   NF_STATS builds: arcs of near batches, heavy pushes, pulls,
                            //   hub chunks; distances lowered
#ifndef CTL_WORDS
#define CTL_WORDS 48         // NEAR_FAR_CTL_WORDS of abi.py
#endif

// Trace rows (write_trace_row; kinds SSSP_TRACE_* of sssp_common.cuh): near,
// heavy or pull, and split; one per iteration, and the row after the last
// (SSSP_TRACE_END) holds the end time.

// A heavy step pulls instead of pushing when the unsettled vertices' in-arcs
// (plus a scan of all n distances, counted as n / 8 arcs) number fewer than
// NF_PULL_PERCENT % of the heavy out-arcs of the vertices to push from (0:
// never pull). Both forms read one distance per arc examined; on a Kronecker
// graph the bucket that settles the hubs pushes ~20x more arcs than the
// remaining vertices have (direction-optimizing, as in BFS).
#ifndef NF_PULL_PERCENT
#define NF_PULL_PERCENT 100
#endif
// NF_STATS builds count the arcs each kind of step reads (ctl's 64-bit words);
// NF_STATS 2 also prints each heavy step's pull decision (diagnostics only).
#ifndef NF_STATS
#define NF_STATS 0
#endif

// The batch entry owning arc slot `slot`: the last k with offset[k] <= slot
// (entries without arcs share their successor's offset and are skipped).
__device__ __forceinline__ int batch_owner(const eid_t* offset, eid_t slot) {
    int lo = 0, hi = NF_BLOCK;
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (offset[mid] <= slot) lo = mid; else hi = mid;
    }
    return lo;
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
    unsigned long long* record;  // (distance, parent) words, or null (sssp_common.cuh)

    // Lowers the targets' distances through K arcs at once (entries with
    // valid == false are padding). Every load and atomic of one stage is
    // issued before any of its results is needed, so that each thread keeps K
    // requests in flight: the persistent grid is only 16 warps per SM, and a
    // relaxation is a chain of dependent memory round trips. outcome[k] is 1
    // when target[k] now needs relaxing in this bucket (the caller queues or
    // chains it), 2 when it is new in the far pile, else 0. from(k): arc k's
    // tail, for the parent record (asked only for improvements).
    template <int K, typename From>
    __device__ __forceinline__ void relax(const bool* valid, const dist_t* d, const eid_t* arc,
                                          From from, vid_t* target, int* outcome, dist_t threshold,
                                          dist_t* far_min, int far_tag) const {
        dist_t nd[K];
        bool live[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            live[k] = valid[k];
            target[k] = valid[k] ? indices[arc[k]] : 0;
            nd[k] = valid[k] ? d[k] + arc_weight(weights, arc[k]) : d[k];
        }
        lower<K>(live, target, nd, from, outcome, threshold, far_min, far_tag);
    }

    // The pull form of a heavy step: arc k is an in-arc of the unsettled
    // vertex head[k], read from the CSC; its tail relaxes it when the tail is
    // settled (distance below threshold) and the arc is heavy (a light arc of
    // a settled vertex was relaxed by its near steps).
    template <int K>
    __device__ __forceinline__ void pull(const bool* valid, const vid_t* head, const eid_t* arc,
                                         const vid_t* __restrict__ in_indices,
                                         const weight_t* __restrict__ in_weights, dist_t delta,
                                         int* outcome, dist_t threshold, dist_t* far_min,
                                         int far_tag) const {
        vid_t tail[K];
        dist_t nd[K];
        bool live[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            tail[k] = valid[k] ? in_indices[arc[k]] : 0;
            nd[k] = valid[k] ? arc_weight(in_weights, arc[k]) : 0;
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            live[k] = valid[k] && !(nd[k] < delta);
            const dist_t du = live[k] ? __ldcg(dist + tail[k]) : dist_infinity();
            live[k] = live[k] && du < threshold;
            nd[k] += du;
        }
        lower<K>(live, head, nd, [&](int k) { return tail[k]; }, outcome, threshold, far_min, far_tag);
    }

    // Lowers dist[target[k]] to nd[k] where that is an improvement (better[k]
    // false: padding or nothing to try). Every load and atomic of one stage is
    // issued before any of its results is needed.
    template <int K, typename From>
    __device__ __forceinline__ void lower(bool* better, const vid_t* target, const dist_t* nd,
                                          From from, int* outcome, dist_t threshold,
                                          dist_t* far_min, int far_tag) const {
#pragma unroll
        for (int k = 0; k < K; ++k)
            better[k] = better[k] && nd[k] <= cutoff && nd[k] < __ldcg(dist + target[k]);
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (better[k]) better[k] = nd[k] < atomic_min_dist(dist + target[k], nd[k]);
#if SSSP_RECORDS_PARENTS
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (better[k]) record_parent(record + target[k], nd[k], from(k));
#endif
#pragma unroll
        for (int k = 0; k < K; ++k) {
            outcome[k] = better[k] && nd[k] < threshold ? 1 : 0;
            if (better[k] && !(nd[k] < threshold)) {
                if (nd[k] < __ldcg(far_min)) atomic_min_dist(far_min, nd[k]);
                outcome[k] = atomicExch(far_stamp + target[k], far_tag) != far_tag ? 2 : 0;
            }
        }
    }

    // True for the one caller that puts u in the next near queue.
    __device__ __forceinline__ bool claim_near(vid_t u, int near_tag) const {
        return atomicExch(near_stamp + u, near_tag) != near_tag;
    }
};

extern "C" __global__ void __launch_bounds__(NF_BLOCK, NF_MIN_BLOCKS)
near_far(const eid_t* __restrict__ indptr, const vid_t* __restrict__ indices,
         const weight_t* __restrict__ weights, dist_t* dist, vid_t* near0, vid_t* near1,
         vid_t* far0, vid_t* far1, vid_t* chunk_vertex0, vid_t* chunk_vertex1,
         eid_t* chunk_begin0, eid_t* chunk_begin1, int* near_stamp, int* far_stamp,
         dist_t* far_min, unsigned int* ctl, dist_t delta, dist_t cutoff, int chain,
         long long* trace, int trace_capacity, const eid_t* __restrict__ light_end,
         vid_t* settled, int* settled_stamp, unsigned long long* record, long long n,
         const eid_t* __restrict__ in_indptr, const vid_t* __restrict__ in_indices,
         const weight_t* __restrict__ in_weights, long long arc_count) {
    const NearFar nf{indptr, indices, weights, dist, near_stamp, far_stamp, cutoff, record};
    // A batch of near vertices: where each one's arcs start in the batch and
    // in the graph, and its distance.
    __shared__ eid_t batch_offset[NF_BLOCK];
    __shared__ eid_t batch_begin[NF_BLOCK];
    __shared__ dist_t batch_dist[NF_BLOCK];
#if SSSP_RECORDS_PARENTS
    __shared__ vid_t batch_vertex[NF_BLOCK];  // a batch entry's vertex, for the parent record
#endif
    __shared__ eid_t scan_scratch[NF_BLOCK / 32];
    __shared__ eid_t batch_arcs;
    // A round's improved targets, before they go to the global queues.
    __shared__ vid_t stage_near[NF_CHUNK], stage_far[NF_CHUNK];
    vid_t* const stage_settled = stage_far;  // a batch's newly settled vertices, before its rounds
    __shared__ unsigned int stage_near_count, stage_far_count, near_base, far_base;
    __shared__ unsigned int stage_settled_count, settled_base;
    if (threadIdx.x == 0) stage_near_count = stage_far_count = stage_settled_count = 0u;
    __syncthreads();
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const vid_t none = -1;
    dist_t threshold = delta;
    int split = 0;
    unsigned int heavy_done = 0;  // settled vertices of this bucket whose heavy arcs are relaxed
    unsigned long long* const wide = reinterpret_cast<unsigned long long*>(ctl + CTL_WIDE);
    // The staged vertices to the global lists (all threads of the block).
    auto flush_stages = [&](vid_t* near_dst, unsigned int* near_dst_count, vid_t* far_dst,
                            unsigned int* far_dst_count) {
        __syncthreads();
        const unsigned int nn = stage_near_count, fn = stage_far_count;
        if (threadIdx.x == 0) {
            if (nn) near_base = atomicAdd(near_dst_count, nn);
            if (fn) far_base = atomicAdd(far_dst_count, fn);
        }
        __syncthreads();  // every thread has read the counts and sees the bases
        if (threadIdx.x == 0) stage_near_count = stage_far_count = 0u;
        for (unsigned int k = threadIdx.x; k < nn; k += NF_BLOCK) near_dst[near_base + k] = stage_near[k];
        for (unsigned int k = threadIdx.x; k < fn; k += NF_BLOCK) far_dst[far_base + k] = stage_far[k];
        __syncthreads();  // the stage is free for the next round
    };
    int it = 0;
    for (;; ++it) {
        const unsigned int near_count = __ldcg(ctl + CTL_NEAR + it % 3);
        const unsigned int chunk_count = __ldcg(ctl + CTL_CHUNK + it % 3);
        const unsigned int far_count = __ldcg(ctl + CTL_FAR + split % 3);
        const unsigned int settled_count = __ldcg(ctl + CTL_SETTLED + split % 3);
        const bool near_step = near_count + chunk_count > 0;
        const bool heavy_step = !near_step && settled_count > heavy_done;
        if (!near_step && !heavy_step && far_count == 0) break;
        // Read after the barrier, and nothing adds to them in a heavy step:
        // every block takes the same decision.
        const unsigned long long settled_in = __ldcg(wide + WIDE_SETTLED_IN);
        const unsigned long long unsettled_in =
            (unsigned long long)arc_count > settled_in ? (unsigned long long)arc_count - settled_in : 0ull;
        const bool pull_step =
            heavy_step && NF_PULL_PERCENT > 0 && in_indices != nullptr &&
            (unsettled_in + (unsigned long long)n / 8) * 100ull <
                __ldcg(wide + WIDE_HEAVY_ARCS + split % 3) * (unsigned long long)NF_PULL_PERCENT;
#if NF_STATS > 1
        if (tid == 0 && heavy_step)
            printf("heavy it %d split %d settled %u: push %llu pull %llu\n", it, split, settled_count - heavy_done,
                   __ldcg(wide + WIDE_HEAVY_ARCS + split % 3), unsettled_in + (unsigned long long)n / 8);
#endif

        vid_t* near_in = (it & 1) ? near1 : near0;
        vid_t* near_out = (it & 1) ? near0 : near1;
        unsigned int* near_out_count = ctl + CTL_NEAR + (it + 1) % 3;
        const int near_tag = it + 1;

        if (near_step || heavy_step) {
            // Near step: the light arcs of the near queue (all arcs without a
            // light/heavy split). Heavy step: the heavy arcs of the vertices
            // this bucket settled and whose heavy arcs are still unrelaxed.
            const vid_t* batch_list = near_step ? near_in : settled + heavy_done;
            const unsigned int batch_count = near_step ? near_count : settled_count - heavy_done;
            unsigned int* settled_out_count = ctl + CTL_SETTLED + split % 3;
            const bool may_chain = near_step && chain > 0;
            if (tid == 0)
                write_trace_row(trace, it, trace_capacity,
                                near_step ? SSSP_TRACE_NEAR : (pull_step ? SSSP_TRACE_PULL : SSSP_TRACE_HEAVY),
                                batch_count, split);
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
            // NF_ARCS arcs per lane, all lanes together (padding: valid == false).
            // `staged`: block-wide callers, who flush() after each round;
            // otherwise (chaining, a warp alone) straight to the global queues.
            // u[k]: the target of arc k, outcome[k]: what relax/pull said about it.
            auto queue = [&](const vid_t* u, const int* outcome, bool may_chain, bool staged) {
                bool to_near[NF_ARCS], to_far[NF_ARCS];
                if (NF_STATS) {
                    unsigned long long lowered = 0;
#pragma unroll
                    for (int k = 0; k < NF_ARCS; ++k) lowered += outcome[k] != 0;
                    lowered = warp_sum(lowered);
                    if (lane_id() == 0 && lowered) atomicAdd(wide + WIDE_STATS + 4, lowered);
                }
#pragma unroll
                for (int k = 0; k < NF_ARCS; ++k) {
                    to_near[k] = false;
                    to_far[k] = outcome[k] == 2;
                    if (outcome[k] == 1) {
                        if (may_chain && next == none) next = u[k];
                        else to_near[k] = true;
                    }
                }
#pragma unroll
                for (int k = 0; k < NF_ARCS; ++k)
                    if (to_near[k]) to_near[k] = nf.claim_near(u[k], near_tag);
                warp_append_many<NF_ARCS>(staged ? stage_near : near_out,
                                          staged ? &stage_near_count : near_out_count, u, to_near);
                warp_append_many<NF_ARCS>(staged ? stage_far : far_out,
                                          staged ? &stage_far_count : far_out_count, u, to_far);
            };
            auto step = [&](const bool* valid, const dist_t* d, const eid_t* arc, auto from,
                            bool may_chain, bool staged) {
                vid_t u[NF_ARCS];
                int outcome[NF_ARCS];
                nf.relax<NF_ARCS>(valid, d, arc, from, u, outcome, threshold, far_out_min, far_tag);
                queue(u, outcome, may_chain, staged);
            };
            // The staged targets to the global queues (all threads of the block).
            auto flush = [&]() { flush_stages(near_out, near_out_count, far_out, far_out_count); };
            bool valid[NF_ARCS];
            dist_t d[NF_ARCS];
            eid_t arc[NF_ARCS];
            if (pull_step) {
                // Every vertex not yet settled reads its in-arcs, NF_BLOCK vertices
                // a batch, arcs dealt out evenly as in the push below.
                for (long long base = (long long)blockIdx.x * NF_BLOCK; base < n; base += nthreads) {
                    const long long x = base + threadIdx.x;
                    eid_t begin = 0, end = 0;
                    if (x < n && !(__ldcg(dist + x) < threshold)) {
                        begin = in_indptr[x];
                        end = in_indptr[x + 1];
                    }
                    batch_offset[threadIdx.x] =
                        block_exclusive_scan<NF_BLOCK, eid_t>(end - begin, scan_scratch, &batch_arcs);
                    batch_begin[threadIdx.x] = begin;
                    __syncthreads();
                    const eid_t arcs = batch_arcs;
                    if (NF_STATS && threadIdx.x == 0) atomicAdd(wide + WIDE_STATS + 2, (unsigned long long)arcs);
                    for (eid_t first = 0; first < arcs; first += NF_BLOCK * NF_ARCS) {
                        vid_t head[NF_ARCS];
                        int outcome[NF_ARCS];
#pragma unroll
                        for (int k = 0; k < NF_ARCS; ++k) {
                            const eid_t slot = first + threadIdx.x + (eid_t)NF_BLOCK * k;
                            valid[k] = slot < arcs;
                            arc[k] = 0;
                            head[k] = 0;
                            if (valid[k]) {
                                const int owner = batch_owner(batch_offset, slot);
                                arc[k] = batch_begin[owner] + (slot - batch_offset[owner]);
                                head[k] = (vid_t)(base + owner);
                            }
                        }
                        nf.pull<NF_ARCS>(valid, head, arc, in_indices, in_weights, delta, outcome,
                                         threshold, far_out_min, far_tag);
                        queue(head, outcome, false, true);
                        flush();
                    }
                    __syncthreads();  // the next batch overwrites the batch arrays
                }
            }
            // Chunks of high-degree vertices queued last iteration: a block each.
            for (long long c = blockIdx.x; c < chunk_count; c += gridDim.x) {
                vid_t v = __ldcg(chunk_v_in + c);
                eid_t b = __ldcg(chunk_b_in + c);
                eid_t stop = indptr[v + 1];
                if (light_end != nullptr) {  // a chunk of the light or of the heavy arcs
                    eid_t split_at = light_end[v];
                    if (b < split_at) stop = split_at;
                }
                eid_t e = min(b + (eid_t)NF_CHUNK, stop);
                dist_t dv = __ldcg(dist + v);
                if (NF_STATS && threadIdx.x == 0) atomicAdd(wide + WIDE_STATS + 3, (unsigned long long)(e - b));
#pragma unroll
                for (int k = 0; k < NF_ARCS; ++k) {
                    arc[k] = b + threadIdx.x + (eid_t)NF_BLOCK * k;
                    valid[k] = arc[k] < e;
                    d[k] = dv;
                }
                step(valid, d, arc, [&](int) { return v; }, false, true);
                flush();
            }
            // Near vertices, NF_BLOCK per block at a time. The batch's arcs are
            // dealt out evenly to the block's threads (an edge-balanced scan
            // within the block): on power-law graphs a lane walking its own
            // list would keep its warp waiting for the longest list in it.
            // Staging costs four barriers a round; it pays only when there is
            // more than a batch per block (the iterations of a road network
            // are small and bound by latency).
            const long long push_count = pull_step ? 0 : batch_count;  // a pull step pushes nothing
            const bool staged = push_count >= nthreads;
            for (long long base = (long long)blockIdx.x * NF_BLOCK; base < push_count; base += nthreads) {
                long long x = base + threadIdx.x;
                eid_t begin = 0, end = 0;
                dist_t dv = 0;
                vid_t v = 0;
                bool settles = false;
                unsigned long long heavy_arcs = 0, in_arcs = 0;  // of a newly settled vertex
                if (x < push_count) {
                    v = __ldcg(batch_list + x);
                    eid_t row_begin = indptr[v], row_end = indptr[v + 1];
                    eid_t split_at = light_end != nullptr ? light_end[v] : row_end;
                    begin = near_step ? row_begin : split_at;
                    end = near_step ? split_at : row_end;
                    dv = __ldcg(dist + v);
                    settles = near_step && light_end != nullptr &&
                              atomicExch(settled_stamp + v, split + 1) != split + 1;
                    if (settles) {
                        heavy_arcs = (unsigned long long)(row_end - split_at);
                        in_arcs = in_indptr == indptr ? (unsigned long long)(row_end - row_begin)
                                                      : (unsigned long long)(in_indptr[v + 1] - in_indptr[v]);
                    }
                    if (end - begin >= NF_CHUNK) {
                        eid_t pieces = (end - begin + NF_CHUNK - 1) / NF_CHUNK;
                        unsigned int at = atomicAdd(chunk_out_count, (unsigned int)pieces);
                        for (eid_t p = 0; p < pieces; ++p) {
                            chunk_v_out[at + p] = v;
                            chunk_b_out[at + p] = begin + p * NF_CHUNK;
                        }
                        end = begin;
                    }
                }
                warp_append(staged ? stage_settled : settled,
                            staged ? &stage_settled_count : settled_out_count, v, settles);
                if (light_end != nullptr && near_step) {  // the pull decision's arc counts
                    heavy_arcs = warp_sum(heavy_arcs);
                    in_arcs = warp_sum(in_arcs);
                    if (lane_id() == 0 && in_arcs) {
                        atomicAdd(wide + WIDE_HEAVY_ARCS + split % 3, heavy_arcs);
                        atomicAdd(wide + WIDE_SETTLED_IN, in_arcs);
                    }
                }
                batch_offset[threadIdx.x] =
                    block_exclusive_scan<NF_BLOCK, eid_t>(end - begin, scan_scratch, &batch_arcs);
                batch_begin[threadIdx.x] = begin;
                batch_dist[threadIdx.x] = dv;
#if SSSP_RECORDS_PARENTS
                batch_vertex[threadIdx.x] = v;
#endif
                __syncthreads();
                if (staged) {
                    const unsigned int settled_now = stage_settled_count;
                    if (threadIdx.x == 0 && settled_now) settled_base = atomicAdd(settled_out_count, settled_now);
                    __syncthreads();  // the count is read everywhere and the base is known
                    if (threadIdx.x == 0) stage_settled_count = 0u;
                    if (threadIdx.x < settled_now) settled[settled_base + threadIdx.x] = stage_settled[threadIdx.x];
                    __syncthreads();  // stage_settled is stage_far, which the rounds fill
                }
                const eid_t arcs = batch_arcs;
                if (NF_STATS && threadIdx.x == 0)
                    atomicAdd(wide + WIDE_STATS + (near_step ? 0 : 1), (unsigned long long)arcs);
                for (eid_t first = 0; first < arcs; first += NF_BLOCK * NF_ARCS) {
                    int owner_of[NF_ARCS];  // fewer spills than recomputing it for the parent record
#pragma unroll
                    for (int k = 0; k < NF_ARCS; ++k) {
                        eid_t slot = first + threadIdx.x + (eid_t)NF_BLOCK * k;
                        valid[k] = slot < arcs;
                        arc[k] = 0;
                        d[k] = 0;
                        if (valid[k]) {
                            int owner = batch_owner(batch_offset, slot);
                            owner_of[k] = owner;
                            arc[k] = batch_begin[owner] + (slot - batch_offset[owner]);
                            d[k] = batch_dist[owner];
                        }
                    }
#if SSSP_RECORDS_PARENTS
                    step(valid, d, arc, [&](int k) { return batch_vertex[owner_of[k]]; }, may_chain, staged);
#else
                    step(valid, d, arc, [&](int) { return (vid_t)0; }, may_chain, staged);
#endif
                    if (staged) flush();
                }
                __syncthreads();  // the next batch overwrites the stage
                // Chaining: each lane relaxes its held neighbour now (short lists
                // only; a long one is queued), in lock step with the warp.
                for (int hop = 1; __any_sync(SSSP_FULL_MASK, next != none); ++hop) {
                    vid_t v = next;
                    next = none;
                    bool has = v != none, requeue = false, settles_now = false;
                    eid_t b = 0, e = 0;
                    dist_t dv_next = 0;
                    if (has) {
                        b = indptr[v];
                        e = light_end != nullptr ? light_end[v] : indptr[v + 1];
                        if (e - b >= SSSP_WARP_COOP_DEGREE) {
                            requeue = nf.claim_near(v, near_tag);
                            has = false;
                        } else {
                            dv_next = __ldcg(dist + v);
                            settles_now = light_end != nullptr &&
                                          atomicExch(settled_stamp + v, split + 1) != split + 1;
                        }
                    }
                    warp_append(near_out, near_out_count, v, requeue);
                    warp_append(settled, settled_out_count, v, settles_now);
                    unsigned int length = has ? (unsigned int)(e - b) : 0u;
                    unsigned int longest = __reduce_max_sync(SSSP_FULL_MASK, length);
                    for (unsigned int first = 0; first < longest; first += NF_ARCS) {
#pragma unroll
                        for (int k = 0; k < NF_ARCS; ++k) {
                            valid[k] = first + k < length;
                            arc[k] = b + first + k;
                            d[k] = dv_next;
                        }
                        step(valid, d, arc, [&](int) { return v; }, hop < chain, false);
                    }
                }
            }
            if (heavy_step) heavy_done = settled_count;
        } else {
            // Split: the next bucket. A far entry below the old threshold is
            // stale: its vertex was lowered into an earlier bucket after it was
            // piled, and that bucket relaxed it (it would only relax it again).
            const dist_t stale_below = threshold;
            threshold = next_threshold(threshold, delta, __ldcg(far_min + split % 3));
            if (tid == 0) write_trace_row(trace, it, trace_capacity, SSSP_TRACE_SPLIT, far_count, split);
            const vid_t* far_in = (split & 1) ? far1 : far0;
            vid_t* far_keep = (split & 1) ? far0 : far1;
            unsigned int* keep_count = ctl + CTL_FAR + (split + 1) % 3;
            dist_t* keep_min = far_min + (split + 1) % 3;
            const int keep_tag = split + 2;
            // A big pile goes block by block through the stages (one atomicAdd
            // per block and round instead of two per warp: same-address atomics
            // serialize in L2 and were most of a Kronecker split's time).
            const bool staged = far_count >= nthreads;
            for (long long base = (long long)blockIdx.x * NF_BLOCK; base < far_count; base += nthreads) {
                long long x = base + threadIdx.x;
                vid_t u = 0;
                bool to_near = false, keep = false;
                if (x < far_count) {
                    u = __ldcg(far_in + x);
                    dist_t du = __ldcg(dist + u);
                    if (du < threshold) {
                        to_near = !(du < stale_below) && nf.claim_near(u, near_tag);
                    } else {
                        keep = atomicExch(far_stamp + u, keep_tag) != keep_tag;
                        if (du < __ldcg(keep_min)) atomic_min_dist(keep_min, du);
                    }
                }
                warp_append(staged ? stage_near : near_out, staged ? &stage_near_count : near_out_count, u,
                            to_near);
                warp_append(staged ? stage_far : far_keep, staged ? &stage_far_count : keep_count, u, keep);
                if (staged) flush_stages(near_out, near_out_count, far_keep, keep_count);
            }
            if (tid == 0) {
                ctl[CTL_FAR + (split + 2) % 3] = 0u;
                ctl[CTL_SETTLED + (split + 2) % 3] = 0u;
                wide[WIDE_HEAVY_ARCS + (split + 2) % 3] = 0ull;
                far_min[(split + 2) % 3] = dist_infinity();
            }
            ++split;
            heavy_done = 0;
        }
        if (tid == 0) {
            ctl[CTL_NEAR + (it + 2) % 3] = 0u;
            ctl[CTL_CHUNK + (it + 2) % 3] = 0u;
        }
        grid_barrier(ctl + CTL_ARRIVED, gridDim.x * (unsigned int)(it + 1));
    }
    if (tid == 0) {
        ctl[CTL_ITERATIONS] = it;
        write_trace_row(trace, it, trace_capacity, SSSP_TRACE_END, 0, split);
    }
}

// Orders each out-list light arcs (w < delta) first, keeping the order within
// each part, into out_indices/out_weights; light_end[v] is where v's heavy
// arcs start. One warp per vertex, two coalesced passes over its list.
extern "C" __global__ void split_light_heavy(long long n, const eid_t* __restrict__ indptr,
                                             const vid_t* __restrict__ indices,
                                             const weight_t* __restrict__ weights, dist_t delta,
                                             vid_t* out_indices, weight_t* out_weights,
                                             eid_t* light_end) {
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const unsigned int lane = lane_id();
    const unsigned int below = (1u << lane) - 1u;
    for (long long v = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; v < n; v += warps) {
        const eid_t b = indptr[v], e = indptr[v + 1];
        eid_t light = 0;
        for (eid_t base = b; base < e; base += 32) {
            eid_t i = base + lane;
            light += __popc(__ballot_sync(SSSP_FULL_MASK, i < e && arc_weight(weights, i) < delta));
        }
        eid_t light_at = b, heavy_at = b + light;
        for (eid_t base = b; base < e; base += 32) {
            eid_t i = base + lane;
            bool in = i < e;
            bool is_light = in && arc_weight(weights, i) < delta;
            unsigned int light_bits = __ballot_sync(SSSP_FULL_MASK, is_light);
            unsigned int heavy_bits = __ballot_sync(SSSP_FULL_MASK, in && !is_light);
            if (in) {
                eid_t to = is_light ? light_at + __popc(light_bits & below)
                                    : heavy_at + __popc(heavy_bits & below);
                out_indices[to] = indices[i];
#if SSSP_WEIGHT != SSSP_WEIGHT_NONE
                out_weights[to] = weights[i];
#endif
            }
            light_at += __popc(light_bits);
            heavy_at += __popc(heavy_bits);
        }
        if (lane == 0) light_end[v] = b + light;
    }
}
