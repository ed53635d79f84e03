"""Fused BFS levels: many consecutive small top-down levels in one call.

A road search is hundreds of levels of a few hundred vertices, and a
parallel step per level (:mod:`._bfs_steps`) pays a Python round trip and a
thread-pool wake-up that cost more than the level (the CPU counterpart of
seed 003/004's single-block multi-level kernel, PMPP 15.7).

* :func:`fused_top_down` -- the levels in one parallel region, the team
  meeting at a barrier between them;
* :func:`serial_top_down` -- the same levels on the calling thread alone,
  with plain loads and stores (docs/decisions/cpu-roads.md, "BFS: a team of
  one runs a serial kernel").

Both return (levels run, the last frontier's size and out-arc sum, the
vertices and out-arcs discovered over the levels run, the last level's
frontier size) and write one stats row a level (``LEVEL_STAT_COLUMNS``).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._atomics import (
    BARRIER_SLOTS,
    atomic_load,
    barrier,
    compare_and_swap,
    fetch_add,
    join_team,
    push_block,
)
from ._bfs_steps import LOCAL_BUFFER
from ._clock import cycles

_at = np.uint64  # unsigned indices: no wraparound code (see _bfs_steps)

LEVEL_STAT_COLUMNS = 3  # per fused level: frontier vertices, edges examined, end stamp
# Slots of the fused kernel's int64 ``shared`` array, a cache line apart:
# the team's and barrier's, then per level ``it`` (triple-buffered, ``it % 3``) the next
# frontier's tail and its out-arc sum.
LEVEL_TAIL, LEVEL_EDGES, LEVEL_SHARED_SLOTS = BARRIER_SLOTS, BARRIER_SLOTS + 24, BARRIER_SLOTS + 48


@njit(cache=True)
def _fused_levels_worker(
    t, indptr, indices, parents, levels, level, queue_a, queue_b, max_edges, last_level, shared, stats,
    spins, workers,
):
    """One thread's part of :func:`fused_top_down`; returns the levels run
    (0 for a thread that came too late to join)."""
    t, workers = join_team(shared, workers, spins)
    if t >= workers:
        return 0
    rows = stats.shape[0] // LEVEL_STAT_COLUMNS
    local = np.empty(LOCAL_BUFFER, dtype=queue_a.dtype)
    size = atomic_load(shared, LEVEL_TAIL)
    edges = atomic_load(shared, LEVEL_EDGES)
    it = 0
    while size > 0 and edges < max_edges and level + it < last_level and it < rows:
        ahead, spare = (it + 1) % 3, (it + 2) % 3
        frontier = queue_a if it % 2 == 0 else queue_b
        following = queue_b if it % 2 == 0 else queue_a
        depth = level + it + 1
        if t == 0:  # last read before the previous barrier; next written after the coming one
            shared[LEVEL_TAIL + 8 * spare] = 0
            shared[LEVEL_EDGES + 8 * spare] = 0
        count = 0
        found_edges = 0
        # Each thread takes one contiguous share of the frontier, as GAP's
        # static schedule does: a frontier is stored in discovery order, so
        # neighbouring road vertices sit together, and interleaved blocks
        # would have two threads writing the same cache lines of ``parents``.
        # (A fused level holds fewer than ``max_edges`` arcs, so a hub cannot
        # unbalance it by much.)
        for i in range(t * size // workers, (t + 1) * size // workers):
            u = frontier[_at(i)]
            for j in range(indptr[_at(u)], indptr[_at(u) + _at(1)]):
                v = indices[_at(j)]
                old = parents[_at(v)]
                if old < 0 and compare_and_swap(parents, v, old, u):
                    levels[_at(v)] = depth
                    found_edges += -1 - old  # the out-degree reset_search stored (no indptr miss)
                    local[_at(count)] = v
                    count += 1
                    if count == LOCAL_BUFFER:
                        push_block(local, count, following, shared, LEVEL_TAIL + 8 * ahead)
                        count = 0
        if count:
            push_block(local, count, following, shared, LEVEL_TAIL + 8 * ahead)
        fetch_add(shared, LEVEL_EDGES + 8 * ahead, found_edges)
        barrier(shared, workers, spins)
        if t == 0:
            stats[it * LEVEL_STAT_COLUMNS] = size
            stats[it * LEVEL_STAT_COLUMNS + 1] = edges
            stats[it * LEVEL_STAT_COLUMNS + 2] = cycles()
        size = atomic_load(shared, LEVEL_TAIL + 8 * ahead)
        edges = atomic_load(shared, LEVEL_EDGES + 8 * ahead)
        it += 1
    return it


@njit(parallel=True, cache=True)
def fused_top_down(
    indptr, indices, parents, levels, level, queue_a, queue_b, size, frontier_edges, max_edges, last_level,
    shared, stats, spins, workers,
):
    """Run consecutive top-down levels in one parallel region, a barrier between levels.

    The CPU counterpart of seed 003/004's single-block multi-level kernel
    (PMPP 15.7): a road search is hundreds of levels of a few hundred
    vertices, and a parallel step per level pays a Python round trip and a
    thread-pool wake-up that cost more than the level. Here the threads
    stay: per level each takes a contiguous share of the frontier, claims
    unvisited neighbours with a compare-and-swap on ``parents``, appends
    them through a thread-local buffer, and the threads meet at one barrier.
    The frontier is ``queue_a[:size]`` with ``frontier_edges`` out-arcs;
    levels alternate between the two queues. Levels run while the frontier
    is non-empty with fewer than ``max_edges`` out-arcs, the level about to
    run is below ``last_level`` and ``stats`` (int64, ``LEVEL_STAT_COLUMNS``
    per level) has a row. With one thread it is a plain serial BFS.
    ``workers`` is the team to ask for (see :func:`._atomics.join_team`;
    pass ``numba.get_num_threads()``). Returns (levels run, the frontier's size and
    out-arc sum, the vertices and out-arcs discovered over all the levels
    run, the last level's frontier size); the frontier is in ``queue_a``
    after an even number of levels, else in ``queue_b``.
    """
    shared[:] = 0
    shared[LEVEL_TAIL] = size
    shared[LEVEL_EDGES] = frontier_edges
    ran = np.zeros(workers, dtype=np.int64)
    for t in prange(workers):
        ran[t] = _fused_levels_worker(
            t, indptr, indices, parents, levels, level, queue_a, queue_b, max_edges, last_level, shared,
            stats, spins, workers,
        )
    done = ran.max()
    size, edges = shared[LEVEL_TAIL + 8 * (done % 3)], shared[LEVEL_EDGES + 8 * (done % 3)]
    # Each level's frontier (stats row: n_f, m_f) was discovered by the level before.
    found, found_edges, previous = size, edges, 0
    for it in range(1, done):
        found += stats[it * LEVEL_STAT_COLUMNS]
        found_edges += stats[it * LEVEL_STAT_COLUMNS + 1]
    if done:
        previous = stats[(done - 1) * LEVEL_STAT_COLUMNS]
    return done, size, edges, found, found_edges, previous


@njit(cache=True)
def serial_top_down(
    indptr, indices, parents, levels, level, queue_a, queue_b, size, frontier_edges, max_edges, last_level, stats,
):
    """:func:`fused_top_down` on the calling thread alone: the same levels,
    queues, stats rows and return values, with plain loads and stores where
    the team's kernel claims with a compare-and-swap, appends through a
    fetch-add and meets at a barrier, and no parallel region to enter
    (docs/decisions/cpu-roads.md, "BFS: a team of one runs a serial kernel").

    A vertex is tested on ``levels`` (int32), not on ``parents``: half the
    bytes a probed arc loads, and with no compare-and-swap to feed, a new
    vertex's out-degree comes from ``indptr``. That took 8-17 % off a grid's
    levels and 7-8 % off a road's (docs/decisions/cpu-roads.md,
    "BFS: the call's fixed cost")."""
    rows = stats.shape[0] // LEVEL_STAT_COLUMNS
    edges = frontier_edges
    found_all = 0
    found_edges_all = 0
    previous = 0
    it = 0
    while size > 0 and edges < max_edges and level + it < last_level and it < rows:
        frontier = queue_a if it % 2 == 0 else queue_b
        following = queue_b if it % 2 == 0 else queue_a
        depth = level + it + 1
        found = 0
        found_edges = 0
        for i in range(size):
            u = frontier[_at(i)]
            for j in range(indptr[_at(u)], indptr[_at(u) + _at(1)]):
                v = indices[_at(j)]
                if levels[_at(v)] < 0:
                    parents[_at(v)] = u
                    levels[_at(v)] = depth
                    found_edges += indptr[_at(v) + _at(1)] - indptr[_at(v)]
                    following[_at(found)] = v
                    found += 1
        stats[it * LEVEL_STAT_COLUMNS] = size
        stats[it * LEVEL_STAT_COLUMNS + 1] = edges
        stats[it * LEVEL_STAT_COLUMNS + 2] = cycles()
        previous = size
        found_all += found
        found_edges_all += found_edges
        size, edges = found, found_edges
        it += 1
    return it, size, edges, found_all, found_edges_all, previous
