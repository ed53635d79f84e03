// Asynchronous region SSSP for road networks: one persistent block per
// region of the graph, the region's distances (and, when they fit, its arcs)
// in shared memory.
//
// Why (docs/decisions/cuda-sssp.md, "The dependent-hop floor"): a road's
// shortest-path tree is 500-930 hops deep, and every hop is a dependent
// update. In global memory a hop costs two dependent L2 round trips (~1 us
// on an H200), which puts the floor of any global-memory search above the
// 3x-GAP target on amsterdam. Here a hop inside a region costs shared-memory
// latency and a barrier of the block's relaxing warps; only the region
// crossings of a shortest path pay global round trips.
//
// The host orders the vertices so that each region is a contiguous range
// (recursive level-structure bisection, wavefront/graph/regions.py), one
// region per block. Each block splits into two roles:
//   * the relaxing warps (all but the first) run Bellman-Ford on the
//     region's queue, iteration after iteration, in shared memory only: an
//     arc inside the region lowers the shared distance and an improved
//     target joins the next queue (a bit per vertex keeps it there once); an
//     arc leaving the region goes to the block's outbox in shared memory.
//     They meet at a named barrier (bar.sync 1), never waiting on global
//     memory, except when the outbox is full (then a lane sends itself);
//   * the mail warp (the first) sends what the outbox holds and takes what
//     other blocks sent, so global latency stays off the relaxing path.
// Sending (rg_send): lower the target's global distance; if it improved,
// set the target's message flag 0 -> 1, raise the work count and append the
// target to its owner's inbox (a ring in global memory: reserve with the
// owner's tail counter, then write the id into the slot). Taking: the mail
// warp sees its tail move, waits for each slot's id, frees the slot, clears
// the flag (1 -> 0), reads the global distance, lowers the shared one and
// hands the vertex to the relaxing warps through the incoming ring. The flag
// keeps a vertex in an inbox at most once, so an inbox of 2 B + 64 slots (B:
// the region's boundary vertices) is never overwritten unread: a slot comes
// round again only after B + 64 later messages were taken, a whole batch of
// 32 and its fence later.
// Termination: `work` counts busy blocks plus flags set and not yet taken.
// It starts at the number of blocks. The mail warp leaves (work -= 1) when
// the relaxing warps are idle, the incoming ring is empty and the outbox is
// sent (after a fence on every lane, so its sends' work increments land
// first); it comes back (work += 1) when its inbox tail moves, before taking
// anything; work == 0 ends the search. A sender raises work while its block
// is still counted busy, so work never reads 0 while an update is pending.
// Order: without it a region floods its vertices with distances that a
// later message undercuts, and relaxes them again (16-200 relaxations a
// vertex on roads). Each block publishes the least distance it holds
// queued (`minima`), the mail warp keeps the least of all blocks' (the
// floor), and the relaxing warps relax only vertices within `delta` of the
// floor, keeping the others queued: delta-stepping's buckets, without a
// barrier between them. A stale floor costs work or a wait, never an answer.
// Fences: the sender's atomicMin on dist comes before its flag exchange, the
// taker's flag exchange before its read of dist, each with a __threadfence
// between, so an update that the taker's read misses finds the flag cleared
// and sends a new message.
// At the end every block writes its shared distances to global memory
// (a boundary vertex's shared distance is never above its global one then:
// every message was taken).
#include "persistent.cuh"
#include "sssp_common.cuh"

// Threads per block, the mail warp included (a tuning choice; the launch
// uses the same value).
#ifndef RG_BLOCK
#define RG_BLOCK 256
#endif
#define RG_RELAX (RG_BLOCK - 32)
// The most lanes that relax one queued vertex's arcs together, on short
// queues (a tuning choice: 1, 2, 4, 8, 16 or 32).
#ifndef RG_GROUP
#define RG_GROUP 4
#endif
// Outbox entries (a tuning choice): arcs leaving the region, waiting for the mail warp.
#ifndef RG_OUTBOX
#define RG_OUTBOX 1024
#endif
// An idle block's mail warp polls its inbox tail and the work count with
// exponential back-off from RG_MIN_BACKOFF up to RG_IDLE_BACKOFF ns.
#ifndef RG_MIN_BACKOFF
#define RG_MIN_BACKOFF 32u
#endif
#ifndef RG_IDLE_BACKOFF
#define RG_IDLE_BACKOFF 256u
#endif
// ABI (wavefront.backends.cuda.abi): ints between two regions' inbox tails
// (one 128-byte line each), the control words, the statistics words.
#ifndef RG_TAIL_STRIDE
#define RG_TAIL_STRIDE 32
#endif
#ifndef RG_CTL_WORK
#define RG_CTL_WORK 0
#endif
#ifndef RG_STAT_ITERATIONS
#define RG_STAT_ITERATIONS 0  // relaxing iterations, summed over blocks
#endif
#ifndef RG_STAT_RELAXED
#define RG_STAT_RELAXED 1     // vertices whose arcs were relaxed
#endif
#ifndef RG_STAT_SENT
#define RG_STAT_SENT 2        // messages to other regions
#endif
#ifndef RG_STAT_TAKEN
#define RG_STAT_TAKEN 3       // messages taken
#endif
#ifndef RG_STAT_WAKEUPS
#define RG_STAT_WAKEUPS 4     // idle blocks woken by a message
#endif
#ifndef RG_STAT_MOST_ITERATIONS
#define RG_STAT_MOST_ITERATIONS 5  // the most iterations one block ran
#endif
#ifndef RG_STAT_RELAX_CYCLES
#define RG_STAT_RELAX_CYCLES 6   // RG_STATS: relaxing-phase cycles (first relaxing thread), summed over blocks
#endif
#ifndef RG_STAT_TOP_CYCLES
#define RG_STAT_TOP_CYCLES 7     // RG_STATS: cycles between iterations, waits excluded
#endif
#ifndef RG_STAT_WAIT_CYCLES
#define RG_STAT_WAIT_CYCLES 8    // RG_STATS: cycles the relaxing warps waited with nothing queued
#endif
#ifndef RG_STAT_SEND_CYCLES
#define RG_STAT_SEND_CYCLES 9    // RG_STATS: mail warp cycles sending
#endif
#ifndef RG_STAT_TAKE_CYCLES
#define RG_STAT_TAKE_CYCLES 10   // RG_STATS: mail warp cycles taking
#endif
#ifndef RG_STAT_BUSIEST_CYCLES
#define RG_STAT_BUSIEST_CYCLES 11  // RG_STATS: the most relaxing + between-iteration cycles of one block
#endif
#ifndef RG_STAT_KERNEL_CYCLES
#define RG_STAT_KERNEL_CYCLES 12   // RG_STATS: the longest block, in cycles
#endif
#ifndef RG_STAT_WORDS
#define RG_STAT_WORDS 16
#endif
// 1: time the phases with clock64 (the RG_STAT_*_CYCLES words; a tuning choice, diagnostics only).
#ifndef RG_STATS
#define RG_STATS 0
#endif

__device__ __forceinline__ void relax_barrier() {
    asm volatile("bar.sync 1, %0;" ::"r"(RG_RELAX) : "memory");
}

// Shared-memory carve-out, in this order, each piece 16-byte aligned (the
// host's wavefront.backends.cuda.sssp_regions.shared_bytes mirrors it):
// distances [cap], queue bits [cap / 32], two queues [cap] and the incoming
// ring [2 cap] of 16-bit local ids, then with arcs in shared memory: offsets
// [cap + 1], targets [arc_cap], weights [arc_cap] (none for unweighted graphs).
__device__ __forceinline__ size_t rg_align(size_t x) { return (x + 15) & ~size_t(15); }

// Lower a local vertex's shared distance to d; when it improved, lower the
// queue's least distance `qmin` too. True when the vertex was not queued
// yet: the caller queues it.
__device__ __forceinline__ bool rg_lower(dist_t* sdist, unsigned int* bits, dist_t* qmin, int local, dist_t d) {
    if (!(d < load_volatile(sdist + local))) return false;
    const dist_t before = atomic_min_dist(sdist + local, d);
    if (!(d < before)) return false;
    if (d < load_volatile(qmin)) atomic_min_dist(qmin, d);
    const unsigned int mask = 1u << (local & 31);
    return !(atomicOr(bits + (local >> 5), mask) & mask);
}

__device__ __forceinline__ dist_t rg_min(dist_t a, dist_t b) { return b < a ? b : a; }

// Region r's inbox: 2 B + 64 slots from 2 boundary_start[r] + 64 r (see the header).
__device__ __forceinline__ long long rg_inbox_begin(const long long* boundary_start, int r) {
    return 2 * boundary_start[r] + 64LL * r;
}

// Send nd to vertex t of another region (see the header). Returns 1 when a
// message was raised. `fence`: make the work increment land before this lane
// goes on (the mail warp fences all its lanes once, before it leaves instead).
__device__ __forceinline__ int rg_send(vid_t t, dist_t nd, dist_t* dist, int* flag, int* work, unsigned int* tails,
                                       vid_t* inbox, const long long* __restrict__ boundary_start,
                                       const int* __restrict__ region_of, bool fence) {
    if (!(nd < load_volatile(dist + t))) return 0;
    const int owner = region_of[t];
    const dist_t before = atomic_min_dist(dist + t, nd);
    if (!(nd < before)) return 0;
    __threadfence();
    if (atomicExch(flag + t, 1) != 0) return 0;  // a message is already waiting
    atomicAdd(work, 1);
    const long long begin = rg_inbox_begin(boundary_start, owner);
    const unsigned int slots = (unsigned int)(rg_inbox_begin(boundary_start, owner + 1) - begin);
    const unsigned int pos = atomicAdd(tails + (long long)owner * RG_TAIL_STRIDE, 1u);
    store_volatile(inbox + begin + pos % slots, t);
    if (fence) __threadfence();
    return 1;
}

extern "C" __global__ void __launch_bounds__(RG_BLOCK, 1)
region_sssp(const eid_t* __restrict__ indptr, const vid_t* __restrict__ indices,
            const weight_t* __restrict__ weights, const vid_t* __restrict__ region_start,
            const int* __restrict__ region_of, const long long* __restrict__ boundary_start,
            vid_t* inbox, dist_t* dist, int* flag, unsigned int* tails, int* ctl,
            const vid_t* __restrict__ seeds, long long seed_count, dist_t cutoff, dist_t delta,
            dist_t* minima, int cap, long long arc_cap, unsigned long long* stats) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int qlen[2];
    __shared__ vid_t out_vertex[RG_OUTBOX];
    __shared__ dist_t out_dist[RG_OUTBOX];
    // Positions only grow: out_tail (relaxing lanes reserve), out_ready (published
    // after each iteration), out_head (sent); inc_tail (mail warp), inc_head (taken).
    __shared__ unsigned int out_tail, out_ready, out_head, inc_tail, inc_head;
    __shared__ int relax_idle, done, s_count, s_exit, s_relaxed;
    __shared__ dist_t qmin[2], inc_min, floor_s, s_threshold;
    __shared__ unsigned int s_lo, s_hi;
    __shared__ unsigned long long s_stats[RG_STAT_WORDS];

    const int tid = threadIdx.x;
    const int r = blockIdx.x;
#if RG_STATS
    const long long kernel_begin = clock64();
#endif
    const vid_t start = region_start[r];
    const int size = (int)(region_start[r + 1] - start);
    const eid_t arc0 = indptr[start];
    const long long arcs = indptr[start + size] - arc0;
    const bool shared_arcs = arc_cap > 0;

    size_t at = 0;
    dist_t* sdist = reinterpret_cast<dist_t*>(smem + at);
    at = rg_align(at + sizeof(dist_t) * cap);
    unsigned int* bits = reinterpret_cast<unsigned int*>(smem + at);
    at = rg_align(at + sizeof(unsigned int) * ((cap + 31) / 32));
    unsigned short* queues[2];
    queues[0] = reinterpret_cast<unsigned short*>(smem + at);
    at = rg_align(at + sizeof(unsigned short) * cap);
    queues[1] = reinterpret_cast<unsigned short*>(smem + at);
    at = rg_align(at + sizeof(unsigned short) * cap);
    unsigned short* incoming = reinterpret_cast<unsigned short*>(smem + at);
    const unsigned int ring = 2u * (unsigned int)cap;  // see the mail warp: never overwritten unread
    at = rg_align(at + sizeof(unsigned short) * ring);
    int* soff = reinterpret_cast<int*>(smem + at);
    at = rg_align(at + sizeof(int) * (shared_arcs ? cap + 1 : 0));
    vid_t* starget = reinterpret_cast<vid_t*>(smem + at);
#if SSSP_WEIGHT != SSSP_WEIGHT_NONE
    at = rg_align(at + sizeof(vid_t) * (shared_arcs ? arc_cap : 0));
    weight_t* sweight = reinterpret_cast<weight_t*>(smem + at);
#endif

    for (int i = tid; i < size; i += RG_BLOCK) sdist[i] = dist_infinity();
    for (int i = tid; i < (size + 31) / 32; i += RG_BLOCK) bits[i] = 0;
    if (shared_arcs) {
        for (int i = tid; i <= size; i += RG_BLOCK) soff[i] = (int)(indptr[start + i] - arc0);
        for (long long e = tid; e < arcs; e += RG_BLOCK) {
            starget[e] = indices[arc0 + e];
#if SSSP_WEIGHT != SSSP_WEIGHT_NONE
            sweight[e] = weights[arc0 + e];
#endif
        }
    }
    if (tid < RG_STAT_WORDS) s_stats[tid] = 0;
    if (tid == 0) {
        qlen[0] = qlen[1] = 0;
        qmin[0] = qmin[1] = inc_min = dist_infinity();
        floor_s = 0;
        s_relaxed = 1;
        out_tail = out_ready = out_head = inc_tail = inc_head = 0;
        relax_idle = done = 0;
    }
    __syncthreads();
    for (long long i = tid; i < seed_count; i += RG_BLOCK) {  // the sources (distinct) in this region
        const vid_t seed = seeds[i];
        if (seed < start || seed >= start + size) continue;
        const int local = (int)(seed - start);
        sdist[local] = 0;
        qmin[0] = 0;
        atomicOr(bits + (local >> 5), 1u << (local & 31));
        queues[0][atomicAdd(&qlen[0], 1)] = (unsigned short)local;
    }
    __syncthreads();

    unsigned int* my_tail = tails + (long long)r * RG_TAIL_STRIDE;
    int* work = ctl + RG_CTL_WORK;
    const unsigned int lane = tid & 31u;

    if (tid < 32) {
        // ---- the mail warp -------------------------------------------------
        const long long in_begin = rg_inbox_begin(boundary_start, r);
        const unsigned int in_slots = (unsigned int)(rg_inbox_begin(boundary_start, r + 1) - in_begin);
        unsigned int head = 0, itail = 0, in_head = 0;
        bool counted = true;  // this block is counted busy in work
        unsigned int backoff = RG_MIN_BACKOFF;
        unsigned long long sent = 0, taken_total = 0, wakeups = 0;
        long long send_cycles = 0, take_cycles = 0;
        for (;;) {
            bool active = false;
            // The inbox tail, loaded together with the minima below (one round trip for both).
            unsigned int in_tail = lane == 0 ? load_volatile(my_tail) : 0;
            // 0. The floor: the least distance any block holds queued.
            dist_t least = dist_infinity();
            for (unsigned int i = lane; i < gridDim.x; i += 32) least = rg_min(least, load_volatile(minima + i));
            for (int offset = 16; offset > 0; offset >>= 1)
                least = rg_min(least, __shfl_xor_sync(SSSP_FULL_MASK, least, offset));
            if (lane == 0) store_volatile(&floor_s, least);
            // 1. Send what the relaxing warps published.
            const unsigned int ready = __shfl_sync(SSSP_FULL_MASK, load_volatile(&out_ready), 0);
#if RG_STATS
            const long long send_begin = clock64();
            const bool sending = head != ready;
#endif
            while (head != ready) {
                const unsigned int n = min(32u, ready - head);
                if (lane < n) {
                    const unsigned int slot = (head + lane) % RG_OUTBOX;
                    sent += rg_send(out_vertex[slot], out_dist[slot], dist, flag, work, tails, inbox, boundary_start,
                                    region_of, false);
                }
                head += n;
                active = true;
            }
            __syncwarp();
            if (lane == 0) store_volatile(&out_head, head);
#if RG_STATS
            if (sending && lane == 0) send_cycles += clock64() - send_begin;
#endif
            // 2. Take the messages to this region.
            in_tail = __shfl_sync(SSSP_FULL_MASK, in_tail, 0);
            if (in_tail != in_head) {
#if RG_STATS
                const long long take_begin = clock64();
#endif
                if (lane == 0 && !counted) {
                    atomicAdd(work, 1);
                    ++wakeups;
                }
                counted = true;
                for (unsigned int base = in_head; base != in_tail;) {
                    const unsigned int n = min(32u, in_tail - base);
                    bool push = false;
                    int local = 0;
                    if (lane < n) {
                        vid_t* slot = inbox + in_begin + (base + lane) % in_slots;
                        vid_t t;
                        while ((t = load_volatile(slot)) < 0) {  // reserved, not yet written
                        }
                        store_volatile(slot, (vid_t)-1);
                        atomicExch(flag + t, 0);
                        __threadfence();
                        local = (int)(t - start);
                        push = rg_lower(sdist, bits, &inc_min, local, load_volatile(dist + t));
                    }
                    // The incoming ring holds 2 cap slots: an entry is read before
                    // its vertex's bit is cleared, and at most cap bits are set, so
                    // a slot is rewritten only after its entry was read.
                    const unsigned int want = __ballot_sync(SSSP_FULL_MASK, push);
                    if (push) incoming[(itail + __popc(want & ((1u << lane) - 1u))) % ring] = (unsigned short)local;
                    itail += __popc(want);
                    base += n;
                }
                __threadfence_block();
                const unsigned int total = in_tail - in_head;
                in_head = in_tail;
                if (lane == 0) {
                    store_volatile(&inc_tail, itail);
                    atomicSub(work, (int)total);
                }
                taken_total += total;
                active = true;
#if RG_STATS
                if (lane == 0) take_cycles += clock64() - take_begin;
#endif
            }
            if (active) {
                backoff = RG_MIN_BACKOFF;
                continue;
            }
            // 3. Nothing moved: leave when the whole block is idle, end when all are.
            int verdict = 0;  // 1: end of the search
            if (lane == 0) {
                if (counted) {
                    // inc_head, then relax_idle, then out_ready: the relaxing warps write
                    // them in the other order (see their loop), so idle here is idle.
                    const bool idle = load_volatile(&inc_head) == itail && load_volatile(&relax_idle) &&
                                      load_volatile(&out_ready) == head;
                    verdict = idle ? 2 : 0;
                } else if (load_volatile(work) == 0) {
                    verdict = 1;
                }
            }
            verdict = __shfl_sync(SSSP_FULL_MASK, verdict, 0);
            if (verdict == 2) {
                __threadfence();  // every lane's work increments land before the decrement
                __syncwarp();
                if (lane == 0) atomicSub(work, 1);
                counted = false;
            }
            if (verdict == 1) {
                if (lane == 0) store_volatile(&done, 1);
                break;
            }
            if (!counted) {
                __nanosleep(backoff);
                if (backoff < RG_IDLE_BACKOFF) backoff *= 2;
            }
        }
        sent = warp_sum(sent);
        if (lane == 0) {
            atomicAdd(&s_stats[RG_STAT_SENT], sent);
            s_stats[RG_STAT_TAKEN] = taken_total;
            s_stats[RG_STAT_WAKEUPS] = wakeups;
            s_stats[RG_STAT_SEND_CYCLES] = send_cycles;
            s_stats[RG_STAT_TAKE_CYCLES] = take_cycles;
        }
    } else {
        // ---- the relaxing warps --------------------------------------------
        const int rt = tid - 32;
        int cur = 0;
        unsigned int lo = 0, hi = 0;
        unsigned long long iterations = 0, relaxed = 0, direct = 0;
        long long relax_cycles = 0, top_cycles = 0, wait_cycles = 0;
#if RG_STATS
        long long mark = 0;
#endif
        for (;;) {
            relax_barrier();
#if RG_STATS
            if (rt == 0) {
                const long long now = clock64();
                if (iterations) relax_cycles += now - mark;
                mark = now;
            }
#endif
            if (rt == 0) {
                qlen[cur ^ 1] = 0;
                qmin[cur ^ 1] = dist_infinity();
                if (!s_relaxed) __nanosleep(64);  // every queued vertex lay beyond the floor: let it move
                s_relaxed = 0;
                store_volatile(&inc_head, hi);  // entries [lo, hi) were relaxed
                store_volatile(&out_ready, out_tail);  // and their outbox entries written
                __threadfence_block();
                lo = hi;
                hi = load_volatile(&inc_tail);
                const int count = qlen[cur];
                int exit = 0;
                if (count == 0 && hi == lo) {
                    // Nothing queued: publish that before waiting, or the floor would
                    // stay at this block's last least distance and hold every other
                    // block's vertices beyond it forever.
                    store_volatile(minima + r, dist_infinity());
                    store_volatile(&relax_idle, 1);
#if RG_STATS
                    const long long wait_begin = clock64();
#endif
                    for (;;) {
                        hi = load_volatile(&inc_tail);
                        if (hi != lo) {
                            store_volatile(&relax_idle, 0);
                            __threadfence_block();
                            break;
                        }
                        if (load_volatile(&done)) {
                            exit = 1;
                            break;
                        }
                        __nanosleep(32);
                    }
#if RG_STATS
                    wait_cycles += clock64() - wait_begin;
                    mark += clock64() - wait_begin;
#endif
                }
                // Publish this block's least queued distance; the threshold follows the floor.
                const dist_t least = exit ? dist_infinity() : rg_min(qmin[cur], load_volatile(&inc_min));
                store_volatile(&inc_min, dist_infinity());
                store_volatile(minima + r, count == 0 && hi == lo ? dist_infinity() : least);
                const dist_t floor = rg_min(load_volatile(&floor_s), least);
                s_threshold = floor >= dist_infinity() - delta ? dist_infinity() : floor + delta;
                s_lo = lo;
                s_hi = hi;
                s_count = count;
                s_exit = exit;
            }
            relax_barrier();
#if RG_STATS
            if (rt == 0) {
                const long long now = clock64();
                top_cycles += now - mark;
                mark = now;
            }
#endif
            if (s_exit) break;
            lo = s_lo;
            hi = s_hi;
            const int count = s_count;
            const int total = count + (int)(hi - lo);
            unsigned short* next = queues[cur ^ 1];
            int* next_len = &qlen[cur ^ 1];
            dist_t* next_min = &qmin[cur ^ 1];
            const dist_t threshold = s_threshold;
            int relaxed_here = 0;
            // Up to RG_GROUP lanes per queued vertex while the queue is short enough
            // to give every vertex its group in one round: the group's first lane
            // takes the vertex off the queue, then the group relaxes its arcs
            // `group` at a time, so the iteration waits for one arc's chain of
            // shared-memory atomics instead of a whole out-list walked arc by arc.
            // A long queue keeps a lane per vertex (more vertices a round).
            int group = 1;
            while (group < RG_GROUP && total * group * 2 <= RG_RELAX) group *= 2;
            const int member = rt & (group - 1);
            const unsigned int group_mask = group == 32 ? SSSP_FULL_MASK
                : ((1u << (group & 31)) - 1u) << ((unsigned int)tid & 31u & ~(unsigned int)(group - 1));
            for (int i = rt / group; i < total; i += RG_RELAX / group) {
                int u = 0;
                dist_t du = 0;
                int take = 0;
                if (member == 0) {
                    u = i < count ? queues[cur][i] : incoming[(lo + (unsigned int)(i - count)) % ring];
                    if (load_volatile(sdist + u) > threshold) {  // beyond the bucket: stays queued
                        next[atomicAdd(next_len, 1)] = (unsigned short)u;
                        atomic_min_dist(next_min, load_volatile(sdist + u));
                    } else {
                        atomicAnd(bits + (u >> 5), ~(1u << (u & 31)));
                        __threadfence_block();
                        du = load_volatile(sdist + u);
                        take = 1;
                        ++relaxed;
                        ++relaxed_here;
                    }
                }
                if (group > 1) {
                    take = __shfl_sync(group_mask, take, 0, group);
                    u = __shfl_sync(group_mask, u, 0, group);
                    du = __shfl_sync(group_mask, du, 0, group);
                }
                if (!take) continue;
                const long long e_begin = shared_arcs ? soff[u] : indptr[start + u] - arc0;
                const long long e_end = shared_arcs ? soff[u + 1] : indptr[start + u + 1] - arc0;
                for (long long e = e_begin + member; e < e_end; e += group) {
                    const vid_t t = shared_arcs ? starget[e] : indices[arc0 + e];
#if SSSP_WEIGHT == SSSP_WEIGHT_NONE
                    const dist_t nd = du + 1;
#else
                    const dist_t nd = du + (dist_t)(shared_arcs ? sweight[e] : weights[arc0 + e]);
#endif
                    if (!(nd <= cutoff)) continue;
                    if (t >= start && t < start + size) {
                        const int local = (int)(t - start);
                        if (rg_lower(sdist, bits, next_min, local, nd)) next[atomicAdd(next_len, 1)] = (unsigned short)local;
                        continue;
                    }
                    // At most RG_RELAX lanes pass this check before reserving, so the
                    // outbox never holds more than RG_OUTBOX unsent entries.
                    if (load_volatile(&out_tail) - load_volatile(&out_head) + RG_RELAX < RG_OUTBOX) {
                        const unsigned int slot = atomicAdd(&out_tail, 1u) % RG_OUTBOX;
                        out_vertex[slot] = t;
                        out_dist[slot] = nd;
                    } else {
                        direct += rg_send(t, nd, dist, flag, work, tails, inbox, boundary_start, region_of, true);
                    }
                }
            }
            if (relaxed_here) atomicOr(&s_relaxed, 1);
            ++iterations;
            cur ^= 1;
        }
        if (relaxed) atomicAdd(&s_stats[RG_STAT_RELAXED], relaxed);
        if (direct) atomicAdd(&s_stats[RG_STAT_SENT], direct);
        if (rt == 0) {
            s_stats[RG_STAT_ITERATIONS] = iterations;
            s_stats[RG_STAT_RELAX_CYCLES] = relax_cycles;
            s_stats[RG_STAT_TOP_CYCLES] = top_cycles;
            s_stats[RG_STAT_WAIT_CYCLES] = wait_cycles;
        }
    }
    __syncthreads();
    for (int i = tid; i < size; i += RG_BLOCK) dist[start + i] = sdist[i];
    if (tid == 0) {
        atomicAdd(stats + RG_STAT_ITERATIONS, s_stats[RG_STAT_ITERATIONS]);
        atomicAdd(stats + RG_STAT_RELAXED, s_stats[RG_STAT_RELAXED]);
        atomicAdd(stats + RG_STAT_SENT, s_stats[RG_STAT_SENT]);
        atomicAdd(stats + RG_STAT_TAKEN, s_stats[RG_STAT_TAKEN]);
        atomicAdd(stats + RG_STAT_WAKEUPS, s_stats[RG_STAT_WAKEUPS]);
        atomicMax(stats + RG_STAT_MOST_ITERATIONS, s_stats[RG_STAT_ITERATIONS]);
#if RG_STATS
        for (int w = RG_STAT_RELAX_CYCLES; w <= RG_STAT_TAKE_CYCLES; ++w) atomicAdd(stats + w, s_stats[w]);
        atomicMax(stats + RG_STAT_BUSIEST_CYCLES, s_stats[RG_STAT_RELAX_CYCLES] + s_stats[RG_STAT_TOP_CYCLES]);
        atomicMax(stats + RG_STAT_KERNEL_CYCLES, (unsigned long long)(clock64() - kernel_begin));
#endif
    }
}

// A search's reset in one launch (RegionWorkspace.reset; seven fills and a
// store cost ~66 us of a 1.8 ms amsterdam search): distances and the blocks'
// published minima to infinity, inboxes to -1 (free), vertex flags, inbox
// tails, statistics and control words to zero, the work count to `regions`
// (every block starts busy).
extern "C" __global__ void region_reset(dist_t* dist, int* flag, long long n, dist_t* minima, int regions,
                                        vid_t* inbox, long long inbox_slots, unsigned int* tails, int* ctl,
                                        int ctl_words, unsigned long long* stats) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long i = first; i < n; i += stride) {
        dist[i] = dist_infinity();
        flag[i] = 0;
    }
    for (long long i = first; i < inbox_slots; i += stride) inbox[i] = (vid_t)-1;
    for (long long i = first; i < (long long)regions * RG_TAIL_STRIDE; i += stride) tails[i] = 0u;
    for (long long i = first; i < regions; i += stride) minima[i] = dist_infinity();
    for (long long i = first; i < ctl_words; i += stride) ctl[i] = i == RG_CTL_WORK ? regions : 0;
    for (long long i = first; i < RG_STAT_WORDS; i += stride) stats[i] = 0ull;
}
