// The 2-D BFS on a one-column grid's GPU blocks (R x 1, wavefront/distributed/gpu.py,
// launched by wavefront/distributed/gpu_steps.py): a rank's row block is its own piece
// and its column block every vertex, so its steps write the owner's results and its
// finds travel as ids or a bitmap over the column. What this file adds to the
// single-GPU steps: starting a search, and the finds as global ids.
#include "common.cuh"

// The search's start on a rank: visited = the row block's unreachable bits,
// plus the root's where this rank owns it (`local` >= 0, its index in the
// rank's piece: level 0, its global id `root` as parent), and `queued`
// (>= 0) as the queue's one entry: the root's global id on every rank for a
// top-down level 1, its local id on the owner for a bottom-up one. One
// launch for what took four CuPy copies and assignments (~80 us of host time
// a search on an H100 host).
extern "C" __global__ void start_distributed(long long words, long long local, long long root,
                                             long long queued, const word_t* unreachable, word_t* visited,
                                             int* levels, long long* parents, vid_t* queue) {
    long long i = global_thread_id();
    if (i < words) {
        word_t w = unreachable[i];
        if (local >= 0 && i == (local >> 5)) w |= 1u << (local & 31);
        visited[i] = w;
    }
    if (i == 0) {
        if (local >= 0) {
            levels[local] = 0;
            parents[local] = root;
        }
        if (queued >= 0) queue[0] = (vid_t)queued;
    }
}

// out[i] = queue[i] + offset for i < count: the rank's owner-local finds as
// global ids, written at the rank's place in the column all-gather's
// output (a CuPy in-place add took ~30 us of host time a level).
extern "C" __global__ void offset_queue(const vid_t* queue, long long count, long long offset, vid_t* out) {
    long long i = global_thread_id();
    if (i < count) out[i] = (vid_t)((long long)queue[i] + offset);
}
