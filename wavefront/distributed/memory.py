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
largest block fits in a given free memory, on the one-column grid GPU
runs default to or, where that needs more GPUs, the most square
(:func:`grid_needed_for`). The single-GPU Graph500 driver
and the distributed GPU run (:func:`check_graph_fits`, collective) put that
number in their :class:`~wavefront.errors.GPUMemoryError`. The GPU SSSP
(:mod:`.gpu_sssp`) adds the arc weights and its buffers on one column
(:func:`sssp_bytes_for`; a wider grid adds :func:`sssp_grid_bytes`);
:func:`sssp_grid_needed_for` names the one-column grid that holds both. Everything but the free-memory query is arithmetic: no GPU is needed
to ask.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .grid import Partition, gpu_grid_shape, grid_shape

MAX_GPUS = 1 << 16


def block_bytes_for(n: int, arcs: int, size: int, rows: int | None = None, cols: int | None = None,
                    local_arcs: int | None = None) -> int:
    """Device bytes of a block of a graph of ``n`` vertices and ``arcs``
    stored arcs over ``size`` ranks (grid ``rows x cols``, default the GPU
    runs' one column, :func:`.grid.gpu_grid_shape`): its share of the arcs (``local_arcs`` if known, else
    ``arcs / size`` rounded up)."""
    from ..backends.cuda.device_graph import workspace_bytes

    if rows is None or cols is None:
        rows, cols = gpu_grid_shape(size)
    part = Partition.of(int(n), rows, cols)
    span = max(part.row_block_size, part.col_block_size)
    local = -(-int(arcs) // size) if local_arcs is None else int(local_arcs)
    ids = 4 if span < 2**31 else 8
    stand_in = SimpleNamespace(n=span, indices=np.empty(0, dtype=np.int32 if ids == 4 else np.int64))
    adjacency = 2 * (8 * (span + 1) + ids * local)  # block CSR and CSC
    probes = ids * local + 8 * (span + 1)  # degree-ordered CSC copy, packed first probes
    # int32 levels + int64 parents of the block step (GPUBlock.step_arrays): a
    # one-column grid's steps write the owner's arrays, and only a cooperative
    # step (--cpu-share) makes them, checked then.
    results = 12 * span if cols > 1 else 0
    fold = 2 * 16 * part.row_block_size if cols > 1 else 0  # pairs out and in, one per row-block target at most
    owned = 8 * part.piece + 12 * part.piece  # degrees; the owner's parents and levels
    return adjacency + probes + workspace_bytes(stand_in) + results + fold + owned


def block_bytes(scale: int, edgefactor: int, size: int, rows: int | None = None, cols: int | None = None) -> int:
    """Device bytes of the largest block of a SCALE ``scale`` Kronecker graph
    over ``size`` ranks (every tuple symmetrized, none merged: an upper bound)."""
    n = 1 << int(scale)
    return block_bytes_for(n, 2 * int(edgefactor) * n, size, rows, cols)


def gpus_needed(scale: int, edgefactor: int, free_bytes: int, safety_bytes: int | None = None) -> int | None:
    """The fewest ranks (one GPU each, ``free_bytes`` free on every GPU) whose
    largest block of a SCALE ``scale`` Kronecker graph fits; None if none up
    to ``MAX_GPUS`` does (:func:`grid_needed_for` says on which grid)."""
    n = 1 << int(scale)
    return gpus_needed_for(n, 2 * int(edgefactor) * n, free_bytes, safety_bytes)


def gpus_needed_for(n: int, arcs: int, free_bytes: int, safety_bytes: int | None = None) -> int | None:
    """:func:`gpus_needed` for a graph of ``n`` vertices and ``arcs`` stored arcs."""
    grid = grid_needed_for(n, arcs, free_bytes, safety_bytes)
    return None if grid is None else grid[0] * grid[1]


def grid_needed_for(n: int, arcs: int, free_bytes: int,
                    safety_bytes: int | None = None) -> tuple[int, int] | None:
    """The grid of the fewest ranks whose largest block fits: the GPU
    runs' one column where it fits, else the most square grid of as many
    ranks (one column keeps arrays of the whole vertex range on every GPU,
    so past a few GPUs it can need more of them); None if no count up to
    ``MAX_GPUS`` fits."""
    if safety_bytes is None:
        from ..backends.cuda.memory import SAFETY_BYTES

        safety_bytes = SAFETY_BYTES

    # Every count up to 64 (grids of any shape), then powers of two.
    for size in [*range(1, 65), *(1 << k for k in range(7, MAX_GPUS.bit_length()))]:
        for shape in dict.fromkeys((gpu_grid_shape(size), grid_shape(size))):
            if block_bytes_for(n, arcs, size, *shape) + safety_bytes <= free_bytes:
                return shape
    return None


def sssp_workspace_bytes(piece: int, n_col: int, rows: int, dist_bytes: int, id_bytes: int, width: int,
                         chunk_tasks: int) -> int:
    """Device bytes of one GPU SSSP search's buffers on a one-column grid
    (:class:`.gpu_sssp._Workspace`): per owned vertex its distance, four id
    lists, the near stamp, far flag, settled flag and its frontier entry
    (``width`` int64 words); per column vertex the plateau rounds and, on
    more than one rank, the gathered frontier at its bound, the parents'
    output and the gathered distances; the chunk tasks."""
    per_vertex = dist_bytes + 4 * id_bytes + 4 + 4 + 1 + 8 * width
    column = 4 * n_col + (0 if rows == 1 else (8 * width + 8 + 4) * n_col)
    return piece * per_vertex + 16 * max(int(chunk_tasks), 1) + column


def sssp_grid_bytes(n_row: int, n_col: int, dist_bytes: int, id_bytes: int, width: int) -> int:
    """Device bytes the GPU SSSP adds on a grid of more than one column
    (:class:`.gpu_sssp._Workspace`'s fold side): per row-block vertex the
    distance this rank offered it, its near stamp and far flag, two id lists
    and the fold's entries (``width`` int64 each) in the owners' parts and
    again gathered for the all-to-all at their bound; per vertex of the column
    and row blocks together the in-arc index, the distances, parents and
    plateau rounds of the parents' pass."""
    per_row = dist_bytes + 4 + 4 + 2 * id_bytes + 2 * 8 * width
    joined = n_row + n_col
    return per_row * n_row + (8 + dist_bytes + 8 + 4) * joined + 8


def sssp_bytes_for(n: int, arcs: int, size: int, local_arcs: int | None = None, weight_bytes: int = 4,
                   dist_bytes: int = 4) -> int:
    """Device bytes the GPU SSSP (:mod:`.gpu_sssp`, one column: ``size x 1``)
    adds to a rank's block: the arc weights in the block's CSR and CSC orders
    (one copy where the block is its own transpose, P = 1), the in-arc index
    over the column (more than one rank) and the search's buffers; chunk
    tasks at their bound (a list of ``ONE_COLUMN_CHUNK`` = 2048 arcs or
    more files at most one task per 1024 of its arcs)."""
    part = Partition.of(int(n), size, 1)
    n_col = part.col_block_size
    local = -(-int(arcs) // size) if local_arcs is None else int(local_arcs)
    ids = 4 if max(part.row_block_size, n_col) < 2**31 else 8
    width = 1 if dist_bytes == 4 and ids == 4 else 2  # gpu_sssp.frontier_width
    weights = weight_bytes * local * (1 if size == 1 else 2)
    index = 0 if size == 1 else 8 * (n_col + 1)
    return weights + index + sssp_workspace_bytes(part.piece, n_col, size, dist_bytes, ids, width, local // 1024 + 1)


def sssp_grid_needed_for(n: int, arcs: int, free_bytes: int, weight_bytes: int = 4, dist_bytes: int = 4,
                         safety_bytes: int | None = None) -> tuple[int, int] | None:
    """The one-column grid of the fewest ranks on which a GPU run's block and
    its GPU SSSP fit ``free_bytes`` a GPU (one column: the GPU runs' default,
    and the SSSP's least memory a rank); None if no count up to ``MAX_GPUS``
    does."""
    if safety_bytes is None:
        from ..backends.cuda.memory import SAFETY_BYTES

        safety_bytes = SAFETY_BYTES
    for size in [*range(1, 65), *(1 << k for k in range(7, MAX_GPUS.bit_length()))]:
        needed = block_bytes_for(n, arcs, size, size, 1) + sssp_bytes_for(n, arcs, size, None, weight_bytes,
                                                                          dist_bytes)
        if needed + safety_bytes <= free_bytes:
            return size, 1
    return None


def check_block_fits(scale: int, edgefactor: int, size: int, free_bytes: int | None = None,
                     rows: int | None = None, cols: int | None = None) -> None:
    """Raise :class:`~wavefront.errors.GPUMemoryError` (with the number of
    GPUs that would suffice, and their grid) if a SCALE ``scale`` run's
    largest block over ``size`` GPUs (grid ``rows x cols``, default one
    column) does not fit in ``free_bytes`` (default: what this GPU has free)."""
    from ..backends.cuda import memory
    from ..errors import GPUMemoryError

    if free_bytes is None:
        free_bytes = memory.free_bytes()
    needed = block_bytes(scale, edgefactor, size, rows, cols) + memory.SAFETY_BYTES
    if needed > free_bytes:
        raise GPUMemoryError(
            f"a block of the SCALE {scale} graph (edgefactor {edgefactor}) over {size} GPU"
            + ("s" if size > 1 else ""),
            needed, free_bytes, grid=grid_needed_for(1 << int(scale), 2 * int(edgefactor) << int(scale), free_bytes),
        )


def check_graph_fits(graph, free_bytes: int | None = None) -> None:
    """Collective: every rank raises the same :class:`~wavefront.errors.GPUMemoryError`
    if some rank's block of ``graph`` (a :class:`~.graph.DistributedGraph`)
    does not fit its GPU (``free_bytes``, default: what this rank's GPU has
    free), naming the largest need, the smallest free memory and how many
    GPUs like the tightest one would hold the graph."""
    from ..backends.cuda import memory
    from ..errors import GPUMemoryError

    grid = graph.grid
    needed = block_bytes_for(graph.n, graph.m, grid.size, grid.rows, grid.cols, graph.local_arcs)
    needed += memory.SAFETY_BYTES
    free = memory.free_bytes() if free_bytes is None else int(free_bytes)
    worst = graph.world.allreduce(np.array([needed, -free, int(needed > free)], dtype=np.int64), "max")
    if worst[2]:
        free = int(-worst[1])
        raise GPUMemoryError(
            f"the largest block of {graph!r} over {grid.size} GPU" + ("s" if grid.size > 1 else ""),
            int(worst[0]), free, grid=grid_needed_for(graph.n, graph.m, free),
        )
