"""One CUDA BFS search and the device state it owns.

:func:`start_search` gives the simple methods (vertex-, edge- and
queue-centric) their workspace and filled result arrays. :class:`BFSSearch`
is the direction-optimizing family's search: it owns the frontier (a queue
while going top-down, a bitmap while going bottom-up, converted on the GPU
when the direction changes), the step counters, the host's view of the
frontier (n_f, m_f, m_u) and the result arrays, and it alone decides when
the results are written.

The deferred-results contract (stated and enforced here only):

* On graphs where ``bfs_bottom_up.results_written_whole`` holds, the result
  arrays are not filled before the search (``complete`` is False). The first
  bottom-up level writes every vertex's level and parent in coalesced lines
  and makes them complete; if none runs, :meth:`BFSSearch.result` runs
  ``complete_results`` instead. Until then no step may read the arrays, and
  every step records its visits in the visited bitmap.
* While the results are incomplete, a grid-wide top-down step may leave its
  winners' levels due (``BFSTuning.defer_top_down_levels``): it writes their
  parents only, and ``levels_due`` holds its level. The very next step pays
  the debt: a first bottom-up level takes the frontier's levels with the
  arrays (``frontier_levels``), anything else runs ``record_levels`` first.
  Nothing else may leave levels due, and none are due once the search ends.
* A bottom-up level queued ahead counts into the spare counter set; the next
  level consumes it (:meth:`BFSSearch.bottom_up`). A search may return with
  one still queued (it finds nothing); :func:`start_search` orders the next
  search on any stream after it.
"""
from __future__ import annotations

import numpy as np

from ..._sources import seed_array
from ...bfs.policy import BOTTOM_UP, TOP_DOWN, LevelState
from ...errors import VertexError, vertex_range
from ...results import BFSResult, Trace, TraceRow
from . import bfs_bottom_up, bfs_grid_levels, bfs_single_block
from . import bfs_steps as steps
from .abi import CNT_EDGES, CNT_LEVELS_RUN, CNT_NEXT_COUNT, CNT_NEXT_DEGREE
from .bfs_tuning import BFSTuning
from .device_graph import degree_ordered_in_indices, first_in_rows, result_bytes
from .memory import allocate

BACKEND = "cuda"


def check_graph(graph) -> None:
    if graph.device != "cuda":
        raise ValueError(f"the CUDA BFS needs a graph on the GPU, got one on {graph.device!r}; use graph.to('cuda')")


def start_search(graph, source, fill: bool = True):
    """Workspace, fresh result arrays and an initialised search from ``source``
    (one internal id, or an int64 array of distinct ids: every one seeded at
    level 0 as its own parent and queued in the level-0 frontier;
    ``fill=False``: the result arrays are left for the search to complete)."""
    import cupy

    check_graph(graph)
    if isinstance(source, (int, np.integer)):  # one source: no array ops (~4 us of a road search's host time)
        several, first = None, int(source)
        bad = None if 0 <= first < graph.n else first
    else:
        several = seed_array(source)
        outside = (several < 0) | (several >= graph.n)
        first = int(several[0])
        bad = int(several[np.argmax(outside)]) if outside.any() else None
    if bad is not None:
        raise VertexError(f"vertex {bad} is out of range: the graph has {vertex_range(graph.n)}")
    ws = steps.workspace(graph)
    steps.wait_for_workspace(ws)  # a search on another stream may have left a bottom-up step queued
    levels, parents = allocate(lambda: f"the BFS result arrays for {graph!r}", result_bytes(graph),
                               lambda: (cupy.empty(graph.n, dtype=cupy.int32), cupy.empty(graph.n, dtype=cupy.int64)))
    steps.init_search(graph, ws, first, levels, parents, fill)
    if several is not None and several.size > 1:
        steps.seed_sources(ws, several, levels, parents)
    return ws, levels, parents


def frontier_size(source) -> int:
    """The level-0 frontier of a search from ``source`` (one id or an array of ids)."""
    return int(seed_array(source).size)


def bottom_up_indices(graph, tuning: BFSTuning):
    """The CSC indices in the order bottom-up steps probe them."""
    if tuning.neighbour_order == "degree":
        return degree_ordered_in_indices(graph, tuning.degree_sort_chunk_arcs)
    return graph.in_indices


def packed_rows(graph, tuning: BFSTuning, in_indices):
    """The packed first-probe words for ``in_indices``, or None where they do not apply."""
    return first_in_rows(graph, in_indices) if tuning.packed_first_probes else None


def make_result(source, levels, parents, trace, method) -> BFSResult:
    source = int(source) if np.ndim(source) == 0 else seed_array(source)  # the result records the seeds
    return BFSResult(source=source, parents=parents, trace=trace, method=method, backend=BACKEND, levels=levels)


class BFSSearch:
    """A direction-optimizing search from ``source`` (one internal id, or an
    int64 array of them: a multi-source search); see the module docstring."""

    def __init__(self, graph, source, tuning: BFSTuning, root_degree_known: bool):
        self.graph, self.source, self.tuning = graph, source, tuning
        # Several sources: the whole-word result writes keep one root (the
        # first), so the rest are written again once the results are complete.
        self._seeds = seed_array(source)
        self._root = int(self._seeds[0])
        self.complete = not bfs_bottom_up.results_written_whole(graph, tuning)
        self._reseed = self._seeds.size > 1 and not self.complete
        self.ws, self._levels, self._parents = start_search(graph, source, fill=self.complete)
        self.count = int(self._seeds.size)  # n_f
        # m_f and m_u; with the single block the root's degree comes back from
        # its first launch instead of costing a round trip of its own. Several
        # sources may not fit that block, so their degree is read here.
        self.degree = self.unexplored = None
        if self._seeds.size > 1:
            import cupy

            at = cupy.asarray(self._seeds)
            self.degree = int((graph.indptr[at + 1] - graph.indptr[at]).sum())
            self.unexplored = graph.m - self.degree
        elif root_degree_known:
            ends = graph.indptr[source : source + 2].get()
            self.degree = int(ends[1] - ends[0])
            self.unexplored = graph.m - self.degree
        self.previous_count = 0
        self.direction = TOP_DOWN
        self.as_bitmap = False
        self.queued_ahead = None  # the level whose bottom-up step is already queued
        self.levels_due = None  # the level a top-down step left due (see the contract)
        self._probe = None  # (in_indices, packed rows), fetched at the first bottom-up level
        self._finished = False
        self.trace = Trace()

    def state(self, level: int) -> LevelState:
        return LevelState(level, self.graph.n, self.graph.m, self.count, self.degree, self.unexplored,
                          self.previous_count, self.direction)

    # -- steps ------------------------------------------------------------------------
    def single_block(self, level: int, last: int, reason: str, edge_limit: int) -> int:
        """Top-down levels from ``level`` (to ``last`` at most) in one block, each
        with at most ``edge_limit`` out-edges (the policy's limit); the levels
        run (0: the frontier was too big and came back with its degree)."""
        self._pay_due_levels()
        self._to_queue()
        steps.reset_counters(self.ws)
        bfs_single_block.single_block(self.graph, self.ws, self.tuning, self.count, level, last, self._levels,
                                      self._parents, edge_limit, self.degree)
        return self._take_kernel_levels(level, reason, "[single block]")

    def grid_levels(self, level: int, last: int, rule, reason: str) -> int:
        """Top-down levels from ``level`` (to ``last`` at most) in one persistent
        grid launch, as long as ``rule`` (the policy's
        :class:`~wavefront.bfs.policy.GridLevelsRule`) keeps them there; the
        levels run (at least one)."""
        self._pay_due_levels()
        self._to_queue()
        bfs_grid_levels.grid_levels(self.graph, self.ws, self.tuning, self.count, self.degree, self.unexplored,
                                    level, last, rule, self._levels, self._parents)
        return self._take_kernel_levels(level, reason, "[grid levels]")

    def top_down(self, level: int) -> int:
        """One grid-wide edge-balanced top-down level; returns the edges examined."""
        ws = self.ws
        self._pay_due_levels()
        self._to_queue()
        steps.reset_counters(ws)
        defer = not self.complete and self.tuning.defer_top_down_levels
        steps.top_down_balanced(self.graph, ws, self.count, self.degree, level, self._levels, self._parents,
                                write_levels=not defer)
        c = steps.read_counters(ws)
        ws.swap_queues()
        edges = self.degree
        self._advance(c, TOP_DOWN)
        self.levels_due = level if defer else None
        return edges

    def bottom_up(self, level: int, queue_next: bool) -> int:
        """One bottom-up level (or the one already queued for it); with
        ``queue_next`` the next level's step is queued before this one's
        counters come back. Returns the edges examined."""
        ws = self.ws
        if self.queued_ahead == level:
            ws.swap_counters()  # its counters went to the spare set
            self.queued_ahead = None
        else:
            if not self.as_bitmap:
                steps.queue_to_bitmap(ws, self.count)
                self.as_bitmap = True
            whole = not self.complete and self._packed() is not None
            frontier_levels = whole and self.levels_due is not None  # the frontier is that step's output
            if not frontier_levels:
                self._pay_due_levels()
            self.levels_due = None
            self.complete |= self._queue_bottom_up(level, self._root if whole else None, frontier_levels)
        if queue_next:
            ws.swap_counters()
            self._queue_bottom_up(level + 1)
            ws.swap_counters()
            self.queued_ahead = level + 1
        c = steps.wait_counters(ws)
        edges = int(c[CNT_EDGES])
        self._advance(c, BOTTOM_UP)
        return edges

    def result(self, method: str) -> BFSResult:
        """Pay what is due, complete the arrays if no step did, and hand them out (once)."""
        if self._finished:
            raise RuntimeError("a BFSSearch hands out its result once")
        self._pay_due_levels()
        if not self.complete:
            steps.complete_results(self.graph, self.ws, self._root, self._levels, self._parents)
            self.complete = True
        if self._reseed:
            steps.seed_sources(self.ws, self._seeds, self._levels, self._parents, start=False)
        self._finished = True
        return make_result(self.source, self._levels, self._parents, self.trace, method)

    # -- internals ----------------------------------------------------------------------
    def _advance(self, counters, direction: str) -> None:
        self.previous_count = self.count
        self.count, self.degree = int(counters[CNT_NEXT_COUNT]), int(counters[CNT_NEXT_DEGREE])
        self.unexplored -= self.degree
        self.direction = direction

    def _take_kernel_levels(self, level: int, reason: str, kernel: str) -> int:
        """After a multi-level kernel from ``level``: its frontier (left in
        queue_out), counts and trace rows (reasons ending in ``kernel``); the
        levels it ran (0: a single block that found its first level too big,
        whose degree came back)."""
        c, start_ns, rows = steps.read_kernel_levels(self.ws)
        run = int(c[CNT_LEVELS_RUN])
        self.count, returned_degree = int(c[CNT_NEXT_COUNT]), int(c[CNT_NEXT_DEGREE])
        self.ws.swap_queues()
        if self.unexplored is None:  # the root's degree came back from this launch
            self.unexplored = self.graph.m - (returned_degree if run == 0 else int(rows[0, 1]))
        if run:
            _add_kernel_rows(self.trace, level, start_ns, rows, reason, kernel)
            self.unexplored -= int(rows[1:, 1].sum()) + returned_degree
            self.previous_count = int(rows[-1, 0])
            self.direction = TOP_DOWN
        self.degree = returned_degree
        return run

    def _pay_due_levels(self) -> None:
        """record_levels for a top-down step's winners (queue_in[:count]), if due."""
        if self.levels_due is not None:
            assert not self.complete, "levels are left due only while the results are incomplete"
            steps.record_levels(self.ws, self.count, self.levels_due, self._levels)
            self.levels_due = None

    def _to_queue(self) -> None:
        if self.as_bitmap:
            steps.reset_counters(self.ws)
            steps.bitmap_to_queue(self.ws)
            self.as_bitmap = False

    def _packed(self):
        if self._probe is None:
            in_indices = bottom_up_indices(self.graph, self.tuning)
            self._probe = (in_indices, packed_rows(self.graph, self.tuning, in_indices))
        return self._probe[1]

    def _queue_bottom_up(self, level: int, whole_from=None, frontier_levels: bool = False) -> bool:
        """One bottom-up level into the current counter set, its counters' copy
        queued behind it; the bitmaps swap at once, so the next level (queued
        now or later) reads this one's output. Returns whether it wrote the
        result arrays whole."""
        ws = self.ws
        rows = self._packed()
        steps.reset_counters(ws)
        whole = bfs_bottom_up.bottom_up(self.graph, ws, self.tuning, level, self._levels, self._parents, self._probe[0],
                                rows, whole_from, frontier_levels)
        steps.queue_counter_copy(ws)
        ws.swap_bitmaps()
        return whole


def _add_kernel_rows(trace, first_level, start_ns, rows, reason, kernel: str) -> None:
    """One trace row per level a multi-level kernel (the single block, the grid
    levels) ran, GPU-timer durations, each reason ending in ``kernel``; built
    when the trace is first read: a road network adds hundreds of rows per
    search, which took 0.13 ms of a 1.5 ms seattle search to build."""

    def make_rows():
        count = rows.shape[0]
        seconds = (np.diff(rows[:, 2], prepend=start_ns) * 1e-9).tolist()
        reasons = [f"{reason} {kernel}"] + [kernel] * (count - 1)
        return map(TraceRow, range(first_level, first_level + count), [TOP_DOWN] * count,
                   rows[:, 0].tolist(), rows[:, 1].tolist(), seconds, reasons)

    trace.defer(make_rows)

