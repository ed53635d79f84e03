"""numba BFS steps: one level each, plus the frontier conversions between them.

* :func:`top_down_step` -- frontier-based push (seed 004's atomicCAS
  frontier BFS; Ligra's ``updateAtomic``): frontier edges claim their
  unvisited targets with a compare-and-swap on ``parents``, winners go to
  the next queue through per-thread buffers (seed 003/004's privatized
  frontiers: one shared fetch-add per full buffer); work is balanced by
  edges, as seed 004's load-balancing section suggests.
* :func:`bottom_up_step` -- vertex-centric pull (seed 004; seed 000 §3.2):
  every unvisited vertex scans its in-neighbours (CSC) for one in the
  frontier bitmap and stops at the first. Unvisited vertices are bits of
  a bitmap built by :func:`unvisited_bitmap` when the search turns
  bottom-up (seed 000 fig. 6 gathers vertices by popcounting words the
  same way). One task owns 64 vertices, i.e. one word of each bitmap, so
  the bitmaps are written without atomics.
* the fused levels (many small top-down levels in one call) are in
  :mod:`._bfs_fused_levels`.
* :func:`queue_to_bitmap` / :func:`bitmap_to_queue` -- the conversions the
  hybrid runs when it changes direction (seed 000 fig. 6 gathers bitmap
  bits into a queue the same way).
* :func:`reset_search` / :func:`unreached_to_minus_one` -- a search's start
  and end (each also on the calling thread alone).

Work is handed out dynamically: each of ``workers`` (pass
``numba.get_num_threads()``; read inside a kernel it would defeat caching)
repeatedly takes the next block of frontier edges (or bitmap words) from a
shared cursor, so a few huge-degree vertices (Kronecker
graphs) do not stall one static chunk. Every step returns the count and
out-degree sum of the vertices it discovered (the policy's ``n_f``/``m_f``)
and the edges it examined. Kernels are generic over the index dtype (int32
or int64 columns; numba compiles one version per dtype).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._atomics import (
    compare_and_swap,
    fetch_add,
    fetch_or,
    popcount,
    push_block,
    trailing_zeros,
)

QUEUE_BLOCK = 64  # frontier vertices per block of the top-down edge offsets
EDGE_BLOCK = 2048  # frontier edges a worker takes at a time (top-down)
WORD_BLOCK = 16  # bitmap words (x 64 vertices) a worker takes at a time
LOCAL_BUFFER = 1024  # per-worker queue buffer, flushed with one fetch-add
# An unsigned index (a cast, free at run time) spares numba's wraparound of a
# possibly negative one, as in _sssp_fused: the serial fused levels took
# 35-40 % less time so (2-core machine, grids of 1 k-90 k vertices).
_at = np.uint64


@njit(parallel=True, cache=True)
def top_down_step(
    indptr, indices, parents, levels, level, frontier, frontier_size, next_frontier, block_edges,
    counters, workers,
):
    """Expand ``frontier[:frontier_size]`` along out-edges into ``next_frontier``.

    Workers take ranges of ``EDGE_BLOCK`` frontier *edges*, not vertices, so
    a hub's edge list is shared out (a Kronecker level can have a few hundred
    frontier vertices holding millions of edges). ``block_edges`` (int64,
    ``frontier_size // QUEUE_BLOCK + 2``) receives the edge offsets of
    blocks of ``QUEUE_BLOCK`` frontier vertices, to find where a range
    starts; ``counters`` is an int64 scratch array of 2 (next queue tail,
    work cursor). Returns (discovered, their out-degree sum, edges examined).
    """
    blocks = (frontier_size + QUEUE_BLOCK - 1) // QUEUE_BLOCK
    for b in prange(blocks):
        edges = 0
        for i in range(b * QUEUE_BLOCK, min((b + 1) * QUEUE_BLOCK, frontier_size)):
            u = frontier[i]
            edges += indptr[u + 1] - indptr[u]
        block_edges[b + 1] = edges
    block_edges[0] = 0
    for b in range(blocks):
        block_edges[b + 1] += block_edges[b]
    total = block_edges[blocks]
    counters[0] = 0
    counters[1] = 0
    discovered_degree = 0
    for _ in prange(workers):
        local = np.empty(LOCAL_BUFFER, dtype=next_frontier.dtype)
        count = 0
        my_degree = 0
        while True:
            begin = fetch_add(counters, 1, EDGE_BLOCK)
            if begin >= total:
                break
            end = min(begin + EDGE_BLOCK, total)
            # The frontier vertex holding edge ``begin``, and its first edge's offset.
            b = np.searchsorted(block_edges[: blocks + 1], begin, side="right") - 1
            i = b * QUEUE_BLOCK
            offset = block_edges[b]
            while offset + (indptr[frontier[i] + 1] - indptr[frontier[i]]) <= begin:
                offset += indptr[frontier[i] + 1] - indptr[frontier[i]]
                i += 1
            position = begin
            while position < end:
                u = frontier[i]
                first = indptr[u]
                degree = indptr[u + 1] - first
                stop = min(degree, end - offset)
                for j in range(first + position - offset, first + stop):
                    v = indices[_at(j)]
                    old = parents[_at(v)]  # any negative value means unvisited (see reset_search)
                    if old < 0 and compare_and_swap(parents, v, old, u):
                        levels[_at(v)] = level
                        my_degree += indptr[_at(v) + _at(1)] - indptr[_at(v)]
                        local[_at(count)] = v
                        count += 1
                        if count == LOCAL_BUFFER:
                            push_block(local, count, next_frontier, counters, 0)
                            count = 0
                position = offset + stop
                offset += degree
                i += 1
        if count:
            push_block(local, count, next_frontier, counters, 0)
        discovered_degree += my_degree
    return counters[0], discovered_degree, total


@njit(parallel=True, cache=True)
def bottom_up_step(
    in_indptr, in_indices, out_indptr, parents, levels, level, frontier_bits, unvisited_bits, next_bits,
    cursor, workers,
):
    """Find a parent in ``frontier_bits`` for every vertex of ``unvisited_bits``.

    Finds are cleared from ``unvisited_bits`` and set in ``next_bits``
    (overwritten entirely); ``cursor`` is an int64 scratch array of 1.
    Iterating over set bits rather than testing every vertex keeps late
    levels, where few vertices are left, from paying for all ``n``.
    Returns (discovered, their out-degree sum, edges examined).
    """
    words = next_bits.shape[0]
    cursor[0] = 0
    discovered = 0
    discovered_degree = 0
    examined = 0
    for _ in prange(workers):
        my_found = 0
        my_degree = 0
        my_examined = 0
        while True:
            first_word = fetch_add(cursor, 0, WORD_BLOCK)
            if first_word >= words:
                break
            for w in range(first_word, min(first_word + WORD_BLOCK, words)):
                todo = unvisited_bits[w]
                found = np.int64(0)
                while todo != 0:
                    b = trailing_zeros(todo)
                    todo &= todo - 1
                    v = w * 64 + b
                    for j in range(in_indptr[_at(v)], in_indptr[_at(v) + _at(1)]):
                        u = in_indices[_at(j)]
                        my_examined += 1
                        if (frontier_bits[_at(u >> 6)] >> (u & 63)) & 1:
                            parents[_at(v)] = u
                            levels[_at(v)] = level
                            found |= np.int64(1) << b
                            my_found += 1
                            my_degree += out_indptr[_at(v) + _at(1)] - out_indptr[_at(v)]
                            break
                next_bits[w] = found
                if found != 0:
                    unvisited_bits[w] &= ~found
        discovered += my_found
        discovered_degree += my_degree
        examined += my_examined
    return discovered, discovered_degree, examined


@njit(parallel=True, cache=True)
def unvisited_bitmap(parents, in_indptr, bits):
    """Set the bit of every unvisited vertex that has in-edges (only those can be found bottom-up)."""
    n = parents.shape[0]
    for w in prange(bits.shape[0]):
        word = np.int64(0)
        base = w * 64
        for b in range(min(64, n - base)):
            v = base + b
            candidate = (parents[v] < 0) & (in_indptr[v + 1] > in_indptr[v])
            word |= np.int64(candidate) << b
        bits[w] = word


@njit(parallel=True, cache=True)
def queue_to_bitmap(frontier, frontier_size, bits):
    """Set the bit of every vertex in ``frontier[:frontier_size]`` in ``bits`` (cleared first)."""
    for w in prange(bits.shape[0]):
        bits[w] = 0
    for i in prange(frontier_size):
        v = frontier[i]
        fetch_or(bits, v >> 6, np.int64(1) << (v & 63))


@njit(parallel=True, cache=True)
def bitmap_to_queue(bits, queue, counters, workers):
    """Write the vertex of every set bit into ``queue``; returns how many.

    ``counters`` is an int64 scratch array of 2 (queue tail, work cursor).
    """
    words = bits.shape[0]
    counters[0] = 0
    counters[1] = 0
    for _ in prange(workers):
        local = np.empty(LOCAL_BUFFER, dtype=queue.dtype)
        count = 0
        while True:
            first_word = fetch_add(counters, 1, WORD_BLOCK)
            if first_word >= words:
                break
            for w in range(first_word, min(first_word + WORD_BLOCK, words)):
                word = bits[w]
                if count + popcount(word) > LOCAL_BUFFER:
                    push_block(local, count, queue, counters, 0)
                    count = 0
                while word != 0:
                    local[count] = w * 64 + trailing_zeros(word)
                    count += 1
                    word &= word - 1
        if count:
            push_block(local, count, queue, counters, 0)
    return counters[0]


@njit(inline="always")
def _unvisited(parents, levels, indptr, v):
    parents[v] = -1 - (indptr[v + 1] - indptr[v])
    levels[v] = -1


@njit(inline="always")
def _seed(parents, levels, sources):
    for s in sources:
        parents[s] = s
        levels[s] = 0


@njit(parallel=True, cache=True)
def reset_search(parents, levels, sources, indptr):
    """Mark every vertex unvisited, then each of ``sources`` (int64) as its own parent at level 0.

    An unvisited vertex's parent is ``-1 - out-degree`` (GAP's trick): the
    thread that claims it learns its out-degree, which the direction policy
    sums, from the value it replaces instead of from a second cache miss in
    ``indptr``. :func:`unreached_to_minus_one` restores the -1 sentinel.
    """
    for v in prange(parents.shape[0]):
        _unvisited(parents, levels, indptr, v)
    _seed(parents, levels, sources)


@njit(cache=True)
def reset_search_serial(parents, levels, sources, indptr):
    """:func:`reset_search` on the calling thread: a small graph's search
    leaves numba's thread count as it is (setting it and back cost ~2 us)."""
    for v in range(parents.shape[0]):
        _unvisited(parents, levels, indptr, v)
    _seed(parents, levels, sources)


@njit(parallel=True, cache=True)
def unreached_to_minus_one(parents):
    """Give every unreached vertex the documented parent -1 (see :func:`reset_search`)."""
    for v in prange(parents.shape[0]):
        if parents[v] < 0:
            parents[v] = -1


@njit(cache=True)
def unreached_to_minus_one_serial(parents):
    """:func:`unreached_to_minus_one` on the calling thread."""
    for v in range(parents.shape[0]):
        if parents[v] < 0:
            parents[v] = -1
