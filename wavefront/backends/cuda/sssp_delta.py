"""Delta-stepping on the GPU: the choice of schedule and delta, and the
bulk-synchronous near-far search.

Near-far delta-stepping (Davidson et al. 2014) runs as one persistent kernel
(kernels/sssp_near_far.cu), with Meyer & Sanders' light/heavy split and heavy
steps in push or pull form on skewed graphs; road networks get asynchronous
buckets instead (:mod:`.sssp_async`). Defaults follow the graph's shape
(:meth:`SSSPTuning.for_shape`); docs/decisions/cuda-sssp.md has the
measurements behind them.
"""
from __future__ import annotations

import math

import numpy as np

from ..._sources import multi_source
from ...errors import GPUMemoryError
from ...results import SSSPResult
from .abi import (
    CTL_ITERATIONS,
    NEAR_FAR_CHUNK,
    NEAR_FAR_CTL_NEAR,
    NEAR_FAR_CTL_WORDS,
    SSSP_INT_INFINITY,
    TRACE_WIDTH,
)
from .memory import check_fits
from .sssp_async import async_delta_stepping
from .sssp_common import (
    TRACE_CAPACITY,
    device_seeds,
    finish_search,
    parent_chunks,
    prepare_search,
    read_bucket_trace,
)
from .sssp_steps import HOST_WORDS, NO_RECORD, NearFarArgs, check_blocks_per_sm
from .sssp_tuning import SSSPTuning, tuning_or_default

WARP_SIZE = 32  # Davidson et al.'s rule: a bucket holds about a warp's worth of arcs per vertex


def delta_scale(graph, tuning: SSSPTuning) -> float:
    """The multiple of Davidson et al.'s delta that :func:`default_delta` uses:
    the shape's scale, widened for small graphs on the asynchronous schedule
    (up to ``async_widest_scale``, falling as 1 / n)."""
    shape = tuning.for_shape(graph)
    if not shape.asynchronous:
        return shape.delta_scale
    widest = tuning.async_widest_scale * tuning.async_widest_up_to / max(graph.n, 1)
    return min(tuning.async_widest_scale, max(shape.delta_scale, widest))


def default_delta(graph, tuning: SSSPTuning) -> float:
    """Davidson et al.'s rule (mean arc weight x warp size / mean out-degree)
    times :func:`delta_scale`. The mean weight is cached per graph."""
    key = "cuda.sssp.mean_weight"
    if key not in graph.derived:
        graph.derived[key] = 1.0 if graph.weights is None or graph.m == 0 else float(graph.weights.mean())
    mean_degree = max(graph.m / max(graph.n, 1), 1.0)
    return delta_scale(graph, tuning) * graph.derived[key] * WARP_SIZE / mean_degree


def _delta_scalar(delta, ar, graph, tuning: SSSPTuning):
    value = default_delta(graph, tuning) if delta is None else float(delta)
    if math.isnan(value) or value < 0 or (delta is not None and value == 0):
        raise ValueError(f"delta must be a positive number, got {delta!r}")
    if ar.dist_dtype == np.int64:
        # a width past a quarter of int64 (weights near check_weights' bound) is one bucket for everything
        return np.int64(min(max(1, round(value)), SSSP_INT_INFINITY // 4)) if math.isfinite(value) \
            else np.int64(SSSP_INT_INFINITY // 4)
    value = value if value > 0 else 1.0
    return ar.dist_dtype(min(value, np.finfo(ar.dist_dtype).max / 4))


def _chunk_capacity(graph) -> int:
    """Chunk tasks one iteration can queue: sum of ceil(degree / chunk) over big vertices."""
    key = "cuda.sssp.chunk_capacity"
    if key not in graph.derived:
        deg = graph.degree()
        big = deg[deg >= NEAR_FAR_CHUNK]
        graph.derived[key] = int(((big + NEAR_FAR_CHUNK - 1) // NEAR_FAR_CHUNK).sum()) + 1
    return graph.derived[key]


def light_heavy_arcs(graph, delta_value, k, weights):
    """(indices, weights, light_end): the out-lists ordered light arcs (w < delta)
    first, built on the GPU once per (graph, delta) and kept with the graph
    (the latest delta only: a copy of the arcs is as big as the graph's)."""
    import cupy

    key = "cuda.sssp.light_heavy"
    cached = graph.derived.get(key)
    if cached is not None and cached[0] == delta_value.item():
        return cached[1]
    graph.derived.pop(key, None)
    check_fits("delta-stepping light/heavy arc copy",
               graph.indices.nbytes + (weights.nbytes if graph.weights is not None else 0)
               + 8 * graph.n)
    out_indices = cupy.empty_like(graph.indices)
    out_weights = cupy.empty_like(weights) if graph.weights is not None else weights
    light_end = cupy.empty(graph.n, dtype=np.int64)
    k.split_light_heavy(graph, weights, delta_value, out_indices, out_weights, light_end)
    graph.derived[key] = (delta_value.item(), (out_indices, out_weights, light_end))
    return graph.derived[key][1]


@multi_source
def delta_stepping(graph, source, *, cutoff=None, delta=None, chain: int | None = None,
                   blocks_per_sm: int | None = None, light_heavy: bool | None = None,
                   asynchronous: bool | None = None, tuning: SSSPTuning | None = None) -> SSSPResult:
    """Near-far delta-stepping in one persistent kernel.

    ``delta`` (bucket width, in weight units) defaults to :func:`default_delta`;
    ``chain`` is how many hops a thread may relax an improved neighbour at
    once before queueing it (0: plain near-far); ``blocks_per_sm`` (1 or 2)
    sizes the persistent grid (fewer blocks: a cheaper grid barrier).
    ``light_heavy`` relaxes heavy arcs (w >= delta) once per settled vertex
    instead of at every improvement (a per-delta copy of the arcs, built on
    first use: :func:`light_heavy_arcs`; skipped if it does not fit in GPU
    memory unless asked for). ``asynchronous`` relaxes each bucket without
    grid-wide iterations (kernels/sssp_async.cu, ADDS-style: every warp takes
    vertices from a shared ring as soon as they improve; ``chain`` is then the
    number of hops a lane follows on its own before queueing; ``blocks_per_sm``
    1..4); it has no light/heavy split (``light_heavy=True`` alone picks the
    bulk-synchronous schedule). Options left None follow the graph's shape
    (``tuning.for_shape``, default :class:`SSSPTuning`'s measured winners).
    """
    tuning = tuning_or_default(tuning)
    shape = tuning.for_shape(graph)
    if asynchronous is None:  # the split needs the bulk-synchronous schedule's heavy steps
        asynchronous = shape.asynchronous and not light_heavy
    elif asynchronous and light_heavy:
        raise ValueError("light_heavy=True needs the bulk-synchronous schedule "
                         "(asynchronous=False): the asynchronous kernel has no heavy steps")
    chain = shape.chain if chain is None else int(chain)
    blocks_per_sm = shape.blocks_per_sm if blocks_per_sm is None else blocks_per_sm
    if chain < 0:
        raise ValueError(f"chain must be >= 0, got {chain!r}")
    check_blocks_per_sm(blocks_per_sm, asynchronous)  # before any GPU work
    ar, k, weights, in_weights, cut = prepare_search(graph, source, cutoff, tuning)
    delta_value = _delta_scalar(delta, ar, graph, tuning)
    if asynchronous:
        return async_delta_stepping(graph, source, ar, k, weights, in_weights, cut,
                                    delta_value, chain, blocks_per_sm)
    arcs = (graph.indices, weights, None)  # (indices, weights, light_end) the kernel reads
    if light_heavy or (light_heavy is None and shape.light_heavy):
        try:
            arcs = light_heavy_arcs(graph, delta_value, k, weights)
        except GPUMemoryError:
            if light_heavy:  # asked for explicitly: say why it cannot be done
                raise
    return _near_far_search(graph, source, ar, k, arcs, in_weights, cut, delta_value, chain, blocks_per_sm)


def _near_far_search(graph, source, ar, k, arcs, in_weights, cut, delta_value, chain: int,
                     blocks_per_sm: int) -> SSSPResult:
    """The bulk-synchronous schedule over ``arcs`` = (indices, weights,
    light_end), light_end None without the light/heavy split."""
    import cupy

    indices, weights, light_end = arcs
    n = graph.n
    idx = k.index_dtype
    chunks = _chunk_capacity(graph)
    itemsize = np.dtype(ar.dist_dtype).itemsize
    check_fits("delta-stepping SSSP workspace",
               n * (itemsize + 4 * np.dtype(idx).itemsize + 8 + 8) + chunks * 2 * 16
               + (n * (np.dtype(idx).itemsize + 4) if light_end is not None else 0)
               + (8 * n if k.records_parents else 0))
    dist = cupy.full(n, ar.infinity, dtype=ar.dist_dtype)
    first, seeds = device_seeds(source, idx)
    at = first if seeds is None else seeds  # the sources, all in the first near queue at 0
    dist[at] = 0
    near = (cupy.empty(n, dtype=idx), cupy.empty(n, dtype=idx))
    near[0][: 1 if seeds is None else seeds.size] = at
    far = (cupy.empty(n, dtype=idx), cupy.empty(n, dtype=idx))
    chunk_vertex = (cupy.empty(chunks, dtype=idx), cupy.empty(chunks, dtype=idx))
    chunk_begin = (cupy.empty(chunks, dtype=np.int64), cupy.empty(chunks, dtype=np.int64))
    stamps = cupy.zeros(2 * n, dtype=np.int32)
    far_min = cupy.full(3, ar.infinity, dtype=ar.dist_dtype)
    ctl = cupy.zeros(NEAR_FAR_CTL_WORDS, dtype=np.uint32)
    ctl[NEAR_FAR_CTL_NEAR] = 1 if seeds is None else seeds.size  # the near queue holds the sources
    trace_rows = cupy.empty((TRACE_CAPACITY + 1, TRACE_WIDTH), dtype=np.int64)
    args = NearFarArgs(
        indptr=graph.indptr, indices=indices, weights=weights, dist=dist, near0=near[0], near1=near[1],
        far0=far[0], far1=far[1], chunk_vertex0=chunk_vertex[0], chunk_vertex1=chunk_vertex[1],
        chunk_begin0=chunk_begin[0], chunk_begin1=chunk_begin[1], near_stamp=stamps[:n],
        far_stamp=stamps[n:], far_min=far_min, ctl=ctl, delta=delta_value, cutoff=cut, chain=chain,
        trace=trace_rows, trace_capacity=TRACE_CAPACITY)
    if light_end is not None:  # the settled list and its stamps; heavy steps may pull over in-arcs
        args = args._replace(light_end=light_end, settled=cupy.empty(n, dtype=idx),
                             settled_stamp=cupy.zeros(n, dtype=np.int32), n=n, in_indptr=graph.in_indptr,
                             in_indices=graph.in_indices, in_weights=in_weights,
                             arc_count=graph.in_indices.size)
    record = None
    if k.records_parents:
        record = cupy.full(n, np.uint64(NO_RECORD), dtype=np.uint64)
        args = args._replace(record=record)
    k.near_far(args, blocks_per_sm)
    iterations = int(k.read_words(ctl, HOST_WORDS)[CTL_ITERATIONS])
    trace = read_bucket_trace(trace_rows, iterations, float(delta_value))
    return finish_search(graph, source, dist, ar, k, in_weights, trace, "delta-stepping", record)


def prepare(graph, tuning: SSSPTuning | None = None) -> None:
    """Untimed set-up for delta-stepping with its defaults: the kernels and the
    light/heavy arc copy for the default delta (skipped if it does not fit)."""
    if graph.m == 0:
        return
    tuning = tuning_or_default(tuning)
    ar, k, weights, _, _ = prepare_search(graph, 0, None, tuning)
    parent_chunks(graph)
    if not tuning.for_shape(graph).light_heavy:
        return
    try:
        light_heavy_arcs(graph, _delta_scalar(None, ar, graph, tuning), k, weights)
    except GPUMemoryError:
        pass
