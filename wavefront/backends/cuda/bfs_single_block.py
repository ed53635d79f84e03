"""Launcher for the single-block kernel (``kernels/bfs_single_block.cu``, PMPP
15.7): consecutive small top-down levels in one block of
SINGLE_BLOCK_THREADS threads, edge-balanced over the CSR or, on graphs of low
out-degree, on the padded rows (``device_graph.padded_rows``), which log
their finds for ``logged_visits`` to write. :func:`single_block_balance` says
which kernel a graph gets; the plan of a graph's launches is kept with the
graph. Measurements: docs/decisions/cuda-bfs.md, "Single-block kernel".
"""
from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

import numpy as np

from .abi import BLOCK, SINGLE_BLOCK_THREADS
from .bfs_steps import get_kernel
from .bfs_tuning import BFSTuning
from .device import opt_in_dynamic_shared, sm_count
from .device_graph import (
    BFSWorkspace,
    discovery_log,
    max_out_degree,
    padded_rows,
    padded_rows_fit,
    padded_rows_take,
    padded_shape,
)

SINGLE_BLOCK_KERNELS = {"edges": "single_block_levels", "padded": "single_block_levels_padded"}


@cache
def _single_block_function(balance: str, wide: bool, tuning: BFSTuning, shape=None):
    """(kernel, the bytes of dynamic shared memory it may take for the visited
    bitmap: ``tuning.shared_visited_bytes``, or with None all the GPU allows
    it; 0 where the GPU refuses). ``shape``: the padded rows' (log2 W, log2
    L), compiled in (one build per shape a process meets; the kernel's slot
    and lane arithmetic then folds to constants)."""
    extra = () if shape is None else (("SB_PAD_WIDTH_LOG2", shape[0]), ("SB_PAD_LANES_LOG2", shape[1]))
    fn = get_kernel("bfs_single_block.cu", SINGLE_BLOCK_KERNELS[balance], wide, tuning, extra)
    # tunings that differ in their cap alone share this kernel object (opt_in_dynamic_shared never lowers it)
    limit = opt_in_dynamic_shared(fn)
    return fn, limit if tuning.shared_visited_bytes is None else min(int(tuning.shared_visited_bytes), limit)


def single_block_balance(graph, tuning: BFSTuning) -> str:
    """"edges" or "padded": the single-block kernel ``tuning`` picks for
    ``graph`` ("auto" takes the edges where the padded rows would not fit in
    GPU memory or cannot hold the graph's ids; "padded" asked for raises
    GPUMemoryError or SingleBlockBalanceError then)."""
    if tuning.single_block_balance == "edges":  # no reduction over the degrees needed
        return "edges"
    balance = tuning.single_block_kernel(max_out_degree(graph), padded_rows_take(graph))
    if balance == "padded" and tuning.single_block_balance == "auto" and not padded_rows_fit(graph):
        return "edges"
    return balance


def single_block_function(graph, wide: bool, tuning: BFSTuning):
    """(kernel, the bytes of shared memory it may keep the visited bitmap in,
    balance, padded shape or None) for ``graph``: built on first use, so
    :func:`~.bfs.prepare` calls it to keep the build out of the first search."""
    balance = single_block_balance(graph, tuning)
    shape = padded_shape(graph) if balance == "padded" else None
    # The shape is compiled in where a lane holds several slots (W > L): the
    # DIMACS roads' W 8, L 4 ran 7-8 % faster a level so, the one-slot rows of
    # grids and road-like graphs 6-14 % slower (H100, docs/decisions/cuda-bfs.md).
    compiled = shape if shape is not None and shape[0] > shape[1] else None
    return (*_single_block_function(balance, wide, tuning, compiled), balance, shape)


class SingleBlockPlan(NamedTuple):
    """A graph's single-block launches under one tuning (see :func:`_plan`)."""

    kernel: Any
    shared_words: int
    rows: tuple  # the kernel's arguments from the shared words to the rows
    last: tuple  # the padded kernel's last ones before the frontier's m_f (none for the edge kernel)
    log: tuple | None  # the padded kernel's discovery log (None: the edge kernel writes the results)
    visits: Any  # logged_visits, which writes the log's levels and parents (None with the edge kernel)
    visits_blocks: int  # its grid: twice the SMs (a road search logs up to n entries, seattle's 148 k: ~3 a thread)


def single_block(graph, ws: BFSWorkspace, tuning: BFSTuning, count: int, level: int, max_level: int,
                 levels, parents, edge_limit: int | None = None, frontier_edges: int | None = None) -> None:
    """Levels from ``level`` (at most to ``max_level``) in one block, from
    queue_in[:count] (count <= capacity) to queue_out, each with at most
    ``edge_limit`` out-edges (default ``tuning.single_block_edges``);
    edge-balanced or on padded rows as ``tuning`` picks for the graph (the
    same levels and trace rows either way). The padded kernel logs what it
    finds (``device_graph.discovery_log``); ``logged_visits``, queued behind
    it, writes those levels and parents over the whole GPU. It takes the
    frontier's out-edges (``frontier_edges``, None if not known) and sums each
    later level's from its rows, where the edge kernel scans the degrees."""
    plan = _plan(graph, ws, tuning)
    limit = tuning.single_block_edges if edge_limit is None else edge_limit
    # The kernels' parameters (kernels/bfs_single_block.cu), in order: the
    # edge kernel writes the results, the padded one the log.
    head = (ws.queue_in, np.int64(count), np.int32(level), np.int32(max_level), np.int64(limit), *plan.rows)
    tail = (ws.visited, ws.queue_out, ws.counters, ws.level_stats, *plan.last)
    if plan.log is None:
        plan.kernel((1,), (SINGLE_BLOCK_THREADS,), (*head, levels, parents, *tail),
                    shared_mem=4 * plan.shared_words)
        return
    m_f = np.int64(-1 if frontier_edges is None else frontier_edges)
    plan.kernel((1,), (SINGLE_BLOCK_THREADS,), (*head, *plan.log, *tail, m_f), shared_mem=4 * plan.shared_words)
    plan.visits((plan.visits_blocks,), (BLOCK,), (*plan.log, ws.counters, np.int32(level), levels, parents))


def _plan(graph, ws: BFSWorkspace, tuning: BFSTuning) -> SingleBlockPlan:
    """``graph``'s :class:`SingleBlockPlan` under ``tuning``, worked out once
    per graph and tuning: a road search launches the block once or a few
    times, and working it out at every launch took ~13 us of host time (H100
    host). The workspace's buffers are not part of it: its queues and
    counters swap. A graph whose padded rows did not fit when the plan was
    made keeps the edge-balanced kernel."""
    key = ("cuda.bfs.single_block_plan", tuning)
    plan = graph.derived.get(key)
    if plan is None:
        fn, shared_bytes, balance, shape = single_block_function(graph, ws.index64, tuning)
        shared_words = ws.words if ws.words * 4 <= shared_bytes else 0
        padded = balance == "padded"
        plan = graph.derived[key] = SingleBlockPlan(
            kernel=fn, shared_words=shared_words,
            rows=(np.int64(shared_words), graph.indptr, padded_rows(graph) if padded else graph.indices),
            # The padded kernel's bound on a level's edges (size * max degree) and its rows' shape.
            last=(np.int32(max_out_degree(graph)), *(np.int32(v) for v in shape)) if padded else (),
            log=discovery_log(graph) if padded else None,
            visits=get_kernel("bfs_convert.cu", "logged_visits", ws.index64) if padded else None,
            visits_blocks=2 * sm_count() if padded else 0)
    return plan
