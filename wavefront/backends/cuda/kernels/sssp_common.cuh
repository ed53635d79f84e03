// Shared definitions for the SSSP kernels (sssp_*.cu).
//
// Arithmetic: SSSP_WEIGHT picks the arc weight type and the distance type the
// search computes in (SSSP_WEIGHT_FLOAT32: float32 -> float, _FLOAT64: float64
// -> double, _INT32: int32 -> int64, _INT64: int64 -> int64, _NONE: unweighted,
// every arc weighs 1 -> int64; the codes are abi.py's).
// Distances are non-negative, so atomicMin works on their bit patterns:
// float as unsigned int, double as unsigned long long, int64 directly.
// Each distance is computed as fl(d[u] + w) in the distance type, so the
// parent pass can confirm it with the same expression, bit for bit.
#pragma once

#include "index_types.cuh"

#ifndef SSSP_WEIGHT_FLOAT32
#define SSSP_WEIGHT_FLOAT32 0
#endif
#ifndef SSSP_WEIGHT_FLOAT64
#define SSSP_WEIGHT_FLOAT64 1
#endif
#ifndef SSSP_WEIGHT_INT32
#define SSSP_WEIGHT_INT32 2
#endif
#ifndef SSSP_WEIGHT_INT64
#define SSSP_WEIGHT_INT64 3
#endif
#ifndef SSSP_WEIGHT_NONE
#define SSSP_WEIGHT_NONE 4
#endif
#ifndef SSSP_WEIGHT
#define SSSP_WEIGHT SSSP_WEIGHT_FLOAT32
#endif
// An unreached vertex's distance in integer arithmetic (the host reads it back).
#ifndef SSSP_INT_INFINITY
#define SSSP_INT_INFINITY 0x7fffffffffffffffLL
#endif
// Kinds of the persistent kernels' trace rows (write_trace_row), read by the host.
#ifndef SSSP_TRACE_NEAR
#define SSSP_TRACE_NEAR 0   // a near iteration: vertices relaxed
#endif
#ifndef SSSP_TRACE_SPLIT
#define SSSP_TRACE_SPLIT 1  // a split: far-pile length
#endif
#ifndef SSSP_TRACE_END
#define SSSP_TRACE_END 2    // the row after the last: its time closes the last iteration
#endif
#ifndef SSSP_TRACE_HEAVY
#define SSSP_TRACE_HEAVY 3  // a heavy step in push form
#endif
#ifndef SSSP_TRACE_PULL
#define SSSP_TRACE_PULL 4   // a heavy step in pull form
#endif
#ifndef SSSP_TRACE_ASYNC
#define SSSP_TRACE_ASYNC 5  // an asynchronous bucket: vertices relaxed
#endif
// Out-lists at least this long are walked by a whole warp, coalesced.
#ifndef SSSP_WARP_COOP_DEGREE
#define SSSP_WARP_COOP_DEGREE 32
#endif

#if SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32
typedef float weight_t;
typedef float dist_t;
#elif SSSP_WEIGHT == SSSP_WEIGHT_FLOAT64
typedef double weight_t;
typedef double dist_t;
#elif SSSP_WEIGHT == SSSP_WEIGHT_INT32
typedef int weight_t;
typedef long long dist_t;
#elif SSSP_WEIGHT == SSSP_WEIGHT_INT64
typedef long long weight_t;
typedef long long dist_t;
#else
typedef unsigned char weight_t;  // never read
typedef long long dist_t;
#endif

#define SSSP_FULL_MASK 0xffffffffu

__device__ __forceinline__ unsigned int lane_id() { return threadIdx.x & 31u; }

__device__ __forceinline__ dist_t arc_weight(const weight_t* __restrict__ weights, eid_t i) {
#if SSSP_WEIGHT == SSSP_WEIGHT_NONE
    return 1;
#else
    return (dist_t)weights[i];
#endif
}

__device__ __forceinline__ dist_t dist_infinity() {
#if SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32
    return __int_as_float(0x7f800000);
#elif SSSP_WEIGHT == SSSP_WEIGHT_FLOAT64
    return __longlong_as_double(0x7ff0000000000000LL);
#else
    return SSSP_INT_INFINITY;
#endif
}

// The smallest distance greater than x (x finite and non-negative).
__device__ __forceinline__ dist_t dist_next_above(dist_t x) {
#if SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32
    return __int_as_float(__float_as_int(x) + 1);
#elif SSSP_WEIGHT == SSSP_WEIGHT_FLOAT64
    return __longlong_as_double(__double_as_longlong(x) + 1);
#else
    return x + 1;
#endif
}

// atomicMin on a non-negative distance; returns the previous value.
__device__ __forceinline__ dist_t atomic_min_dist(dist_t* p, dist_t v) {
#if SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32
    return __uint_as_float(atomicMin(reinterpret_cast<unsigned int*>(p), __float_as_uint(v)));
#elif SSSP_WEIGHT == SSSP_WEIGHT_FLOAT64
    return __longlong_as_double((long long)atomicMin(
        reinterpret_cast<unsigned long long*>(p), (unsigned long long)__double_as_longlong(v)));
#else
    return atomicMin(reinterpret_cast<long long*>(p), (long long)v);
#endif
}

// Parents recorded during the search (float32 distances, 32-bit ids): one
// 64-bit word per vertex, the distance's bits above the parent's id, lowered
// with atomicMin by every relaxation that lowers the distance. Only the one
// that lowered dist[v] to its final value x writes a word holding x, so at the
// end record[v] names that relaxation's tail u, and fl(d(u) + w) == x still
// holds for u's final distance d(u): had d(u) dropped later, u would have
// relaxed the arc again and either lowered dist[v] (contradiction) or got the
// same sum. u reached its own final distance before v did, so the recorded
// parents form a tree even across equal distances (zero or negligible weights).
// This replaces the pull pass over every in-arc (sssp_parents.cu) with one read
// per vertex.
#ifndef SSSP_RECORDS_PARENTS
#define SSSP_RECORDS_PARENTS (SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32 && !WF_INDEX64)
#endif

__device__ __forceinline__ void record_parent(unsigned long long* record, dist_t d, vid_t parent) {
#if SSSP_RECORDS_PARENTS
    atomicMin(record, ((unsigned long long)__float_as_uint(d) << 32) | (unsigned int)parent);
#endif
}

// True when a recorded word holds exactly the distance d.
__device__ __forceinline__ bool record_matches(unsigned long long word, dist_t d) {
#if SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32
    return (unsigned int)(word >> 32) == __float_as_uint(d);
#else
    return false;
#endif
}

// Warp-aggregated append, called by all 32 lanes together (warp-uniform
// control flow): the lanes with `want` reserve their slots with one atomicAdd.
// Explicit `want` instead of __activemask(): the compiler may predicate a
// branch, and then the active mask would count lanes that do not append.
// warp_reserve gives each wanting lane its slot (false on every lane when no
// lane wants one); `tail` may be in global or shared memory.
__device__ __forceinline__ bool warp_reserve(unsigned int* tail, bool want, unsigned int* slot) {
    unsigned int ballot = __ballot_sync(SSSP_FULL_MASK, want);
    if (ballot == 0) return false;
    int leader = __ffs(ballot) - 1;
    unsigned int base = 0;
    if ((int)lane_id() == leader) base = atomicAdd(tail, (unsigned int)__popc(ballot));
    base = __shfl_sync(SSSP_FULL_MASK, base, leader);
    *slot = base + __popc(ballot & ((1u << lane_id()) - 1u));
    return true;
}

template <typename T>
__device__ __forceinline__ void warp_append(T* queue, unsigned int* tail, T value, bool want) {
    unsigned int slot;
    if (warp_reserve(tail, want, &slot) && want) queue[slot] = value;
}

// The sum of every lane's x, on every lane (all 32 lanes together).
__device__ __forceinline__ unsigned long long warp_sum(unsigned long long x) {
    for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(SSSP_FULL_MASK, x, offset);
    return x;
}

// All 32 lanes, K flags each: where this lane's first wanted value goes among
// the warp's (an exclusive scan of the lanes' counts); *total: the warp's count.
template <int K>
__device__ __forceinline__ unsigned int warp_rank_many(const bool* want, unsigned int* total) {
    unsigned int mine = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) mine += want[k] ? 1u : 0u;
    unsigned int inclusive = mine;
    for (int offset = 1; offset < 32; offset <<= 1) {
        unsigned int up = __shfl_up_sync(SSSP_FULL_MASK, inclusive, offset);
        if ((int)lane_id() >= offset) inclusive += up;
    }
    *total = __shfl_sync(SSSP_FULL_MASK, inclusive, 31);
    return inclusive - mine;
}

// warp_append for K values per lane: one atomicAdd per warp for all of them.
template <int K, typename T>
__device__ __forceinline__ void warp_append_many(T* queue, unsigned int* tail, const T* values,
                                                 const bool* want) {
    unsigned int total;
    const unsigned int rank = warp_rank_many<K>(want, &total);
    if (total == 0) return;
    unsigned int base = 0;
    if (lane_id() == 31) base = atomicAdd(tail, total);
    unsigned int at = __shfl_sync(SSSP_FULL_MASK, base, 31) + rank;
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (want[k]) queue[at++] = values[k];
}

// Calls visit(valid, d, i) for every arc i in [begin, end) of each active
// lane (valid == true), d being that lane's distance. All 32 lanes call visit
// in lock step (padding steps have valid == false), so visit may use
// warp_append. Lists of SSSP_WARP_COOP_DEGREE arcs or more are walked by the
// whole warp in coalesced strides, one list at a time; shorter ones by their
// own lane, for as many steps as the longest of them.
// All 32 lanes: for each lane with `mine` set, one after another, calls
// list(begin, end, d, leader) with that lane's list on every lane, so that the
// whole warp walks it.
template <typename List>
__device__ __forceinline__ void for_each_warp_list(bool mine, eid_t begin, eid_t end, dist_t d,
                                                   List list) {
    unsigned int pending = __ballot_sync(SSSP_FULL_MASK, mine);
    while (pending) {
        const int leader = __ffs(pending) - 1;
        pending &= pending - 1u;
        list(__shfl_sync(SSSP_FULL_MASK, begin, leader), __shfl_sync(SSSP_FULL_MASK, end, leader),
             __shfl_sync(SSSP_FULL_MASK, d, leader), leader);
    }
}

template <typename Visit>
__device__ __forceinline__ void for_each_arc(bool active, eid_t begin, eid_t end, dist_t d,
                                             Visit visit) {
    bool cooperative = active && (end - begin) >= SSSP_WARP_COOP_DEGREE;
    for_each_warp_list(cooperative, begin, end, d, [&](eid_t b, eid_t e, dist_t dl, int) {
        for (eid_t base = b; base < e; base += 32) visit(base + lane_id() < e, dl, base + lane_id());
    });
    unsigned int length = (active && !cooperative) ? (unsigned int)(end - begin) : 0u;
    unsigned int longest = __reduce_max_sync(SSSP_FULL_MASK, length);
    for (unsigned int k = 0; k < longest; ++k) visit(k < length, d, begin + k);
}

// Near-far's next threshold after `threshold`: one delta up, and past the
// smallest far distance (plus delta), so that a split always moves at least
// one far vertex and empty buckets are skipped.
__device__ __forceinline__ dist_t next_threshold(dist_t threshold, dist_t delta, dist_t smallest_far) {
    const dist_t raised = threshold + delta, skip = smallest_far + delta;
    const dist_t above = dist_next_above(smallest_far);
    dist_t next = raised > skip ? raised : skip;
    return next > above ? next : above;
}
