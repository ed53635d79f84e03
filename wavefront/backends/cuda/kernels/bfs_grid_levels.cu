// Grid-wide top-down levels in one persistent launch (issue 18 item 3: "grid-
// wide synchronisation in one persistent cooperative kernel"), for graphs
// of low out-degree (roads, grids; BFSTuning.grid_levels_max_degree).
//
// A road search on a few million vertices has thousands of levels whose
// frontiers (thousands of vertices) are too big for the single block
// (bfs_single_block.cu) to run fast and far too small for a grid-wide step
// to pay for its launch and host round trip (~16 us a level on an H200).
// Here every block stays resident and the levels are separated by the
// software grid barrier of persistent.cuh.
//
// The rows come from the single block's padded copy of the adjacency
// (device_graph.padded_rows, kernels/bfs_single_block.cu): L = 1 <<
// lanes_log2 lanes take a frontier vertex, each the K = W / L slots of its
// row, read without the row start. Each entry carries its vertex's
// out-degree (common.cuh: padded_id, padded_degree), so a winner adds its
// degree to the next frontier's m_f, which the rules below need, with no
// load; each lane appends its winners through one warp scan and one global
// atomic per warp for each sum. A level's chain: the queue entry, the row,
// the claims, the append, the barrier (with rows from the CSR and the
// winners' degrees read after the claims, two trips more: H100 5.2-5.5
// against 3.3-4.0 us a level, docs/decisions/cuda-bfs.md, "Padded rows").
//
// No scattered store before a barrier: the barrier's release waits for every
// store the block has in flight, and scattered ones cost most of a level
// (H200: two dependent loads and a grid barrier 1.3 us; with three scattered
// stores a thread 7.2 us). So a level writes only to the discovery log
// (common.cuh; every vertex is discovered once, so n entries hold them all). Level L's
// frontier is the log's range of level L - 1 (the first level reads
// `frontier`). After the last level one pass writes every logged vertex's
// level and parent, and copies the final frontier into `next`.
//
// Which levels run is the host policy's rule, evaluated on the device after
// each barrier (CUDAHybridPolicy.grid_levels_rule gives the numbers): the
// next level runs here while its frontier (n_f vertices, m_f out-edges, m_u
// edges left unexplored) is non-empty, does not fit the single block
// (n_f <= block_vertices and m_f <= block_edges), and is kept top-down by
// the policy (m_f < min_edges, or m_f <= edges, or m_f <= m_u / alpha).
// So the levels and the trace rows equal those of the per-level loop.
//
// counters get the returned frontier's size and m_f and the levels run;
// level_stats the start time and one row (frontier vertices, edges
// examined, end time) per level, as the single block writes them.
// Measured against the per-level loop and the floors: docs/decisions/cuda-bfs.md,
// "Grid levels".
//
// ctl (uint64, zeroed before the launch): [0] the barrier's arrival count
// (its low 32 bits), [1 + L mod 3] level L's new vertices, [4 + L mod 3]
// their out-degree sum. Words another block wrote during the launch are read
// with __ldcg (from L2): a block's L1 may hold a stale line.
#include "common.cuh"
#include "persistent.cuh"

#ifndef GL_THREADS
#define GL_THREADS 256
#endif
#ifndef SB_STATS_FIELDS
#define SB_STATS_FIELDS 3
#endif

#ifndef GL_MAX_SLOTS
#define GL_MAX_SLOTS 4  // slots a lane holds at most (abi.PADDED_MAX_SLOTS)
#endif
#define GL_CTL_FOUND 1
#define GL_CTL_DEGREE 4

// Whether the policy keeps a frontier of n_f vertices, m_f out-edges and
// m_u unexplored edges top-down outside the single block.
__device__ __forceinline__ bool gl_next_runs(unsigned long long n_f, unsigned long long m_f,
                                             long long m_u, long long block_vertices, long long block_edges,
                                             long long min_edges, long long edges, double unexplored_alpha) {
    if (n_f == 0) return false;
    const bool fits = (long long)n_f <= block_vertices && (long long)m_f <= block_edges;
    if (fits) return false;
    if ((long long)m_f < min_edges || (long long)m_f <= edges) return true;
    return unexplored_alpha > 0.0 && (double)m_f <= (double)m_u / unexplored_alpha;
}

// After the last level: every logged vertex's level and parent, and the
// final frontier (the last level's range of the log, `in`) into `next`. Log
// entries other blocks wrote are read from L2.
__device__ __forceinline__ void gl_finish(const vid_t* log, const unsigned long long* record,
                                          unsigned long long logged, const vid_t* in, unsigned long long size,
                                          unsigned long long m_f, int first_level, int level, long long thread,
                                          long long threads, bool reporter, vid_t* next, int* levels,
                                          long long* parents, counter_t* counters) {
    for (long long i = thread; i < (long long)logged; i += threads)
        record_logged(log, record, i, first_level, levels, parents);
    for (long long i = thread; i < (long long)size; i += threads) next[i] = __ldcg(in + i);
    if (reporter) {
        counters[CNT_NEXT_COUNT] = size;
        counters[CNT_NEXT_DEGREE] = m_f;
        counters[CNT_LEVELS_RUN] = (counter_t)(level - first_level + 1);
    }
}

// One block per SM at most (all resident): the register cap of a full SM
// would make the 64-bit build spill.
extern "C" __global__ void __launch_bounds__(GL_THREADS, 1)
grid_levels(const vid_t* frontier, vid_t* next, vid_t* log, unsigned long long* record, long long count,
            long long frontier_edges, long long unexplored, int first_level, int max_level,
            long long block_vertices, long long block_edges, long long min_edges, long long edges,
            double unexplored_alpha, const vid_t* __restrict__ padded, int* levels,
            long long* parents, word_t* visited, counter_t* counters, long long* level_stats,
            unsigned long long* ctl, int width_log2, int lanes_log2) {
    unsigned int* arrived = reinterpret_cast<unsigned int*>(ctl);
    const bool reporter = blockIdx.x == 0 && threadIdx.x == 0;
    if (reporter) level_stats[0] = (long long)global_timer_ns();

    const int lane = threadIdx.x & 31;
    const int slots = 1 << (width_log2 - lanes_log2);
    const long long threads = (long long)gridDim.x * GL_THREADS;
    const long long thread = (long long)blockIdx.x * GL_THREADS + threadIdx.x;
    const unsigned int slot0 = (unsigned int)(thread & ((1 << lanes_log2) - 1)) * slots;
    const long long per_pass = threads >> lanes_log2;                 // vertices a pass of the grid takes
    const long long warp_vertex = (thread - lane) >> lanes_log2;      // the warp's first vertex in a pass
    const long long vertex0 = thread >> lanes_log2;                   // this thread's vertex in a pass
    const vid_t* in = frontier;
    unsigned long long size = (unsigned long long)count, m_f = (unsigned long long)frontier_edges;
    unsigned long long logged = 0;
    long long m_u = unexplored;
    unsigned int barriers = 0;
    int at = 0;
    int level = first_level;
    for (;; ++level) {
        const int after = at == 2 ? 0 : at + 1;
        if (reporter) {
            ctl[GL_CTL_FOUND + after] = 0;
            ctl[GL_CTL_DEGREE + after] = 0;
        }
        const int stamp = level - first_level;
        for (long long pass = 0; warp_vertex + pass < (long long)size; pass += per_pass) {  // warp-uniform
            const long long k = vertex0 + pass;
            vid_t u = 0;
            vid_t w[GL_MAX_SLOTS];
#pragma unroll
            for (int j = 0; j < GL_MAX_SLOTS; ++j) w[j] = -1;
            if (k < (long long)size) {
                u = __ldcg(in + k);
                const vid_t* row = padded + (((eid_t)u << width_log2) + slot0);
#pragma unroll
                for (int j = 0; j < GL_MAX_SLOTS; ++j)
                    if (j < slots) w[j] = __ldg(row + j);
            }
            // A claim is the atomic alone (reading the bit first, as the
            // kernel did, was 0.3-0.7 % slower a level on an H100).
            unsigned int wins = 0, won_degree = 0;
#pragma unroll
            for (int j = 0; j < GL_MAX_SLOTS; ++j)
                if (w[j] >= 0) {
                    const unsigned int degree = padded_degree(w[j]);
                    w[j] = padded_id(w[j]);
                    if (bit_claim(visited, w[j])) {
                        wins |= 1u << j;
                        won_degree += degree;
                    }
                }
            const unsigned int won = __popc(wins);
            unsigned long long inclusive = ((unsigned long long)won_degree << 32) | won;
#pragma unroll
            for (int offset = 1; offset < 32; offset <<= 1) {
                const unsigned long long up = __shfl_up_sync(WF_FULL_MASK, inclusive, offset);
                if (lane >= offset) inclusive += up;
            }
            unsigned long long first = 0;
            if (lane == 31) {
                const unsigned int warp_won = (unsigned int)inclusive, warp_degree = (unsigned int)(inclusive >> 32);
                if (warp_won) first = atomicAdd(&ctl[GL_CTL_FOUND + at], (unsigned long long)warp_won);
                if (warp_degree) atomicAdd(&ctl[GL_CTL_DEGREE + at], (unsigned long long)warp_degree);
            }
            first = __shfl_sync(WF_FULL_MASK, first, 31);
            if (wins) {
                unsigned long long position = logged + first + (unsigned int)inclusive - won;
                const unsigned long long from = log_record(u, stamp);
#pragma unroll
                for (int j = 0; j < GL_MAX_SLOTS; ++j)
                    if (wins & (1u << j)) {
                        log[position] = w[j];
                        record[position] = from;
                        ++position;
                    }
            }
        }
        grid_barrier(arrived, gridDim.x * ++barriers);
        const unsigned long long found = __ldcg(&ctl[GL_CTL_FOUND + at]);
        const unsigned long long found_degree = __ldcg(&ctl[GL_CTL_DEGREE + at]);
        if (reporter) {
            long long* stats = level_stats + 1 + (long long)SB_STATS_FIELDS * (level - first_level);
            stats[0] = (long long)size;
            stats[1] = (long long)m_f;
            stats[2] = (long long)global_timer_ns();
        }
        m_u -= (long long)found_degree;
        in = log + logged;
        logged += found;
        size = found;
        m_f = found_degree;
        at = after;
        if (level + 1 > max_level ||
            !gl_next_runs(size, m_f, m_u, block_vertices, block_edges, min_edges, edges, unexplored_alpha))
            break;
    }
    gl_finish(log, record, logged, in, size, m_f, first_level, level, thread, threads, reporter, next, levels,
              parents, counters);
}
