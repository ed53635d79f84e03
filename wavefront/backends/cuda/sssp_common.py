"""What every CUDA SSSP method shares: the set-up of a search (arithmetic,
kernels, weights, cutoff), predecessors and the result, and the persistent
kernels' bucket trace.

Predecessors come from kernels/sssp_parents.cu: bulk-synchronous
delta-stepping with float32 weights records them during the search, every
other case confirms them from the final distances afterwards.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..._limits import checked_cutoff, integer_cutoff
from ..._sources import seed_array
from ...errors import GPUMemoryError, InconsistentDistancesError, WeightError
from ...results import SSSPResult, Trace, TraceRow
from .abi import PARENT_CHUNK, SSSP_INT_INFINITY, SSSP_TRACE_ASYNC, SSSP_TRACE_NEAR, SSSP_WEIGHT_INT32
from .memory import check_fits
from .sssp_steps import SSSPKernels, arithmetic
from .sssp_tuning import SSSPTuning

TRACE_CAPACITY = 1 << 16  # trace rows a persistent kernel writes (one per iteration or split)


def device_seeds(source, index_dtype):
    """(first source, the device array of every source or None for one).

    A multi-source search (``source`` an int64 array of distinct internal
    ids) seeds all of them at distance 0; the kernels that take one source
    take the first, and the rest follow the device array.
    """
    import cupy

    seeds = seed_array(source)
    if seeds.size == 1:
        return int(seeds[0]), None
    return int(seeds[0]), cupy.asarray(seeds.astype(index_dtype, copy=False))


def prepare_search(graph, source, cutoff, tuning: SSSPTuning):
    """(arithmetic, kernels, weights, in-weights, cutoff scalar) of a search.
    Integer weights that could overflow an int64 distance raise WeightError."""
    import cupy

    ar = arithmetic(graph)
    if ar.dist_dtype == np.int64 and graph.weights is not None and graph.m:
        key = "cuda.sssp.max_weight"
        if key not in graph.derived:
            graph.derived[key] = int(graph.weights.max())
        biggest = graph.derived[key]
        if biggest * max(graph.n - 1, 1) >= 2**62:
            raise WeightError(
                f"integer weights up to {biggest} could make a distance overflow int64 on "
                f"{graph.n} vertices; scale the weights down or use float64 weights"
            )
    # An unweighted graph's kernels get a placeholder pointer (never read); kept
    # with the graph because captured CUDA graphs hold on to it.
    weights = graph.weights
    if weights is None:
        weights = graph.derived.setdefault("cuda.sssp.no_weights", cupy.zeros(1, dtype=np.uint8))
    in_weights = graph.in_weights if graph.in_weights is not None else weights
    k = SSSPKernels.for_graph(graph, tuning)
    narrow = _int32_weights(graph)
    if narrow is not None:
        weights, in_weights = narrow
        k = SSSPKernels.for_graph(graph, tuning, weight_code=SSSP_WEIGHT_INT32)
    return ar, k, weights, in_weights, _cutoff_scalar(cutoff, ar)


def _int32_weights(graph):
    """int32 copies of int64 weights that all fit (out- and in-arcs), kept with
    the graph; None if the weights are not int64, do not fit, or the copies do
    not fit in GPU memory. The kernels add them in int64 exactly as before, so
    the distances are the same, and a search reads 4 bytes less per arc (on
    the 1.4 M road-like graph the arcs then nearly fit in an H200's L2)."""
    import cupy

    if graph.weights is None or graph.weights.dtype != np.int64 or graph.m == 0:
        return None
    key = "cuda.sssp.int32_weights"
    if key not in graph.derived:
        narrow = None
        if 0 <= graph.derived["cuda.sssp.max_weight"] <= np.iinfo(np.int32).max:
            separate_in = graph.in_weights is not None and graph.in_weights is not graph.weights
            try:
                check_fits("int32 copy of the int64 weights", graph.m * 4 * (2 if separate_in else 1))
                out = graph.weights.astype(np.int32)
                narrow = (out, graph.in_weights.astype(np.int32) if separate_in else out)
            except (GPUMemoryError, cupy.cuda.memory.OutOfMemoryError):
                narrow = None
        graph.derived[key] = narrow
    return graph.derived[key]


def _cutoff_scalar(cutoff, ar):
    """The largest distance value <= cutoff, in the search's arithmetic."""
    c = checked_cutoff(cutoff)
    if c is None:
        return ar.infinity
    if ar.dist_dtype == np.int64:
        return integer_cutoff(c, ar.infinity)
    value = ar.dist_dtype(c)
    if float(value) > c:
        value = np.nextafter(value, ar.dist_dtype(-np.inf), dtype=ar.dist_dtype)
    return value


def parent_chunks(graph):
    """(vertex, first in-arc) of every PARENT_CHUNK-arc piece of the in-lists at
    least PARENT_CHUNK long (cached per graph)."""
    import cupy

    key = "cuda.sssp.parent_chunks"
    if key not in graph.derived:
        in_indptr = graph.in_indptr
        degree = cupy.diff(in_indptr)
        big = cupy.flatnonzero(degree >= PARENT_CHUNK)
        pieces = (degree[big] + PARENT_CHUNK - 1) // PARENT_CHUNK
        ends = cupy.cumsum(pieces)
        total = int(ends[-1]) if big.size else 0
        piece = cupy.arange(total, dtype=np.int64)
        owner = cupy.searchsorted(ends, piece, side="right")
        first_piece = ends[owner] - pieces[owner]
        vertex = big[owner].astype(graph.indices.dtype)
        begin = in_indptr[big[owner]] + (piece - first_piece) * PARENT_CHUNK
        graph.derived[key] = (vertex, begin.astype(np.int64))
    return graph.derived[key]


def finish_search(graph, source, dist, ar, kernels, in_weights, trace, method,
                  record=None) -> SSSPResult:
    """Predecessors, output distances and the result (shared by every method).
    ``record``: the (distance, parent) words a search recorded, if it did.
    ``source``: one id, or an int64 array of ids (a multi-source search)."""
    import cupy

    n = graph.n
    first, seeds = device_seeds(source, np.int64)
    parent = cupy.empty(n, dtype=np.int64)
    words = cupy.zeros(1, dtype=np.uint32)

    def count_unsettled():
        # The parent kernels know one source (the first); every other one is
        # written its own parent here, before the plateau vertices are counted
        # (without it they would be plateau vertices, attached to a neighbour).
        if seeds is not None:
            parent[seeds] = seeds
        settled_round = cupy.empty(n, dtype=np.int32)
        words.fill(0)
        kernels.count_unsettled(n, parent, settled_round, words)
        return int(kernels.read_words(words, 1)[0]), settled_round

    unsettled = 1
    if record is not None:
        kernels.parents_from_record(n, first, record, dist, parent, words)
        unsettled = int(kernels.read_words(words, 1)[0])  # 0 unless the record is broken
        if seeds is not None:  # the other sources hold no record (nothing lowers a 0): count again
            unsettled, _ = count_unsettled()
    if unsettled and kernels.require_recorded_parents:
        missing = f"{unsettled} reached vertices have no recorded parent" if record is not None else \
            "this search recorded no parents"
        raise RuntimeError(f"{missing} (SSSPTuning.require_recorded_parents: the pull pass is off)")
    if unsettled:
        kernels.confirm_parents(graph, in_weights, first, dist, parent, parent_chunks(graph))
        unsettled, settled_round = count_unsettled()
    round_ = 1
    while unsettled:
        words.fill(0)
        kernels.plateau_round(graph, in_weights, dist, parent, settled_round, round_, words)
        progress = int(kernels.read_words(words, 1)[0])
        if progress == 0:
            raise InconsistentDistancesError(unsettled)
        unsettled -= progress
        round_ += 1
    if ar.dist_dtype == np.int64:
        out = _float_distances()(dist)
    else:
        out = dist
    return SSSPResult(source=first if seeds is None else seed_array(source), parents=parent, trace=trace,
                      method=method, backend="cuda", distances=out)


@lru_cache(maxsize=None)
def _float_distances():
    """int64 distances -> float64 with inf for unreached, in one pass."""
    import cupy

    return cupy.ElementwiseKernel(
        "int64 d", "float64 out",
        f"out = d == {SSSP_INT_INFINITY}LL ? __longlong_as_double(0x7ff0000000000000LL) : (double)d",
        "wavefront_float_distances")


def bucket_trace(rows: np.ndarray, iterations: int, delta: float,
                 asynchronous: bool = False) -> Trace:
    """One trace row per bucket (the near iterations, or the asynchronous phase,
    and the split after it) from a persistent kernel's trace rows."""
    trace = Trace()
    if len(rows) < 2:
        return trace
    kinds, counts, buckets, stamps = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    seconds = np.diff(stamps) * 1e-9
    body = slice(0, len(rows) - 1)
    starts = np.flatnonzero(np.diff(buckets[body], prepend=-1) != 0)
    relaxing = (kinds[body] == SSSP_TRACE_NEAR) | (kinds[body] == SSSP_TRACE_ASYNC)
    sums = np.add.reduceat(np.where(relaxing, counts[body], 0), starts)
    times = np.add.reduceat(seconds, starts)
    lengths = np.diff(np.append(starts, len(rows) - 1))
    # Plain Python values first: a road search has ~100 buckets, and numpy
    # scalars made this loop cost ~0.3 ms per search.
    prefix = f" (delta {delta:g}): "
    trace.extend(
        TraceRow(b, "bucket", total, -1, secs,
                 f"bucket {bucket}{prefix}" + ("asynchronous" if asynchronous else f"{length} iterations"))
        for b, (bucket, total, secs, length) in enumerate(
            zip(buckets[starts].tolist(), sums.tolist(), times.tolist(), lengths.tolist()))
    )
    if iterations > TRACE_CAPACITY:
        trace[-1].reason += f"; trace truncated after {TRACE_CAPACITY} of {iterations} iterations"
    return trace


def read_bucket_trace(trace_rows, iterations: int, delta: float, asynchronous: bool = False) -> Trace:
    """:func:`bucket_trace` of a persistent kernel's ``iterations`` device rows;
    the row after the last holds the end time (kept while the trace fits)."""
    rows = trace_rows[: iterations + 1 if iterations < TRACE_CAPACITY else TRACE_CAPACITY].get()
    return bucket_trace(rows, iterations, delta, asynchronous)
