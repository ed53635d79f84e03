"""numba kernels of the edge exchange (distributed Graph500 kernel 1, :mod:`.graph`).

Each non-loop input tuple ``(s, d)`` gives the arcs ``s -> d`` and
``d -> s``; arc ``u -> v`` belongs to the rank storing block
``(v // row_block, u // col_block)``, where it is known by local ids: ``u``
counted from its column block's first vertex, ``v`` from its row block's.
A chunk of tuples is exchanged in three steps, with ``T`` tasks (numba
threads), none of them atomic:

1. :func:`count_arcs`: task ``t`` counts the arcs of its share of the chunk
   per destination rank (a ``T x P`` table);
2. the caller turns the table into each task's first slot per destination
   (destinations in rank order, tasks in order within one), and
   :func:`pack_arcs` writes every arc there as one row of ``width`` words:
   its local source, its local target, and its weight's bit pattern (so a
   float crosses ranks unrounded);
3. after the all-to-all-v, :func:`unpack_arcs` appends the received rows to
   the rank's arc arrays (the target shifted by ``target_offset``, see
   :func:`.graph.from_edges`).

The sender computes the receiver's local ids (``u % col_block``,
``v % row_block``), so the words are 32-bit wherever the blocks and weights
fit: 12 bytes per weighted arc, where three int64 columns of global ids took
24. Arcs keep no order within a destination: the block build sorts them.
Imported only when a graph is built.
"""
from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange


def tasks() -> int:
    # Read here, not inside a kernel: a kernel reading it could not be cached.
    return max(1, int(get_num_threads()))


@njit(parallel=True, cache=True)
def count_arcs(src, dst, lo, hi, row_block, col_block, cols, size, tasks):
    """``counts[t, r]``: arcs for rank ``r`` among task ``t``'s share of
    tuples ``[lo, hi)`` (two per non-loop tuple)."""
    counts = np.zeros((tasks, size), dtype=np.int64)
    m = hi - lo
    for t in prange(tasks):
        for e in range(lo + m * t // tasks, lo + m * (t + 1) // tasks):
            s = np.int64(src[e])
            d = np.int64(dst[e])
            if s == d:
                continue
            counts[t, (d // row_block) * cols + s // col_block] += 1
            counts[t, (s // row_block) * cols + d // col_block] += 1
    return counts


@njit(parallel=True, cache=True)
def pack_arcs(src, dst, bits, lo, hi, row_block, col_block, cols, cursors, out):
    """Write the arcs of tuples ``[lo, hi)`` into ``out`` (rows of words:
    local source, local target, then ``bits[e]`` unless ``bits`` is None),
    task ``t``'s arc for rank ``r`` at ``cursors[t, r]`` (advanced as it goes)."""
    tasks = cursors.shape[0]
    m = hi - lo
    for t in prange(tasks):
        cursor = cursors[t]
        for e in range(lo + m * t // tasks, lo + m * (t + 1) // tasks):
            s = np.int64(src[e])
            d = np.int64(dst[e])
            if s == d:
                continue
            for k in range(2):
                u = s if k == 0 else d
                v = d if k == 0 else s
                r = (v // row_block) * cols + u // col_block
                p = cursor[r]
                cursor[r] = p + 1
                out[p, 0] = u % col_block
                out[p, 1] = v % row_block
                if bits is not None:
                    out[p, 2] = bits[e]


@njit(parallel=True, cache=True)
def unpack_arcs(received, width, sources, targets, target_offset, bits, at):
    """Rows ``received`` (flat, ``width`` words each) into ``sources[at:]``,
    ``targets[at:]`` (plus ``target_offset``) and ``bits[at:]`` (the weights'
    bit patterns; None when unweighted)."""
    for i in prange(received.shape[0] // width):
        sources[at + i] = received[i * width]
        targets[at + i] = np.int64(received[i * width + 1]) + target_offset
        if bits is not None:
            bits[at + i] = received[i * width + 2]
