"""CUDA BFS: the driver loops and the methods registered in ``METHODS["bfs"]``.

Each method is ``f(graph, source, **options) -> BFSResult`` on a graph that
lives on the GPU, in internal vertex ids. Per level the host launches the
step kernels (``bfs_steps``) and makes one small device -> host copy of the
step counters (frontier size n_f, its out-degree sum m_f, edges examined),
which feeds the trace and the direction policy; buffers come from the
per-graph workspace (``device_graph``), so a search allocates only its
results.

Methods and where they come from:

=====================  =====================================================
vertex-push            Harish & Narayanan; PMPP 15.3 fig. 15.6 (seeds 003/004)
vertex-pull            PMPP 15.3 fig. 15.8: bottom-up with early exit, CSC
edge                   PMPP 15.4 fig. 15.10: edge-centric over a COO
frontier               PMPP 15.5: atomicCAS visit, global queue
frontier-privatized    PMPP 15.6, seed 003: block + warp-aggregated queues
load-balanced          PMPP 15.8: edge-balanced top-down (scan + search)
bottom-up              seed 000 figs. 4 and 6 over bitmaps, every level
single-block           PMPP 15.7: small-frontier levels in one block,
                       edge-balanced steps for the rest (top-down only)
hybrid (= auto)        seed 000 / Beamer direction optimization: the policy
                       of ``wavefront.bfs.policy`` picks the direction per
                       level; small top-down stretches run in the single
                       block; queue <-> bitmap conversions on the GPU
=====================  =====================================================

The hybrid's default policy for CUDA is GAP's (alpha=15, beta=18): seed 000's
measured the same within run-to-run spread (docs/notes-cuda-bfs.md). Four
CUDA-specific rules sit on top of the policy: the root level always runs
top-down in the single block (its degree comes back from that launch instead
of costing a round trip); a bottom-up choice is overridden while the frontier
fits the single block (a grid-wide bottom-up level costs tens of
microseconds, a single-block level a few); and also while the frontier's
out-degree sum m_f is below ``bottom_up_min_edges`` (default n / 1024): late
in a Kronecker search GAP's m_f > m_u / alpha holds only because hardly any
edge is left unexplored, and an edge-balanced top-down step over a few
thousand edges costs less than a bottom-up sweep over every bitmap word.
The fourth (``stay_bottom_up``) keeps a bottom-up direction that the policy
would leave (GAP: n_f < n / beta) while the frontier's m_f exceeds the
unexplored edges m_u by more than a sweep's worth (n / 256 edges): at SCALE
26 the level after the big bottom-up ones often has a frontier of millions
of vertices with millions of out-edges, while only tens of thousands of
edges are left unexplored, which is all a bottom-up step can examine on an
undirected graph.
With ``bottom_up_ahead`` (default) every bottom-up level the policy picks
also queues the next level's bottom-up step before its own counters come
back: a bottom-up grid covers every bitmap word whatever the frontier, and
any direction yields the same level, so the queued step is kept even where
the policy would then have gone top-down (the trace's reason says so). A
Kronecker search's consecutive bottom-up levels then run back to back
instead of each waiting for a host round trip.
Seed 002's "neighbours sorted by degree" is the bottom-up option
``neighbour_order="degree"``: the steps probe a CSC copy whose rows list
in-neighbours by decreasing degree
(``device_graph.degree_ordered_in_indices``), so the likely parents (hubs)
come first while vertex ids stay the caller's. Seed 002's relabelling itself
is ``from_edges(..., relabel="degree")`` (results are then mapped back to
caller ids, which costs more than it saves at SCALE 26).
"""
from __future__ import annotations

import time

import numpy as np

from ...bfs.policy import BOTTOM_UP, TOP_DOWN, FixedPolicy, LevelState, make_policy
from ...errors import VertexError
from ...results import BFSResult, Trace, TraceRow
from . import bfs_steps as steps
from .device_graph import (
    CNT_EDGES,
    CNT_FLAG,
    CNT_FRONTIER,
    CNT_LEVELS_RUN,
    CNT_NEXT_COUNT,
    CNT_NEXT_DEGREE,
    SINGLE_BLOCK_MAX_LEVELS,
    coo_sources,
    degree_ordered_in_indices,
    first_in_rows,
    result_bytes,
    workspace,
)
from .memory import check_fits

BACKEND = "cuda"
# A top-down level whose frontier has at most this many out-edges runs in the
# single-block kernel (16 edges per thread of its 1024): below it a grid
# launch plus a host round trip costs more than the block spends.
SINGLE_BLOCK_EDGES = 16384
# The hybrid goes top-down whatever the policy says while the frontier has
# fewer than n / BOTTOM_UP_SWEEP_RATIO out-edges: a grid-wide bottom-up level
# sweeps all n/32 bitmap words (~0.1 ms at SCALE 26), a balanced top-down
# step over 64 K edges (n / 1024 there) takes a few microseconds.
BOTTOM_UP_SWEEP_RATIO = 1024
# ``stay_bottom_up``: a bottom-up level (a sweep over every bitmap word plus at
# most m_u edges) is kept instead of a top-down one (m_f edges and a
# bitmap -> queue conversion) when m_f > m_u + n / STAY_BOTTOM_UP_RATIO. At
# SCALE 26 on an H200 the sweep with ~30 K edges left took 0.09 ms, as did a
# top-down level over 0.32 M edges (n / 256 = 0.26 M).
STAY_BOTTOM_UP_RATIO = 256
# Order in which bottom-up steps probe a vertex's in-neighbours: "degree"
# (hubs first, seed 002; a sorted CSC copy built once per graph) or "id"
# (the graph's own order, no extra memory).
NEIGHBOUR_ORDER = "degree"
NEIGHBOUR_ORDERS = ("degree", "id")


def prepare(graph, neighbour_order: str = NEIGHBOUR_ORDER) -> None:
    """Build everything a CUDA BFS on ``graph`` needs (workspace, degree masks,
    the CSC copy that ``neighbour_order`` asks for and its packed first
    in-neighbours) and load every kernel, so
    the first timed search pays for none of it. Graph500 counts this as part
    of graph construction."""
    import cupy

    _check_graph(graph)
    steps.compile_all(graph.indices.dtype.itemsize == 8)
    workspace(graph)
    first_in_rows(graph, _bottom_up_indices(graph, neighbour_order))
    probe = cupy.ones(4, dtype=cupy.int64)  # compiles the scan of the BALANCED_SCAN="cupy" alternative
    cupy.cumsum(probe[:2], out=probe[2:])
    cupy.cuda.get_current_stream().synchronize()


# -- shared plumbing ------------------------------------------------------------
def _check_graph(graph) -> None:
    if graph.device != "cuda":
        raise ValueError(f"the CUDA BFS needs a graph on the GPU, got one on {graph.device!r}; use graph.to('cuda')")


def _start(graph, source: int, fill: bool = True):
    """Workspace, fresh result arrays and an initialised search from ``source``
    (``fill=False``: the result arrays are left for the search to complete)."""
    import cupy

    _check_graph(graph)
    if not 0 <= source < graph.n:
        raise VertexError(f"vertex {source} is out of range: the graph has vertices 0..{graph.n - 1}")
    ws = workspace(graph)
    # A search may return with a bottom-up step still queued (bottom_up_ahead,
    # one that finds nothing): a search on another stream must not share the
    # workspace with it.
    steps.wait_for_workspace(ws)
    check_fits(lambda: f"the BFS result arrays for {graph!r}", result_bytes(graph))
    levels = cupy.empty(graph.n, dtype=cupy.int32)
    parents = cupy.empty(graph.n, dtype=cupy.int64)
    steps.init_search(graph, ws, source, levels, parents, fill)
    return ws, levels, parents


def _level_limit(graph, depth_limit) -> int:
    if depth_limit is None:
        return max(graph.n, 1)
    if int(depth_limit) < 0:
        raise ValueError(f"depth_limit must be >= 0, got {depth_limit}")
    return int(depth_limit)


def _edge_limit(value) -> int:
    limit = int(value)
    if not 0 <= limit <= 2**20:  # the single block counts a level's edges in 32 bits
        raise ValueError(f"single_block_edges must be in [0, 2**20], got {value}")
    return limit


def _min_edges(graph, value) -> int:
    if value is None:
        return graph.n // BOTTOM_UP_SWEEP_RATIO
    if int(value) < 0:
        raise ValueError(f"bottom_up_min_edges must be >= 0, got {value}")
    return int(value)


def _check_neighbour_order(neighbour_order) -> None:
    if neighbour_order not in NEIGHBOUR_ORDERS:
        raise ValueError(f"neighbour_order must be one of {NEIGHBOUR_ORDERS}, got {neighbour_order!r}")


def _bottom_up_indices(graph, neighbour_order: str):
    _check_neighbour_order(neighbour_order)
    return degree_ordered_in_indices(graph) if neighbour_order == "degree" else graph.in_indices


def _result(source, levels, parents, trace, method) -> BFSResult:
    return BFSResult(source=int(source), parents=parents, trace=trace, method=method, backend=BACKEND, levels=levels)


def _flag_driven(graph, source, depth_limit, method, launch, frontier_of):
    """Driver for the vertex- and edge-centric methods: one launch per level
    until a level visits nothing. ``frontier_of(counters, previous_new)``
    gives the trace's frontier size for the level just run."""
    ws, levels, parents = _start(graph, source)
    trace = Trace()
    limit = _level_limit(graph, depth_limit)
    new = 1  # the level-0 frontier: the source
    for level in range(1, limit + 1):
        t0 = time.perf_counter()
        steps.reset_counters(ws)
        launch(ws, level, levels, parents)
        c = steps.read_counters(ws)
        trace.add(level, method, frontier_of(c, new), int(c[CNT_EDGES]), time.perf_counter() - t0)
        new = int(c[CNT_NEXT_COUNT])
        if not c[CNT_FLAG]:
            break
    return _result(source, levels, parents, trace, method)


# -- vertex- and edge-centric ---------------------------------------------------
def vertex_push(graph, source: int, depth_limit=None) -> BFSResult:
    """One thread per vertex, push (top-down), idempotent visited flag."""
    return _flag_driven(
        graph, source, depth_limit, "vertex-push",
        lambda ws, level, lv, par: steps.vertex_push(graph, ws, level, lv, par),
        lambda c, previous: int(c[CNT_FRONTIER]),
    )


def vertex_pull(graph, source: int, depth_limit=None) -> BFSResult:
    """One thread per unvisited vertex, pull (bottom-up) over the CSC, early exit."""
    return _flag_driven(
        graph, source, depth_limit, "vertex-pull",
        lambda ws, level, lv, par: steps.vertex_pull(graph, ws, level, lv, par),
        lambda c, previous: previous,
    )


def edge(graph, source: int, depth_limit=None) -> BFSResult:
    """One thread per arc of a COO (built once per graph). Every level
    examines all m arcs; it does not count its frontier (trace shows -1)."""
    sources = coo_sources(graph)
    result = _flag_driven(
        graph, source, depth_limit, "edge",
        lambda ws, level, lv, par: steps.edge(graph, ws, sources, level, lv, par),
        lambda c, previous: -1,
    )
    for row in result.trace:
        row.edges = graph.m
    return result


# -- queue-driven top-down --------------------------------------------------------
def _queue_driven(graph, source, depth_limit, method, privatized):
    ws, levels, parents = _start(graph, source)
    trace = Trace()
    limit = _level_limit(graph, depth_limit)
    count, level = 1, 1
    while count and level <= limit:
        t0 = time.perf_counter()
        steps.reset_counters(ws)
        steps.frontier(graph, ws, count, level, levels, parents, privatized)
        c = steps.read_counters(ws)
        trace.add(level, method, count, int(c[CNT_EDGES]), time.perf_counter() - t0)
        count = int(c[CNT_NEXT_COUNT])
        ws.swap_queues()
        level += 1
    return _result(source, levels, parents, trace, method)


def frontier(graph, source: int, depth_limit=None) -> BFSResult:
    """Thread per frontier vertex; atomicCAS visit; global queue with an atomic tail."""
    return _queue_driven(graph, source, depth_limit, "frontier", privatized=False)


def frontier_privatized(graph, source: int, depth_limit=None) -> BFSResult:
    """As ``frontier``, through a shared-memory block queue with warp-aggregated
    reservations, flushed with one atomicAdd per block; overflow goes global."""
    return _queue_driven(graph, source, depth_limit, "frontier-privatized", privatized=True)


# -- direction-optimizing family ------------------------------------------------------
def _out_degree(graph, v: int) -> int:
    ends = graph.indptr[v : v + 2].get()
    return int(ends[1] - ends[0])


def _direction_optimizing(graph, source, depth_limit, method, policy, use_single_block, single_block_edges,
                          neighbour_order=NEIGHBOUR_ORDER, bottom_up_min_edges=0, stay_bottom_up=False,
                          bottom_up_ahead=False):
    """The hybrid driver; the fixed-direction methods are this with a FixedPolicy.

    The frontier lives in ``ws.queue_in`` while going top-down and in
    ``ws.frontier`` (a bitmap) while going bottom-up; a change of direction
    converts it on the GPU. ``bottom_up_ahead``: when the policy picks
    bottom-up, the next level's bottom-up step is queued too, before this
    level's counters come back (its grid does not depend on them), and runs
    whatever the policy then says: any direction gives the same level, and
    the GPU does not wait for the host between the two.
    """
    _check_neighbour_order(neighbour_order)
    # m_u bounds a bottom-up step's edges only where in-degrees are out-degrees.
    stay_bottom_up = stay_bottom_up and not graph.directed
    # On large graphs the result arrays are written whole by the first
    # bottom-up level, or by complete_results at the end, not filled first.
    complete = not steps.results_written_whole(graph)
    ws, levels, parents = _start(graph, source, fill=complete)
    in_indices = None  # the bottom-up probe order, fetched at the first bottom-up level
    trace = Trace()
    limit = _level_limit(graph, depth_limit)
    capacity = steps.single_block_capacity(ws)
    count = 1
    # m_f of the frontier and m_u (GAP's policy), kept on the host. With the
    # single block on, the root's degree comes back from its first launch
    # instead of costing a round trip of its own.
    degree = None if use_single_block else _out_degree(graph, source)
    unexplored = None if degree is None else graph.m - degree
    previous_count = 0
    direction = TOP_DOWN
    as_bitmap = False
    queued_ahead = None  # the level whose bottom-up step is already queued
    # While the results are not complete, a grid-wide top-down step leaves its
    # vertices' levels due (its level; the vertices are queue_in[:count]): a
    # following first bottom-up level writes them with the arrays, else
    # record_levels does before the next step.
    levels_due = None
    level = 1
    while count and level <= limit:
        fits_single_block = use_single_block and count <= capacity and (degree is None or degree <= single_block_edges)
        if degree is None:
            choice, reason = TOP_DOWN, "root: top-down"
        else:
            state = LevelState(level, graph.n, graph.m, count, degree, unexplored, previous_count, direction)
            choice, reason = policy.choose(state)
            if choice == BOTTOM_UP and fits_single_block:
                # A grid-wide bottom-up level costs a bitmap sweep and a host
                # round trip; a frontier this small is cheaper top-down in the block.
                choice, reason = TOP_DOWN, reason + "; frontier fits the single block"
            elif choice == BOTTOM_UP and degree < bottom_up_min_edges:
                choice, reason = TOP_DOWN, reason + f"; m_f < {bottom_up_min_edges}: top-down"
            elif (choice == TOP_DOWN and stay_bottom_up and direction == BOTTOM_UP and not fits_single_block
                  and degree > unexplored + graph.n // STAY_BOTTOM_UP_RATIO):
                # A bottom-up step examines at most m_u edges, the top-down
                # step all m_f of them, plus a bitmap -> queue conversion.
                choice, reason = BOTTOM_UP, reason + "; m_f > m_u + sweep: stays bottom-up"
        chosen_bottom_up = choice == BOTTOM_UP
        if queued_ahead == level and not chosen_bottom_up:
            choice, reason = BOTTOM_UP, reason + "; its bottom-up step was already queued"
        t0 = time.perf_counter()
        if choice == TOP_DOWN:
            levels_due = _record_levels(ws, levels_due, count, levels)
            if as_bitmap:
                steps.reset_counters(ws)
                steps.bitmap_to_queue(ws)
                as_bitmap = False
            if fits_single_block:
                last = min(limit, level + SINGLE_BLOCK_MAX_LEVELS - 1)
                steps.reset_counters(ws)
                steps.single_block(graph, ws, count, level, last, single_block_edges, levels, parents)
                c, start_ns, rows = steps.read_single_block(ws)
                run = int(c[CNT_LEVELS_RUN])
                count, returned_degree = int(c[CNT_NEXT_COUNT]), int(c[CNT_NEXT_DEGREE])
                ws.swap_queues()
                if run == 0:  # the level is too big for the block: the frontier came back as it was
                    degree = returned_degree
                    if unexplored is None:
                        unexplored = graph.m - degree
                    continue
                _add_single_block_rows(trace, level, start_ns, rows, reason)
                if unexplored is None:
                    unexplored = graph.m - int(rows[0, 1])
                unexplored -= int(rows[1:, 1].sum()) + returned_degree
                degree = returned_degree
                previous_count = int(rows[-1, 0])
                direction = TOP_DOWN
                level += run
                continue
            steps.reset_counters(ws)
            defer = not complete and steps.DEFER_TOP_DOWN_LEVELS
            steps.top_down_balanced(graph, ws, count, degree, level, levels, parents, write_levels=not defer)
            c = steps.read_counters(ws)
            edges = degree
            ws.swap_queues()
            levels_due = level if defer else None
        else:
            if queued_ahead == level:
                ws.swap_counters()  # its counters went to the spare set
                queued_ahead = None
            else:
                if not as_bitmap:
                    steps.queue_to_bitmap(ws, count)
                    as_bitmap = True
                if in_indices is None:
                    in_indices = _bottom_up_indices(graph, neighbour_order)
                whole = not complete and steps.writes_whole(graph, in_indices)
                frontier_levels = whole and levels_due is not None  # the frontier is that step's output
                levels_due = None if frontier_levels else _record_levels(ws, levels_due, count, levels)
                complete |= _queue_bottom_up(graph, ws, level, levels, parents, in_indices,
                                             source if whole else None, frontier_levels)
            if bottom_up_ahead and chosen_bottom_up and level < limit:
                ws.swap_counters()
                _queue_bottom_up(graph, ws, level + 1, levels, parents, in_indices)
                ws.swap_counters()
                queued_ahead = level + 1
            c = steps.wait_counters(ws)
            edges = int(c[CNT_EDGES])
        trace.add(level, choice, count, edges, time.perf_counter() - t0, reason)
        previous_count = count
        count, degree = int(c[CNT_NEXT_COUNT]), int(c[CNT_NEXT_DEGREE])
        unexplored -= degree
        direction = choice
        level += 1
    _record_levels(ws, levels_due, count, levels)
    if not complete:
        steps.complete_results(graph, ws, source, levels, parents)
    return _result(source, levels, parents, trace, method)


def _record_levels(ws, levels_due, count, levels):
    """Write the levels a top-down step left due (``levels_due``: its level,
    ``count`` vertices in queue_in) now; returns the new state (None)."""
    if levels_due is not None:
        steps.record_levels(ws, count, levels_due, levels)
    return None


def _queue_bottom_up(graph, ws, level, levels, parents, in_indices, whole_from=None,
                     frontier_levels=False) -> bool:
    """One bottom-up level into the current counter set, its counters' copy
    queued behind it; the bitmaps swap at once, so the next level (queued now
    or later) reads this one's output. Returns whether it wrote the result
    arrays whole (``whole_from``: the source; ``frontier_levels``: see
    ``steps.bottom_up``)."""
    steps.reset_counters(ws)
    whole = steps.bottom_up(graph, ws, level, levels, parents, in_indices, whole_from, frontier_levels)
    steps.queue_counter_copy(ws)
    ws.swap_bitmaps()
    return whole


def _add_single_block_rows(trace, first_level, start_ns, rows, reason) -> None:
    """One trace row per level the single-block kernel ran (GPU-timer durations),
    built when the trace is first read: a road network adds hundreds of rows
    per search, which took 0.13 ms of a 1.5 ms seattle search to build."""

    def make_rows():
        count = rows.shape[0]
        seconds = (np.diff(rows[:, 2], prepend=start_ns) * 1e-9).tolist()
        reasons = [reason + " [single block]"] + ["[single block]"] * (count - 1)
        return map(TraceRow, range(first_level, first_level + count), [TOP_DOWN] * count,
                   rows[:, 0].tolist(), rows[:, 1].tolist(), seconds, reasons)

    trace.defer(make_rows)


def hybrid(graph, source: int, policy=None, alpha=None, beta=None, depth_limit=None,
           single_block: bool = True, single_block_edges: int = SINGLE_BLOCK_EDGES,
           neighbour_order: str = NEIGHBOUR_ORDER, bottom_up_min_edges: int | None = None,
           stay_bottom_up: bool = True, bottom_up_ahead: bool = True) -> BFSResult:
    """Direction-optimizing BFS. ``policy``: a DirectionPolicy or "gap" (default),
    "seed000", "top-down", "bottom-up"; ``alpha``/``beta`` override its constants.
    ``single_block=False`` runs every top-down level as a grid-wide step.
    ``neighbour_order``: "degree" (bottom-up probes hubs first) or "id".
    ``bottom_up_min_edges``: a bottom-up choice for a frontier with fewer
    out-edges runs top-down instead (default n / 1024; 0: never).
    ``stay_bottom_up``: on an undirected graph, a switch back to top-down is
    overridden while the frontier's out-edges m_f exceed the unexplored
    edges m_u by more than n / ``STAY_BOTTOM_UP_RATIO``.
    ``bottom_up_ahead``: with every bottom-up level the policy picks, the
    next level's bottom-up step is queued at once and kept whatever the
    policy then says (no host round trip between bottom-up levels)."""
    return _direction_optimizing(
        graph, source, depth_limit, "hybrid", make_policy(policy, alpha, beta), single_block,
        _edge_limit(single_block_edges), neighbour_order, _min_edges(graph, bottom_up_min_edges),
        bool(stay_bottom_up), bool(bottom_up_ahead),
    )


def load_balanced(graph, source: int, depth_limit=None) -> BFSResult:
    """Top-down only, every level an edge-balanced step (scan over frontier degrees)."""
    return _direction_optimizing(graph, source, depth_limit, "load-balanced", FixedPolicy(TOP_DOWN), False, 0)


def bottom_up(graph, source: int, depth_limit=None, neighbour_order: str = NEIGHBOUR_ORDER) -> BFSResult:
    """Bottom-up over bitmaps at every level (seed 000 figs. 4 and 6)."""
    return _direction_optimizing(
        graph, source, depth_limit, "bottom-up", FixedPolicy(BOTTOM_UP), False, 0, neighbour_order,
        bottom_up_ahead=True,
    )


def single_block(graph, source: int, depth_limit=None, single_block_edges: int = SINGLE_BLOCK_EDGES) -> BFSResult:
    """Top-down only; consecutive small-frontier levels run in one thread block."""
    return _direction_optimizing(
        graph, source, depth_limit, "single-block", FixedPolicy(TOP_DOWN), True, _edge_limit(single_block_edges)
    )
