"""Launcher for the grid-levels kernel (``kernels/bfs_grid_levels.cu``): road
BFS levels too big for the single block, run in one persistent launch with a
grid barrier between them, for as long as the hybrid's rules
(:meth:`~wavefront.bfs.policy.CUDAHybridPolicy.grid_levels_rule`) keep them
there, on the single block's padded rows (``device_graph.padded_rows``).
:func:`grid_levels_apply` says which graphs it takes; the discovery log it
writes (``device_graph.discovery_log``) is kept with the graph. Measurements: docs/decisions/cuda-bfs.md,
"Grid levels".
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .abi import GRID_LEVELS_THREADS
from .bfs_steps import get_kernel, i64
from .bfs_tuning import BFSTuning
from .device import sm_count
from .device_graph import (
    BFSWorkspace,
    discovery_log,
    max_out_degree,
    padded_rows,
    padded_rows_fit,
    padded_shape,
)

GridLevelsArgs = NamedTuple("GridLevelsArgs", [
    ("frontier", Any), ("next_queue", Any), ("log", Any), ("record", Any), ("count", np.int64),
    ("frontier_edges", np.int64), ("unexplored", np.int64), ("first_level", np.int32), ("max_level", np.int32),
    ("block_vertices", np.int64),
    ("block_edges", np.int64), ("min_edges", np.int64), ("edges", np.int64), ("unexplored_alpha", np.float64),
    ("padded", Any), ("levels", Any), ("parents", Any), ("visited", Any), ("counters", Any),
    ("level_stats", Any), ("ctl", Any), ("width_log2", np.int32), ("lanes_log2", np.int32)])


def grid_levels_apply(graph, tuning: BFSTuning) -> bool:
    """Whether the grid-levels kernel takes ``graph``: every out-degree at
    most ``tuning.grid_levels_max_degree`` (one reduction, cached), and its
    padded rows built or fitting in GPU memory (else the per-level loop)."""
    return graph.m > 0 and max_out_degree(graph) <= tuning.grid_levels_max_degree and padded_rows_fit(graph)


def grid_levels(graph, ws: BFSWorkspace, tuning: BFSTuning, count: int, frontier_edges: int, unexplored: int,
                level: int, max_level: int, rule, levels, parents) -> None:
    """Top-down levels from ``level`` (at most to ``max_level``) in one
    persistent launch, from queue_in[:count] (``frontier_edges`` out-edges,
    ``unexplored`` edges left) to queue_out, for as long as ``rule`` (a
    :class:`~wavefront.bfs.policy.GridLevelsRule`) keeps them there. Read
    back with :func:`.bfs_steps.read_kernel_levels` (the same counters and level rows)."""
    import cupy

    if not grid_levels_apply(graph, tuning):
        raise ValueError(f"the grid-levels kernel takes out-degrees up to grid_levels_max_degree = "
                         f"{tuning.grid_levels_max_degree}; this graph has one of {max_out_degree(graph)}")
    fn = get_kernel("bfs_grid_levels.cu", "grid_levels", ws.index64, tuning)
    log, record = discovery_log(graph)
    width_log2, lanes_log2 = padded_shape(graph)
    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memsetAsync(ws.grid_ctl.data.ptr, 0, ws.grid_ctl.nbytes, stream.ptr)
    args = GridLevelsArgs(
        frontier=ws.queue_in, next_queue=ws.queue_out, log=log, record=record, count=i64(count),
        frontier_edges=i64(frontier_edges), unexplored=i64(unexplored), first_level=np.int32(level),
        max_level=np.int32(max_level),
        block_vertices=i64(rule.block_vertices), block_edges=i64(rule.block_edges), min_edges=i64(rule.min_edges),
        edges=i64(min(rule.edges, 2**62)), unexplored_alpha=np.float64(rule.unexplored_alpha),
        padded=padded_rows(graph), levels=levels, parents=parents, visited=ws.visited,
        counters=ws.counters, level_stats=ws.level_stats, ctl=ws.grid_ctl,
        width_log2=np.int32(width_log2), lanes_log2=np.int32(lanes_log2))
    # Every block resident at once (the grid barrier waits for all): at most
    # one per SM, which any SM can hold (GRID_LEVELS_THREADS, few registers).
    grid = min(sm_count(), int(tuning.grid_levels_blocks))
    fn((grid,), (GRID_LEVELS_THREADS,), tuple(args))
