"""numba SSSP kernels: serial Dijkstra, the bulk-synchronous delta-stepping
phases (the distributed SSSP's), the parent pass. The fused delta-stepping
of the CPU backend is :mod:`._sssp_fused`.

* :func:`dijkstra_kernel` -- Dijkstra with an indexed binary heap
  (decrease-key; keys kept in the heap), the serial oracle.
* :func:`relax_phase` -- one delta-stepping phase (Meyer & Sanders 2003):
  relax the light (``w <= delta``) or heavy (``w > delta``) out-edges of a
  frontier in parallel, lowering distances with a compare-and-swap loop
  (the atomic ``min`` of seed 001's RELAX; its Algorithm 2 races without
  it). Improved vertices whose bucket is the current one join the next
  *near* frontier, later ones the *far* pile, each at most once (flags).
* :func:`far_min_bucket` / :func:`split_far` -- when the current bucket is
  empty, jump to the lowest non-empty bucket and move its vertices from the
  far pile to the near frontier (the near/far split of Davidson et al.
  2014, with delta-stepping's buckets).
* :func:`tight_parents` / :func:`zero_weight_parents` -- derive a
  shortest-path tree from final distances: ``parents[v] = u`` only for an
  arc with ``dist[u] + w == dist[v]`` in the distance dtype, so the tree
  passes Graph500's exact check; first from strictly closer vertices, then
  breadth-first within a distance, so it has no cycle.

A vertex's bucket is ``int(d / delta)``, evaluated the same way everywhere:
it is monotone in ``d``, which is all correctness needs.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._atomics import compare_and_swap, fetch_add, push_block

BLOCK = 64  # frontier entries a worker takes at a time
LOCAL_BUFFER = 1024  # per-worker queue buffer, flushed with one fetch-add

# Slots of the int64 ``counters`` scratch array shared by the phase kernels.
NEAR_TAIL, FAR_TAIL, PROCESSED_TAIL, CURSOR = 0, 1, 2, 3


@njit(cache=True)
def dijkstra_kernel(indptr, indices, weights, sources, dist, parents, cutoff):
    """Dijkstra from every vertex of ``sources`` (int64, distinct); ``dist``/``parents``
    arrive filled with inf / -1.

    Arcs leading past ``cutoff`` are not taken. Returns the edges examined.
    Each heap slot keeps its key beside its vertex, so a sift compares
    contiguous keys instead of looking each vertex's distance up (12-30 %
    faster on the DIMACS roads, docs/decisions/cpu-roads.md).
    """
    n = dist.shape[0]
    heap = np.empty(n, dtype=np.int64)
    keys = np.empty(n, dtype=dist.dtype)
    position = np.full(n, -1, dtype=np.int64)  # -1 never queued, -2 settled
    size = 0
    for s in sources:  # all at distance 0, so any order is a heap
        dist[s] = 0
        parents[s] = s
        heap[size] = s
        keys[size] = 0
        position[s] = size
        size += 1
    examined = 0
    while size:
        u = heap[0]
        du = keys[0]
        position[u] = -2
        size -= 1
        if size:
            _sift_down(heap, keys, position, heap[size], keys[size], size)
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            examined += 1
            candidate = du + weights[j]
            if candidate < dist[v] and candidate <= cutoff:
                dist[v] = candidate
                parents[v] = u
                i = position[v]
                if i == -1:
                    i = size
                    size += 1
                _sift_up(heap, keys, position, v, candidate, i)
    return examined


@njit(cache=True)
def _sift_up(heap, keys, position, v, key, i):
    """Place ``v`` with ``key`` at slot ``i`` or above (its key fell, or it is new)."""
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= key:
            break
        p = heap[parent]
        heap[i] = p
        keys[i] = keys[parent]
        position[p] = i
        i = parent
    heap[i] = v
    keys[i] = key
    position[v] = i


@njit(cache=True)
def _sift_down(heap, keys, position, v, key, size):
    """Place ``v`` with ``key`` from the root down, in a heap of ``size`` slots."""
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        c = heap[child]
        heap[i] = c
        keys[i] = keys[child]
        position[c] = i
        i = child
    heap[i] = v
    keys[i] = key
    position[v] = i


@njit(parallel=True, cache=True)
def relax_phase(
    indptr, indices, weights, dist, frontier, frontier_size, delta, light, bucket, cutoff,
    near, near_flags, far, far_flags, processed, processed_flags, counters, workers,
):
    """Relax the light (``light``) or heavy edges of ``frontier[:frontier_size]``.

    Writes the next near frontier to ``near`` (tail ``counters[NEAR_TAIL]``,
    reset here), appends to ``far`` (``counters[FAR_TAIL]``) and, in light
    phases, records first-time frontier vertices in ``processed`` (whose
    heavy edges the bucket relaxes at its end). Returns edges examined.
    """
    for i in prange(frontier_size):
        near_flags[frontier[i]] = 0  # a vertex improved again must be able to re-enter
    counters[NEAR_TAIL] = 0
    counters[CURSOR] = 0
    examined = 0
    for _ in prange(workers):
        near_local = np.empty(LOCAL_BUFFER, dtype=near.dtype)
        far_local = np.empty(LOCAL_BUFFER, dtype=far.dtype)
        done_local = np.empty(LOCAL_BUFFER, dtype=processed.dtype)
        near_count = 0
        far_count = 0
        done_count = 0
        my_examined = 0
        while True:
            start = fetch_add(counters, CURSOR, BLOCK)
            if start >= frontier_size:
                break
            for i in range(start, min(start + BLOCK, frontier_size)):
                u = frontier[i]
                if light and processed_flags[u] == 0 and compare_and_swap(processed_flags, u, 0, 1):
                    done_local[done_count] = u
                    done_count += 1
                    if done_count == LOCAL_BUFFER:
                        push_block(done_local, done_count, processed, counters, PROCESSED_TAIL)
                        done_count = 0
                du = dist[u]
                for j in range(indptr[u], indptr[u + 1]):
                    w = weights[j]
                    if (w <= delta) != light:
                        continue
                    my_examined += 1
                    candidate = du + w
                    if candidate > cutoff:
                        continue
                    v = indices[j]
                    while True:
                        old = dist[v]
                        if candidate >= old:
                            break
                        if compare_and_swap(dist, v, old, candidate):
                            if np.int64(candidate / delta) <= bucket:
                                if near_flags[v] == 0 and compare_and_swap(near_flags, v, 0, 1):
                                    near_local[near_count] = v
                                    near_count += 1
                                    if near_count == LOCAL_BUFFER:
                                        push_block(near_local, near_count, near, counters, NEAR_TAIL)
                                        near_count = 0
                            elif far_flags[v] == 0 and compare_and_swap(far_flags, v, 0, 1):
                                far_local[far_count] = v
                                far_count += 1
                                if far_count == LOCAL_BUFFER:
                                    push_block(far_local, far_count, far, counters, FAR_TAIL)
                                    far_count = 0
                            break
        if near_count:
            push_block(near_local, near_count, near, counters, NEAR_TAIL)
        if far_count:
            push_block(far_local, far_count, far, counters, FAR_TAIL)
        if done_count:
            push_block(done_local, done_count, processed, counters, PROCESSED_TAIL)
        examined += my_examined
    return examined


@njit(parallel=True, cache=True)
def far_min_bucket(far, far_size, dist, delta, bucket):
    """The lowest bucket above ``bucket`` holding a far-pile vertex (-1 if none).

    Entries at or below ``bucket`` are stale: those vertices were improved
    into an earlier bucket and processed there.
    """
    none = np.iinfo(np.int64).max
    lowest = none
    for i in prange(far_size):
        b = np.int64(dist[far[i]] / delta)
        if b > bucket:
            lowest = min(lowest, b)
    return -1 if lowest == none else lowest


@njit(parallel=True, cache=True)
def split_far(far, far_size, dist, delta, stale_bucket, bucket, near, near_flags, far_next, far_flags, counters, workers):
    """Move far-pile vertices of ``bucket`` to ``near``, drop stale ones, keep the rest in ``far_next``.

    Returns (near size, far_next size).
    """
    counters[NEAR_TAIL] = 0
    counters[FAR_TAIL] = 0
    counters[CURSOR] = 0
    for _ in prange(workers):
        near_local = np.empty(LOCAL_BUFFER, dtype=near.dtype)
        keep_local = np.empty(LOCAL_BUFFER, dtype=far_next.dtype)
        near_count = 0
        keep_count = 0
        while True:
            start = fetch_add(counters, CURSOR, BLOCK)
            if start >= far_size:
                break
            for i in range(start, min(start + BLOCK, far_size)):
                v = far[i]
                b = np.int64(dist[v] / delta)
                if b > bucket:
                    keep_local[keep_count] = v
                    keep_count += 1
                    if keep_count == LOCAL_BUFFER:
                        push_block(keep_local, keep_count, far_next, counters, FAR_TAIL)
                        keep_count = 0
                    continue
                far_flags[v] = 0
                if b > stale_bucket:
                    near_flags[v] = 1
                    near_local[near_count] = v
                    near_count += 1
                    if near_count == LOCAL_BUFFER:
                        push_block(near_local, near_count, near, counters, NEAR_TAIL)
                        near_count = 0
        if near_count:
            push_block(near_local, near_count, near, counters, NEAR_TAIL)
        if keep_count:
            push_block(keep_local, keep_count, far_next, counters, FAR_TAIL)
    return counters[NEAR_TAIL], counters[FAR_TAIL]


@njit(parallel=True, cache=True)
def clear_flags(vertices, count, flags):
    for i in prange(count):
        flags[vertices[i]] = 0


@njit(parallel=True, cache=True)
def tight_parents(in_indptr, in_indices, in_weights, dist, infinity, sources, parents):
    """Give every reached vertex a parent along a tight arc from a strictly
    closer vertex (so the tree is acyclic: distances fall along it).

    A positive weight is not enough: in float arithmetic ``d + w == d`` for
    a weight below half an ulp of ``d``, and two vertices at one distance
    joined by such an arc would each take the other. Returns how many
    reached vertices found none (only tight arcs within their own distance
    lead to them); :func:`zero_weight_parents` finishes those.
    """
    unresolved = 0
    for v in prange(dist.shape[0]):
        parents[v] = -1
        dv = dist[v]
        if dv == infinity:
            continue
        for j in range(in_indptr[v], in_indptr[v + 1]):
            w = in_weights[j]
            u = in_indices[j]
            if dist[u] != infinity and dist[u] < dv and dist[u] + w == dv:
                parents[v] = u
                break
        if parents[v] < 0:
            unresolved += 1
    # Every source (``sources``: int64, distance 0) is its own parent. None
    # found a strictly closer vertex above, so each was counted unresolved.
    for s in sources:
        parents[s] = s
        unresolved -= 1
    return unresolved


@njit(cache=True)
def zero_weight_parents(indptr, indices, weights, dist, infinity, parents):
    """Extend the tree along tight arcs between vertices at one distance (zero
    weights, or weights the distance's rounding absorbs), breadth-first from
    resolved vertices. Acyclic because each vertex is attached once, to a
    vertex attached before it. Returns how many it attached.
    """
    n = dist.shape[0]
    queue = np.empty(n, dtype=np.int64)
    size = 0
    for v in range(n):
        if parents[v] >= 0:
            queue[size] = v
            size += 1
    resolved = size
    head = 0
    while head < size:
        u = queue[head]
        head += 1
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            if parents[v] < 0 and dist[v] != infinity and dist[u] == dist[v] and dist[u] + weights[j] == dist[v]:
                parents[v] = u
                queue[size] = v
                size += 1
    return size - resolved
