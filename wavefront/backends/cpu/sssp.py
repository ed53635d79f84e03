"""CPU SSSP methods: Dijkstra (the oracle) and parallel delta-stepping.

Arithmetic (the same on every method, so their parents agree with their
distances exactly):

* integer weights accumulate exactly in int64; distances come back float64
  (exact below 2**53);
* float32 weights accumulate in float32, as the GPU kernels do; the
  returned float32 distances satisfy ``d[v] == d[u] + w`` exactly in float32
  for every tree arc, and differ from a float64 computation by rounding
  only (relative ~1e-7 per arc on the path);
* float64 weights accumulate in float64;
* an unweighted graph counts hops (unit int weights, float64 distances).

Delta-stepping (Meyer & Sanders 2003; seed 001 supplies the relax/update
arrays it generalises) processes bins ``[k*delta, (k+1)*delta)`` in order.
:func:`delta_stepping` runs GAP's form of it (thread-local bins, bucket
fusion) in one numba parallel region for the whole search
(:func:`._sssp_fused.fused_delta_stepping`); one trace row per iteration.
The default ``delta`` is a multiple of the mean arc weight chosen by the
graph's shape (:class:`.tuning.CPUSSSPTuning`). Integer and float32
distances travel with their parent in one 64-bit word, so a tree arc is
always the arc that gave the distance, computed once in the distance dtype
(the contract above) with no parent pass.

``DELTA_FACTOR`` is the rule of the light/heavy phase kernels
(``relax_phase``, ``split_far``) that the distributed SSSP still runs.
"""
from __future__ import annotations

import time

import numpy as np
from numba import get_num_threads

from ..._sources import multi_source, seed_array
from ...results import SSSPResult, Trace
from ...sssp import longest_distance_bound
from . import _sssp_fused as fused
from . import _sssp_steps as steps
from ._atomics import TEAM_SIZE
from ._clock import read_cycles, stamps_to_seconds
from ._sssp_results import (
    checked_delta,
    cutoff_value,
    fitting_delta,
    fresh_distances,
    public_distances,
    shortest_path_tree,
    weights_of,
)
from ._threads import StepThreads, fused_team
from .sssp_phast import hierarchy
from .tuning import CPUSSSPTuning

_DEFAULT_TUNING = CPUSSSPTuning()  # the measured defaults (frozen), made once rather than at every search

DELTA_FACTOR = 4.0


@multi_source
def dijkstra(graph, source, cutoff=None) -> SSSPResult:
    """Serial binary-heap Dijkstra; ``cutoff`` leaves farther vertices unreached."""
    weights, _ = weights_of(graph)
    dist, infinity = fresh_distances(graph.n, weights.dtype)
    parents = np.full(graph.n, -1, dtype=np.int64)
    seeds = seed_array(source)  # one id or several (wavefront._sources)
    start = time.perf_counter()
    examined = steps.dijkstra_kernel(
        graph.indptr, graph.indices, weights, seeds, dist, parents, cutoff_value(cutoff, dist.dtype, infinity)
    )
    trace = Trace()
    trace.add(0, "dijkstra", seeds.size, examined, time.perf_counter() - start, "binary heap")
    return SSSPResult(
        source=source, parents=parents, trace=trace, method="dijkstra", backend="cpu",
        distances=public_distances(dist, infinity),
    )


_SSSP_WORKSPACE_KEY = "cpu.sssp_workspace"
_WEIGHT_STATS_KEY = "cpu.weight_stats"
_MEDIAN_WEIGHT_KEY = "cpu.median_weight"
_PACKED_IDS_LIMIT = 0xFFFFFFFF  # packed words keep a parent id below this (all ones: unreached)


class _FusedWorkspace:
    """Buffers the fused kernel reuses across searches on one graph (fresh ones
    cost a page fault per 4 KiB inside the timed search)."""

    def __init__(self, n: int, index_dtype, rows: int):
        self.frontier = np.empty(max(n, 1), dtype=index_dtype)
        self.marks = np.zeros(n, dtype=np.int64)
        self.epoch = 1  # marks below this are free
        self.words = np.empty(n, dtype=np.uint64)
        self.words_fill = None  # the value every word holds between searches (None: unknown)
        self.shared = np.zeros(fused.SHARED_SLOTS, dtype=np.int64)
        self.stats = np.zeros(rows * fused.STAT_COLUMNS, dtype=np.int64)
        self.dirty_rows = 0  # rows of ``stats`` the last search wrote (cleared before the next)


def _codec(graph, weights):
    """(codec marker, packed): how the fused kernel stores distances (see _sssp_fused)."""
    if graph.n < _PACKED_IDS_LIMIT:
        if weights.dtype == np.float32:
            return np.float32(0), True
        if weights.dtype.kind == "i":
            return np.uint32(0), True
    return np.zeros(1, dtype=fresh_distances(0, weights.dtype)[0].dtype)[0], False


def _infinity_word(codec):
    if isinstance(codec, np.float32):
        return np.uint64((0x7F800000 << 32) | 0xFFFFFFFF)  # +inf, no parent
    return np.uint64(0xFFFFFFFFFFFFFFFF)


@multi_source
def delta_stepping(graph, source, delta=None, cutoff=None, tuning: CPUSSSPTuning | None = None) -> SSSPResult:
    """Parallel delta-stepping with thread-local bins and bucket fusion, one parallel region per search.

    ``delta`` defaults to :func:`default_delta`. Integer and float32 weights
    keep each vertex's distance and parent in one word (no parent pass);
    float64 weights, and integer distances past 2**32 - 2, keep distances
    alone and take parents from the tight-arc pass.
    """
    tuning = tuning or _DEFAULT_TUNING
    weights, in_weights = weights_of(graph)
    if delta is not None:
        delta = checked_delta(delta, longest_distance_bound(graph, weights))
    seeds = seed_array(source)  # one id or several (wavefront._sources): all in bin 0
    codec, packed = _codec(graph, weights)
    work = graph.derived.pop(_SSSP_WORKSPACE_KEY, None)
    if work is None or work.stats.size != tuning.trace_rows * fused.STAT_COLUMNS:
        work = _FusedWorkspace(graph.n, graph.indices.dtype, tuning.trace_rows)
    threads = StepThreads()
    try:
        # Delta is the one for the team the kernel is asked for, as measured.
        workers = threads.use_team(fused_workers(graph, threads.available, tuning))
        if delta is None:  # weights spanning many decades can need a wider one for int64 bucket numbers
            delta = fitting_delta(default_delta(graph, tuning, workers), longest_distance_bound(graph, weights))
        result = _fused_search(graph, weights, in_weights, seeds, codec, packed, delta, cutoff, tuning, work,
                               workers)
        if result is None:  # a packed integer distance overflowed: distances alone, int64
            codec = np.int64(0)
            result = _fused_search(graph, weights, in_weights, seeds, codec, False, delta, cutoff, tuning,
                                   work, workers)
    finally:
        threads.restore()
        graph.derived[_SSSP_WORKSPACE_KEY] = work
    distances, parents, trace = result
    return SSSPResult(
        source=source, parents=parents, trace=trace, method="delta-stepping", backend="cpu",
        distances=distances,
    )


def fused_workers(graph, available: int, tuning: CPUSSSPTuning | None = None) -> int:
    """The fused kernel's team with ``available`` threads: one on graphs of fewer
    than ``tuning.serial_arcs`` arcs; on road graphs one per
    ``tuning.vertices_per_thread`` vertices (:func:`._threads.fused_team`);
    on skewed graphs all of them."""
    tuning = tuning or _DEFAULT_TUNING
    if graph.m < tuning.serial_arcs:
        return 1
    if tuning.skewed(graph):
        return max(1, int(available))
    return fused_team(graph.n, available, tuning.vertices_per_thread)


def _fused_search(graph, weights, in_weights, seeds, codec, packed, delta, cutoff, tuning, work, workers):
    """One run of the fused kernel: (distances, parents, trace), or None after a packed overflow."""
    n = graph.n
    # The kernel fills the words (unreached), writes the seeds (distance 0:
    # integer 0 and float32 +0.0 both have all-zero bits; a packed seed is
    # its own parent) and, when packed, unpacks them into the result and
    # leaves them filled for the next search (skipping the fill then).
    if packed:
        words = work.words
        fill = _infinity_word(codec)
        fill_first = work.words_fill != fill
        work.words_fill = None  # until the kernel returns
        seed_words = seeds.astype(np.uint64)
        dist_dtype = np.float32 if isinstance(codec, np.float32) else np.int64
        infinity = np.float32(np.inf) if dist_dtype is np.float32 else np.iinfo(np.int64).max
        public_dtype = np.float32 if dist_dtype is np.float32 else np.float64
        distances = np.empty(n, dtype=public_dtype)
        parents = np.empty(n, dtype=np.int64)
    else:
        dist_dtype = weights.dtype if codec.dtype.kind == "f" else np.dtype(np.int64)
        words = np.empty(n, dtype=dist_dtype)
        fill = fresh_distances(0, dist_dtype)[1]
        fill_first = True
        infinity = fill
        seed_words = np.zeros(seeds.size, dtype=dist_dtype)
        public_dtype = np.float64
        distances, parents = np.empty(0, dtype=public_dtype), np.empty(0, dtype=np.int64)
    limit = cutoff_value(cutoff, np.dtype(dist_dtype), infinity)
    # Clear only what the last search wrote: a full clear costs tens of
    # microseconds, as much as a whole search on a small graph.
    work.stats[: work.dirty_rows * fused.STAT_COLUMNS] = 0
    work.dirty_rows = tuning.trace_rows  # until the kernel returns
    ring = _ring_size(graph, weights, delta, tuning)
    start_stamp = read_cycles()
    start = time.perf_counter()
    iterations = int(fused.fused_delta_stepping(
        graph.indptr, graph.indices, weights, words, codec, 1.0 / delta, limit, work.frontier,
        work.marks, work.epoch, work.shared, work.stats, ring, tuning.fusion_limit,
        tuning.skewed_frontier_shares if tuning.skewed(graph) else tuning.road_frontier_shares,
        tuning.spins, workers, fill, fill_first, seeds, seed_words, distances, parents, public_dtype(np.inf),
        tuning.prefetch_ahead,
    ))
    seconds = time.perf_counter() - start
    team = int(work.shared[TEAM_SIZE])  # the threads that joined (see _atomics.join_team)
    work.epoch += iterations + 1
    work.dirty_rows = min(iterations, tuning.trace_rows)
    if work.shared[fused.OVERFLOW_SLOT]:
        return None
    if packed:
        work.words_fill = fill
    if not packed:
        parents = shortest_path_tree(graph, words, infinity, seeds, weights, in_weights)
        distances = public_distances(words, infinity)
    trace = Trace()
    rows = min(iterations, tuning.trace_rows)
    table = work.stats[: rows * fused.STAT_COLUMNS].reshape(rows, fused.STAT_COLUMNS).copy()
    trace.defer(lambda: _bucket_rows(table, start_stamp, seconds, delta, team, iterations))
    return distances, parents, trace


def _bucket_rows(table, start_stamp, seconds, delta, team, iterations):
    from ...results import TraceRow

    times = stamps_to_seconds(start_stamp, table[:, fused.STAT_STAMP], seconds)
    rows = []
    for i, (record, elapsed) in enumerate(zip(table, times)):
        note = f"delta={delta:g}, {team} threads, {int(record[fused.STAT_FUSED])} fused rounds"
        if i == len(table) - 1 and iterations > len(table):
            note += f"; iterations {i}-{iterations - 1} summed"
        rows.append(TraceRow(int(record[fused.STAT_BIN]), "bucket", int(record[fused.STAT_FRONTIER]),
                             int(record[fused.STAT_EDGES]), float(elapsed), note))
    return rows


def _weight_stats(graph, weights):
    """(mean, max) arc weight, cached per graph."""
    stats = graph.derived.get(_WEIGHT_STATS_KEY)
    if stats is None:
        if weights.size:
            stats = (float(weights.mean(dtype=np.float64)), float(weights.max()))
        else:
            stats = (1.0, 1.0)
        graph.derived[_WEIGHT_STATS_KEY] = stats
    return stats


def _ring_size(graph, weights, delta, tuning) -> int:
    """Bins a thread keeps apart: a power of two covering the heaviest arc's
    jump, at most ``tuning.ring``."""
    _, heaviest = _weight_stats(graph, weights)
    needed = min(heaviest / delta + 2, tuning.ring)
    ring = 2
    while ring < needed:
        ring *= 2
    return ring


@multi_source
def auto(graph, source, tuning: CPUSSSPTuning | None = None, **options) -> SSSPResult:
    """``hierarchy`` where the graph's contraction hierarchy is built, the
    graph has at most ``tuning.phast_auto_max_vertices`` vertices and only
    ``cutoff`` is given; else Dijkstra on graphs of at most
    ``tuning.dijkstra_max_arcs`` arcs, else the fused delta-stepping with the
    delta of the graph's shape (even on one thread it beats the binary heap
    there: docs/decisions/cpu-roads.md)."""
    tuning = tuning or _DEFAULT_TUNING
    if "hierarchy" in graph.derived and graph.n <= tuning.phast_auto_max_vertices and set(options) <= {"cutoff"}:
        return hierarchy(graph, source, tuning=tuning, **options)
    if graph.m > tuning.dijkstra_max_arcs:
        return delta_stepping(graph, source, tuning=tuning, **options)
    options.pop("delta", None)
    return dijkstra(graph, source, **options)


def default_delta(graph, tuning: CPUSSSPTuning | None = None, threads: int | None = None) -> float:
    """The default bin width for the graph's shape (``tuning.skewed``); 1.0 where it comes out 0.

    * Skewed graphs: ``skewed_delta`` mean arc weights.
    * Road graphs: ``road_delta`` median arc weights at a million vertices,
      scaled by ``1e6 / n`` and clamped to ``road_delta_range``, then
      multiplied by ``sqrt(threads / 2)`` (``threads`` defaults to the team
      :func:`delta_stepping` would form from numba's count: :func:`fused_workers`). A
      bin must hold enough vertices to pay for an iteration's barriers and
      contended atomics; a small road graph has few vertices per bin and
      wants wide ones, a large one narrow ones (wide bins relax long arcs
      early and redo the work); more threads pay more per iteration. The
      median, not the mean: road weights are heavy-tailed (the road-like
      generator's mean is 2.4 times its median).
    """
    tuning = tuning or _DEFAULT_TUNING
    weights, _ = weights_of(graph)
    mean_weight, _ = _weight_stats(graph, weights)
    if tuning.skewed(graph):
        delta = tuning.skewed_delta * mean_weight
    else:
        threads = fused_workers(graph, get_num_threads(), tuning) if threads is None else threads
        low, high = tuning.road_delta_range
        multiple = min(max(tuning.road_delta * 1e6 / max(graph.n, 1), low), high)
        delta = multiple * np.sqrt(max(threads, 1) / 2) * _median_weight(graph, weights)
    return float(delta) if delta > 0 else 1.0


def _median_weight(graph, weights) -> float:
    """The median arc weight, from at most ~65 536 evenly spaced arcs; cached per graph."""
    median = graph.derived.get(_MEDIAN_WEIGHT_KEY)
    if median is None:
        sample = weights[:: max(1, weights.size // 65_536)]
        median = float(np.median(sample)) if sample.size else 1.0
        graph.derived[_MEDIAN_WEIGHT_KEY] = median
    return median


