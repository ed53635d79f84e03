"""GPU memory of a distributed run: what one rank's block needs, and how many GPUs a graph needs.

Each rank of a GPU run (:mod:`.gpu`) keeps on its device its block of the
adjacency matrix (CSR by source and CSC by target over ``span = max(n_row,
n_col)`` local ids, as :mod:`.graph` builds them), the CUDA BFS workspace of
a graph of ``span`` vertices (the formula of
:func:`wavefront.backends.cuda.device_graph.workspace_bytes`), the
degree-ordered CSC copy and packed first probes the bottom-up step reads,
the step's result arrays over ``span`` and the fold's buffers. Arcs are
bounded from above by ``2 * edgefactor * 2**scale / P`` (every tuple
symmetrized, none merged; Kronecker graphs merge about a tenth). The
largest block is the one that counts: every rank must fit.

:func:`gpus_needed` inverts it: the fewest ranks (one GPU each) whose
largest block fits in a given free memory. The single-GPU Graph500 driver
and the distributed GPU run put that number in their
:class:`~wavefront.errors.GPUMemoryError`. Everything here is arithmetic:
no GPU is needed to ask.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .grid import Partition, grid_shape

MAX_GPUS = 1 << 16


def block_bytes(scale: int, edgefactor: int, size: int, rows: int | None = None, cols: int | None = None) -> int:
    """Device bytes of the largest block of a SCALE ``scale`` Kronecker graph
    over ``size`` ranks (grid ``rows x cols``, default the most square)."""
    from ..backends.cuda.device_graph import workspace_bytes

    if rows is None or cols is None:
        rows, cols = grid_shape(size)
    n = 1 << int(scale)
    part = Partition.of(n, rows, cols)
    span = max(part.row_block_size, part.col_block_size)
    arcs = -(-2 * int(edgefactor) * n // size)
    ids = 4 if span < 2**31 else 8
    stand_in = SimpleNamespace(n=span, indices=np.empty(0, dtype=np.int32 if ids == 4 else np.int64))
    adjacency = 2 * (8 * (span + 1) + ids * arcs)  # block CSR and CSC
    probes = ids * arcs + 8 * (span + 1)  # degree-ordered CSC copy, packed first probes
    results = 12 * span  # int32 levels + int64 parents of the block step
    fold = 2 * 16 * part.row_block_size  # pairs out and in, at most one per row-block target
    return adjacency + probes + workspace_bytes(stand_in) + results + fold + 8 * part.piece


def gpus_needed(scale: int, edgefactor: int, free_bytes: int, safety_bytes: int | None = None) -> int | None:
    """The fewest ranks (one GPU each, ``free_bytes`` free on every GPU) whose
    largest block fits; None if none up to ``MAX_GPUS`` does."""
    if safety_bytes is None:
        from ..backends.cuda.memory import SAFETY_BYTES

        safety_bytes = SAFETY_BYTES
    for size in range(1, MAX_GPUS + 1):
        if block_bytes(scale, edgefactor, size) + safety_bytes <= free_bytes:
            return size
        if size >= 64:  # blocks shrink slowly past here; jump to powers of two
            break
    size = 128
    while size <= MAX_GPUS:
        if block_bytes(scale, edgefactor, size) + safety_bytes <= free_bytes:
            return size
        size *= 2
    return None


def check_block_fits(scale: int, edgefactor: int, size: int, free_bytes: int | None = None) -> None:
    """Raise :class:`~wavefront.errors.GPUMemoryError` (with the number of
    GPUs that would suffice) if this run's largest block does not fit in
    ``free_bytes`` (default: what this rank's GPU has free)."""
    from ..backends.cuda import memory
    from ..errors import GPUMemoryError

    if free_bytes is None:
        free_bytes = memory.free_bytes()
    needed = block_bytes(scale, edgefactor, size) + memory.SAFETY_BYTES
    if needed > free_bytes:
        raise GPUMemoryError(
            f"a block of the SCALE {scale} graph (edgefactor {edgefactor}) over {size} GPU"
            + ("s" if size > 1 else ""),
            needed, free_bytes, gpus=gpus_needed(scale, edgefactor, free_bytes),
        )
