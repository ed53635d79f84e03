// Bottom-up BFS steps over bitmaps (seed 000 sec. 3.2, figs. 4 and 6).
//
// Each unvisited vertex looks for a parent among its in-neighbours (CSC) in
// the current frontier bitmap and stops at the first one. How depends on its
// in-degree, through the large-degree mask built once per graph:
// * bottom_up_small (fig. 6): one thread per vertex of in-degree < LARGE_DEGREE.
//   Each thread owns one word of the unvisited bitmap; a CTA prefix scan over
//   the words' popcounts packs the candidates into shared memory, the block's
//   threads take them one each, and each word of the next frontier is then
//   assembled by its owner thread from the results, without atomics. Each
//   thread works on BU_SMALL_UNROLL candidates at once (more loads in flight)
//   and loads the next round's in-edge ranges before it tests the current
//   round's edges (one dependent load less per round).
// * bottom_up_large (fig. 4): a whole warp per vertex of in-degree >=
//   LARGE_DEGREE, reading its in-edges in coalesced 32-wide strides and
//   leaving as soon as __ballot_sync reports a frontier neighbour. As in the
//   figure each thread owns one word of the bitmaps; the warp fetches the
//   edge ranges of up to 32 pending vertices at once, each lane probes the
//   first BU_LARGE_PROBE in-edges of its own vertex, and the warp scans only
//   the vertices that missed, one after another.
// bottom_up_small writes every word of the next frontier; bottom_up_large runs
// after it and ORs in the large vertices (each word has one owner thread there
// too, so plain read-modify-writes suffice).
// bottom_up_small_first / bottom_up_large_first (the default where ids are
// 32-bit and arcs fewer than 2^32) read a packed word per vertex, row start
// and first in-neighbour together (device_graph.first_in_rows): the fig. 6
// kernel tests every candidate's first in-neighbour, large ones included, and
// the fig. 4 kernel scans only the large vertices that missed. The four
// extern "C" entry points share their bodies, the templates small_step and
// large_step (kernels with C linkage cannot be templates themselves).
#include "common.cuh"

#ifndef BU_BLOCK
#define BU_BLOCK 128
#endif
#ifndef BU_LARGE_BLOCK
#define BU_LARGE_BLOCK 256
#endif
// bottom_up_small: candidates per thread per round (see the kernel). 2 cut
// the kernel 22 % at SCALE 26 against 1; 4 was no faster and needs 72
// registers instead of 48 (docs/decisions/cuda-bfs.md).
#ifndef BU_SMALL_UNROLL
#define BU_SMALL_UNROLL 2
#endif
#ifndef LARGE_DEGREE
#define LARGE_DEGREE 32
#endif
// bottom_up_large: each lane first tests this many leading in-edges of its
// own vertex (8 loads in flight per round), before the warp scans what is
// left of the misses together. 32 beat 8 and 16 on the big SCALE 26 level
// (docs/decisions/cuda-bfs.md). Both are BFSTuning fields (bfs_tuning.py).
#ifndef BU_LARGE_PROBE
#define BU_LARGE_PROBE 32
#endif
#define LARGE_PROBE_GROUP 8
#if BU_LARGE_PROBE < LARGE_PROBE_GROUP || BU_LARGE_PROBE > LARGE_DEGREE || BU_LARGE_PROBE % LARGE_PROBE_GROUP
#error "BU_LARGE_PROBE: a multiple of 8 in [8, LARGE_DEGREE] (the probe reads without bounds checks)"
#endif

// Built once per graph: `large` marks in-degree >= LARGE_DEGREE (fig. 4's
// vertices); `unreachable` marks in-degree 0, which no step can reach, so
// init_search pre-sets them in the visited bitmap and bottom-up steps never
// scan them (Graph500 graphs: a third of the vertices at SCALE 26).
extern "C" __global__ void build_degree_masks(long long n, long long words, const eid_t* in_indptr,
                                              word_t* large, word_t* unreachable) {
    long long w = global_thread_id();
    if (w >= words) return;
    word_t big = 0, none = 0;
    for (int b = 0; b < 32; ++b) {
        long long v = w * 32 + b;
        if (v >= n) break;
        eid_t degree = in_indptr[v + 1] - in_indptr[v];
        if (degree >= LARGE_DEGREE) big |= 1u << b;
        if (degree == 0) none |= 1u << b;
    }
    large[w] = big;
    unreachable[w] = none;
}

// The step's three counters, one atomic each per block.
template <int THREADS>
__device__ __forceinline__ void add_step_counters(counter_t* counters, long long found,
                                                  long long degree_sum, long long examined) {
    found = block_sum<THREADS>(found);
    degree_sum = block_sum<THREADS>(degree_sum);
    examined = block_sum<THREADS>(examined);
    if (threadIdx.x == 0) {
        if (found) atomicAdd(&counters[CNT_NEXT_COUNT], (counter_t)found);
        if (degree_sum) atomicAdd(&counters[CNT_NEXT_DEGREE], (counter_t)degree_sum);
        if (examined) atomicAdd(&counters[CNT_EDGES], (counter_t)examined);
    }
}

// An in-edge range, and with the packed layout (kFirst) the row's first
// in-neighbour too: rows[v] = first << 32 | start as one 64-bit word (32-bit
// ids, fewer than 2^32 arcs; device_graph.first_in_rows), so the first probe
// needs no load of in_indices.
template <bool kFirst>
__device__ __forceinline__ void load_row(const eid_t* rows, vid_t v, eid_t& begin, eid_t& end, vid_t& first) {
    if constexpr (kFirst) {
        const unsigned long long* packed = reinterpret_cast<const unsigned long long*>(rows);
        const unsigned long long here = packed[v], after = packed[v + 1];
        begin = (eid_t)(here & 0xffffffffull);
        end = (eid_t)(after & 0xffffffffull);
        first = (vid_t)(here >> 32);
    } else {
        begin = rows[v];
        end = rows[v + 1];
        first = 0;
    }
}

// A fig. 6 candidate's scratch entry: its offset in the block's vertices, and
// with the packed rows this flag for a large vertex (first probe only here).
#define LARGE_CANDIDATE (1u << 16)

// Candidates k, k + BU_BLOCK, ... of a round (BU_SMALL_UNROLL of them) and
// their in-edge ranges; slots past `total` get empty ranges.
template <bool kFirst>
__device__ __forceinline__ void load_round(unsigned int k, unsigned int total, long long base,
                                           const unsigned int* scratch, const eid_t* in_indptr,
                                           vid_t (&v)[BU_SMALL_UNROLL], eid_t (&begin)[BU_SMALL_UNROLL],
                                           eid_t (&end)[BU_SMALL_UNROLL], vid_t (&first)[BU_SMALL_UNROLL],
                                           bool (&is_large)[BU_SMALL_UNROLL]) {
#pragma unroll
    for (int j = 0; j < BU_SMALL_UNROLL; ++j) {
        unsigned int slot = k + j * BU_BLOCK;
        const unsigned int entry = slot < total ? scratch[slot] : 0u;
        v[j] = slot < total ? (vid_t)(base + (entry & (LARGE_CANDIDATE - 1u))) : (vid_t)0;
        is_large[j] = kFirst && (entry & LARGE_CANDIDATE);
        begin[j] = end[j] = 0;
        first[j] = 0;
        if (slot < total) load_row<kFirst>(in_indptr, v[j], begin[j], end[j], first[j]);
    }
}

// Fig. 6. kFirst: `in_indptr` holds the packed rows (load_row) and each
// candidate's first in-neighbour is tested before any in_indices load; the
// large vertices take part too, for that first probe only (one thread each,
// with the block's full parallelism), and fig. 4 then scans those that missed.
// same_rows: a found vertex's out-degree is its in-edge range (undirected).
// kParents (packed rows, 32-bit ids): a candidate's scratch entry becomes its
// parent (or NO_PARENT), and the word's owner thread turns the entries into
// the next-frontier word; with `whole` set it also writes the word's levels
// and parents whole (write_words_whole): the search's first bottom-up level
// does so for every word, so init_search need not fill the result arrays
// and this level's records cost no partial-sector reads.
template <bool kFirst>
__device__ __forceinline__ void small_step(long long words, int level, const eid_t* in_indptr,
                                           const vid_t* in_indices, const eid_t* out_indptr, bool same_rows,
                                           const word_t* large, const word_t* frontier, word_t* visited,
                                           word_t* next, int* levels, long long* parents, counter_t* counters,
                                           bool whole = false, long long n = 0, long long source = -1,
                                           const word_t* unreachable = nullptr, bool frontier_levels = false) {
    constexpr bool kParents = kFirst && sizeof(vid_t) == 4;
    __shared__ unsigned int scratch[BU_BLOCK * 32];
    __shared__ unsigned int start_of[BU_BLOCK + 1];
    __shared__ unsigned int warp_sums[32];

    long long w = global_thread_id();
    word_t seen = (w < words) ? visited[w] : ~0u;
    word_t big = (w < words) ? large[w] : 0u;
    word_t bits = kFirst ? ~seen : ~seen & ~big;
    const word_t candidates = bits;
    unsigned int total;
    unsigned int position = block_exclusive_scan<BU_BLOCK>(__popc(bits), warp_sums, &start_of[BU_BLOCK]);
    start_of[threadIdx.x] = position;
    while (bits) {  // lowest bit first: write_words_whole reads the entries in that order
        int shift = __ffs(bits) - 1;
        scratch[position++] = (threadIdx.x * 32 + shift) | (kFirst && ((big >> shift) & 1u) ? LARGE_CANDIDATE : 0u);
        bits &= bits - 1u;
    }
    __syncthreads();
    total = start_of[BU_BLOCK];

    long long base = (long long)blockIdx.x * BU_BLOCK * 32;
    long long found = 0, degree_sum = 0, examined = 0;
    bool large_left = false;  // a large candidate missed its first probe: fig. 4's work
    // A thread takes BU_SMALL_UNROLL candidates a round, BU_BLOCK apart, so a
    // warp's lanes stay on neighbouring vertices (shared sectors) while each
    // lane has that many dependent load chains in flight instead of one.
    // A slot's scratch entry is read (candidate) and then overwritten (result)
    // only by its own thread, so reading the next round's candidates early is safe.
    const unsigned int stride = BU_BLOCK * BU_SMALL_UNROLL;
    vid_t v[BU_SMALL_UNROLL], first[BU_SMALL_UNROLL];
    eid_t begin[BU_SMALL_UNROLL], end[BU_SMALL_UNROLL];
    bool is_large[BU_SMALL_UNROLL];
    load_round<kFirst>(threadIdx.x, total, base, scratch, in_indptr, v, begin, end, first, is_large);
    // In-edges the packed rows already tested (the first one).
    constexpr int skip = kFirst ? 1 : 0;
    for (unsigned int k = threadIdx.x; k < total; k += stride) {
        vid_t next_v[BU_SMALL_UNROLL], next_first[BU_SMALL_UNROLL];
        eid_t next_begin[BU_SMALL_UNROLL], next_end[BU_SMALL_UNROLL];
        bool next_is_large[BU_SMALL_UNROLL];
        load_round<kFirst>(k + stride, total, base, scratch, in_indptr, next_v, next_begin, next_end, next_first,
                           next_is_large);
        bool first_hit[BU_SMALL_UNROLL], scan[BU_SMALL_UNROLL];
#pragma unroll
        for (int j = 0; j < BU_SMALL_UNROLL; ++j) {
            first_hit[j] = kFirst && begin[j] < end[j] && bit_test(frontier, first[j]);
            scan[j] = !first_hit[j] && !is_large[j];  // a large miss is fig. 4's
        }
        // The next four in-edges of every candidate still looking: all loads,
        // then all frontier tests, before any branch on a result.
        vid_t u[BU_SMALL_UNROLL][4];
        bool in_frontier[BU_SMALL_UNROLL][4];
#pragma unroll
        for (int j = 0; j < BU_SMALL_UNROLL; ++j)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                u[j][i] = scan[j] && begin[j] + skip + i < end[j] ? in_indices[begin[j] + skip + i] : (vid_t)0;
#pragma unroll
        for (int j = 0; j < BU_SMALL_UNROLL; ++j)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                in_frontier[j][i] = scan[j] && begin[j] + skip + i < end[j] && bit_test(frontier, u[j][i]);
#pragma unroll
        for (int j = 0; j < BU_SMALL_UNROLL; ++j) {
            unsigned int slot = k + j * BU_BLOCK;
            if (slot >= total) break;
            bool hit = first_hit[j];
            vid_t parent = first[j];
            eid_t e = hit ? begin[j] + 1 : min(begin[j] + skip + 4, end[j]);
            if (is_large[j] && !hit) {  // fig. 4 scans it, first probe included
                scratch[slot] = kParents ? NO_PARENT : 0u;
                large_left = true;
                continue;
            }
#pragma unroll
            for (int i = 3; i >= 0; --i) {
                if (in_frontier[j][i]) {
                    hit = true;
                    parent = u[j][i];
                    e = begin[j] + skip + i + 1;
                }
            }
            // The rest: four independent loads in flight per step.
            for (; !hit && e + 4 <= end[j]; e += 4) {
                vid_t u0 = in_indices[e], u1 = in_indices[e + 1], u2 = in_indices[e + 2], u3 = in_indices[e + 3];
                bool b0 = bit_test(frontier, u0), b1 = bit_test(frontier, u1);
                bool b2 = bit_test(frontier, u2), b3 = bit_test(frontier, u3);
                if (b0 | b1 | b2 | b3) {
                    parent = b0 ? u0 : b1 ? u1 : b2 ? u2 : u3;
                    e += b0 ? 1 : b1 ? 2 : b2 ? 3 : 4;
                    hit = true;
                    break;
                }
            }
            for (; !hit && e < end[j]; ++e) {
                vid_t next_u = in_indices[e];
                if (bit_test(frontier, next_u)) {
                    parent = next_u;
                    hit = true;
                }
            }
            examined += e - begin[j];
            unsigned int result = kParents ? NO_PARENT : 0u;
            if (hit) {
                if (!(kParents && whole)) record_visit(levels, parents, v[j], level, parent);
                result = kParents ? (unsigned int)parent : 1u << (v[j] & 31);
                ++found;
                degree_sum += same_rows ? end[j] - begin[j] : vertex_degree(out_indptr, v[j]);
            }
            scratch[slot] = result;
        }
#pragma unroll
        for (int j = 0; j < BU_SMALL_UNROLL; ++j) {
            v[j] = next_v[j];
            begin[j] = next_begin[j];
            end[j] = next_end[j];
            first[j] = next_first[j];
            is_large[j] = next_is_large[j];
        }
    }
    __syncthreads();
    word_t local_next = 0;
    const unsigned int* entries = scratch + start_of[threadIdx.x];
    if (kParents && whole) {  // uniform: every lane takes part
        word_t keep = 0, previous = 0;
        if (w < words) {
            keep = seen & ~unreachable[w];  // visited at earlier levels
            if (w == (source >> 5)) keep |= 1u << (source & 31);  // the root, even of in-degree 0
            if (frontier_levels) previous = frontier[w];  // their levels were left to this step
        }
        local_next = write_words_whole(n, words, w, level, candidates, entries, keep, previous, levels, parents);
    } else if (kParents) {
        for (word_t rest = candidates; rest; rest &= rest - 1u, ++entries)
            if (*entries != NO_PARENT) local_next |= 1u << (__ffs(rest) - 1);
    } else {
        for (unsigned int k = start_of[threadIdx.x]; k < start_of[threadIdx.x + 1]; ++k) local_next |= scratch[k];
    }
    if (w < words) {
        next[w] = local_next;
        if (local_next) visited[w] = seen | local_next;
    }
    add_step_counters<BU_BLOCK>(counters, found, degree_sum, examined);
    if (kFirst && __syncthreads_or(large_left) && threadIdx.x == 0) counters[CNT_LARGE_LEFT] = 1;
}

extern "C" __global__ void __launch_bounds__(BU_BLOCK)
bottom_up_small(long long words, int level, const eid_t* in_indptr, const vid_t* in_indices,
                const eid_t* out_indptr, const word_t* large, const word_t* frontier,
                word_t* visited, word_t* next, int* levels, long long* parents,
                counter_t* counters) {
    // Undirected graphs share one CSR for both directions: a found vertex's
    // out-degree is then its in-edge range, already in registers.
    small_step<false>(words, level, in_indptr, in_indices, out_indptr, out_indptr == in_indptr, large,
                      frontier, visited, next, levels, parents, counters);
}

// bottom_up_small over the packed rows (first in-neighbour inline).
// whole != 0: also write every word's levels and parents whole (the search's
// first bottom-up level; source and unreachable say which stored values to
// keep); frontier_levels != 0: the frontier's levels (level - 1) were not
// written (top_down_balanced_step with write_levels == 0).
extern "C" __global__ void __launch_bounds__(BU_BLOCK)
bottom_up_small_first(long long words, int level, const eid_t* packed_rows, const vid_t* in_indices,
                      const eid_t* out_indptr, const word_t* large, const word_t* frontier,
                      word_t* visited, word_t* next, int* levels, long long* parents,
                      counter_t* counters, int undirected, int whole, long long n, long long source,
                      const word_t* unreachable, int frontier_levels) {
    small_step<true>(words, level, packed_rows, in_indices, out_indptr, undirected != 0, large, frontier,
                     visited, next, levels, parents, counters, whole != 0, n, source, unreachable,
                     frontier_levels != 0);
}

// Fig. 4. kFirst: `in_indptr` holds the packed rows, and bottom_up_small_first
// has already found the vertices whose first in-neighbour is in the frontier.
template <bool kFirst>
__device__ __forceinline__ void large_step(long long words, int level, const eid_t* in_indptr,
                                           const vid_t* in_indices, const eid_t* out_indptr, bool same_rows,
                                           const word_t* large, const word_t* frontier, word_t* visited,
                                           word_t* next, int* levels, long long* parents, counter_t* counters) {
    // Late sweeps often leave fig. 4 nothing: then every block leaves at once
    // (22 us for the 8 K blocks' full pass at SCALE 26, 8 us without).
    if (kFirst && counters[CNT_LARGE_LEFT] == 0) return;
    long long w = global_thread_id();
    int lane = threadIdx.x & 31;
    word_t bits = (w < words) ? (~visited[w] & large[w]) : 0u;
    word_t local_next = 0;
    long long found = 0, degree_sum = 0, examined = 0;
    while (true) {
        // A batch: each lane with pending vertices fetches the edge range of
        // its lowest one, all 32 loads in flight together; then the warp
        // scans the batch's vertices one after another.
        bool pending = bits != 0;
        unsigned int batch = __ballot_sync(WF_FULL_MASK, pending);
        if (!batch) break;
        int my_shift = 0;
        eid_t my_begin = 0, my_end = 0;
        vid_t my_first = 0;
        if (pending) {
            my_shift = __ffs(bits) - 1;
            bits &= bits - 1u;
            vid_t mine = (vid_t)(w * 32 + my_shift);
            load_row<kFirst>(in_indptr, mine, my_begin, my_end, my_first);
        }
        // Each pending lane first probes the leading in-edges of its own vertex
        // (in-degree >= LARGE_DEGREE >= BU_LARGE_PROBE), all lanes' loads in
        // flight together: most large vertices hit there, and only the misses
        // cost the warp a serial scan.
        if (pending) {
            vid_t mine = (vid_t)(w * 32 + my_shift);
            int first = -1;
            vid_t parent = 0;
            for (int probed = 0; probed < BU_LARGE_PROBE && first < 0; probed += LARGE_PROBE_GROUP) {
                vid_t u[LARGE_PROBE_GROUP];
#pragma unroll
                for (int j = 0; j < LARGE_PROBE_GROUP; ++j) u[j] = in_indices[my_begin + probed + j];
#pragma unroll
                for (int j = LARGE_PROBE_GROUP - 1; j >= 0; --j) {
                    if (bit_test(frontier, u[j])) {
                        first = probed + j;
                        parent = u[j];
                    }
                }
            }
            if (first >= 0) {
                record_visit(levels, parents, mine, level, parent);
                local_next |= 1u << my_shift;
                ++found;
                degree_sum += same_rows ? my_end - my_begin : vertex_degree(out_indptr, mine);
                examined += first + 1;
                pending = false;
            } else {
                examined += BU_LARGE_PROBE;
                my_begin += BU_LARGE_PROBE;
            }
        }
        batch = __ballot_sync(WF_FULL_MASK, pending);
        while (batch) {
            int owner = __ffs(batch) - 1;
            batch &= batch - 1u;
            long long owner_word = __shfl_sync(WF_FULL_MASK, w, owner);
            int shift = __shfl_sync(WF_FULL_MASK, my_shift, owner);
            eid_t begin = __shfl_sync(WF_FULL_MASK, my_begin, owner);
            eid_t end = __shfl_sync(WF_FULL_MASK, my_end, owner);
            vid_t v = (vid_t)(owner_word * 32 + shift);
            bool hit_any = false;
            for (eid_t e = begin; e < end; e += 32) {
                eid_t idx = e + lane;
                vid_t u = 0;
                bool hit = false;
                if (idx < end) {
                    u = in_indices[idx];
                    hit = bit_test(frontier, u);
                }
                unsigned int hits = __ballot_sync(WF_FULL_MASK, hit);
                if (lane == 0) examined += min((eid_t)32, end - e);
                if (hits) {
                    if (lane == __ffs(hits) - 1) record_visit(levels, parents, v, level, u);
                    hit_any = true;
                    break;
                }
            }
            if (hit_any && lane == owner) {
                local_next |= 1u << shift;
                ++found;
                degree_sum += same_rows ? my_end - (my_begin - BU_LARGE_PROBE) : vertex_degree(out_indptr, v);
            }
        }
    }
    if (local_next) {
        next[w] |= local_next;
        visited[w] |= local_next;
    }
    add_step_counters<BU_LARGE_BLOCK>(counters, found, degree_sum, examined);
}

extern "C" __global__ void __launch_bounds__(BU_LARGE_BLOCK)
bottom_up_large(long long words, int level, const eid_t* in_indptr, const vid_t* in_indices,
                const eid_t* out_indptr, const word_t* large, const word_t* frontier,
                word_t* visited, word_t* next, int* levels, long long* parents,
                counter_t* counters) {
    large_step<false>(words, level, in_indptr, in_indices, out_indptr, out_indptr == in_indptr, large,
                      frontier, visited, next, levels, parents, counters);
}

// bottom_up_large over the packed rows (first in-neighbour inline).
// The trailing arguments are bottom_up_small_first's (one argument list for both).
extern "C" __global__ void __launch_bounds__(BU_LARGE_BLOCK)
bottom_up_large_first(long long words, int level, const eid_t* packed_rows, const vid_t* in_indices,
                      const eid_t* out_indptr, const word_t* large, const word_t* frontier,
                      word_t* visited, word_t* next, int* levels, long long* parents,
                      counter_t* counters, int undirected, int, long long, long long, const word_t*, int) {
    large_step<true>(words, level, packed_rows, in_indices, out_indptr, undirected != 0, large, frontier,
                     visited, next, levels, parents, counters);
}
