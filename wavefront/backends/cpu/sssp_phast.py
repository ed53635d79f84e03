"""The CPU ``hierarchy`` method: PHAST over the graph's contraction hierarchy
(:mod:`wavefront.graph.hierarchy`, built on the first call and kept with the
graph), its two level sweeps in one parallel region
(:func:`._sssp_phast.phast_search`). Integer weights only; distances and
parents follow the CPU methods' arithmetic (:mod:`.sssp`).
"""
from __future__ import annotations

import time

import numpy as np
from numba import get_num_threads

from ..._sources import multi_source, seed_array
from ...graph.hierarchy import check_integer_weights, hierarchy_of
from ...results import SSSPResult, Trace
from ._atomics import BARRIER_SLOTS
from ._sssp_phast import phast_search
from ._sssp_results import (
    cutoff_value,
    public_distances,
    shortest_path_tree,
    weights_of,
)
from .tuning import CPUSSSPTuning

_DEFAULT_TUNING = CPUSSSPTuning()
_SCRATCH_KEY = "cpu.phast_scratch"


@multi_source
def hierarchy(graph, source, cutoff=None, tuning: CPUSSSPTuning | None = None) -> SSSPResult:
    """PHAST over the graph's contraction hierarchy (built on the first call).
    Raises :class:`~wavefront.errors.MethodLimitError` for float weights."""
    check_integer_weights(graph)
    tuning = tuning or _DEFAULT_TUNING
    weights, in_weights = weights_of(graph)
    h = hierarchy_of(graph)
    seeds = seed_array(source)
    infinity = np.int64(np.iinfo(np.int64).max)
    start = time.perf_counter()
    ranked = h.rank[seeds]
    source_level = int(np.searchsorted(h.level_starts, ranked.min(), side="right")) - 1
    scratch = graph.derived.get(_SCRATCH_KEY)
    if scratch is None:
        scratch = graph.derived[_SCRATCH_KEY] = np.empty(graph.n, dtype=np.int64)
    dist = np.empty(graph.n, dtype=np.int64)
    workers = get_num_threads()
    phast_search(h.up_indptr, h.up_indices, h.up_weights, h.down_indptr, h.down_indices, h.down_weights,
                 h.level_starts, source_level, h.rank, ranked, scratch, dist, infinity,
                 np.zeros(BARRIER_SLOTS, dtype=np.int64), workers, tuning.spins, tuning.phast_parallel_width)
    limit = cutoff_value(cutoff, dist.dtype, infinity)
    if limit != infinity:
        dist[dist > limit] = infinity
    parents = shortest_path_tree(graph, dist, infinity, seeds, weights, in_weights)
    trace = Trace()
    trace.add(0, "phast", seeds.size, h.arcs, time.perf_counter() - start,
              f"hierarchy of {h.levels} levels, {h.arcs} arcs ({h.shortcuts} shortcuts), {workers} threads")
    return SSSPResult(source=source, parents=parents, trace=trace, method="hierarchy", backend="cpu",
                      distances=public_distances(dist, infinity))
