"""The thread-local bins of the CPU backend's fused delta-stepping: a ring
of bin rows in one growable arena per thread, and the far row beyond the
ring (:mod:`._sssp_fused` runs the search; docs/decisions/cpu-roads.md)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ._sssp_codecs import decode

NO_BIN = np.iinfo(np.int64).max  # no bin: an empty ring or far row


@njit(cache=True, inline="always")
def bin_of(distance, scale):
    """A distance's bin: ``int(distance * scale)`` with ``scale = 1 / delta`` (a
    multiplication, not a division, and monotone in the distance, which is
    all the algorithm needs of it)."""
    return np.int64(distance * scale)


ROW_SLACK = 16  # the first room of a bin row


@njit(cache=True)
def move_row(store, start, cap, count, r, top):
    """Move the full row ``r`` of a thread's bin arena to the free end ``top``
    with twice its room; returns the new free end, or -1 when the arena has
    no room for it (then :func:`repack` must make a larger arena).

    Each row of the arena ``store`` is ``store[start[r] : start[r] + cap[r]]``
    holding ``count[r]`` vertices. A row keeps its room when emptied (as
    GAP's per-bin vectors keep their capacity): the rows take turns holding
    bins, and a row that had to grow once will have to again. The arena
    thus holds about the sum of each row's largest bin, not the ring times
    the largest bin, which one shared width would.

    It never replaces ``store``: the relax loop calls it, and an array
    variable that a loop may reassign costs numba a reference count
    increment and decrement (two atomic instructions) around every
    compare-and-swap in that loop.
    """
    need = max(2 * cap[r], ROW_SLACK)
    if top + need > store.shape[0]:
        return -1
    for k in range(count[r]):
        store[top + k] = store[start[r] + k]
    start[r] = top
    cap[r] = need
    return top + need


@njit(cache=True)
def repack(store, start, cap, count, r):
    """A new arena twice the rows' total room (row ``r``'s doubled), the rows
    packed at its front; returns (arena, free end)."""
    need = max(2 * cap[r], ROW_SLACK)
    total = need
    for row in range(count.shape[0]):
        if row != r:
            total += cap[row]
    arena = np.empty(2 * total, dtype=store.dtype)
    position = 0
    for row in range(count.shape[0]):
        for k in range(count[row]):
            arena[position + k] = store[start[row] + k]
        start[row] = position
        if row == r:
            cap[row] = need
        position += cap[row]
    return arena, position


@njit(cache=True)
def grow_row(store, start, cap, count, r, top):
    """Give row ``r`` twice its room, in the arena or in a new one; returns (store, top)."""
    moved = move_row(store, start, cap, count, r, top)
    if moved >= 0:
        return store, moved
    return repack(store, start, cap, count, r)


@njit(cache=True)
def refill_from_far(store, start, cap, count, top, far, ring, words, codec, scale, lowest):
    """Move overflow-row heads whose bin is now within ``ring`` of ``lowest``
    into the ring; returns (store, top)."""
    size = count[ring]
    parked = np.empty(size, dtype=store.dtype)  # the row may move while we push
    for k in range(size):
        parked[k] = store[start[ring] + k]
    count[ring] = 0
    nearest = NO_BIN
    for k in range(size):
        v = parked[k]
        b = bin_of(decode(codec, words[v]), scale)
        if b < lowest:  # improved since into an earlier bin, and settled there
            continue
        to = b & (ring - 1) if b - lowest < ring else ring
        if to == ring:
            nearest = min(nearest, b)
        if count[to] == cap[to]:
            store, top = grow_row(store, start, cap, count, to, top)
        store[start[to] + count[to]] = v
        count[to] += 1
    far[0] = nearest
    return store, top
