// Asynchronous delta-stepping for road networks, after Wang, Fussell and Lin,
// "A Fast Work-Efficient SSSP Algorithm for GPUs" (ADDS, PPoPP 2021):
// inside a bucket there is no barrier at all. Every warp of a persistent grid
// is a worker that takes vertices from one shared ring, relaxes their arcs and
// puts the improved targets back, so a vertex is relaxed as soon as its
// distance drops instead of at the next grid-wide iteration. Road networks
// need hundreds to thousands of bulk-synchronous iterations (one per hop of
// the shortest-path tree within a bucket), each a grid barrier plus a chain
// of dependent memory round trips (~12 µs on an H200: docs/decisions/cuda-sssp.md);
// here a hop costs only its own round trips.
//
// Buckets are near-far's (Davidson et al. 2014, as in sssp_near_far.cu):
// improved targets below the threshold go to the ring, the others to the far
// pile; when no work is pending anywhere the grid meets at a barrier and a
// split raises the threshold and moves far vertices below it into the ring.
//
// Ring protocol (each slot a vertex and the distance it was queued with; both
// fields all ones when the slot is free; 64-bit counters that only grow):
//   push:  pending is raised first, and the reservation waits for that (so
//          pending never reads 0 while work exists: a worker raises it once
//          per step by the arcs it is about to relax, an upper bound on the
//          items they yield, and corrects it at the end of the step); then
//          tail += k reserves slots and each slot's two fields are written
//          (once both are free, when the ring has wrapped);
//   pop:   a CAS on head claims slots below tail; each is read once both of
//          its fields are written (each field is written once per lap, so two
//          non-free fields are the new item), then both are freed;
//   done:  a worker that finishes an item subtracts it from pending (after
//          adding what it pushed or kept). pending == 0 means no item is
//          queued or being relaxed: the bucket is finished, and it stays so.
// An item carries its distance, so no fence orders the distance update before
// the slot: the item is relaxed with the distance it carries, unless dist[v]
// is already smaller (a later improvement, itself an item). Every improvement
// becomes exactly one item, so the last one of each vertex is relaxed with
// its final distance; a stale read of dist[v] only costs a wasted relaxation.
// Pushes that would fill the ring past half its capacity go to the far pile
// instead (the next split returns them), which keeps a free slot for every
// reservation, so that producers waiting for slots cannot deadlock.
//
// A split returns far vertices below the new threshold to the ring, except
// those already relaxed at their current distance (relaxed_at[v] == dist[v]):
// lowered into an earlier bucket after they were piled, they were relaxed
// there. A vertex that overflowed into the pile was not, and goes back.
//
// `chain` > 0: a lane keeps one improved neighbour and relaxes it next step
// itself (up to `chain` hops) instead of pushing it: no push, no pop. Further
// improved neighbours go to lanes of the same warp that kept none (AS_LOCAL),
// and only what is left to the ring. (Loading
// the kept target's arc range together with its atomicMin, to save a round
// trip per hop, measured no faster: docs/decisions/cuda-sssp.md.)
#include "persistent.cuh"
#include "sssp_common.cuh"

#ifndef AS_BLOCK
#define AS_BLOCK 64
#endif
// Blocks per SM the persistent grid may use (all must be resident at once).
#ifndef AS_MIN_BLOCKS
#define AS_MIN_BLOCKS 4
#endif
// 1: splits skip far vertices already relaxed at their distance (relaxed_at);
// 0: they return every far vertex below the threshold (for comparison).
#ifndef AS_DROP_STALE
#define AS_DROP_STALE 1
#endif
// Arcs a lane relaxes at once.
#ifndef AS_ARCS
#define AS_ARCS 4
#endif
// Out-lists this long are walked by the whole warp, AS_ARCS arcs per lane a round.
#define AS_COOP (32 * AS_ARCS)
// Idle workers poll the ring with exponential back-off (ns). Only the first
// warp of each block (its scout) polls at a short interval: with every idle
// warp polling the ring's counters, those loads saturated the counters' L2
// lines and slowed every push and pop (time grew with the warps per SM).
#ifndef AS_MIN_BACKOFF
#define AS_MIN_BACKOFF 32u
#endif
// CAS attempts per claim (a failed one means other warps took the items).
#ifndef AS_CLAIM_ATTEMPTS
#define AS_CLAIM_ATTEMPTS 4
#endif
// 1: worker statistics in q[Q_RELAXED + 1 ..] (benchmarks/sssp_async_stats.py):
// busy steps, lane-items, idle loops, claims, claimed items, failed claims,
// busy cycles, then cycles by part of a busy step (5 words).
#ifndef AS_STATS
#define AS_STATS 0
#endif
// Far-pile candidates a warp gathers before adding them (>= 32 * AS_ARCS,
// a multiple of 32).
#ifndef AS_FAR_BUFFER
#define AS_FAR_BUFFER 256
#endif
static_assert(AS_FAR_BUFFER >= 32 * AS_ARCS && AS_FAR_BUFFER % 32 == 0,
              "AS_FAR_BUFFER must hold a round's candidates in whole warp rows");
#ifndef AS_SCOUT_BACKOFF
#define AS_SCOUT_BACKOFF 64u
#endif
#ifndef AS_IDLE_BACKOFF
#define AS_IDLE_BACKOFF 1024u
#endif
// 1: improved targets beyond a lane's kept one go first to lanes of the same
// warp that have no item for the next step (through shared memory), and only
// the rest to the ring: on roads a busy step has ~8 of 32 lanes busy, and a
// target handed over costs no reservation, no claim and no idle warp's
// back-off before it is relaxed.
#ifndef AS_LOCAL
#define AS_LOCAL 1
#endif

// Control words (unsigned int), as in sssp_near_far.cu where shared.
#define CTL_FAR 6          // 3 slots: far-pile length, by split % 3
#define CTL_ARRIVED 9      // grid barrier: arrivals so far
#ifndef CTL_ITERATIONS
#define CTL_ITERATIONS 11  // trace rows written (phases), at the end
#endif
#ifndef CTL_WORDS
#define CTL_WORDS 16
#endif
// Ring counters (unsigned long long), each on its own 128-byte line.
#define Q_HEAD 0
#define Q_TAIL 16
#define Q_PENDING 32  // signed, in two's complement
#ifndef Q_RELAXED
#define Q_RELAXED 48  // vertices whose arcs were relaxed (statistics)
#endif
#ifndef Q_WORDS
#define Q_WORDS 64
#endif

// Trace rows (write_trace_row; kinds SSSP_TRACE_* of sssp_common.cuh): an
// asynchronous bucket, a split, and the end.

// A free slot's distance field: all bits set (NaN, or -1 for integers; never a distance).
__device__ __forceinline__ dist_t free_dist() {
#if SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32
    return __uint_as_float(0xffffffffu);
#elif SSSP_WEIGHT == SSSP_WEIGHT_FLOAT64
    return __longlong_as_double(-1LL);
#else
    return -1;
#endif
}
__device__ __forceinline__ bool is_free_dist(dist_t d) {
#if SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32
    return __float_as_uint(d) == 0xffffffffu;
#elif SSSP_WEIGHT == SSSP_WEIGHT_FLOAT64
    return __double_as_longlong(d) == -1LL;
#else
    return d == -1;
#endif
}

struct WorkRing {
    vid_t* ids;
    dist_t* dists;
    unsigned long long mask;  // capacity - 1
    unsigned long long* q;

    // Lane 0 only: claims up to `want` queued items; returns how many and
    // sets *first.
    __device__ __forceinline__ unsigned int claim(unsigned int want, unsigned long long* first) const {
        for (int attempt = 0; attempt < AS_CLAIM_ATTEMPTS; ++attempt) {
            const unsigned long long h = load_volatile(q + Q_HEAD);
            const unsigned long long t = load_volatile(q + Q_TAIL);
            if ((long long)(t - h) <= 0) return 0u;
            const unsigned long long take = min((unsigned long long)want, t - h);
            if (atomicCAS(q + Q_HEAD, h, h + take) == h) {
                *first = h;
                return (unsigned int)take;
            }
        }
        return 0u;
    }

    // Waits for slot i's item, takes it and frees the slot.
    __device__ __forceinline__ void take(unsigned long long i, vid_t* v, dist_t* d) const {
        vid_t* id = ids + (i & mask);
        dist_t* dd = dists + (i & mask);
        do {
            *v = load_volatile(id);
            *d = load_volatile(dd);
        } while (*v == (vid_t)-1 || is_free_dist(*d));
        store_volatile(id, (vid_t)-1);
        store_volatile(dd, free_dist());
    }

    // All 32 lanes: queues (values[k], d[k]) where want[k]. `covered`: the
    // caller has already raised pending by at least this many items (and
    // `room` says whether that left the ring at most half full); otherwise
    // pending is raised here first. Returns false (warp-uniform) when the
    // ring is too full; then nothing was queued and the caller sends the
    // values to the far pile.
    template <int K>
    __device__ __forceinline__ bool push(const vid_t* values, const dist_t* d, const bool* want,
                                         bool covered = false, bool room = true) const {
        const unsigned int lane = lane_id();
        unsigned int total;
        const unsigned int rank = warp_rank_many<K>(want, &total);
        if (total == 0) return true;
        if (!room) return false;
        unsigned long long base = 0;
        int ok = 1;
        if (lane == 31) {
            if (!covered) {
                const unsigned long long before = atomicAdd(q + Q_PENDING, (unsigned long long)total);
                if ((long long)before + (long long)total > (long long)((mask + 1) >> 1)) {
                    atomicAdd(q + Q_PENDING, (unsigned long long)(-(long long)total));
                    ok = 0;
                }
            }
            // The reservation follows the count's result, so the count is
            // raised before any slot is reserved, let alone visible.
            if (ok) base = atomicAdd(q + Q_TAIL, (unsigned long long)total);
        }
        ok = __shfl_sync(SSSP_FULL_MASK, ok, 31);
        if (!ok) return false;
        base = __shfl_sync(SSSP_FULL_MASK, base, 31);
        unsigned long long at = base + rank;
        const bool wrapped = base + total > mask + 1;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (want[k]) {
                vid_t* id = ids + (at & mask);
                dist_t* dd = dists + (at & mask);
                ++at;
                if (wrapped)
                    while (load_volatile(id) != (vid_t)-1 || !is_free_dist(load_volatile(dd))) {
                    }
                store_volatile(dd, d[k]);
                store_volatile(id, values[k]);
            }
        }
        return true;
    }
};

struct FarPile {
    vid_t* list;
    unsigned int* count;
    int* stamp;
    int tag;
    dist_t* smallest;

    // All 32 lanes: adds the values with want[k] (once per pile) and, unless
    // d is null, lowers the pile's smallest distance.
    template <int K>
    __device__ __forceinline__ void add(const vid_t* values, const dist_t* d, const bool* want) const {
        bool fresh[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            fresh[k] = false;
            if (want[k]) {
                if (d != nullptr && d[k] < __ldcg(smallest)) atomic_min_dist(smallest, d[k]);
                fresh[k] = atomicExch(stamp + values[k], tag) != tag;
            }
        }
        warp_append_many<K>(list, count, values, fresh);
    }
};

// A warp's far-pile candidates, gathered in shared memory and added to the
// pile AS_FAR_BUFFER at a time: nothing reads the pile before the split, and
// adding one (a stamp exchange, a queue append, the minimum) cost the warp's
// chain of relaxations two or three round trips each time.
struct FarBuffer {
    vid_t* slots;        // this warp's AS_FAR_BUFFER entries (shared memory)
    unsigned int count;  // warp-uniform
    dist_t smallest;     // this lane's smallest buffered distance

    template <int K>
    __device__ __forceinline__ void add(const FarPile& pile, const vid_t* values, const dist_t* d,
                                        const bool* want) {
        unsigned int total;
        const unsigned int rank = warp_rank_many<K>(want, &total);
        if (total == 0) return;
        if (count + total > AS_FAR_BUFFER) flush(pile);
        unsigned int at = count + rank;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (want[k]) {
                slots[at++] = values[k];
                smallest = d[k] < smallest ? d[k] : smallest;
            }
        }
        count += total;
        __syncwarp();
    }

    __device__ __forceinline__ void flush(const FarPile& pile) {
        constexpr int per_lane = AS_FAR_BUFFER / 32;
        const unsigned int lane = lane_id();
        if (count == 0) return;  // warp-uniform
        __syncwarp();
        vid_t v[per_lane];
        bool want[per_lane];
#pragma unroll
        for (int k = 0; k < per_lane; ++k) {
            const unsigned int i = lane + 32u * k;
            want[k] = i < count;
            v[k] = want[k] ? slots[i] : 0;
        }
        pile.add<per_lane>(v, nullptr, want);
        dist_t m = smallest;
        for (int offset = 16; offset; offset >>= 1) {
            const dist_t other = __shfl_xor_sync(SSSP_FULL_MASK, m, offset);
            m = other < m ? other : m;
        }
        if (lane == 0) atomic_min_dist(pile.smallest, m);
        count = 0;
        smallest = dist_infinity();
        __syncwarp();
    }
};

extern "C" __global__ void __launch_bounds__(AS_BLOCK, AS_MIN_BLOCKS)
async_delta(const eid_t* __restrict__ indptr, const vid_t* __restrict__ indices,
            const weight_t* __restrict__ weights, dist_t* dist, vid_t source,
            const vid_t* __restrict__ seeds, long long seed_count, vid_t* ring_ids,
            dist_t* ring_dists, unsigned long long ring_mask, unsigned long long* q, vid_t* far0,
            vid_t* far1, int* far_stamp, dist_t* far_min, unsigned int* ctl, dist_t delta,
            dist_t cutoff, int chain, long long* trace, int trace_capacity, dist_t* relaxed_at) {
    const WorkRing work{ring_ids, ring_dists, ring_mask, q};
    __shared__ vid_t far_slots[AS_BLOCK / 32][AS_FAR_BUFFER];
    __shared__ vid_t handed_ids[AS_BLOCK / 32][32];  // AS_LOCAL: targets for idle lanes
    __shared__ dist_t handed_dists[AS_BLOCK / 32][32];
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const unsigned int lane = lane_id();
    const bool scout = threadIdx.x < 32;
    const vid_t none = -1;
    dist_t threshold = delta;
    int split = 0;
    int row = 0;  // trace rows (phases) so far
    unsigned int barriers = 0;
    unsigned long long relaxed_before = 0;  // Q_RELAXED at the bucket's start (thread 0)
    // The host zeroed the counters and left every slot free: queue the source,
    // or every one of `seeds` (a multi-source search; distinct ids, fewer than
    // half the ring's slots since the ring holds 2 (n + 1)) at distance 0.
    const long long seeded = seeds == nullptr ? 1 : seed_count;
    for (long long i = tid; i < seeded; i += nthreads) {
        const vid_t s = seeds == nullptr ? source : seeds[i];
        dist[s] = 0;
        ring_dists[i] = 0;
        ring_ids[i] = s;
    }
    if (tid == 0) {
        q[Q_TAIL] = (unsigned long long)seeded;
        q[Q_PENDING] = (unsigned long long)seeded;
    }
    grid_barrier(ctl + CTL_ARRIVED, gridDim.x * ++barriers);
    for (;;) {
        // -- a bucket, asynchronously -----------------------------------------
        if (tid == 0) {
            relaxed_before = __ldcg(q + Q_RELAXED);
            write_trace_row(trace, row, trace_capacity, SSSP_TRACE_ASYNC, 0, split);
        }
        const FarPile far{(split & 1) ? far1 : far0, ctl + CTL_FAR + split % 3, far_stamp,
                          split + 1, far_min + split % 3};
        FarBuffer far_later{far_slots[threadIdx.x >> 5], 0u, dist_infinity()};
        // A lane's item: a vertex and the distance to relax it with.
        vid_t item = none;
        dist_t item_dist = 0;
        int hops = 0;
        unsigned int relaxed = 0, backoff = 0;
        long long stat_seg[5] = {0, 0, 0, 0, 0};  // AS_STATS: cycles by part of a busy step
        unsigned long long stat_steps = 0, stat_lane_items = 0, stat_idle = 0, stat_claims = 0,
                           stat_claimed = 0, stat_failed_claims = 0, stat_ns = 0;
        for (;;) {
            const unsigned int busy = __ballot_sync(SSSP_FULL_MASK, item != none);
            if (busy) {
                backoff = 0;
                long long step_start = AS_STATS ? clock64() : 0;
                if (AS_STATS) { ++stat_steps; stat_lane_items += __popc(busy); }
                // Relax the item's arcs with the distance it carries, unless a
                // smaller distance has arrived since (its own item relaxes it).
                const dist_t d = item_dist;
                eid_t b = 0, e = 0;
                if (item != none) {
                    const dist_t now = __ldcg(dist + item);
                    b = indptr[item];
                    e = indptr[item + 1];
                    if (now < d) {
                        e = b;
                    } else {
                        ++relaxed;
                        relaxed_at[item] = d;
                    }
                }
                // Each arc yields at most one item: raise pending by the
                // step's arcs now, and correct it at the end. The result is
                // needed only at the first push, two round trips later, so
                // a push costs one round trip (the reservation), not two.
                unsigned long long arcs_here = (unsigned long long)(e - b);
                for (int offset = 16; offset; offset >>= 1)
                    arcs_here += __shfl_xor_sync(SSSP_FULL_MASK, arcs_here, offset);
                unsigned long long pending_before = 0;
                if (lane == 0 && arcs_here) pending_before = atomicAdd(q + Q_PENDING, arcs_here);
                long long seg_mark = AS_STATS ? clock64() : 0;
                if (AS_STATS) stat_seg[0] += seg_mark - step_start;  // offsets, distance, pending
                int queued = 0;  // items this lane put in the ring
                vid_t next = none;
                dist_t next_dist = 0;
                // Lanes with no item kept for the next step (and chain left)
                // take the first targets bound for the ring, in rank order.
                auto hand_to_idle_lanes = [&](bool* to_ring, const vid_t* u, const dist_t* nd) {
                    unsigned int total;
                    const unsigned int rank = warp_rank_many<AS_ARCS>(to_ring, &total);
                    const bool idle = next == none && hops < chain;
                    const unsigned int idle_lanes = __ballot_sync(SSSP_FULL_MASK, idle);
                    if (total == 0 || idle_lanes == 0) return;  // warp-uniform
                    const unsigned int handed = min(total, (unsigned int)__popc(idle_lanes));
                    vid_t* ids = handed_ids[threadIdx.x >> 5];
                    dist_t* dists = handed_dists[threadIdx.x >> 5];
                    unsigned int at = rank;
#pragma unroll
                    for (int k = 0; k < AS_ARCS; ++k) {
                        if (to_ring[k]) {
                            if (at < handed) {
                                ids[at] = u[k];
                                dists[at] = nd[k];
                                to_ring[k] = false;
                            }
                            ++at;
                        }
                    }
                    __syncwarp();
                    const unsigned int j = __popc(idle_lanes & ((1u << lane) - 1u));
                    if (idle && j < handed) {
                        next = ids[j];
                        next_dist = dists[j];
                    }
                    __syncwarp();
                };
                auto relax_round = [&](const bool* valid, dist_t from, const eid_t* arc) {
                    vid_t u[AS_ARCS];
                    dist_t nd[AS_ARCS];
                    bool improved[AS_ARCS], to_ring[AS_ARCS], to_far[AS_ARCS];
#pragma unroll
                    for (int k = 0; k < AS_ARCS; ++k) {
                        u[k] = valid[k] ? indices[arc[k]] : 0;
                        nd[k] = valid[k] ? from + arc_weight(weights, arc[k]) : from;
                    }
                    // Every atomic issued before any result is compared, so
                    // that they are in flight together.
                    dist_t before[AS_ARCS];
#pragma unroll
                    for (int k = 0; k < AS_ARCS; ++k)
                        before[k] = valid[k] && nd[k] <= cutoff ? atomic_min_dist(dist + u[k], nd[k]) : nd[k];
#pragma unroll
                    for (int k = 0; k < AS_ARCS; ++k) improved[k] = nd[k] < before[k];
#pragma unroll
                    for (int k = 0; k < AS_ARCS; ++k) {
                        to_ring[k] = false;
                        to_far[k] = improved[k] && !(nd[k] < threshold);
                        if (improved[k] && nd[k] < threshold) {
                            if (next == none && hops < chain) {
                                next = u[k];
                                next_dist = nd[k];
                            } else {
                                to_ring[k] = true;
                            }
                        }
                    }
                    if (AS_LOCAL) hand_to_idle_lanes(to_ring, u, nd);
                    bool room = true;  // read pending's result only when something is pushed
                    bool pushing = false;
#pragma unroll
                    for (int k = 0; k < AS_ARCS; ++k) pushing = pushing || to_ring[k];
                    if (__any_sync(SSSP_FULL_MASK, pushing))
                        room = __shfl_sync(SSSP_FULL_MASK,
                                           (long long)(pending_before + arcs_here) <=
                                               (long long)((ring_mask + 1) >> 1), 0);
                    long long seg_push = AS_STATS ? clock64() : 0;
                    if (AS_STATS) stat_seg[1] += seg_push - seg_mark;  // arcs + atomicMin
                    const bool pushed = work.push<AS_ARCS>(u, nd, to_ring, true, room);
                    if (AS_STATS) { seg_mark = clock64(); stat_seg[2] += seg_mark - seg_push; }
                    if (pushed) {
#pragma unroll
                        for (int k = 0; k < AS_ARCS; ++k) queued += to_ring[k] ? 1 : 0;
                    } else {
                        far_later.add<AS_ARCS>(far, u, nd, to_ring);
                    }
                    far_later.add<AS_ARCS>(far, u, nd, to_far);
                };
                bool valid[AS_ARCS];
                eid_t arc[AS_ARCS];
                // Long lists: the whole warp, one list at a time.
                for_each_warp_list(e - b >= AS_COOP, b, e, d, [&](eid_t lb, eid_t le, dist_t ld, int) {
                    for (eid_t base = lb; base < le; base += AS_COOP) {
#pragma unroll
                        for (int k = 0; k < AS_ARCS; ++k) {
                            arc[k] = base + lane + 32 * k;
                            valid[k] = arc[k] < le;
                        }
                        relax_round(valid, ld, arc);
                    }
                });
                // Short lists: each lane its own, in lock step.
                const unsigned int length = e - b < AS_COOP ? (unsigned int)(e - b) : 0u;
                const unsigned int longest = __reduce_max_sync(SSSP_FULL_MASK, length);
                for (unsigned int first = 0; first < longest; first += AS_ARCS) {
#pragma unroll
                    for (int k = 0; k < AS_ARCS; ++k) {
                        valid[k] = first + k < length;
                        arc[k] = b + first + k;
                    }
                    relax_round(valid, d, arc);
                }
                if (AS_STATS) { long long now = clock64(); stat_seg[3] += now - seg_mark; seg_mark = now; }
                // This step's items are done; the kept ones are new items.
                long long created = queued + (next != none ? 1 : 0);
                for (int offset = 16; offset; offset >>= 1)
                    created += __shfl_xor_sync(SSSP_FULL_MASK, created, offset);
                const long long correction = created - __popc(busy) - (long long)arcs_here;
                if (lane == 0 && correction != 0)
                    atomicAdd(q + Q_PENDING, (unsigned long long)correction);

                if (AS_STATS) { long long now = clock64(); stat_ns += now - step_start; stat_seg[4] += now - seg_mark; }
                hops = next != none ? hops + 1 : 0;
                item = next;
                item_dist = next_dist;
            }
            // Only an idle warp takes items from the ring: a claim would cost
            // a busy warp's chains two round trips, and idle warps pick up
            // new items within a back-off (busy warps refilling when the ring
            // held >= 256, 2 048 or any items measured 1-15 % slower).
            const unsigned int empty = __ballot_sync(SSSP_FULL_MASK, item == none);
            if (empty == SSSP_FULL_MASK) {
                unsigned long long first = 0;
                unsigned int taken = 0;
                if (lane == 0) taken = work.claim(32u, &first);
                taken = __shfl_sync(SSSP_FULL_MASK, taken, 0);
                if (AS_STATS) {
                    stat_claims += taken ? 1 : 0;
                    stat_claimed += taken;
                    stat_failed_claims += taken ? 0 : 1;  // the ring was empty or others won
                }
                if (taken) {
                    first = __shfl_sync(SSSP_FULL_MASK, first, 0);
                    if (lane < taken) {
                        work.take(first + lane, &item, &item_dist);
                        hops = 0;
                    }
                }
            }
            if (__ballot_sync(SSSP_FULL_MASK, item != none) == 0) {
                // Idle: done once no work is pending anywhere.
                long long waiting = 0;
                if (lane == 0) waiting = (long long)load_volatile(q + Q_PENDING);
                if (__shfl_sync(SSSP_FULL_MASK, waiting, 0) == 0) break;
                if (AS_STATS) ++stat_idle;
                if (backoff) __nanosleep(backoff);
                backoff = backoff ? min(2u * backoff, scout ? AS_SCOUT_BACKOFF : AS_IDLE_BACKOFF)
                                  : AS_MIN_BACKOFF;
            }
        }
        far_later.flush(far);  // before the barrier: the split reads the pile
        for (int offset = 16; offset; offset >>= 1) relaxed += __shfl_xor_sync(SSSP_FULL_MASK, relaxed, offset);
        if (lane == 0 && relaxed) atomicAdd(q + Q_RELAXED, (unsigned long long)relaxed);
        if (AS_STATS && lane == 0) {
            atomicAdd(q + Q_RELAXED + 1, stat_steps);
            atomicAdd(q + Q_RELAXED + 2, stat_lane_items);
            atomicAdd(q + Q_RELAXED + 3, stat_idle);
            atomicAdd(q + Q_RELAXED + 4, stat_claims);
            atomicAdd(q + Q_RELAXED + 5, stat_claimed);
            atomicAdd(q + Q_RELAXED + 6, stat_failed_claims);
            atomicAdd(q + Q_RELAXED + 7, stat_ns);
            for (int x = 0; x < 5; ++x) atomicAdd(q + Q_RELAXED + 8 + x, (unsigned long long)stat_seg[x]);
        }
        grid_barrier(ctl + CTL_ARRIVED, gridDim.x * ++barriers);
        if (tid == 0 && row < trace_capacity)
            trace[TRACE_WIDTH * row + 1] = (long long)(__ldcg(q + Q_RELAXED) - relaxed_before);
        ++row;

        // -- split: the next bucket -------------------------------------------
        const unsigned int far_count = __ldcg(ctl + CTL_FAR + split % 3);
        if (far_count == 0) break;
        threshold = next_threshold(threshold, delta, __ldcg(far_min + split % 3));
        if (tid == 0) write_trace_row(trace, row, trace_capacity, SSSP_TRACE_SPLIT, far_count, split);
        ++row;
        const vid_t* far_in = (split & 1) ? far1 : far0;
        const FarPile keep{(split & 1) ? far0 : far1, ctl + CTL_FAR + (split + 1) % 3, far_stamp,
                           split + 2, far_min + (split + 1) % 3};
        for (long long base = 0; base < far_count; base += nthreads) {
            const long long x = base + tid;
            vid_t u[1] = {0};
            dist_t du[1] = {0};
            bool to_ring[1] = {false}, to_keep[1] = {false};
            if (x < far_count) {
                u[0] = __ldcg(far_in + x);
                du[0] = __ldcg(dist + u[0]);
                to_ring[0] = du[0] < threshold && !(AS_DROP_STALE && __ldcg(relaxed_at + u[0]) == du[0]);
                to_keep[0] = !(du[0] < threshold);
            }
            // The ring is empty here and holds at least n / 2 + 1 vertices.
            if (!work.push<1>(u, du, to_ring)) keep.add<1>(u, du, to_ring);
            keep.add<1>(u, du, to_keep);
        }
        if (tid == 0) {
            ctl[CTL_FAR + (split + 2) % 3] = 0u;
            far_min[(split + 2) % 3] = dist_infinity();
        }
        ++split;
        grid_barrier(ctl + CTL_ARRIVED, gridDim.x * ++barriers);
    }
    if (tid == 0) {
        ctl[CTL_ITERATIONS] = row;
        write_trace_row(trace, row, trace_capacity, SSSP_TRACE_END, 0, split);
    }
}
