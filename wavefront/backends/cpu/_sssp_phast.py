"""PHAST's two level sweeps on the CPU (the ``hierarchy`` method; the hierarchy
is :mod:`wavefront.graph.hierarchy`'s, vertices numbered by level).

One thread walks the new ids: up from the lowest source's level, each vertex
pulling from its lower in-neighbours, then down from the top, each pulling
from its higher ones. Both walks stream the level-ordered lists, so a search
costs one pass over the hierarchy's arcs in cache order.
"""
from __future__ import annotations

from numba import njit


@njit(cache=True)
def phast_sweeps(up_indptr, up_from, up_weights, down_indptr, down_from, down_weights, first_up, dist, infinity):
    """``dist``: ``infinity`` but at the sources (0), in the hierarchy's
    numbering; ``first_up``: the first id above the lowest source's level."""
    n = dist.shape[0]
    for y in range(first_up, n):
        best = dist[y]
        for e in range(up_indptr[y], up_indptr[y + 1]):
            d = dist[up_from[e]]
            if d != infinity and d + up_weights[e] < best:
                best = d + up_weights[e]
        dist[y] = best
    for y in range(n - 1, -1, -1):
        best = dist[y]
        for e in range(down_indptr[y], down_indptr[y + 1]):
            d = dist[down_from[e]]
            if d != infinity and d + down_weights[e] < best:
                best = d + down_weights[e]
        dist[y] = best
