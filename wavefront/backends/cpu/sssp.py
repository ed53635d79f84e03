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
arrays it generalises) processes buckets ``[k*delta, (k+1)*delta)`` in order:
light-edge phases until the bucket stops changing, then one heavy-edge
phase over the vertices it settled; one trace row per phase. The default
``delta`` is ``DELTA_FACTOR * mean weight / mean out-degree``: about as
wide as the weight a vertex can expect to gain per hop spread over its
neighbours, so a bucket holds a few hops of the frontier (the
``Θ(1/degree)`` choice of Meyer & Sanders for weights in [0, 1]).
"""
from __future__ import annotations

import time

import numpy as np
from numba import get_num_threads

from ..._sources import multi_source, seed_array
from ...results import SSSPResult, Trace
from . import _sssp_steps as steps
from ._threads import StepThreads

DELTA_FACTOR = 4.0
AUTO_DELTA_STEPPING_MIN_VERTICES = 50_000
_UNIT_WEIGHTS_KEY = "cpu.unit_weights"


@multi_source
def dijkstra(graph, source, cutoff=None) -> SSSPResult:
    """Serial binary-heap Dijkstra; ``cutoff`` leaves farther vertices unreached."""
    weights, in_weights = _weights(graph)
    dist, infinity = _fresh_distances(graph.n, weights.dtype)
    parents = np.full(graph.n, -1, dtype=np.int64)
    seeds = seed_array(source)  # one id or several (wavefront._sources)
    start = time.perf_counter()
    examined = steps.dijkstra_kernel(
        graph.indptr, graph.indices, weights, seeds, dist, parents, _cutoff(cutoff, dist.dtype, infinity)
    )
    trace = Trace()
    trace.add(0, "dijkstra", seeds.size, examined, time.perf_counter() - start, "binary heap")
    return SSSPResult(
        source=source, parents=parents, trace=trace, method="dijkstra", backend="cpu",
        distances=_public_distances(dist, infinity),
    )


@multi_source
def delta_stepping(graph, source, delta=None, cutoff=None) -> SSSPResult:
    """Parallel delta-stepping with light/heavy edges; ``delta`` defaults to :func:`default_delta`."""
    weights, in_weights = _weights(graph)
    delta = default_delta(graph) if delta is None else _check_delta(delta)
    n = graph.n
    dist, infinity = _fresh_distances(n, weights.dtype)
    limit = _cutoff(cutoff, dist.dtype, infinity)
    index_dtype = graph.indices.dtype
    near, near_next = np.empty(n, index_dtype), np.empty(n, index_dtype)
    far, far_next = np.empty(n, index_dtype), np.empty(n, index_dtype)
    processed = np.empty(n, index_dtype)
    near_flags = np.zeros(n, np.uint8)
    far_flags = np.zeros(n, np.uint8)
    processed_flags = np.zeros(n, np.uint8)
    counters = np.zeros(4, np.int64)
    mean_degree = graph.m / max(n, 1)
    threads = StepThreads()

    def phase(frontier, size, light, bucket):
        # Sees the loop's current ``near_next`` and ``far`` (both are swapped as it runs).
        workers = threads.use(int(size * mean_degree))
        return steps.relax_phase(
            graph.indptr, graph.indices, weights, dist, frontier, size, delta, light, bucket, limit,
            near_next, near_flags, far, far_flags, processed, processed_flags, counters, workers,
        )

    trace = Trace()
    seeds = seed_array(source)  # one id or several (wavefront._sources): all in bucket 0
    dist[seeds] = 0
    near[: seeds.size] = seeds
    near_flags[seeds] = 1
    near_size, bucket = int(seeds.size), 0
    split_seconds = 0.0
    try:
        while True:
            while near_size:
                start = time.perf_counter()
                examined = phase(near, near_size, True, bucket)
                seconds = time.perf_counter() - start + split_seconds
                trace.add(bucket, "light", near_size, examined, seconds, f"delta={delta:g}")
                near, near_next = near_next, near
                near_size, split_seconds = int(counters[steps.NEAR_TAIL]), 0.0
            settled = int(counters[steps.PROCESSED_TAIL])
            if settled:
                start = time.perf_counter()
                examined = phase(processed, settled, False, bucket)
                steps.clear_flags(processed, settled, processed_flags)
                counters[steps.PROCESSED_TAIL] = 0
                trace.add(bucket, "heavy", settled, examined, time.perf_counter() - start, f"delta={delta:g}")
                near, near_next = near_next, near
                near_size = int(counters[steps.NEAR_TAIL])
                if near_size:  # float rounding can land a heavy arc in the current bucket
                    continue
            far_size = int(counters[steps.FAR_TAIL])
            if far_size == 0:
                break
            start = time.perf_counter()
            workers = threads.use(far_size)
            next_bucket = steps.far_min_bucket(far, far_size, dist, delta, bucket)
            if next_bucket < 0:
                break
            near_size, far_size = steps.split_far(
                far, far_size, dist, delta, bucket, next_bucket, near, near_flags, far_next, far_flags,
                counters, workers,
            )
            far, far_next = far_next, far
            bucket = int(next_bucket)
            split_seconds = time.perf_counter() - start
        threads.use(n)
        parents = _tree(graph, dist, infinity, seeds, weights, in_weights)
    finally:
        threads.restore()
    return SSSPResult(
        source=source, parents=parents, trace=trace, method="delta-stepping", backend="cpu",
        distances=_public_distances(dist, infinity),
    )


@multi_source
def auto(graph, source, **options) -> SSSPResult:
    """Delta-stepping on graphs of at least 50 000 vertices with several threads, else Dijkstra."""
    if graph.n >= AUTO_DELTA_STEPPING_MIN_VERTICES and get_num_threads() > 1:
        return delta_stepping(graph, source, **options)
    options.pop("delta", None)
    return dijkstra(graph, source, **options)


def default_delta(graph) -> float:
    """``DELTA_FACTOR * mean weight / mean out-degree`` (1.0 for a weightless graph)."""
    weights, _ = _weights(graph)
    mean_weight = float(weights.mean(dtype=np.float64)) if weights.size else 1.0
    mean_degree = max(graph.m / max(graph.n, 1), 1.0)
    delta = DELTA_FACTOR * mean_weight / mean_degree
    return delta if delta > 0 else 1.0


def _check_delta(delta) -> float:
    value = float(delta)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"delta must be a positive finite number, got {delta!r}")
    return value


def _weights(graph):
    """(out-arc weights, in-arc weights); an unweighted graph gets cached unit weights."""
    if graph.weights is not None:
        return graph.weights, graph.in_weights
    unit = graph.derived.get(_UNIT_WEIGHTS_KEY)
    if unit is None or unit.shape[0] != graph.m:
        unit = np.ones(graph.m, dtype=np.int32)
        graph.derived[_UNIT_WEIGHTS_KEY] = unit
    return unit, unit


def _fresh_distances(n: int, weight_dtype):
    """Distances in the accumulation dtype, all at its infinity (int64 max for integer weights)."""
    if np.dtype(weight_dtype).kind == "f":
        return np.full(n, np.inf, dtype=weight_dtype), np.dtype(weight_dtype).type(np.inf)
    infinity = np.iinfo(np.int64).max
    return np.full(n, infinity, dtype=np.int64), np.int64(infinity)


def _cutoff(cutoff, dtype, infinity):
    """``cutoff`` in the distance dtype, rounded down so no distance above it passes."""
    if cutoff is None:
        return infinity
    value = float(cutoff)
    if np.isnan(value) or value < 0:
        raise ValueError(f"cutoff must be a non-negative number, got {cutoff!r}")
    if dtype.kind == "i":
        return np.int64(min(np.floor(value), float(np.iinfo(np.int64).max - 1)))
    limit = dtype.type(value)
    if limit > value:
        limit = np.nextafter(limit, dtype.type(-np.inf))
    return limit


def _public_distances(dist, infinity):
    if dist.dtype.kind == "f":
        return dist
    out = dist.astype(np.float64)
    out[dist == infinity] = np.inf
    return out


def _tree(graph, dist, infinity, seeds, weights, in_weights):
    parents = np.empty(graph.n, dtype=np.int64)
    unresolved = steps.tight_parents(
        graph.in_indptr, graph.in_indices, in_weights, dist, infinity, seeds, parents
    )
    if unresolved:
        steps.zero_weight_parents(graph.indptr, graph.indices, weights, dist, infinity, parents)
    return parents
