// Single-block multi-level top-down BFS (PMPP ch. 15.7, seeds 003/004 fig.
// 15.16): one thread block runs consecutive small-frontier levels without
// returning to the host, keeping the frontier in a block-level queue in
// shared memory and separating levels with __syncthreads(). It hands the
// frontier back in the global queue `next` when the frontier empties, when a
// level's out-degree sum exceeds `edge_limit` (a level worth a full grid; the
// level is then left for the host), past `max_level`, or when a level's new
// vertices overflow the block queue.
// High-diameter graphs (road networks: hundreds of levels of a few hundred
// vertices) then cost one launch instead of one launch and one host round
// trip per level.
//
// single_block_levels balances edges, not vertices: a block-wide scan of the
// frontier's out-degrees gives each vertex its first edge slot, and thread t
// takes slots t, t + SB_THREADS, ..., finding each slot's vertex by a binary
// search in shared memory (a frontier of two hubs is spread over all 1024
// threads). Claims go through the visited bitmap, as in the edge-balanced
// step, and appends are warp-aggregated.
//
// single_block_levels_vertices balances vertices, for graphs whose
// out-degrees are all at most SB_VERTEX_DEGREE (roads, grids; the launcher
// picks it from the graph's maximum out-degree): each thread takes whole
// frontier vertices, reads their rows in one round trip, issues every
// neighbour load before its first claim, and appends its winners through a
// warp scan: no block scan, no binary search, one barrier per level. Both
// kernels share the prologue, the exit and the level rules, so they run the
// same levels and write the same trace rows; parents may differ (any BFS
// tree is valid).
//
// When the whole visited bitmap fits (`shared_words` > 0) the block keeps it
// in dynamic shared memory for the launch, so a claim is a shared-memory
// atomic instead of two dependent L2 round trips; it is written back on exit.
//
// level_stats[0] is the start time; then per level run it records (frontier
// vertices, edges examined, end time), times in ns of the GPU's global timer.
// On exit counters hold the returned frontier's size and out-degree sum and
// the number of levels run (0 when the first level was left for the host).
#include "common.cuh"
#include "persistent.cuh"

#ifndef SB_THREADS
#define SB_THREADS 1024
#endif
#ifndef SB_QUEUE_CAPACITY
#define SB_QUEUE_CAPACITY (WF_INDEX64 ? 2048 : 3072)
#endif
// Per level run: frontier vertices, edges examined, end time.
#ifndef SB_STATS_FIELDS
#define SB_STATS_FIELDS 3
#endif
#define SB_ITEMS ((SB_QUEUE_CAPACITY + SB_THREADS - 1) / SB_THREADS)
// The vertex-balanced kernel's largest out-degree (BFSTuning's
// single_block_vertex_degree): each thread holds SB_ITEMS * SB_VERTEX_DEGREE
// neighbours in registers, one bit each in a 32-bit mask.
#ifndef SB_VERTEX_DEGREE
#define SB_VERTEX_DEGREE 8
#endif
static_assert(SB_ITEMS * SB_VERTEX_DEGREE <= 32, "a thread's neighbours must fit one 32-bit mask");

// -- shared by both kernels ------------------------------------------------------------

// Prologue: the visited bitmap into shared memory (when it fits), the
// frontier into the block queue, the start time. The caller syncs. Returns
// the bitmap claims go through.
__device__ __forceinline__ word_t* sb_start(const vid_t* frontier, long long count, long long shared_words,
                                            word_t* visited, word_t* shared_visited, vid_t* queue,
                                            long long* level_stats) {
    word_t* seen = visited;
    if (shared_words > 0) {
        for (long long k = threadIdx.x; k < shared_words; k += SB_THREADS) shared_visited[k] = visited[k];
        seen = shared_visited;
    }
    for (long long k = threadIdx.x; k < count; k += SB_THREADS) queue[k] = frontier[k];
    if (threadIdx.x == 0) level_stats[0] = (long long)global_timer_ns();  // start time
    return seen;
}

// A new vertex at `position` of the block queue, or past its end in `next`.
__device__ __forceinline__ void sb_push(vid_t w, unsigned int position, vid_t* queue_out, vid_t* next,
                                        counter_t* counters) {
    if (position < SB_QUEUE_CAPACITY)
        queue_out[position] = w;
    else
        next[atomicAdd(&counters[CNT_NEXT_COUNT], 1ULL)] = w;
}

// Thread 0, after the level's barrier: its trace row.
__device__ __forceinline__ void sb_level_row(long long* level_stats, int first_level, int level,
                                             unsigned int size, unsigned int edges) {
    long long* stats = level_stats + 1 + (long long)SB_STATS_FIELDS * (level - first_level);
    stats[0] = size;
    stats[1] = edges;
    stats[2] = (long long)global_timer_ns();
}

// After a level's barrier: whether its `found` new vertices overflowed the
// block queue; if so, what goes back (the first SB_QUEUE_CAPACITY of them in
// the queue the level wrote, the rest already in `next`).
__device__ __forceinline__ bool sb_overflowed(unsigned int found, int level, int first_level, int current,
                                              int& levels_run, int& out_queue, unsigned int& out_count,
                                              unsigned int& kept) {
    if (found <= SB_QUEUE_CAPACITY) return false;
    levels_run = level - first_level + 1;
    out_queue = current ^ 1;
    out_count = found;
    kept = SB_QUEUE_CAPACITY;
    return true;
}

// Exit: write the visited bitmap back, hand the frontier over (`out_count`
// vertices, the first `kept` of them in `queue`, the rest, on overflow,
// already in `next`), report. Every thread calls it.
__device__ __forceinline__ void sb_finish(const vid_t* queue, unsigned int kept, unsigned int out_count,
                                          int levels_run, long long shared_words, const word_t* shared_visited,
                                          word_t* visited, const eid_t* indptr, vid_t* next,
                                          counter_t* counters) {
    __shared__ unsigned long long degree_total;
    __shared__ counter_t flush_base;
    if (shared_words > 0)
        for (long long k = threadIdx.x; k < shared_words; k += SB_THREADS) visited[k] = shared_visited[k];
    if (threadIdx.x == 0) flush_base = kept ? atomicAdd(&counters[CNT_NEXT_COUNT], (counter_t)kept) : 0;
    __syncthreads();
    for (unsigned int k = threadIdx.x; k < kept; k += SB_THREADS) next[flush_base + k] = queue[k];
    // The returned frontier's exact out-degree sum (the edge kernel's scan
    // capped degrees at edge_limit + 1 to stay in 32 bits); the host sizes
    // its next step by it.
    if (threadIdx.x == 0) degree_total = 0;
    __syncthreads();  // also makes the block's writes to `next` visible to all its threads
    long long sum = 0;
    for (unsigned int k = threadIdx.x; k < out_count; k += SB_THREADS) sum += vertex_degree(indptr, next[k]);
    sum = warp_sum(sum);
    if ((threadIdx.x & 31) == 0 && sum) atomicAdd(&degree_total, (unsigned long long)sum);
    __syncthreads();
    if (threadIdx.x == 0) {
        counters[CNT_NEXT_DEGREE] = degree_total;
        counters[CNT_LEVELS_RUN] = levels_run;
    }
}

// -- edge-balanced ---------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(SB_THREADS)
single_block_levels(const vid_t* frontier, long long count, int first_level, int max_level,
                    long long edge_limit, long long shared_words, const eid_t* indptr,
                    const vid_t* indices, int* levels, long long* parents, word_t* visited,
                    vid_t* next, counter_t* counters, long long* level_stats) {
    extern __shared__ word_t shared_visited[];
    __shared__ vid_t queue[2][SB_QUEUE_CAPACITY];
    // A level runs only while its edges <= edge_limit <= 2^20; degrees are capped
    // at edge_limit + 1 in the scan, so 3072 of them still sum within 32 bits.
    __shared__ unsigned int first_slot[SB_QUEUE_CAPACITY];
    __shared__ unsigned int warp_sums[32];
    __shared__ unsigned int total_slots;
    __shared__ unsigned int tails[2];  // new-vertex count, double-buffered by level parity

    word_t* seen = sb_start(frontier, count, shared_words, visited, shared_visited, queue[0], level_stats);
    if (threadIdx.x == 0) {
        tails[0] = 0;
        tails[1] = 0;
    }
    __syncthreads();

    int current = 0;
    unsigned int size = (unsigned int)count;
    // What goes back to the host: `out_count` vertices, the first `kept` of
    // them in queue[out_queue] (the rest, on overflow, already in `next`).
    int levels_run, out_queue;
    unsigned int out_count, kept;
    for (int level = first_level;; ++level) {
        // Edge slots: thread t owns frontier items [t*SB_ITEMS, (t+1)*SB_ITEMS).
        unsigned int item0 = threadIdx.x * SB_ITEMS;
        unsigned int degree[SB_ITEMS];
        unsigned int mine = 0;
#pragma unroll
        for (int j = 0; j < SB_ITEMS; ++j) {
            unsigned int k = item0 + j;
            degree[j] = (k < size) ? (unsigned int)min(vertex_degree(indptr, queue[current][k]), (eid_t)edge_limit + 1) : 0u;
            mine += degree[j];
        }
        unsigned int offset = block_exclusive_scan<SB_THREADS>(mine, warp_sums, &total_slots);
#pragma unroll
        for (int j = 0; j < SB_ITEMS; ++j) {
            unsigned int k = item0 + j;
            if (k < size) first_slot[k] = offset;
            offset += degree[j];
        }
        __syncthreads();
        unsigned int slots = total_slots;
        if (size == 0 || (long long)slots > edge_limit || level > max_level) {
            levels_run = level - first_level;
            out_queue = current;
            out_count = kept = size;
            break;
        }

        // Every thread has read the other parity's count by now (it was read
        // before this level's scan), so it can be cleared for the next level.
        unsigned int* tail = &tails[level & 1];
        if (threadIdx.x == 0) tails[(level + 1) & 1] = 0;
        for (unsigned int base = 0; base < slots; base += SB_THREADS) {
            unsigned int slot = base + threadIdx.x;
            bool won = false;
            vid_t w = 0;
            if (slot < slots) {
                unsigned int lo = 0, hi = size;  // largest k with first_slot[k] <= slot
                while (hi - lo > 1) {
                    unsigned int mid = (lo + hi) >> 1;
                    if (first_slot[mid] <= slot) lo = mid; else hi = mid;
                }
                vid_t u = queue[current][lo];
                w = indices[indptr[u] + (slot - first_slot[lo])];
                if (!bit_test(seen, w) && bit_claim(seen, w)) {
                    record_visit(levels, parents, w, level, u);
                    won = true;
                }
            }
            // Warp-aggregated append to the block queue; overflow goes global.
            unsigned int ballot = __ballot_sync(WF_FULL_MASK, won);
            if (ballot) {
                int lane = threadIdx.x & 31;
                unsigned int first = 0;
                if (lane == 0) first = atomicAdd(tail, (unsigned int)__popc(ballot));
                first = __shfl_sync(WF_FULL_MASK, first, 0);
                if (won) sb_push(w, first + __popc(ballot & ((1u << lane) - 1u)), queue[current ^ 1], next, counters);
            }
        }
        __syncthreads();
        unsigned int found = *tail;
        if (threadIdx.x == 0) sb_level_row(level_stats, first_level, level, size, slots);
        if (sb_overflowed(found, level, first_level, current, levels_run, out_queue, out_count, kept)) break;
        current ^= 1;
        size = found;
    }
    sb_finish(queue[out_queue], kept, out_count, levels_run, shared_words, shared_visited, visited, indptr, next,
              counters);
}

// -- vertex-balanced -------------------------------------------------------------------

// The same arguments, plus the graph's maximum out-degree (<= SB_VERTEX_DEGREE,
// the launcher's check): a level of `size` vertices has at most size *
// max_degree edges, so the exact edge count that the edge_limit rule needs
// costs a barrier only where that bound exceeds the limit.
extern "C" __global__ void __launch_bounds__(SB_THREADS)
single_block_levels_vertices(const vid_t* frontier, long long count, int first_level, int max_level,
                             long long edge_limit, long long shared_words, const eid_t* indptr,
                             const vid_t* indices, int* levels, long long* parents, word_t* visited,
                             vid_t* next, counter_t* counters, long long* level_stats, int max_degree) {
    extern __shared__ word_t shared_visited[];
    __shared__ vid_t queue[2][SB_QUEUE_CAPACITY];
    // New vertices and edges examined of level L in [L mod 3]: with one
    // barrier per level, thread 0 clears level L + 1's pair during level L,
    // when every thread has read level L - 2's (before the barrier ending L - 1).
    __shared__ unsigned int tails[3];
    __shared__ unsigned int edges[3];

    word_t* seen = sb_start(frontier, count, shared_words, visited, shared_visited, queue[0], level_stats);
    if (threadIdx.x < 3) {
        tails[threadIdx.x] = 0;
        edges[threadIdx.x] = 0;
    }
    __syncthreads();

    const int lane = threadIdx.x & 31;
    // Items are strided (thread t takes t, t + SB_THREADS, ...), so a frontier
    // of a few hundred vertices is one vertex per thread.
    const unsigned int warp_first = threadIdx.x & ~31u;
    int current = 0, at = 0;  // at = (level - first_level) mod 3
    unsigned int size = (unsigned int)count;
    int levels_run, out_queue;
    unsigned int out_count, kept;
    for (int level = first_level;; ++level) {
        const int after = at == 2 ? 0 : at + 1;
        // This thread's vertices and their rows: every indptr load in flight at once.
        vid_t u[SB_ITEMS];
        eid_t row[SB_ITEMS];
        unsigned int degree[SB_ITEMS];
        unsigned int mine = 0;
#pragma unroll
        for (int j = 0; j < SB_ITEMS; ++j) {
            unsigned int k = threadIdx.x + j * SB_THREADS;
            u[j] = 0;
            row[j] = 0;
            degree[j] = 0;
            if (k < size) {
                u[j] = queue[current][k];
                row[j] = indptr[u[j]];
                degree[j] = (unsigned int)(indptr[u[j] + 1] - row[j]);
            }
        }
#pragma unroll
        for (int j = 0; j < SB_ITEMS; ++j) mine += degree[j];

        // The edge_limit rule, exactly as the edge kernel applies it. The
        // branch is uniform (size and max_degree are), so is its barrier.
        bool stop = size == 0 || level > max_level;
        bool counted = false;
        if (!stop && (long long)size * max_degree > edge_limit) {
            unsigned int sum = (unsigned int)warp_sum(mine);
            if (lane == 0 && sum) atomicAdd(&edges[at], sum);
            __syncthreads();
            stop = (long long)edges[at] > edge_limit;
            counted = true;
        }
        if (stop) {
            levels_run = level - first_level;
            out_queue = current;
            out_count = kept = size;
            break;
        }
        if (threadIdx.x == 0) {
            tails[after] = 0;
            edges[after] = 0;
        }

        if (warp_first < size) {  // warps past the frontier go straight to the barrier
            // Every neighbour load before any claim: the claims' atomics
            // would otherwise keep the loads one L2 round trip apart.
            vid_t w[SB_ITEMS][SB_VERTEX_DEGREE];
#pragma unroll
            for (int j = 0; j < SB_ITEMS; ++j)
#pragma unroll
                for (int e = 0; e < SB_VERTEX_DEGREE; ++e)
                    w[j][e] = (e < degree[j]) ? indices[row[j] + e] : 0;
            // Test every bit (independent loads), then claim the unvisited ones.
            unsigned int open = 0;
#pragma unroll
            for (int j = 0; j < SB_ITEMS; ++j)
#pragma unroll
                for (int e = 0; e < SB_VERTEX_DEGREE; ++e)
                    if (e < degree[j] && !bit_test(seen, w[j][e])) open |= 1u << (j * SB_VERTEX_DEGREE + e);
            unsigned int wins = 0;
            if (open) {
#pragma unroll
                for (int j = 0; j < SB_ITEMS; ++j)
#pragma unroll
                    for (int e = 0; e < SB_VERTEX_DEGREE; ++e) {
                        const unsigned int bit = 1u << (j * SB_VERTEX_DEGREE + e);
                        if ((open & bit) && bit_claim(seen, w[j][e])) {
                            record_visit(levels, parents, w[j][e], level, u[j]);
                            wins |= bit;
                        }
                    }
            }
            // Append: one inclusive warp scan of (edges << 32 | wins), one
            // shared atomic per warp for each count.
            const unsigned int won = __popc(wins);
            const unsigned long long mine_pair = ((unsigned long long)(counted ? 0u : mine) << 32) | won;
            unsigned long long inclusive = mine_pair;
#pragma unroll
            for (int offset = 1; offset < 32; offset <<= 1) {
                unsigned long long up = __shfl_up_sync(WF_FULL_MASK, inclusive, offset);
                if (lane >= offset) inclusive += up;
            }
            unsigned int first = 0;
            if (lane == 31) {
                const unsigned int warp_won = (unsigned int)inclusive, warp_edges = (unsigned int)(inclusive >> 32);
                if (warp_won) first = atomicAdd(&tails[at], warp_won);
                if (warp_edges) atomicAdd(&edges[at], warp_edges);
            }
            first = __shfl_sync(WF_FULL_MASK, first, 31);
            if (wins) {
                unsigned int position = first + (unsigned int)inclusive - won;
#pragma unroll
                for (int j = 0; j < SB_ITEMS; ++j)
#pragma unroll
                    for (int e = 0; e < SB_VERTEX_DEGREE; ++e)
                        if (wins & (1u << (j * SB_VERTEX_DEGREE + e)))
                            sb_push(w[j][e], position++, queue[current ^ 1], next, counters);
            }
        }
        __syncthreads();
        unsigned int found = tails[at];
        if (threadIdx.x == 0) sb_level_row(level_stats, first_level, level, size, edges[at]);
        if (sb_overflowed(found, level, first_level, current, levels_run, out_queue, out_count, kept)) break;
        current ^= 1;
        size = found;
        at = after;
    }
    sb_finish(queue[out_queue], kept, out_count, levels_run, shared_words, shared_visited, visited, indptr, next,
              counters);
}
