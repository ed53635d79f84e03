"""PHAST's two level sweeps on the CPU (the ``hierarchy`` method; the hierarchy
is :mod:`wavefront.graph.hierarchy`'s, vertices numbered by level).

One parallel region a search (the team and barrier of :mod:`._atomics`): the
threads fill the distances, then walk the levels up from the lowest source's
(each vertex pulling from its lower in-neighbours), then down from the top
(each pulling from its higher ones), then write the distances back in the
graph's numbering. A level of at least ``parallel_width`` vertices is split
among the threads, a barrier after it; a narrower one is run by thread 0
alone, the others waiting at the next barrier (a road hierarchy's top levels
hold a handful of vertices each, where a barrier would cost more than the
level).
"""
from __future__ import annotations

from numba import njit, prange

from ._atomics import barrier, join_team


@njit(cache=True)
def _pull(indptr, from_, weights, dist, infinity, lo, hi):
    for y in range(lo, hi):
        best = dist[y]
        for e in range(indptr[y], indptr[y + 1]):
            d = dist[from_[e]]
            if d != infinity and d + weights[e] < best:
                best = d + weights[e]
        dist[y] = best


@njit(cache=True)
def _sweep(indptr, from_, weights, level_starts, first, last, step, dist, infinity, t, team, state, spins,
           parallel_width):
    """Levels first..last (inclusive, ``step`` +1 or -1); returns with every
    thread past a barrier after the last level."""
    narrow_pending = False
    level = first
    while (step > 0 and level <= last) or (step < 0 and level >= last):
        lo, hi = level_starts[level], level_starts[level + 1]
        if hi - lo >= parallel_width:
            if narrow_pending:  # thread 0's narrow levels before this one
                barrier(state, team, spins)
                narrow_pending = False
            size = hi - lo
            _pull(indptr, from_, weights, dist, infinity, lo + size * t // team, lo + size * (t + 1) // team)
            barrier(state, team, spins)
        else:
            if t == 0:
                _pull(indptr, from_, weights, dist, infinity, lo, hi)
            narrow_pending = True
        level += step
    if narrow_pending:
        barrier(state, team, spins)


@njit(cache=True)
def _member(up_indptr, up_from, up_weights, down_indptr, down_from, down_weights, level_starts, source_level,
            rank, seeds, dist, out, infinity, state, workers, spins, parallel_width):
    t, team = join_team(state, workers, spins)
    if t >= team:
        return
    n = dist.shape[0]
    dist[n * t // team: n * (t + 1) // team] = infinity
    barrier(state, team, spins)
    if t == 0:
        for s in seeds:
            dist[s] = 0
    barrier(state, team, spins)
    levels = level_starts.shape[0] - 1
    _sweep(up_indptr, up_from, up_weights, level_starts, source_level + 1, levels - 1, 1, dist, infinity, t, team,
           state, spins, parallel_width)
    _sweep(down_indptr, down_from, down_weights, level_starts, levels - 1, 0, -1, dist, infinity, t, team,
           state, spins, parallel_width)
    for v in range(n * t // team, n * (t + 1) // team):
        out[v] = dist[rank[v]]


@njit(parallel=True, cache=True)
def phast_search(up_indptr, up_from, up_weights, down_indptr, down_from, down_weights, level_starts, source_level,
                 rank, seeds, dist, out, infinity, state, workers, spins, parallel_width):
    """One search: ``seeds`` in the hierarchy's numbering (int64), ``dist`` its
    scratch (length n), ``out`` the distances in the graph's numbering
    (``infinity`` unreached); ``state`` a zeroed team state array."""
    for _ in prange(workers):
        _member(up_indptr, up_from, up_weights, down_indptr, down_from, down_weights, level_starts, source_level,
                rank, seeds, dist, out, infinity, state, workers, spins, parallel_width)
