// Frontier-based top-down steps (PMPP ch. 15.5-15.6, seeds 003/004: figs.
// 15.11-15.15; seed 003's hierarchical queues).
//
// frontier_step: one thread per frontier vertex; a neighbour is claimed with
//   atomicCAS(level, UNVISITED, level) and the winner appends it to the next
//   frontier through one global atomic tail.
// frontier_privatized_step: the same claims, but winners go to a block-level
//   queue in shared memory; each warp reserves its slots there with one
//   shared atomic (warp aggregation, the job of the book's warp-level
//   sub-queues: it cuts contention on the block tail by up to 32x). At the
//   end one thread reserves the block's range in the global queue with a
//   single atomicAdd and the block copies its queue out with coalesced
//   stores. Winners that find the block queue full go straight to the
//   global queue (overflow).
#include "common.cuh"

#ifndef BLOCK_QUEUE_CAPACITY
#define BLOCK_QUEUE_CAPACITY 2048
#endif

extern "C" __global__ void frontier_step(const vid_t* frontier, long long count, int level,
                                         const eid_t* indptr, const vid_t* indices, int* levels,
                                         long long* parents, vid_t* next, counter_t* counters) {
    long long i = global_thread_id();
    long long examined = 0, degree_sum = 0;
    if (i < count) {
        vid_t u = frontier[i];
        eid_t begin = indptr[u], end = indptr[u + 1];
        for (eid_t e = begin; e < end; ++e) {
            vid_t w = indices[e];
            if (levels[w] == WF_UNVISITED && atomicCAS(&levels[w], WF_UNVISITED, level) == WF_UNVISITED) {
                parents[w] = (long long)u;
                next[atomicAdd(&counters[CNT_NEXT_COUNT], 1ULL)] = w;
                degree_sum += vertex_degree(indptr, w);
            }
        }
        examined = end - begin;
    }
    warp_add(&counters[CNT_EDGES], examined);
    warp_add(&counters[CNT_NEXT_DEGREE], degree_sum);
}

extern "C" __global__ void frontier_privatized_step(const vid_t* frontier, long long count,
                                                    int level, const eid_t* indptr,
                                                    const vid_t* indices, int* levels,
                                                    long long* parents, vid_t* next,
                                                    counter_t* counters) {
    __shared__ vid_t block_queue[BLOCK_QUEUE_CAPACITY];
    __shared__ unsigned int block_tail;
    __shared__ counter_t global_base;
    if (threadIdx.x == 0) block_tail = 0;
    __syncthreads();

    long long i = global_thread_id();
    long long examined = 0, degree_sum = 0;
    if (i < count) {
        vid_t u = frontier[i];
        eid_t begin = indptr[u], end = indptr[u + 1];
        for (eid_t e = begin; e < end; ++e) {
            vid_t w = indices[e];
            bool won = levels[w] == WF_UNVISITED &&
                       atomicCAS(&levels[w], WF_UNVISITED, level) == WF_UNVISITED;
            if (won) {
                parents[w] = (long long)u;
                degree_sum += vertex_degree(indptr, w);
            }
            // Warp-level reservation in the block queue.
            unsigned active = __activemask();
            unsigned ballot = __ballot_sync(active, won);
            if (ballot) {
                int lane = threadIdx.x & 31;
                int leader = __ffs(ballot) - 1;
                unsigned int base = 0;
                if (lane == leader) base = atomicAdd(&block_tail, (unsigned int)__popc(ballot));
                base = __shfl_sync(active, base, leader);
                unsigned int slot = base + __popc(ballot & ((1u << lane) - 1u));
                if (won) {
                    if (slot < BLOCK_QUEUE_CAPACITY)
                        block_queue[slot] = w;
                    else  // overflow: straight to the global queue
                        next[atomicAdd(&counters[CNT_NEXT_COUNT], 1ULL)] = w;
                }
            }
        }
        examined = end - begin;
    }
    __syncthreads();
    unsigned int kept = min(block_tail, (unsigned int)BLOCK_QUEUE_CAPACITY);
    if (threadIdx.x == 0 && kept > 0) global_base = atomicAdd(&counters[CNT_NEXT_COUNT], (counter_t)kept);
    __syncthreads();
    for (unsigned int k = threadIdx.x; k < kept; k += blockDim.x) next[global_base + k] = block_queue[k];
    warp_add(&counters[CNT_EDGES], examined);
    warp_add(&counters[CNT_NEXT_DEGREE], degree_sum);
}
