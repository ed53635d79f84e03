// The fold of seed 000's 2-D BFS (sec. 2.4, fig. 8) with a rank's block on
// its GPU (wavefront/distributed/gpu.py): the targets a block step claimed
// go to their owners as (vertex, parent) pairs, and each owner accepts the
// vertices not yet visited.
//
// Three kernels, so that a level costs a few launches and one host round
// trip per side instead of a dozen CuPy operations (sort, bincount, unique,
// boolean compactions), each of which synchronizes:
//   fold_count  claimed targets per owner (the all-to-all-v's counts);
//   fold_pack   the pairs grouped by owner, into slots reserved per block;
//   fold_accept an owner's side: first offer wins (compare-and-swap on the
//               parent), its level is set, its bit set in the piece bitmap,
//               and the accepted count and degree sum are added up;
//   fold_accept_claimed  the same straight from the step's queue, where the
//               grid row has one rank (nothing to fold).
// Order inside an owner's group is not fixed (blocks reserve their slots
// with atomics); the winner among offers of one vertex may then change
// between runs, but every offer is a neighbour one level up, so levels do not
// change and any winner is a valid parent.
#include "common.cuh"

#ifndef FOLD_MAX_OWNERS
#define FOLD_MAX_OWNERS 1024  // grid columns a fold may address (shared-memory counters); abi.py's value
#endif

// counts[o] += number of targets (row-local ids) owned by grid column o;
// counts must be zeroed first.
extern "C" __global__ void fold_count(const vid_t* targets, long long found, long long piece, int owners,
                                      unsigned long long* counts) {
    __shared__ unsigned int local[FOLD_MAX_OWNERS];
    for (int o = threadIdx.x; o < owners; o += blockDim.x) local[o] = 0;
    __syncthreads();
    long long i = global_thread_id();
    if (i < found) atomicAdd(&local[(long long)targets[i] / piece], 1u);
    __syncthreads();
    for (int o = threadIdx.x; o < owners; o += blockDim.x)
        if (local[o]) atomicAdd(&counts[o], (unsigned long long)local[o]);
}

// The pairs of the claimed targets, grouped by owner: cursor[o] starts at
// the first slot of owner o's group (an exclusive scan of fold_count's
// counts) and each block reserves its run there. With shift > 0 a pair is
// one int64, (global parent << shift) | owner-local vertex; else two
// int64s, vertex then parent.
extern "C" __global__ void fold_pack(const vid_t* targets, long long found, long long piece, int owners,
                                     const long long* step_parents, long long col_offset, int shift,
                                     unsigned long long* cursor, long long* pairs) {
    __shared__ unsigned int local[FOLD_MAX_OWNERS];
    __shared__ unsigned long long base[FOLD_MAX_OWNERS];
    for (int o = threadIdx.x; o < owners; o += blockDim.x) local[o] = 0;
    __syncthreads();
    long long i = global_thread_id();
    long long target = 0, owner = 0;
    unsigned int rank = 0;
    if (i < found) {
        target = (long long)targets[i];
        owner = target / piece;
        rank = atomicAdd(&local[owner], 1u);
    }
    __syncthreads();
    for (int o = threadIdx.x; o < owners; o += blockDim.x)
        if (local[o]) base[o] = atomicAdd(&cursor[o], (unsigned long long)local[o]);
    __syncthreads();
    if (i < found) {
        long long slot = (long long)(base[owner] + rank);
        long long vertex = target - owner * piece;
        long long parent = step_parents[target] + col_offset;
        if (shift > 0) {
            pairs[slot] = (parent << shift) | vertex;
        } else {
            pairs[2 * slot] = vertex;
            pairs[2 * slot + 1] = parent;
        }
    }
}

// What an owner does for each vertex it accepts, shared by the two accept
// kernels: the level, the vertex's bit in piece_bits (zeroed first), and
// stats[0] += vertices accepted, stats[1] += their degrees. Every thread of
// the block must call it (accepted or not). Accepted vertices arrive mostly
// in increasing order, so the lanes of a warp share a few bitmap words:
// one atomicOr per word a warp touches (lanes grouped by __match_any_sync),
// and one atomic per block for each total, where one atomic per vertex or
// per warp serialized on a few addresses (SCALE 26, one rank on an H100:
// 6.4 ms to accept 28 M vertices; docs/decisions/distributed.md).
__device__ __forceinline__ void mark_accepted(bool accepted, long long vertex, int level, int* own_levels,
                                              const long long* degree, word_t* piece_bits,
                                              unsigned long long* stats) {
    __shared__ unsigned long long block_counts[2];
    if (threadIdx.x == 0) block_counts[0] = block_counts[1] = 0;
    __syncthreads();
    long long edges = 0;
    unsigned int bit = 0u;
    long long word = -1;
    if (accepted) {
        own_levels[vertex] = level;
        edges = degree[vertex];
        bit = 1u << (vertex & 31);
        word = vertex >> 5;
    }
    unsigned int peers = __match_any_sync(0xffffffffu, word);
    unsigned int bits = 0u;
    for (int lane = 0; lane < 32; ++lane) {
        unsigned int other = __shfl_sync(0xffffffffu, bit, lane);
        if ((peers >> lane) & 1u) bits |= other;
    }
    int lane_id = threadIdx.x & 31;
    if (accepted && lane_id == __ffs(peers) - 1) atomicOr(&piece_bits[word], bits);
    unsigned int ballot = __ballot_sync(0xffffffffu, accepted);
    for (int offset = 16; offset > 0; offset >>= 1) edges += __shfl_down_sync(0xffffffffu, edges, offset);
    if (lane_id == 0 && ballot) {
        atomicAdd(&block_counts[0], (unsigned long long)__popc(ballot));
        atomicAdd(&block_counts[1], (unsigned long long)edges);
    }
    __syncthreads();
    if (threadIdx.x == 0 && block_counts[0]) {
        atomicAdd(&stats[0], block_counts[0]);
        atomicAdd(&stats[1], block_counts[1]);
    }
}

// An owner's side of the fold: for each pair received, the first offer to
// an unvisited vertex sets its parent (then mark_accepted).
extern "C" __global__ void fold_accept(const long long* received, long long count, int shift, int level,
                                       long long* own_parents, int* own_levels, const long long* degree,
                                       word_t* piece_bits, unsigned long long* stats) {
    long long i = global_thread_id();
    bool accepted = false;
    long long vertex = 0;
    if (i < count) {
        long long parent;
        if (shift > 0) {
            long long x = received[i];
            vertex = x & ((1LL << shift) - 1);
            parent = x >> shift;
        } else {
            vertex = received[2 * i];
            parent = received[2 * i + 1];
        }
        unsigned long long unset = ~0ULL;  // -1: no parent yet
        accepted = atomicCAS((unsigned long long*)&own_parents[vertex], unset, (unsigned long long)parent) == unset;
    }
    mark_accepted(accepted, vertex, level, own_levels, degree, piece_bits, stats);
}

// A one-rank grid row (one grid column) has nothing to fold: its rank owns
// every target its step claims, and the step claimed each through the
// visited bitmap once, so it accepts them straight from the step's queue
// with plain stores (no pairs, no all-to-all, no compare-and-swap).
extern "C" __global__ void fold_accept_claimed(const vid_t* targets, long long found,
                                               const long long* step_parents, long long col_offset, int level,
                                               long long* own_parents, int* own_levels, const long long* degree,
                                               word_t* piece_bits, unsigned long long* stats) {
    long long i = global_thread_id();
    long long vertex = 0;
    if (i < found) {
        vertex = (long long)targets[i];
        own_parents[vertex] = step_parents[vertex] + col_offset;
    }
    mark_accepted(i < found, vertex, level, own_levels, degree, piece_bits, stats);
}
