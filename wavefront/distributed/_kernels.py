"""numba kernels of the 2-D search that the single-process steps do not cover.

The block's top-down and bottom-up steps are the CPU backend's own
(:mod:`wavefront.backends.cpu._bfs_steps`); these handle what only a
partitioned search has: an owner accepting the parents its row sends
(seed 000 fig. 8 step 12), or on a one-column grid taking its own step's
finds, a rank learning which targets of its row block the other ranks of
its row discovered, and the SSSP owner's side (lowering its distances,
sorting improved vertices into the near and far sets).
Imported only when a search runs.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..backends.cpu._atomics import fetch_or, trailing_zeros

VISITED = 0  # any non-negative value: the block steps test ``candidate[v] < 0``


@njit(cache=True)
def accept_parents(pairs, shift, mask, parents, levels, level, degree, bits):
    """Apply ``(vertex, parent)`` pairs (vertex local to this rank's piece) in
    order: the first pair for an unvisited vertex wins. Pairs are flat int64
    couples, or with ``shift`` > 0 one int64 each, ``parent << shift | vertex``
    (``mask`` = ``2**shift - 1``). Accepted vertices are set in ``bits``
    (cleared by the caller). Returns (accepted, their degree sum): this rank's
    share of the next ``n_f``, ``m_f``."""
    accepted = 0
    edges = 0
    count = pairs.shape[0] if shift else pairs.shape[0] // 2
    for k in range(count):
        if shift:
            v = pairs[k] & mask
            parent = pairs[k] >> shift
        else:
            v = pairs[2 * k]
            parent = pairs[2 * k + 1]
        if parents[v] < 0:
            parents[v] = parent
            levels[v] = level
            bits[v >> 6] |= np.int64(1) << (v & 63)
            accepted += 1
            edges += degree[v]
    return accepted, edges


@njit(parallel=True, cache=True)
def own_bottom_up_finds(found_bits, candidate, col_offset, parents, levels, level, degree, piece_bits):
    """One column: the row block is this rank's piece, so the bottom-up
    step's finds (``found_bits``, parents column-local in ``candidate``) are
    the owner's. Writes their global parents and levels, copies the bits
    into ``piece_bits``; returns (finds, their degree sum)."""
    found = 0
    edges = 0
    for w in prange(found_bits.shape[0]):
        word = found_bits[w]
        piece_bits[w] = word
        while word != 0:
            v = w * 64 + trailing_zeros(word)
            word &= word - 1
            parents[v] = candidate[v] + col_offset
            levels[v] = level
            found += 1
            edges += degree[v]
    return found, edges


@njit(parallel=True, cache=True)
def own_top_down_finds(claimed, found, candidate, col_offset, parents, levels, level, degree, piece_bits):
    """One column: the top-down step's claims ``claimed[:found]`` (each
    target once, parents column-local in ``candidate``) are the owner's.
    Writes their global parents and levels and sets their bits in
    ``piece_bits`` (cleared by the caller); returns their degree sum."""
    edges = 0
    for k in prange(found):
        v = claimed[k]
        parents[v] = candidate[v] + col_offset
        levels[v] = level
        edges += degree[v]
        fetch_or(piece_bits, v >> 6, np.int64(1) << (v & 63))
    return edges


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


@njit(cache=True)
def accept_distances(vertices, offered, dist, delta, bucket, near, near_flags, far, far_flags, tails):
    """Owner side of an SSSP fold: lower ``dist[v]`` to each offered distance
    that beats it; an improved vertex joins the near set (its bucket is the
    current one or below) or the far pile (a later bucket), each at most once
    (flags). ``tails``: the owner's counters (slots NEAR_TAIL = 0, FAR_TAIL = 1
    of the CPU SSSP steps). Returns how many distances were lowered."""
    improved = 0
    for k in range(vertices.shape[0]):
        v = vertices[k]
        d = offered[k]
        if d < dist[v]:
            dist[v] = d
            improved += 1
            if np.int64(d / delta) <= bucket:
                if near_flags[v] == 0:
                    near_flags[v] = 1
                    near[tails[0]] = v
                    tails[0] += 1
            elif far_flags[v] == 0:
                far_flags[v] = 1
                far[tails[1]] = v
                tails[1] += 1
    return improved
