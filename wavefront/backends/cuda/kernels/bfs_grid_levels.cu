// Grid-wide top-down levels in one persistent launch (issue 18 item 3: "grid-
// wide synchronisation in one persistent cooperative kernel"), for graphs
// whose out-degrees are all at most GL_DEGREE (roads, grids).
//
// A road search on a few million vertices has thousands of levels whose
// frontiers (3 000 - 30 000 vertices) are too big for the single block
// (bfs_single_block.cu) and far too small for a grid-wide step to pay for
// its launch and host round trip (~16 us a level on an H200). Here every
// block stays resident and the levels are separated by the software grid
// barrier of persistent.cuh: a level costs its dependent memory trips (the
// queue entry, its row, its neighbours, the claim) and one grid barrier.
//
// Thread g of the grid takes frontier items g, g + T, g + 2T, ... (T threads
// in all). For each it reads the row, issues every neighbour load before its
// first claim, tests every visited bit, claims the unvisited ones, reads the
// winners' rows (the next frontier's out-degree sum m_f, which the rules
// below need) and appends its winners through one warp scan and one global
// atomic per warp for each sum.
//
// Which levels run is the host policy's rule, evaluated on the device after
// each barrier (CUDAHybridPolicy.grid_levels_rule gives the numbers): the
// next level runs here while its frontier (n_f vertices, m_f out-edges, m_u
// edges left unexplored) is non-empty, does not fit the single block
// (n_f <= block_vertices and m_f <= block_edges), and is kept top-down by
// the policy (m_f < min_edges, or m_f <= edges, or m_f <= m_u / alpha).
// So the levels and the trace rows equal those of the per-level loop.
//
// The frontier alternates between queue_a and queue_b; after the launch it
// is in queue_b when an odd number of levels ran. counters get the returned
// frontier's size and m_f and the levels run; level_stats the start time
// and one row (frontier vertices, edges examined, end time) per level, as
// the single block writes them.
//
// Measured against the per-level loop and the floors: docs/decisions/cuda-bfs.md,
// "Grid levels". ctl (uint64, zeroed before the launch): [0] the barrier's arrival count
// (its low 32 bits), [1 + L mod 3] level L's new vertices, [4 + L mod 3]
// their out-degree sum. Words another block wrote during the launch are read
// with __ldcg (from L2): a block's L1 may still hold the line from three
// levels before.
#include "common.cuh"
#include "persistent.cuh"

#ifndef GL_THREADS
#define GL_THREADS 256
#endif
// The largest out-degree taken (BFSTuning.grid_levels_max_degree): a thread
// holds that many neighbours in registers, one bit each in a 32-bit mask.
#ifndef GL_DEGREE
#define GL_DEGREE 8
#endif
// Record the winners of a level's last pass after its grid barrier
// (BFSTuning.grid_levels_defer_records).
#ifndef GL_DEFER_RECORDS
#define GL_DEFER_RECORDS 1
#endif
#ifndef SB_STATS_FIELDS
#define SB_STATS_FIELDS 3
#endif
static_assert(GL_DEGREE >= 1 && GL_DEGREE <= 32, "a thread's neighbours must fit one 32-bit mask");

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

extern "C" __global__ void __launch_bounds__(GL_THREADS)
grid_levels(vid_t* queue_a, vid_t* queue_b, long long count, long long frontier_edges, long long unexplored,
            int first_level, int max_level,
            long long block_vertices, long long block_edges, long long min_edges, long long edges,
            double unexplored_alpha, const eid_t* indptr, const vid_t* indices, int* levels, long long* parents,
            word_t* visited, counter_t* counters, long long* level_stats, unsigned long long* ctl) {
    unsigned int* arrived = reinterpret_cast<unsigned int*>(ctl);
    const bool reporter = blockIdx.x == 0 && threadIdx.x == 0;
    if (reporter) level_stats[0] = (long long)global_timer_ns();

    const int lane = threadIdx.x & 31;
    const long long threads = (long long)gridDim.x * GL_THREADS;
    const long long warp_first = (long long)blockIdx.x * GL_THREADS + (threadIdx.x & ~31);
    vid_t* in = queue_a;
    vid_t* out = queue_b;
    unsigned long long size = (unsigned long long)count, m_f = (unsigned long long)frontier_edges;
    long long m_u = unexplored;
    unsigned int barriers = 0;
#if GL_DEFER_RECORDS
    vid_t held[GL_DEGREE];  // this thread's winners of the level's last pass, recorded after its barrier
    unsigned int held_wins = 0;
    vid_t held_from = 0;
#endif
    int at = 0;  // (level - first_level) mod 3
    int level = first_level;
    for (;; ++level) {
        const int after = at == 2 ? 0 : at + 1;
        // Level L + 1's words were last read before the barrier ending L - 1.
        if (reporter) {
            ctl[GL_CTL_FOUND + after] = 0;
            ctl[GL_CTL_DEGREE + after] = 0;
        }
        for (long long base = warp_first; base < (long long)size; base += threads) {  // warp-uniform
            const long long k = base + lane;
            vid_t u = 0;
            eid_t row = 0;
            unsigned int degree = 0;
            if (k < (long long)size) {
                u = __ldcg(in + k);
                row = indptr[u];
                degree = (unsigned int)(indptr[u + 1] - row);
            }
            // Every neighbour load before any claim: the claims' atomics would
            // otherwise keep the loads one L2 round trip apart.
            vid_t w[GL_DEGREE];
#pragma unroll
            for (int e = 0; e < GL_DEGREE; ++e) w[e] = (e < (int)degree) ? indices[row + e] : 0;
            unsigned int open = 0;
#pragma unroll
            for (int e = 0; e < GL_DEGREE; ++e)
                if (e < (int)degree && !bit_test(visited, w[e])) open |= 1u << e;
            unsigned int wins = 0;
#pragma unroll
            for (int e = 0; e < GL_DEGREE; ++e)
                if ((open & (1u << e)) && bit_claim(visited, w[e])) wins |= 1u << e;
            // The winners' out-degrees: the next frontier's m_f.
            const bool defer = GL_DEFER_RECORDS && base + threads >= (long long)size;  // the level's last pass
            unsigned int won_degree = 0;
#pragma unroll
            for (int e = 0; e < GL_DEGREE; ++e)
                if (wins & (1u << e)) {
                    if (!defer) record_visit(levels, parents, w[e], level, u);
                    won_degree += (unsigned int)vertex_degree(indptr, w[e]);
                }
#if GL_DEFER_RECORDS
            if (defer) {
                held_wins = wins;
                held_from = u;
#pragma unroll
                for (int e = 0; e < GL_DEGREE; ++e) held[e] = w[e];
            }
#endif
            // Append: one inclusive warp scan of (degrees << 32 | wins), one
            // global atomic per warp for each sum.
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
                unsigned long long position = first + (unsigned int)inclusive - won;
#pragma unroll
                for (int e = 0; e < GL_DEGREE; ++e)
                    if (wins & (1u << e)) out[position++] = w[e];
            }
        }
        grid_barrier(arrived, gridDim.x * ++barriers);
        const unsigned long long found = __ldcg(&ctl[GL_CTL_FOUND + at]);
        const unsigned long long found_degree = __ldcg(&ctl[GL_CTL_DEGREE + at]);
#if GL_DEFER_RECORDS
        // No other block reads levels or parents in this launch: their stores
        // can wait until after the barrier, whose release then waits only for
        // the queue's.
        if (held_wins) {
#pragma unroll
            for (int e = 0; e < GL_DEGREE; ++e)
                if (held_wins & (1u << e)) record_visit(levels, parents, held[e], level, held_from);
            held_wins = 0;
        }
#endif
        if (reporter) {
            long long* stats = level_stats + 1 + (long long)SB_STATS_FIELDS * (level - first_level);
            stats[0] = (long long)size;
            stats[1] = (long long)m_f;
            stats[2] = (long long)global_timer_ns();
        }
        // The host's bookkeeping (BFSSearch._advance): m_u loses the new frontier's out-edges.
        m_u -= (long long)found_degree;
        size = found;
        m_f = found_degree;
        vid_t* swap = out;
        out = in;
        in = swap;
        at = after;
        if (level + 1 > max_level ||
            !gl_next_runs(size, m_f, m_u, block_vertices, block_edges, min_edges, edges, unexplored_alpha))
            break;
    }
    if (reporter) {
        counters[CNT_NEXT_COUNT] = size;
        counters[CNT_NEXT_DEGREE] = m_f;
        counters[CNT_LEVELS_RUN] = (counter_t)(level - first_level + 1);
    }
}
