"""GPU single-source shortest paths: the methods the registry names.

* ``bellman-ford``, ``frontier``, ``adaptive`` — seed 001's conventional,
  selection and proposal schemes (:mod:`.sssp_harish`, phases replayed as
  captured CUDA graphs by :mod:`.sssp_capture`).
* ``delta-stepping`` — near-far delta-stepping in one persistent kernel, with
  the light/heavy split on skewed graphs and asynchronous buckets on roads
  (:mod:`.sssp_delta`, :mod:`.sssp_async`).
* ``regions`` — for road networks: one persistent block per region of the
  graph, the region's distances in shared memory, boundary updates between
  blocks as messages (:mod:`.sssp_regions`).
* ``hierarchy`` — for road networks searched many times: PHAST's two level
  sweeps over a contraction hierarchy built once per graph on the host
  (:mod:`.sssp_phast`, :mod:`wavefront.graph.hierarchy`); integer weights.
* ``auto`` — ``hierarchy`` where the graph's hierarchy is already built,
  ``regions`` on small road networks (:func:`regions_preferred`),
  delta-stepping elsewhere (docs/decisions/cuda-sssp.md).

Every method accepts ``cutoff=`` and ``tuning=`` (an
:class:`~.sssp_tuning.SSSPTuning`; default: the measured winners) and returns
distances in the graph's arithmetic (float32 for float32 weights, float64
otherwise; integer weights are summed exactly in int64). Predecessors and
the shared set-up are in :mod:`.sssp_common`.
"""
from __future__ import annotations

from ..._sources import multi_source
from ...errors import MethodLimitError
from ...results import SSSPResult
from .sssp_common import prepare_search
from .sssp_delta import delta_stepping, prepare
from .sssp_harish import adaptive, bellman_ford, frontier
from .sssp_phast import phast_sssp
from .sssp_regions import region_sssp
from .sssp_tuning import SSSPTuning, tuning_or_default

__all__ = ["SSSPTuning", "adaptive", "auto", "bellman_ford", "delta_stepping", "frontier", "hierarchy", "prepare",
           "regions", "regions_preferred"]


@multi_source
def regions(graph, source, *, cutoff=None, delta=None, tuning: SSSPTuning | None = None) -> SSSPResult:
    """Asynchronous region SSSP (kernels/sssp_regions.cu): the vertices split
    into one compact region per SM, each block relaxing its region in shared
    memory and sending only updates that leave it; a block relaxes only
    vertices within ``delta`` (default ``tuning.region_delta_scale`` x
    Davidson et al.'s delta) of the least distance any block holds queued. Raises
    :class:`~wavefront.errors.MethodLimitError` when a region would not fit
    in one block's shared memory."""
    tuning = tuning_or_default(tuning)
    ar, k, weights, in_weights, cut = prepare_search(graph, source, cutoff, tuning)
    return region_sssp(graph, source, ar, k, weights, in_weights, cut, tuning, delta)


@multi_source
def hierarchy(graph, source, *, cutoff=None, tuning: SSSPTuning | None = None) -> SSSPResult:
    """PHAST over a contraction hierarchy (kernels/sssp_phast.cu): the first
    call contracts the graph on the host (seconds on a city, kept with the
    graph), every search is then two level sweeps in one launch. Raises
    :class:`~wavefront.errors.MethodLimitError` for float weights."""
    from ...graph.hierarchy import check_integer_weights

    tuning = tuning_or_default(tuning)
    check_integer_weights(graph)
    ar, k, _, in_weights, cut = prepare_search(graph, source, cutoff, tuning)
    return phast_sssp(graph, source, ar, k, in_weights, cut, tuning)


def regions_preferred(n: int, m: int, max_degree: int, sm_count: int, tuning: SSSPTuning) -> bool:
    """Whether ``auto`` runs ``regions`` on a graph of ``n`` vertices, ``m``
    arcs and largest out-degree ``max_degree`` on a GPU of ``sm_count`` SMs:
    a road-shaped graph (``tuning.auto_regions_max_degree``) small enough
    that one region per SM holds at most ``tuning.auto_regions_arcs_per_sm``
    arcs, where the measured regions beat delta-stepping."""
    return (n > 0 and 0 < max_degree <= tuning.auto_regions_max_degree
            and m <= tuning.auto_regions_arcs_per_sm * sm_count)


def _regions_apply(graph, tuning: SSSPTuning, options) -> bool:
    """:func:`regions_preferred` for ``graph`` on this GPU, when ``auto`` was
    given no delta-stepping option (``delta`` means a bucket width there) and
    no earlier search found the regions too big for shared memory."""
    if not set(options) <= {"cutoff"} or graph.derived.get("cuda.sssp.regions_refused"):
        return False
    from .device import sm_count
    from .device_graph import max_out_degree

    return regions_preferred(graph.n, graph.m, max_out_degree(graph), sm_count(), tuning)


@multi_source
def auto(graph, source, *, tuning: SSSPTuning | None = None, **options) -> SSSPResult:
    """``hierarchy`` where the graph's contraction hierarchy is built (an
    earlier ``hierarchy`` search, or ``wavefront.graph.hierarchy.hierarchy_of``),
    ``regions`` on small road networks (:func:`regions_preferred`),
    delta-stepping elsewhere. ``options``: either method's."""
    tuning = tuning_or_default(tuning)
    if "hierarchy" in graph.derived and set(options) <= {"cutoff"}:
        return hierarchy(graph, source, tuning=tuning, **options)
    if _regions_apply(graph, tuning, options):
        try:
            return regions(graph, source, tuning=tuning, **options)
        except MethodLimitError:  # a region beyond shared memory: remembered, and delta-stepping
            graph.derived["cuda.sssp.regions_refused"] = True
    return delta_stepping(graph, source, tuning=tuning, **options)
