// Search setup and frontier-representation conversions, shared by every BFS
// method: initialising levels/parents/visited for a new source (or several:
// seed_sources), queue ->
// bitmap and bitmap -> queue (seed 000 sec. 3.1: "a GPU kernel converting
// the bitmap representation of a vertex set into an array"), and the
// frontier degree list that the edge-balanced top-down step scans.
#include "common.cuh"

// One pass over levels, parents and the visited bitmap; the source is
// written by the thread that owns its slot, so no two threads race.
// Bits past n in the last visited word, and vertices without in-edges
// (`unreachable`), start set, so bottom-up steps never scan them.
// fill == 0: only the root's level and parent are written; the search then
// completes the arrays later (complete_results, or the first bottom-up level).
extern "C" __global__ void init_search(long long n, long long words, vid_t source, int* levels,
                                       long long* parents, const word_t* unreachable,
                                       word_t* visited, vid_t* queue, int fill) {
    long long i = global_thread_id();
    if (fill && i < n) {
        bool root = (i == (long long)source);
        levels[i] = root ? 0 : WF_UNVISITED;
        parents[i] = root ? (long long)source : -1LL;
    }
    if (!fill && i == 0) {  // the grid then covers the bitmap words only
        levels[source] = 0;
        parents[source] = (long long)source;
    }
    if (i < words) {
        word_t w = unreachable[i];
        int tail = (int)(n & 31);
        if (i == words - 1 && tail != 0) w = ~((1u << tail) - 1u);
        if (i == (long long)(source >> 5)) w |= 1u << (source & 31);
        visited[i] = w;
    }
    if (i == 0) queue[0] = source;
}

// A multi-source search: after init_search seeded the first source, every
// source in `seeds` (distinct ids) starts at level 0 as its own parent, is
// visited and is queued, as init_search treats one source. With visited and
// queue null it only rewrites the sources' results: a whole-word write
// (complete_results, the first bottom-up level) keeps one root only.
extern "C" __global__ void seed_sources(const vid_t* seeds, long long count, int* levels,
                                        long long* parents, word_t* visited, vid_t* queue) {
    long long i = global_thread_id();
    if (i < count) {
        vid_t s = seeds[i];
        levels[s] = 0;
        parents[s] = (long long)s;
        if (visited != nullptr) atomicOr(&visited[s >> 5], 1u << (s & 31));  // sources may share a word
        if (queue != nullptr) queue[i] = s;
    }
}

// The levels and parents of the entries the padded single block logged
// (counters[CNT_LOGGED] of them; common.cuh's discovery log), queued right
// after it: the block's one SM wrote them scattered at about a third of its
// level time, every SM here writes them in a few microseconds.
extern "C" __global__ void logged_visits(const vid_t* log, const unsigned long long* record,
                                         const counter_t* counters, int first_level, int* levels,
                                         long long* parents) {
    const long long logged = (long long)counters[CNT_LOGGED];
    for (long long i = global_thread_id(); i < logged; i += (long long)gridDim.x * blockDim.x)
        record_logged(log, record, i, first_level, levels, parents);
}

// Frontier queue -> frontier bitmap (the bitmap must be zeroed first).
extern "C" __global__ void queue_to_bitmap(const vid_t* queue, long long count, word_t* bitmap) {
    long long i = global_thread_id();
    if (i < count) {
        vid_t v = queue[i];
        atomicOr(&bitmap[v >> 5], 1u << (v & 31));
    }
}

// Frontier bitmap -> queue: one thread per word; a block-wide scan of the
// words' popcounts places each thread's vertices, and one atomicAdd per block
// reserves the block's range of the queue.
#ifndef CONVERT_BLOCK
#define CONVERT_BLOCK 256
#endif
extern "C" __global__ void __launch_bounds__(CONVERT_BLOCK)
bitmap_to_queue(const word_t* bitmap, long long words, vid_t* queue, counter_t* counters) {
    __shared__ unsigned int warp_sums[32];
    __shared__ unsigned int total;
    __shared__ counter_t base;
    long long w = global_thread_id();
    word_t bits = (w < words) ? bitmap[w] : 0u;
    unsigned int offset = block_exclusive_scan<CONVERT_BLOCK>(__popc(bits), warp_sums, &total);
    if (threadIdx.x == 0 && total) base = atomicAdd(&counters[CNT_NEXT_COUNT], (counter_t)total);
    __syncthreads();
    long long pos = (long long)base + offset;
    while (bits) {
        int b = __ffs(bits) - 1;
        bits &= bits - 1u;
        queue[pos++] = (vid_t)(w * 32 + b);
    }
}

// The frontier's edge offsets in one launch (no host scan): queue[i] owns
// edge slots from block_offsets[i >> FRONTIER_SCAN_SHIFT] + offsets[i] on.
// Each block scans the out-degrees of its 2^FRONTIER_SCAN_SHIFT vertices into
// `offsets` and leaves its total in block_offsets[block]; the last block to
// finish (a counter, after a fence) turns the totals into an exclusive scan
// in place, so the next launch sees both levels complete.
#ifndef SCAN_BLOCK
#define SCAN_BLOCK 256
#endif
#define SCAN_ITEMS ((1 << FRONTIER_SCAN_SHIFT) / SCAN_BLOCK)
extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
frontier_scan(const vid_t* queue, long long count, const eid_t* indptr, eid_t* offsets,
              eid_t* block_offsets, counter_t* counters) {
    __shared__ long long warp_sums[32];
    __shared__ long long total;
    __shared__ bool last_block;
    long long first = ((long long)blockIdx.x << FRONTIER_SCAN_SHIFT) + threadIdx.x * SCAN_ITEMS;
    eid_t degree[SCAN_ITEMS];
    eid_t sum = 0;
#pragma unroll
    for (int j = 0; j < SCAN_ITEMS; ++j) {
        degree[j] = first + j < count ? vertex_degree(indptr, queue[first + j]) : 0;
        sum += degree[j];
    }
    eid_t running = block_exclusive_scan<SCAN_BLOCK>(sum, warp_sums, &total);
#pragma unroll
    for (int j = 0; j < SCAN_ITEMS; ++j) {
        if (first + j < count) offsets[first + j] = running;
        running += degree[j];
    }
    if (threadIdx.x == 0) block_offsets[blockIdx.x] = total;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last_block = atomicAdd(&counters[CNT_SCAN_DONE], (counter_t)1) == (counter_t)gridDim.x - 1;
    __syncthreads();
    if (!last_block) return;
    __threadfence();
    long long carry = 0;
    for (long long b0 = 0; b0 < gridDim.x; b0 += SCAN_BLOCK) {
        long long b = b0 + threadIdx.x;
        // Other blocks wrote these: read through L2, never a stale L1 line.
        eid_t value = b < gridDim.x ? __ldcg(&block_offsets[b]) : 0;
        eid_t before = block_exclusive_scan<SCAN_BLOCK>(value, warp_sums, &total);
        if (b < gridDim.x) block_offsets[b] = carry + before;
        carry += total;
        __syncthreads();  // warp_sums and total are rewritten by the next round
    }
}

// The frontier's out-degree sum after frontier_scan: the last vertex's
// offset plus its degree, into counters[CNT_EDGES] (one thread).
extern "C" __global__ void frontier_total(const vid_t* queue, long long count, const eid_t* indptr,
                                          const eid_t* offsets, const eid_t* block_offsets, counter_t* counters) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    eid_t total = 0;
    if (count > 0) {
        long long last = count - 1;
        total = block_offsets[last >> FRONTIER_SCAN_SHIFT] + offsets[last] + vertex_degree(indptr, queue[last]);
    }
    counters[CNT_EDGES] = (counter_t)total;
}

// After a search that left its result arrays unfilled (init_search with
// fill == 0) and never ran a bottom-up level that wrote them whole: each
// warp writes the levels and parents of its 32 bitmap words whole, keeping
// what the search stored for its visited vertices (the root included) and -1
// for the rest.
extern "C" __global__ void complete_results(long long n, long long words, vid_t source, const word_t* visited,
                                            const word_t* unreachable, int* levels, long long* parents) {
    long long w = global_thread_id();
    word_t keep = 0;
    if (w < words) {  // no early return: write_words_whole needs the whole warp
        keep = visited[w] & ~unreachable[w];
        if (w == (long long)(source >> 5)) keep |= 1u << (source & 31);
    }
    write_words_whole(n, words, w, 0, 0u, nullptr, keep, 0u, levels, parents);
}
