// Asynchronous region SSSP for road networks: one persistent block per
// region of the graph, the region's distances (and, when they fit, its arcs)
// in shared memory.
//
// Why (docs/decisions/cuda-sssp.md, "The dependent-hop floor"): a road's
// shortest-path tree is 500-930 hops deep, and every hop is a dependent
// update. In global memory a hop costs two dependent L2 round trips (~1 us
// on an H200), which puts the floor of any global-memory search above the
// 3x-GAP target on amsterdam. Here a hop inside a region costs shared-memory
// latency and a block barrier; only the 14-30 region crossings of a shortest
// path pay a global round trip.
//
// The host orders the vertices so that each region is a contiguous range
// (recursive level-structure bisection, wavefront/graph/regions.py), one
// region per block. A block runs Bellman-Ford on its own queue of region
// vertices, iteration after iteration, without waiting for any other block:
//   * an arc inside the region lowers the shared distance; an improved
//     target joins the next iteration's queue (a bit per vertex keeps it
//     there once);
//   * an arc leaving the region lowers the global distance of its target
//     (a boundary vertex of another region); if it improved, the target's
//     message flag goes 0 -> 1, the work count grows by one, and the owner's
//     dirty word is set;
//   * a block whose dirty word is set clears it, then takes every flagged
//     boundary vertex of its region: flag 1 -> 0, read the global distance,
//     lower the shared one, queue the vertex.
// Termination: `work` counts busy blocks plus flags set and not yet taken.
// It starts at the number of blocks; a block with an empty queue leaves
// (work -= 1 plus the flags it took), waits for its dirty word (work += 1,
// busy again) or for work == 0 (the search is over: no block is busy and no
// message is in flight). A producer raises work before it sets the dirty
// word and while its own block is still counted busy, so work never reads 0
// while an update is pending.
// Fences: the producer's atomicMin on dist comes before its flag exchange,
// the consumer's flag exchange before its read of dist, each with a
// __threadfence between, so an update that the consumer's read misses finds
// the flag cleared and sends a new message.
// At the end every block writes its shared distances to global memory
// (a boundary vertex's shared distance is never above its global one then:
// every message was taken).
#include "persistent.cuh"
#include "sssp_common.cuh"

// Threads per block (a tuning choice; the launch uses the same value).
#ifndef RG_BLOCK
#define RG_BLOCK 128
#endif
// An idle block polls its dirty word and the work count with exponential
// back-off from RG_MIN_BACKOFF up to RG_IDLE_BACKOFF ns.
#ifndef RG_MIN_BACKOFF
#define RG_MIN_BACKOFF 32u
#endif
#ifndef RG_IDLE_BACKOFF
#define RG_IDLE_BACKOFF 256u
#endif
// ABI (wavefront.backends.cuda.abi): ints between two regions' dirty words
// (one 128-byte line each), the control words, the statistics words.
#ifndef RG_DIRTY_STRIDE
#define RG_DIRTY_STRIDE 32
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
#define RG_STAT_WAKEUPS 4     // idle blocks woken by their dirty word
#endif
#ifndef RG_STAT_MOST_ITERATIONS
#define RG_STAT_MOST_ITERATIONS 5  // the most iterations one block ran
#endif
#ifndef RG_STAT_WORDS
#define RG_STAT_WORDS 8
#endif

template <typename T>
__device__ __forceinline__ T rg_load_volatile(const T* p) {
    return *reinterpret_cast<const volatile T*>(p);
}

// Shared-memory carve-out, in this order, each piece 16-byte aligned (the
// host's wavefront.backends.cuda.sssp_regions.shared_bytes mirrors it):
// distances [cap], queue bits [cap / 32], two queues [cap] of 16-bit local
// ids, then with arcs in shared memory: offsets [cap + 1], targets
// [arc_cap], weights [arc_cap] (none for unweighted graphs).
__device__ __forceinline__ size_t rg_align(size_t x) { return (x + 15) & ~size_t(15); }

// Lower a local vertex's shared distance to d; queue it if it improved and
// is not queued yet.
__device__ __forceinline__ void rg_lower(dist_t* sdist, unsigned int* bits, unsigned short* queue,
                                         int* qlen, int local, dist_t d) {
    if (!(d < rg_load_volatile(sdist + local))) return;
    const dist_t before = atomic_min_dist(sdist + local, d);
    if (!(d < before)) return;
    const unsigned int mask = 1u << (local & 31);
    if (atomicOr(bits + (local >> 5), mask) & mask) return;
    queue[atomicAdd(qlen, 1)] = (unsigned short)local;
}

extern "C" __global__ void __launch_bounds__(RG_BLOCK, 1)
region_sssp(const eid_t* __restrict__ indptr, const vid_t* __restrict__ indices,
            const weight_t* __restrict__ weights, const vid_t* __restrict__ region_start,
            const int* __restrict__ region_of, const long long* __restrict__ boundary_start,
            const vid_t* __restrict__ boundary, dist_t* dist, int* flag, int* dirty, int* ctl,
            const vid_t* __restrict__ seeds, long long seed_count, dist_t cutoff, int cap, long long arc_cap, unsigned long long* stats) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int qlen[2];
    __shared__ int s_dirty, s_done, s_taken;

    const int tid = threadIdx.x;
    const int r = blockIdx.x;
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
    if (tid == 0) {
        qlen[0] = 0;
        qlen[1] = 0;
        s_dirty = 1;  // take any message that arrived before this block started
        s_done = 0;
        s_taken = 0;
    }
    __syncthreads();
    for (long long i = tid; i < seed_count; i += RG_BLOCK) {  // the sources (distinct) in this region
        const vid_t seed = seeds[i];
        if (seed < start || seed >= start + size) continue;
        const int local = (int)(seed - start);
        sdist[local] = 0;
        atomicOr(bits + (local >> 5), 1u << (local & 31));
        queues[0][atomicAdd(&qlen[0], 1)] = (unsigned short)local;
    }
    __syncthreads();

    int* my_dirty = dirty + (long long)r * RG_DIRTY_STRIDE;
    int* work = ctl + RG_CTL_WORK;
    const long long b_begin = boundary_start[r], b_end = boundary_start[r + 1];
    unsigned long long iterations = 0, relaxed = 0, sent = 0, wakeups = 0, taken_total = 0;
    int cur = 0;
    for (;;) {
        // Two barriers an iteration: after the top one every thread has read
        // the previous count, so the queue it came from can be emptied; after
        // the middle one the messages are in and the count is final.
        __syncthreads();
        if (tid == 0) qlen[cur ^ 1] = 0;
        // 1. Messages: every flagged boundary vertex of this region.
        if (s_dirty) {
            if (tid == 0) {
                atomicExch(my_dirty, 0);
                __threadfence();
            }
            __syncthreads();
            int taken = 0;
            for (long long j = b_begin + tid; j < b_end; j += RG_BLOCK) {
                const vid_t b = boundary[j];
                if (rg_load_volatile(flag + b) == 0 || atomicExch(flag + b, 0) == 0) continue;
                __threadfence();
                ++taken;
                rg_lower(sdist, bits, queues[cur], &qlen[cur], (int)(b - start), rg_load_volatile(dist + b));
            }
            if (taken) atomicAdd(&s_taken, taken);
        }
        __syncthreads();
        const int count = qlen[cur];
        if (count == 0) {
            // 2a. Nothing to relax: leave, then wait for a message or the end.
            if (tid == 0) {
                atomicSub(work, 1 + s_taken);
                taken_total += s_taken;
                s_taken = 0;
                unsigned int backoff = RG_MIN_BACKOFF;
                for (;;) {
                    if (rg_load_volatile(my_dirty)) {
                        atomicAdd(work, 1);
                        s_dirty = 1;
                        ++wakeups;
                        break;
                    }
                    if (rg_load_volatile(work) == 0) {
                        s_done = 1;
                        break;
                    }
                    __nanosleep(backoff);
                    if (backoff < RG_IDLE_BACKOFF) backoff *= 2;
                }
            }
            __syncthreads();
            if (s_done) break;
            continue;
        }
        // 2b. Relax the queue into the other one.
        int dirty_seen = 0;
        if (tid == 0) {
            dirty_seen = rg_load_volatile(my_dirty);  // used after the relaxations: its latency overlaps them
            if (s_taken) {
                atomicSub(work, s_taken);
                taken_total += s_taken;
                s_taken = 0;
            }
        }
        unsigned short* next = queues[cur ^ 1];
        int* next_len = &qlen[cur ^ 1];
        for (int i = tid; i < count; i += RG_BLOCK) {
            const int u = queues[cur][i];
            atomicAnd(bits + (u >> 5), ~(1u << (u & 31)));
            __threadfence_block();
            const dist_t du = rg_load_volatile(sdist + u);
            ++relaxed;
            const long long e_begin = shared_arcs ? soff[u] : indptr[start + u] - arc0;
            const long long e_end = shared_arcs ? soff[u + 1] : indptr[start + u + 1] - arc0;
            for (long long e = e_begin; e < e_end; ++e) {
                const vid_t t = shared_arcs ? starget[e] : indices[arc0 + e];
#if SSSP_WEIGHT == SSSP_WEIGHT_NONE
                const dist_t nd = du + 1;
#else
                const dist_t nd = du + (dist_t)(shared_arcs ? sweight[e] : weights[arc0 + e]);
#endif
                if (!(nd <= cutoff)) continue;
                if (t >= start && t < start + size) {
                    rg_lower(sdist, bits, next, next_len, (int)(t - start), nd);
                    continue;
                }
                if (!(nd < rg_load_volatile(dist + t))) continue;
                const dist_t before = atomic_min_dist(dist + t, nd);
                if (!(nd < before)) continue;
                __threadfence();
                if (atomicExch(flag + t, 1) != 0) continue;  // a message is already waiting
                atomicAdd(work, 1);
                __threadfence();
                atomicExch(dirty + (long long)region_of[t] * RG_DIRTY_STRIDE, 1);
                ++sent;
            }
        }
        ++iterations;
        if (tid == 0) s_dirty = dirty_seen;
        cur ^= 1;
    }
    for (int i = tid; i < size; i += RG_BLOCK) dist[start + i] = sdist[i];
    // Statistics: one add per block and counter.
    __shared__ unsigned long long s_stats[4];
    if (tid < 4) s_stats[tid] = 0;
    __syncthreads();
    if (relaxed) atomicAdd(&s_stats[1], relaxed);
    if (sent) atomicAdd(&s_stats[2], sent);
    __syncthreads();
    if (tid == 0) {
        atomicAdd(stats + RG_STAT_ITERATIONS, iterations);
        atomicAdd(stats + RG_STAT_RELAXED, s_stats[1]);
        atomicAdd(stats + RG_STAT_SENT, s_stats[2]);
        atomicAdd(stats + RG_STAT_TAKEN, taken_total);
        atomicAdd(stats + RG_STAT_WAKEUPS, wakeups);
        atomicMax(stats + RG_STAT_MOST_ITERATIONS, iterations);
    }
}
