"""CPU BFS methods: top-down, bottom-up and the direction-optimizing hybrid.

All three are one driver loop (:func:`_search`) over the numba steps in
:mod:`._bfs_steps`, differing only in the direction policy it asks each
level (:mod:`wavefront.bfs.policy`; seed 000 §3.1 and Beamer's switch).
The frontier is a queue while the search goes top-down and a bitmap (one
bit per vertex, int64 words) while it goes bottom-up; the driver converts it
when the direction changes, inside the level that needs it (its time is in
that level's trace row). Directed graphs go top-down along the CSR and
bottom-up along the CSC.
"""
from __future__ import annotations

import time

import numpy as np

from ..._sources import multi_source, seed_array
from ...bfs.policy import BOTTOM_UP, TOP_DOWN, FixedPolicy, LevelState, make_policy
from ...results import BFSResult, Trace
from . import _bfs_steps as steps
from ._threads import StepThreads


@multi_source
def top_down(graph, source, depth_limit: int | None = None) -> BFSResult:
    """BFS pushing from the frontier along out-edges every level."""
    return _search(graph, source, FixedPolicy(TOP_DOWN), depth_limit, "top-down")


@multi_source
def bottom_up(graph, source, depth_limit: int | None = None) -> BFSResult:
    """BFS pulling into every unvisited vertex from its in-neighbours every level."""
    return _search(graph, source, FixedPolicy(BOTTOM_UP), depth_limit, "bottom-up")


@multi_source
def hybrid(graph, source, policy=None, alpha=None, beta=None, depth_limit: int | None = None) -> BFSResult:
    """Direction-optimizing BFS; ``policy`` defaults to GAP's (alpha=15, beta=18)."""
    return _search(graph, source, make_policy(policy, alpha, beta), depth_limit, "hybrid")


_WORKSPACE_KEY = "cpu.bfs_workspace"


class _Workspace:
    """Frontier buffers for one search (queues in the index dtype, bitmaps of int64 words)."""

    def __init__(self, n: int, index_dtype):
        words = (n + 63) // 64
        self.queue = np.empty(max(n, 1), dtype=index_dtype)
        self.next_queue = np.empty(max(n, 1), dtype=index_dtype)
        self.bits = np.empty(words, dtype=np.int64)
        self.next_bits = np.empty(words, dtype=np.int64)
        self.unvisited_bits = np.empty(words, dtype=np.int64)
        self.block_edges = np.empty(max(n, 1) // steps.QUEUE_BLOCK + 2, dtype=np.int64)
        self.counters = np.zeros(2, dtype=np.int64)


def _check_depth_limit(depth_limit):
    if depth_limit is None:
        return None
    if int(depth_limit) != depth_limit or depth_limit < 0:
        raise ValueError(f"depth_limit must be a non-negative integer, got {depth_limit!r}")
    return int(depth_limit)


def _search(graph, source: int, policy, depth_limit, method: str) -> BFSResult:
    depth_limit = _check_depth_limit(depth_limit)
    n = graph.n
    parents = np.empty(n, dtype=np.int64)
    levels = np.empty(n, dtype=np.int32)
    threads = StepThreads()
    threads.use(n)
    seeds = seed_array(source)  # one id or several (wavefront._sources)
    steps.reset_search(parents, levels, seeds)
    # Reuse the frontier buffers of an earlier search on this graph (taken
    # out while in use, so concurrent searches never share them): fresh
    # ones cost a page fault per 4 KiB on first touch, inside the timed search.
    work = graph.derived.pop(_WORKSPACE_KEY, None) or _Workspace(n, graph.indices.dtype)
    try:
        trace = _run_levels(graph, seeds, policy, depth_limit, parents, levels, work, threads)
    finally:
        threads.restore()
    graph.derived[_WORKSPACE_KEY] = work
    return BFSResult(
        source=source, parents=parents, levels=levels, trace=trace, method=method, backend="cpu"
    )


def _run_levels(graph, seeds, policy, depth_limit, parents, levels, work, threads) -> Trace:
    """The driver loop: per level, ask the policy, convert the frontier if needed, run the step."""
    n, m = graph.n, graph.m
    indptr, indices = graph.indptr, graph.indices
    in_indptr, in_indices = graph.in_indptr, graph.in_indices
    work.queue[: seeds.size] = seeds  # every source starts the level-0 frontier
    trace = Trace()
    frontier_is_queue = True
    frontier_vertices = int(seeds.size)
    frontier_edges = int((indptr[seeds + 1] - indptr[seeds]).sum())
    unexplored_edges = m - frontier_edges
    previous_frontier_vertices = 0
    direction = TOP_DOWN
    level = 0
    while frontier_vertices > 0 and (depth_limit is None or level < depth_limit):
        level += 1
        state = LevelState(
            level, n, m, frontier_vertices, frontier_edges, unexplored_edges,
            previous_frontier_vertices, direction,
        )
        choice, reason = policy.choose(state)
        start = time.perf_counter()
        if choice == BOTTOM_UP:
            workers = threads.use(n)
            if frontier_is_queue:
                steps.queue_to_bitmap(work.queue, frontier_vertices, work.bits)
                steps.unvisited_bitmap(parents, in_indptr, work.unvisited_bits)
                frontier_is_queue = False
            found, found_edges, examined = steps.bottom_up_step(
                in_indptr, in_indices, indptr, parents, levels, level,
                work.bits, work.unvisited_bits, work.next_bits, work.counters, workers,
            )
            work.bits, work.next_bits = work.next_bits, work.bits
        else:
            if not frontier_is_queue:
                steps.bitmap_to_queue(work.bits, work.queue, work.counters, threads.use(n))
                frontier_is_queue = True
            workers = threads.use(frontier_edges)
            found, found_edges, examined = steps.top_down_step(
                indptr, indices, parents, levels, level,
                work.queue, frontier_vertices, work.next_queue, work.block_edges, work.counters, workers,
            )
            work.queue, work.next_queue = work.next_queue, work.queue
        seconds = time.perf_counter() - start
        trace.add(level, choice, frontier_vertices, examined, seconds, reason)
        previous_frontier_vertices = frontier_vertices
        frontier_vertices = int(found)
        frontier_edges = int(found_edges)
        unexplored_edges -= frontier_edges
        direction = choice
    return trace
