"""CPU BFS methods: top-down, bottom-up and the direction-optimizing hybrid.

All three are one driver loop (:func:`_search`) over the numba steps in
:mod:`._bfs_steps` and the fused small levels in :mod:`._bfs_fused_levels`,
differing only in the direction policy it asks each level
(:mod:`wavefront.bfs.policy`; seed 000 §3.1 and Beamer's switch).
The frontier is a queue while the search goes top-down and a bitmap (one
bit per vertex, int64 words) while it goes bottom-up; the driver converts it
when the direction changes, inside the level that needs it (its time is in
that level's trace row). Directed graphs go top-down along the CSR and
bottom-up along the CSC.
"""
from __future__ import annotations

import time

import numpy as np

from ..._limits import depth_limit_levels
from ..._sources import multi_source, seed_array
from ...bfs.policy import BOTTOM_UP, TOP_DOWN, FixedPolicy, LevelState, make_policy
from ...results import BFSResult, Trace, TraceRow
from . import _bfs_fused_levels as fused_levels
from . import _bfs_steps as steps
from ._atomics import TEAM_SIZE
from ._clock import read_cycles, stamps_to_seconds
from ._threads import StepThreads
from .tuning import CPUBFSTuning

# The measured defaults (a frozen tuning), made once: a small graph's search
# took ~1-4 us to make a fresh one.
_DEFAULT_TUNING = CPUBFSTuning()
_NO_DEPTH_LIMIT = int(np.iinfo(np.int64).max)

FUSED_TRACE_ROWS = 4096  # levels one fused call may run (the driver calls again for more)


@multi_source
def top_down(graph, source, depth_limit: int | None = None, tuning: CPUBFSTuning | None = None) -> BFSResult:
    """BFS pushing from the frontier along out-edges every level."""
    return _search(graph, source, FixedPolicy(TOP_DOWN), depth_limit, "top-down", tuning)


@multi_source
def bottom_up(graph, source, depth_limit: int | None = None, tuning: CPUBFSTuning | None = None) -> BFSResult:
    """BFS pulling into every unvisited vertex from its in-neighbours every level."""
    return _search(graph, source, FixedPolicy(BOTTOM_UP), depth_limit, "bottom-up", tuning)


@multi_source
def hybrid(graph, source, policy=None, alpha=None, beta=None, depth_limit: int | None = None,
           tuning: CPUBFSTuning | None = None) -> BFSResult:
    """Direction-optimizing BFS; ``policy`` defaults to GAP's (alpha=15, beta=18)."""
    return _search(graph, source, make_policy(policy, alpha, beta), depth_limit, "hybrid", tuning)


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
        self.level_stats = np.empty(FUSED_TRACE_ROWS * fused_levels.LEVEL_STAT_COLUMNS, dtype=np.int64)
        self.level_shared = np.zeros(fused_levels.LEVEL_SHARED_SLOTS, dtype=np.int64)


def _search(graph, source: int, policy, depth_limit, method: str, tuning) -> BFSResult:
    depth_limit = depth_limit_levels(depth_limit, graph.n)
    tuning = tuning or _DEFAULT_TUNING
    n = graph.n
    parents = np.empty(n, dtype=np.int64)
    levels = np.empty(n, dtype=np.int32)
    threads = StepThreads(tuning.parallel_work)
    seeds = seed_array(source)  # one id or several (wavefront._sources)
    small = n < tuning.reset_serial_vertices  # reset on the calling thread (see CPUBFSTuning)
    if small:
        steps.reset_search_serial(parents, levels, seeds, graph.indptr)
    else:
        threads.use(n)
        steps.reset_search(parents, levels, seeds, graph.indptr)
    # Reuse the frontier buffers of an earlier search on this graph (taken
    # out while in use, so concurrent searches never share them): fresh
    # ones cost a page fault per 4 KiB on first touch, inside the timed search.
    work = graph.derived.pop(_WORKSPACE_KEY, None) or _Workspace(n, graph.indices.dtype)
    try:
        trace, reached = _run_levels(graph, seeds, policy, depth_limit, parents, levels, work, threads, tuning)
        if reached < n:
            (steps.unreached_to_minus_one_serial if small else steps.unreached_to_minus_one)(parents)
    finally:
        threads.restore()
    graph.derived[_WORKSPACE_KEY] = work
    return BFSResult(
        source=source, parents=parents, levels=levels, trace=trace, method=method, backend="cpu"
    )


def _run_fused(graph, parents, levels, level, frontier_vertices, frontier_edges, depth_limit, work, threads,
               tuning, trace):
    """Consecutive small top-down levels in :func:`._bfs_fused_levels.fused_top_down`
    (:func:`._bfs_fused_levels.serial_top_down` where the team is one thread).

    Returns (levels run, n_f, m_f, vertices and out-arcs discovered in all, previous n_f).
    """
    last_level = _NO_DEPTH_LIMIT if depth_limit is None else depth_limit
    # Every thread, even on a small road: a team capped by graph size lost on 16 cores
    # (docs/decisions/cpu-roads.md, "Thread cap on small roads").
    start_stamp = read_cycles()
    start = time.perf_counter()
    if _fused_serially(graph.n, threads, tuning):
        # No team to join or wait for: plain loads and stores, and no
        # parallel region, so numba's thread count is left as it is.
        ran, size, edges, found, found_edges, previous = fused_levels.serial_top_down(
            graph.indptr, graph.indices, parents, levels, level, work.queue, work.next_queue, frontier_vertices,
            frontier_edges, tuning.fused_edges, last_level, work.level_stats,
        )
        team = 1
    else:
        ran, size, edges, found, found_edges, previous = fused_levels.fused_top_down(
            graph.indptr, graph.indices, parents, levels, level, work.queue, work.next_queue, frontier_vertices,
            frontier_edges, tuning.fused_edges, last_level, work.level_shared, work.level_stats, tuning.spins,
            threads.use_team(threads.available),
        )
        team = int(work.level_shared[TEAM_SIZE])  # the threads that joined (see _atomics.join_team)
    seconds = time.perf_counter() - start
    if not ran:
        return 0, frontier_vertices, frontier_edges, 0, 0, 0
    stats = work.level_stats[: ran * fused_levels.LEVEL_STAT_COLUMNS].copy()
    trace.defer(lambda: _fused_rows(level, stats.reshape(-1, fused_levels.LEVEL_STAT_COLUMNS), start_stamp, seconds,
                                    tuning.fused_edges, team))
    if ran % 2:  # the frontier ended in the second queue
        work.queue, work.next_queue = work.next_queue, work.queue
    return int(ran), int(size), int(edges), int(found), int(found_edges), int(previous)


def _fused_serially(n: int, threads, tuning) -> bool:
    """Whether the fused levels run on the calling thread: a graph under the
    serial limit of the caller's team (``fused_pair_vertices`` for two
    threads, ``fused_parallel_vertices`` for more), or a team of one."""
    if n < tuning.fused_parallel_vertices and n < tuning.fused_pair_vertices:
        return True  # whatever the team: numba's thread count is not even read
    available = threads.available
    return available == 1 or n < (tuning.fused_pair_vertices if available == 2 else tuning.fused_parallel_vertices)


def _fused_rows(first_level, stats, start_stamp, seconds, fused_edges, team):
    times = stamps_to_seconds(start_stamp, stats[:, 2], seconds)
    return [
        TraceRow(first_level + i + 1, TOP_DOWN, int(record[0]), int(record[1]), float(elapsed),
                 f"fused levels ({team} threads): m_f={int(record[1])} < {fused_edges}")
        for i, (record, elapsed) in enumerate(zip(stats, times))
    ]


def _run_levels(graph, seeds, policy, depth_limit, parents, levels, work, threads, tuning):
    """The driver loop: per level, ask the policy, convert the frontier if needed, run the step.
    Returns (trace, vertices reached).

    While the frontier is a queue of fewer than ``tuning.fused_edges``
    out-arcs, levels run top-down in batches inside one parallel region
    (:func:`_run_fused`), whatever the direction policy would say: a
    bottom-up step sweeps a bitmap of all ``n`` vertices, more than such a
    frontier's arcs (the CUDA hybrid overrides the policy the same way for
    frontiers that fit its single block). The ``bottom-up`` method never
    does this.
    """
    n, m = graph.n, graph.m
    indptr, indices = graph.indptr, graph.indices
    in_indptr, in_indices = graph.in_indptr, graph.in_indices
    work.queue[: seeds.size] = seeds  # every source starts the level-0 frontier
    trace = Trace()
    frontier_is_queue = True
    frontier_vertices = int(seeds.size)
    reached = frontier_vertices
    if seeds.size == 1:  # one source: no fancy indexing (~4 us of a small graph's search)
        frontier_edges = int(indptr[seeds[0] + 1] - indptr[seeds[0]])
    else:
        frontier_edges = int((indptr[seeds + 1] - indptr[seeds]).sum())
    unexplored_edges = m - frontier_edges
    previous_frontier_vertices = 0
    direction = TOP_DOWN
    level = 0
    fuse = not (isinstance(policy, FixedPolicy) and policy.direction == BOTTOM_UP)
    while frontier_vertices > 0 and (depth_limit is None or level < depth_limit):
        if fuse and frontier_is_queue and frontier_edges < tuning.fused_edges:
            ran, frontier_vertices, frontier_edges, found, found_edges, previous = _run_fused(
                graph, parents, levels, level, frontier_vertices, frontier_edges, depth_limit, work, threads,
                tuning, trace,
            )
            if ran:
                level += ran
                reached += found
                unexplored_edges -= found_edges
                previous_frontier_vertices, direction = previous, TOP_DOWN
                continue
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
        reached += frontier_vertices
        frontier_edges = int(found_edges)
        unexplored_edges -= frontier_edges
        direction = choice
    return trace, reached
