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
// Within a level the block balances edges, not vertices: a block-wide scan
// of the frontier's out-degrees gives each vertex its first edge slot, and
// thread t takes slots t, t + SB_THREADS, ..., finding each slot's vertex by
// a binary search in shared memory (a frontier of two hubs is spread over
// all 1024 threads). Claims go through the visited bitmap, as in the
// edge-balanced step, and appends are warp-aggregated.
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
    __shared__ unsigned long long degree_total;
    __shared__ counter_t flush_base;

    word_t* seen = visited;
    if (shared_words > 0) {
        for (long long k = threadIdx.x; k < shared_words; k += SB_THREADS) shared_visited[k] = visited[k];
        seen = shared_visited;
    }
    for (long long k = threadIdx.x; k < count; k += SB_THREADS) queue[0][k] = frontier[k];
    if (threadIdx.x == 0) {
        level_stats[0] = (long long)global_timer_ns();  // start time
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
                unsigned int position = first + __popc(ballot & ((1u << lane) - 1u));
                if (won) {
                    if (position < SB_QUEUE_CAPACITY)
                        queue[current ^ 1][position] = w;
                    else
                        next[atomicAdd(&counters[CNT_NEXT_COUNT], 1ULL)] = w;
                }
            }
        }
        __syncthreads();
        unsigned int found = *tail;
        if (threadIdx.x == 0) {
            long long* stats = level_stats + 1 + (long long)SB_STATS_FIELDS * (level - first_level);
            stats[0] = size;
            stats[1] = slots;
            stats[2] = (long long)global_timer_ns();
        }
        if (found > SB_QUEUE_CAPACITY) {
            levels_run = level - first_level + 1;
            out_queue = current ^ 1;
            out_count = found;
            kept = SB_QUEUE_CAPACITY;
            break;
        }
        current ^= 1;
        size = found;
    }

    // Exit: write the visited bitmap back, hand the frontier over, report.
    if (shared_words > 0)
        for (long long k = threadIdx.x; k < shared_words; k += SB_THREADS) visited[k] = shared_visited[k];
    if (threadIdx.x == 0) flush_base = kept ? atomicAdd(&counters[CNT_NEXT_COUNT], (counter_t)kept) : 0;
    __syncthreads();
    for (unsigned int k = threadIdx.x; k < kept; k += SB_THREADS) next[flush_base + k] = queue[out_queue][k];
    // The returned frontier's exact out-degree sum (the scan capped degrees
    // at edge_limit + 1 to stay in 32 bits); the host sizes its next step by it.
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
