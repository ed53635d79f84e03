"""Launchers of a one-column grid's own kernels (``kernels/bfs_one_column_2d.cu``).

A rank of an R x 1 grid (:mod:`.gpu`) runs the single-GPU steps of
:mod:`wavefront.backends.cuda.bfs_steps` on its block; these two do what
only a distributed search needs, each in one launch where CuPy array
operations cost 10-33 us of host time apiece (docs/decisions/distributed.md,
"GPU runs, sixth round").
"""
from __future__ import annotations

from ..backends.cuda import bfs_steps as steps

ONE_COLUMN_KERNELS = "bfs_one_column_2d.cu"


def start_distributed(ws, local: int, root: int, queued: int, levels, parents) -> None:
    """A rank's search start: ``ws.visited`` from the unreachable bits plus
    the root's at ``local`` (its index in the rank's piece, -1 where another
    rank owns it; its level 0 and global id ``root`` as parent), and
    ``queued`` (-1: none) as ``ws.queue_in``'s one entry."""
    words = int(ws.visited.shape[0])
    fn = steps.get_kernel(ONE_COLUMN_KERNELS, "start_distributed", ws.index64)
    fn((steps.blocks(words),), (steps.BLOCK,),
       (steps.i64(words), steps.i64(local), steps.i64(root), steps.i64(queued), ws.unreachable, ws.visited,
        levels, parents, ws.queue_in))


def offset_queue(ws, count: int, offset: int, out) -> None:
    """``out[:count] = ws.queue_in[:count] + offset`` in one launch."""
    if count:
        fn = steps.get_kernel(ONE_COLUMN_KERNELS, "offset_queue", ws.index64)
        fn((steps.blocks(count),), (steps.BLOCK,), (ws.queue_in, steps.i64(count), steps.i64(offset), out))
