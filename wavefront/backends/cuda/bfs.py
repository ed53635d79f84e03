"""CUDA BFS: the driver loops and the methods registered in ``METHODS["bfs"]``.

Each method is ``f(graph, source, **options) -> BFSResult`` on a graph that
lives on the GPU, in internal vertex ids; ``source`` may be an int64 array
of distinct ids (a multi-source search, ``wavefront._sources``): every
method seeds them all at level 0 in its initialisation (``start_search``).
Per level the host launches the step kernels (``bfs_steps``) and makes one
small device -> host copy of the step counters (frontier size n_f, its
out-degree sum m_f, edges examined), which feeds the trace and the direction
policy; buffers come from the per-graph workspace (``device_graph``), so a
search allocates only its results.

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
                       block, larger ones on low-degree graphs (roads) in
                       one persistent grid launch (``bfs_grid_levels.cu``);
                       queue <-> bitmap conversions on the GPU
=====================  =====================================================

The hybrid's default policy for CUDA is GAP's (alpha=15, beta=18): seed 000's
measured the same within run-to-run spread (docs/decisions/cuda-bfs.md). The
rules a GPU adds on top of it (single-block small frontiers, grid levels,
``bottom_up_min_edges``, ``stay_bottom_up``, ``bottom_up_ahead``) are one
object, :class:`wavefront.bfs.policy.CUDAHybridPolicy`; the steps and the
state they share are :class:`.bfs_search.BFSSearch`; every tuning choice is a
field of :class:`.bfs_tuning.BFSTuning`, passed as ``tuning=`` or one field
at a time as a keyword (``single_block=False``).
Seed 002's "neighbours sorted by degree" is ``neighbour_order="degree"`` (the
default): bottom-up steps probe a CSC copy whose rows list in-neighbours by
decreasing degree (``device_graph.degree_ordered_in_indices``), so the likely
parents (hubs) come first while vertex ids stay the caller's. Seed 002's
relabelling itself is ``from_edges(..., relabel="degree")`` (results are then
mapped back to caller ids, which costs more than it saves at SCALE 26).
"""
from __future__ import annotations

import time
from dataclasses import replace
from functools import lru_cache

from ..._limits import depth_limit_levels
from ..._sources import multi_source
from ...bfs.policy import (
    BOTTOM_UP,
    TOP_DOWN,
    CUDAHybridPolicy,
    FixedPolicy,
    make_policy,
)
from ...results import BFSResult, Trace
from . import bfs_single_block
from . import bfs_steps as steps
from .abi import (
    CNT_EDGES,
    CNT_FLAG,
    CNT_FRONTIER,
    CNT_NEXT_COUNT,
    SINGLE_BLOCK_MAX_LEVELS,
    single_block_capacity,
)
from .bfs_grid_levels import grid_levels_apply
from .bfs_search import (
    BFSSearch,
    bottom_up_indices,
    check_graph,
    frontier_size,
    make_result,
    packed_rows,
    start_search,
)
from .bfs_tuning import BFSTuning, tuning_from


def prepare(graph, tuning: BFSTuning | None = None, **options) -> None:
    """Build everything a CUDA BFS on ``graph`` needs (workspace, degree masks,
    the CSC copy that ``neighbour_order`` asks for and its packed first
    in-neighbours) and load every kernel, so the first timed search pays for
    none of it. Graph500 counts this as part of graph construction."""
    import cupy

    tuning = tuning_from(tuning, **options)
    check_graph(graph)
    steps.compile_all(graph.indices.dtype.itemsize == 8, tuning)
    if tuning.single_block:  # its padded kernel is built for the graph's row shape
        bfs_single_block.single_block_function(graph, graph.indices.dtype.itemsize == 8, tuning)
    steps.workspace(graph)
    packed_rows(graph, tuning, bottom_up_indices(graph, tuning))
    cupy.cuda.get_current_stream().synchronize()


def _level_limit(graph, depth_limit) -> int:
    """The deepest level to run (``graph.n`` or more: no limit)."""
    limit = depth_limit_levels(depth_limit, graph.n)
    return max(graph.n, 1) if limit is None else limit


# -- vertex- and edge-centric ---------------------------------------------------
def _flag_driven(graph, source, depth_limit, method, launch, frontier_of):
    """Driver for the vertex- and edge-centric methods: one launch per level
    until a level visits nothing. ``frontier_of(counters, previous_new)``
    gives the trace's frontier size for the level just run."""
    ws, levels, parents = start_search(graph, source)
    trace = Trace()
    limit = _level_limit(graph, depth_limit)
    new = frontier_size(source)  # the level-0 frontier: the sources
    for level in range(1, limit + 1):
        t0 = time.perf_counter()
        steps.reset_counters(ws)
        launch(ws, level, levels, parents)
        c = steps.read_counters(ws)
        trace.add(level, method, frontier_of(c, new), int(c[CNT_EDGES]), time.perf_counter() - t0)
        new = int(c[CNT_NEXT_COUNT])
        if not c[CNT_FLAG]:
            break
    return make_result(source, levels, parents, trace, method)


@multi_source
def vertex_push(graph, source, depth_limit=None) -> BFSResult:
    """One thread per vertex, push (top-down), idempotent visited flag."""
    return _flag_driven(
        graph, source, depth_limit, "vertex-push",
        lambda ws, level, lv, par: steps.vertex_push(graph, ws, level, lv, par),
        lambda c, previous: int(c[CNT_FRONTIER]),
    )


@multi_source
def vertex_pull(graph, source, depth_limit=None) -> BFSResult:
    """One thread per unvisited vertex, pull (bottom-up) over the CSC, early exit."""
    return _flag_driven(
        graph, source, depth_limit, "vertex-pull",
        lambda ws, level, lv, par: steps.vertex_pull(graph, ws, level, lv, par),
        lambda c, previous: previous,
    )


@multi_source
def edge(graph, source, depth_limit=None) -> BFSResult:
    """One thread per arc of a COO (built once per graph). Every level
    examines all m arcs; it does not count its frontier (trace shows -1)."""
    check_graph(graph)
    sources = steps.coo_sources(graph)
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
    ws, levels, parents = start_search(graph, source)
    trace = Trace()
    limit = _level_limit(graph, depth_limit)
    count, level = frontier_size(source), 1
    while count and level <= limit:
        t0 = time.perf_counter()
        steps.reset_counters(ws)
        steps.frontier(graph, ws, count, level, levels, parents, privatized)
        c = steps.read_counters(ws)
        trace.add(level, method, count, int(c[CNT_EDGES]), time.perf_counter() - t0)
        count = int(c[CNT_NEXT_COUNT])
        ws.swap_queues()
        level += 1
    return make_result(source, levels, parents, trace, method)


@multi_source
def frontier(graph, source, depth_limit=None) -> BFSResult:
    """Thread per frontier vertex; atomicCAS visit; global queue with an atomic tail."""
    return _queue_driven(graph, source, depth_limit, "frontier", privatized=False)


@multi_source
def frontier_privatized(graph, source, depth_limit=None) -> BFSResult:
    """As ``frontier``, through a shared-memory block queue with warp-aggregated
    reservations, flushed with one atomicAdd per block; overflow goes global."""
    return _queue_driven(graph, source, depth_limit, "frontier-privatized", privatized=True)


# -- direction-optimizing family ------------------------------------------------------
def _direction_optimizing(graph, source, depth_limit, method: str, policy: CUDAHybridPolicy,
                          tuning: BFSTuning) -> BFSResult:
    """Seed 000's level loop (:func:`run_levels`) and its result."""
    return run_levels(graph, source, depth_limit, policy, tuning).result(method)


def run_levels(graph, source, depth_limit, policy: CUDAHybridPolicy, tuning: BFSTuning) -> BFSSearch:
    """Seed 000's level loop: ask the policy, run the step, record the level.
    Returns the search once its frontier is empty or ``depth_limit`` is
    reached; its result is not yet taken (``search.count``: the vertices the
    last level found).

    The hybrid and the fixed-direction methods (a FixedPolicy) share it, and
    so does the distributed GPU search at P = 1. The search object owns the
    frontier, the counters and the result arrays.
    """
    search = BFSSearch(graph, source, tuning, root_degree_known=policy.single_block_vertices == 0)
    limit = _level_limit(graph, depth_limit)
    level = 1
    while search.count and level <= limit:
        decision = policy.choose(search.state(level), queued=search.queued_ahead == level, last_level=limit)
        if decision.single_block:
            last = min(limit, level + SINGLE_BLOCK_MAX_LEVELS - 1)
            # 0 levels: too big, asked again
            level += search.single_block(level, last, decision.reason, policy.single_block_edges)
            continue
        if decision.grid_levels:
            last = min(limit, level + SINGLE_BLOCK_MAX_LEVELS - 1)
            level += search.grid_levels(level, last, policy.grid_levels_rule(graph.n, graph.m), decision.reason)
            continue
        count = search.count
        t0 = time.perf_counter()
        if decision.direction == TOP_DOWN:
            edges = search.top_down(level)
        else:
            edges = search.bottom_up(level, decision.queue_next)
        search.trace.add(level, decision.direction, count, edges, time.perf_counter() - t0, decision.reason)
        level += 1
    return search


def _cuda_policy(graph, base, tuning: BFSTuning, bottom_up_min_edges=None) -> CUDAHybridPolicy:
    """The CUDA rules of ``tuning`` around ``base`` for this graph."""
    if bottom_up_min_edges is not None and int(bottom_up_min_edges) < 0:
        raise ValueError(f"bottom_up_min_edges must be >= 0, got {bottom_up_min_edges}")
    grid = tuning.grid_levels and grid_levels_apply(graph, tuning)
    return _rules(base, tuning, graph.n, graph.directed, graph.indices.dtype.itemsize == 8,
                  None if bottom_up_min_edges is None else int(bottom_up_min_edges), grid)


@lru_cache(maxsize=256)
def _rules(base, tuning: BFSTuning, n: int, directed: bool, wide: bool, bottom_up_min_edges,
           grid_levels: bool = False) -> CUDAHybridPolicy:
    # Cached: a policy is pure, and a road search is short enough that
    # building it per search shows.
    if bottom_up_min_edges is None:
        ratio = tuning.bottom_up_min_edges_ratio
        bottom_up_min_edges = n // ratio if ratio else 0
    # m_u bounds a bottom-up step's edges only where in-degrees are out-degrees.
    stay = tuning.stay_bottom_up and not directed and tuning.stay_bottom_up_ratio > 0
    return CUDAHybridPolicy(
        base,
        single_block_vertices=single_block_capacity(wide) if tuning.single_block else 0,
        single_block_edges=tuning.grid_levels_block_edges if grid_levels else tuning.single_block_edges,
        bottom_up_min_edges=bottom_up_min_edges,
        stay_margin=n // tuning.stay_bottom_up_ratio if stay else None,
        bottom_up_ahead=tuning.bottom_up_ahead,
        grid_levels=grid_levels,
        grid_levels_keep_edges=tuning.grid_levels_keep_edges if grid_levels else None,
    )


@lru_cache(maxsize=256)  # once per distributed search otherwise: a policy is pure
def block_rules(base, tuning: BFSTuning, n: int, small_edges: int = 0,
                stay_edges: int | None = None, ahead: bool = False) -> CUDAHybridPolicy:
    """The rules of ``tuning`` that hold whatever runs between two levels
    (``bottom_up_min_edges``, the stay-bottom-up margin) around ``base``, for
    an undirected graph of ``n`` vertices searched in blocks, where a level's
    frontier comes from an exchange: no single-block levels, and nothing
    queued ahead unless ``ahead`` (the distributed GPU search). A fixed
    direction stays fixed.

    ``small_edges`` > 0: a frontier of at most that many out-edges has a
    cheap top-down path (the one-column search's small levels), which takes
    the place of the single block in the rules (it is never sent bottom-up,
    and the stay-bottom-up rule does not hold it back). ``stay_edges`` (not
    None): a switch back to top-down is overridden while ``m_f > m_u -
    stay_edges`` instead of the tuning's ``m_f > m_u + n / stay_bottom_up_ratio``
    (a top-down level between exchanges costs more than a bottom-up one of
    up to ``stay_edges`` unexplored arcs). ``ahead``: a level sent bottom-up
    queues the next one's bottom-up step, exchange included (the
    one-column search with overlapped sends,
    ``DistributedTuning.bottom_up_ahead``); a fixed direction takes it too."""
    if isinstance(base, FixedPolicy):
        return CUDAHybridPolicy(base, bottom_up_ahead=ahead)
    rules = replace(_rules(base, tuning, n, False, False, None), single_block_vertices=0, bottom_up_ahead=ahead)
    if small_edges > 0:
        rules = replace(rules, single_block_vertices=n, single_block_edges=small_edges)
    if stay_edges is not None:
        rules = replace(rules, stay_margin=-stay_edges)
    return rules


def whole_graph_rules(base, tuning: BFSTuning, n: int, wide: bool) -> CUDAHybridPolicy:
    """Every rule of ``tuning`` around ``base`` for an undirected graph of ``n``
    vertices held as one directed block whose transpose is itself (the
    distributed GPU search at P = 1): nothing runs between its levels, so
    the single block and the bottom-up level queued ahead hold, as in
    :func:`hybrid`; the grid levels do not (Graph500 graphs have hubs, which
    that kernel does not take). A fixed direction stays fixed, as in
    :func:`block_rules`."""
    if isinstance(base, FixedPolicy):
        return CUDAHybridPolicy(base)
    return _rules(base, tuning, n, False, wide, None)


@multi_source
def hybrid(graph, source, policy=None, alpha=None, beta=None, depth_limit=None,
           bottom_up_min_edges: int | None = None, tuning: BFSTuning | None = None, **options) -> BFSResult:
    """Direction-optimizing BFS. ``policy``: a DirectionPolicy or "gap" (default),
    "seed000", "top-down", "bottom-up"; ``alpha``/``beta`` override its constants.
    ``bottom_up_min_edges``: a bottom-up choice for a frontier with fewer
    out-edges runs top-down instead (default n / ``bottom_up_min_edges_ratio``;
    0: never). ``tuning`` (a BFSTuning) and ``options`` (its fields by name,
    e.g. ``single_block=False``, ``neighbour_order="id"``,
    ``stay_bottom_up=False``, ``bottom_up_ahead=False``) choose the rest."""
    tuning = tuning_from(tuning, **options)
    rules = _cuda_policy(graph, make_policy(policy, alpha, beta), tuning, bottom_up_min_edges)
    return _direction_optimizing(graph, source, depth_limit, "hybrid", rules, tuning)


@multi_source
def load_balanced(graph, source, depth_limit=None, tuning: BFSTuning | None = None) -> BFSResult:
    """Top-down only, every level an edge-balanced step (scan over frontier degrees)."""
    tuning = tuning_from(tuning)
    return _direction_optimizing(graph, source, depth_limit, "load-balanced",
                                 CUDAHybridPolicy(FixedPolicy(TOP_DOWN)), tuning)


@multi_source
def bottom_up(graph, source, depth_limit=None, tuning: BFSTuning | None = None, **options) -> BFSResult:
    """Bottom-up over bitmaps at every level (seed 000 figs. 4 and 6); each
    level's successor is queued before its counters return."""
    tuning = tuning_from(tuning, **options)
    rules = CUDAHybridPolicy(FixedPolicy(BOTTOM_UP), bottom_up_ahead=tuning.bottom_up_ahead)
    return _direction_optimizing(graph, source, depth_limit, "bottom-up", rules, tuning)


@multi_source
def single_block(graph, source, depth_limit=None, tuning: BFSTuning | None = None, **options) -> BFSResult:
    """Top-down only; consecutive small-frontier levels run in one thread block."""
    tuning = tuning_from(tuning, **options)
    policy = CUDAHybridPolicy(FixedPolicy(TOP_DOWN),
                              single_block_vertices=single_block_capacity(graph.indices.dtype.itemsize == 8),
                              single_block_edges=tuning.single_block_edges)
    return _direction_optimizing(graph, source, depth_limit, "single-block", policy, tuning)
