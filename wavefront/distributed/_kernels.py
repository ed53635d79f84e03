"""numba kernels of the 2-D search that the single-process steps do not cover.

The block's top-down and bottom-up steps are the CPU backend's own
(:mod:`wavefront.backends.cpu._bfs_steps`); these two handle what only a
partitioned search has: an owner accepting the parents its row sends
(seed 000 fig. 8 step 12), and a rank learning which targets of its row
block the other ranks of its row discovered. Imported only when a search runs.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..backends.cpu._atomics import trailing_zeros

VISITED = 0  # any non-negative value: the block steps test ``candidate[v] < 0``


@njit(cache=True)
def accept_parents(pairs, parents, levels, level, degree, bits):
    """Apply ``(vertex, parent)`` pairs (flat int64, vertex local to this
    rank's piece) in order: the first pair for an unvisited vertex wins.
    Accepted vertices are set in ``bits`` (cleared by the caller). Returns
    (accepted, their degree sum): this rank's share of the next ``n_f``, ``m_f``."""
    accepted = 0
    edges = 0
    for k in range(pairs.shape[0] // 2):
        v = pairs[2 * k]
        if parents[v] < 0:
            parents[v] = pairs[2 * k + 1]
            levels[v] = level
            bits[v >> 6] |= np.int64(1) << (v & 63)
            accepted += 1
            edges += degree[v]
    return accepted, edges


@njit(parallel=True, cache=True)
def mark_visited(bits, candidate):
    """``candidate[v] = VISITED`` for every set bit ``v`` not yet marked, so the
    block's top-down step never claims a vertex another rank already found."""
    for w in prange(bits.shape[0]):
        word = bits[w]
        while word != 0:
            v = w * 64 + trailing_zeros(word)
            word &= word - 1
            if candidate[v] < 0:
                candidate[v] = VISITED
