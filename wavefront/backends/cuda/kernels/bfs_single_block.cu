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
// single_block_levels_padded balances vertices, for graphs of low out-degree
// (roads, grids; BFSTuning.single_block_balance "auto" picks it from the
// graph's maximum out-degree): a few lanes take each frontier vertex and read
// its row from a padded copy of the adjacency in one coalesced load (no row
// start first), then claim and append through warp ballots: no block scan,
// no binary search, one dependent L2 trip and one barrier per level. Both
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
static_assert((SB_THREADS & (SB_THREADS - 1)) == 0, "the padded kernel's passes are shifts");

// -- shared by both kernels ------------------------------------------------------------

// The visited bitmap in dynamic shared memory (`shared_words` > 0).
extern __shared__ word_t sb_shared_visited[];

// Prologue: the visited bitmap into shared memory (when it fits), the
// frontier into the block queue, the start time. The caller syncs. Returns
// whether claims go through the shared copy.
__device__ __forceinline__ bool sb_start(const vid_t* frontier, long long count, long long shared_words,
                                         const word_t* visited, word_t* shared_visited, vid_t* queue,
                                         long long* level_stats) {
    for (long long k = threadIdx.x; k < shared_words; k += SB_THREADS) shared_visited[k] = visited[k];
    for (long long k = threadIdx.x; k < count; k += SB_THREADS) queue[k] = frontier[k];
    if (threadIdx.x == 0) level_stats[0] = (long long)global_timer_ns();  // start time
    return shared_words > 0;
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
    __shared__ vid_t queue[2][SB_QUEUE_CAPACITY];
    // A level runs only while its edges <= edge_limit <= 2^20; degrees are capped
    // at edge_limit + 1 in the scan, so 3072 of them still sum within 32 bits.
    __shared__ unsigned int first_slot[SB_QUEUE_CAPACITY];
    __shared__ unsigned int warp_sums[32];
    __shared__ unsigned int total_slots;
    __shared__ unsigned int tails[2];  // new-vertex count, double-buffered by level parity

    const bool in_shared = sb_start(frontier, count, shared_words, visited, sb_shared_visited, queue[0], level_stats);
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
                // The bitmap named in each branch: shared-memory claims
                // compile to shared loads and atomics.
                const bool claimed = in_shared ? !bit_test(sb_shared_visited, w) && bit_claim(sb_shared_visited, w)
                                               : !bit_test(visited, w) && bit_claim(visited, w);
                if (claimed) {
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
    sb_finish(queue[out_queue], kept, out_count, levels_run, shared_words, sb_shared_visited, visited, indptr, next,
              counters);
}

// -- padded rows -----------------------------------------------------------------------

// Vertex-balanced, on a padded copy of the adjacency
// (device_graph.padded_rows): each vertex's row has W = 1 << width_log2 >=
// its out-degree slots (-1 where it has fewer neighbours), L = 1 <<
// lanes_log2 lanes share a vertex, and lane l holds the K = W / L slots l * K
// .. l * K + K - 1 with its neighbours l, l + L, l + 2L, ... (the row is
// stored lane by lane). A lane's K loads are independent, so a level is one
// dependent trip to L2 (the row) instead of two (row start, then
// neighbours), and a warp's load touches a few sectors instead of a line a
// lane. L covers the degree of almost every vertex (the launcher takes the
// 99th percentile), so the rounds of slots 1 .. K - 1 run only in the warps
// that hold a wider vertex. Each entry carries its vertex's out-degree
// (common.cuh: padded_id, padded_degree), so a level sums its winners'
// degrees and the next level knows its arcs (m_f) exactly before it starts:
// the edge_limit rule needs nothing more. Only a launch whose first frontier
// comes without its m_f (`frontier_edges` < 0) and may exceed the limit
// (size * max_degree > edge_limit) counts that level's loaded rows and takes
// a second barrier before any claim; rows beyond the first SB_PAD_CHUNK
// passes are read twice then. A level writes no result: its winners go to
// the discovery log (common.cuh), whose levels and parents logged_visits
// (bfs_convert.cu) writes after the launch over the whole GPU.
#define SB_PAD_CHUNK 4      // passes of the block a thread holds in registers
#ifndef SB_PAD_MAX_SLOTS
#define SB_PAD_MAX_SLOTS 4  // K at most (abi.PADDED_MAX_SLOTS)
#endif

// This thread's slots of the rows of passes [first, first + CHUNK)
// that exist (`passes` is uniform: passes past it cost no instructions):
// slot k of pass p into w[p][k], bit p * SB_PAD_MAX_SLOTS + k of the result
// set where it holds a neighbour.
template <int CHUNK>
__device__ __forceinline__ unsigned int sb_padded_chunk(const vid_t* __restrict__ padded, const vid_t* queue,
                                                        unsigned int size, unsigned int first, unsigned int passes,
                                                        unsigned int group, unsigned int per_pass, int width_log2,
                                                        unsigned int slot0, int slots,
                                                        vid_t (*w)[SB_PAD_MAX_SLOTS]) {
    unsigned int valid = 0;
#pragma unroll
    for (int p = 0; p < CHUNK; ++p) {
#pragma unroll
        for (int k = 0; k < SB_PAD_MAX_SLOTS; ++k) w[p][k] = -1;
        if (first + p < passes) {
            const unsigned int i = group + (first + p) * per_pass;
            if (i < size) {
                const vid_t* row = padded + (((eid_t)queue[i] << width_log2) + slot0);
#pragma unroll
                for (int k = 0; k < SB_PAD_MAX_SLOTS; ++k)
                    if (k < slots) w[p][k] = __ldg(row + k);
            }
        }
#pragma unroll
        for (int k = 0; k < SB_PAD_MAX_SLOTS; ++k)
            if (w[p][k] >= 0) valid |= 1u << (p * SB_PAD_MAX_SLOTS + k);
    }
    return valid;
}

// A thread's place in the padded rows (L lanes a frontier vertex, K slots a
// lane) and the two things a level does with them: count the loaded rows'
// arcs (where the edge_limit rule needs the exact count first), and run the
// level (claims through `claim`, which marks a vertex visited and says
// whether this thread won it).
struct SbPadded {
    const vid_t* __restrict__ padded;
    int width_log2, slots;
    unsigned int slot0, group, per_pass, pass_shift, warp_group;
    int lane;
    unsigned int below;

    __device__ __forceinline__ SbPadded(const vid_t* __restrict__ rows, int width_log2_, int lanes_log2)
        : padded(rows), width_log2(width_log2_), slots(1 << (width_log2_ - lanes_log2)),
          slot0((threadIdx.x & ((1u << lanes_log2) - 1u)) * (1u << (width_log2_ - lanes_log2))),
          group(threadIdx.x >> lanes_log2), per_pass(SB_THREADS >> lanes_log2),
          pass_shift((unsigned int)(__ffs(SB_THREADS) - 1 - lanes_log2)),
          warp_group((threadIdx.x & ~31u) >> lanes_log2), lane(threadIdx.x & 31),
          below((1u << (threadIdx.x & 31)) - 1u) {}

    // per_pass is a power of two (SB_THREADS >> lanes_log2): a shift, not a division.
    __device__ __forceinline__ unsigned int passes(unsigned int size) const {
        return (size + per_pass - 1) >> pass_shift;
    }

    template <int CHUNK = SB_PAD_CHUNK>
    __device__ __forceinline__ unsigned int chunk(const vid_t* queue, unsigned int size, unsigned int first,
                                                  vid_t (*w)[SB_PAD_MAX_SLOTS]) const {
        return sb_padded_chunk<CHUNK>(padded, queue, size, first, passes(size), group, per_pass, width_log2, slot0, slots,
                               w);
    }

    // This thread's arcs in the rows of `queue` (the first chunk left in w / valid).
    __device__ __forceinline__ unsigned int count(const vid_t* queue, unsigned int size,
                                                  vid_t (*w)[SB_PAD_MAX_SLOTS], unsigned int& valid) const {
        valid = chunk(queue, size, 0, w);
        unsigned int mine = __popc(valid);
        for (unsigned int first = SB_PAD_CHUNK; first < passes(size); first += SB_PAD_CHUNK) {
            vid_t more[SB_PAD_CHUNK][SB_PAD_MAX_SLOTS];
            mine += __popc(chunk(queue, size, first, more));
        }
        return mine;
    }

    // One level from queue_in[:size] into queue_out (overflow into `next`),
    // winners and their out-degrees added to *tail and *degrees, and unless
    // `counted` the level's arcs to *edges; `loaded`: the first chunk is in
    // w / valid already (a count loaded it). Each
    // winner logged at log[logged + its place in queue_out] with its parent
    // and `stamp` (level - the launch's first level; common.cuh's discovery log).
    // CHUNK: the passes a thread holds at once (SB_PAD_CHUNK, or the level's
    // passes where fewer: the unrolled checks of absent passes then cost nothing).
    template <int CHUNK, class Claim>
    __device__ __forceinline__ void level(const vid_t* queue_in, unsigned int size, vid_t* queue_out, int stamp,
                                          bool loaded, bool counted, vid_t (*w)[SB_PAD_MAX_SLOTS],
                                          unsigned int valid, unsigned int* tail, unsigned int* edges,
                                          unsigned int* degrees, vid_t* log,
                                          unsigned long long* record, unsigned long long logged, vid_t* next,
                                          counter_t* counters, Claim claim) const {
        if (warp_group >= size) return;  // warps past the frontier go straight to the barrier
        const unsigned int all = passes(size);
        unsigned int won_degree = 0;
        for (unsigned int first = 0; first < all; first += CHUNK) {
            if (!(loaded && first == 0))  // the first chunk is still in registers after a count
                valid = chunk<CHUNK>(queue_in, size, first, w);
            const unsigned int warp_edges = counted ? 0u : __reduce_add_sync(WF_FULL_MASK, __popc(valid));
            // Slot k of every pass, then the next k while some lane of the warp has one.
#pragma unroll
            for (int k = 0; k < SB_PAD_MAX_SLOTS; ++k) {
                unsigned int mask = 0;
#pragma unroll
                for (int p = 0; p < CHUNK; ++p) mask |= 1u << (p * SB_PAD_MAX_SLOTS + k);
                if (k > 0 && !__any_sync(WF_FULL_MASK, valid & mask)) break;
                unsigned int wins = 0;
#pragma unroll
                for (int p = 0; p < CHUNK; ++p) {
                    const unsigned int bit = 1u << (p * SB_PAD_MAX_SLOTS + k);
                    if ((valid & bit) && claim(padded_id(w[p][k]))) {
                        wins |= bit;
                        won_degree += padded_degree(w[p][k]);
                    }
                }
                // A ballot a pass places every winner; one shared atomic a warp.
                unsigned int won_by[CHUNK];
                unsigned int warp_won = 0;
#pragma unroll
                for (int p = 0; p < CHUNK; ++p) {
                    won_by[p] = 0;
                    if (first + p < all) {
                        won_by[p] = __ballot_sync(WF_FULL_MASK, wins >> (p * SB_PAD_MAX_SLOTS + k) & 1u);
                        warp_won += __popc(won_by[p]);
                    }
                }
                unsigned int base = 0;
                if (lane == 0) {
                    if (warp_won) base = atomicAdd(tail, warp_won);
                    if (k == 0 && warp_edges) atomicAdd(edges, warp_edges);
                }
                if (warp_won) {
                    base = __shfl_sync(WF_FULL_MASK, base, 0);
#pragma unroll
                    for (int p = 0; p < CHUNK; ++p) {
                        if (wins >> (p * SB_PAD_MAX_SLOTS + k) & 1u) {
                            const unsigned int position = base + __popc(won_by[p] & below);
                            const vid_t v = padded_id(w[p][k]);
                            sb_push(v, position, queue_out, next, counters);
                            log[logged + position] = v;
                            record[logged + position] = log_record(queue_in[group + (first + p) * per_pass], stamp);
                        }
                        base += __popc(won_by[p]);
                    }
                }
            }
        }
        won_degree = __reduce_add_sync(WF_FULL_MASK, won_degree);
        if (lane == 0 && won_degree) atomicAdd(degrees, won_degree);
    }
};

// The level loop of the padded kernel, from queue[0][:count]; `claim` marks a
// vertex visited and says whether this thread won it. Returns through the
// references what sb_finish hands back, and the entries it logged.
template <class Claim>
__device__ __forceinline__ void sb_padded_levels(const SbPadded& rows, Claim claim, vid_t (*queue)[SB_QUEUE_CAPACITY],
                                                 unsigned int* tails, unsigned int* edges, long long count,
                                                 int first_level, int max_level, long long edge_limit, int max_degree,
                                                 long long frontier_edges, unsigned int* degrees, vid_t* log,
                                                 unsigned long long* record, vid_t* next,
                                                 counter_t* counters, long long* level_stats, int& levels_run,
                                                 int& out_queue, unsigned int& out_count, unsigned int& kept,
                                                 unsigned long long& logged) {
    int current = 0, at = 0;
    logged = 0;
    unsigned int size = (unsigned int)count;
    long long m_f = frontier_edges;  // this level's arcs; < 0: not known (the launch's first level only)
    for (int level = first_level;; ++level) {
        const int after = at == 2 ? 0 : at + 1;
        vid_t w[SB_PAD_CHUNK][SB_PAD_MAX_SLOTS];
        unsigned int valid = 0;
        bool stop = size == 0 || level > max_level;
        bool loaded = false, counted = m_f >= 0;
        if (!stop && counted) {
            stop = m_f > edge_limit;
            if (threadIdx.x == 0) edges[at] = (unsigned int)m_f;  // the trace row's arcs
        } else if (!stop && (long long)size * max_degree > edge_limit) {  // uniform, so is the barrier
            unsigned int sum = (unsigned int)warp_sum(rows.count(queue[current], size, w, valid));
            if (rows.lane == 0 && sum) atomicAdd(&edges[at], sum);
            __syncthreads();
            stop = (long long)edges[at] > edge_limit;
            loaded = counted = true;
        }
        if (stop) {
            levels_run = level - first_level;
            out_queue = current;
            out_count = kept = size;
            return;
        }
        if (threadIdx.x == 0) {
            tails[after] = 0;
            edges[after] = 0;
            degrees[after] = 0;
        }
        // Uniform: the instance that holds as many passes as the level has
        // where that is fewer than SB_PAD_CHUNK (most road levels are one to
        // three passes of SB_THREADS / L vertices), so the unrolled checks of
        // absent passes leave the level's critical path (H100, in the block:
        // amsterdam 1.51 -> 1.23 us a level, seattle 2.39 -> 2.19 with one
        // and two, 2.17 -> 2.13 with three).
        const unsigned int passes = rows.passes(size);
        if (passes == 1)
            rows.template level<1>(queue[current], size, queue[current ^ 1], level - first_level, loaded, counted, w,
                                   valid, &tails[at], &edges[at], &degrees[at], log, record, logged,
                                   next, counters, claim);
        else if (passes == 2)
            rows.template level<2>(queue[current], size, queue[current ^ 1], level - first_level, loaded, counted, w,
                                   valid, &tails[at], &edges[at], &degrees[at], log, record, logged,
                                   next, counters, claim);
        else if (passes == 3)
            rows.template level<3>(queue[current], size, queue[current ^ 1], level - first_level, loaded, counted, w,
                                   valid, &tails[at], &edges[at], &degrees[at], log, record, logged,
                                   next, counters, claim);
        else
            rows.template level<SB_PAD_CHUNK>(queue[current], size, queue[current ^ 1], level - first_level, loaded,
                                              counted, w, valid, &tails[at], &edges[at], &degrees[at], log, record,
                                              logged, next, counters, claim);
        __syncthreads();
        unsigned int found = tails[at];
        if (threadIdx.x == 0) sb_level_row(level_stats, first_level, level, size, edges[at]);
        logged += found;
        m_f = degrees[at];
        if (sb_overflowed(found, level, first_level, current, levels_run, out_queue, out_count, kept)) return;
        current ^= 1;
        size = found;
        at = after;
    }
}

extern "C" __global__ void __launch_bounds__(SB_THREADS)
single_block_levels_padded(const vid_t* frontier, long long count, int first_level, int max_level,
                           long long edge_limit, long long shared_words, const eid_t* indptr,
                           const vid_t* __restrict__ padded, vid_t* log, unsigned long long* record,
                           word_t* visited, vid_t* next, counter_t* counters, long long* level_stats, int max_degree,
                           int width_log2, int lanes_log2, long long frontier_edges) {
    __shared__ vid_t queue[2][SB_QUEUE_CAPACITY];
    // New vertices, edges examined and the new vertices' degrees of level L in [L mod 3]: with one
    // barrier per level, thread 0 clears level L + 1's pair during level L,
    // when every thread has read level L - 2's (before the barrier ending L - 1).
    __shared__ unsigned int tails[3];
    __shared__ unsigned int edges[3];
    __shared__ unsigned int degrees[3];  // the new vertices' out-degrees: the next level's arcs

    sb_start(frontier, count, shared_words, visited, sb_shared_visited, queue[0], level_stats);
    if (threadIdx.x < 3) {
        tails[threadIdx.x] = 0;
        edges[threadIdx.x] = 0;
        degrees[threadIdx.x] = 0;
    }
    __syncthreads();

#ifdef SB_PAD_WIDTH_LOG2
    // The launcher compiled this graph's row shape in: the slot and lane
    // arithmetic folds to constants (the arguments then say the same).
    width_log2 = SB_PAD_WIDTH_LOG2;
    lanes_log2 = SB_PAD_LANES_LOG2;
#endif
    const SbPadded rows(padded, width_log2, lanes_log2);
    int levels_run, out_queue;
    unsigned int out_count, kept;
    unsigned long long logged;
    // The claims' bitmap is named in each branch, so the shared one compiles
    // to shared-memory loads and atomics (through one pointer that may be
    // either, they were generic ones).
    if (shared_words > 0)
        // A shared claim is the atomic alone: reading the bit first put one
        // more dependent shared access on the chain (H100, in the block:
        // amsterdam 1.23 -> 1.16 us a level, seattle 2.19 -> 2.12).
        sb_padded_levels(rows, [](vid_t v) { return bit_claim(sb_shared_visited, v); },
                         queue, tails, edges, count, first_level, max_level, edge_limit, max_degree,
                         frontier_edges, degrees, log, record, next, counters, level_stats, levels_run, out_queue,
                         out_count, kept, logged);
    else
        sb_padded_levels(rows, [visited](vid_t v) { return !bit_test(visited, v) && bit_claim(visited, v); }, queue,
                         tails, edges, count, first_level, max_level, edge_limit, max_degree,
                         frontier_edges, degrees, log, record, next, counters, level_stats, levels_run, out_queue,
                         out_count, kept, logged);
    // logged_visits (bfs_convert.cu), queued next, writes the logged levels and parents.
    if (threadIdx.x == 0) counters[CNT_LOGGED] = logged;
    sb_finish(queue[out_queue], kept, out_count, levels_run, shared_words, sb_shared_visited, visited, indptr, next,
              counters);
}
